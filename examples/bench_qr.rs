//! The QR image of an accepted document, alone: the time `invoicedrop::results::qr::qr_png`
//! takes for a ~630-character payload (version 20), the size of a simplified invoice's QR.
//!
//! ```text
//! cargo run --release --example bench_qr
//! ```
//!
//! A measurement for BENCHMARKS.md, not a test.

fn main() {
    let base = "AQxCb2JzIFJlY29yZHMCDzMxMDEyMjM5MzUwMDAwMwMUMjAyMi0wNC0yNVQxNTozMDowMFoEBzEwMDAuMDA=".repeat(7);
    let n = 2000;
    let started = std::time::Instant::now();
    let mut bytes = 0;
    for i in 0..n {
        let payload = format!("{base}{i}");
        match invoicedrop::results::qr::qr_png(&payload) {
            Ok(png) => bytes += png.len(),
            Err(e) => panic!("QR of a {}-character payload: {e}", payload.len()),
        }
    }
    let each = started.elapsed() / n;
    println!(
        "{n} QR images, {each:?} each, {} bytes of PNG on average",
        bytes / n as usize
    );
}
