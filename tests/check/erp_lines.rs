//! A line's own figures against the export's (`INV-ERP-LINE-*`) are said in the same run as
//! another line's mistake: the clerk fixes both in one round. The document's figures that
//! mistake throws off (its totals) are not compared, nor the figures of the line that has it.

use super::findings::{cell, edited};
use super::{NOW, result_rows, run, samples};

/// Xero INV-0105 (lines 9-12): line 11 (Donation, 1 × 100.00) says its net is 150.00, and
/// line 12 has a mistake of its own; each is said on its line.
#[test]
fn a_lines_wrong_net_is_said_beside_another_lines_mistake() {
    let mistakes = [
        ("Quantity", "-40", "BR-KSA-F-04 Quantity \"-40\""),
        ("TaxType", "12%", "BR-KSA-84 TaxType \"12%\""),
        ("Quantity", "abc", "INV-MAP-VALUE Quantity \"abc\""),
        ("Quantity", "0", "INV-ZERO-QUANTITY Quantity \"0\""),
    ];
    for (column, value, said) in mistakes {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
        edited(
            dir.path(),
            "xero_sales_invoices.csv",
            "x.csv",
            &[(11, "LineAmount", "150.00"), (12, column, value)],
        );
        let out = run(dir.path(), &["check", "--now", NOW, "x.csv", "--results", "r"]);
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let rows = result_rows(&dir.path().join("r/x.result.csv"));
        let eleven = cell(&rows, 11, "result_errors");
        assert!(
            eleven.starts_with("INV-ERP-LINE-NET LineAmount \"150.00\": ") && eleven.contains("computes to 100.00"),
            "{value}: {eleven}"
        );
        let twelve = cell(&rows, 12, "result_errors");
        assert!(twelve.starts_with(said), "{value}: {twelve}");
        assert!(!twelve.contains("INV-ERP-"), "{value}: {twelve}");
        for line in [9, 10] {
            assert_eq!(
                cell(&rows, line, "result_errors"),
                "INV-DOCUMENT: the document has errors on other rows (lines 11, 12)",
                "{value}"
            );
        }
        // The document's totals, which line 12's mistake throws off, are not compared.
        for line in 9..=12 {
            let all = cell(&rows, line, "result_errors") + &cell(&rows, line, "result_warnings");
            for code in ["INV-ERP-TOTAL", "INV-ERP-TAX-TOTAL", "INV-ERP-TAX-EXCLUSIVE"] {
                assert!(!all.contains(code), "{value}: line {line}: {all}");
            }
        }
    }
}
