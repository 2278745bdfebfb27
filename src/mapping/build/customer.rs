//! The buyer of a document, from the fields the mapping reads (from the export's columns or
//! its lookup table).

use super::text;
use crate::mapping::apply::Value;
use crate::mapping::fields::{FieldId, fid};
use crate::model::{Address, Party, PartyIdentification};

/// The buyer: its VAT number, name, address and other identification, as the fields give them.
pub(super) fn customer(take: &mut dyn FnMut(FieldId) -> Option<Value>) -> Party {
    // Numbers typed with Arabic-Indic digits (an Arabic keyboard) are the same numbers: written in
    // ASCII digits, as the authority's rules read them.
    let digits = |t: String| {
        if t.is_ascii() {
            t
        } else {
            crate::mapping::transform::ascii_digits(&t)
        }
    };
    let buyer_vat = text(take(fid!("buyer.vat_number"))).map(|v| digits(v.split_whitespace().collect::<String>()));
    let addr = |take: &mut dyn FnMut(FieldId) -> Option<Value>, f: FieldId| text(take(f)).unwrap_or_default();
    let digit_field = |take: &mut dyn FnMut(FieldId) -> Option<Value>, f: FieldId| digits(addr(take, f));
    let mut address = Address {
        street_name: addr(take, fid!("buyer.street")),
        building_number: digit_field(take, fid!("buyer.building_number")),
        plot_identification: addr(take, fid!("buyer.plot")),
        city_subdivision_name: addr(take, fid!("buyer.district")),
        city_name: addr(take, fid!("buyer.city")),
        postal_zone: digit_field(take, fid!("buyer.postal_zone")),
        country: addr(take, fid!("buyer.country")),
        country_subentity: addr(take, fid!("buyer.subentity")),
    };
    if address.country.is_empty() && address != Address::default() {
        address.country = "SA".into();
    }
    let buyer_id = text(take(fid!("buyer.id")));
    let scheme = text(take(fid!("buyer.id_scheme")));
    Party {
        vat_number: buyer_vat,
        tax_type: "VAT".into(),
        registration_name: text(take(fid!("buyer.name"))).unwrap_or_default(),
        address,
        party_identification: buyer_id.map(|id| PartyIdentification {
            scheme: scheme.unwrap_or_else(|| "CRN".into()),
            id,
        }),
    }
}
