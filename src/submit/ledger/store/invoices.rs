//! What the ledger tells of an issued invoice, for a note that corrects it: its issue date and
//! its total with VAT, read from its stored body, and the credit notes accepted against it.

use super::*;
use crate::model::CreditedNote;

/// The accepted invoice of `number` whose seller is `seller_vat` (as [`issued_elsewhere`] finds
/// the seller: the body's, else the device's), the one last answered when there are several:
/// `json_extract` of its stored body at `path`. `None` when there is none or the body does not
/// give it.
fn issued_invoice_field(
    tx: &Transaction<'_>,
    number: &str,
    seller_vat: Option<String>,
    paths: &str,
) -> rusqlite::Result<Option<(Option<String>, Option<String>)>> {
    tx.prepare_cached(&format!(
        "SELECT {paths} FROM documents d LEFT JOIN devices v ON v.onboard_id = d.onboard_id \
         WHERE d.number = ?1 AND d.kind = 'invoice' AND d.state = 'accepted' \
         AND (?2 IS NULL OR COALESCE(CASE WHEN json_valid(CAST(d.body AS TEXT)) \
              THEN json_extract(CAST(d.body AS TEXT), '$.supplier_info.vat_number') END, v.vat_number, ?2) = ?2) \
         ORDER BY d.updated_at DESC LIMIT 1"
    ))?
    .query_row(params![number, seller_vat], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()
}

/// The stored body's value at `path` as JSON text: a number as it was written (`json_extract`
/// would make it a floating-point number), a string in its quotes ([`unquoted`]).
fn body_at(path: &str) -> String {
    format!("CASE WHEN json_valid(CAST(d.body AS TEXT)) THEN CAST(d.body AS TEXT) -> '{path}' END")
}

/// A JSON value's text without the quotes of a string.
fn unquoted(json: &str) -> &str {
    json.strip_prefix('"').and_then(|j| j.strip_suffix('"')).unwrap_or(json)
}

/// The issue date of the invoice accepted under `number` (through any device of this state
/// folder) whose seller is `seller_vat`; `None` when there is none, or its stored body gives no
/// date.
pub(super) fn invoice_date(
    tx: &Transaction<'_>,
    number: &str,
    seller_vat: Option<String>,
) -> rusqlite::Result<Option<chrono::NaiveDate>> {
    let paths = format!("{}, NULL", body_at("$.issue_date"));
    let found = issued_invoice_field(tx, number, seller_vat, &paths)?;
    Ok(found
        .and_then(|(d, _)| d)
        .and_then(|d| chrono::NaiveDate::parse_from_str(unquoted(&d), "%Y-%m-%d").ok()))
}

/// The kind of the credit or debit note accepted under `number` (through any device of this
/// state folder) whose seller is `seller_vat`, when no invoice of that number of that seller is
/// accepted: a note naming that number names no invoice. `None` otherwise.
pub(super) fn note_kind(
    tx: &Transaction<'_>,
    number: &str,
    seller_vat: Option<String>,
) -> rusqlite::Result<Option<DocumentKind>> {
    if issued_invoice_field(tx, number, seller_vat.clone(), "NULL, NULL")?.is_some() {
        return Ok(None);
    }
    let kind: Option<String> = tx
        .prepare_cached(
            "SELECT d.kind FROM documents d LEFT JOIN devices v ON v.onboard_id = d.onboard_id \
             WHERE d.number = ?1 AND d.kind <> 'invoice' AND d.state = 'accepted' \
             AND (?2 IS NULL OR COALESCE(CASE WHEN json_valid(CAST(d.body AS TEXT)) \
                  THEN json_extract(CAST(d.body AS TEXT), '$.supplier_info.vat_number') END, v.vat_number, ?2) = ?2) \
             ORDER BY d.updated_at DESC LIMIT 1",
        )?
        .query_row(params![number, seller_vat], |r| r.get(0))
        .optional()?;
    Ok(kind.as_deref().and_then(kind_from))
}

/// The total with VAT (BT-112) and the currency of that invoice; `None` when there is none, or
/// its stored body does not give them.
pub(super) fn invoice_total(
    tx: &Transaction<'_>,
    number: &str,
    seller_vat: Option<String>,
) -> rusqlite::Result<Option<IssuedTotal>> {
    let paths = format!(
        "{}, {}",
        body_at("$.legal_monitory_total.tax_inclusive_amount"),
        body_at("$.doc_currency_code")
    );
    let found = issued_invoice_field(tx, number, seller_vat, &paths)?;
    Ok(found.and_then(|(amount, currency)| {
        Some(IssuedTotal {
            amount: unquoted(&amount?).parse().ok()?,
            currency: unquoted(&currency?).to_string(),
        })
    }))
}

/// A stored body's billing reference (`Invoice Number: INV-7; Invoice Issue Date: 2026-11-20`,
/// or `Invoice Number: INV-7`, as the build and the settling of notes write it, D10) followed by
/// `;`: the expression of the index the credit notes of an invoice are found by
/// ([`credited_index`]). The references naming one invoice, dated or not, all start with
/// `Invoice Number: INV-7;`: one range of the index. A query must write it exactly so (on an
/// unqualified `body`) for SQLite to use the index.
const REFERENCE: &str =
    "(CASE WHEN json_valid(CAST(body AS TEXT)) THEN (CAST(body AS TEXT) ->> '$.billing_reference') || ';' END)";

/// The index of the credit notes by their billing reference: the credit notes of one invoice are
/// found without reading the others' bodies. Partial (credit notes only), and made when a ledger
/// is opened, so that a state folder written before it gets it (once: SQLite reads every
/// credit note's body then).
pub(super) fn credited_index() -> String {
    format!("CREATE INDEX IF NOT EXISTS {CREDITED_INDEX} ON documents ({REFERENCE}) WHERE kind = 'credit_note';")
}

/// Its name.
const CREDITED_INDEX: &str = "documents_credited_invoice";

/// The query of [`credited`]: `?1`..`?2` the range of the references naming the invoice
/// (`Invoice Number: INV-7;` up to `Invoice Number: INV-7<`, `<` following `;`), `?3` the note
/// left out, `?4` the seller, `?5` when the note left out was accepted, if it was (only those
/// accepted before it are then counted). The index is named: however the tables have grown, the query never
/// reads every accepted document.
pub(in crate::submit::ledger) fn credited_query() -> String {
    format!(
        "SELECT d.number, {}, {} FROM documents d INDEXED BY {CREDITED_INDEX} \
         LEFT JOIN devices v ON v.onboard_id = d.onboard_id \
         WHERE d.kind = 'credit_note' AND {REFERENCE} >= ?1 AND {REFERENCE} < ?2 \
         AND d.state = 'accepted' AND d.number <> ?3 AND (?5 IS NULL OR d.updated_at < ?5) \
         {} ORDER BY d.number, d.updated_at DESC",
        body_at("$.legal_monitory_total.tax_inclusive_amount"),
        body_at("$.doc_currency_code"),
        SAME_SELLER.replace("?2", "?4"),
    )
}

/// A condition on `d` (`documents`, joined with its device as `v`): its seller is `?2`, when
/// given (the body's, else the device's, as [`issued_invoice_field`] finds it).
const SAME_SELLER: &str = "AND (?2 IS NULL OR COALESCE(CASE WHEN json_valid(CAST(d.body AS TEXT)) \
     THEN json_extract(CAST(d.body AS TEXT), '$.supplier_info.vat_number') END, v.vat_number, ?2) = ?2)";

/// The range of [`REFERENCE`] of the notes naming the invoice `number`: every text that starts
/// with `Invoice Number: <number>;`, and nothing else (`<` follows `;`).
pub(in crate::submit::ledger) fn credited_range(number: &str) -> (String, String) {
    let alone = crate::model::Document::number_only_reference(number);
    (format!("{alone};"), format!("{alone}<"))
}

/// The credit notes accepted (through any device of this state folder) against the invoice
/// `number` of the seller `seller_vat` (any seller when `None`, the seller found as for the
/// invoice), in `currency`, before the note `except` (the note being compared: never counted
/// against itself; when it was accepted already, only the notes accepted before it); one per
/// note number, with its total with VAT read exactly. A note whose billing reference names the invoice: `Invoice Number: <number>`, alone
/// or followed by `;` and its date (whatever date: a range of the index, never a scan).
pub(super) fn credited(
    tx: &Transaction<'_>,
    number: &str,
    seller_vat: Option<String>,
    currency: &str,
    except: &str,
) -> rusqlite::Result<CreditedBefore> {
    let (from, to) = credited_range(number);
    // When the note itself was accepted (a rerun): its earlier notes are those accepted before.
    let issued: Option<String> = tx
        .prepare_cached(&format!(
            "SELECT MIN(d.updated_at) FROM documents d LEFT JOIN devices v ON v.onboard_id = d.onboard_id \
             WHERE d.number = ?1 AND d.kind = 'credit_note' AND d.state = 'accepted' {SAME_SELLER}"
        ))?
        .query_row(params![except, seller_vat], |r| r.get(0))?;
    let mut stmt = tx.prepare_cached(&credited_query())?;
    let rows = stmt.query_map(params![from, to, except, seller_vat, issued], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, Option<String>>(2)?,
        ))
    })?;
    let mut notes: Vec<CreditedNote> = Vec::new();
    // A number accepted through several devices: its latest row.
    let mut last: Option<String> = None;
    for row in rows {
        let (note, amount, their_currency) = row?;
        if last.as_deref() == Some(note.as_str()) {
            continue;
        }
        last = Some(note.clone());
        if their_currency.as_deref().map(unquoted) != Some(currency) {
            continue;
        }
        let Some(amount) = amount.and_then(|a| unquoted(&a).parse::<rust_decimal::Decimal>().ok()) else {
            continue;
        };
        notes.push(CreditedNote {
            number: note,
            amount: amount.abs(),
        });
    }
    Ok(CreditedBefore {
        notes,
        issued: issued.is_some(),
    })
}
