//! Helpers for the `invoicedrop run` tests: a sandbox in this process, exports written on the fly,
//! the binary run with credentials in its environment, and result files read back.

use chrono::{FixedOffset, Utc};
use invoicedrop::model::Secret;
use invoicedrop::sandbox::{self, SandboxConfig, SandboxHandle};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

pub const SECRET: &str = "s3cr3t-for-the-run-tests-Zq9";

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_invoicedrop"))
}

/// A sandbox served by its own runtime, so the test thread can run the binary synchronously.
pub struct Server {
    /// Serves the sandbox; kept alive with it.
    _rt: Runtime,
    pub handle: SandboxHandle,
}

impl Server {
    pub fn start(mut config: SandboxConfig) -> Server {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        config.bind = "127.0.0.1".into();
        config.port = 0;
        config.secret = Secret::new(SECRET);
        let handle = rt.block_on(sandbox::start(config)).expect("sandbox starts");
        Server { _rt: rt, handle }
    }

    /// The environment of a client of this sandbox (D5: the secret only from the environment).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("INVOICEDROP_API_URL", self.handle.base_url()),
            ("INVOICEDROP_VAT_NUMBER", sandbox::DEFAULT_VAT_NUMBER.into()),
            ("INVOICEDROP_USERNAME", sandbox::DEFAULT_USERNAME.into()),
            ("INVOICEDROP_SECRET", SECRET.into()),
        ]
    }

    pub fn accepted(&self) -> u64 {
        self.handle.stats().devices.iter().map(|d| d.accepted).sum()
    }

    /// `GET /sandbox/stats` over HTTP, as JSON: what the test API really shows.
    pub fn stats_json(&self) -> serde_json::Value {
        let url = format!("{}/sandbox/stats", self.handle.base_url());
        self._rt.block_on(async {
            let r = reqwest::get(&url).await.expect("GET /sandbox/stats");
            assert!(r.status().is_success(), "GET /sandbox/stats: {}", r.status());
            r.json().await.expect("the stats are JSON")
        })
    }
}

impl Server {
    /// `GET /sandbox/devices/{onboard_id}/documents`, as JSON: the documents the sandbox issued
    /// for a device, in ICV order.
    pub fn documents_json(&self, onboard_id: &str) -> serde_json::Value {
        let mut url = reqwest::Url::parse(&self.handle.base_url()).expect("the base URL");
        url.path_segments_mut()
            .expect("a base URL")
            .extend(["sandbox", "devices", onboard_id, "documents"]);
        self._rt.block_on(async {
            let r = reqwest::get(url).await.expect("GET the device's documents");
            assert!(r.status().is_success(), "GET the device's documents: {}", r.status());
            r.json().await.expect("the documents are JSON")
        })
    }

    /// The numbers of the documents the sandbox issued for a device (its journal, in ICV order).
    pub fn issued(&self, onboard_id: &str) -> Vec<String> {
        let docs = self.documents_json(onboard_id);
        docs.as_array()
            .unwrap_or_else(|| panic!("no list of documents: {docs}"))
            .iter()
            .map(|d| {
                d["number"]
                    .as_str()
                    .unwrap_or_else(|| panic!("no number in {d}"))
                    .to_string()
            })
            .collect()
    }

    /// `kind number` of each document the sandbox issued for the device onboarded in
    /// `dir/.invoicedrop`, sorted.
    pub fn kinds_and_numbers(&self, dir: &Path) -> Vec<String> {
        let docs = self.documents_json(&onboard_id(&dir.join(".invoicedrop")));
        let mut all: Vec<String> = docs
            .as_array()
            .unwrap_or_else(|| panic!("no list of documents: {docs}"))
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    d["kind"].as_str().unwrap_or("?"),
                    d["number"].as_str().unwrap_or("?")
                )
            })
            .collect();
        all.sort();
        all
    }
}

/// A count of the first device in `GET /sandbox/stats`: `accepted`, `replays`,
/// `rekeyed_replays`...; fails when the field is missing.
pub fn device_count(stats: &serde_json::Value, field: &str) -> u64 {
    stats["devices"][0][field]
        .as_u64()
        .unwrap_or_else(|| panic!("no devices[0].{field} in the stats: {stats}"))
}

/// A count of `GET /sandbox/stats` itself: `rate_limited`, `injected_failures`, `dropped`.
pub fn count(stats: &serde_json::Value, field: &str) -> u64 {
    stats[field]
        .as_u64()
        .unwrap_or_else(|| panic!("no {field} in the stats: {stats}"))
}

/// Whether the child has exited (without waiting).
pub fn exited(child: &mut std::process::Child) -> bool {
    child.try_wait().expect("the child's status").is_some()
}

