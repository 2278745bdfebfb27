//! Which encoding a text file is in, and whether it is text at all.
//!
//! The decision, on a sample of the file's first bytes:
//! 1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) decides, even over the encoding a mapping
//!    gives ([`super::ReadOptions::encoding`]): a legacy export saved again by Excel as "CSV
//!    UTF-8" carries one, and its mapping still says windows-1256 (a note says so);
//! 2. else the mapping's encoding, unless the sample holds non-ASCII text that is valid UTF-8
//!    and the mapping's encoding is a single-byte one (windows-1256 Arabic is never valid UTF-8),
//!    which is read as UTF-8 with a note;
//! 3. else, if the sample is valid UTF-8, UTF-8 (strictly: a later record that is not UTF-8 is
//!    a row error, unless the sample held no non-ASCII byte at all, see [`TextEncoding::Utf8`]);
//! 4. else windows-1256, the documented fallback for legacy Arabic ERPs, with a note.

use super::error::IngestError;
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1256};

/// How far the NUL-byte check looks.
const BINARY_CHECK_BYTES: usize = 1024;

/// How the bytes become text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextEncoding {
    /// Read as UTF-8, record by record. With `legacy_fallback`, the sample gave no evidence
    /// (pure ASCII, no byte-order mark, nothing forced): if a record later turns out not to be
    /// UTF-8 before any non-ASCII UTF-8 was seen, the rest of the file is read as windows-1256.
    Utf8 {
        /// See above.
        legacy_fallback: bool,
    },
    /// Decoded to UTF-8 while streaming (UTF-16, windows-1256, ...).
    Decode(&'static Encoding),
}

/// The decision and what to tell the user about it.
#[derive(Debug, Clone)]
pub(crate) struct EncodingChoice {
    /// How to read.
    pub(crate) encoding: TextEncoding,
    /// Bytes of byte-order mark to skip at the start.
    pub(crate) bom_len: usize,
    /// The encoding's name ("UTF-8", "UTF-16LE", "windows-1256").
    pub(crate) name: &'static str,
    /// Notes for the user.
    pub(crate) notes: Vec<String>,
}

/// Looks up an encoding label ("windows-1256", "cp1256", "utf-16le", "utf-8", ...).
pub(crate) fn encoding_for_label(file: &str, label: &str) -> Result<&'static Encoding, IngestError> {
    Encoding::for_label_no_replacement(label.trim().as_bytes()).ok_or_else(|| IngestError::UnknownEncoding {
        file: file.to_owned(),
        label: label.to_owned(),
    })
}

fn is_utf16(enc: &'static Encoding) -> bool {
    enc == UTF_16LE || enc == UTF_16BE
}

/// Rejects binary content: NUL bytes in the first KiB (unless the file is UTF-16, which has
/// them for every ASCII character).
pub(crate) fn check_text(file: &str, sample: &[u8], forced: Option<&'static Encoding>) -> Result<(), IngestError> {
    let utf16_bom = matches!(Encoding::for_bom(sample), Some((e, _)) if is_utf16(e));
    if utf16_bom || forced.is_some_and(is_utf16) {
        return Ok(());
    }
    let head = &sample[..sample.len().min(BINARY_CHECK_BYTES)];
    let nuls = head.iter().filter(|&&b| b == 0).count();
    if nuls == 0 {
        return Ok(());
    }
    let odd_nuls = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    let even_nuls = nuls - odd_nuls;
    let half = head.len() / 2;
    let detail = if odd_nuls * 10 >= half * 8 && even_nuls * 10 < half {
        "it looks like UTF-16LE text without a byte-order mark: give the encoding \"utf-16le\" \
         (or save the file again as UTF-8)"
            .to_owned()
    } else if even_nuls * 10 >= half * 8 && odd_nuls * 10 < half {
        "it looks like UTF-16BE text without a byte-order mark: give the encoding \"utf-16be\" \
         (or save the file again as UTF-8)"
            .to_owned()
    } else {
        format!(
            "it holds {nuls} NUL byte(s) in its first {} bytes, as binary files do; check that \
             this is the export you meant (a workbook must keep its .xlsx/.xls/.ods name)",
            head.len()
        )
    };
    Err(IngestError::Binary {
        file: file.to_owned(),
        detail,
    })
}

