//! Negative amounts: a credit note written with negative amounts reads as one with every
//! amount positive, and a discount line in an invoice is said once, without the credit-note
//! findings a negative document would get.

use super::{check_json, file, result_rows};

/// `X.documents.csv`'s rows (no byte-order mark, unlike the result file).
fn documents(path: &std::path::Path) -> Vec<Vec<String>> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_path(path).unwrap();
    rdr.records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn cell<'a>(rows: &'a [Vec<String>], line: usize, col: &str) -> &'a str {
    let at = rows[0].iter().position(|h| h == col).unwrap_or_else(|| panic!("{col}"));
    &rows[line - 1][at]
}

/// Sage 50 writes a discount as a negative line of the invoice: `INV-MAP-SIGN` on that line's
/// amount, saying what to do; the document stays an invoice (no "add it to credit_notes.csv",
/// no "a credit note must say why"), and no figures are claimed for it (the lines' absolute
/// values added up are none of its amounts).
#[test]
fn a_negative_discount_line_in_an_invoice_is_one_finding_and_no_credit_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sage.csv"),
        "INVOICE_NUMBER,ACCOUNT_REF,INVOICE_DATE,STOCK_CODE,DESCRIPTION,NOMINAL_CODE,DEPT_NUMBER,TAX_CODE,QTY_ORDER,UNIT_PRICE,NET_AMOUNT,TAX_AMOUNT\n\
         SI-3001,OFUQ001,03/11/2026,PRN-01,Laser printer,4000,1,T1,2,\"1,150.00\",\"2,300.00\",345.00\n\
         SI-3001,OFUQ001,03/11/2026,DISC,Loyalty discount,4000,1,T1,1,-100.00,-100.00,-15.00\n",
    )
    .unwrap();
    let (code, r, err) = check_json(dir.path(), &["sage.csv"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    let f = file(&r, "sage.csv");
    assert_eq!(f["documents"]["invalid"], 1);
    let rows = result_rows(&dir.path().join("results/sage.result.csv"));
    let e = cell(&rows, 3, "result_errors");
    assert!(
        e.starts_with(
            "INV-MAP-SIGN NET_AMOUNT \"-100.00\": this line is negative and the document's other lines are positive"
        ) && e.contains("A discount belongs to the line it reduces")
            && !e.contains(" | "),
        "{e}"
    );
    assert_eq!(
        cell(&rows, 2, "result_errors"),
        "INV-DOCUMENT: the document has errors on another row (line 3)"
    );
    for line in [2, 3] {
        let w = cell(&rows, line, "result_warnings");
        assert!(!w.contains("INV-MAP-REFERENCE") && !w.contains("BR-KSA-17"), "{w}");
    }
    let docs = documents(&dir.path().join("results/sage.documents.csv"));
    assert_eq!(cell(&docs, 2, "kind"), "invoice");
    for col in ["net", "vat", "gross", "payable"] {
        assert_eq!(cell(&docs, 2, col), "", "{col}: no figure is claimed");
    }
}

/// The legacy Arabic ERP writes a credit note's quantity, VAT and total with VAT negative: every
/// one of them is read positive, the total with VAT (الإجمالي) too, and the note is valid.
#[test]
fn a_credit_note_with_negative_amounts_has_its_total_with_vat_read_positive() {
    let dir = tempfile::tempdir().unwrap();
    let text = "رقم الفاتورة;نوع المستند;التاريخ;الوقت;اسم العميل;الرقم الضريبي;الشارع;رقم المبنى;الحي;المدينة;الرمز البريدي;كود الصنف;اسم الصنف;الكمية;سعر الوحدة;نسبة الخصم;نوع الضريبة;قيمة الضريبة;الإجمالي;مرجع الفاتورة;سبب الإشعار;ملاحظات\r\n\
                إ-2026-010;إشعار دائن;18/11/2026;09:05;شركة الأفق التجارية;310122393500003;طريق الملك فهد;7421;العليا;الرياض;12211;ت-2;تمر مجدول (مرتجع);-10;85,5;;خاضع 15%;-128,25;-983,25;ف-2026-101;إرجاع بضاعة تالفة;\r\n";
    let (bytes, _, bad) = encoding_rs::WINDOWS_1256.encode(text);
    assert!(!bad);
    std::fs::write(dir.path().join("arabic.csv"), &bytes).unwrap();
    let (code, r, err) = check_json(dir.path(), &["arabic.csv"]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    let f = file(&r, "arabic.csv");
    assert_eq!(f["mapping"], "legacy-arabic");
    assert_eq!(f["documents"]["valid"], 1, "{f:#}");
    let docs = documents(&dir.path().join("results/arabic.documents.csv"));
    assert_eq!(cell(&docs, 2, "kind"), "credit_note");
    assert_eq!(
        (cell(&docs, 2, "net"), cell(&docs, 2, "vat"), cell(&docs, 2, "gross")),
        ("855.00", "128.25", "983.25")
    );
}
