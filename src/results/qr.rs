//! The QR image of an accepted document: the authority's QR payload as a PNG.
//!
//! The symbol is the `qrcode` crate's, module for module; only the choice of the mask is done
//! here. The crate scores the eight masks with a penalty function that allocates for every
//! position it looks at, which made the QR image most of the cost of a run (one per accepted
//! document). [`qr_modules`] scores them with the same rules, without allocating, and picks the
//! same mask (tested against the crate).

use qrcode::canvas::{Canvas, MaskPattern, Module};
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
    if width <= 128 {
        return Ok((width, best_mask_in_bits(&canvas, width)));
    }
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

/// Level M's format information for masks 0 to 7 (the crate's `FORMAT_INFOS_QR[0..8]`, ISO/IEC
/// 18004 table C.1), drawn most significant bit first at [`FORMAT_MAIN`] and [`FORMAT_SIDE`].
const FORMAT_M: [u16; 8] = [0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0];
/// Where the crate draws the format information (x, y; negative counts from the far edge).
const FORMAT_MAIN: [(i16, i16); 15] = [
    (0, 8),
    (1, 8),
    (2, 8),
    (3, 8),
    (4, 8),
    (5, 8),
    (7, 8),
    (8, 8),
    (8, 7),
    (8, 5),
    (8, 4),
    (8, 3),
    (8, 2),
    (8, 1),
    (8, 0),
];
const FORMAT_SIDE: [(i16, i16); 15] = [
    (8, -1),
    (8, -2),
    (8, -3),
    (8, -4),
    (8, -5),
    (8, -6),
    (8, -7),
    (-8, 8),
    (-7, 8),
    (-6, 8),
    (-5, 8),
    (-4, 8),
    (-3, 8),
    (-2, 8),
    (-1, 8),
];

/// Whether mask `m` (the crate's `MaskPattern` as a number) inverts module (x, y).
fn mask_inverts(m: usize, x: usize, y: usize) -> bool {
    match m {
        0 => (x + y).is_multiple_of(2),
        1 => y.is_multiple_of(2),
        2 => x.is_multiple_of(3),
        3 => (x + y).is_multiple_of(3),
        4 => ((y / 2) + (x / 3)).is_multiple_of(2),
        5 => (x * y) % 2 + (x * y) % 3 == 0,
        6 => ((x * y) % 2 + (x * y) % 3).is_multiple_of(2),
        _ => ((x + y) % 2 + (x * y) % 3).is_multiple_of(2),
    }
}

/// The eight masks as rows of bits: every mask repeats itself every 12 rows (and 6 columns).
fn mask_rows() -> &'static [[u128; 12]; 8] {
    static ROWS: std::sync::OnceLock<[[u128; 12]; 8]> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        let mut rows = [[0u128; 12]; 8];
        for (m, mask) in rows.iter_mut().enumerate() {
            for (y, row) in mask.iter_mut().enumerate() {
                *row = (0..128).fold(0, |bits, x| bits | (u128::from(mask_inverts(m, x, y)) << x));
            }
        }
        rows
    })
}

