use super::*;
use crate::mapping::tests::{bound, rows_from_csv};
use crate::mapping::{Mapping, Origin};
use proptest::prelude::*;

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|f| f.to_string()).collect()
}

fn text(t: &str) -> CellRef<'_> {
    CellRef::Text(t)
}

fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn a_format_swaps_its_numeric_day_and_month() {
    assert_eq!(swapped("%d/%m/%Y"), Some(("%m/%d/%Y".into(), Order::DayFirst)));
    assert_eq!(swapped("%m/%d/%Y"), Some(("%d/%m/%Y".into(), Order::MonthFirst)));
    assert_eq!(
        swapped("%-m/%-d/%Y %H:%M"),
        Some(("%-d/%-m/%Y %H:%M".into(), Order::MonthFirst))
    );
    assert_eq!(swapped("%Y-%m-%d"), Some(("%Y-%d-%m".into(), Order::MonthFirst)));
    // A month name, an ordinal day: nothing to swap.
    assert_eq!(swapped("%d-%b-%Y"), None);
    assert_eq!(swapped("%Y%j"), None);
}

#[test]
fn alternatives_are_a_format_and_its_swap_in_one_list() {
    assert_eq!(alternatives(&s(&["%m/%d/%Y", "excel"])), None);
    assert_eq!(alternatives(&s(&["%d-%m-%Y", "%Y-%m-%d", "excel"])), None);
    assert_eq!(alternatives(&s(&["%d-%m-%Y", "%d-%b-%Y", "%d/%m/%Y", "excel"])), None);
    let alt = alternatives(&s(&["%m/%d/%Y", "%d/%m/%Y", "excel"])).unwrap();
    assert_eq!(alt.pairs, vec![("%d/%m/%Y".to_string(), "%m/%d/%Y".to_string())]);
    assert_eq!(alt.settled, None);
    let alt = alternatives(&s(&["%d.%m.%Y", "%m/%d/%Y", "%d/%m/%Y", "%m.%d.%Y"])).unwrap();
    assert_eq!(alt.pairs.len(), 2);
}

#[test]
fn a_mapping_declares_alternatives_in_defaults_or_on_a_field() {
    let m = Mapping::from_toml(
        r#"
[defaults]
date_format = ["%m/%d/%Y", "%d/%m/%Y", "excel"]
[fields]
number = "No"
issue_date = "Date"
original_date = { column = "Delivered", format = "%Y-%m-%d", optional = true }
delivery_date = { column = "Due", format = ["%d.%m.%Y", "%m.%d.%Y"], optional = true }
line.item_name = "Item"
line.unit_price = "Price"
line.tax = { value = "15%" }
"#,
        Origin::File("t.toml".into()),
    )
    .unwrap();
    assert!(m.has_date_alternatives());
    assert!(m.rule("issue_date").unwrap().dates.is_some());
    assert!(m.rule("original_date").unwrap().dates.is_none());
    assert_eq!(
        m.rule("delivery_date").unwrap().dates.as_ref().unwrap().pairs[0].0,
        "%d.%m.%Y"
    );
    // Among the bundled mappings, QuickBooks Online's only (US or other company files).
    for name in crate::mapping::bundled::names() {
        let m = crate::mapping::bundled::get(name).unwrap().unwrap();
        assert_eq!(m.has_date_alternatives(), name == "quickbooks-online", "{name}");
    }
}

#[test]
fn an_open_date_that_reads_both_ways_is_an_error_never_a_guess() {
    let formats = s(&["%m/%d/%Y", "%d/%m/%Y", "excel"]);
    let alt = alternatives(&formats).unwrap();
    let (code, msg) = alt.parse(text("05/11/2026"), "05/11/2026", &formats).unwrap_err();
    assert_eq!(code, AMBIGUOUS_CODE);
    assert_eq!(
        msg,
        "05/11/2026 reads as 11 May 2026 or 5 November 2026; the mapping allows MM/DD/YYYY (%m/%d/%Y) and \
         DD/MM/YYYY (%d/%m/%Y) and no date in this file tells which: set date_format in the mapping (or a copy \
         of it) to the one the ERP writes"
    );
    // The same day both ways, one way only, a typed cell, a serial number: no doubt.
    assert_eq!(
        alt.parse(text("05/05/2026"), "05/05/2026", &formats),
        Ok(ymd(2026, 5, 5))
    );
    assert_eq!(
        alt.parse(text("13/11/2026"), "13/11/2026", &formats),
        Ok(ymd(2026, 11, 13))
    );
    assert_eq!(
        alt.parse(CellRef::Date(ymd(2026, 11, 5)), "", &formats),
        Ok(ymd(2026, 11, 5))
    );
    assert_eq!(alt.parse(text("46331"), "46331", &formats), Ok(ymd(2026, 11, 5)));
}

