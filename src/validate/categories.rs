//! VAT categories and rates on lines, document discounts and charges, and the VAT breakdown;
//! exemption reasons of zero-rated, exempt and out-of-scope breakdowns.

use super::codes::{self, KSA_CATEGORIES};
use super::rules::*;
use super::support::{JsonPath, blank, blank_opt, num, over_two_decimals, pct, subtotals, val};
use super::{Finding, RuleInfo};
use crate::model::{Document, TaxCategory, TaxSubtotal};
use crate::text::Trimmed;
use rust_decimal::Decimal;

/// Where a category sits, which decides the rules that apply to it.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Line,
    Discount,
    Charge,
    Breakdown,
}

impl Place {
    fn words(self) -> &'static str {
        match self {
            Place::Line => "line",
            Place::Discount => "document discount",
            Place::Charge => "document charge",
            Place::Breakdown => "VAT breakdown",
        }
    }
}

/// Every category of the document (`breakdowns`: its [`subtotals`]) with its place and the path
/// of its object.
fn all_categories<'a>(
    doc: &'a Document,
    breakdowns: &[(JsonPath, &'a TaxSubtotal)],
) -> Vec<(Place, JsonPath, &'a TaxCategory)> {
    let mut all = Vec::with_capacity(doc.invoice_lines.len() + doc.allowance_charge.0.len() + breakdowns.len());
    for (i, line) in doc.invoice_lines.iter().enumerate() {
        all.push((
            Place::Line,
            JsonPath::line(i, "item.classified_tax_category"),
            &line.item.classified_tax_category,
        ));
    }
    for (i, ac) in doc.allowance_charge.0.iter().enumerate() {
        let place = if ac.charge_indicator {
            Place::Charge
        } else {
            Place::Discount
        };
        all.push((place, JsonPath::allowance(doc, i, "tax_category"), &ac.tax_category));
    }
    for (path, s) in breakdowns {
        all.push((Place::Breakdown, path.field("tax_category"), &s.tax_category));
    }
    all
}

/// The rate rule of a category at a place, and whether the rate must be zero (else above zero).
fn rate_rule(id: &str, place: Place) -> Option<(RuleInfo, bool)> {
    Some(match (id, place) {
        ("S", Place::Line) => (BR_S_05, false),
        ("S", Place::Discount) => (BR_S_06, false),
        ("S", Place::Charge) => (BR_S_07, false),
        ("Z", Place::Line) => (BR_Z_05, true),
        ("Z", Place::Discount) => (BR_Z_06, true),
        ("Z", Place::Charge) => (BR_Z_07, true),
        ("E", Place::Line) => (BR_E_05, true),
        ("E", Place::Discount) => (BR_E_06, true),
        ("E", Place::Charge) => (BR_E_07, true),
        ("O", Place::Line) => (BR_KSA_11, true),
        ("O", Place::Discount) => (BR_KSA_12, true),
        ("O", Place::Charge) => (BR_KSA_13, true),
        _ => return None,
    })
}

fn category_name(id: &str) -> &'static str {
    match id {
        "S" => "standard-rated (S)",
        "Z" => "zero-rated (Z)",
        "E" => "exempt (E)",
        "O" => "out-of-scope (O)",
        _ => "unknown",
    }
}

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    let breakdowns = subtotals(doc);
    for (place, path, cat) in all_categories(doc, &breakdowns) {
        one(out, place, path, cat);
    }
    let mut used: Vec<&str> = Vec::new();
    for line in &doc.invoice_lines {
        used.push(line.item.classified_tax_category.id.trimmed());
    }
    for ac in &doc.allowance_charge.0 {
        used.push(ac.tax_category.id.trimmed());
    }
    let broken_down: Vec<&str> = breakdowns.iter().map(|(_, s)| s.tax_category.id.trimmed()).collect();
    for (id, rule) in [("S", BR_S_01), ("Z", BR_Z_01), ("E", BR_E_01), ("O", BR_O_01)] {
        if used.contains(&id) && !broken_down.contains(&id) {
            out.push(rule.at(
                "tax_total",
                None,
                format!(
                    "Lines or discounts are {} but the VAT breakdown has no {id} entry; recompute the totals.",
                    category_name(id)
                ),
            ));
        }
    }
    for (path, s) in &breakdowns {
        reasons(out, path.field("tax_category"), &s.tax_category);
    }
    one_reason_each(doc, out);
}

