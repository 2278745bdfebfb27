//! Tests of the credit notes the ledger finds accepted against an invoice.

use super::*;
use crate::model::CreditedNote;

const OTHER_SELLER: &str = "311111111100003";

/// A credit note's body: its seller, currency, total with VAT (as written) and billing reference.
fn note_body(seller: &str, currency: &str, total: &str, reference: &str) -> Vec<u8> {
    format!(
        r#"{{"doc_currency_code":"{currency}","supplier_info":{{"vat_number":"{seller}"}},"legal_monitory_total":{{"tax_inclusive_amount":{total}}},"billing_reference":"{reference}"}}"#
    )
    .into_bytes()
}

/// Register the credit note `number` for `onboard_id` and leave it in `state`.
async fn leave_note(ledger: &Ledger, onboard_id: &str, number: &str, body: &[u8], state: LedgerState) {
    let k = DocumentKey {
        onboard_id: onboard_id.into(),
        kind: DocumentKind::CreditNote,
        number: number.into(),
    };
    let idem = idempotency_key(&k);
    ledger.begin(vec![item_of(k, body, SELLER)]).await.unwrap();
    if state == LedgerState::Pending {
        return;
    }
    ledger.mark_sending(&idem, None).await.unwrap();
    if state != LedgerState::InFlight {
        ledger
            .record(&idem, state, None, None, None)
            .0
            .committed()
            .await
            .unwrap();
    }
}

fn credited(number: &str, amount: &str) -> CreditedNote {
    CreditedNote {
        number: number.into(),
        amount: amount.parse().unwrap(),
    }
}

