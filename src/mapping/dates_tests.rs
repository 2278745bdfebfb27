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
        alt.settled_note(&settlement),
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
        prop_assert!(m2.settle_dates(&s).is_some());
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
