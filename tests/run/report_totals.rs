//! What an accountant reads from `report` and from `run`'s summary, through the real binary
//! and the built-in sandbox: an invoice and a credit note of the same day count as the VAT
//! return does (the credit note subtracted), and a document in dollars counts in the VAT in SAR
//! of every currency.

use super::support::*;
use serde_json::Value;
use std::path::Path;

fn samples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// The Zoho samples in `dir`: `inv.csv`, its INV-000202 in dollars at 3.75 (net 415.00, VAT
/// 62.25, 233.44 riyals) and its INV-000204 (net 5,150.00, VAT 750.00) issued on 2026-11-18,
/// the day of `cn.csv`'s CN-00011 (net 470.00, VAT 25.50).
fn exports(dir: &Path) {
    let text = std::fs::read_to_string(samples().join("zoho_invoices.csv")).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let line = if line.starts_with("INV-000202,") {
            line.replacen(",SAR,1.00,", ",USD,3.75,", 1)
        } else if line.starts_with("INV-000204,") {
            line.replace("2026-11-17", "2026-11-18")
        } else {
            line.to_string()
        };
        out.push_str(&line);
        out.push('\n');
    }
    std::fs::write(dir.join("inv.csv"), out).unwrap();
    std::fs::copy(samples().join("zoho_credit_notes.csv"), dir.join("cn.csv")).unwrap();
}

fn decimal(v: &Value) -> rust_decimal::Decimal {
    v.as_str()
        .unwrap_or_else(|| panic!("not an amount: {v}"))
        .parse()
        .unwrap()
}

