//! A row whose document number holds bytes that could not be decoded (`SI-10�01`, the cell's
//! own `INV-ROW-READ` error): its number is not its document's, so the row opens a document of
//! its own, and the document next to it whose number it may be (`SI-1001`, above or below)
//! would be issued without that line. That document is held back (`INV-MAP-ORPHAN`), as for a
//! row without a number ([`super::stray`]).
//!
//! "May be": each run of replacement characters stands for up to four characters per
//! replacement character (one undecodable byte is one `�`; it may have replaced a character
//! of up to four bytes, or been inserted), and the rest of the number is the same.

use super::issues::orphan;
use super::{Grouper, Issue};

/// The replacement character a cell's undecodable bytes are read as.
const REPLACEMENT: char = '\u{FFFD}';

/// Whether `other` may be the number `unread` (which holds [`REPLACEMENT`]) was before its
/// bytes were damaged: the same characters around each run of replacement characters, each
/// run standing for at most four characters per replacement character.
pub(super) fn could_be(unread: &str, other: &str) -> bool {
    if unread == other || !unread.contains(REPLACEMENT) || other.contains(REPLACEMENT) {
        return false;
    }
    // The literal pieces, and the most characters each run between them stands for.
    let mut pieces: Vec<&str> = Vec::new();
    let mut runs: Vec<usize> = Vec::new();
    let mut rest = unread;
    while let Some(at) = rest.find(REPLACEMENT) {
        pieces.push(&rest[..at]);
        let run = rest[at..].chars().take_while(|&c| c == REPLACEMENT).count();
        runs.push(run * 4);
        rest = &rest[at + run * REPLACEMENT.len_utf8()..];
    }
    pieces.push(rest);
    fits(other, &pieces, &runs)
}

/// Whether `text` is `pieces[0]`, then at most `runs[0]` characters, then `pieces[1]`...: tried
/// at each place a piece may start (numbers are short; the pieces few).
fn fits(text: &str, pieces: &[&str], runs: &[usize]) -> bool {
    let Some((first, later)) = pieces.split_first() else {
        return text.is_empty();
    };
    let Some(after) = text.strip_prefix(first) else {
        return false;
    };
    let Some((&most, runs)) = runs.split_first() else {
        return after.is_empty();
    };
    // The run takes 0 to `most` characters, then the next piece must follow.
    let mut taken = after;
    for n in 0..=most {
        if fits(taken, later, runs) {
            return true;
        }
        let mut chars = taken.chars();
        if chars.next().is_none() || n == most {
            break;
        }
        taken = chars.as_str();
    }
    false
}

/// The finding on the first row of document `key`, next to the row on `line` whose number
/// `unread` may be its number (`below`: that row is below the document).
fn unread_issue(grouper: &Grouper, key: &str, line: u64, unread: &str, below: bool) -> Issue {
    let (row, side) = if below {
        ("the row after this document's last row", "its last")
    } else {
        ("the row before this document's first row", "its first")
    };
    orphan(
        &grouper.bound,
        key,
        format!(
            "{row} (line {line}) has a document number with bytes that could not be read, {unread:?}, which may be \
             this document's number, so that row may be one of its lines ({side}): the document is not issued \
             without it. Correct the number on line {line} (and the file's encoding, if other cells show � too) and \
             run again"
        ),
    )
}

impl Grouper {
    /// The row on `line`, whose number `key` holds undecodable bytes, opens a document of its own
    /// after the open one: the open document is held back when `key` may be its number, and the
    /// next document opened is looked at the same way ([`Grouper::unread_below`]).
    pub(super) fn unread_after_open(&mut self, key: &str, line: u64) {
        if !key.contains(REPLACEMENT) {
            return;
        }
        self.hold_open(key, line, true);
        self.unread_above = Some((line, key.to_string()));
    }

    /// The document just opened, right below a row whose number held undecodable bytes
    /// (`above`: its line and number): held back when that number may be its own.
    pub(super) fn unread_below(&mut self, above: Option<(u64, String)>) {
        if let Some((line, unread)) = above {
            self.hold_open(&unread, line, false);
        }
    }

    /// Hold the open document back when `unread`, the number of the row on `line` (below it, or
    /// above it), may be its number.
    fn hold_open(&mut self, unread: &str, line: u64, below: bool) {
        if let Some(doc) = &self.open
            && doc.skip.is_none()
            && !doc.split
            && could_be(unread, &doc.key)
        {
            let issue = unread_issue(self, &doc.key, line, unread, below);
            if let Some(doc) = &mut self.open {
                doc.rows[0].issues.push(issue);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_number_may_be_the_numbers_it_could_have_been() {
        // An inserted byte, a byte in place of a digit, a damaged Arabic letter (2 bytes).
        assert!(could_be("SI-10\u{FFFD}01", "SI-1001"));
        assert!(could_be("SI-10\u{FFFD}1", "SI-1001"));
        assert!(could_be("\u{FFFD}\u{FFFD}-7", "ف-7"));
        assert!(could_be("INV-\u{FFFD}", "INV-0102"));
        assert!(could_be("\u{FFFD}NV-0102", "INV-0102"));
        // Not: another number around the damage, too many characters for the damage, the same
        // damaged number, a number without damage.
        assert!(!could_be("SI-10\u{FFFD}01", "SI-1002"));
        assert!(!could_be("SI-10\u{FFFD}01", "SI-100000001"));
        assert!(!could_be("SI-10\u{FFFD}01", "SI-10\u{FFFD}01"));
        assert!(!could_be("SI-1001", "SI-1001"));
        assert!(!could_be("SI-1001", "SI-1002"));
        assert!(!could_be("INV-\u{FFFD}1", "INV-\u{FFFD}2"));
    }

    proptest::proptest! {
        /// A number with one character replaced or one byte inserted may be the number.
        #[test]
        fn one_damaged_place_may_be_the_number(number in "[A-Z]{2,4}-[0-9]{1,8}", at in 0usize..12, insert: bool) {
            let chars: Vec<char> = number.chars().collect();
            let at = at % chars.len();
            let mut damaged = chars.clone();
            if insert {
                damaged.insert(at, REPLACEMENT);
            } else {
                damaged[at] = REPLACEMENT;
            }
            let damaged: String = damaged.into_iter().collect();
            proptest::prop_assert!(could_be(&damaged, &number), "{damaged} {number}");
        }
    }
}