/// True when `sample` is valid UTF-8, allowing a character cut at the end of an incomplete
/// sample.
fn valid_utf8(sample: &[u8], complete: bool) -> bool {
    match std::str::from_utf8(sample) {
        Ok(_) => true,
        Err(e) => !complete && e.error_len().is_none(),
    }
}

/// Decides the encoding from the sample (`complete` when the sample is the whole file).
pub(crate) fn choose(sample: &[u8], complete: bool, forced: Option<&'static Encoding>) -> EncodingChoice {
    let bom = Encoding::for_bom(sample);
    if let Some(enc) = forced {
        return forced_choice(sample, complete, enc, bom);
    }
    if let Some((enc, bom_len)) = bom {
        let encoding = if enc == UTF_8 {
            TextEncoding::Utf8 { legacy_fallback: false }
        } else {
            TextEncoding::Decode(enc)
        };
        return EncodingChoice {
            encoding,
            bom_len,
            name: enc.name(),
            notes: vec![format!("encoding: {} (byte-order mark)", enc.name())],
        };
    }
    if valid_utf8(sample, complete) {
        let ascii = sample.is_ascii();
        return EncodingChoice {
            encoding: TextEncoding::Utf8 { legacy_fallback: ascii },
            bom_len: 0,
            name: UTF_8.name(),
            notes: vec![if ascii {
                "encoding: UTF-8 (the start of the file is plain ASCII)".to_owned()
            } else {
                "encoding: UTF-8 (detected)".to_owned()
            }],
        };
    }
    EncodingChoice {
        encoding: TextEncoding::Decode(WINDOWS_1256),
        bom_len: 0,
        name: WINDOWS_1256.name(),
        notes: vec![
            "encoding: windows-1256 (the file is not UTF-8 and has no byte-order mark; \
             windows-1256 is assumed, as legacy Arabic ERPs write it; if the text looks wrong, \
             give the file's encoding)"
                .to_owned(),
        ],
    }
}

