//! The rule table: every code [`super::validate`] can report, with its severity and a one-line
//! description.
//!
//! Severities of the authority's rules are the flags of SDK 3.4.5 (`zatca-rules-ksa.tsv`,
//! `zatca-rules-en16931.tsv`); a test compares them with those files when they are at hand.
//! Every finding is made through one of these entries ([`RuleInfo::at`]), so a code can never be
//! reported with a severity other than the table's.

use super::finding::{Finding, Severity};

/// One rule: its code, how bad a failure is, and what it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// The authority's rule id (`BR-KSA-40`), a D-decision code (`certificate-permissions`) or
    /// ours (`INV-...`).
    pub code: &'static str,
    /// Error (the document is not sent) or warning.
    pub severity: Severity,
    /// What the rule checks, in one line.
    pub description: &'static str,
}

impl RuleInfo {
    /// A finding of this rule at `path`.
    pub(crate) fn at(&self, path: impl Into<String>, value: Option<String>, message: impl Into<String>) -> Finding {
        Finding {
            code: self.code.to_string(),
            severity: self.severity,
            path: path.into(),
            value,
            message: message.into(),
        }
    }
}

macro_rules! rule_table {
    ($( $ident:ident = $code:literal, $sev:ident, $desc:literal; )*) => {
        $(
            #[doc = $desc]
            pub(crate) const $ident: RuleInfo = RuleInfo { code: $code, severity: Severity::$sev, description: $desc };
        )*
        static ALL: &[RuleInfo] = &[$($ident),*];
    };
}

