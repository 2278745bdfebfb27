//! The printed summary: amounts for a person and [`Summary::render`].

use super::{Amounts, CodeGroup, Summary, Totals};
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// An amount for a person: two decimals (half away from zero), thousands grouped with commas.
pub fn money(d: Decimal) -> String {
    let d = d.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let text = format!("{d:.2}");
    let (sign, digits) = text.strip_prefix('-').map_or(("", text.as_str()), |t| ("-", t));
    let (int, frac) = digits.split_once('.').unwrap_or((digits, "00"));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}.{frac}")
}

/// One line of totals, credit notes subtracted: `12 documents  SAR net 1,000.00  VAT 150.00
/// gross 1,150.00`, then, when a document is in another currency (or has no VAT in SAR), `all
/// currencies VAT in SAR 160.00`.
pub fn totals_line(t: &Totals) -> String {
    let mut s = amounts_line(t.documents, &t.netted.amounts, t.without_amounts);
    let n = &t.netted;
    if n.has_other_currencies() {
        let _ = write!(s, "  all currencies VAT in SAR {}", money(n.vat_sar));
        if n.without_vat_sar > 0 {
            let _ = write!(s, " ({} without VAT in SAR)", n.without_vat_sar);
        }
    }
    s
}

/// One line of totals as issued (each document's own, positive, amounts): `by kind and type`.
pub fn issued_line(t: &Totals) -> String {
    amounts_line(t.documents, &t.amounts, t.without_amounts)
}

fn amounts_line(documents: u64, amounts: &BTreeMap<String, Amounts>, without_amounts: u64) -> String {
    let mut s = format!("{} document{}", documents, if documents == 1 { "" } else { "s" });
    for (currency, a) in amounts {
        let _ = write!(
            s,
            "  {currency} net {}  VAT {}  gross {}",
            money(a.net),
            money(a.vat),
            money(a.gross)
        );
    }
    if without_amounts > 0 {
        let _ = write!(s, "  ({without_amounts} without amounts)");
    }
    s
}

impl Summary {
    /// The summary for a person, each line starting with `indent`; `dates` adds the per-day
    /// lines.
    pub fn render(&self, indent: &str, dates: bool) -> String {
        let mut out = String::new();
        let rows: Vec<String> = self.rows_by_status.iter().map(|(s, n)| format!("{n} {s}")).collect();
        if rows.is_empty() {
            let _ = writeln!(out, "{indent}rows: {}", self.rows);
        } else {
            let _ = writeln!(out, "{indent}rows: {} ({})", self.rows, rows.join(", "));
        }
        let _ = writeln!(
            out,
            "{indent}documents (net of credit notes): {}",
            totals_line(&self.documents)
        );
        for (status, t) in &self.by_status {
            let _ = writeln!(out, "{indent}  {status:<9} {}", totals_line(t));
        }
        if !self.by_kind.is_empty() {
            let _ = writeln!(out, "{indent}by kind and type (as issued):");
            for (kind, m) in &self.by_kind {
                for (status, t) in m {
                    let _ = writeln!(out, "{indent}  {kind:<24} {status:<9} {}", issued_line(t));
                }
            }
        }
        if dates && !self.by_date.is_empty() {
            let _ = writeln!(out, "{indent}by issue date (net of credit notes):");
            for (date, m) in &self.by_date {
                for (status, t) in m {
                    let _ = writeln!(out, "{indent}  {date:<10} {status:<9} {}", totals_line(t));
                }
            }
        }
        let c = &self.conflicts;
        if c.documents > 0 {
            let _ = writeln!(
                out,
                "{indent}conflicts: {} accepted document{} issued earlier with other content ({}; e.g. {}): issue a credit or debit note",
                c.documents,
                if c.documents == 1 { "" } else { "s" },
                crate::submit::CONFLICT_CODE,
                if c.examples.is_empty() {
                    "-".to_string()
                } else {
                    c.examples.join(", ")
                }
            );
        }
        if let Some(line) = self.unreported_simplified.line() {
            let _ = writeln!(out, "{indent}{line}");
        }
        for (title, map) in [
            ("rejections by rule", &self.rejections),
            ("warnings by rule", &self.warnings),
        ] {
            if map.is_empty() {
                continue;
            }
            let mut codes: Vec<(&String, &CodeGroup)> = map.iter().collect();
            codes.sort_by(|a, b| b.1.count().cmp(&a.1.count()).then(a.0.cmp(b.0)));
            let _ = writeln!(out, "{indent}{title}:");
            for (code, g) in codes {
                let mut what: Vec<String> = g.documents.iter().map(|(s, n)| format!("{n} {s}")).collect();
                if g.stray_rows > 0 {
                    let s = if g.stray_rows == 1 { "" } else { "s" };
                    what.push(format!("{} row{s} outside any document", g.stray_rows));
                }
                // Rows outside any document have no number to give as an example.
                let examples = if g.examples.is_empty() {
                    String::new()
                } else {
                    format!(" (e.g. {})", g.examples.join(", "))
                };
                let _ = writeln!(out, "{indent}  {code:<22} {}{examples}", what.join(", "));
            }
        }
        for n in &self.notes {
            let _ = writeln!(out, "{indent}{}: {n}", note_label(n));
        }
        out
    }
}

/// `warning` for a note said as a warning ([`is_warning_note`](crate::results::kept::is_warning_note)),
/// else `note`.
pub fn note_label(note: &str) -> &'static str {
    if crate::results::kept::is_warning_note(note) {
        "warning"
    } else {
        "note"
    }
}