#[test]
fn a_settled_file_reads_every_date_in_its_order_and_says_a_mixed_one() {
    let mut formats = s(&["%m/%d/%Y", "%d/%m/%Y", "excel"]);
    let mut alt = alternatives(&formats).unwrap();
    let settlement = Settlement {
        order: Order::DayFirst,
        format: "%d/%m/%Y".into(),
        evidence: "InvoiceDate \"13/11/2026\" on line 3".into(),
    };
    alt.settle(&mut formats, &settlement);
    assert_eq!(formats, s(&["%d/%m/%Y", "excel"]));
    assert_eq!(alt.dropped, s(&["%m/%d/%Y"]));
    assert_eq!(
        alt.parse(text("05/11/2026"), "05/11/2026", &formats),
        Ok(ymd(2026, 11, 5))
    );
    let (code, msg) = alt.parse(text("11/13/2026"), "11/13/2026", &formats).unwrap_err();
    assert_eq!(code, "INV-MAP-VALUE");
    assert!(
        msg.starts_with("no such date: written as DD/MM/YYYY")
            && msg.contains("a date only as MM/DD/YYYY (13 November 2026)")
            && msg.contains("this file's dates read as DD/MM/YYYY (InvoiceDate \"13/11/2026\" on line 3)")
            && msg.ends_with("the file mixes both orders; if it is 13 November 2026, write it 13/11/2026, as the other dates are written"),
        "{msg}"
    );
    // Not a date either way: as any date.
    let (code, msg) = alt.parse(text("soon"), "soon", &formats).unwrap_err();
    assert_eq!(
        (code, msg.as_str()),
        (
            "INV-MAP-VALUE",
            "not a date in the format DD/MM/YYYY or an Excel date number"
        )
    );
    assert_eq!(
        alt.settled_note(&settlement, None, &formats).unwrap(),
        "dates read as DD/MM/YYYY (%d/%m/%Y): the mapping allows MM/DD/YYYY (%m/%d/%Y) and DD/MM/YYYY (%d/%m/%Y), \
         and InvoiceDate \"13/11/2026\" on line 3 is a date only that way"
    );
}

const QB: &str = r#"
[defaults]
date_format = ["%m/%d/%Y", "%d/%m/%Y", "excel"]
[fields]
number = "No"
issue_date = "Date"
delivery_date = { column = "Due", optional = true }
line.item_name = "Item"
line.unit_price = "Price"
line.tax = { value = "15%" }
"#;

fn look(csv: &str) -> crate::mapping::DateLook {
    let (headers, rows) = rows_from_csv(csv, 1);
    bound(QB, &headers).date_look(rows.into_iter().map(Ok::<_, ()>))
}

#[test]
fn the_first_date_that_reads_one_way_only_settles_the_file() {
    let l =
        look("No,Date,Due,Item,Price\n1,05/11/2026,05/12/2026,A,1\n2,06/11/2026,13/12/2026,A,1\n3,11/14/2026,,A,1\n");
    let s = l.settled.unwrap();
    assert_eq!((s.order, s.format.as_str()), (Order::DayFirst, "%d/%m/%Y"));
    assert_eq!(s.evidence, "Due \"13/12/2026\" on line 3");
    let l = look("No,Date,Due,Item,Price\n1,05/05/2026,,A,1\n2,11/14/2026,,A,1\n");
    assert_eq!(l.settled.unwrap().order, Order::MonthFirst);
    // Nothing tells: the first date that reads both ways is named.
    let l = look("No,Date,Due,Item,Price\n1,05/05/2026,,A,1\n2,05/11/2026,,A,1\n3,01/02/2026,,A,1\n");
    assert_eq!(l.settled, None);
    assert_eq!(l.ambiguous.as_deref(), Some("05/11/2026"));
    // No date that reads both ways: nothing to say.
    assert_eq!(look("No,Date,Due,Item,Price\n1,05/05/2026,,A,1\n"), Default::default());
}

