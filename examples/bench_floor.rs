//! The floors the benchmarks compare `invoicedrop check` with: the bare libraries reading the
//! same file and doing nothing else.
//!
//! ```text
//! cargo run --release --example bench_floor -- csv FILE     # csv crate, one reused ByteRecord
//! cargo run --release --example bench_floor -- csv-str FILE # csv crate, StringRecord (UTF-8 checked)
//! cargo run --release --example bench_floor -- csv-copy FILE OUT # csv crate, each record written back with ten empty columns
//! cargo run --release --example bench_floor -- xlsx FILE    # calamine: open, load the first sheet, walk every cell
//! cargo run --release --example bench_floor -- xlsx-cells FILE # calamine: open, stream the first sheet's cells
//! ```
//!
//! Prints `rows=N seconds=S rows_per_s=R`. Used by `scripts/bench_check.sh` and
//! `scripts/bench_xlsx.sh` (see BENCHMARKS.md); a measurement, not a test.

use calamine::{Data, DataRef, Reader, Xlsx, open_workbook, open_workbook_auto};
use std::time::Instant;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn csv_bytes(path: &str) -> Result<u64> {
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let mut rec = csv::ByteRecord::new();
    let mut n = 0;
    while rdr.read_byte_record(&mut rec)? {
        n += 1;
    }
    Ok(n)
}

fn csv_strings(path: &str) -> Result<u64> {
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let mut rec = csv::StringRecord::new();
    let mut n = 0;
    while rdr.read_record(&mut rec)? {
        n += 1;
    }
    Ok(n)
}

/// What a result file costs at the least: every record read and written back (quoted where the
/// csv crate needs) with ten empty result columns, as `check` writes one result row per input
/// row. Not synced to disk (`check`'s result file is).
fn csv_copy(path: &str, out: &str) -> Result<u64> {
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let mut wtr = csv::WriterBuilder::new().flexible(true).from_path(out)?;
    let mut rec = csv::ByteRecord::new();
    let mut n = 0;
    while rdr.read_byte_record(&mut rec)? {
        for _ in 0..10 {
            rec.push_field(b"");
        }
        wtr.write_byte_record(&rec)?;
        n += 1;
    }
    wtr.flush()?;
    Ok(n)
}

fn xlsx(path: &str) -> Result<u64> {
    let mut book = open_workbook_auto(path)?;
    let sheet = book.sheet_names().first().cloned().ok_or("no sheet")?;
    let range = book.worksheet_range(&sheet)?;
    let mut n = 0u64;
    let mut cells = 0u64;
    for row in range.rows() {
        n += 1;
        for c in row {
            if !matches!(c, Data::Empty) {
                cells += 1;
            }
        }
    }
    std::hint::black_box(cells);
    // The header row is not a data row.
    Ok(n.saturating_sub(1))
}

/// calamine's streaming cell reader (what `invoicedrop` reads xlsx with): no sheet in memory.
fn xlsx_cells(path: &str) -> Result<u64> {
    let mut book: Xlsx<_> = open_workbook(path)?;
    let sheet = book.sheet_names().first().cloned().ok_or("no sheet")?;
    let mut reader = book.worksheet_cells_reader(&sheet)?;
    let mut rows = 0u64;
    let mut last_row = None;
    let mut cells = 0u64;
    while let Some(cell) = reader.next_cell()? {
        let row = cell.get_position().0;
        if last_row != Some(row) {
            rows += 1;
            last_row = Some(row);
        }
        if !matches!(cell.get_value(), DataRef::Empty) {
            cells += 1;
        }
    }
    std::hint::black_box(cells);
    // The header row is not a data row.
    Ok(rows.saturating_sub(1))
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(kind), Some(path)) = (args.next(), args.next()) else {
        return Err("usage: bench_floor csv|csv-str|xlsx|xlsx-cells FILE, or csv-copy FILE OUT".into());
    };
    let start = Instant::now();
    let rows = match kind.as_str() {
        "csv" => csv_bytes(&path)?,
        "csv-str" => csv_strings(&path)?,
        "csv-copy" => csv_copy(&path, &args.next().ok_or("csv-copy FILE OUT: no OUT")?)?,
        "xlsx" => xlsx(&path)?,
        "xlsx-cells" => xlsx_cells(&path)?,
        other => return Err(format!("unknown kind {other}").into()),
    };
    let secs = start.elapsed().as_secs_f64();
    println!("rows={rows} seconds={secs:.3} rows_per_s={:.0}", rows as f64 / secs);
    Ok(())
}
