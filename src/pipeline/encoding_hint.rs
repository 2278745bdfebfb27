//! A column of the mapping missing from a text export whose header was read in the wrong
//! encoding (an Arabic windows-1256 export read as windows-1252): the header is mojibake, and
//! the fix is the encoding, not `header_row`. Looked at only once a column is missing, and on
//! the header alone: the file is opened again in each other known encoding.

use crate::ingest::{FileFormat, ReadOptions, RowReader};
use crate::mapping::Mapping;
use crate::mapping::detect;
use std::path::Path;

/// The encodings tried, as `[input] encoding` is written: the ones exports of the region come
/// in.
const CANDIDATES: [&str; 6] = [
    "utf-8",
    "windows-1256",
    "windows-1252",
    "iso-8859-6",
    "utf-16le",
    "utf-16be",
];

/// The mapping's required export columns that `headers` holds, and how many there are.
pub(super) fn found(mapping: &Mapping, headers: &[Vec<String>]) -> (usize, usize) {
    detect::score(mapping, headers)
        .iter()
        .filter(|c| c.role == detect::Role::Export)
        .map(|c| (c.matched.len(), c.matched.len() + c.missing.len()))
        .next()
        .unwrap_or_default()
}

/// The first cells of a header, as a message quotes them.
fn shown(headers: &[Vec<String>]) -> String {
    let mut cells: Vec<String> = headers
        .first()
        .into_iter()
        .flatten()
        .filter(|h| !h.trim().is_empty())
        .take(4)
        .map(|h| format!("{:?}", h.trim()))
        .collect();
    if cells.len() == 4 {
        cells[3] = "...".into();
    }
    cells.join(", ")
}

/// True when header text looks like text decoded in the wrong single-byte encoding: at least 3
/// of its letters, and a third of them, are the accented Latin letters (U+00C0 to U+00FF) that
/// Arabic (windows-1256, or UTF-8 bytes) becomes when read as windows-1252 or Latin-1. A
/// European header has a few among many plain letters (`Qté`, `Größe`).
pub(crate) fn looks_misdecoded(headers: &[Vec<String>]) -> bool {
    let (mut letters, mut latin1) = (0usize, 0usize);
    for c in headers.iter().flatten().flat_map(|h| h.chars()) {
        if c.is_alphabetic() {
            letters += 1;
            if ('\u{c0}'..='\u{ff}').contains(&c) {
                latin1 += 1;
            }
        }
    }
    latin1 >= 3 && latin1 * 3 >= letters
}