proptest! {
    /// Any date D written in either order, after dates that read both ways: the file settles
    /// the order that reads D, names D's line, and its mapping then reads D as D.
    #[test]
    fn the_first_deciding_date_settles_the_order_that_reads_it(
        y in 1990i32..2100,
        m in 1u32..=12,
        d in 13u32..=28,
        day_first in any::<bool>(),
        before in proptest::collection::vec((1u32..=12, 1u32..=12), 0..5),
        after in proptest::collection::vec((1u32..=12, 13u32..=28), 0..3),
    ) {
        let (fmt, other) = if day_first { ("%d/%m/%Y", "%m/%d/%Y") } else { ("%m/%d/%Y", "%d/%m/%Y") };
        let date = ymd(y, m, d);
        let mut csv = String::from("No,Date,Due,Item,Price\n");
        for (i, (a, b)) in before.iter().enumerate() {
            csv.push_str(&format!("{i},{a:02}/{b:02}/2026,,A,1\n"));
        }
        csv.push_str(&format!("D,{},,A,1\n", date.format(fmt)));
        // Later dates written the other way change nothing.
        for (i, (a, b)) in after.iter().enumerate() {
            csv.push_str(&format!("L{i},{},,A,1\n", ymd(2026, *a, *b).format(other)));
        }
        let (headers, rows) = rows_from_csv(&csv, 1);
        let b = bound(QB, &headers);
        let s = b.date_look(rows.clone().into_iter().map(Ok::<_, ()>)).settled.unwrap();
        prop_assert_eq!(s.format.as_str(), fmt);
        prop_assert_eq!(s.order, if day_first { Order::DayFirst } else { Order::MonthFirst });
        prop_assert!(s.evidence.ends_with(&format!("on line {}", before.len() + 2)), "{}", s.evidence);
        let mut m2 = (*b.mapping).clone();
        prop_assert!(m2.settle_dates(&s, None).is_some());
        let rule = m2.rule("issue_date").unwrap();
        let t = date.format(fmt).to_string();
        let alt = rule.dates.as_ref().unwrap();
        prop_assert_eq!(alt.parse(text(&t), &t, &rule.formats), Ok(date));
        for (a, bb) in &before {
            let t = format!("{a:02}/{bb:02}/2026");
            let want = if day_first { ymd(2026, *bb, *a) } else { ymd(2026, *a, *bb) };
            prop_assert_eq!(alt.parse(text(&t), &t, &rule.formats), Ok(want));
        }
    }
}

#[test]
fn a_one_order_format_implies_its_swap() {
    let alt = implied(&s(&["%d/%m/%Y", "excel"])).unwrap();
    assert_eq!(alt.pairs, vec![("%d/%m/%Y".to_string(), "%m/%d/%Y".to_string())]);
    assert_eq!(alt.implied, Some(Order::DayFirst));
    let alt = implied(&s(&["%m-%d-%Y"])).unwrap();
    assert_eq!(alt.pairs, vec![("%d-%m-%Y".to_string(), "%m-%d-%Y".to_string())]);
    assert_eq!(alt.implied, Some(Order::MonthFirst));
    // Tally: each day-first format with its swap; a month name has none.
    let alt = implied(&s(&["%d-%m-%Y", "%d-%b-%Y", "%d/%m/%Y", "excel"])).unwrap();
    assert_eq!(alt.pairs.len(), 2);
    // Year first, no numeric month, both orders listed (declared), or both written: none.
    assert_eq!(implied(&s(&["%Y-%m-%d", "excel"])), None);
    assert_eq!(implied(&s(&["%Y%m%d"])), None);
    assert_eq!(implied(&s(&["%d-%b-%Y"])), None);
    assert_eq!(implied(&s(&["%m/%d/%Y", "%d/%m/%Y"])), None);
    assert_eq!(implied(&s(&["%d/%m/%Y", "%m-%d-%Y"])), None);
    // ERPNext: the day-first format only.
    assert_eq!(implied(&s(&["%d-%m-%Y", "%Y-%m-%d", "excel"])).unwrap().pairs.len(), 1);
}

