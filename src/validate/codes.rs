//! Code lists of the authority's rules (SDK 3.4.5) and the aliases this project accepts (D13).

use crate::text::Trimmed;
use std::sync::LazyLock;

/// ISO 4217 alpha-3 currency codes as the rules list them (BR-KSA-CL-01, BR-CL-03/04/05).
const CURRENCIES: &str = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD \
    BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD \
    FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW \
    KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRO MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO \
    NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLL SOS SRD SSP STD \
    SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UZS VEF VND VUV WST XAF XAG XAU XBA XBB \
    XBC XBD XCD XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWL";

/// ISO 3166-1 alpha-2 country codes as BR-CL-14 lists them.
const COUNTRIES: &str = "1A AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO \
    BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER \
    ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN \
    IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH \
    MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN \
    PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ \
    TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XI YE YT ZA ZM ZW";

/// UNTDID 7161 charge reason codes as BR-KSA-CL-06 lists them (its `CAPCAQ` read as `CAP CAQ`).
const CHARGE_REASONS: &str = "AA AAA AAC AAD AAE AAF AAH AAI AAS AAT AAV AAY AAZ ABA ABB ABC ABD ABF ABK ABL ABN ABR \
    ABS ABT ABU ACF ACG ACH ACI ACJ ACK ACL ACM ACS ADC ADE ADJ ADK ADL ADM ADN ADO ADP ADQ ADR ADT ADW ADY ADZ AEA \
    AEB AEC AED AEF AEH AEI AEJ AEK AEL AEM AEN AEO AEP AES AET AEU AEV AEW AEX AEY AEZ AJ AU CA CAB CAD CAE CAF CAI \
    CAJ CAK CAL CAM CAN CAO CAP CAQ CAR CAS CAT CAU CAV CAW CD CG CS CT DAB DAD DL EG EP ER FAA FAB FAC FC FH FI GAA \
    HAA HD HH IAA AB ID IF IR IS KO L1 LA LAA LAB LF MAE MI ML NAA OA PA PAA PC PL RAB RAC RAD RAF RE RF RH RV SA SAA \
    SAD SAE SAI SG SH SM SU TAB AC TT TV V1 V2 WH XAA YY ZZZ";

/// UNCL 5305 tax category codes (BR-CL-18).
const UNCL5305: &str = "AE L M E S Z G O K B";

/// The VAT categories the authority accepts (BR-KSA-18).
pub(crate) const KSA_CATEGORIES: [&str; 4] = ["S", "Z", "E", "O"];

/// Seller ID schemes (BR-KSA-08).
pub(crate) const SELLER_SCHEMES: [&str; 6] = ["CRN", "MOM", "MLS", "SAG", "OTH", "700"];

/// Buyer ID schemes (BR-KSA-14).
pub(crate) const BUYER_SCHEMES: [&str; 11] = [
    "TIN", "NAT", "IQA", "PAS", "CRN", "MOM", "MLS", "700", "SAG", "GCC", "OTH",
];

/// Exemption reason codes of zero-rated supplies (BR-KSA-CL-04).
const ZERO_RATED_REASONS: [&str; 16] = [
    "VATEX-SA-32",
    "VATEX-SA-33",
    "VATEX-SA-34-1",
    "VATEX-SA-34-2",
    "VATEX-SA-34-3",
    "VATEX-SA-34-4",
    "VATEX-SA-34-5",
    "VATEX-SA-35",
    "VATEX-SA-36",
    "VATEX-SA-EDU",
    "VATEX-SA-HEA",
    "VATEX-SA-MLTRY",
    "VATEX-SA-DIPLOMAT",
    "VATEX-SA-DUTYFREE",
    "VATEX-SA-ROYALDECREE",
    "VATEX-SA-32(bis)",
];

/// Exemption reason codes of exempt supplies (BR-KSA-CL-04).
const EXEMPT_REASONS: [&str; 3] = ["VATEX-SA-29", "VATEX-SA-29-7", "VATEX-SA-30"];

/// The exception code of out-of-scope supplies (BR-KSA-CL-04).
const OUT_OF_SCOPE_REASONS: [&str; 1] = ["VATEX-SA-OOS"];

/// Payment means codes of BR-KSA-16 (UNTDID 4461 without 69).
fn ksa_payment_means(code: &str) -> bool {
    match code.parse::<u32>() {
        Ok(n) if !code.starts_with('0') && !code.starts_with('+') => {
            matches!(n, 1..=68 | 70 | 74..=78 | 91..=97)
        }
        _ => code == "ZZZ",
    }
}

/// A code list as a set, built once (a linear scan of the list per amount was a measurable part
/// of `check`; see BENCHMARKS.md): the codes packed into integers ([`pack`]), sorted, for a
/// binary search (hashing a two-letter code cost more than the search).
type CodeSet = LazyLock<Vec<u64>>;

