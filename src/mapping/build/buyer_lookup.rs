//! A buyer the lookup table gave nothing for: a warning, or, when the table itself was not found
//! and the document's type is decided by the buyer's VAT number (`invoice_type = "auto"`), an
//! error. Without the table every buyer would lose its VAT number, and every standard (B2B)
//! document would be issued as simplified (B2C): a legal document of the wrong type, which
//! only a credit note undoes. Held back, the document says what to put where.

use super::super::Issue;
use super::super::apply::{Bound, LookupMiss};
use super::super::compiled::{Mapping, Source};
use super::super::fields::{FIELDS, FieldId};
use super::super::load::TypeRule;
use super::super::spec::LookupSpec;

/// The error code of a document whose type depends on a lookup table that was not found.
pub const TABLE_MISSING_CODE: &str = "INV-MAP-LOOKUP-FILE";

/// True when the type of `mapping`'s documents may hang on the buyer's VAT number from the lookup
/// table `name` (its type `auto`, its `buyer.vat_number` looked up there).
pub(crate) fn decides_type(mapping: &Mapping, name: &str) -> bool {
    matches!(mapping.type_rule, TypeRule::Auto)
        && mapping.fields.iter().flatten().any(|r| {
            FIELDS[r.field].name == "buyer.vat_number"
                && matches!(&r.source, Source::Lookup { table, .. } if table == name)
        })
}

/// The header line of a lookup table `mapping` reads as `name` (`spec`): its key column, then
/// each column it gets, in the mapping's order (`name,vat_number,id_scheme,...`).
pub(crate) fn header_line(mapping: &Mapping, name: &str, spec: &LookupSpec) -> String {
    let mut columns = vec![spec.key_column.as_str()];
    for r in mapping.fields.iter().flatten() {
        if let Source::Lookup { table, get, .. } = &r.source
            && table == name
            && !columns.contains(&get.as_str())
        {
            columns.push(get);
        }
    }
    columns.join(",")
}

/// What is said of the buyer `miss` gave nothing for (`f`, the field looked up); `by_vat_number`:
/// the document's type is decided by the buyer's VAT number.
pub(super) fn buyer_miss_issue(bound: &Bound, f: FieldId, miss: LookupMiss, by_vat_number: bool) -> Issue {
    let column = bound.lookup_key_label(f).map(str::to_string);
    if !miss.table_found && by_vat_number {
        let file = &miss.file;
        let header = bound
            .mapping
            .lookups
            .iter()
            .find(|(_, spec)| spec.file == *file)
            .map_or_else(String::new, |(name, spec)| {
                format!(" ({})", header_line(&bound.mapping, name, spec))
            });
        return Issue::error(
            TABLE_MISSING_CODE,
            column,
            Some(miss.key.clone()),
            format!(
                "{}: the buyers' VAT numbers come from it, so without it this document would go out as \
                 simplified (B2C) even for a VAT-registered buyer: it is not sent (one issued earlier stays issued, \
                 reported from the ledger). Put {file} there (with this \
                 buyer's row when it has a VAT number); when no buyer of this export has one, a {file} of its \
                 header line alone{header} says so",
                miss.reason()
            ),
        );
    }
    let message = if miss.table_found {
        format!("not found in {}", miss.file)
    } else {
        miss.reason()
    };
    let outcome = if by_vat_number {
        "so this document is issued as simplified (B2C)"
    } else {
        "(the document's type is the mapping's)"
    };
    let file = &miss.file;
    Issue::warning(
        "INV-MAP-LOOKUP",
        column,
        Some(miss.key.clone()),
        format!(
            "{message}: the buyer has no VAT number or address from it, {outcome}. For a walk-in buyer nothing \
             is to be done; for a VAT-registered one, correct the buyer's name in the export or add a row for \
             {:?} to {file} (with its VAT number and address) before the document is issued: once issued, \
             only a credit note and a new invoice correct it",
            miss.key
        ),
    )
}
