//! Helpers: run the binary, write exports, read result files back.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use invoicedrop::model::{Messages, SubmissionResponse};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const NOW: &str = "2026-11-21T09:00:00Z";

pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// `invoicedrop check --json --now NOW ARGS` in `dir` (results in `dir/results`): exit code and
/// the JSON report.
pub fn check(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .current_dir(dir)
        .args(["check", "--json", "--now", NOW])
        .args(args)
        .output()
        .expect("run invoicedrop");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), json)
}

/// A CSV file read as rows (byte-order mark dropped).
pub fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// The Xero sample's header and non-blank rows.
pub fn xero_rows() -> Vec<Vec<String>> {
    read_csv(&samples().join("xero_sales_invoices.csv"))
        .into_iter()
        .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
        .collect()
}

pub fn write_csv(path: &Path, rows: &[Vec<String>]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    for r in rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();
}

/// The rows as an xlsx export, every cell as text.
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

/// One file of a zip package (an xlsx), as text.
pub fn zip_entry(path: &Path, name: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut text = String::new();
    archive.by_name(name).unwrap().read_to_string(&mut text).unwrap();
    text
}

/// Every path under `dir`, relative, sorted (hidden entries included).
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"));
            if p.is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A base64 payload the size of a simplified invoice's QR (470 bytes → 628 characters).
pub fn payload(seed: u8) -> String {
    let bytes: Vec<u8> = (0..470u32).map(|i| (i * 37 + u32::from(seed)) as u8).collect();
    STANDARD.encode(bytes)
}

pub fn response(number: &str, xml: &str, qr: &str) -> SubmissionResponse {
    SubmissionResponse {
        status: "Success".into(),
        invoice_number: Some(number.into()),
        invoice: Some(STANDARD.encode(xml)),
        id: Some(format!("uuid-{number}")),
        qr_code: Some(qr.into()),
        message: None,
        warnings: Messages::default(),
        errors: Messages::default(),
    }
}

/// Decode a QR PNG the way a phone would: find the grid, read it.
pub fn decode_png(png_bytes: &[u8]) -> String {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    // Any bit depth (the QR images are 1-bit) as one 8-bit grey byte per pixel.
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let (w, h) = (info.width as usize, info.height as usize);
    let mut img = rqrr::PreparedImage::prepare_from_greyscale(w, h, |x, y| buf[y * w + x]);
    let grids = img.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the image");
    grids[0].decode().unwrap().1
}
