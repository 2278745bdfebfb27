//! The QR image of an accepted document: the authority's QR payload as a PNG.
//!
//! The symbol is the `qrcode` crate's, module for module; only the choice of the mask is done
//! here. The crate scores the eight masks with a penalty function that allocates for every
//! position it looks at, which made the QR image most of the cost of a run (one per accepted
//! document). [`qr_modules`] scores them with the same rules, without allocating, and picks the
//! same mask (tested against the crate).

use qrcode::canvas::{Canvas, MaskPattern};
use qrcode::{Color, EcLevel};

/// Quiet zone around the QR code, in modules (the standard's minimum).
pub const QUIET_ZONE: usize = 4;
/// Smallest module size in pixels.
pub const MIN_MODULE_PX: usize = 4;
/// The QR image is scaled up to at least about this many pixels a side.
pub const TARGET_PX: usize = 480;

/// The masks in the order the crate tries them (the first of equal scores wins).
const MASKS: [MaskPattern; 8] = [
    MaskPattern::Checkerboard,
    MaskPattern::HorizontalLines,
    MaskPattern::VerticalLines,
    MaskPattern::DiagonalLines,
    MaskPattern::LargeCheckerboard,
    MaskPattern::Fields,
    MaskPattern::Diamonds,
    MaskPattern::Meadow,
];

/// The QR symbol of `data` at error correction level M: its width in modules and, row by row,
/// whether each module is dark. The same symbol as `QrCode::with_error_correction_level`.
pub fn qr_modules(data: &[u8]) -> Result<(usize, Vec<bool>), String> {
    let bits = qrcode::bits::encode_auto(data, EcLevel::M).map_err(|e| e.to_string())?;
    let version = bits.version();
    let bytes = bits.into_bytes();
    let (encoded, ec) = qrcode::ec::construct_codewords(&bytes, version, EcLevel::M).map_err(|e| e.to_string())?;
    let mut canvas = Canvas::new(version, EcLevel::M);
    canvas.draw_all_functional_patterns();
    canvas.draw_data(&encoded, &ec);
    let width = version.width().unsigned_abs() as usize;
    let mut best: Option<(u32, Vec<bool>)> = None;
    for mask in MASKS {
        let mut c = canvas.clone();
        c.apply_mask(mask);
        let dark: Vec<bool> = c.into_colors().into_iter().map(|m| m == Color::Dark).collect();
        let score = penalty(&dark, width);
        if best.as_ref().is_none_or(|(s, _)| score < *s) {
            best = Some((score, dark));
        }
    }
    best.map(|(_, dark)| (width, dark)).ok_or_else(|| "no mask".to_string())
}

/// The crate's penalty of a masked symbol (`Canvas::compute_total_penalty_scores` for normal QR
/// codes): runs of five or more, 2x2 blocks, finder-like patterns, dark/light balance. Rows and
/// columns are scanned as plain byte slices (the columns from a transposed copy), the finder
/// rule through a sliding window of bits.
fn penalty(dark: &[bool], w: usize) -> u32 {
    let rows: Vec<u8> = dark.iter().map(|d| u8::from(*d)).collect();
    let mut cols = vec![0u8; w * w];
    for y in 0..w {
        for x in 0..w {
            cols[x * w + y] = rows[y * w + x];
        }
    }
    let mut score = 0u32;
    let mut finder = 0u32;
    for lines in [&rows, &cols] {
        for line in lines.chunks_exact(w) {
            score += run_penalty(line);
            finder += finder_count(line) * 40;
        }
    }
    // 2x2 blocks of one color (overlapping): 3 each.
    for pair in rows.windows(2 * w).step_by(w) {
        let (top, bottom) = pair.split_at(w);
        for x in 0..w - 1 {
            let c = top[x];
            if top[x + 1] == c && bottom[x] == c && bottom[x + 1] == c {
                score += 3;
            }
        }
    }
    // Less the 360 the symbol's own three finder patterns always score.
    score += finder.saturating_sub(360);
    // Balance: how far the share of dark modules is from half.
    let dark_count = rows.iter().filter(|d| **d == 1).count();
    let ratio = dark_count * 200 / rows.len();
    score + ratio.abs_diff(100) as u32
}