/// A customers table of its header line alone (the columns every bundled mapping reads): what a
/// seller whose buyers have no VAT number gives. Without a table, no document whose type the
/// buyer's VAT number decides is issued (`INV-MAP-LOOKUP-FILE`).
/// Xero's header (the bundled mapping's columns), line end included.
pub const XERO_HEADER: &str = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,\
PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,SARegion,\
SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,InvoiceAmountPaid,\
InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,\
TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status\n";

pub const WALK_IN_CUSTOMERS: &str =
    "name,account,vat_number,id_scheme,id,street,building_number,plot,district,city,postal_zone,country\n";

/// Put [`WALK_IN_CUSTOMERS`] in `dir` as `customers.csv`, unless it has one.
pub fn walk_in_customers(dir: &Path) {
    let path = dir.join("customers.csv");
    if dir.is_dir() && !path.exists() {
        std::fs::write(&path, WALK_IN_CUSTOMERS).unwrap();
    }
}

/// The binary in `dir`, with `env` and nothing of the caller's INVOICEDROP_* variables. The
/// exports of these tests are of walk-in buyers: `dir` is given [`walk_in_customers`] (the
/// exports are beside it) unless a test wrote its own `customers.csv` there.
pub fn command(dir: &Path, env: &[(&str, String)], args: &[&str]) -> Command {
    walk_in_customers(dir);
    let mut c = Command::new(bin());
    c.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("INVOICEDROP_") {
            c.env_remove(k);
        }
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

pub fn run(dir: &Path, env: &[(&str, String)], args: &[&str]) -> Output {
    command(dir, env, args).output().expect("the binary runs")
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Onboard a device through the binary; its onboard_id is remembered in `dir/.invoicedrop`.
pub fn onboard(dir: &Path, env: &[(&str, String)]) {
    let o = run(dir, env, &["onboard", "--otp", "123456", "--device-id", "run-tests"]);
    assert!(o.status.success(), "onboard failed: {}", text(&o));
}

/// Onboard device `id` for standard invoices only, its state in `dir/.invoicedrop`.
pub fn onboard_standard_only(dir: &Path, env: &[(&str, String)], id: &str) {
    let args = [
        "onboard",
        "--otp",
        "123456",
        "--device-id",
        id,
        "--invoice-type",
        "standard",
    ];
    let o = run(dir, env, &args);
    assert!(o.status.success(), "onboard failed: {}", text(&o));
}

/// A Xero export of `n` one-line simplified invoices issued today (Riyadh), numbered T-00001...
pub fn xero_export(path: &Path, n: usize) {
    xero_export_lines(path, n, 1);
}

/// A Xero export of `n` simplified invoices issued today (Riyadh), numbered T-00001..., each of
/// `lines` lines (item codes ITEM-m, then ITEM-m-2, ITEM-m-3...), and [`walk_in_customers`]
/// beside it.
pub fn xero_export_lines(path: &Path, n: usize, lines: usize) {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let today = Utc::now().with_timezone(&riyadh).format("%d/%m/%Y").to_string();
    let mut out = String::from(
        "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,SARegion,SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,InvoiceAmountPaid,InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status\n",
    );
    for i in 1..=n {
        let cents = 1000 + (i % 97) * 25;
        let net = format!("{}.{:02}", cents / 100, cents % 100);
        let m = i % 13;
        for j in 1..=lines {
            let item = if j == 1 {
                format!("ITEM-{m}")
            } else {
                format!("ITEM-{m}-{j}")
            };
            out.push_str(&format!(
                "Walk-in customer {i},,,,,,,,,,,,,,,,,,T-{i:05},,{today},{today},,,,,,{item},كتاب | Book {m},1,{net},,{net},200,15% Output VAT,,,,,,SAR,Sales Invoice,Sent,Awaiting Payment\n",
            ));
        }
    }
    std::fs::write(path, out).unwrap();
    // Walk-in buyers: beside the export, a customers table without a customer.
    if let Some(dir) = path.parent() {
        walk_in_customers(dir);
    }
}

/// Onboard device `id` into `dir`'s state folder; what `onboard` said.
pub fn onboard_as(dir: &Path, env: &[(&str, String)], id: &str) -> String {
    let o = run(dir, env, &["onboard", "--otp", "123456", "--device-id", id]);
    assert!(o.status.success(), "onboard failed: {}", text(&o));
    text(&o)
}

/// As if the answer for `number` had been lost: the ledger in `state` holds it sent, its outcome
/// unknown (no response, no UUID).
pub fn lose_answer(state: &Path, number: &str) {
    let conn = rusqlite::Connection::open(state.join("ledger.sqlite")).unwrap();
    let n = conn
        .execute(
            "UPDATE documents SET state = 'unknown', response = NULL, uuid = NULL WHERE number = ?1",
            [number],
        )
        .unwrap();
    assert_eq!(n, 1, "{number} is in the ledger once");
}

/// As if `number` had been accepted long ago: the ledger in `state` records its acceptance at
/// 2026-01-02T03:04:05.678Z (its rows' `result_time` is then 2026-01-02T03:04:05Z).
pub fn backdate_acceptance(state: &Path, number: &str) {
    let conn = rusqlite::Connection::open(state.join("ledger.sqlite")).unwrap();
    let n = conn
        .execute(
            "UPDATE documents SET updated_at = '2026-01-02T03:04:05.678Z' WHERE number = ?1",
            [number],
        )
        .unwrap();
    assert_eq!(n, 1, "{number} is in the ledger once");
}

/// Documents the sandbox accepted, replayed and rejected, over all its devices.
pub fn requests(server: &Server) -> (u64, u64, u64) {
    let s = server.handle.stats();
    let sum = |f: fn(&invoicedrop::sandbox::DeviceStats) -> u64| s.devices.iter().map(f).sum::<u64>();
    (sum(|d| d.accepted), sum(|d| d.replays), sum(|d| d.rejections))
}

/// The onboard_id of the device remembered in the state folder `state`.
pub fn onboard_id(state: &Path) -> String {
    invoicedrop::submit::Ledger::open(state)
        .unwrap()
        .remembered_device()
        .unwrap()
        .expect("a device is remembered")
        .onboard_id()
        .to_string()
}

/// The rows of a result file, as maps of column → value.
pub fn results(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers: Vec<String> = r
        .headers()
        .unwrap()
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    r.records()
        .map(|rec| {
            headers
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// Wait for `cond`, failing after `limit`.
pub fn wait_for(limit: Duration, what: &str, cond: impl FnMut() -> bool) {
    assert!(wait_until(limit, cond), "timed out waiting for {what}");
}

/// Wait for `cond` for at most `limit`; whether it came true.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !cond() {
        if start.elapsed() >= limit {
            return false;
        }
        // Poll the condition; park briefly between looks so the server keeps the CPU.
        std::thread::park_timeout(Duration::from_millis(5));
    }
    true
}

/// The records of a CSV export, header first.
pub fn records(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).from_path(path).unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// A workbook of one sheet holding `rows` as text cells (blank cells left out).
pub fn write_xlsx(path: &Path, rows: &[Vec<String>]) {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if !cell.is_empty() {
                sheet.write_string(r as u32, c as u16, cell).unwrap();
            }
        }
    }
    book.save(path).unwrap();
}

/// Rewrites the workbook at `path` with its sheet's XML cut 40 bytes into row `row`'s element:
/// the archive (its directory, the parts' checksums) stays sound; the sheet's text stops there.
pub fn cut_sheet_at_row(path: &Path, row: u32) {
    let bytes = std::fs::read(path).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut parts = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut data).unwrap();
        parts.push((entry.name().unwrap().to_string(), data));
    }
    let mut out = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut cut = false;
    for (name, mut data) in parts {
        if name == "xl/worksheets/sheet1.xml" {
            let text = String::from_utf8(data.clone()).unwrap();
            let at = text.find(&format!("<row r=\"{row}\"")).expect("the row in the sheet");
            data.truncate(at + 40);
            cut = true;
        }
        out.start_file(name, options).unwrap();
        std::io::Write::write_all(&mut out, &data).unwrap();
    }
    out.finish().unwrap();
    assert!(cut, "the workbook has a first sheet");
}

/// The authority's validator (`shared/tools/zatca-validate`): `$INVOICEDROP_SHARED`, or the first
/// `shared/` above the crate.
/// The authority's validator (`zatca-validate`) on issued XML files: fails the test unless it
/// passes every one with no error and, when `no_warnings`, no warning either.
pub fn authority_accepts<P: AsRef<std::ffi::OsStr>>(files: &[P], no_warnings: bool) {
    let out = Command::new(validator())
        .args(files)
        .output()
        .expect("zatca-validate runs (needs java and Saxon-HE)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let wanted = format!(
        "{} files, 0 errors{}",
        files.len(),
        if no_warnings { ", 0 warnings" } else { "" }
    );
    assert!(
        out.status.success() && stdout.contains(&wanted),
        "the authority's validator rejected what was issued (wanted {wanted:?}):\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn validator() -> PathBuf {
    if let Some(dir) = std::env::var_os("INVOICEDROP_SHARED") {
        return PathBuf::from(dir).join("tools/zatca-validate");
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|d| d.join("shared/tools/zatca-validate"))
        .find(|p| p.is_file())
        .expect("shared/tools/zatca-validate above the crate (or set INVOICEDROP_SHARED)")
}
