//! Throughput of `ingest::RowReader` against a bare `csv` crate loop, on a generated Xero-like
//! invoice export (44 columns, one row per invoice line).
//!
//! ```text
//! cargo run --release --example ingest_read -- [ROWS] [FILE]
//! ```
//!
//! ROWS defaults to 1,000,000; FILE to `ingest_read_<ROWS>.csv` in the temp folder, generated
//! when missing (about 330 bytes a row). Each reader runs three times over the (then cached)
//! file; the best run is reported. The last line reads the same bytes as windows-1256 through
//! the streaming decoder. A measurement, not a test: nothing fails on a slow machine.

use invoicedrop::ingest::{ReadOptions, RowReader};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const HEADER: &str = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,\
POCity,PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,\
SARegion,SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,\
InvoiceAmountPaid,InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,\
AccountCode,TaxType,TaxAmount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status";

/// A small deterministic generator (xorshift64), so every run writes the same file.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn generate(path: &Path, rows: u64) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(out, "{HEADER}")?;
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let (mut invoice, mut lines_left) = (0u64, 0u64);
    for _ in 0..rows {
        if lines_left == 0 {
            invoice += 1;
            lines_left = 1 + g.next(5);
        }
        lines_left -= 1;
        let customer = invoice % 5000;
        let qty = 1 + g.next(20);
        let cents = 100 + g.next(100_000);
        let line = qty * cents;
        let tax = line * 15 / 100;
        let day = 1 + invoice % 28;
        writeln!(
            out,
            "Customer {customer} Trading Co,accounts{customer}@example.com,{n} King Fahd Road,Olaya,,,Riyadh,\
Riyadh Province,1234{d},Saudi Arabia,,,,,,,,,INV-{invoice:07},PO {r},{day:02}/03/2025,{due:02}/04/2025,,\
{total}.{tc:02},{tax_i}.{tax_c:02},0.00,{total}.{tc:02},ITEM-{item},\"Consulting services, {qty} days\",{qty},\
{ui}.{uc:02},,{li}.{lc:02},200,Standard Rate Sales,{tax_i}.{tax_c:02},Region,Central,,,SAR,Sales Invoice,Sent,\
Awaiting Payment",
            n = 1 + customer % 300,
            d = customer % 10,
            r = 4000 + g.next(1000),
            due = day,
            total = (line + tax) / 100,
            tc = (line + tax) % 100,
            tax_i = tax / 100,
            tax_c = tax % 100,
            item = g.next(400),
            ui = cents / 100,
            uc = cents % 100,
            li = line / 100,
            lc = line % 100,
        )?;
    }
    out.flush()
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Runs `f` three times; the best time and what it counted.
fn best_of(mut f: impl FnMut() -> Result<u64>) -> Result<(Duration, u64)> {
    let mut best = (Duration::MAX, 0);
    for _ in 0..3 {
        let start = Instant::now();
        let n = f()?;
        let took = start.elapsed();
        if took < best.0 {
            best = (took, n);
        }
    }
    Ok(best)
}

fn report(name: &str, (took, rows): (Duration, u64), bytes: u64, baseline: Option<Duration>) {
    let secs = took.as_secs_f64();
    let ratio = baseline.map_or(String::new(), |b| {
        format!("  {:.2}x the bare loop", secs / b.as_secs_f64())
    });
    println!(
        "{name:<34} {rows:>9} rows  {secs:>7.3} s  {:>11.0} rows/s  {:>6.0} MB/s{ratio}",
        rows as f64 / secs,
        bytes as f64 / secs / 1e6
    );
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let rows: u64 = args.next().map_or(Ok(1_000_000), |a| a.parse())?;
    let path = args.next().map_or_else(
        || std::env::temp_dir().join(format!("ingest_read_{rows}.csv")),
        PathBuf::from,
    );
    if !path.exists() {
        eprintln!("generating {} ({rows} rows)...", path.display());
        generate(&path, rows)?;
    }
    let bytes = std::fs::metadata(&path)?.len();
    println!(
        "{}: {:.1} MB, {rows} rows of 44 columns",
        path.display(),
        bytes as f64 / 1e6
    );

    let bare_bytes = best_of(|| {
        let mut rdr = csv::ReaderBuilder::new().from_path(&path)?;
        let mut rec = csv::ByteRecord::new();
        let mut n = 0;
        while rdr.read_byte_record(&mut rec)? {
            n += 1;
        }
        Ok(n)
    })?;
    report("csv ByteRecord loop (no UTF-8)", bare_bytes, bytes, None);
    let bare_strings = best_of(|| {
        let mut rdr = csv::ReaderBuilder::new().from_path(&path)?;
        let mut rec = csv::StringRecord::new();
        let mut n = 0;
        while rdr.read_record(&mut rec)? {
            n += 1;
        }
        Ok(n)
    })?;
    report("csv StringRecord loop", bare_strings, bytes, Some(bare_bytes.0));

    let opts = ReadOptions::default();
    let reuse = best_of(|| {
        let mut reader = RowReader::open(&path, &opts)?;
        let mut row = reader.new_row();
        let mut n = 0;
        while reader.read_row(&mut row)? {
            n += 1;
        }
        Ok(n)
    })?;
    report("RowReader::read_row (reused row)", reuse, bytes, Some(bare_bytes.0));
    let iter = best_of(|| {
        let reader = RowReader::open(&path, &opts)?;
        let mut n = 0;
        for row in reader {
            std::hint::black_box(row?);
            n += 1;
        }
        Ok(n)
    })?;
    report("RowReader iterator (a Row each)", iter, bytes, Some(bare_bytes.0));
    // The same (ASCII) bytes through the streaming decoder, as for a legacy export.
    let legacy = ReadOptions {
        encoding: Some("windows-1256".into()),
        ..Default::default()
    };
    let decoded = best_of(|| {
        let mut reader = RowReader::open(&path, &legacy)?;
        let mut row = reader.new_row();
        let mut n = 0;
        while reader.read_row(&mut row)? {
            n += 1;
        }
        Ok(n)
    })?;
    report("read_row, decoding windows-1256", decoded, bytes, Some(bare_bytes.0));
    Ok(())
}
