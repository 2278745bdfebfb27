//! Dates and times: the issue date is not in the future (Riyadh time), simplified documents are
//! reported within 24 hours, dates are in the years the authority accepts, and invoices are
//! issued in time after the supply.

use super::rules::*;
use super::{Context, Finding};
use crate::model::{Document, DocumentKind, InvoiceType};
use chrono::{Datelike, NaiveDate, TimeDelta, TimeZone};
use chrono_tz::Asia::Riyadh;

pub(super) fn check(doc: &Document, ctx: &Context, out: &mut Vec<Finding>) {
    let mut valid = true;
    for (path, date) in [
        ("issue_date", doc.issue_date),
        ("actual_delivery_date", doc.actual_delivery_date),
    ] {
        if !(2000..=9999).contains(&date.year()) {
            valid = false;
            out.push(BR_KSA_F_01.at(
                path,
                Some(date.to_string()),
                format!("The date {date} is not a plausible date (years 2000 to 9999); check the date column and its format."),
            ));
        }
    }
    let now_riyadh = ctx.now.with_timezone(&Riyadh);
    let today = now_riyadh.date_naive();
    if doc.issue_date > today {
        out.push(BR_KSA_04.at(
            "issue_date",
            Some(doc.issue_date.to_string()),
            format!(
                "The issue date {} is after today ({today} in Riyadh); a document cannot be issued in the future. \
                 Fix the date or send the document on its issue date.",
                doc.issue_date
            ),
        ));
    }
    if doc.invoice_type == InvoiceType::Simplified {
        let local = doc.issue_date.and_time(doc.issue_time);
        if let Some(issued) = Riyadh.from_local_datetime(&local).single()
            && ctx.now.signed_duration_since(issued) > TimeDelta::days(1)
        {
            out.push(BR_KSA_98.at(
                "issue_date",
                Some(format!("{}T{}", doc.issue_date, crate::text::time_text(doc.issue_time))),
                format!(
                    "This simplified {} was issued on {} at {} (Riyadh time), more than 24 hours ago; it is still \
                     accepted, with this warning. Report simplified documents within 24 hours of issuing them.",
                    doc.kind.label(),
                    doc.issue_date,
                    crate::text::time_text(doc.issue_time)
                ),
            ));
        }
    }
    if valid && doc.kind == DocumentKind::Invoice {
        let supply = doc.actual_delivery_date;
        if let Some(deadline) = fifteenth_of_next_month(supply)
            && doc.issue_date > deadline
        {
            out.push(INV_LATE_INVOICE.at(
                "issue_date",
                Some(doc.issue_date.to_string()),
                format!(
                    "The supply was on {supply} but the invoice is dated {}; a tax invoice is due by the 15th of the \
                     following month ({deadline}). Check the delivery date, or issue invoices sooner.",
                    doc.issue_date
                ),
            ));
        }
    }
}

fn fifteenth_of_next_month(date: NaiveDate) -> Option<NaiveDate> {
    let (y, m) = if date.month() == 12 {
        (date.year().checked_add(1)?, 1)
    } else {
        (date.year(), date.month() + 1)
    };
    NaiveDate::from_ymd_opt(y, m, 15)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{rule_test, *};
    use super::super::{Context, Severity, validate};
    use chrono::{NaiveDate, NaiveTime, TimeZone, Utc};

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
    }

    rule_test!(br_ksa_f_01_year, "BR-KSA-F-01", Error, standard(),
        pass: |d| { d.issue_date = date(2000, 1, 1); d.actual_delivery_date = date(2000, 1, 1) },
        fail: |d| d.actual_delivery_date = date(1999, 12, 31), path: "actual_delivery_date");
    rule_test!(br_ksa_04_future, "BR-KSA-04", Error, standard(),
        pass: |d| d.issue_date = date(2026, 11, 1), fail: |d| d.issue_date = date(2026, 11, 2), path: "issue_date");
    rule_test!(inv_late_invoice, "INV-LATE-INVOICE", Warning, standard(),
        pass: |d| d.actual_delivery_date = date(2026, 10, 1),
        fail: |d| d.actual_delivery_date = date(2026, 9, 30));

    #[test]
    fn br_ksa_04_uses_the_date_in_riyadh() {
        // 2026-11-01 22:00 UTC is already 2026-11-02 in Riyadh (UTC+3).
        let late = Context::new(Utc.with_ymd_and_hms(2026, 11, 1, 22, 0, 0).single().unwrap_or_default());
        let mut d = standard();
        d.issue_date = date(2026, 11, 2);
        d.actual_delivery_date = date(2026, 11, 2);
        assert_lacks(&validate(&d, &late), "BR-KSA-04");
        let early = Context::new(
            Utc.with_ymd_and_hms(2026, 11, 1, 20, 59, 59)
                .single()
                .unwrap_or_default(),
        );
        assert_has(&validate(&d, &early), "BR-KSA-04", Severity::Error);
    }

    #[test]
    fn br_ksa_98_simplified_older_than_24_hours() {
        // Issued 2026-11-01 10:30 Riyadh = 07:30 UTC.
        let at = |h, m, s| Context::new(Utc.with_ymd_and_hms(2026, 11, 2, h, m, s).single().unwrap_or_default());
        let d = simplified();
        assert_lacks(&validate(&d, &at(7, 30, 0)), "BR-KSA-98");
        let f = assert_has(&validate(&d, &at(7, 30, 1)), "BR-KSA-98", Severity::Warning);
        assert_eq!(f.value.as_deref(), Some("2026-11-01T10:30:00"));
        // Standard documents are cleared, not reported: no 24-hour rule.
        assert_lacks(&validate(&standard(), &at(12, 0, 0)), "BR-KSA-98");
        let mut late_night = simplified();
        late_night.issue_time = NaiveTime::from_hms_opt(23, 59, 59).unwrap_or_default();
        assert_lacks(&validate(&late_night, &at(12, 0, 0)), "BR-KSA-98");
    }

    #[test]
    fn late_invoice_across_the_year_end() {
        let mut d = standard();
        d.actual_delivery_date = date(2025, 12, 20);
        d.issue_date = date(2026, 1, 15);
        assert_lacks(&check(&d), "INV-LATE-INVOICE");
        d.issue_date = date(2026, 1, 16);
        assert_has(&check(&d), "INV-LATE-INVOICE", Severity::Warning);
        // Notes correct earlier invoices; the deadline is for invoices.
        let mut n = credit();
        n.actual_delivery_date = date(2025, 1, 1);
        assert_lacks(&check(&n), "INV-LATE-INVOICE");
    }

    #[test]
    fn extreme_dates_do_not_panic() {
        for date in [NaiveDate::MIN, NaiveDate::MAX] {
            for time in [NaiveTime::MIN, NaiveTime::from_hms_opt(23, 59, 59).unwrap_or_default()] {
                let mut d = simplified();
                d.issue_date = date;
                d.actual_delivery_date = date;
                d.issue_time = time;
                assert_has(&check(&d), "BR-KSA-F-01", Severity::Error);
                let mut d = standard();
                d.issue_date = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap_or_default();
                d.actual_delivery_date = date;
                let _ = check(&d);
            }
        }
    }
}