rule_table! {
    // Document header, currencies, payment means, notes.
    BR_02 = "BR-02", Warning, "The document has a number (BT-1).";
    BR_05 = "BR-05", Error, "The document has a currency code (BT-5).";
    BR_16 = "BR-16", Error, "The document has at least one line.";
    BR_KSA_CL_01 = "BR-KSA-CL-01", Error, "The document currency is an ISO 4217 code.";
    BR_CL_04 = "BR-CL-04", Error, "The document currency is an ISO 4217 code (EN 16931).";
    BR_KSA_68 = "BR-KSA-68", Error, "The tax currency code (BT-6) is present.";
    BR_CL_05 = "BR-CL-05", Error, "The tax currency is an ISO 4217 code.";
    BR_KSA_EN16931_02 = "BR-KSA-EN16931-02", Error, "The tax currency code (BT-6) is SAR.";
    BR_KSA_CL_02 = "BR-KSA-CL-02", Error, "Every amount's currency is the document currency.";
    BR_CL_03 = "BR-CL-03", Error, "Every amount's currency is an ISO 4217 code.";
    INV_SAR_VAT = "INV-SAR-VAT", Error, "A document in a foreign currency has its VAT total in SAR (BT-111), from its exchange rate: without it the API cannot issue it (the authority's BR-53, a warning, asks for the same; the SAR TaxTotal of BR-KSA-EN16931-08 cannot be written).";
    BR_KSA_97 = "BR-KSA-97", Warning, "In a foreign-currency document the VAT total in SAR differs from the VAT total.";
    BR_KSA_90 = "BR-KSA-90", Error, "The tax exchange rate has at most 14 characters.";
    BR_KSA_16 = "BR-KSA-16", Warning, "The payment means code is from the authority's UNTDID 4461 subset.";
    BR_CL_16 = "BR-CL-16", Warning, "The payment means code is from UNTDID 4461.";
    INV_PAYMENT_MEANS_REQUIRED = "INV-PAYMENT-MEANS-REQUIRED", Error, "A standard document states its payment means (api.md 2.5).";
    INV_PAYMENT_MEANS_UNKNOWN = "INV-PAYMENT-MEANS-UNKNOWN", Error, "The payment means is a UNTDID 4461 code or one of the words of D13 (cash, credit, bank-payment, card).";
    BR_KSA_17 = "BR-KSA-17", Error, "A credit or debit note states the reason for issuing it (KSA-10).";
    BR_KSA_56 = "BR-KSA-56", Warning, "A credit or debit note references the invoice it corrects (BT-25).";
    INV_BILLING_REFERENCE_FORM = "INV-BILLING-REFERENCE-FORM", Warning, "A note's billing reference has the form of D10 and a date not after the note's.";
    // Dates.
    BR_KSA_04 = "BR-KSA-04", Error, "The issue date is not after today (Riyadh time).";
    BR_KSA_98 = "BR-KSA-98", Warning, "A simplified document is submitted within 24 hours of its issue.";
    BR_KSA_F_01 = "BR-KSA-F-01", Error, "Dates are YYYY-MM-DD in the years 2000 to 9999.";
    INV_LATE_INVOICE = "INV-LATE-INVOICE", Warning, "The invoice is issued by the 15th of the month after the supply.";
    // Seller and buyer.
    BR_06 = "BR-06", Warning, "The seller has a name (BT-27).";
    BR_KSA_39 = "BR-KSA-39", Error, "The seller's VAT number is present, under the VAT scheme.";
    BR_KSA_40 = "BR-KSA-40", Error, "The seller's VAT number is 15 digits, first and last digit 3.";
    BR_KSA_44 = "BR-KSA-44", Error, "The buyer's VAT number, if any, is 15 digits, first and last digit 3.";
    BR_KSA_99 = "BR-KSA-99", Warning, "The buyer's VAT number is not present but empty.";
    BR_CUSTOM_VALIDATION_01 = "BR-CUSTOM-VALIDATION-01", Error, "The seller's and the buyer's VAT numbers differ.";
    BR_KSA_08 = "BR-KSA-08", Warning, "The seller's other ID has scheme CRN, MOM, MLS, SAG, OTH or 700 and is alphanumeric.";
    BR_KSA_14 = "BR-KSA-14", Error, "The buyer's other ID has an allowed scheme and is alphanumeric.";
    BR_KSA_F_07 = "BR-KSA-F-07", Warning, "A buyer TIN is 10 digits starting with 3.";
    BR_KSA_F_08 = "BR-KSA-F-08", Warning, "A CRN is 10 digits.";
    BR_KSA_F_09 = "BR-KSA-F-09", Warning, "A 700 number is 10 digits starting with 7.";
    BR_KSA_F_10 = "BR-KSA-F-10", Warning, "A buyer national ID (NAT) is 10 digits starting with 1.";
    BR_KSA_F_11 = "BR-KSA-F-11", Warning, "A buyer iqama (IQA) is 10 digits starting with 2.";
    BR_KSA_F_12 = "BR-KSA-F-12", Warning, "An ID scheme has no leading or trailing spaces.";
    BR_KSA_F_13 = "BR-KSA-F-13", Warning, "An ID is not a run of repeated or consecutive digits.";
    BR_KSA_42 = "BR-KSA-42", Warning, "A standard document names the buyer (BT-44).";
    BR_KSA_81 = "BR-KSA-81", Warning, "A standard document's buyer without VAT number has another ID (BT-46).";
    BR_KSA_49 = "BR-KSA-49", Error, "Exemption VATEX-SA-EDU or VATEX-SA-HEA needs the buyer's national ID (scheme NAT).";
    BR_KSA_25 = "BR-KSA-25", Warning, "A simplified document exempt as VATEX-SA-EDU or VATEX-SA-HEA names the buyer.";
    // Addresses.
    BR_09 = "BR-09", Warning, "The seller's address has a country code.";
    BR_CL_14 = "BR-CL-14", Warning, "Country codes are ISO 3166-1 alpha-2.";
    BR_KSA_09 = "BR-KSA-09", Warning, "The seller's address has street, building number, postal code, city, district and country.";
    BR_KSA_10 = "BR-KSA-10", Warning, "A standard document's buyer address has street, city and country.";
    BR_KSA_37 = "BR-KSA-37", Warning, "The seller's building number is 4 digits.";
    BR_KSA_63 = "BR-KSA-63", Warning, "A Saudi buyer of a standard document has a full national address.";
    BR_KSA_66 = "BR-KSA-66", Warning, "The seller's postal code is 5 digits.";
    BR_KSA_67 = "BR-KSA-67", Warning, "A Saudi buyer's postal code on a standard document is 5 digits.";
    // Field lengths.
    BR_KSA_F_06_C1 = "BR-KSA-F-06-C1", Warning, "The document number has at most 127 characters.";
    BR_KSA_F_06_C2 = "BR-KSA-F-06-C2", Warning, "The note has at most 1000 characters.";
    BR_KSA_F_06_C4 = "BR-KSA-F-06-C4", Warning, "The seller's street has at most 1000 characters.";
    BR_KSA_F_06_C7 = "BR-KSA-F-06-C7", Warning, "The seller's city has at most 127 characters.";
    BR_KSA_F_06_C8 = "BR-KSA-F-06-C8", Warning, "The seller's region has at most 127 characters.";
    BR_KSA_F_06_C9 = "BR-KSA-F-06-C9", Warning, "The seller's district has at most 127 characters.";
    BR_KSA_F_06_C10 = "BR-KSA-F-06-C10", Warning, "The seller's name has 1 to 1000 characters.";
    BR_KSA_F_06_C12 = "BR-KSA-F-06-C12", Warning, "A standard document's buyer name has 1 to 1000 characters.";
    BR_KSA_F_06_C13 = "BR-KSA-F-06-C13", Warning, "The payment instruction note (a note's reason) has at most 1000 characters.";
    BR_KSA_F_06_C16 = "BR-KSA-F-06-C16", Warning, "A Z, E or O breakdown has an exemption reason text of 1 to 1000 characters.";
    BR_KSA_F_06_C17 = "BR-KSA-F-06-C17", Error, "A line id has 1 to 6 characters.";
    BR_KSA_F_06_C18 = "BR-KSA-F-06-C18", Warning, "A line's unit code has at most 127 characters.";
    BR_KSA_F_06_C19 = "BR-KSA-F-06-C19", Warning, "An item name has 3 to 1000 characters.";
    BR_KSA_F_06_C21 = "BR-KSA-F-06-C21", Warning, "A price's base unit code has at most 127 characters.";
    BR_KSA_F_06_C22 = "BR-KSA-F-06-C22", Error, "The billing reference has at most 5000 characters.";
    BR_KSA_F_06_C23 = "BR-KSA-F-06-C23", Warning, "A standard document's buyer street has 1 to 1000 characters.";
    BR_KSA_F_06_C24 = "BR-KSA-F-06-C24", Warning, "The buyer's street has at most 1000 characters.";
    BR_KSA_F_06_C25 = "BR-KSA-F-06-C25", Warning, "A standard document's buyer city is present.";
    BR_KSA_F_06_C26 = "BR-KSA-F-06-C26", Warning, "The buyer's city has at most 127 characters.";
    BR_KSA_F_06_C27 = "BR-KSA-F-06-C27", Warning, "The buyer's region has at most 127 characters.";
    BR_KSA_F_06_C28 = "BR-KSA-F-06-C28", Warning, "A Saudi buyer of a standard document has a district.";
    BR_KSA_F_06_C29 = "BR-KSA-F-06-C29", Warning, "A Saudi buyer's district has at most 127 characters.";
    BR_KSA_F_06_C32 = "BR-KSA-F-06-C32", Warning, "The buyer's name has at most 1000 characters.";
    BR_KSA_F_06_C33 = "BR-KSA-F-06-C33", Warning, "A document charge's reason has at most 1000 characters.";
    BR_KSA_F_06_C34 = "BR-KSA-F-06-C34", Warning, "A line charge's reason has at most 1000 characters.";
    BR_KSA_F_06_C35 = "BR-KSA-F-06-C35", Warning, "A document discount's reason has at most 1000 characters.";
    BR_KSA_F_06_C36 = "BR-KSA-F-06-C36", Warning, "A line discount's reason has at most 1000 characters.";
    // Tax categories and exemption reasons.
    BR_KSA_18 = "BR-KSA-18", Error, "VAT categories are S, Z, E or O.";
    BR_CL_18 = "BR-CL-18", Error, "VAT categories are UNCL 5305 codes.";
    BR_CO_04 = "BR-CO-04", Error, "Every line has a VAT category.";
    BR_32 = "BR-32", Error, "Every document discount has a VAT category.";
    BR_37 = "BR-37", Warning, "Every document charge has a VAT category.";
    BR_47 = "BR-47", Error, "Every VAT breakdown has a VAT category.";
    INV_TAX_TYPE = "INV-TAX-TYPE", Error, "Every tax category's tax type is VAT.";
    BR_KSA_DEC_02 = "BR-KSA-DEC-02", Error, "VAT rates are 0 to 100 with at most 2 decimals.";
    BR_KSA_84 = "BR-KSA-84", Error, "Standard-rated (S) VAT rates are 15 or 5.";
    BR_S_05 = "BR-S-05", Warning, "A standard-rated line has a rate above zero.";
    BR_S_06 = "BR-S-06", Error, "A standard-rated document discount has a rate above zero.";
    BR_S_07 = "BR-S-07", Warning, "A standard-rated document charge has a rate above zero.";
    BR_Z_05 = "BR-Z-05", Error, "A zero-rated line has rate 0.";
    BR_Z_06 = "BR-Z-06", Error, "A zero-rated document discount has rate 0.";
    BR_Z_07 = "BR-Z-07", Error, "A zero-rated document charge has rate 0.";
    BR_E_05 = "BR-E-05", Error, "An exempt line has rate 0.";
    BR_E_06 = "BR-E-06", Error, "An exempt document discount has rate 0.";
    BR_E_07 = "BR-E-07", Error, "An exempt document charge has rate 0.";
    BR_KSA_11 = "BR-KSA-11", Error, "An out-of-scope (O) line has rate 0.";
    BR_KSA_12 = "BR-KSA-12", Warning, "An out-of-scope document discount has rate 0.";
    BR_KSA_13 = "BR-KSA-13", Warning, "An out-of-scope document charge has rate 0.";
    BR_S_01 = "BR-S-01", Warning, "Standard-rated lines, discounts or charges have an S breakdown.";
    BR_Z_01 = "BR-Z-01", Warning, "Zero-rated lines, discounts or charges have a Z breakdown.";
    BR_E_01 = "BR-E-01", Warning, "Exempt lines, discounts or charges have an E breakdown.";
    BR_O_01 = "BR-O-01", Warning, "Out-of-scope lines, discounts or charges have an O breakdown.";
    BR_KSA_23 = "BR-KSA-23", Warning, "An exempt (E) breakdown has an exemption reason code.";
    BR_KSA_24 = "BR-KSA-24", Warning, "An out-of-scope (O) breakdown has an exception reason code.";
    BR_KSA_69 = "BR-KSA-69", Warning, "A zero-rated (Z) breakdown has an exemption reason code.";
    BR_KSA_83 = "BR-KSA-83", Warning, "A Z, E or O breakdown has an exemption reason text.";
    BR_KSA_CL_04 = "BR-KSA-CL-04", Warning, "Exemption reason codes come from the authority's list for the category.";
    BR_S_10 = "BR-S-10", Warning, "A standard-rated breakdown has no exemption reason.";
    INV_EXEMPTION_MIXED = "INV-EXEMPTION-MIXED", Error, "The lines, discounts and charges of one VAT breakdown (category and rate) give one exemption reason code: a breakdown carries one reason, so another line's would be issued under the first's.";
    INV_EXEMPTION_TEXT = "INV-EXEMPTION-TEXT", Warning, "The lines of one VAT breakdown with one exemption reason code give one reason text: the breakdown carries the first's.";
    // Lines.
    BR_21 = "BR-21", Warning, "Every line has an id.";
    INV_DUPLICATE_LINE_ID = "INV-DUPLICATE-LINE-ID", Warning, "Line ids are unique within the document.";
    INV_ZERO_QUANTITY = "INV-ZERO-QUANTITY", Error, "A line's quantity is not zero.";
    INV_EMPTY_ITEM_NAME = "INV-EMPTY-ITEM-NAME", Error, "Every line names its item.";
    BR_KSA_F_C_01 = "BR-KSA-F-C-01", Warning, "An item name is not only digits.";
    BR_KSA_EN16931_06 = "BR-KSA-EN16931-06", Error, "There is no charge at price level, only a price discount.";
    BR_KSA_EN16931_07 = "BR-KSA-EN16931-07", Error, "Net price = gross price − price discount.";
    BR_KSA_EN16931_11 = "BR-KSA-EN16931-11", Warning, "Line net = quantity × price ÷ base quantity + charges − discounts (±0.01).";
    BR_KSA_EN16931_12 = "BR-KSA-EN16931-12", Error, "A price's base quantity is above zero.";
    BR_KSA_51 = "BR-KSA-51", Warning, "Line amount with VAT (KSA-12) = line net + line VAT.";
    BR_KSA_DEC_03 = "BR-KSA-DEC-03", Warning, "A line's VAT amount has at most 2 decimals.";
    BR_KSA_DEC_04 = "BR-KSA-DEC-04", Warning, "A line's amount with VAT has at most 2 decimals.";
    BR_DEC_23 = "BR-DEC-23", Warning, "A line's net amount has at most 2 decimals.";
    BR_DEC_24 = "BR-DEC-24", Warning, "A line discount has at most 2 decimals.";
    BR_DEC_27 = "BR-DEC-27", Warning, "A line charge has at most 2 decimals.";
    BR_KSA_20 = "BR-KSA-20", Warning, "A line charge has a reason code.";
    BR_KSA_22 = "BR-KSA-22", Warning, "A line charge has a reason.";
    BR_KSA_CL_06 = "BR-KSA-CL-06", Warning, "Charge reason codes come from UNTDID 7161.";
    BR_KSA_F_04 = "BR-KSA-F-04", Error, "Amounts and quantities are not negative.";
    // Document discounts and charges.
    BR_KSA_19 = "BR-KSA-19", Warning, "A document charge has a reason code.";
    BR_KSA_21 = "BR-KSA-21", Warning, "A document charge has a reason.";
    BR_KSA_DEC_01 = "BR-KSA-DEC-01", Error, "A discount percentage is 0 to 100 with at most 2 decimals.";
    BR_DEC_01 = "BR-DEC-01", Warning, "A document discount has at most 2 decimals.";
    BR_DEC_02 = "BR-DEC-02", Warning, "A document discount's base amount has at most 2 decimals.";
    BR_DEC_05 = "BR-DEC-05", Warning, "A document charge has at most 2 decimals.";
    BR_DEC_06 = "BR-DEC-06", Warning, "A document charge's base amount has at most 2 decimals.";
    BR_KSA_EN16931_03 = "BR-KSA-EN16931-03", Warning, "Discount or charge amount = base amount × percentage ÷ 100.";
    BR_KSA_EN16931_04 = "BR-KSA-EN16931-04", Warning, "A discount or charge with a percentage has a base amount.";
    BR_KSA_EN16931_05 = "BR-KSA-EN16931-05", Warning, "A discount or charge with a base amount has a percentage.";
    // Totals.
    BR_CO_10 = "BR-CO-10", Warning, "Sum of line net amounts (BT-106) = Σ line net amounts.";
    BR_CO_11 = "BR-CO-11", Error, "Sum of document discounts (BT-107) = Σ document discounts.";
    BR_CO_12 = "BR-CO-12", Error, "Sum of document charges (BT-108) = Σ document charges.";
    BR_CO_13 = "BR-CO-13", Warning, "Total without VAT (BT-109) = Σ line nets − discounts + charges.";
    BR_CO_14 = "BR-CO-14", Error, "VAT total (BT-110) = Σ VAT of the breakdowns.";
    BR_CO_15 = "BR-CO-15", Error, "Total with VAT (BT-112) = total without VAT + Σ breakdown VAT.";
    BR_CO_16 = "BR-CO-16", Warning, "Amount due (BT-115) = total with VAT − prepaid + rounding.";
    BR_CO_17 = "BR-CO-17", Warning, "Breakdown VAT = taxable × rate ÷ 100, within 0.01 per line.";
    BR_CO_18 = "BR-CO-18", Error, "The document has at least one VAT breakdown.";
    BR_S_08 = "BR-S-08", Warning, "S taxable amounts = Σ S line nets + S charges − S discounts.";
    BR_S_09 = "BR-S-09", Warning, "S breakdown VAT = taxable × rate ÷ 100, within 0.01 per line.";
    BR_Z_08 = "BR-Z-08", Warning, "Z taxable amount = Σ Z line nets + Z charges − Z discounts.";
    BR_Z_09 = "BR-Z-09", Error, "Z breakdown VAT is 0.";
    BR_E_08 = "BR-E-08", Warning, "E taxable amount = Σ E line nets + E charges − E discounts.";
    BR_E_09 = "BR-E-09", Error, "E breakdown VAT is 0.";
    BR_O_08 = "BR-O-08", Warning, "O taxable amount = Σ O line nets + O charges − O discounts.";
    BR_O_09 = "BR-O-09", Error, "O breakdown VAT is 0.";
    BR_DEC_09 = "BR-DEC-09", Warning, "Sum of line nets (BT-106) has at most 2 decimals.";
    BR_DEC_10 = "BR-DEC-10", Warning, "Sum of document discounts (BT-107) has at most 2 decimals.";
    BR_DEC_11 = "BR-DEC-11", Warning, "Sum of document charges (BT-108) has at most 2 decimals.";
    BR_DEC_12 = "BR-DEC-12", Warning, "Total without VAT (BT-109) has at most 2 decimals.";
    BR_DEC_13 = "BR-DEC-13", Warning, "VAT total (BT-110) has at most 2 decimals.";
    BR_DEC_14 = "BR-DEC-14", Warning, "Total with VAT (BT-112) has at most 2 decimals.";
    BR_DEC_15 = "BR-DEC-15", Warning, "VAT total in SAR (BT-111) has at most 2 decimals.";
    BR_DEC_16 = "BR-DEC-16", Warning, "Prepaid amount (BT-113) has at most 2 decimals.";
    BR_DEC_17 = "BR-DEC-17", Warning, "Rounding amount (BT-114) has at most 2 decimals.";
    BR_DEC_18 = "BR-DEC-18", Warning, "Amount due (BT-115) has at most 2 decimals.";
    BR_DEC_19 = "BR-DEC-19", Warning, "A breakdown's taxable amount has at most 2 decimals.";
    BR_DEC_20 = "BR-DEC-20", Warning, "A breakdown's VAT amount has at most 2 decimals.";
    INV_AMOUNT_TOO_LARGE = "INV-AMOUNT-TOO-LARGE", Error, "Amounts are small enough to compute exactly.";
    INV_DOCUMENT_TOO_LARGE = "INV-DOCUMENT-TOO-LARGE", Error, "The request body that sends the document is at most the API's limit (1 MiB): a document of too many lines is split in the ERP.";
    // What the ERP export said.
    INV_ERP_LINE_NET = "INV-ERP-LINE-NET", Error, "The export's line net agrees with the computed one (±0.01).";
    INV_ERP_LINE_VAT = "INV-ERP-LINE-VAT", Error, "The export's line VAT agrees with the computed one (±0.01).";
    INV_ERP_LINE_GROSS = "INV-ERP-LINE-GROSS", Error, "The export's line amount with VAT agrees with the computed one (±0.01).";
    INV_ERP_TAX_EXCLUSIVE = "INV-ERP-TAX-EXCLUSIVE", Error, "The export's total without VAT agrees with the computed one (±0.01).";
    INV_ERP_TAX_TOTAL = "INV-ERP-TAX-TOTAL", Error, "The export's VAT total agrees with the computed one (±0.01).";
    INV_ERP_TOTAL = "INV-ERP-TOTAL", Error, "The export's total with VAT agrees with the computed one (±0.01).";
    INV_ERP_TAX_TOTAL_ROUNDING = "INV-ERP-TAX-TOTAL-ROUNDING", Warning, "The export's VAT total differs from the computed one by per-line rounding only (at most 0.01 per line with VAT): the computed VAT is issued.";
    INV_ERP_TOTAL_ROUNDING = "INV-ERP-TOTAL-ROUNDING", Warning, "The export's total with VAT differs from the computed one by per-line rounding only (at most 0.01 per line with VAT): the amount due is the export's, with a rounding amount (BT-114).";
    // The device (D7, D21).
    CERTIFICATE_PERMISSIONS = "certificate-permissions", Error, "The seller's VAT number is the device's (D21).";
    DEVICE_TYPE_NOT_ALLOWED = "DEVICE-TYPE-NOT-ALLOWED", Error, "The device was onboarded for this document type (D7).";
}

