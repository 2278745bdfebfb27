//! A generated document as the rows of each layout, cell by cell, the way those systems write
//! them: their date formats, number styles, tax names, status words and continuation rows.

use super::layouts::Layout;
use super::model::{Customer, GenDoc, GenLine, Kind, State, Tax};
use super::sink::{NumFmt, Val};
use super::zoho_discount::EntityDiscount;
use chrono::{Days, NaiveDate};
use rust_decimal::Decimal;

fn due(d: NaiveDate) -> NaiveDate {
    d.checked_add_days(Days::new(30)).unwrap_or(d)
}

fn text(s: impl Into<String>) -> Val {
    Val::Text(s.into())
}

fn opt(s: &'static str) -> Val {
    if s.is_empty() { Val::Empty } else { Val::Str(s) }
}

fn money(d: Decimal) -> Val {
    Val::Num(d, NumFmt::Fixed2)
}

fn qty(d: Decimal) -> Val {
    Val::Num(d, NumFmt::Plain)
}

/// The sign of a credit note's amounts where the layout writes them negative.
fn signed(doc: &GenDoc, d: Decimal) -> Decimal {
    if doc.kind == Kind::CreditNote { -d } else { d }
}

fn country_name(c: &Customer) -> &'static str {
    if c.country == "SA" { "Saudi Arabia" } else { "" }
}

/// The credit-note reason written to `credit_notes.csv` and Zoho's credit note export.
pub(crate) const CREDIT_REASON: &str = "Damaged goods returned | إرجاع بضاعة تالفة";

/// The debit-note reason written to `credit_notes.csv`.
pub(crate) const DEBIT_REASON: &str = "Price increase agreed after invoicing | زيادة السعر المتفق عليها بعد الفاتورة";

/// A note's reason: English and Arabic, or (`arabic`) Arabic only, as the legacy export has it.
fn reason(kind: Kind, arabic: bool) -> &'static str {
    let both = if kind == Kind::DebitNote {
        DEBIT_REASON
    } else {
        CREDIT_REASON
    };
    if arabic {
        both.split_once(" | ").map_or(both, |(_, ar)| ar)
    } else {
        both
    }
}

/// The rows of one document, one per line.
pub(crate) fn rows(layout: Layout, doc: &GenDoc) -> Vec<Vec<Val>> {
    let entity = match layout {
        Layout::ZohoBooks => super::zoho_discount::entity_discount(doc),
        _ => None,
    };
    doc.lines
        .iter()
        .enumerate()
        .map(|(i, l)| match layout {
            Layout::Xero => xero(doc, l),
            Layout::QuickBooksOnline => quickbooks(doc, l),
            Layout::ZohoBooks => zoho(doc, (i, l), entity.as_ref()),
            Layout::ZohoBooksCreditNotes => zoho_credit_note(doc, l),
            Layout::Odoo => odoo(doc, i, l),
            Layout::ErpNext => erpnext(doc, i, l),
            Layout::SapB1Dtw => sap_line(doc, i, l),
            Layout::Sage50 => sage(doc, l),
            Layout::Tally => tally(doc, l),
            Layout::LegacyArabic => legacy(doc, l),
        })
        .collect()
}

