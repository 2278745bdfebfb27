//! Delimiter sniffing: which of `,` `;` tab `|` splits the first lines into a consistent number
//! of fields.
//!
//! Each candidate parses the sample with the real record parser (so quotes, embedded newlines
//! and doubled quotes are respected), over up to [`SNIFF_RECORDS`] non-blank records. A candidate
//! counts only when the most common field count is at least 2; the winner is the candidate whose
//! most common field count covers the largest share of the records, then the one with more
//! fields, then the earlier one in the list above. A title line above the header just lowers
//! every candidate's share a little.
//!
//! A mapping's delimiter is used as it is, unless it splits no column out of the header line and
//! the sniffed one does ([`instead_of`]): the file's evidence wins, as a byte-order mark wins
//! over the mapping's encoding, and a note says so ([`choose`]).

use super::records::{Outcome, Record, RecordReader};

/// The delimiters tried, in order of preference on a tie.
pub(crate) const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];

/// How many records are looked at.
pub(crate) const SNIFF_RECORDS: usize = 20;

/// The delimiter that splits `sample` most consistently, or `None` when no candidate gives two
/// or more fields (a one-column file). `complete` says whether the sample is the whole file (if
/// not, its last record may be cut and is not counted). Records starting before `from_line`
/// (a header row given by the user) are ignored.
pub(crate) fn sniff_delimiter(sample: &[u8], complete: bool, from_line: u64) -> Option<u8> {
    let mut best: Option<(u8, u64, usize)> = None;
    for &delimiter in &CANDIDATES {
        let counts = field_counts(sample, delimiter, complete, from_line);
        let Some((fields, share)) = consistency(&counts) else {
            continue;
        };
        let better = match best {
            None => true,
            Some((_, best_share, best_fields)) => share > best_share || (share == best_share && fields > best_fields),
        };
        if better {
            best = Some((delimiter, share, fields));
        }
    }
    best.map(|(d, _, _)| d)
}

/// How notes name a delimiter.
fn delimiter_name(d: u8) -> String {
    match d {
        b',' => "comma".to_owned(),
        b';' => "semicolon".to_owned(),
        b'\t' => "tab".to_owned(),
        b'|' => "pipe".to_owned(),
        other => format!("{:?}", char::from(other)),
    }
}

/// The delimiter to read a text file with (`text`: its decoded sample, whole when `complete`;
/// `header_line`: where its header is), with a note on how it was chosen: the mapping's
/// (`forced`), unless it splits no column out of the header line and the file's own delimiter
/// does ([`instead_of`]: as a byte-order mark wins over the mapping's encoding, the file's
/// evidence wins); else the one sniffed; `default` when none splits the first lines.
pub(crate) fn choose(
    text: &[u8],
    complete: bool,
    header_line: u64,
    forced: Option<u8>,
    default: u8,
    notes: &mut Vec<String>,
) -> u8 {
    match forced {
        Some(d) => match instead_of(text, complete, header_line, d) {
            Some(own) => {
                notes.push(format!(
                    "delimiter: {} (detected), not the mapping's {}, which splits no column out of the header \
                     line (the export saved again with another list separator, as Excel's \"CSV UTF-8\" does)",
                    delimiter_name(own),
                    delimiter_name(d)
                ));
                own
            }
            None => d,
        },
        None => match sniff_delimiter(text, complete, header_line) {
            Some(d) => {
                notes.push(format!("delimiter: {} (detected)", delimiter_name(d)));
                d
            }
            None => {
                notes.push(format!(
                    "delimiter: none of comma, semicolon, tab or pipe splits the first lines \
                     into columns; read as one column ({} assumed)",
                    delimiter_name(default)
                ));
                default
            }
        },
    }
}

/// The delimiter a file's lines are split by instead of `forced` (a mapping's): when `forced`
/// splits its header line (the first non-blank record from `from_line`) into one cell, and the
/// sniffed delimiter into two or more. A legacy export saved again by Excel with the machine's
/// list separator (`,` where the export had `;`) is so; `forced` could not read that header, so
/// nothing is lost by reading it with the file's own delimiter.
pub(crate) fn instead_of(sample: &[u8], complete: bool, from_line: u64, forced: u8) -> Option<u8> {
    if header_fields(sample, forced, from_line)? > 1 {
        return None;
    }
    let sniffed = sniff_delimiter(sample, complete, from_line)?;
    (sniffed != forced && header_fields(sample, sniffed, from_line)? > 1).then_some(sniffed)
}

/// How many fields `delimiter` splits the first non-blank record from `from_line` into.
fn header_fields(sample: &[u8], delimiter: u8, from_line: u64) -> Option<usize> {
    let mut reader = RecordReader::new(sample, delimiter);
    let mut rec = Record::default();
    loop {
        match reader.read(&mut rec) {
            Ok(Outcome::Record) if rec.line() >= from_line && !is_blank(&rec) => return Some(rec.len()),
            Ok(Outcome::Record | Outcome::TooLong) => {}
            Ok(Outcome::End) | Err(_) => return None,
        }
    }
}

