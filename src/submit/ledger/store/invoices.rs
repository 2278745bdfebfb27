//! What the ledger tells of an issued invoice, for a note that corrects it: its issue date and
//! its total with VAT, read from its stored body.

use super::*;

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