fn xero(doc: &GenDoc, l: &GenLine) -> Vec<Val> {
    let c = doc.customer;
    let tax = match l.tax {
        Tax::S15 => "15% Output VAT",
        Tax::S5 => "5% Output VAT",
        Tax::Z if doc.seq.is_multiple_of(2) => "Zero Rated Medicines",
        Tax::Z => "Zero Rated Exports",
        Tax::E => "Exempt Sales",
        Tax::O => "No VAT",
    };
    let (status, paid) = match doc.state {
        State::Draft => ("Draft", Decimal::ZERO),
        State::Voided => ("Voided", Decimal::ZERO),
        State::Issued if doc.seq.is_multiple_of(3) => ("Awaiting Payment", Decimal::ZERO),
        State::Issued => ("Paid", doc.total),
    };
    let reference = match &doc.original {
        Some((n, _)) => text(n.clone()),
        None if doc.seq.is_multiple_of(4) => text(format!("PO-{}", 7000 + doc.seq)),
        None => Val::Empty,
    };
    let discount = if l.discount_percent.is_zero() {
        Val::Empty
    } else {
        qty(l.discount_percent)
    };
    let mut row = vec![Val::Str(c.name), Val::Empty, opt(c.street)];
    row.extend([
        Val::Empty,
        Val::Empty,
        Val::Empty,
        opt(c.city),
        Val::Empty,
        opt(c.postal_zone),
    ]);
    row.push(opt(country_name(c)));
    row.extend((0..8).map(|_| Val::Empty));
    row.extend([
        text(doc.number.clone()),
        reference,
        Val::Date(doc.date, "%d/%m/%Y"),
        Val::Date(due(doc.date), "%d/%m/%Y"),
        Val::Empty,
        money(doc.total),
        money(doc.vat_total),
        money(paid),
        money(doc.total - paid),
        Val::Str(l.code),
        Val::Str(l.name),
        qty(l.quantity),
        money(l.price),
        discount,
        money(l.net),
        Val::Str("200"),
        Val::Str(tax),
        money(l.vat),
        Val::Empty,
        Val::Empty,
        Val::Empty,
        Val::Empty,
        Val::Str("SAR"),
        // Debit notes are never drawn for Xero (nor Odoo, Sage 50): their mappings do not read one.
        Val::Str(match doc.kind {
            Kind::Invoice | Kind::DebitNote => "Sales Invoice",
            Kind::CreditNote => "Sales Credit Note",
        }),
        Val::Str("Sent"),
        Val::Str(status),
    ]);
    row
}

/// A QuickBooks credit memo is written negative (quantity and amount); the invoice it corrects,
/// and why, are in `credit_notes.csv`.
fn quickbooks(doc: &GenDoc, l: &GenLine) -> Vec<Val> {
    let tax = match l.tax {
        Tax::S15 => "VAT 15%",
        Tax::S5 => "VAT 5%",
        Tax::Z => "Zero-rated Export",
        Tax::E => "Exempt",
        Tax::O => "Out of Scope",
    };
    vec![
        text(doc.number.clone()),
        Val::Str(doc.customer.name),
        Val::Date(doc.date, "%m/%d/%Y"),
        Val::Date(due(doc.date), "%m/%d/%Y"),
        Val::Str("Net 30"),
        Val::Str(if doc.seq.is_multiple_of(2) { "Riyadh" } else { "Jeddah" }),
        match doc.kind {
            Kind::CreditNote => Val::Str("Credit memo"),
            _ if doc.seq.is_multiple_of(5) => Val::Str("Repeat order"),
            _ => Val::Empty,
        },
        Val::Str(l.code),
        Val::Str(l.name),
        qty(signed(doc, l.quantity)),
        money(l.price),
        money(signed(doc, l.net)),
        Val::Str(if matches!(l.tax, Tax::S15 | Tax::S5) { "Y" } else { "N" }),
        Val::Str(tax),
    ]
}

/// Zoho's credit note export: positive amounts, the corrected invoice and the reason.
fn zoho_credit_note(doc: &GenDoc, l: &GenLine) -> Vec<Val> {
    let c = doc.customer;
    let (tax, pct, reason) = zoho_tax(l.tax);
    let status = match doc.state {
        State::Draft => "Draft",
        State::Voided => "Void",
        State::Issued if doc.seq.is_multiple_of(2) => "Closed",
        State::Issued => "Open",
    };
    let (original, original_date) = doc
        .original
        .clone()
        .map_or((Val::Empty, Val::Empty), |(n, d)| (text(n), Val::Date(d, "%Y-%m-%d")));
    vec![
        Val::Date(doc.date, "%Y-%m-%d"),
        text(format!("47000{:08}", doc.seq)),
        text(doc.number.clone()),
        Val::Str(status),
        Val::Str(c.name),
        Val::Str(if doc.inclusive { "true" } else { "false" }),
        Val::Str("SAR"),
        Val::Str("1.00"),
        Val::Str(l.code),
        Val::Str(l.name),
        qty(l.quantity),
        Val::Str("pcs"),
        money(l.price),
        money(l.discount_amount),
        Val::Str(tax),
        Val::Str(pct),
        money(l.vat),
        opt(reason),
        money(if doc.inclusive { l.gross } else { l.net }),
        money(doc.net_total),
        money(doc.total),
        money(if status == "Closed" { Decimal::ZERO } else { doc.total }),
        original,
        original_date,
        Val::Str(CREDIT_REASON),
        Val::Empty,
        opt(c.street),
        opt(c.city),
        opt(country_name(c)),
        opt(c.postal_zone),
    ]
}

