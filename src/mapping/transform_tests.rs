//! Tests of `transform.rs`.
use super::*;
use rust_decimal_macros::dec;

fn d(y: i32, m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, day).unwrap()
}

fn f(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_year_of_fewer_than_four_digits_is_an_error_unless_another_format_reads_it() {
    let text = |t: &str, formats: &[&str]| parse_date(CellRef::Text(t), t, &f(formats));
    assert_eq!(
        text("02/11/26", &["%d/%m/%Y"]).unwrap_err(),
        "the year is written with 2 digits (26); write it with four (2026), or, if the export writes every \
         year with two, read them with DD/MM/YY (date_format = \"%d/%m/%y\" in the mapping)"
    );
    assert_eq!(
        text("2/11/5", &["%d/%m/%Y"]).unwrap_err(),
        "the year is written with 1 digit (5); write it with four (2005), or, if the export writes every year \
         with two, read them with DD/MM/YY (date_format = \"%d/%m/%y\" in the mapping)"
    );
    assert!(
        text("02/11/202", &["%d/%m/%Y"])
            .unwrap_err()
            .starts_with("the year is written with 3 digits (202)")
    );
    // A format that reads two digits, listed after: the date is read.
    assert_eq!(text("02/11/26", &["%d/%m/%Y", "%d/%m/%y"]), Ok(d(2026, 11, 2)));
    assert_eq!(text("02/11/2026", &["%d/%m/%Y"]), Ok(d(2026, 11, 2)));
    // A date not read: the formats as a clerk reads them.
    assert_eq!(
        text("2026-02-03", &["%d/%m/%Y", "excel"]).unwrap_err(),
        "not a date in the format DD/MM/YYYY or an Excel date number"
    );
    // In the format's shape, but no such day: said so.
    for no_day in ["31/02/2026", "31/11/2026", "12/13/2026"] {
        assert_eq!(
            text(no_day, &["%d/%m/%Y", "excel"]).unwrap_err(),
            "no such date: written as DD/MM/YYYY but there is no such day (a day after the end of its month, or a \
             month after 12); correct the day or the month",
            "{no_day}"
        );
    }
    assert_eq!(
        parse_time(CellRef::Text("9h"), "9h", &f(TIME_FORMATS)).unwrap_err(),
        "not a time in the format hh:mm:ss or hh:mm or hh:mm:ss AM/PM or hh:mm AM/PM"
    );
}

#[test]
fn formats_are_shown_as_a_clerk_reads_them() {
    for (format, clerk) in [
        ("%d/%m/%Y", "DD/MM/YYYY"),
        ("%m/%d/%Y", "MM/DD/YYYY"),
        ("%Y-%m-%d", "YYYY-MM-DD"),
        ("%Y%m%d", "YYYYMMDD"),
        ("%d.%m.%y", "DD.MM.YY"),
        ("%-d-%b-%Y", "D-Mon-YYYY"),
        ("%d %B %Y", "DD Month YYYY"),
        ("%H:%M:%S", "hh:mm:ss"),
        ("%I:%M %p", "hh:mm AM/PM"),
        ("%F", "YYYY-MM-DD"),
        ("excel", "an Excel date number"),
        ("%d/%m/%Y %Z", "DD/MM/YYYY %Z"),
        ("100%%", "100%"),
        ("%", "%"),
    ] {
        assert_eq!(clerk_format(format), clerk, "{format}");
    }
}

#[test]
fn a_number_with_the_other_decimal_separator_says_which_setting_reads_it() {
    let point = NumberStyle::default();
    let comma = NumberStyle {
        decimal_comma: true,
        ..NumberStyle::default()
    };
    for text in ["3.450,00", "3 450,00", "12,5", "SAR 1.234,50"] {
        let e = parse_decimal(CellRef::Empty, text, &point).unwrap_err();
        assert!(e.contains("written with a decimal comma: write it as "), "{text}: {e}");
        assert!(e.contains("only if the export writes every number with a decimal comma, set decimal_comma = true"));
        assert!(parse_decimal(CellRef::Empty, text, &comma).is_ok(), "{text}");
    }
    for text in ["1,234.50", "3.5"] {
        let e = parse_decimal(CellRef::Empty, text, &comma).unwrap_err();
        assert!(e.contains("written with a decimal point"), "{text}: {e}");
        assert!(parse_decimal(CellRef::Empty, text, &point).is_ok(), "{text}");
    }
    // Not numbers in either style: no hint.
    for text in ["7.5O", "abc", "1,2,3"] {
        let e = parse_decimal(CellRef::Empty, text, &point).unwrap_err();
        assert!(!e.contains("decimal_comma"), "{text}: {e}");
    }
}

proptest::proptest! {
    /// Every way of writing one sign gives that sign; two signs are never read as a number.
    #[test]
    fn one_sign_is_read_two_are_refused(mantissa in 0i64..1_000_000_000_000, scale in 0u32..6) {
        let d = Decimal::new(mantissa, scale);
        let us = NumberStyle::default();
        let p = |s: &str| parse_decimal(CellRef::Text(s), s, &us);
        for one in [format!("-{d}"), format!("({d})"), format!("{d}-"), format!("-SAR {d}")] {
            proptest::prop_assert_eq!(p(&one), Ok(-d), "{}", one);
        }
        proptest::prop_assert_eq!(p(&format!("+{d}")), Ok(d));
        for two in [format!("--{d}"), format!("(-{d})"), format!("-{d}-"), format!("({d}-)"), format!("+{d}-")] {
            proptest::prop_assert!(p(&two).is_err(), "{} read as {:?}", two, p(&two));
        }
    }
}

proptest::proptest! {
    /// A short plain number has the value and the scale `parse_exact` gives it.
    #[test]
    fn short_plain_numbers_are_parse_exacts(
        s in "[0-9]{0,12}[.]?[0-9]{0,12}[.]?[0-9]{0,2}|[1-9][0-9]{16,19}|[0-9]{1,19}[.][0-9]{1,3}"
    ) {
        if let Some(fast) = short_plain(&s) {
            let exact = crate::model::amount::parse_exact(&s);
            proptest::prop_assert_eq!(Some((fast.mantissa(), fast.scale())), exact.map(|e| (e.mantissa(), e.scale())), "{}", s);
        } else {
            let plain = s.len() <= 19 && s.matches('.').count() <= 1 && !s.starts_with('.') && !s.ends_with('.')
                && s.bytes().filter(u8::is_ascii_digit).count() <= 18 && !s.is_empty();
            proptest::prop_assert!(!plain, "a short plain number went the general way: {}", s);
        }
    }
}

proptest::proptest! {
    /// The usual formats read as chrono reads them: the same date and remainder whenever
    /// the shortcut answers (it leaves short days, long years and impossible dates to
    /// chrono).
    #[test]
    fn fixed_dates_are_chronos(
        t in "[0-9]{1,5}[/.-][0-9]{1,3}[/.-][0-9]{1,5}[ T0-9:]{0,9}",
        valid in (2000i32..2100, 1u32..13, 1u32..32),
        sep in 0usize..6,
    ) {
        let formats = ["%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y", "%Y-%m-%d", "%Y/%m/%d"];
        let (y, m, day) = valid;
        let well_formed = [
            format!("{day:02}/{m:02}/{y}"), format!("{m:02}/{day:02}/{y} 10:00:00"),
            format!("{day:02}.{m:02}.{y}"), format!("{day:02}-{m:02}-{y}T09:30"),
            format!("{y}-{m:02}-{day:02}"), format!("{y}/{m:02}/{day:02}7"),
        ];
        // A fifth year digit (chrono leaves it to the remainder, as the shortcut does), a
        // one-digit day (left to chrono).
        let tricky = [format!("{day:02}/{m:02}/{y}5"), format!("{day}/{m:02}/{y}"), format!("{y}-{m:02}-{day:02}5")];
        for text in [t.as_str(), well_formed[sep].as_str()].into_iter().chain(tricky.iter().map(String::as_str)) {
            for f in formats {
                if let Some(fast) = fixed_date(text, f) {
                    proptest::prop_assert_eq!(Ok(fast), NaiveDate::parse_and_remainder(text, f), "{} {}", text, f);
                }
            }
        }
        // The well-formed text of its own format always takes the shortcut when the date exists.
        if NaiveDate::from_ymd_opt(y, m, day).is_some() {
            proptest::prop_assert!(fixed_date(&well_formed[sep], formats[sep]).is_some(), "{}", well_formed[sep]);
        }
    }
}

#[test]
fn dates_follow_the_mapping_format() {
    let t = |s: &str, fmts: &[&str]| parse_date(CellRef::Text(s), s, &f(fmts));
    assert_eq!(t("03/04/2026", &["%d/%m/%Y"]), Ok(d(2026, 4, 3)));
    assert_eq!(t("03/04/2026", &["%m/%d/%Y"]), Ok(d(2026, 3, 4)));
    assert_eq!(t("3/4/2026", &["%d/%m/%Y"]), Ok(d(2026, 4, 3)));
    assert_eq!(t("20261105", &["%Y%m%d"]), Ok(d(2026, 11, 5)));
    assert_eq!(t("2026-11-05", &["%Y-%m-%d"]), Ok(d(2026, 11, 5)));
    assert_eq!(t("1-Apr-2024", &["%d-%b-%Y"]), Ok(d(2024, 4, 1)));
    assert_eq!(t("05-11-2026", &["%d-%m-%Y", "%d-%b-%Y"]), Ok(d(2026, 11, 5)));
    assert_eq!(t("5-Nov-2026", &["%d-%m-%Y", "%d-%b-%Y"]), Ok(d(2026, 11, 5)));
    assert_eq!(t("05/11/2026 00:00:00", &["%d/%m/%Y"]), Ok(d(2026, 11, 5)));
    assert_eq!(t("46000", &["%d/%m/%Y", "excel"]), Ok(d(2025, 12, 9)));
    assert!(t("31/02/2026", &["%d/%m/%Y"]).is_err());
    assert!(t("2026-11-05", &["%d/%m/%Y"]).is_err());
    assert!(t("05/11/2026 junk", &["%d/%m/%Y"]).is_err());
}

#[test]
fn spreadsheet_date_cells_and_serials() {
    assert_eq!(parse_date(CellRef::Date(d(2026, 11, 5)), "", &[]), Ok(d(2026, 11, 5)));
    assert_eq!(parse_date(CellRef::Number(dec!(46331)), "", &[]), Ok(d(2026, 11, 5)));
    assert_eq!(parse_date(CellRef::Number(dec!(20261105)), "", &[]), Ok(d(2026, 11, 5)));
    assert_eq!(excel_serial_date(dec!(1)), Some(d(1900, 1, 1)));
    assert_eq!(excel_serial_date(dec!(61)), Some(d(1900, 3, 1)));
    assert!(parse_date(CellRef::Number(dec!(-5)), "", &[]).is_err());
}

#[test]
fn formats_are_checked() {
    assert!(check_format("%d/%m/%Y", true).is_ok());
    assert!(check_format("%d-%b-%Y", true).is_ok());
    assert!(check_format("excel", true).is_ok());
    assert!(check_format("%d/%m", true).is_err());
    assert!(check_format("%Q/%m/%Y", true).is_err());
    assert!(check_format("%H:%M", false).is_ok());
    assert!(check_format("%M", false).is_err());
}

#[test]
fn times() {
    let t = |s: &str| parse_time(CellRef::Text(s), s, &f(TIME_FORMATS));
    assert_eq!(t("10:30:00"), Ok(NaiveTime::from_hms_opt(10, 30, 0).unwrap()));
    assert_eq!(t("10:30"), Ok(NaiveTime::from_hms_opt(10, 30, 0).unwrap()));
    assert_eq!(t("2:05 PM"), Ok(NaiveTime::from_hms_opt(14, 5, 0).unwrap()));
    assert!(t("25:00").is_err());
}

#[test]
fn numbers_in_every_style() {
    let us = NumberStyle::default();
    let eu = NumberStyle {
        decimal_comma: true,
        thousands: None,
    };
    let p = |s: &str, st: &NumberStyle| parse_decimal(CellRef::Text(s), s, st);
    assert_eq!(p(" 1,234.50 ", &us), Ok(dec!(1234.50)));
    assert_eq!(p("1234.5", &us), Ok(dec!(1234.5)));
    assert_eq!(p("-12.5", &us), Ok(dec!(-12.5)));
    assert_eq!(p("(12.50)", &us), Ok(dec!(-12.50)));
    assert_eq!(p("12.50-", &us), Ok(dec!(-12.50)));
    assert_eq!(p("SAR 100", &us), Ok(dec!(100)));
    assert_eq!(p(".5", &us), Ok(dec!(0.5)));
    assert_eq!(p("1.234,50", &eu), Ok(dec!(1234.50)));
    assert_eq!(p("1 234,50", &eu), Ok(dec!(1234.50)));
    assert_eq!(p("12,5", &eu), Ok(dec!(12.5)));
    assert_eq!(p("١٢٣٫٤٥", &us), Ok(dec!(123.45)));
    assert!(p("12,5", &us).is_err());
    assert!(p("abc", &us).is_err());
    assert!(p("1.2.3", &us).is_err());
    assert!(p("", &us).is_err());
    assert_eq!(parse_decimal(CellRef::Number(dec!(3.3)), "", &us), Ok(dec!(3.3)));
    // One sign at most: two are not read as either sign.
    for two in [
        "--5", "(-5)", "-5-", "-(5)", "-+5", "+5-", "(5)-", "5--", "1-2", "12,5-0",
    ] {
        let err = p(two, &us).expect_err(two);
        assert!(err.starts_with("not a number"), "{two}: {err}");
    }
    assert_eq!(p("+5", &us), Ok(dec!(5)));
    assert_eq!(p("-$5", &us), Ok(dec!(-5)));
    assert_eq!(p("(SAR 1,200.00)", &us), Ok(dec!(-1200.00)));
    // Exponents, both ways, and numbers past 28 digits said to be so.
    assert_eq!(p("1.5E+3", &us), Ok(dec!(1500)));
    assert_eq!(p("1e-2", &us), Ok(dec!(0.01)));
    for big in ["99999999999999999999999999999999", "1E+30"] {
        assert_eq!(
            p(big, &us),
            Err("too large or too precise for an amount (at most 28 digits)".into())
        );
    }
    assert_eq!(
        p("1e", &us),
        Err("not a number (write it in digits, e.g. 1234.50)".into())
    );
}

#[test]
fn percentages() {
    let us = NumberStyle::default();
    let p = |s: &str| parse_percent(CellRef::Text(s), s, &us);
    assert_eq!(p("15%"), Ok(dec!(15)));
    assert_eq!(p("15 %"), Ok(dec!(15)));
    assert_eq!(p("VAT 15%"), Ok(dec!(15)));
    assert_eq!(p("5"), Ok(dec!(5)));
    assert_eq!(p("12.5%"), Ok(dec!(12.5)));
    assert_eq!(p("١٥٪"), Ok(dec!(15)));
    assert_eq!(
        p("12,5%"),
        Err(
            "not a percentage (like 15%; written with a decimal comma: write it as 12.5, with a decimal point, as \
             this column is read; only if the export writes every number with a decimal comma, set decimal_comma = \
             true in the mapping's [defaults] or on this field)"
                .into()
        )
    );
    let eu = NumberStyle {
        decimal_comma: true,
        thousands: None,
    };
    assert_eq!(parse_percent(CellRef::Text("12,5%"), "12,5%", &eu), Ok(dec!(12.5)));
    assert_eq!(
        parse_percent(CellRef::Text("5.5%"), "5.5%", &eu),
        Err(
            "not a percentage (like 15%; written with a decimal point: write it as 5,5, with a decimal comma, as \
             this column is read; only if the export writes every number with a decimal point, set decimal_comma = \
             false in the mapping's [defaults] or on this field)"
                .into()
        )
    );
    assert!(p("fifteen").is_err());
    // Other words beside the rate may change it: not read as the rate.
    for s in [
        "VAT 15% (Included)",
        "15%,Withholding 5%",
        "Exempt (was 15%)",
        "10% off",
    ] {
        assert_eq!(p(s), Err("not a percentage (like 15%)".into()), "{s:?}");
    }
}

#[test]
fn booleans() {
    assert_eq!(parse_bool(CellRef::Empty, "TRUE"), Ok(true));
    assert_eq!(parse_bool(CellRef::Empty, "no"), Ok(false));
    assert_eq!(parse_bool(CellRef::Bool(true), ""), Ok(true));
    assert!(parse_bool(CellRef::Empty, "maybe").is_err());
}

/// One cell typed with the other decimal separator (a QuickBooks `ItemRate "675,50"` among
/// numbers written `675.50`) is told first how to write it, in the column's style; the setting
/// comes after, for an export that writes every number so.
#[test]
fn a_number_with_the_other_decimal_separator_is_told_how_to_write_it() {
    let point = NumberStyle::default();
    let comma = NumberStyle {
        decimal_comma: true,
        ..NumberStyle::default()
    };
    let e = |text: &str, style: &NumberStyle| parse_decimal(CellRef::Empty, text, style).unwrap_err();
    assert_eq!(
        e("675,50", &point),
        "not a number (written with a decimal comma: write it as 675.50, with a decimal point, as this column is \
         read; only if the export writes every number with a decimal comma, set decimal_comma = true in the \
         mapping's [defaults] or on this field)"
    );
    // A Zoho exchange rate, a Tally amount with thousands, negatives.
    for (text, written) in [
        ("3,75", "3.75"),
        ("1.234,50", "1234.50"),
        ("-1.234,5", "-1234.5"),
        ("(12,50)", "-12.50"),
    ] {
        assert!(
            e(text, &point).starts_with(&format!(
                "not a number (written with a decimal comma: write it as {written}, with a decimal point"
            )),
            "{text}: {}",
            e(text, &point)
        );
    }
    assert_eq!(
        e("1,234.50", &comma),
        "not a number (written with a decimal point: write it as 1234,50, with a decimal comma, as this column is \
         read; only if the export writes every number with a decimal point, set decimal_comma = false in the \
         mapping's [defaults] or on this field)"
    );
}

/// The Arabic decimal separator (U+066B) and thousands separator (U+066C) are unambiguous: read
/// in every style, a decimal comma's (the legacy Arabic ERP) as a decimal point's (Xero).
#[test]
fn the_arabic_separators_are_read_in_every_style() {
    let point = NumberStyle::default();
    let comma = NumberStyle {
        decimal_comma: true,
        ..NumberStyle::default()
    };
    let spaced = NumberStyle {
        decimal_comma: true,
        thousands: Some(' '),
    };
    for style in [&point, &comma, &spaced] {
        let p = |s: &str| parse_decimal(CellRef::Text(s), s, style);
        assert_eq!(p("٦٤٫٩"), Ok(dec!(64.9)), "{style:?}");
        assert_eq!(p("١٢٠٫٠٠"), Ok(dec!(120.00)), "{style:?}");
        assert_eq!(p("١٬٢٣٤٫٥٠"), Ok(dec!(1234.50)), "{style:?}");
        assert_eq!(p("-١٬٢٣٤"), Ok(dec!(-1234)), "{style:?}");
        assert_eq!(
            parse_percent(CellRef::Text("١٥٫٥٪"), "١٥٫٥٪", style),
            Ok(dec!(15.5)),
            "{style:?}"
        );
    }
    // The ASCII separators keep their style's meaning beside Arabic-Indic digits.
    assert_eq!(parse_decimal(CellRef::Empty, "٦٤,٩", &comma), Ok(dec!(64.9)));
    assert!(parse_decimal(CellRef::Empty, "٦٤,٩", &point).is_err());
}

#[test]
fn the_time_after_a_date_is_read_and_a_date_alone_has_none() {
    let hm = |h: u32, m: u32, s: u32| Some(NaiveTime::from_hms_opt(h, m, s).unwrap());
    assert_eq!(time_after_date("10/11/2026 14:30"), hm(14, 30, 0));
    assert_eq!(time_after_date("2026-11-10T09:05:07"), hm(9, 5, 7));
    assert_eq!(
        time_after_date(" 2026-11-10 09:05:07.250 "),
        hm(9, 5, 7).map(|t| t + Duration::milliseconds(250))
    );
    assert_eq!(time_after_date("10/11/2026 2:30 PM"), hm(14, 30, 0));
    assert_eq!(time_after_date("10 Nov 2026 23:59"), hm(23, 59, 0));
    assert_eq!(time_after_date("05/11/2026 00:00:00"), hm(0, 0, 0));
    for none in [
        "10/11/2026",
        "10 Nov 2026",
        "2026-11-10",
        "",
        "2026-11-10T10:00:00Z",
        "2026-11-10 10:00:00+03:00",
        "10/11/2026 25:00",
    ] {
        assert_eq!(time_after_date(none), None, "{none}");
    }
}
