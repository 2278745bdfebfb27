//! Property tests: whatever bytes a file holds, the reader never panics and always ends.

use super::*;
use proptest::prelude::*;

/// Opens and reads to the end; the number of items is bounded by the input size.
fn drain(name: &str, bytes: &[u8]) {
    let (_d, p) = write(name, bytes);
    if let Ok(mut reader) = RowReader::open(&p, &ReadOptions::default()) {
        let _ = reader.headers();
        let mut n = 0usize;
        let mut last_line = 0;
        for item in reader.by_ref() {
            n += 1;
            assert!(n <= bytes.len() + 1, "more items than bytes");
            if let Ok(row) = item {
                if !reader_is_sheet(name) {
                    assert!(row.source.line >= last_line.max(1), "lines go forward");
                }
                last_line = row.source.line;
            }
        }
        let _ = reader.notes();
    }
}

fn reader_is_sheet(name: &str) -> bool {
    !name.ends_with(".csv")
}

/// Text made of the characters that matter to a CSV parser.
fn csvish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just(","),
            Just(";"),
            Just("\t"),
            Just("|"),
            Just("\""),
            Just("\n"),
            Just("\r\n"),
            Just("\r"),
            Just(" "),
            Just("a"),
            Just("1,5"),
            Just("ش"),
            Just("\u{feff}"),
        ],
        0..200,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_bytes_as_csv_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        drain("fuzz.csv", &bytes);
    }

    #[test]
    fn csv_like_text_never_panics(text in csvish()) {
        drain("fuzz.csv", text.as_bytes());
        let (encoded, _, _) = encoding_rs::WINDOWS_1256.encode(&text);
        drain("fuzz.csv", &encoded);
    }

    #[test]
    fn arbitrary_bytes_as_xlsx_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        drain("fuzz.xlsx", &bytes);
        let mut zipped = b"PK\x03\x04".to_vec();
        zipped.extend(&bytes);
        drain("fuzz.xlsx", &zipped);
    }

    #[test]
    fn damaged_xlsx_never_panics(cut in 0.0f64..1.0, flip in 0.0f64..1.0, byte in any::<u8>()) {
        let good = spreadsheets::sample_xlsx();
        let at = ((good.len() as f64) * cut) as usize;
        drain("cut.xlsx", &good[..at]);
        let mut flipped = good.clone();
        let i = ((good.len() as f64) * flip) as usize % good.len();
        flipped[i] ^= byte | 1;
        drain("flip.xlsx", &flipped);
    }
}