/// Every rule [`super::validate`] can report, in the order of the module documentation.
pub fn rules() -> &'static [RuleInfo] {
    ALL
}

/// The table entry of a code, if it is one of ours.
pub fn rule(code: &str) -> Option<&'static RuleInfo> {
    ALL.iter().find(|r| r.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::PathBuf;

    #[test]
    fn codes_are_unique_and_described() {
        let mut seen = HashSet::new();
        for r in rules() {
            assert!(seen.insert(r.code), "{} twice", r.code);
            assert!(!r.description.is_empty(), "{}", r.code);
        }
        assert!(rules().len() > 150, "{}", rules().len());
    }

    /// Every code of the table is named in a test of the module (a `rule_test!` or a hand-written
    /// test, in a `*_tests.rs` file or a file's `#[cfg(test)]` part), so a rule added without a
    /// passing and a breaking document fails here.
    #[test]
    fn every_rule_has_a_test() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/validate");
        let mut tests = String::new();
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // The table's own tests and the helpers name codes without testing them.
            if !name.ends_with(".rs") || ["rules.rs", "testkit.rs", "proptests.rs"].contains(&name.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if name.ends_with("_tests.rs") {
                tests.push_str(&text);
            } else if let Some(at) = text.find("#[cfg(test)]") {
                tests.push_str(&text[at..]);
            }
        }
        let missing: Vec<&str> = rules()
            .iter()
            .map(|r| r.code)
            .filter(|code| !tests.contains(&format!("\"{code}\"")))
            .collect();
        assert!(missing.is_empty(), "rules no test names: {missing:?}");
    }

    /// The rule dumps beside the CI checkout (`../shared`) or this machine's shared folder.
    fn rule_dump(name: &str) -> Option<String> {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        [here.join("../shared/reference"), here.join("../../shared/reference")]
            .iter()
            .find_map(|dir| std::fs::read_to_string(dir.join(name)).ok())
    }

    #[test]
    fn severities_are_the_sdk_flags() {
        let mut checked = 0;
        for name in ["zatca-rules-ksa.tsv", "zatca-rules-en16931.tsv"] {
            let Some(text) = rule_dump(name) else {
                eprintln!("{name} not found; skipping the comparison");
                return;
            };
            for row in text.lines().skip(1) {
                let mut cols = row.split('\t');
                let (Some(id), Some(flag)) = (cols.next(), cols.next()) else {
                    continue;
                };
                if let Some(r) = rule(id) {
                    let want = if flag == "error" {
                        Severity::Error
                    } else {
                        Severity::Warning
                    };
                    assert_eq!(r.severity, want, "{id}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 140, "only {checked} rules compared");
    }

    #[test]
    fn own_codes_are_marked() {
        for r in rules() {
            let authority = r.code.starts_with("BR-");
            let decision = matches!(r.code, "certificate-permissions" | "DEVICE-TYPE-NOT-ALLOWED");
            assert!(authority || decision || r.code.starts_with("INV-"), "{}", r.code);
        }
    }
}