/// What `Canvas::apply_mask` and the crate's choice of mask do, for symbols up to 128 modules
/// wide (version 23; a simplified invoice's QR is about version 20), with every row of the
/// symbol as the bits of a `u128` (bit `x` = module `x`): each mask is an XOR per row, each
/// penalty rule a few shifts and population counts per row and column. The crate's way
/// (a clone of the canvas, a mask function call per module, a `Vec` of colors, per mask) was
/// most of the cost of a QR image. The same symbol as the crate's (tested).
fn best_mask_in_bits(canvas: &Canvas, w: usize) -> Vec<bool> {
    debug_assert!(w <= 128);
    // `base`: the modules' colors before masking; `free`: the modules a mask changes (data and
    // error correction, and any left empty, which the crate masks as light ones).
    let mut base = [0u128; 128];
    let mut free = [0u128; 128];
    for (y, (b, f)) in base.iter_mut().zip(free.iter_mut()).take(w).enumerate() {
        for x in 0..w {
            let (dark, maskable) = match canvas.get(x as i16, y as i16) {
                Module::Masked(c) => (c == Color::Dark, false),
                Module::Unmasked(c) => (c == Color::Dark, true),
                Module::Empty => (false, true),
            };
            *b |= u128::from(dark) << x;
            *f |= u128::from(maskable) << x;
        }
    }
    let wrap = |c: i16| if c < 0 { (c + w as i16) as usize } else { c as usize };
    let mut best: Option<(u32, [u128; 128])> = None;
    for (m, mask) in mask_rows().iter().enumerate() {
        let mut rows = [0u128; 128];
        for (y, row) in rows.iter_mut().take(w).enumerate() {
            *row = base[y] ^ (mask[y % 12] & free[y]);
        }
        for coords in [&FORMAT_MAIN, &FORMAT_SIDE] {
            for (k, &(x, y)) in coords.iter().enumerate() {
                let (x, y) = (wrap(x), wrap(y));
                let on = FORMAT_M[m] & (1 << (14 - k)) != 0;
                rows[y] = (rows[y] & !(1 << x)) | (u128::from(on) << x);
            }
        }
        // The dark module.
        rows[wrap(-8)] |= 1 << 8;
        let score = penalty_rows(&rows, w);
        if best.as_ref().is_none_or(|(s, _)| score < *s) {
            best = Some((score, rows));
        }
    }
    let rows = best.map(|(_, rows)| rows).unwrap_or(base);
    rows[..w]
        .iter()
        .flat_map(|r| (0..w).map(move |x| (r >> x) & 1 == 1))
        .collect()
}