/// Zoho's tax name, rate and exemption reason of a VAT category.
fn zoho_tax(t: Tax) -> (&'static str, &'static str, &'static str) {
    match t {
        Tax::S15 => ("VAT 15", "15", ""),
        Tax::S5 => ("VAT 5", "5", ""),
        Tax::Z | Tax::O => ("Zero Rate", "0", "Medicines | أدوية"),
        Tax::E => ("Exempt", "0", "Financial services | خدمات مالية"),
    }
}

/// Zoho's invoice export; `entity`: the invoice's discount on the whole invoice, if it has one.
fn zoho(doc: &GenDoc, (i, l): (usize, &GenLine), entity: Option<&EntityDiscount>) -> Vec<Val> {
    let c = doc.customer;
    let (tax, pct, reason) = zoho_tax(l.tax);
    let status = match doc.state {
        State::Draft => "Draft",
        State::Voided => "Void",
        State::Issued if doc.seq.is_multiple_of(3) => "Overdue",
        State::Issued if doc.seq.is_multiple_of(2) => "Paid",
        State::Issued => "Sent",
    };
    let item_total = if doc.inclusive { l.gross } else { l.net };
    let total = entity.map_or(doc.total, |e| e.total);
    let balance = if status == "Paid" { Decimal::ZERO } else { total };
    let (discount_type, discount_percent, discount_amount) = match entity {
        Some(e) => (Val::Str("entity_level"), money(e.percent), money(e.amount)),
        None => (Val::Str("item_level"), Val::Str("0.00"), Val::Str("0.00")),
    };
    let vat = entity.and_then(|e| e.line_vat.get(i).copied()).unwrap_or(l.vat);
    vec![
        text(doc.number.clone()),
        text(format!("46000{:08}", doc.seq)),
        Val::Date(doc.date, "%Y-%m-%d"),
        Val::Str(status),
        Val::Str(c.name),
        Val::Str(if doc.inclusive { "true" } else { "false" }),
        Val::Date(doc.date, "%Y-%m-%d"),
        Val::Str("SAR"),
        Val::Str("1.00"),
        discount_type,
        Val::Str("true"),
        discount_percent,
        discount_amount,
        Val::Str(tax),
        Val::Str(l.name),
        qty(l.quantity),
        Val::Str("pcs"),
        money(l.price),
        money(l.discount_amount),
        money(l.discount_amount),
        Val::Str(l.code),
        Val::Str(pct),
        money(vat),
        Val::Str("ItemAmount"),
        opt(reason),
        money(item_total),
        money(doc.net_total),
        money(total),
        money(balance),
        Val::Empty,
        Val::Empty,
        Val::Empty,
        opt(c.street),
        opt(c.city),
        opt(country_name(c)),
        opt(c.postal_zone),
        Val::Str("Reem"),
        Val::Str("Standard Template"),
    ]
}