#[test]
fn a_bundled_mapping_writing_one_order_looks_at_each_files_order() {
    for name in crate::mapping::bundled::names() {
        let m = crate::mapping::bundled::get(name).unwrap().unwrap();
        let one_order = matches!(name, "xero" | "sage50" | "tally" | "erpnext" | "legacy-arabic");
        assert_eq!(
            m.looks_at_date_order(),
            one_order || name == "quickbooks-online",
            "{name}"
        );
        let issue = m.rule("issue_date").unwrap();
        assert_eq!(
            issue.dates.as_ref().and_then(|a| a.implied),
            one_order.then_some(Order::DayFirst),
            "{name}"
        );
    }
    // A mapping that lists both orders for one field implies none for another.
    let m = Mapping::from_toml(
        r#"
[fields]
number = "No"
issue_date = { column = "Date", format = ["%m/%d/%Y", "%d/%m/%Y"] }
delivery_date = { column = "Due", format = "%d.%m.%Y", optional = true }
line.item_name = "Item"
line.unit_price = "Price"
line.tax = { value = "15%" }
"#,
        Origin::File("t.toml".into()),
    )
    .unwrap();
    assert!(m.rule("delivery_date").unwrap().dates.is_none());
}

#[test]
fn a_one_order_file_reads_its_dates_as_the_mapping_writes_them_until_settled() {
    let formats = s(&["%d/%m/%Y", "excel"]);
    let alt = implied(&formats).unwrap();
    // Not settled (nothing in the file told, or it was not looked at): the mapping's order,
    // never an ambiguity error.
    assert_eq!(
        alt.parse(text("05/11/2026"), "05/11/2026", &formats),
        Ok(ymd(2026, 11, 5))
    );
    // A date only the other way says so, and how to read a file written so.
    let (code, msg) = alt.parse(text("10/31/2026"), "10/31/2026", &formats).unwrap_err();
    assert_eq!(code, ORDER_CODE);
    assert_eq!(
        msg,
        "10/31/2026 is not a date as DD/MM/YYYY, the mapping's order, but only as MM/DD/YYYY (31 October 2026): if \
         this file's dates are MM/DD/YYYY (month first), read it with a copy of the mapping with date_format = \
         [\"%m/%d/%Y\", \"excel\"]; if it is 31 October 2026, write it 31/10/2026"
    );
    assert!(!msg.contains("correct the day or the month"));
    // Not a date either way: as before.
    let (_, msg) = alt.parse(text("31/31/2026"), "31/31/2026", &formats).unwrap_err();
    assert!(msg.starts_with("no such date: written as DD/MM/YYYY"), "{msg}");
}

#[test]
fn a_one_order_file_settled_the_other_way_reads_every_date_that_way() {
    let mut formats = s(&["%d/%m/%Y", "excel"]);
    let mut alt = implied(&formats).unwrap();
    let settlement = Settlement {
        order: Order::MonthFirst,
        format: "%m/%d/%Y".into(),
        evidence: "InvoiceDate \"10/31/2026\" on line 2".into(),
    };
    alt.settle(&mut formats, &settlement);
    assert_eq!(formats, s(&["%m/%d/%Y", "excel"]));
    assert_eq!(alt.dropped, s(&["%d/%m/%Y"]));
    assert_eq!(
        alt.parse(text("11/01/2026"), "11/01/2026", &formats),
        Ok(ymd(2026, 11, 1))
    );
    assert_eq!(
        alt.parse(text("10/31/2026"), "10/31/2026", &formats),
        Ok(ymd(2026, 10, 31))
    );
    assert_eq!(
        alt.settled_note(&settlement, None, &formats).unwrap(),
        "this file's dates are month first, not as its mapping writes them: they are read as MM/DD/YYYY (%m/%d/%Y), \
         not DD/MM/YYYY (%d/%m/%Y), since InvoiceDate \"10/31/2026\" on line 2 is a date only that way and no date \
         of the file is one only as DD/MM/YYYY (an export saved again by a program set to another country, such as \
         Excel in a US locale, is written so); if the ERP writes its exports so, read them with a copy of the \
         mapping with date_format = [\"%m/%d/%Y\", \"excel\"]"
    );
}