/// A code of at most seven bytes as one integer: its bytes, then its length (so `A` and `A\0`
/// differ). `None` for a longer code, which no list holds.
fn pack(code: &str) -> Option<u64> {
    let b = code.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut v = [0u8; 8];
    v[..b.len()].copy_from_slice(b);
    v[7] = b.len() as u8;
    Some(u64::from_be_bytes(v))
}

fn set(list: &'static str) -> Vec<u64> {
    let mut codes: Vec<u64> = list.split_ascii_whitespace().filter_map(pack).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

static CURRENCY_SET: CodeSet = LazyLock::new(|| set(CURRENCIES));
static COUNTRY_SET: CodeSet = LazyLock::new(|| set(COUNTRIES));
static CHARGE_REASON_SET: CodeSet = LazyLock::new(|| set(CHARGE_REASONS));
static UNCL5305_SET: CodeSet = LazyLock::new(|| set(UNCL5305));

fn in_list(list: &CodeSet, code: &str) -> bool {
    !code.is_empty() && pack(code).is_some_and(|c| list.binary_search(&c).is_ok())
}

/// True for an ISO 4217 currency code.
pub(crate) fn is_currency(code: &str) -> bool {
    // The currency of nearly every document: no lookup.
    code == "SAR" || in_list(&CURRENCY_SET, code)
}

/// True for an ISO 3166-1 alpha-2 country code.
pub(crate) fn is_country(code: &str) -> bool {
    in_list(&COUNTRY_SET, code)
}

/// True for a UNTDID 7161 charge reason code.
pub(crate) fn is_charge_reason(code: &str) -> bool {
    in_list(&CHARGE_REASON_SET, code)
}

/// True for a UNCL 5305 tax category code.
pub(crate) fn is_uncl5305(code: &str) -> bool {
    in_list(&UNCL5305_SET, code)
}

/// The exemption reason codes allowed for a VAT category (empty for S and unknown categories).
pub(crate) fn exemption_reasons(category: &str) -> &'static [&'static str] {
    match category {
        "Z" => &ZERO_RATED_REASONS,
        "E" => &EXEMPT_REASONS,
        "O" => &OUT_OF_SCOPE_REASONS,
        _ => &[],
    }
}

/// The UN/ECE 4461 code of a payment means as the document gives it: the code itself, or one of the
/// words D13 accepts (`cash`, `credit`, `bank-payment`, `card`, any case).
pub(crate) fn payment_means_code(given: &str) -> &str {
    let t = given.trimmed();
    match t.to_ascii_lowercase().as_str() {
        "cash" => "10",
        "credit" => "30",
        "bank-payment" => "42",
        "card" => "48",
        _ => t,
    }
}

/// Whether a payment means (after [`payment_means_code`]) passes BR-KSA-16 and BR-CL-16.
pub(crate) fn payment_means_lists(code: &str) -> (bool, bool) {
    let ksa = ksa_payment_means(code);
    (ksa, ksa || code == "69")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert!(is_currency("SAR") && is_currency("USD") && !is_currency("sar") && !is_currency("XYZ"));
        assert!(!is_currency(""));
        assert!(is_country("SA") && !is_country("KSA"));
        assert!(is_charge_reason("CAP") && is_charge_reason("CAQ") && !is_charge_reason("CAPCAQ"));
        assert!(is_uncl5305("AE") && !is_uncl5305("X"));
        assert!(exemption_reasons("Z").contains(&"VATEX-SA-EDU"));
        assert!(exemption_reasons("S").is_empty());
    }

    #[test]
    fn every_listed_code_is_in_its_set() {
        for (list, set) in [
            (CURRENCIES, &CURRENCY_SET),
            (COUNTRIES, &COUNTRY_SET),
            (CHARGE_REASONS, &CHARGE_REASON_SET),
            (UNCL5305, &UNCL5305_SET),
        ] {
            let codes: Vec<&str> = list.split_ascii_whitespace().collect();
            let mut distinct = codes.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(set.len(), distinct.len(), "every code fits in the packed form");
            for code in codes {
                assert!(in_list(set, code), "{code}");
                for near in [
                    format!("{code}\0"),
                    code.to_lowercase(),
                    format!(" {code}"),
                    code[1..].to_string(),
                ] {
                    assert_eq!(in_list(set, &near), codes_hold(list, &near), "{near:?}");
                }
            }
        }
        assert!(!in_list(&COUNTRY_SET, "SAUDI ARABIA"));
    }

    fn codes_hold(list: &str, code: &str) -> bool {
        list.split_ascii_whitespace().any(|c| c == code)
    }

    #[test]
    fn payment_means() {
        assert_eq!(payment_means_code(" Cash "), "10");
        assert_eq!(payment_means_code("bank-payment"), "42");
        assert_eq!(payment_means_code("48"), "48");
        assert_eq!(payment_means_lists("10"), (true, true));
        assert_eq!(payment_means_lists("69"), (false, true));
        assert_eq!(payment_means_lists("ZZZ"), (true, true));
        for bad in ["0", "010", "71", "98", "+10", "cheque", ""] {
            assert_eq!(payment_means_lists(bad), (false, false), "{bad}");
        }
    }
}