#[tokio::test]
async fn the_credit_notes_accepted_against_an_invoice_are_found_exactly_but_for_the_note_itself() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    ledger.remember_device(&device("ours", SELLER)).unwrap();
    ledger.remember_device(&device("theirs", OTHER_SELLER)).unwrap();
    let dated = "Invoice Number: INV-1; Invoice Issue Date: 2026-07-14";
    let exact = "12345678901234.567891";
    let notes: [(&str, &str, Vec<u8>, LedgerState); 10] = [
        // Two notes against INV-1: one dated, one naming its number only (a string amount,
        // through another device of the same seller); a negative total counts as taken back.
        (
            "ours",
            "CN-1",
            note_body(SELLER, "SAR", exact, dated),
            LedgerState::Accepted,
        ),
        (
            "ours2",
            "CN-2",
            note_body(SELLER, "SAR", "\"-69.00\"", "Invoice Number: INV-1"),
            LedgerState::Accepted,
        ),
        // Another currency, another seller, not accepted (rejected, sent without an answer).
        (
            "ours",
            "CN-3",
            note_body(SELLER, "USD", "10.00", dated),
            LedgerState::Accepted,
        ),
        (
            "theirs",
            "CN-4",
            note_body(OTHER_SELLER, "SAR", "20.00", dated),
            LedgerState::Accepted,
        ),
        (
            "ours",
            "CN-5",
            note_body(SELLER, "SAR", "30.00", dated),
            LedgerState::Rejected,
        ),
        (
            "ours",
            "CN-6",
            note_body(SELLER, "SAR", "40.00", dated),
            LedgerState::InFlight,
        ),
        // Other invoices whose number starts as INV-1's.
        (
            "ours",
            "CN-7",
            note_body(
                SELLER,
                "SAR",
                "50.00",
                "Invoice Number: INV-10; Invoice Issue Date: 2026-07-14",
            ),
            LedgerState::Accepted,
        ),
        (
            "ours",
            "CN-8",
            note_body(SELLER, "SAR", "60.00", "Invoice Number: INV-1-B"),
            LedgerState::Accepted,
        ),
        // Not JSON, and a body without a billing reference.
        ("ours", "CN-9", b"not json".to_vec(), LedgerState::Accepted),
        (
            "ours",
            "CN-10",
            br#"{"doc_currency_code":"SAR","legal_monitory_total":{"tax_inclusive_amount":70}}"#.to_vec(),
            LedgerState::Accepted,
        ),
    ];
    for (device, number, body, state) in &notes {
        leave_note(&ledger, device, number, body, *state).await;
    }
    // The device of CN-2 is of the same seller.
    ledger.remember_device(&device("ours2", SELLER)).unwrap();
    // CN-1 accepted on the 15th, CN-2 on the 16th, the others on the 17th.
    let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
    conn.execute_batch(
        "UPDATE documents SET updated_at = CASE number WHEN 'CN-1' THEN '2026-07-15T10:00:00.000Z' \
         WHEN 'CN-2' THEN '2026-07-16T10:00:00.000Z' ELSE '2026-07-17T10:00:00.000Z' END",
    )
    .unwrap();

    let of = |seller: Option<&str>, currency: &str, except: &str| {
        let c = ledger.credited("INV-1", seller, currency, except).unwrap();
        (c.notes, c.issued)
    };
    let both = vec![credited("CN-1", exact), credited("CN-2", "69.00")];
    assert_eq!(of(Some(SELLER), "SAR", "CN-20"), (both, false));
    // The note being compared, accepted in an earlier run (sent again), is not counted against
    // itself, nor are the notes accepted after it.
    assert_eq!(of(Some(SELLER), "SAR", "CN-1"), (vec![], true));
    assert_eq!(of(Some(SELLER), "SAR", "CN-2"), (vec![credited("CN-1", exact)], true));
    assert_eq!(
        of(Some(SELLER), "USD", "CN-20"),
        (vec![credited("CN-3", "10.00")], false)
    );
    assert_eq!(
        of(Some(OTHER_SELLER), "SAR", "CN-20"),
        (vec![credited("CN-4", "20.00")], false)
    );
    // CN-1 is not another seller's note.
    assert_eq!(
        of(Some(OTHER_SELLER), "SAR", "CN-1"),
        (vec![credited("CN-4", "20.00")], false)
    );
    // Any seller when the seller is not known.
    assert_eq!(
        of(None, "SAR", "CN-20"),
        (
            vec![
                credited("CN-1", exact),
                credited("CN-2", "69.00"),
                credited("CN-4", "20.00")
            ],
            false
        )
    );
    let notes = |invoice: &str| ledger.credited(invoice, Some(SELLER), "SAR", "CN-20").unwrap().notes;
    assert_eq!(notes("INV-10"), vec![credited("CN-7", "50.00")]);
    assert_eq!(notes("INV-1-B"), vec![credited("CN-8", "60.00")]);
    assert_eq!(notes("INV-2"), vec![]);
}

#[test]
fn the_credit_notes_of_an_invoice_are_found_through_an_index_an_older_folder_gets() {
    let dir = tempfile::tempdir().unwrap();
    drop(Ledger::open(dir.path()).unwrap());
    let path = dir.path().join("ledger.sqlite");
    let indexed = || {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'documents_credited_invoice'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
    };
    assert_eq!(indexed(), 1);
    // A folder written before the index: opened, it gets it.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("DROP INDEX documents_credited_invoice;")
        .unwrap();
    assert_eq!(indexed(), 0);
    let ledger = Ledger::open(dir.path()).unwrap();
    assert_eq!(indexed(), 1);
    drop(ledger);

    // The query reads the index, never every document.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let sql = format!("EXPLAIN QUERY PLAN {}", store::invoices::credited_query());
    let mut stmt = conn.prepare(&sql).unwrap();
    let (from, to) = store::invoices::credited_range("INV-1");
    let plan: Vec<String> = stmt
        .query_map(
            rusqlite::params![from, to, "CN-1", SELLER, "2026-07-15T10:00:00.000Z"],
            |r| r.get::<_, String>(3),
        )
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        plan.iter()
            .any(|p| p.starts_with("SEARCH d USING INDEX documents_credited_invoice")),
        "{plan:?}"
    );
    assert!(!plan.iter().any(|p| p.starts_with("SCAN d")), "{plan:?}");
}