#[test]
fn a_one_order_file_settled_its_mapping_way_says_nothing_unless_it_mixes() {
    let mut formats = s(&["%d/%m/%Y", "excel"]);
    let mut alt = implied(&formats).unwrap();
    let settlement = Settlement {
        order: Order::DayFirst,
        format: "%d/%m/%Y".into(),
        evidence: "InvoiceDate \"13/11/2026\" on line 9".into(),
    };
    alt.settle(&mut formats, &settlement);
    assert_eq!(formats, s(&["%d/%m/%Y", "excel"]));
    assert_eq!(alt.settled_note(&settlement, None, &formats), None);
    let against = Settlement {
        order: Order::MonthFirst,
        format: "%m/%d/%Y".into(),
        evidence: "InvoiceDate \"10/31/2026\" on line 3".into(),
    };
    assert_eq!(
        alt.settled_note(&settlement, Some(&against), &formats).unwrap(),
        "this file mixes both orders of day and month: its dates are read as DD/MM/YYYY (%d/%m/%Y), the mapping's, \
         since InvoiceDate \"13/11/2026\" on line 9 is a date only that way, but InvoiceDate \"10/31/2026\" on line 3 \
         is a date only as MM/DD/YYYY; each date that is one only that way is an error (INV-MAP-VALUE), and the \
         others are read as DD/MM/YYYY"
    );
    let (_, msg) = alt.parse(text("10/31/2026"), "10/31/2026", &formats).unwrap_err();
    assert!(
        msg.ends_with(
            "it is a date only as MM/DD/YYYY (31 October 2026), but this file's dates read as DD/MM/YYYY \
             (InvoiceDate \"13/11/2026\" on line 9): the file mixes both orders; if it is 31 October 2026, write it \
             31/10/2026, as the other dates are written"
        ),
        "{msg}"
    );
}

const XERO_LIKE: &str = r#"
[defaults]
date_format = ["%d/%m/%Y", "excel"]
[fields]
number = "No"
issue_date = "Date"
delivery_date = { column = "Due", optional = true }
line.item_name = "Item"
line.unit_price = "Price"
line.tax = { value = "15%" }
"#;

fn look_one_order(csv: &str) -> crate::mapping::DateLook {
    let (headers, rows) = rows_from_csv(csv, 1);
    bound(XERO_LIKE, &headers).date_look(rows.into_iter().map(Ok::<_, ()>))
}

#[test]
fn a_one_order_file_is_read_the_other_way_only_when_no_date_reads_the_mapping_way() {
    // Month first: 10/31 tells, and nothing after it reads day first only.
    let l =
        look_one_order("No,Date,Due,Item,Price\n1,11/01/2026,12/01/2026,A,1\n2,10/31/2026,,A,1\n3,11/05/2026,,A,1\n");
    let s = l.settled.unwrap();
    assert_eq!((s.order, s.format.as_str()), (Order::MonthFirst, "%m/%d/%Y"));
    assert_eq!(s.evidence, "Date \"10/31/2026\" on line 3");
    assert_eq!(l.against, None);
    // Day first: the first date that says so ends the look.
    let l = look_one_order("No,Date,Due,Item,Price\n1,05/11/2026,13/12/2026,A,1\n2,10/31/2026,,A,1\n");
    assert_eq!(l.settled.unwrap().order, Order::DayFirst);
    assert_eq!(l.against, None);
    // Both: the mapping's order, and the first date the other way is kept for the note.
    let l = look_one_order("No,Date,Due,Item,Price\n1,10/31/2026,,A,1\n2,13/11/2026,,A,1\n");
    assert_eq!(l.settled.unwrap().order, Order::DayFirst);
    assert_eq!(l.against.unwrap().evidence, "Date \"10/31/2026\" on line 2");
    // Nothing tells: the mapping's order stands (no settlement, no note).
    let l = look_one_order("No,Date,Due,Item,Price\n1,05/11/2026,,A,1\n2,01/02/2026,,A,1\n");
    assert_eq!((l.settled, l.against), (None, None));
    let (headers, _) = rows_from_csv("No,Date,Due,Item,Price\n", 1);
    assert_eq!(
        bound(XERO_LIKE, &headers).mapping.undecided_dates_note("05/11/2026"),
        None
    );
}