/// The line, discount or charge `i` (0-based) of a document, as a message names it.
fn nth(place: Place, i: usize) -> String {
    match i {
        0 => format!("the document's first {}", place.words()),
        _ => format!("the document's {} no. {}", place.words(), i + 1),
    }
}

/// The exemption reasons of the lines, discounts and charges that share a VAT breakdown (one
/// category and rate, [`TaxCategory::same_breakdown`]): the breakdown is computed with the first
/// reason code given among them (and the first text), so a line whose code differs would be
/// declared under another reason (`INV-EXEMPTION-MIXED`); one whose text differs under the same
/// code is issued with the first's text (`INV-EXEMPTION-TEXT`). Standard-rated categories carry
/// no reason and are passed over.
fn one_reason_each(doc: &Document, out: &mut Vec<Finding>) {
    let lines = doc.invoice_lines.iter().enumerate();
    let cats = lines
        .map(|(i, l)| (Place::Line, i, &l.item.classified_tax_category))
        .chain(doc.allowance_charge.0.iter().enumerate().map(|(i, ac)| {
            let place = if ac.charge_indicator {
                Place::Charge
            } else {
                Place::Discount
            };
            (place, i, &ac.tax_category)
        }));
    // Per breakdown: its first category, the first code given and the first text given, each
    // with the place and index it was given at.
    type First<'a> = Option<(&'a str, Place, usize)>;
    let mut firsts: Vec<(&TaxCategory, First<'_>, First<'_>)> = Vec::new();
    fn given(t: Option<&str>) -> Option<&str> {
        t.map(Trimmed::trimmed).filter(|t| !t.is_empty())
    }
    for (place, i, cat) in cats {
        if cat.id.trimmed().eq_ignore_ascii_case("S") {
            continue;
        }
        let code = given(cat.exemption_reason_code.as_deref());
        let words = given(cat.exemption_reason.as_deref());
        if code.is_none() && words.is_none() {
            continue;
        }
        let at = match firsts.iter().position(|(c, _, _)| c.same_breakdown(cat)) {
            Some(at) => at,
            None => {
                firsts.push((cat, None, None));
                firsts.len() - 1
            }
        };
        let path = |field: &'static str| match place {
            Place::Line => JsonPath::line(i, "item.classified_tax_category")
                .field(field)
                .to_string(),
            _ => JsonPath::allowance(doc, i, "tax_category").field(field).to_string(),
        };
        let (_, first_code, first_words) = &mut firsts[at];
        // Spelled out only for a finding.
        let breakdown = || format!("{} {}%", cat.id.trimmed(), pct(cat.percent));
        if let Some(code) = code {
            match *first_code {
                None => *first_code = Some((code, place, i)),
                Some((first, p, n)) if first != code => {
                    out.push(INV_EXEMPTION_MIXED.at(
                        path("exemption_reason_code"),
                        val(code),
                        format!(
                            "This {} gives exemption reason {code} but {} of the same VAT breakdown ({}) \
                             gives {first}: a document has one breakdown per category and rate, with one reason, so \
                             this {} would be declared under {first}. Issue the supplies of each reason as a document \
                             of their own, or correct the reason in the ERP.",
                            place.words(),
                            nth(p, n),
                            breakdown(),
                            place.words()
                        ),
                    ));
                    continue;
                }
                Some(_) => {}
            }
        }
        if let Some(words) = words {
            match *first_words {
                None => *first_words = Some((words, place, i)),
                Some((first, p, n)) if first != words => out.push(INV_EXEMPTION_TEXT.at(
                    path("exemption_reason"),
                    val(words),
                    format!(
                        "This {} gives the exemption reason text {words:?} but {} of the same VAT breakdown \
                         ({}, one reason code) gives {first:?}: the breakdown is issued with {first:?}. If \
                         this supply has another reason, give it its own reason code, or issue it as a document of \
                         its own.",
                        place.words(),
                        nth(p, n),
                        breakdown()
                    ),
                )),
                Some(_) => {}
            }
        }
    }
}