#[test]
fn report_and_summary_totals_subtract_credit_notes_and_add_the_vat_in_sar_of_every_currency() {
    let dir = tempfile::tempdir().unwrap();
    exports(dir.path());
    let o = run(
        dir.path(),
        &[],
        &["run", "inv.csv", "cn.csv", "--state", "st", "--results", "r"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let printed = text(&o);
    // The credit notes' summary: two accepted, netted to their negative.
    assert!(
        printed.contains("    accepted  2 documents  SAR net -485.00  VAT -27.75  gross -512.75\n"),
        "{printed}"
    );
    // The invoices' summary: the dollars counted in the VAT in SAR.
    assert!(
        printed.contains("all currencies VAT in SAR 1,109.44"),
        "126.00 + 233.44 + 750.00: {printed}"
    );
    let docs = results(&dir.path().join("r/inv.documents.csv"));
    let usd = docs.iter().find(|d| d["document"] == "INV-000202").unwrap();
    assert_eq!((usd["currency"].as_str(), usd["vat_sar"].as_str()), ("USD", "233.44"));

    let o = run(dir.path(), &[], &["report", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    for line in [
        // The invoice (5,150.00, VAT 750.00) less the credit note (470.00, VAT 25.50).
        "  2026-11-18 SAR input 2 docs net 4,680.00  VAT 724.50  gross 5,404.50  |  XML 2 docs net 4,680.00  \
         VAT 724.50  gross 5,404.50  ok\n",
        "  2026-11-12 USD input 1 doc net 415.00  VAT 62.25  gross 477.25  |  XML 1 doc net 415.00  VAT 62.25  \
         gross 477.25  ok\n",
        "  2026-11-12 all currencies VAT in SAR input 1 doc 233.44  |  XML 1 doc 233.44  ok\n",
        // 126.00 + 233.44 + 750.00 - 25.50 - 2.25.
        "  overall    all currencies VAT in SAR input 5 docs 1,081.69  |  XML 5 docs 1,081.69  ok\n",
        "  2026-11-18 accepted  2 documents  SAR net 4,680.00  VAT 724.50  gross 5,404.50\n",
        // As issued by kind.
        "  credit_note/simplified   accepted  2 documents  SAR net 485.00  VAT 27.75  gross 512.75\n",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    // A day of riyals only says no VAT in SAR of its own.
    assert!(!out.contains("2026-11-18 all currencies"), "{out}");

    let o = run(dir.path(), &[], &["--json", "report", "r"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let day = &v["by_day"]["2026-11-18"]["SAR"];
    // The documented meaning kept: as issued, the credit note positive.
    assert_eq!(decimal(&day["input"]["vat"]), "775.50".parse().unwrap());
    assert_eq!(decimal(&day["netted_input"]["vat"]), "724.50".parse().unwrap());
    assert_eq!(decimal(&day["netted_xml"]["vat"]), "724.50".parse().unwrap());
    assert_eq!(decimal(&v["vat_sar"]["input"]), "1081.69".parse().unwrap());
    assert_eq!(decimal(&v["vat_sar"]["xml"]), "1081.69".parse().unwrap());
    assert_eq!(
        decimal(&v["vat_sar_by_day"]["2026-11-12"]["input"]),
        "233.44".parse().unwrap()
    );
    let accepted = &v["summary"]["by_status"]["accepted"];
    assert_eq!(decimal(&accepted["netted"]["vat_sar"]), "1081.69".parse().unwrap());
    assert_eq!(
        decimal(&accepted["netted"]["amounts"]["SAR"]["vat"]),
        "848.25".parse().unwrap()
    );
    assert_eq!(decimal(&accepted["amounts"]["SAR"]["vat"]), "903.75".parse().unwrap());
    // X.summary.json says the same.
    let s: Value = serde_json::from_slice(&std::fs::read(dir.path().join("r/cn.summary.json")).unwrap()).unwrap();
    assert_eq!(decimal(&s["documents"]["netted"]["vat_sar"]), "-27.75".parse().unwrap());
    // One month: its figures are the overall ones, in --json, and no line of their own.
    assert_eq!(v["by_month"].as_object().unwrap().len(), 1, "{v:#}");
    assert_eq!(v["by_month"]["2026-11"], v["overall"]);
    assert_eq!(v["vat_sar_by_month"]["2026-11"], v["vat_sar"]);
    assert!(!out.contains(" month "), "{out}");

    // An invoice of October: each month's figures follow its last day, a monthly VAT return's.
    let zoho = std::fs::read_to_string(samples().join("zoho_invoices.csv")).unwrap();
    let mut oct: Vec<String> = zoho.lines().take(1).map(str::to_string).collect();
    oct.extend(zoho.lines().filter(|l| l.starts_with("INV-000204,")).map(|l| {
        l.replace("INV-000204,4600000204", "INV-000904,4600000904")
            .replace("2026-11-17", "2026-10-30")
    }));
    std::fs::write(dir.path().join("oct.csv"), oct.join("\n") + "\n").unwrap();
    let o = run(dir.path(), &[], &["run", "oct.csv", "--state", "st", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run(dir.path(), &[], &["report", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    for line in [
        "  2026-10-30 SAR input 1 doc net 5,150.00  VAT 750.00  gross 5,900.00  |  XML 1 doc net 5,150.00  VAT 750.00  \
         gross 5,900.00  ok\n  2026-10 month SAR input 1 doc net 5,150.00  VAT 750.00  gross 5,900.00  |  XML 1 doc \
         net 5,150.00  VAT 750.00  gross 5,900.00  ok\n  2026-10 month all currencies VAT in SAR input 1 doc 750.00  |  \
         XML 1 doc 750.00  ok\n",
        // November as before: 1,081.69.
        "  2026-11 month all currencies VAT in SAR input 5 docs 1,081.69  |  XML 5 docs 1,081.69  ok\n",
        "  overall    all currencies VAT in SAR input 6 docs 1,831.69  |  XML 6 docs 1,831.69  ok\n",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    let o = run(dir.path(), &[], &["--json", "report", "r"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        decimal(&v["vat_sar_by_month"]["2026-10"]["input"]),
        "750.00".parse().unwrap()
    );
    assert_eq!(
        decimal(&v["vat_sar_by_month"]["2026-11"]["input"]),
        "1081.69".parse().unwrap()
    );
    assert_eq!(v["by_month"]["2026-11"]["SAR"]["documents"], 4, "{v:#}");
}
