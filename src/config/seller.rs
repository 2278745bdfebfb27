//! The `[seller]` table, and the mistakes in it that would be on every invoice issued, refused
//! when the configuration loads: the authority's rules on the seller (BR-KSA-40, BR-KSA-37,
//! BR-KSA-66, BR-KSA-08, BR-KSA-F-08/F-09, BR-CL-14) and the QR code's 255-byte seller name.
//! Parts of the national address that are left out are not refused: each document says so
//! (BR-KSA-09, a warning at the authority).

use crate::mapping::headers::normalize;
use crate::model::{Address, Party, PartyIdentification};
use crate::text::xml_unfit_at;
use crate::validate::{SELLER_SCHEMES, digits, is_country};
use serde::Deserialize;

/// The most bytes a QR code's TLV field holds (its length is one byte): the seller name, tag 1.
pub const QR_FIELD_MAX_BYTES: usize = 255;

/// The `[seller]` table: the issuing company.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SellerConfig {
    /// Legal name (Arabic and/or English).
    pub name: String,
    /// 15-digit VAT number.
    pub vat_number: String,
    /// Commercial registration number (10 digits).
    pub crn: Option<String>,
    /// Scheme of `crn` when it is another identifier (MOM, MLS, 700, SAG, OTH); default CRN.
    pub id_scheme: Option<String>,
    /// Street.
    #[serde(default)]
    pub street: String,
    /// Building number (4 digits).
    #[serde(default)]
    pub building_number: String,
    /// Additional number.
    #[serde(default)]
    pub plot: String,
    /// District.
    #[serde(default)]
    pub district: String,
    /// City.
    #[serde(default)]
    pub city: String,
    /// Postal code (5 digits).
    #[serde(default)]
    pub postal_zone: String,
    /// Two-letter country code (default SA).
    pub country: Option<String>,
    /// Region.
    #[serde(default)]
    pub subentity: String,
}

/// The keys of `[seller]` (the fields of [`SellerConfig`]).
pub const SELLER_KEYS: [&str; 12] = [
    "name",
    "vat_number",
    "crn",
    "id_scheme",
    "street",
    "building_number",
    "plot",
    "district",
    "city",
    "postal_zone",
    "country",
    "subentity",
];

/// A mistake in the `[seller]` table: the key, and the message naming it, its value and the
/// expected form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SellerMistake {
    /// The key of `[seller]`.
    pub key: &'static str,
    /// `[seller] key: ...`.
    pub message: String,
}

fn mistake(key: &'static str, what: String) -> SellerMistake {
    SellerMistake {
        key,
        message: format!("[seller] {key}: {what}"),
    }
}

/// The ISO code a country written out (or in capitals, or as its alpha-3 code) most likely
/// means; `None` when there is no good guess.
fn country_hint(given: &str) -> Option<String> {
    let upper = given.trim().to_ascii_uppercase();
    if is_country(&upper) {
        return Some(upper);
    }
    const NAMES: [(&str, &[&str]); 13] = [
        (
            "SA",
            &[
                "saudiarabia",
                "ksa",
                "sau",
                "kingdomofsaudiarabia",
                "saudi",
                "السعودية",
                "المملكةالعربيةالسعودية",
            ],
        ),
        ("AE", &["unitedarabemirates", "uae", "are", "emirates"]),
        ("BH", &["bahrain", "bhr"]),
        ("KW", &["kuwait", "kwt"]),
        ("OM", &["oman", "omn"]),
        ("QA", &["qatar", "qat"]),
        ("EG", &["egypt", "egy"]),
        ("JO", &["jordan", "jor"]),
        ("US", &["unitedstates", "unitedstatesofamerica", "usa"]),
        ("GB", &["unitedkingdom", "uk", "gbr", "greatbritain"]),
        ("IN", &["india", "ind"]),
        ("PK", &["pakistan", "pak"]),
        ("CN", &["china", "chn"]),
    ];
    let n = normalize(given);
    NAMES
        .iter()
        .find(|(_, names)| names.contains(&n.as_str()))
        .map(|(code, _)| (*code).to_string())
}

impl SellerConfig {
    /// The country as issued: the one given (trimmed), else SA.
    fn country_code(&self) -> String {
        self.country.as_deref().map_or("SA", str::trim).to_string()
    }

