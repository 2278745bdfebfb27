//! Decimal amounts on the wire as JSON numbers (D12), never as strings and never through `f64`.
//!
//! Serialisation writes the decimal's exact digits as a JSON number (serde_json's
//! `arbitrary_precision` number token). Deserialisation is tolerant: it accepts a JSON number
//! (exactly, from its text), a numeric string, or an integer.

use crate::text::Trimmed;
use rust_decimal::Decimal;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserializer, Serializer};
use std::fmt;
use std::str::FromStr;

/// serde_json's private token for a number kept as text (feature `arbitrary_precision`).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Serialise a decimal as a JSON number with its exact digits.
pub fn serialize<S: Serializer>(value: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        let mut s = serializer.serialize_struct(NUMBER_TOKEN, 1)?;
        s.serialize_field(NUMBER_TOKEN, &value.to_string())?;
        s.end()
    } else {
        serializer.serialize_str(&value.to_string())
    }
}

/// Deserialise a decimal from a JSON number, a numeric string or an integer.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
    deserializer.deserialize_any(DecimalVisitor)
}

/// Parse decimal text exactly (no silent rounding past 28 digits), accepting exponents.
pub fn parse_exact(text: &str) -> Option<Decimal> {
    let t = text.trimmed();
    if t.is_empty() {
        return None;
    }
    Decimal::from_str_exact(t)
        .ok()
        .or_else(|| Decimal::from_scientific(t).ok())
}

pub(crate) struct DecimalVisitor;

impl<'de> Visitor<'de> for DecimalVisitor {
    type Value = Decimal;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a decimal number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
        Ok(Decimal::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
        Ok(Decimal::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
        // Only reached from non-JSON formats; the shortest round-trip text is the intended value.
        Decimal::from_str(&v.to_string()).map_err(|_| E::custom(format!("{v} is not a decimal")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
        parse_exact(v).ok_or_else(|| E::custom(format!("{v:?} is not a decimal number")))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Decimal, A::Error> {
        let key: Option<String> = map.next_key()?;
        match key.as_deref() {
            Some(NUMBER_TOKEN) => {
                let text: String = map.next_value()?;
                parse_exact(&text).ok_or_else(|| de::Error::custom(format!("{text} is not a decimal number")))
            }
            _ => Err(de::Error::custom("expected a decimal number, found an object")),
        }
    }
}

/// The same, for optional amounts (`null` or absent means `None`).
pub mod option {
    use super::*;

    /// Serialise `Some` as a number and `None` as `null`.
    pub fn serialize<S: Serializer>(value: &Option<Decimal>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => super::serialize(v, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Deserialise `null` as `None`, anything else as an amount.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Decimal>, D::Error> {
        struct OptVisitor;
        impl<'de> Visitor<'de> for OptVisitor {
            type Value = Option<Decimal>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a decimal number or null")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                super::deserialize(d).map(Some)
            }
        }
        deserializer.deserialize_option(OptVisitor)
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal_macros::dec;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct A {
        #[serde(with = "super")]
        v: rust_decimal::Decimal,
    }

    #[test]
    fn writes_a_json_number_with_exact_digits() {
        let s = serde_json::to_string(&A {
            v: dec!(1234567890123.45),
        })
        .unwrap();
        assert_eq!(s, r#"{"v":1234567890123.45}"#);
        let s = serde_json::to_string(&A { v: dec!(0.10) }).unwrap();
        assert_eq!(s, r#"{"v":0.10}"#);
    }

    #[test]
    fn reads_numbers_strings_and_integers_exactly() {
        for (text, want) in [
            (r#"{"v":0.3}"#, dec!(0.3)),
            (r#"{"v":"12.345678"}"#, dec!(12.345678)),
            (r#"{"v":15}"#, dec!(15)),
            (r#"{"v":-2.665}"#, dec!(-2.665)),
            (r#"{"v":1e2}"#, dec!(100)),
        ] {
            let a: A = serde_json::from_str(text).unwrap();
            assert_eq!(a.v, want, "{text}");
        }
        let v: serde_json::Value = serde_json::from_str(r#"{"v":0.1}"#).unwrap();
        let a: A = serde_json::from_value(v).unwrap();
        assert_eq!(a.v, dec!(0.1));
    }

    #[test]
    fn rejects_non_numbers() {
        assert!(serde_json::from_str::<A>(r#"{"v":"abc"}"#).is_err());
        assert!(serde_json::from_str::<A>(r#"{"v":true}"#).is_err());
        assert!(serde_json::from_str::<A>(r#"{"v":{}}"#).is_err());
    }
}