#[test]
fn a_spreadsheet_date_cell_ends_the_look_of_a_one_order_mapping() {
    use crate::ingest::{Cell, Row, SourceRef};
    let (headers, _) = rows_from_csv("No,Date,Due,Item,Price\n", 1);
    let b = bound(XERO_LIKE, &headers);
    let row = |line: u64, date: Cell| {
        Row::new(
            SourceRef {
                file: "t.xlsx".into(),
                sheet: Some("Sheet1".into()),
                line,
            },
            vec![
                Cell::Text("1".into()),
                date,
                Cell::Empty,
                Cell::Text("A".into()),
                Cell::Text("1".into()),
            ],
        )
    };
    // A date cell first: the sheet's dates have no order to read; the text after it is not
    // looked at.
    let rows = vec![
        row(2, Cell::Date(ymd(2026, 11, 1))),
        row(3, Cell::Text("10/31/2026".into())),
    ];
    assert_eq!(b.date_look(rows.into_iter().map(Ok::<_, ()>)), Default::default());
    // A date the other way first: the look goes on past date cells to the end.
    let rows = vec![
        row(2, Cell::Text("10/31/2026".into())),
        row(3, Cell::Date(ymd(2026, 11, 1))),
    ];
    let l = b.date_look(rows.into_iter().map(Ok::<_, ()>));
    assert_eq!(l.settled.unwrap().evidence, "Date \"10/31/2026\" on row 2");
}

proptest! {
    /// A file whose dates are all written in one order, read with a one-order mapping of either
    /// order: every date is read as the day it is when one of them tells the order, and in the
    /// mapping's order when none does.
    #[test]
    fn a_one_order_file_is_read_as_written_whatever_the_mappings_order(
        dates in proptest::collection::vec((1u32..=12, 1u32..=28), 1..8),
        written_day_first in any::<bool>(),
        mapping_day_first in any::<bool>(),
    ) {
        let written = if written_day_first { "%d/%m/%Y" } else { "%m/%d/%Y" };
        let mapped = if mapping_day_first { "%d/%m/%Y" } else { "%m/%d/%Y" };
        let toml = XERO_LIKE.replace("%d/%m/%Y", mapped);
        let mut csv = String::from("No,Date,Due,Item,Price\n");
        for (i, (m, d)) in dates.iter().enumerate() {
            csv.push_str(&format!("{i},{},,A,1\n", ymd(2026, *m, *d).format(written)));
        }
        let (headers, rows) = rows_from_csv(&csv, 1);
        let b = bound(&toml, &headers);
        let look = b.date_look(rows.into_iter().map(Ok::<_, ()>));
        let tells = dates.iter().any(|(m, d)| d > &12 && m != d);
        let mut m2 = (*b.mapping).clone();
        match &look.settled {
            Some(s) => {
                prop_assert!(tells);
                let note = m2.settle_dates(s, look.against.as_ref());
                prop_assert_eq!(note.is_some(), written_day_first != mapping_day_first);
            }
            None => prop_assert!(!tells),
        }
        let rule = m2.rule("issue_date").unwrap();
        let alt = rule.dates.as_ref().unwrap();
        for (m, d) in &dates {
            let date = ymd(2026, *m, *d);
            let t = date.format(written).to_string();
            let got = alt.parse(text(&t), &t, &rule.formats);
            if tells || written_day_first == mapping_day_first || m == d {
                prop_assert_eq!(got, Ok(date));
            } else {
                // Nothing told: read in the mapping's order.
                prop_assert_eq!(got, Ok(ymd(2026, *d, *m)));
            }
        }
    }
}
