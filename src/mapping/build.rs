//! A document's rows into a [`Document`]: document fields from its first line row whose cells
//! are in place, one line per row, the kind and type rules, tax-inclusive prices, credit notes
//! from negative amounts, the export's own totals ([`ErpFigures`]) and the [`Provenance`] of every
//! field.

use super::Issue;
use super::apply::{Bound, Sourced, Value};
use super::fields::{FIELDS, FieldId, fid};
use super::group::DocDraft;
use super::load::TypeRule;
use crate::compute::{net_from_inclusive_total, net_price_for_line, round_to, round2};
use crate::ingest::Row;
use crate::model::{
    AllowanceCharges, Code, Document, DocumentKind, InvoiceType, Item, LegalMonetaryTotal, Line, LineAllowanceCharge,
    LineTaxTotal, Party, Price, PriceAllowanceCharge, TaxTotal,
};
use crate::text::Trimmed;
use crate::validate::ErpFigures;
use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;
use std::sync::Arc;

mod buyer_lookup;
pub(crate) mod currency_mark;
mod customer;
mod discount;
mod kind;
mod provenance;
mod raw_line;
mod reference;
pub use buyer_lookup::TABLE_MISSING_CODE;
use buyer_lookup::buyer_miss_issue;
pub(crate) use buyer_lookup::{decides_type, header_line};
pub use discount::DISCOUNT_CODE;
use provenance::Prefix;
pub use provenance::{Provenance, field_of};
use raw_line::RawLine;
pub use reference::{NamedNote, NoteAt, NoteReference, OriginalDates, REFERENCE_CODE};

/// A document built from its rows.
#[derive(Debug, Clone)]
pub struct Built<'a> {
    /// The document, totals not yet computed; `None` when the rows cannot make one.
    pub document: Option<Document>,
    /// Problems, with the index of the row they concern (`None`: the whole document).
    pub issues: Vec<(Option<usize>, Issue)>,
    /// Where each field came from.
    pub provenance: Provenance<'a>,
    /// The export's own totals.
    pub erp: ErpFigures,
    /// The files read with the export whose last row the document is built from (or, for a
    /// lookup table, whose key it does not find): held back if they changed since opened.
    pub side: Vec<crate::mapping::SideUse>,
    /// A value of a line could not be read (a price `abc`), or a line row made no line (no VAT
    /// category): the amounts computed are not the document's.
    pub amounts_unread: bool,
    /// The document's kind could not be read: its kind cell cannot be read (a value the mapping
    /// does not map), or a line's amount that would make it a credit note (a negative amount,
    /// `credit_note_when_negative`) cannot. Its kind, invoice by default, is a guess.
    pub kind_unread: bool,
    /// For a note naming its invoice: what its own rows give of its billing reference.
    pub note: Option<NoteReference>,
}

/// Provenance entries a line makes at most: its own, and one per line field read.
const LINE_ENTRIES: usize = 16;

struct Ctx<'a> {
    bound: &'a Bound,
    issues: Vec<(Option<usize>, Issue)>,
    prov: Provenance<'a>,
}

impl Ctx<'_> {
    /// A document field of the first row, recording its provenance.
    fn get(&mut self, f: FieldId, row: &Row, header: Option<&Row>, idx: usize) -> Option<Value> {
        if !self.bound.maps(f) {
            return None;
        }
        match self.bound.field(f, row, header) {
            Ok(Some(Sourced { value, label, warning })) => {
                self.prov.add(Prefix::Document(f), idx, label);
                if let Some(w) = warning {
                    self.issues.push((Some(idx), *w));
                }
                Some(value)
            }
            // Blank, or not readable (an issue naming the cell): what the rules say of the
            // missing value is located on the same cell.
            missing => {
                if let Err(e) = missing {
                    self.issues.push((Some(idx), *e));
                }
                if let Some(label) = self.bound.source_label(f) {
                    self.prov.add(Prefix::Document(f), idx, Some(label));
                }
                None
            }
        }
    }
}

fn text(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::Text(t)) => match t.trimmed() {
            "" => None,
            trimmed if trimmed.len() == t.len() => Some(t),
            trimmed => Some(trimmed.to_string()),
        },
        _ => None,
    }
}

fn dec(v: Option<Value>) -> Option<Decimal> {
    match v {
        Some(Value::Decimal(d)) => Some(d),
        _ => None,
    }
}

fn date(v: Option<Value>) -> Option<NaiveDate> {
    match v {
        Some(Value::Date(d)) => Some(d),
        _ => None,
    }
}