/// For a column of `mapping` missing from the text export `reader` opened with `opts`: when the
/// header read in the file's encoding holds fewer of the mapping's columns than it does read in
/// another known encoding, that encoding and the fix; else, when the header looks mis-decoded
/// ([`looks_misdecoded`]), that the encoding is probably wrong. Nothing for a workbook.
pub(super) fn encoding_hint(path: &Path, opts: &ReadOptions, reader: &RowReader, mapping: &Mapping) -> Option<String> {
    let FileFormat::Csv { encoding: used, .. } = reader.format() else {
        return None;
    };
    let (here, of) = found(mapping, reader.header_rows());
    let read = shown(reader.header_rows());
    let mut best: Option<(&str, usize, String)> = None;
    for label in CANDIDATES {
        if label.eq_ignore_ascii_case(used) {
            continue;
        }
        let o = ReadOptions {
            encoding: Some(label.to_string()),
            every_row: false,
            ..opts.clone()
        };
        let Ok(other) = RowReader::open(path, &o) else {
            continue;
        };
        // The file's own evidence (a byte-order mark, UTF-8 text) overrode the encoding given.
        match other.format() {
            FileFormat::Csv { encoding, .. } if encoding.eq_ignore_ascii_case(label) => {}
            _ => continue,
        }
        let (there, _) = found(mapping, other.header_rows());
        if there > here && best.as_ref().is_none_or(|(_, b, _)| there > *b) {
            best = Some((label, there, shown(other.header_rows())));
        }
    }
    let given = if opts.encoding.is_some() {
        "the mapping's [input] encoding"
    } else {
        "detected, as the mapping's [input] gives no encoding"
    };
    match best {
        Some((label, there, as_read)) => Some(format!(
            "the header read as {used} ({given}) is {read}, and read as {label} it is {as_read}, with {there} of the \
             mapping's {of} required columns: the file is in {label}, not {used}: set encoding = \"{label}\" in the \
             mapping's [input]"
        )),
        None if looks_misdecoded(reader.header_rows()) => Some(format!(
            "the header read as {used} ({given}) is {read}, which looks like text decoded in the wrong encoding: \
             the file is probably not in {used}, and no other known encoding ({}) reads the mapping's columns \
             from it; set the file's encoding in the mapping's [input], or save the export as \"CSV UTF-8\"",
            CANDIDATES.join(", ")
        )),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cells: &[&str]) -> Vec<Vec<String>> {
        vec![cells.iter().map(|c| c.to_string()).collect()]
    }

    #[test]
    fn arabic_read_as_windows_1252_looks_misdecoded_and_european_headers_do_not() {
        let (arabic, _, _) = encoding_rs::WINDOWS_1256.encode("رقم السند|تاريخ السند|البيان");
        let (as_1252, _, _) = encoding_rs::WINDOWS_1252.decode(&arabic);
        let cells: Vec<&str> = as_1252.split('|').collect();
        assert!(looks_misdecoded(&rows(&cells)), "{as_1252}");
        // UTF-8 Arabic read as windows-1252.
        let (utf8_as_1252, _, _) = encoding_rs::WINDOWS_1252.decode("رقم السند".as_bytes());
        assert!(looks_misdecoded(&rows(&[&utf8_as_1252])), "{utf8_as_1252}");
        for ok in [
            &["N° facture", "Date", "Qté", "Prix unitaire"][..],
            &["Größe", "Menge", "Straße"],
            &["رقم السند", "تاريخ السند"],
            &["Invoice", "Date"],
        ] {
            assert!(!looks_misdecoded(&rows(ok)), "{ok:?}");
        }
    }

    /// The hint for `bytes` read with a mapping of the one column `column`, given `encoding`.
    fn hint(bytes: &[u8], column: &str, encoding: &str) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sales.csv");
        std::fs::write(&path, bytes).unwrap();
        let toml = format!(
            "[input]\nencoding = \"{encoding}\"\ndelimiter = \"|\"\n[defaults]\ndate_format = [\"%Y/%m/%d\"]\n[fields]\nnumber = \"{column}\"\n\
             issue_date = \"Date\"\nline.item_name = \"Item\"\nline.quantity = \"Qty\"\nline.unit_price = \"Price\"\n\
             line.tax = \"Tax\"\n"
        );
        let m = Mapping::from_toml(&toml, crate::mapping::Origin::Bundled("t".into())).unwrap();
        let opts = super::super::open::read_options(&m);
        let reader = RowReader::open(&path, &opts).unwrap();
        encoding_hint(&path, &opts, &reader, &m)
    }

    #[test]
    fn the_encoding_that_reads_more_columns_is_named_else_a_misdecoded_header_is_said() {
        let (arabic, _, _) = encoding_rs::WINDOWS_1256.encode("رقم السند|Date|Item|Qty|Price|Tax\r\nS-1|x|y|1|2|3\r\n");
        let h = hint(&arabic, "رقم السند", "windows-1252").unwrap();
        assert!(
            h.ends_with(
                "with 6 of the mapping's 6 required columns: the file is in windows-1256, not windows-1252: set \
                 encoding = \"windows-1256\" in the mapping's [input]"
            ),
            "{h}"
        );
        // A column no encoding reads (misspelt in the mapping), of a mis-decoded header.
        let (arabic, _, _) = encoding_rs::WINDOWS_1256.encode("رقم السند|تاريخ|البيان\r\nS-1|x|y\r\n");
        let h = hint(&arabic, "رقم", "windows-1252").unwrap();
        assert!(
            h.contains("which looks like text decoded in the wrong encoding: the file is probably not in windows-1252"),
            "{h}"
        );
        // A header read right, missing the column: nothing to say about the encoding.
        assert_eq!(hint(b"Number|Date|Item\r\n1|2|3\r\n", "Nr", "windows-1252"), None);
    }
}