/// Field counts of the first non-blank records.
fn field_counts(sample: &[u8], delimiter: u8, complete: bool, from_line: u64) -> Vec<usize> {
    let mut reader = RecordReader::new(sample, delimiter);
    let mut rec = Record::default();
    let mut counts = Vec::with_capacity(SNIFF_RECORDS + 1);
    let mut reached_end = false;
    while counts.len() <= SNIFF_RECORDS {
        match reader.read(&mut rec) {
            Ok(Outcome::Record) => {
                if rec.line() >= from_line && !is_blank(&rec) {
                    counts.push(rec.len());
                }
            }
            Ok(Outcome::TooLong) => {}
            Ok(Outcome::End) | Err(_) => {
                reached_end = true;
                break;
            }
        }
    }
    if reached_end && !complete {
        // The sample stops mid-file: its last record may be cut short.
        counts.pop();
    }
    counts.truncate(SNIFF_RECORDS);
    counts
}

fn is_blank(rec: &Record) -> bool {
    rec.is_blank()
}

/// The most common field count (if at least 2) and the share of records that have it, in
/// millionths. On a tie between counts, the larger count.
fn consistency(counts: &[usize]) -> Option<(usize, u64)> {
    if counts.is_empty() {
        return None;
    }
    let mut sorted = counts.to_vec();
    sorted.sort_unstable();
    let (mut mode, mut mode_freq) = (0, 0);
    let mut i = 0;
    while i < sorted.len() {
        let j = i + sorted[i..].iter().take_while(|&&c| c == sorted[i]).count();
        if j - i >= mode_freq {
            mode = sorted[i];
            mode_freq = j - i;
        }
        i = j;
    }
    if mode < 2 {
        return None;
    }
    Some((mode, (mode_freq as u64 * 1_000_000) / counts.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(s: &str) -> Option<char> {
        sniff_delimiter(s.as_bytes(), true, 1).map(char::from)
    }

    #[test]
    fn a_detected_delimiter_is_routine_and_one_instead_of_the_mappings_is_not() {
        let notes = |text: &str, forced| {
            let mut notes = Vec::new();
            choose(text.as_bytes(), true, 1, forced, b',', &mut notes);
            notes
        };
        let routine = |n: &[String]| n.iter().all(|n| super::super::routine_note(n));
        assert!(routine(&notes("a;b;c\n1;2;3\n", None)));
        assert!(!routine(&notes("a,b,c\n1,2,3\n", Some(b';'))));
        assert!(!routine(&notes("abc\n123\n", None)));
    }

    #[test]
    fn each_delimiter() {
        assert_eq!(sniff("a,b,c\n1,2,3\n"), Some(','));
        assert_eq!(sniff("a;b;c\n1;2;3\n"), Some(';'));
        assert_eq!(sniff("a\tb\tc\n1\t2\t3\n"), Some('\t'));
        assert_eq!(sniff("a|b|c\n1|2|3\n"), Some('|'));
    }

    #[test]
    fn decimal_commas_do_not_fool_it() {
        let s = "Invoice;Amount;VAT\nINV-1;1,50;0,23\nINV-2;100,00;15,00\nINV-3;7;1,05\n";
        assert_eq!(sniff(s), Some(';'));
        // One decimal comma per line, consistently: more fields wins.
        let s = "Invoice;Customer;Amount\nINV-1;Acme;1,50\nINV-2;Bolt;2,50\n";
        assert_eq!(sniff(s), Some(';'));
    }

    #[test]
    fn quotes_are_respected() {
        let s = "a,b,c\n\"x;y;z\nw;v\",2,3\n\"p;q\",5,6\n";
        assert_eq!(sniff(s), Some(','));
    }

    #[test]
    fn title_line_and_blank_lines() {
        let s = "Sales export March\n\nInvoiceNumber;Total;Tax\nA;1;2\nB;3;4\n";
        assert_eq!(sniff(s), Some(';'));
    }

    #[test]
    fn single_column_and_empty() {
        assert_eq!(sniff("InvoiceNumber\nA\nB\n"), None);
        assert_eq!(sniff(""), None);
    }

    #[test]
    fn trailing_delimiters_and_ragged_rows() {
        assert_eq!(sniff("a;b;c;\n1;2;3;\n4;5;6;\n"), Some(';'));
        assert_eq!(sniff("a|b|c\n1|2\n4|5|6\n7|8|9\n"), Some('|'));
    }

    #[test]
    fn a_forced_delimiter_that_splits_no_header_gives_way() {
        let resaved = "No,Amount,Note\nA,\"35,3\",x\nB,\"1,5\",y\n";
        assert_eq!(instead_of(resaved.as_bytes(), true, 1, b';'), Some(b','));
        // The forced one splits the header: kept, whatever the sniffer thinks.
        let own = "No;Amount;Note\nA;35,3;x\nB;1,5;y\n";
        assert_eq!(instead_of(own.as_bytes(), true, 1, b';'), None);
        // And the other way round: a mapping saying `,` reads a `;` file.
        assert_eq!(instead_of(own.as_bytes(), true, 1, b','), Some(b';'));
        // A one-column file: nothing splits its header.
        assert_eq!(instead_of(b"No\nA\nB\n", true, 1, b';'), None);
        // The header line given (a title above it).
        let titled = "Sales export\nNo,Amount\nA,1\n";
        assert_eq!(instead_of(titled.as_bytes(), true, 2, b';'), Some(b','));
    }

    #[test]
    fn delimiter_names() {
        assert_eq!(delimiter_name(b'\t'), "tab");
        assert_eq!(delimiter_name(b'#'), "'#'");
    }

    #[test]
    fn cut_sample_ignores_last_record() {
        // As a complete file the last line would have one field; cut, it is ignored.
        assert_eq!(sniff_delimiter(b"a\tb\n1\t2\n3\t4\n5", false, 1), Some(b'\t'));
    }
}