fn odoo(doc: &GenDoc, i: usize, l: &GenLine) -> Vec<Val> {
    let tax = match l.tax {
        Tax::S15 if doc.seq.is_multiple_of(2) => "15%",
        Tax::S15 => "VAT 15%",
        Tax::S5 => "VAT 5%",
        Tax::Z => "0% Exports",
        Tax::E => "Exempt",
        Tax::O => "Not Subject",
    };
    let mut row = if i == 0 {
        vec![
            text(doc.number.clone()),
            Val::Str(match doc.kind {
                Kind::Invoice | Kind::DebitNote => "out_invoice",
                Kind::CreditNote => "out_refund",
            }),
            Val::Str(doc.customer.name),
            Val::Date(doc.date, "%Y-%m-%d"),
            Val::Date(due(doc.date), "%Y-%m-%d"),
            doc.original.as_ref().map_or(Val::Empty, |(n, _)| text(n.clone())),
            Val::Str("SAR"),
        ]
    } else {
        vec![Val::Empty; 7]
    };
    row.extend([
        text(format!("[{}] {}", l.code, l.name)),
        Val::Str(l.code),
        qty(l.quantity),
        money(l.price),
        qty(l.discount_percent),
        Val::Str(tax),
    ]);
    row
}

/// A return (credit note) has negative quantities and amounts; a debit note (a rate adjustment)
/// positive ones. Both name the invoice in Return Against; ERPNext has no reason field.
fn erpnext(doc: &GenDoc, i: usize, l: &GenLine) -> Vec<Val> {
    let tax = match l.tax {
        Tax::S15 => "KSA VAT 15% - ACME",
        Tax::S5 => "KSA VAT 5% - ACME",
        Tax::Z | Tax::O => "KSA VAT Zero - ACME",
        Tax::E => "KSA VAT Exempted - ACME",
    };
    let mut row = if i == 0 {
        let ticked = |k| Val::Str(if doc.kind == k { "1" } else { "0" });
        vec![
            text(doc.number.clone()),
            Val::Str(doc.customer.name),
            Val::Date(doc.date, "%d-%m-%Y"),
            Val::Date(due(doc.date), "%d-%m-%Y"),
            Val::Str("SAR"),
            ticked(Kind::CreditNote),
            ticked(Kind::DebitNote),
            doc.original.as_ref().map_or(Val::Empty, |(n, _)| text(n.clone())),
        ]
    } else {
        vec![Val::Empty; 8]
    };
    row.extend([
        Val::Str(l.code),
        Val::Str(l.name),
        qty(signed(doc, l.quantity)),
        money(l.price),
        money(signed(doc, l.net)),
        Val::Str(tax),
    ]);
    row
}

fn sap_line(doc: &GenDoc, i: usize, l: &GenLine) -> Vec<Val> {
    let tax = match l.tax {
        Tax::S15 => "S15",
        Tax::S5 => "S5",
        Tax::Z | Tax::O if doc.seq.is_multiple_of(2) => "Z0MED",
        Tax::Z | Tax::O => "Z0EXP",
        Tax::E => "E0FIN",
    };
    vec![
        text(doc.seq.to_string()),
        text(i.to_string()),
        Val::Str(l.code),
        Val::Str(l.name),
        qty(l.quantity),
        money(l.price),
        Val::Str("SAR"),
        qty(l.discount_percent),
        Val::Str(tax),
        money(l.net),
    ]
}

/// The row of the SAP `Documents` header file for a document.
pub(crate) fn sap_document(doc: &GenDoc) -> Vec<Val> {
    vec![
        text(doc.seq.to_string()),
        text(doc.number.clone()),
        Val::Date(doc.date, "%Y%m%d"),
        Val::Date(due(doc.date), "%Y%m%d"),
        text(format!("C-{}", doc.customer.account)),
        Val::Str(doc.customer.name),
        text(format!("PO-{}", 9000 + doc.seq)),
        Val::Str("SAR"),
    ]
}

fn sage(doc: &GenDoc, l: &GenLine) -> Vec<Val> {
    let tax = match l.tax {
        Tax::S15 => "T1",
        Tax::S5 => "T5",
        Tax::Z => "T0",
        Tax::E => "T2",
        Tax::O => "T9",
    };
    vec![
        text(doc.number.clone()),
        Val::Str(doc.customer.account),
        Val::Date(doc.date, "%d/%m/%Y"),
        Val::Str(l.code),
        Val::Str(l.name),
        Val::Str("4000"),
        Val::Str("1"),
        Val::Str(tax),
        qty(l.quantity),
        Val::Num(l.price, NumFmt::Thousands2),
        money(signed(doc, l.net)),
        money(signed(doc, l.vat)),
    ]
}