fn forced_choice(
    sample: &[u8],
    complete: bool,
    enc: &'static Encoding,
    bom: Option<(&'static Encoding, usize)>,
) -> EncodingChoice {
    let mut notes = vec![format!("encoding: {} (as given)", enc.name())];
    let mut bom_len = 0;
    let mut enc = enc;
    match bom {
        Some((b, len)) => {
            bom_len = len;
            if b != enc {
                notes = vec![format!(
                    "encoding: {} (byte-order mark; the mapping says {}: the file was saved again in \
                     another encoding, as Excel's \"CSV UTF-8\" does, and the mark decides)",
                    b.name(),
                    enc.name()
                )];
                enc = b;
            }
        }
        None => {
            if enc != UTF_8 && !is_utf16(enc) && !sample.is_ascii() && valid_utf8(sample, complete) {
                notes = vec![format!(
                    "encoding: UTF-8 (the mapping says {}, but the file's text is UTF-8, which a \
                     {} file is not: it was saved again in UTF-8)",
                    enc.name(),
                    enc.name()
                )];
                enc = UTF_8;
            }
        }
    }
    let encoding = if enc == UTF_8 {
        TextEncoding::Utf8 { legacy_fallback: false }
    } else {
        TextEncoding::Decode(enc)
    };
    EncodingChoice {
        encoding,
        bom_len,
        name: enc.name(),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usual_encodings_notes_are_routine_and_the_others_are_not() {
        let routine = |sample: &[u8], forced| {
            choose(sample, true, forced)
                .notes
                .iter()
                .all(|n| super::super::routine_note(n))
        };
        assert!(routine(b"\xEF\xBB\xBFa,b\n", None));
        assert!(routine("a,é\n".as_bytes(), None));
        assert!(routine(b"a,b\n", None));
        assert!(routine(b"a,b\n", Some(WINDOWS_1256)));
        let (arabic, _, _) = WINDOWS_1256.encode("فاتورة;1\n");
        assert!(!routine(&arabic, None));
        assert!(!routine("رقم,é\n".as_bytes(), Some(WINDOWS_1256)));
        assert!(!routine(b"\xEF\xBB\xBFa,b\n", Some(WINDOWS_1256)));
    }

    #[test]
    fn boms_decide() {
        let c = choose(b"\xEF\xBB\xBFa,b\n", true, None);
        assert_eq!(c.name, "UTF-8");
        assert_eq!(c.bom_len, 3);
        let c = choose(b"\xFF\xFEa\0", true, None);
        assert_eq!(c.encoding, TextEncoding::Decode(UTF_16LE));
        assert_eq!(c.bom_len, 2);
        let c = choose(b"\xFE\xFF\0a", true, None);
        assert_eq!(c.encoding, TextEncoding::Decode(UTF_16BE));
    }

    #[test]
    fn utf8_ascii_and_fallback() {
        let c = choose("a,é\n".as_bytes(), true, None);
        assert_eq!(c.encoding, TextEncoding::Utf8 { legacy_fallback: false });
        let c = choose(b"a,b\n", true, None);
        assert_eq!(c.encoding, TextEncoding::Utf8 { legacy_fallback: true });
        let (arabic, _, _) = WINDOWS_1256.encode("فاتورة;1\n");
        let c = choose(&arabic, true, None);
        assert_eq!(c.name, "windows-1256");
        assert!(c.notes[0].contains("assumed"));
    }

    #[test]
    fn cut_character_at_sample_end_is_still_utf8() {
        let s = "ab,é".as_bytes();
        let cut = &s[..s.len() - 1];
        assert_eq!(choose(cut, false, None).name, "UTF-8");
        assert_eq!(choose(cut, true, None).name, "windows-1256");
    }

    #[test]
    fn a_mark_or_utf8_text_wins_over_the_mappings_single_byte_encoding() {
        // Arabic in UTF-8 without a mark, where the mapping says windows-1256.
        let c = choose("رقم,é\n".as_bytes(), true, Some(WINDOWS_1256));
        assert_eq!(c.encoding, TextEncoding::Utf8 { legacy_fallback: false });
        assert!(
            c.notes.iter().any(|n| n.contains("the file's text is UTF-8")),
            "{:?}",
            c.notes
        );
        // The same words in windows-1256 stay windows-1256.
        let (bytes, _, _) = WINDOWS_1256.encode("رقم,é\n");
        let c = choose(&bytes, true, Some(WINDOWS_1256));
        assert_eq!(c.encoding, TextEncoding::Decode(WINDOWS_1256));
        assert_eq!(c.notes, vec!["encoding: windows-1256 (as given)".to_string()]);
        // ASCII gives no evidence: the mapping's encoding.
        let c = choose(b"a,b\n", true, Some(WINDOWS_1256));
        assert_eq!(c.encoding, TextEncoding::Decode(WINDOWS_1256));
        let c = choose(b"\xEF\xBB\xBFa\n", true, Some(UTF_8));
        assert_eq!(c.bom_len, 3);
        assert_eq!(c.notes, vec!["encoding: UTF-8 (as given)".to_string()]);
        // Excel's "CSV UTF-8" of a windows-1256 export: the mark decides, and is skipped.
        let c = choose(b"\xEF\xBB\xBFa\n", true, Some(WINDOWS_1256));
        assert_eq!(c.bom_len, 3);
        assert_eq!(c.encoding, TextEncoding::Utf8 { legacy_fallback: false });
        assert!(c.notes.iter().any(|n| n.contains("the mark decides")), "{:?}", c.notes);
        let c = choose(b"\xFF\xFEa\x00\n\x00", true, Some(WINDOWS_1256));
        assert_eq!((c.bom_len, c.name), (2, "UTF-16LE"));
    }

    #[test]
    fn labels() {
        assert_eq!(encoding_for_label("f", "cp1256").ok(), Some(WINDOWS_1256));
        assert_eq!(encoding_for_label("f", " UTF-16LE ").ok(), Some(UTF_16LE));
        let e = encoding_for_label("f.csv", "klingon").err().map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("f.csv") && m.contains("klingon")));
    }

    #[test]
    fn binary_detection() {
        assert!(check_text("f", b"a,b\n", None).is_ok());
        assert!(check_text("f", b"\xFF\xFEa\0,\0", None).is_ok());
        assert!(check_text("f", b"a\0,\0b\0", Some(UTF_16LE)).is_ok());
        let e = check_text("f", b"\x7fELF\0\0\x01\x02", None).err();
        assert!(matches!(e, Some(IngestError::Binary { .. })));
        let utf16: Vec<u8> = "a,b\n1,2\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let e = check_text("f", &utf16, None).err().map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("utf-16le")));
    }
}