fn one(out: &mut Vec<Finding>, place: Place, path: JsonPath, cat: &TaxCategory) {
    let id = cat.id.trimmed();
    let at = |f: &str| format!("{path}.{f}");
    let here = place.words();
    if id.is_empty() {
        let rule = match place {
            Place::Line => BR_CO_04,
            Place::Discount => BR_32,
            Place::Charge => BR_37,
            Place::Breakdown => BR_47,
        };
        out.push(rule.at(
            at("id"),
            val(&cat.id),
            format!(
                "The {here} has no VAT category; use S (standard), Z (zero-rated), E (exempt) or O (out of scope)."
            ),
        ));
    } else {
        if !KSA_CATEGORIES.contains(&id) {
            out.push(BR_KSA_18.at(
                at("id"),
                val(&cat.id),
                format!(
                    "The {here} has VAT category {id:?}; only S (standard), Z (zero-rated), E (exempt) and O \
                     (out of scope) are allowed, in capitals."
                ),
            ));
        }
        if !codes::is_uncl5305(id) {
            out.push(BR_CL_18.at(
                at("id"),
                val(&cat.id),
                format!("{id:?} is not a VAT category code; use S, Z, E or O."),
            ));
        }
    }
    if !cat.tax_type.trimmed().eq_ignore_ascii_case("VAT") {
        out.push(INV_TAX_TYPE.at(
            at("tax_type"),
            val(&cat.tax_type),
            format!("The {here}'s tax type is {:?}; it must be VAT.", cat.tax_type),
        ));
    }
    let p = cat.percent;
    if p < Decimal::ZERO || p > Decimal::ONE_HUNDRED || over_two_decimals(p) {
        out.push(BR_KSA_DEC_02.at(
            at("percent"),
            num(p),
            format!("The VAT rate {p} of the {here} must be a number from 0 to 100 with at most 2 decimals."),
        ));
    }
    if id == "S" && !(p.floor() == Decimal::from(15) || p == Decimal::from(5)) {
        out.push(BR_KSA_84.at(
            at("percent"),
            num(p),
            format!(
                "The {here} is standard-rated at {}%; the standard rate is 15% (5% for some supplies). For 0% use \
                 category Z, E or O with an exemption reason.",
                pct(p)
            ),
        ));
    }
    if let Some((rule, zero)) = rate_rule(id, place)
        && (if zero { !p.is_zero() } else { p <= Decimal::ZERO })
    {
        let msg = if zero {
            format!(
                "The {here} is {} so its VAT rate must be 0, not {}%; set the rate to 0 or use category S.",
                category_name(id),
                pct(p)
            )
        } else {
            format!(
                "The {here} is standard-rated at {}%; the rate must be above zero (15 or 5).",
                pct(p)
            )
        };
        out.push(rule.at(at("percent"), num(p), msg));
    }
}

fn reasons(out: &mut Vec<Finding>, path: JsonPath, cat: &TaxCategory) {
    let id = cat.id.trimmed();
    let code = cat.exemption_reason_code.as_deref().unwrap_or("").trimmed();
    let at = |f: &str| format!("{path}.{f}");
    let missing_code = match id {
        "E" => Some(BR_KSA_23),
        "O" => Some(BR_KSA_24),
        "Z" => Some(BR_KSA_69),
        _ => None,
    };
    let Some(rule) = missing_code else {
        if id == "S" && !(blank(code) && blank_opt(cat.exemption_reason.as_deref())) {
            let (field, value) = if blank(code) {
                ("exemption_reason", cat.exemption_reason.clone())
            } else {
                (
                    "exemption_reason_code",
                    cat.exemption_reason_code.as_deref().map(str::to_string),
                )
            };
            out.push(BR_S_10.at(
                at(field),
                value,
                "A standard-rated (S) breakdown must not carry an exemption reason; remove it, or use category Z, E or O.",
            ));
        }
        return;
    };
    let allowed = codes::exemption_reasons(id);
    let list = allowed.join(", ");
    if code.is_empty() {
        out.push(rule.at(
            at("exemption_reason_code"),
            None,
            format!(
                "The {} breakdown needs an exemption reason code: one of {list}.",
                category_name(id)
            ),
        ));
    } else if !allowed.contains(&code) {
        out.push(BR_KSA_CL_04.at(
            at("exemption_reason_code"),
            val(code),
            format!("{code:?} is not an exemption reason code for category {id}; use one of {list}."),
        ));
    }
    if blank_opt(cat.exemption_reason.as_deref()) {
        out.push(BR_KSA_83.at(
            at("exemption_reason"),
            cat.exemption_reason.clone(),
            format!(
                "The {} breakdown needs the exemption reason in words (for example \"Export of goods\").",
                category_name(id)
            ),
        ));
    }
}

#[cfg(test)]
#[path = "categories_tests.rs"]
mod tests;