fn tally(doc: &GenDoc, l: &GenLine) -> Vec<Val> {
    let date_format = if doc.seq.is_multiple_of(2) {
        "%d-%m-%Y"
    } else {
        "%d-%b-%Y"
    };
    vec![
        Val::Date(doc.date, date_format),
        text(doc.number.clone()),
        Val::Str(match doc.kind {
            Kind::Invoice => "Sales",
            Kind::CreditNote => "Credit Note",
            Kind::DebitNote => "Debit Note",
        }),
        Val::Str(doc.customer.name),
        Val::Str(l.name),
        qty(l.quantity),
        money(l.price),
        money(l.net),
        match &doc.original {
            Some((n, _)) => text(format!("Against {n}")),
            None => Val::Str("Sales register"),
        },
    ]
}

fn legacy(doc: &GenDoc, l: &GenLine) -> Vec<Val> {
    let c = doc.customer;
    let kind = match doc.kind {
        Kind::CreditNote => "إشعار دائن",
        Kind::DebitNote => "إشعار مدين",
        Kind::Invoice if c.vat_number.is_empty() => "فاتورة ضريبية مبسطة",
        Kind::Invoice => "فاتورة ضريبية",
    };
    let tax = match l.tax {
        Tax::S15 => "خاضع 15%",
        Tax::S5 => "خاضع 5%",
        Tax::Z | Tax::O => "صفري - تصدير",
        Tax::E => "معفى - خدمات مالية",
    };
    let discount = if l.discount_percent.is_zero() {
        Val::Empty
    } else {
        text(format!("{}%", l.discount_percent.normalize()))
    };
    let (reference, reason) = match &doc.original {
        Some((n, _)) => (text(n.clone()), Val::Str(reason(doc.kind, true))),
        None => (Val::Empty, Val::Empty),
    };
    vec![
        text(doc.number.clone()),
        Val::Str(kind),
        Val::Date(doc.date, "%d/%m/%Y"),
        text(doc.time.format("%H:%M").to_string()),
        Val::Str(c.name),
        opt(c.vat_number),
        opt(c.street),
        opt(c.building_number),
        opt(c.district),
        opt(c.city),
        opt(c.postal_zone),
        Val::Str(l.code),
        Val::Str(l.name),
        Val::Num(l.quantity, NumFmt::CommaPlain),
        Val::Num(l.price, NumFmt::CommaPlain),
        discount,
        Val::Str(tax),
        Val::Num(l.vat, NumFmt::Comma2),
        Val::Num(l.gross, NumFmt::Comma2),
        reference,
        reason,
    ]
}

/// The customers table as rows (header first), for `customers.csv`.
pub(crate) fn customer_rows() -> Vec<Vec<Val>> {
    let mut out = vec![super::layouts::CUSTOMER_COLUMNS.iter().map(|c| Val::Str(c)).collect()];
    for c in super::model::CUSTOMERS {
        out.push(
            [
                c.name,
                c.account,
                c.vat_number,
                c.id_scheme,
                c.id,
                c.street,
                c.building_number,
                c.plot,
                c.district,
                c.city,
                c.postal_zone,
                c.country,
            ]
            .into_iter()
            .map(opt)
            .collect(),
        );
    }
    out
}

/// The row of `credit_notes.csv` for a credit or debit note.
pub(crate) fn credit_note_row(doc: &GenDoc) -> Option<Vec<Val>> {
    let (number, date) = doc.original.as_ref()?;
    Some(vec![
        text(doc.number.clone()),
        text(number.clone()),
        Val::Date(*date, "%Y-%m-%d"),
        Val::Str(reason(doc.kind, false)),
    ])
}