/// Transposes a 128 x 128 matrix of bits (row `k`, bit `i` becomes row `i`, bit `k`) by
/// swapping ever smaller blocks (Hacker's Delight, 7-3).
fn transpose128(a: &mut [u128; 128]) {
    let mut j = 64usize;
    let mut m: u128 = u128::from(u64::MAX);
    while j != 0 {
        let mut k = 0usize;
        while k < 128 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// [`penalty`] of a symbol `w` modules wide given as rows of bits (bit `x` = module `x`, rows
/// beyond `w` empty). The same score as [`penalty`] (tested).
fn penalty_rows(rows: &[u128; 128], w: usize) -> u32 {
    let mut cols = *rows;
    transpose128(&mut cols);
    let (rows, cols) = (&rows[..w], &cols[..w]);
    let all = if w == 128 { u128::MAX } else { (1u128 << w) - 1 };
    // Bits 0..w-2: the pairs (i, i+1) inside the line.
    let pairs = all >> 1;
    let mut score = 0u32;
    let mut finder = 0u32;
    for &v in rows.iter().chain(cols) {
        // Runs of 5 + N of one color score 3 + N: one per window of five equal modules, plus 2
        // per run (counted at its first window).
        let same = !(v ^ (v >> 1)) & pairs;
        let five = same & (same >> 1) & (same >> 2) & (same >> 3);
        score += five.count_ones() + 2 * (five & !(five << 1)).count_ones();
        // 1011101 starting at bit p, with four light modules (or the edge) before or after it.
        let pattern = v & !(v >> 1) & (v >> 2) & (v >> 3) & (v >> 4) & !(v >> 5) & (v >> 6);
        let light_before = !((v << 1) | (v << 2) | (v << 3) | (v << 4));
        let light_after = !((v >> 7) | (v >> 8) | (v >> 9) | (v >> 10));
        finder += (pattern & (light_before | light_after)).count_ones() * 40;
    }
    // 2x2 blocks of one color (overlapping): 3 each.
    for pair in rows.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let block = !(a ^ (a >> 1)) & !(b ^ (b >> 1)) & !(a ^ b) & pairs;
        score += 3 * block.count_ones();
    }
    score += finder.saturating_sub(360);
    let dark_count: usize = rows.iter().map(|r| r.count_ones() as usize).sum();
    let ratio = dark_count * 200 / (w * w);
    score + ratio.abs_diff(100) as u32
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
    // Each row of modules is drawn once as a row of pixels, then copied to the module's other
    // pixel rows.
    let mut line = vec![0xffu8; stride];
    for (my, modules_row) in dark.chunks_exact(modules).enumerate() {
        line.fill(0xff);
        for (mx, _) in modules_row.iter().enumerate().filter(|(_, d)| **d) {
            for x in (mx + QUIET_ZONE) * px..(mx + QUIET_ZONE + 1) * px {
                line[x / 8] &= !(0x80 >> (x % 8));
            }
        }
        let top = (my + QUIET_ZONE) * px;
        for row in pixels[top * stride..(top + px) * stride].chunks_exact_mut(stride) {
            row.copy_from_slice(&line);
        }
    }
    let mut out = Vec::new();
    let dim = u32::try_from(size).map_err(|e| e.to_string())?;
    let mut encoder = png::Encoder::new(&mut out, dim, dim);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::One);
    // Rows repeat `px` times: the fast deflate finds them as well as the default does.
    encoder.set_compression(png::Compression::Fast);
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
            // Version 24 and up are wider than 128 modules: the crate's own masking.
            (0..1400).map(|i| char::from(b'!' + (i * 11 % 90) as u8)).collect(),
        ];
        for p in &payloads {
            let code = QrCode::with_error_correction_level(p.as_bytes(), EcLevel::M).unwrap();
            let want: Vec<bool> = code.to_colors().into_iter().map(|c| c == Color::Dark).collect();
            let (width, got) = qr_modules(p.as_bytes()).unwrap();
            assert_eq!(width, code.width(), "{p}");
            assert!(got == want, "a different symbol for a payload of {} bytes", p.len());
        }
    }

    fn rows_of(dark: &[bool], w: usize) -> [u128; 128] {
        let mut rows = [0u128; 128];
        for (row, line) in rows.iter_mut().zip(dark.chunks_exact(w)) {
            *row = line.iter().enumerate().fold(0, |b, (x, &d)| b | (u128::from(d) << x));
        }
        rows
    }

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut a = [0u128; 128];
        for r in &mut a {
            *r = (u128::from(xorshift(&mut seed)) << 64) | u128::from(xorshift(&mut seed));
        }
        let mut t = a;
        transpose128(&mut t);
        for (k, row) in a.iter().enumerate() {
            for (i, col) in t.iter().enumerate() {
                assert_eq!((row >> i) & 1, (col >> k) & 1, "({k}, {i})");
            }
        }
    }

    /// The bit-parallel penalty gives the scalar one's score, on random symbols of every width
    /// it handles and on real masked symbols.
    #[test]
    fn bit_penalty_equals_the_scalar_one() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for w in (21..=128).step_by(4).chain([127, 128]) {
            for density in [2u64, 3, 8] {
                // Runs and finder-like patterns come more often with a skewed density.
                let dark: Vec<bool> = (0..w * w)
                    .map(|_| xorshift(&mut seed).is_multiple_of(density))
                    .collect();
                let bits = penalty_rows(&rows_of(&dark, w), w);
                assert_eq!(bits, penalty(&dark, w), "width {w}, 1/{density} dark");
            }
        }
        for p in ["hello", &"x".repeat(632), &"شركة ".repeat(60)] {
            let code = QrCode::with_error_correction_level(p.as_bytes(), EcLevel::M).unwrap();
            let dark: Vec<bool> = code.to_colors().into_iter().map(|c| c == Color::Dark).collect();
            let w = code.width();
            assert_eq!(penalty_rows(&rows_of(&dark, w), w), penalty(&dark, w));
        }
    }

    /// Every dark module is a block of dark pixels, every light one white, around a white
    /// quiet zone.
    #[test]
    fn png_pixels_follow_the_modules() {
        let text = "AQxCb2JzIFJlY29yZHM=".repeat(20);
        let (modules, dark) = qr_modules(text.as_bytes()).unwrap();
        let png = qr_png(&text).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut buf).unwrap();
        let size = frame.width as usize;
        let px = size / (modules + 2 * QUIET_ZONE);
        let white = |x: usize, y: usize| buf[y * frame.line_size + x / 8] & (0x80 >> (x % 8)) != 0;
        for y in 0..size {
            for x in 0..size {
                let (mx, my) = ((x / px).checked_sub(QUIET_ZONE), (y / px).checked_sub(QUIET_ZONE));
                let is_dark = match (mx, my) {
                    (Some(mx), Some(my)) if mx < modules && my < modules => dark[my * modules + mx],
                    _ => false,
                };
                assert_eq!(!white(x, y), is_dark, "pixel ({x}, {y})");
            }
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