/// Build one document from its rows.
pub fn build<'a>(draft: &DocDraft, bound: &'a Bound, seller: &Arc<Party>) -> Built<'a> {
    build_with(draft, bound, seller, None)
}

/// [`build`], a note whose corrected invoice's date neither its rows nor its file give looking
/// it up in `originals` (`run`, `watch`: the invoices issued before).
pub fn build_with<'a>(
    draft: &DocDraft,
    bound: &'a Bound,
    seller: &Arc<Party>,
    originals: Option<&dyn OriginalDates>,
) -> Built<'a> {
    let lines_rows: Vec<(usize, &Row)> = draft
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_line())
        .filter_map(|(i, r)| r.row.as_ref().map(|row| (i, row)))
        .collect();
    // Room for every field's provenance at once: the document's fields, then a line entry and
    // its fields per line (grown step by step, this was ten reallocations a document).
    let mut cx = Ctx {
        bound,
        issues: Vec::new(),
        prov: Provenance::with_capacity(FIELDS.len() + lines_rows.len() * LINE_ENTRIES),
    };
    for (i, r) in draft.rows.iter().enumerate() {
        for issue in &r.issues {
            cx.issues.push((Some(i), issue.clone()));
        }
    }
    // No line row, or the document's header row is not in the header file (`INV-MAP-JOIN` on
    // its rows: its date, buyer and currency come from that row, and a finding for each would
    // only repeat it): no document, its rows' findings alone. The document's fields are read
    // from its first line row whose cells are in place ([`DocDraft::reference`]).
    let Some((first_idx, first)) = draft.reference().filter(|(_, first)| bound.header_row(first).is_ok()) else {
        return Built {
            document: None,
            issues: cx.issues,
            provenance: cx.prov,
            erp: ErpFigures::default(),
            side: Vec::new(),
            amounts_unread: true,
            kind_unread: true,
            note: None,
        };
    };
    super::agree::check(bound, &lines_rows, first_idx, &mut cx.issues);
    let header = |row: &Row| bound.header_row(row).ok().flatten();
    let h0 = header(first);
    let side = bound.side_rows(first, h0, first_idx);
    let mut docv: Vec<Option<Value>> = Vec::with_capacity(FIELDS.len());
    for (f, def) in FIELDS.iter().enumerate() {
        docv.push(if def.line {
            None
        } else {
            cx.get(f, first, h0, first_idx)
        });
    }
    let mut take = |f: FieldId| docv.get_mut(f).and_then(Option::take);

    // Lines.
    let mut raw: Vec<RawLine> = lines_rows
        .iter()
        .enumerate()
        .map(|(n, &(idx, row))| RawLine::read(&mut cx, n, idx, row, header(row)))
        .collect();

    // Kind, and notes from negative amounts.
    let number = text(take(fid!("number"))).unwrap_or_else(|| draft.key.clone());
    let kind_value = take(fid!("kind"));
    // A kind cell that cannot be read has its error on the first row, in its column.
    let kind_cell_unread = !matches!(kind_value, Some(Value::Kind(_)))
        && bound.source_label(fid!("kind")).is_some_and(|label| {
            cx.issues
                .iter()
                .any(|(at, i)| *at == Some(first_idx) && i.is_error() && i.column.as_deref() == Some(label))
        });
    let mut kind = match kind_value {
        Some(Value::Kind(k)) => k,
        _ => DocumentKind::Invoice,
    };
    let debit_flag = match take(fid!("debit_note")) {
        Some(Value::Bool(b)) => Some(b),
        _ => None,
    };
    kind = kind::with_debit_flag(&mut cx.issues, bound, kind, debit_flag, (first_idx, first));
    let sign = |l: &RawLine| {
        l.amount
            .or_else(|| l.unit_price.and_then(|p| p.checked_mul(l.quantity)))
            .unwrap_or(Decimal::ZERO)
    };
    let negatives = raw.iter().filter(|l| sign(l) < Decimal::ZERO).count();
    let positives = raw.iter().filter(|l| sign(l) > Decimal::ZERO).count();
    let mut erp_total = dec(take(fid!("erp.total")));
    let mut erp_tax = dec(take(fid!("erp.tax_total")));
    let mut erp_excl = dec(take(fid!("erp.tax_exclusive")));
    // Positive and negative lines (a discount or return line in an invoice): neither an invoice
    // nor a credit note, and its amounts are none of the computed ones.
    let mixed_signs = negatives > 0 && positives > 0;
    let turned = negatives > 0 && (kind.is_note() || bound.mapping.credit_note_when_negative);
    // An invoice by its signs, a line's amount unread: it may be a credit note.
    let sign_unread = !turned
        && kind == DocumentKind::Invoice
        && bound.mapping.credit_note_when_negative
        && raw.iter().any(|l| l.unreadable);
    let kind_unread = kind_cell_unread || sign_unread;
    if turned {
        if mixed_signs {
            raw_line::mixed_signs_issue(&mut cx, &raw, sign);
        } else if kind == DocumentKind::Invoice {
            kind = DocumentKind::CreditNote;
        }
        for l in &mut raw {
            for v in [
                &mut l.unit_price,
                &mut l.amount,
                &mut l.tax_amount,
                &mut l.gross_amount,
                &mut l.discount_amount,
            ] {
                *v = v.map(|d| d.abs());
            }
            l.quantity = l.quantity.abs();
        }
        for v in [&mut erp_total, &mut erp_tax, &mut erp_excl] {
            *v = v.map(|d| d.abs());
        }
    }

    let inclusive = matches!(take(fid!("prices_include_tax")), Some(Value::Bool(true)));
    let currency = text(take(fid!("currency"))).map_or(Code::const_new("SAR"), Code::from);
    let mut erp = ErpFigures {
        tax_exclusive: erp_excl,
        tax_total: erp_tax,
        tax_inclusive: erp_total,
        ..Default::default()
    };
    let any_unreadable = raw.iter().any(|l| l.unreadable);
    let line_rows = raw.len();
    let mut lines = Vec::with_capacity(raw.len());
    for (n, mut l) in raw.into_iter().enumerate() {
        // `fields`: the first of them the mapping reads from names the cell to fill in.
        let row_err = |issues: &mut Vec<(Option<usize>, Issue)>, code: &str, fields: &[FieldId], msg: String| {
            let column = fields.iter().find_map(|&f| bound.source_label(f)).map(str::to_string);
            issues.push((Some(l.idx), Issue::error(code, column, None, msg)));
        };
        let Some(tax) = l.tax.take() else {
            if !l.tax_unreadable
                && let Some(&(_, row)) = lines_rows.get(n)
            {
                cx.issues.push((Some(l.idx), l.missing_tax(bound, row, header(row))));
            }
            continue;
        };
        let name = l.name.take().unwrap_or_default();
        if name.is_empty() {
            row_err(
                &mut cx.issues,
                "INV-MAP-MISSING",
                &[fid!("line.item_name")],
                "no item name or description in this line".into(),
            );
        }
        let hundred = Decimal::ONE_HUNDRED;
        let mut price_ac = None;
        let mut line_acs = Vec::new();
        let mut erp_net = None;
        let mut erp_gross = l.gross_amount;
        let mut inclusive_amount = None;
        let price = if inclusive {
            erp_gross = l.amount.or(l.gross_amount);
            let disc_factor = l
                .discount_percent
                .and_then(|d| hundred.checked_sub(d)?.checked_div(hundred))
                .unwrap_or(Decimal::ONE);
            let incl_total = match (l.amount, l.unit_price) {
                (Some(a), _) => Some(a),
                (None, Some(p)) => p
                    .checked_mul(l.quantity)
                    .and_then(|v| v.checked_mul(disc_factor))
                    .map(round2)
                    .and_then(|v| v.checked_sub(l.discount_amount.unwrap_or_default())),
                (None, None) => None,
            };
            inclusive_amount = incl_total;
            incl_total.and_then(|t| net_from_inclusive_total(l.quantity, t, tax.percent).map(|np| np.unit_price))
        } else {
            erp_net = l.amount;
            match l.unit_price {
                Some(p) => match l.discount_percent.filter(|d| !d.is_zero()) {
                    Some(d) => {
                        // To 6 decimals, as the API takes a unit price (D12); the discount is
                        // what remains, so price and discount still add up to the price read.
                        let net = hundred
                            .checked_sub(d)
                            .and_then(|f| p.checked_mul(f))
                            .and_then(|v| v.checked_div(hundred))
                            .map(|v| round_to(v, 6));
                        let off = net.and_then(|n| p.checked_sub(n));
                        match (net, off) {
                            (Some(net), Some(off)) => {
                                price_ac = Some(PriceAllowanceCharge {
                                    charge_indicator: false,
                                    reason: format!("discount {}%", d.normalize()),
                                    amount: off.normalize(),
                                    base_amount: p,
                                    currency: currency.clone(),
                                });
                                Some(net.normalize())
                            }
                            _ => None,
                        }
                    }
                    None => Some(p),
                },
                None => l
                    .amount
                    .and_then(|a| a.checked_add(l.discount_amount.unwrap_or_default()))
                    .and_then(|a| net_price_for_line(l.quantity, a).map(|np| np.unit_price)),
            }
        };
        if let (false, Some(a)) = (inclusive, l.discount_amount.filter(|a| !a.is_zero())) {
            line_acs.push(LineAllowanceCharge {
                charge_indicator: false,
                reason: "discount".into(),
                reason_code: Some("95".into()),
                amount: a,
            });
        }
        let Some(price) = price else {
            let (fields, msg): (&[FieldId], &str) = if l.unit_price.is_some() || l.amount.is_some() {
                (
                    &[],
                    "the price, quantity or discount of this line is too large to compute exactly",
                )
            } else {
                (
                    &[fid!("line.unit_price"), fid!("line.amount")],
                    "no unit price (and no line amount to derive it from) in this line",
                )
            };
            row_err(&mut cx.issues, "INV-MAP-MISSING", fields, msg.into());
            continue;
        };
        // A line with a value unread (a quantity "abc" read as the default 1) is not computed
        // from the export's values: its own figures are not compared (that would only repeat
        // the error). Another line's are.
        let own = |v: Option<Decimal>| v.filter(|_| !l.unreadable);
        erp.line_net.push(own(erp_net));
        erp.line_vat.push(own(l.tax_amount));
        erp.line_gross.push(own(erp_gross));
        lines.push(Line {
            id: l.id.take().unwrap_or_else(|| (n + 1).to_string()),
            unit_code: l.unit_code.clone(),
            quantity: l.quantity,
            amount: Decimal::ZERO,
            tax_total: LineTaxTotal {
                currency: currency.clone(),
                ..Default::default()
            },
            item: Item {
                name,
                classified_tax_category: tax,
            },
            price: Price {
                currency: currency.clone(),
                price_per_unit: price,
                base_unit_code: l.unit_code,
                base_quantity: None,
                allowance_charge: price_ac,
            },
            allowance_charges: line_acs,
            inclusive_amount,
        });
    }
    // With a value of a line unread, or a line row that makes no line (its tax or price
    // missing), the computed document amounts are not the export's, and comparing them would
    // only repeat that error, on another row.
    let dropped = lines.len() < line_rows;
    if any_unreadable || dropped {
        (erp.tax_exclusive, erp.tax_total, erp.tax_inclusive) = (None, None, None);
    }

    // Parties. A buyer missing from the lookup table is worth a word: it loses its VAT number
    // (said below, once the document's type is known).
    let buyer_miss = [fid!("buyer.vat_number"), fid!("buyer.name")]
        .into_iter()
        .find_map(|f| Some((f, bound.lookup_miss(f, first, h0)?)));
    let customer = customer::customer(&mut take);
    let buyer_vat = customer.vat_number.clone();
    let mut by_vat_number = false;
    let invoice_type = match take(fid!("invoice_type")) {
        Some(Value::Type(t)) => t,
        _ => match bound.mapping.type_rule {
            TypeRule::Standard => InvoiceType::Standard,
            TypeRule::Simplified => InvoiceType::Simplified,
            TypeRule::Auto if buyer_vat.is_some() => InvoiceType::Standard,
            TypeRule::Auto => {
                by_vat_number = true;
                InvoiceType::Simplified
            }
        },
    };
    if let Some((f, miss)) = buyer_miss {
        cx.issues
            .push((Some(first_idx), buyer_miss_issue(bound, f, miss, by_vat_number)));
    }
    // A key its lookup table gives on records that differ: said, not resolved by the first.
    if bound.has_lookup_duplicates() {
        for issue in bound.lookup_duplicates(first, h0, false) {
            cx.issues.push((Some(first_idx), issue));
        }
        for &(idx, row) in &lines_rows {
            for issue in bound.lookup_duplicates(row, header(row), true) {
                cx.issues.push((Some(idx), issue));
            }
        }
    }

    // Dates.
    let issue_date = date(take(fid!("issue_date")));
    let Some(issue_date) = issue_date else {
        // Unless its cell already has an error (a date that cannot be read), the blank date is
        // said on the first row, whatever else is wrong with the document.
        let column = bound.source_label(fid!("issue_date"));
        let said = column.is_some()
            && cx
                .issues
                .iter()
                .any(|(at, i)| *at == Some(first_idx) && i.is_error() && i.column.as_deref() == column);
        if !said {
            cx.issues.push((
                Some(first_idx),
                Issue::error(
                    "INV-MAP-MISSING",
                    column.map(str::to_string),
                    None,
                    if lines_rows.first().is_some_and(|(i, _)| *i == first_idx) {
                        "no issue date in the document's first row"
                    } else {
                        "no issue date in the document's first row whose cells are in place (the rows above it may \
                         have theirs shifted)"
                    },
                ),
            ));
        }
        return Built {
            document: None,
            issues: cx.issues,
            provenance: cx.prov,
            erp,
            side,
            amounts_unread: true,
            kind_unread: true,
            note: None,
        };
    };
    // No time of its own: the time the issue date's cell gives after the date (an ERP that
    // exports a date-time), else midnight.
    let issue_time = match take(fid!("issue_time")) {
        Some(Value::Time(t)) => t,
        _ => bound
            .time_after_date(fid!("issue_date"), first, h0)
            .unwrap_or(NaiveTime::MIN),
    };
    let delivery = match date(take(fid!("delivery_date"))) {
        Some(d) => d,
        None => {
            // The issue date's: what is wrong with it is said once, on the issue date's cell.
            if let Some(label) = bound.source_label(fid!("issue_date")) {
                cx.prov
                    .add(Prefix::Document(fid!("delivery_date")), first_idx, Some(label));
            }
            issue_date
        }
    };

    // Notes: the corrected invoice and the reason.
    let note_reason = text(take(fid!("note_reason")));
    let payment_note = text(take(fid!("payment_note")));
    let original = text(take(fid!("original_number")));
    let own_date = date(take(fid!("original_date")));
    let (billing_reference, note) = reference::billing_reference(
        &mut cx.issues,
        bound,
        (kind, &number),
        original.as_deref(),
        (own_date, draft.original_date, draft.original_note.as_deref()),
        (first_idx, first, h0),
        (originals, seller.vat_number.as_deref()),
    );
    let exchange_rate = dec(take(fid!("exchange_rate")));
    // A discount on the whole document: allowances per VAT category of the lines.
    let wanted = discount::DocDiscount {
        percent: dec(take(fid!("discount_percent"))),
        amount: dec(take(fid!("discount_amount"))),
        before_tax: match take(fid!("discount_before_tax")) {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        },
    };
    let made = discount::allowances(
        &mut cx.issues,
        bound,
        wanted,
        &lines,
        (inclusive, turned),
        &currency,
        (first_idx, first),
    );
    let (allowance_charge, refused) = match made {
        discount::Made::None => (AllowanceCharges::default(), false),
        discount::Made::Allowances(all) => (AllowanceCharges(all), false),
        // Not issued: the totals computed without it are not the export's, and comparing them
        // would only repeat the error.
        discount::Made::Refused => {
            (erp.tax_exclusive, erp.tax_total, erp.tax_inclusive) = (None, None, None);
            (AllowanceCharges::default(), true)
        }
    };
    // A discount on the whole document is spread over the lines of its category in comparing
    // a line's VAT: with a line unread, no line's share is the export's.
    if (any_unreadable || dropped) && allowance_charge.0.iter().any(|ac| !ac.charge_indicator) {
        erp = ErpFigures::default();
    }
    erp.document_discount = bound.maps(fid!("discount_amount")) || bound.maps(fid!("discount_percent"));
    let amounts_unread = any_unreadable || dropped || (mixed_signs && turned) || refused;
    currency_mark::settle(&mut cx.issues, &currency);
    let document = Document {
        kind,
        number,
        invoice_type,
        issue_date,
        actual_delivery_date: delivery,
        issue_time,
        note: text(take(fid!("note"))),
        doc_currency_code: currency.clone(),
        tax_currency_code: "SAR".into(),
        customer_info: customer,
        supplier_info: seller.clone(),
        payment_means: Some(text(take(fid!("payment_means"))).unwrap_or_else(|| "1".into())),
        payment_means_instruction_note: if kind.is_note() { note_reason } else { payment_note },
        allowance_charge,
        tax_total: TaxTotal {
            currency,
            tax_amount: Decimal::ZERO,
            tax_subtotal: None,
            tax_subtotals: None,
            tax_amount_in_tax_currency: None,
        },
        legal_monitory_total: LegalMonetaryTotal::default(),
        invoice_lines: lines,
        billing_reference,
        tax_exchange_rate: exchange_rate,
        exported_reference: note.as_ref().map(NoteReference::as_exported),
    };
    Built {
        document: Some(document),
        issues: cx.issues,
        provenance: cx.prov,
        erp,
        side,
        amounts_unread,
        kind_unread,
        note,
    }
}
