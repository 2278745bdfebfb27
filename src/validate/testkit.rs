//! Test helpers: valid documents, a fixed clock, and assertions on findings.

use super::{Context, Finding, Severity, rule, validate};
use crate::compute::compute_document;
use crate::model::{Document, example};
use chrono::{DateTime, TimeZone, Utc};

/// 2026-11-01 08:00 UTC = 11:00 in Riyadh, half an hour after the examples were issued.
pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 8, 0, 0).single().unwrap_or_default()
}

/// A context at [`now`].
pub(crate) fn ctx() -> Context {
    Context::new(now())
}

fn computed(mut doc: Document) -> Document {
    compute_document(&mut doc).expect("the examples compute");
    doc
}

/// The example standard invoice, computed.
pub(crate) fn standard() -> Document {
    computed(example::standard_invoice("INV-1001"))
}

/// The example simplified invoice, computed.
pub(crate) fn simplified() -> Document {
    computed(example::simplified_invoice("SIM-1001"))
}

/// The example credit note, computed.
pub(crate) fn credit() -> Document {
    computed(example::credit_note("CN-1001", "INV-1001"))
}

/// The example debit note, computed.
pub(crate) fn debit() -> Document {
    computed(example::debit_note("DN-1001", "INV-1001"))
}

/// The four examples, computed.
pub(crate) fn examples() -> Vec<(&'static str, Document)> {
    vec![
        ("standard", standard()),
        ("simplified", simplified()),
        ("credit", credit()),
        ("debit", debit()),
    ]
}

/// Recompute the totals after changing quantities, prices or categories.
pub(crate) fn recompute(doc: &mut Document) {
    compute_document(doc).expect("computes");
}

/// Validate at [`now`].
pub(crate) fn check(doc: &Document) -> Vec<Finding> {
    validate(doc, &ctx())
}

/// The findings of one code.
pub(crate) fn of<'a>(findings: &'a [Finding], code: &str) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.code == code).collect()
}

/// Assert that `code` was reported with `severity`; returns its first finding.
#[track_caller]
pub(crate) fn assert_has(findings: &[Finding], code: &str, severity: Severity) -> Finding {
    let hits = of(findings, code);
    let Some(first) = hits.first() else {
        panic!("{code} not reported; got {findings:#?}");
    };
    for f in &hits {
        assert_eq!(f.severity, severity, "{f:?}");
        assert!(!f.message.is_empty() && !f.path.is_empty(), "{f:?}");
    }
    assert_eq!(rule(code).map(|r| r.severity), Some(severity), "{code} in the table");
    (*first).clone()
}

/// Assert that `code` was not reported.
#[track_caller]
pub(crate) fn assert_lacks(findings: &[Finding], code: &str) {
    let hits = of(findings, code);
    assert!(hits.is_empty(), "{code} reported: {hits:#?}");
}

/// Change a document in a test.
pub(crate) fn apply(doc: &mut Document, change: impl FnOnce(&mut Document)) {
    change(doc);
}

/// One rule, one test: `base` passes it, `base` changed by `pass` still passes it, `base` changed
/// by `fail` breaks it with `severity`, at `path` when given.
macro_rules! rule_test {
    ($name:ident, $code:literal, $sev:ident, $base:expr, pass: $pass:expr, fail: $fail:expr $(, path: $path:literal)? $(,)?) => {
        #[test]
        fn $name() {
            use $crate::validate::testkit::*;
            let base: $crate::model::Document = $base;
            assert_lacks(&check(&base), $code);
            let mut ok = base.clone();
            apply(&mut ok, $pass);
            assert_lacks(&check(&ok), $code);
            let mut bad = base;
            apply(&mut bad, $fail);
            let _f = assert_has(&check(&bad), $code, $crate::validate::Severity::$sev);
            $( assert_eq!(_f.path, $path, "{_f:?}"); )?
        }
    };
}
pub(crate) use rule_test;
