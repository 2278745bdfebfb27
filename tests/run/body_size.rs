//! An invoice of more lines than one request to the API can carry (1 MiB): `check` and `run` find
//! it before it is sent (`INV-DOCUMENT-TOO-LARGE` on its first row, how many lines fit and what to
//! do; its other rows `INV-DOCUMENT`), instead of a `BODY-TOO-LARGE` from the API on every row;
//! split as it says, its parts are issued.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

const HEADER: &str = "INVOICE_NUMBER,ACCOUNT_REF,INVOICE_DATE,STOCK_CODE,DESCRIPTION,NOMINAL_CODE,DEPT_NUMBER,TAX_CODE,\
                      QTY_ORDER,UNIT_PRICE,NET_AMOUNT,TAX_AMOUNT\r\n";

/// A Sage 50 export of one invoice per (number, lines).
fn sage_export(path: &Path, docs: &[(&str, usize)]) {
    let mut s = String::from(HEADER);
    for (number, lines) in docs {
        for i in 0..*lines {
            s.push_str(&format!(
                "{number},OFUQ001,25/11/2026,X{i},Item description number {i},4000,1,T1,2,10.00,20.00,3.00\r\n"
            ));
        }
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn an_invoice_too_large_for_one_request_is_invalid_in_check_and_run_and_its_advice_fits() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for f in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples.join(f), d.join(f)).unwrap();
    }
    sage_export(&d.join("big.csv"), &[("SI-4000", 4000), ("SI-2000", 2000)]);

    let said_on_first_row = |out: &str| {
        let rows = results(&d.join("results/big.result.csv"));
        let first = &rows[0];
        assert_eq!(first["result_status"], "invalid", "{out}");
        let e = &first["result_errors"];
        assert!(
            e.starts_with(
                "INV-DOCUMENT-TOO-LARGE INVOICE_NUMBER \"SI-4000\": The document has 4,000 lines: the request that \
                 sends it would be "
            ) && e.contains(
                "bytes, more than the API accepts (1,048,576 bytes, 1 MiB), so it cannot be issued as one \
                 document. Split it into several documents in the ERP, of at most "
            ),
            "{e}"
        );
        assert_eq!(
            rows[1]["result_errors"],
            "INV-DOCUMENT: the document has errors on another row (line 2)"
        );
        assert_eq!(
            rows.iter().filter(|r| r["result_errors"].contains("TOO-LARGE")).count(),
            1
        );
        assert!(rows[4000..].iter().all(|r| r["result_errors"].is_empty()), "{out}");
        e.split("at most ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse::<usize>()
            .unwrap()
    };

    let o = run(d, &env, &["check", "big.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("2 documents: 1 valid, 1 invalid"), "{out}");
    let fit = said_on_first_row(&out);
    assert!((2000..4000).contains(&fit), "{fit}");

    let o = run(d, &env, &["run", "big.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("1 accepted, 0 rejected, 0 failed, 1 invalid"), "{out}");
    assert!(!out.contains("BODY-TOO-LARGE"), "{out}");
    assert_eq!(said_on_first_row(&out), fit);
    let issued = server.issued(&onboard_id(&d.join(".invoicedrop")));
    assert_eq!(issued, ["SI-2000"], "{out}");

    // Split as it says: each part is issued.
    sage_export(&d.join("split.csv"), &[("SI-4000-1", fit), ("SI-4000-2", 4000 - fit)]);
    let o = run(d, &env, &["run", "split.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("2 accepted, 0 rejected"), "{out}");
}