/// Runs of 5 + N modules of one color in a line: 3 + N each.
fn run_penalty(line: &[u8]) -> u32 {
    let mut score = 0;
    let mut run = 0u32;
    let mut last = u8::MAX;
    for &c in line {
        if c == last {
            run += 1;
        } else {
            if run >= 5 {
                score += run - 2;
            }
            last = c;
            run = 1;
        }
    }
    if run >= 5 {
        score += run - 2;
    }
    score
}

/// Dark-light-dark-dark-dark-light-dark patterns in a line with four light modules (or the
/// edge) on at least one side. A window of 15 modules slides along the line padded with four
/// light modules at each end: bits 14..11 are the four before the pattern, 10..4 the pattern,
/// 3..0 the four after.
fn finder_count(line: &[u8]) -> u32 {
    const PATTERN: u32 = 0b101_1101;
    let mut count = 0;
    let mut window = 0u32;
    let padded = line.iter().copied().chain(std::iter::repeat_n(0u8, 4));
    for (t, bit) in std::iter::repeat_n(0u8, 4).chain(padded).enumerate() {
        window = ((window << 1) | u32::from(bit)) & 0x7fff;
        if t >= 14 && (window >> 4) & 0x7f == PATTERN && (window & 0x7800 == 0 || window & 0xf == 0) {
            count += 1;
        }
    }
    count
}

/// The QR code of `text` as a PNG: 1-bit greyscale (black on white), a quiet zone of
/// [`QUIET_ZONE`] modules, modules of at least [`MIN_MODULE_PX`] pixels, error correction level
/// M (15%): a ~630-character simplified-invoice payload fits version 20 or so, which level Q or H
/// would push past what a phone reads comfortably from a printed receipt. One bit per pixel keeps
/// the image small and quick to compress (a run writes one per accepted document).
pub fn qr_png(text: &str) -> Result<Vec<u8>, String> {
    let (modules, dark) = qr_modules(text.as_bytes())?;
    let side = modules + 2 * QUIET_ZONE;
    let px = MIN_MODULE_PX.max(TARGET_PX.div_ceil(side));
    let size = side * px;
    // Rows of `size` bits, each padded to whole bytes; a set bit is white.
    let stride = size.div_ceil(8);
    let mut pixels = vec![0xffu8; stride * size];
    for (i, _) in dark.iter().enumerate().filter(|(_, d)| **d) {
        let (mx, my) = (i % modules + QUIET_ZONE, i / modules + QUIET_ZONE);
        for y in my * px..(my + 1) * px {
            let row = &mut pixels[y * stride..(y + 1) * stride];
            for x in mx * px..(mx + 1) * px {
                row[x / 8] &= !(0x80 >> (x % 8));
            }
        }
    }
    let mut out = Vec::new();
    let dim = u32::try_from(size).map_err(|e| e.to_string())?;
    let mut encoder = png::Encoder::new(&mut out, dim, dim);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::One);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&pixels).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qrcode::QrCode;

    #[test]
    fn the_same_symbol_as_the_crate() {
        let payloads = [
            "A".to_string(),
            "hello, world".to_string(),
            "AQxCb2JzIFJlY29yZHMCDzMxMDEyMjM5MzUwMDAwMwMUMjAyMi0wNC0yNVQxNTozMDowMFoEBzEwMDAuMDA=".repeat(3),
            "x".repeat(632),
            "شركة ".repeat(60),
            (0..900).map(|i| char::from(b'!' + (i * 7 % 90) as u8)).collect(),
        ];
        for p in &payloads {
            let code = QrCode::with_error_correction_level(p.as_bytes(), EcLevel::M).unwrap();
            let want: Vec<bool> = code.to_colors().into_iter().map(|c| c == Color::Dark).collect();
            let (width, got) = qr_modules(p.as_bytes()).unwrap();
            assert_eq!(width, code.width(), "{p}");
            assert!(got == want, "a different symbol for a payload of {} bytes", p.len());
        }
    }

    #[test]
    fn png_has_a_quiet_zone_and_big_modules() {
        let png = qr_png(&"A".repeat(632)).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        assert!(info.width >= TARGET_PX as u32);
        assert_eq!(info.width, info.height);
    }
}
