//! Simplified (B2C) documents are reported within 24 hours of their issue (BR-KSA-98): the
//! summary counts those of a result set that were not issued (invalid, rejected, failed) and
//! gives the issue time of the first, so that `check`, `run` and `report` say by when they are
//! due. Skipped documents (drafts, voided) are not counted: they are not to be issued.

use super::RowStatus;
use super::documents::DocumentRecord;
use crate::mapping::TABLE_MISSING_CODE;
use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeDelta};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Simplified documents not issued, and the first one's issue time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unreported {
    /// How many.
    pub documents: u64,
    /// By status (`invalid`, `rejected`, `failed`).
    pub by_status: BTreeMap<RowStatus, u64>,
    /// The earliest issue date and time among them (`2026-11-26T21:40:00`, Riyadh time; the
    /// day's start when its time is not known).
    pub first_issued: String,
    /// That time plus 24 hours: when its reporting is due.
    pub due: String,
}

/// A record's issue time, `YYYY-MM-DDTHH:MM:SS` (its day's start without a time).
fn issued_at(r: &DocumentRecord) -> Option<NaiveDateTime> {
    let date = NaiveDate::parse_from_str(r.issue_date.trim(), "%Y-%m-%d").ok()?;
    let time = NaiveTime::parse_from_str(r.issue_time.trim(), "%H:%M:%S").unwrap_or(NaiveTime::MIN);
    Some(date.and_time(time))
}

const FORMAT: &str = "%Y-%m-%dT%H:%M:%S";

impl Unreported {
    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.documents == 0
    }

    fn first_at(&mut self, at: NaiveDateTime) {
        let at_text = at.format(FORMAT).to_string();
        if self.first_issued.is_empty() || at_text < self.first_issued {
            self.due = (at + TimeDelta::hours(24)).format(FORMAT).to_string();
            self.first_issued = at_text;
        }
    }

    /// Count `r` when it is a simplified document not issued (not one whose type is not known:
    /// its customers table missing, `INV-MAP-LOOKUP-FILE`).
    pub(crate) fn add(&mut self, r: &DocumentRecord) {
        let counted = matches!(r.status, RowStatus::Invalid | RowStatus::Rejected | RowStatus::Failed);
        if !counted || r.invoice_type != "simplified" || r.errors.iter().any(|c| c == TABLE_MISSING_CODE) {
            return;
        }
        self.documents += 1;
        *self.by_status.entry(r.status).or_default() += 1;
        if let Some(at) = issued_at(r) {
            self.first_at(at);
        }
    }

    pub(crate) fn merge(&mut self, other: &Unreported) {
        self.documents += other.documents;
        for (s, n) in &other.by_status {
            *self.by_status.entry(*s).or_default() += n;
        }
        if let Ok(at) = NaiveDateTime::parse_from_str(&other.first_issued, FORMAT) {
            self.first_at(at);
        }
    }

    /// The line the printed summary gives, or none.
    pub fn line(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let statuses: Vec<String> = self.by_status.iter().map(|(s, n)| format!("{n} {s}")).collect();
        let (s, them) = if self.documents == 1 { ("", "it") } else { ("s", "them") };
        let when = |t: &str| t.replacen('T', " ", 1).get(..16).unwrap_or_default().to_string();
        let first = if self.first_issued.is_empty() {
            String::new()
        } else {
            format!(
                ", the first issued {} (Riyadh time), due by {}",
                when(&self.first_issued),
                when(&self.due)
            )
        };
        Some(format!(
            "24 hours: {} simplified document{s} not issued ({}){first}. Simplified documents are reported within \
             24 hours of their issue (BR-KSA-98; later, they are still accepted, with that warning): correct {them} \
             and run again",
            self.documents,
            statuses.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(status: RowStatus, kind_type: &str, date: &str, time: &str) -> DocumentRecord {
        let mut r = DocumentRecord::new("A", status);
        r.invoice_type = kind_type.into();
        r.issue_date = date.into();
        r.issue_time = time.into();
        r
    }

    #[test]
    fn simplified_documents_not_issued_are_counted_with_the_first_ones_due_time() {
        let mut u = Unreported::default();
        assert_eq!(u.line(), None);
        u.add(&rec(RowStatus::Invalid, "simplified", "2026-11-26", "21:40:00"));
        u.add(&rec(RowStatus::Failed, "simplified", "2026-11-26", "09:05:30"));
        // Issued, skipped, valid, standard: not counted.
        u.add(&rec(RowStatus::Accepted, "simplified", "2026-11-01", "00:00:00"));
        u.add(&rec(RowStatus::Skipped, "simplified", "2026-11-01", ""));
        u.add(&rec(RowStatus::Valid, "simplified", "2026-11-01", ""));
        u.add(&rec(RowStatus::Invalid, "standard", "2026-11-01", ""));
        let mut unknown = rec(RowStatus::Invalid, "simplified", "2026-11-01", "");
        unknown.errors.push(TABLE_MISSING_CODE.into());
        u.add(&unknown);
        assert_eq!(
            (u.documents, u.first_issued.as_str(), u.due.as_str()),
            (2, "2026-11-26T09:05:30", "2026-11-27T09:05:30")
        );
        assert_eq!(
            u.line().unwrap(),
            "24 hours: 2 simplified documents not issued (1 invalid, 1 failed), the first issued 2026-11-26 09:05 \
             (Riyadh time), due by 2026-11-27 09:05. Simplified documents are reported within 24 hours of their \
             issue (BR-KSA-98; later, they are still accepted, with that warning): correct them and run again"
        );
        // Merged: the earlier first; a time not known is the day's start.
        let mut other = Unreported::default();
        other.add(&rec(RowStatus::Rejected, "simplified", "2026-11-25", ""));
        u.merge(&other);
        assert_eq!(
            (u.documents, u.first_issued.as_str(), u.due.as_str()),
            (3, "2026-11-25T00:00:00", "2026-11-26T00:00:00")
        );
        // Serialized and read back the same.
        let json = serde_json::to_string(&u).unwrap();
        assert_eq!(serde_json::from_str::<Unreported>(&json).unwrap(), u);
    }
}