    /// The first mistake that would be on every invoice, if any.
    pub fn check(&self) -> Result<(), SellerMistake> {
        let name = &self.name;
        if name.trim().is_empty() {
            return Err(mistake(
                "name",
                format!(
                    "{name:?} is empty: write the company's legal name (Arabic and/or English), as it is on \
                     every invoice and is the QR code's seller name, which cannot be blank"
                ),
            ));
        }
        if name.len() > QR_FIELD_MAX_BYTES {
            return Err(mistake(
                "name",
                format!(
                    "{name:?} is {} bytes in UTF-8 ({} characters); the QR code's seller name holds at most \
                     {QR_FIELD_MAX_BYTES} bytes (an Arabic letter takes 2) and the API refuses longer: shorten it",
                    name.len(),
                    name.chars().count()
                ),
            ));
        }
        self.fit_for_xml()?;
        let vat = self.vat_number.trim();
        if !(digits(vat, 15) && vat.starts_with('3') && vat.ends_with('3')) {
            return Err(mistake(
                "vat_number",
                format!(
                    "{vat:?}: expected the 15-digit VAT number, beginning and ending with 3 (such as \
                     300000000000003; BR-KSA-40)"
                ),
            ));
        }
        if let Some(c) = &self.country
            && !is_country(c.trim())
        {
            let hint = country_hint(c).map_or(" such as SA".to_string(), |h| format!(": did you mean {h:?}?"));
            return Err(mistake(
                "country",
                format!("{c:?} is not a two-letter ISO 3166 country code (BR-CL-14); write the code{hint}"),
            ));
        }
        let scheme = self.id_scheme.as_deref().unwrap_or("CRN");
        if !SELLER_SCHEMES.contains(&scheme) {
            let upper = scheme.trim().to_ascii_uppercase();
            let hint = if SELLER_SCHEMES.contains(&upper.as_str()) {
                format!("; did you mean {upper:?}?")
            } else {
                String::new()
            };
            return Err(mistake(
                "id_scheme",
                format!(
                    "{scheme:?}: expected one of {}, in capitals (BR-KSA-08){hint}",
                    SELLER_SCHEMES.join(", ")
                ),
            ));
        }
        if let Some(id) = &self.crn {
            let expected = match scheme {
                "CRN" if !digits(id, 10) => Some("a commercial registration number (CRN) is 10 digits (BR-KSA-F-08)"),
                "700" if !(digits(id, 10) && id.starts_with('7')) => {
                    Some("a 700 number is 10 digits starting with 7 (BR-KSA-F-09)")
                }
                _ => None,
            };
            if let Some(expected) = expected {
                return Err(mistake(
                    "crn",
                    format!(
                        "{id:?}: {expected}; write the digits alone, set id_scheme for another kind of \
                         identifier, or leave crn out"
                    ),
                ));
            }
        }
        if self.country_code() == "SA" {
            let b = &self.building_number;
            if !b.is_empty() && !digits(b, 4) {
                return Err(mistake(
                    "building_number",
                    format!(
                        "{b:?}: a Saudi national address's building number is 4 digits, such as \"2322\" (BR-KSA-37)"
                    ),
                ));
            }
            let p = &self.postal_zone;
            if !p.is_empty() && !digits(p, 5) {
                return Err(mistake(
                    "postal_zone",
                    format!("{p:?}: a Saudi postal code is 5 digits, such as \"12211\" (BR-KSA-66)"),
                ));
            }
        }
        Ok(())
    }

    /// Every text of the table holds only characters XML can: a control character (a vertical
    /// tab or form feed pasted from a multi-line cell) would be in every document's XML, and the
    /// API refuses each of them.
    fn fit_for_xml(&self) -> Result<(), SellerMistake> {
        let texts: [(&'static str, Option<&str>); 12] = [
            ("name", Some(&self.name)),
            ("vat_number", Some(&self.vat_number)),
            ("crn", self.crn.as_deref()),
            ("id_scheme", self.id_scheme.as_deref()),
            ("street", Some(&self.street)),
            ("building_number", Some(&self.building_number)),
            ("plot", Some(&self.plot)),
            ("district", Some(&self.district)),
            ("city", Some(&self.city)),
            ("postal_zone", Some(&self.postal_zone)),
            ("country", self.country.as_deref()),
            ("subentity", Some(&self.subentity)),
        ];
        for (key, text) in texts {
            let Some(text) = text else { continue };
            if let Some(at) = xml_unfit_at(text) {
                let c = text[at..].chars().next().unwrap_or_default();
                return Err(mistake(
                    key,
                    format!(
                        "{text:?} holds the character U+{:04X} at character {}, which XML cannot hold (the API \
                         would refuse every document): remove it, or replace it with a space",
                        u32::from(c),
                        text[..at].chars().count() + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The seller as a document party.
    pub fn party(&self) -> Party {
        Party {
            vat_number: Some(self.vat_number.trim().to_string()),
            tax_type: "VAT".into(),
            registration_name: self.name.clone(),
            address: Address {
                street_name: self.street.clone(),
                building_number: self.building_number.clone(),
                plot_identification: self.plot.clone(),
                city_subdivision_name: self.district.clone(),
                city_name: self.city.clone(),
                postal_zone: self.postal_zone.clone(),
                country: self.country_code(),
                country_subentity: self.subentity.clone(),
            },
            party_identification: self.crn.as_ref().map(|id| PartyIdentification {
                scheme: self.id_scheme.clone().unwrap_or_else(|| "CRN".into()),
                id: id.clone(),
            }),
        }
    }
}
