//! The bundled layouts the generator writes: names, headers, document numbers, what each can
//! express, and how its text files are written. The rows themselves are in `rows.rs`.

use super::model::{Discount, Features, Kind, Numbering, Tax};
use super::sink::TextStyle;
use chrono::{Datelike, NaiveDate};

/// An ERP export layout, one per bundled mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Xero sales invoice export (CSV).
    Xero,
    /// QuickBooks Online invoice export.
    QuickBooksOnline,
    /// Zoho Books `Invoice.csv`.
    ZohoBooks,
    /// Zoho Books `Credit_Note.csv`: credit notes only, exported apart from the invoices.
    ZohoBooksCreditNotes,
    /// Odoo `account.move` with continuation rows.
    Odoo,
    /// ERPNext Sales Invoice data export with continuation rows.
    ErpNext,
    /// SAP Business One DTW: a `Document_Lines` file and its `Documents` header file.
    SapB1Dtw,
    /// Sage 50 Line50 invoice lines.
    Sage50,
    /// Tally sales register.
    Tally,
    /// A legacy Arabic ERP: windows-1256, `;`, decimal comma.
    LegacyArabic,
}

impl Layout {
    /// Every layout.
    pub const ALL: [Layout; 10] = [
        Layout::Xero,
        Layout::QuickBooksOnline,
        Layout::ZohoBooks,
        Layout::ZohoBooksCreditNotes,
        Layout::Odoo,
        Layout::ErpNext,
        Layout::SapB1Dtw,
        Layout::Sage50,
        Layout::Tally,
        Layout::LegacyArabic,
    ];

    /// The layout's name: the name of its bundled mapping.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Xero => "xero",
            Layout::QuickBooksOnline => "quickbooks-online",
            Layout::ZohoBooks => "zoho-books",
            Layout::ZohoBooksCreditNotes => "zoho-books-credit-notes",
            Layout::Odoo => "odoo",
            Layout::ErpNext => "erpnext",
            Layout::SapB1Dtw => "sap-b1-dtw",
            Layout::Sage50 => "sage50",
            Layout::Tally => "tally",
            Layout::LegacyArabic => "legacy-arabic",
        }
    }

    /// The layout of a name (as [`Layout::name`] gives it, ignoring case).
    pub fn from_name(name: &str) -> Option<Layout> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }

    /// A file name that suits the layout (for examples and tests), with `ext`.
    pub fn example_file(self, ext: &str) -> String {
        let stem = match self {
            Layout::SapB1Dtw => "SAP_B1_OINV_Document_Lines",
            other => other.name(),
        };
        format!("{stem}.{ext}")
    }

    /// True when the layout's mapping reads buyers from `customers.csv`.
    pub fn uses_customers(self) -> bool {
        self != Layout::LegacyArabic
    }

    /// True when the layout's mapping reads the invoice a credit (or debit) note corrects, and
    /// why, from `credit_notes.csv`.
    pub fn uses_credit_notes(self) -> bool {
        matches!(self, Layout::QuickBooksOnline | Layout::Sage50 | Layout::Tally)
    }

    pub(crate) fn features(self) -> Features {
        use Tax::*;
        let base = Features {
            credit_notes: false,
            debit_notes: false,
            only_credit_notes: false,
            skips: false,
            discount: Discount::None,
            inclusive: false,
            taxes: &[S15, S15, S15, S5, Z, E],
            fractional: false,
        };
        match self {
            Layout::Xero => Features {
                credit_notes: true,
                skips: true,
                discount: Discount::Percent,
                taxes: &[S15, S15, S15, S5, Z, E, O],
                ..base
            },
            // Credit memos, written negative.
            Layout::QuickBooksOnline => Features {
                credit_notes: true,
                taxes: &[S15, S15, S15, S5, Z, E, O],
                ..base
            },
            Layout::ZohoBooks => Features {
                skips: true,
                discount: Discount::Amount,
                inclusive: true,
                fractional: true,
                ..base
            },
            Layout::ZohoBooksCreditNotes => Features {
                only_credit_notes: true,
                ..Layout::ZohoBooks.features()
            },
            Layout::Odoo => Features {
                credit_notes: true,
                discount: Discount::Percent,
                taxes: &[S15, S15, S15, S5, Z, E, O],
                fractional: true,
                ..base
            },
            Layout::ErpNext => Features {
                credit_notes: true,
                debit_notes: true,
                fractional: true,
                ..base
            },
            Layout::SapB1Dtw => Features {
                discount: Discount::Percent,
                ..base
            },
            Layout::Sage50 => Features {
                credit_notes: true,
                taxes: &[S15, S15, S15, S5, Z, E, O],
                ..base
            },
            Layout::Tally => Features {
                credit_notes: true,
                debit_notes: true,
                taxes: &[S15],
                ..base
            },
            Layout::LegacyArabic => Features {
                credit_notes: true,
                debit_notes: true,
                discount: Discount::Percent,
                ..base
            },
        }
    }

    pub(crate) fn numbering(self) -> Numbering {
        // Debit notes in the layouts that have them; the others never draw one, and number it
        // as the ERP numbers invoices.
        fn xero(seq: u64, k: Kind, _: NaiveDate) -> String {
            match k {
                Kind::Invoice | Kind::DebitNote => format!("INV-{seq:07}"),
                Kind::CreditNote => format!("CN-{seq:07}"),
            }
        }
        fn qbo(seq: u64, _: Kind, _: NaiveDate) -> String {
            (1000 + seq).to_string()
        }
        fn zoho(seq: u64, _: Kind, _: NaiveDate) -> String {
            format!("INV-{seq:06}")
        }
        fn zoho_cn(seq: u64, _: Kind, _: NaiveDate) -> String {
            format!("CN-{seq:06}")
        }
        fn odoo(seq: u64, k: Kind, d: NaiveDate) -> String {
            match k {
                Kind::Invoice | Kind::DebitNote => format!("INV/{}/{seq:06}", d.year()),
                Kind::CreditNote => format!("RINV/{}/{seq:06}", d.year()),
            }
        }
        fn erpnext(seq: u64, k: Kind, d: NaiveDate) -> String {
            match k {
                // A debit note is a Sales Invoice with its box ticked, in the invoices' series.
                Kind::Invoice | Kind::DebitNote => format!("ACC-SINV-{}-{seq:06}", d.year()),
                Kind::CreditNote => format!("ACC-SINV-{}-{seq:06}-RET", d.year()),
            }
        }
        fn sap(seq: u64, _: Kind, _: NaiveDate) -> String {
            (500_000 + seq).to_string()
        }
        fn sage(seq: u64, k: Kind, _: NaiveDate) -> String {
            match k {
                Kind::Invoice | Kind::DebitNote => format!("SI-{seq:06}"),
                Kind::CreditNote => format!("SCN-{seq:06}"),
            }
        }
        fn tally(seq: u64, k: Kind, _: NaiveDate) -> String {
            match k {
                Kind::Invoice => format!("TS/{seq}"),
                Kind::CreditNote => format!("TCN/{seq}"),
                Kind::DebitNote => format!("TDN/{seq}"),
            }
        }
        fn legacy(seq: u64, k: Kind, d: NaiveDate) -> String {
            match k {
                Kind::Invoice => format!("ف-{}-{seq:06}", d.year()),
                Kind::CreditNote => format!("إ-{}-{seq:06}", d.year()),
                Kind::DebitNote => format!("م-{}-{seq:06}", d.year()),
            }
        }
        match self {
            Layout::Xero => xero,
            Layout::QuickBooksOnline => qbo,
            Layout::ZohoBooks => zoho,
            Layout::ZohoBooksCreditNotes => zoho_cn,
            Layout::Odoo => odoo,
            Layout::ErpNext => erpnext,
            Layout::SapB1Dtw => sap,
            Layout::Sage50 => sage,
            Layout::Tally => tally,
            Layout::LegacyArabic => legacy,
        }
    }

    pub(crate) fn text_style(self) -> TextStyle {
        match self {
            Layout::Odoo => TextStyle {
                bom: false,
                ..TextStyle::EXCEL
            },
            Layout::SapB1Dtw => TextStyle {
                delimiter: b'\t',
                bom: false,
                encoding: None,
            },
            Layout::LegacyArabic => TextStyle {
                delimiter: b';',
                bom: false,
                encoding: Some(encoding_rs::WINDOWS_1256),
            },
            _ => TextStyle::EXCEL,
        }
    }

    /// The header row(s) of the export (of the lines file for SAP).
    pub(crate) fn headers(self) -> Vec<&'static [&'static str]> {
        match self {
            Layout::Xero => vec![XERO],
            Layout::QuickBooksOnline => vec![QBO],
            Layout::ZohoBooks => vec![ZOHO],
            Layout::ZohoBooksCreditNotes => vec![ZOHO_CREDIT_NOTES],
            Layout::Odoo => vec![ODOO],
            Layout::ErpNext => vec![ERPNEXT],
            Layout::SapB1Dtw => vec![SAP_LINES.0, SAP_LINES.1],
            Layout::Sage50 => vec![SAGE],
            Layout::Tally => vec![TALLY],
            Layout::LegacyArabic => vec![LEGACY],
        }
    }
}

pub(crate) const XERO: &[&str] = &[
    "ContactName",
    "EmailAddress",
    "POAddressLine1",
    "POAddressLine2",
    "POAddressLine3",
    "POAddressLine4",
    "POCity",
    "PORegion",
    "POPostalCode",
    "POCountry",
    "SAAddressLine1",
    "SAAddressLine2",
    "SAAddressLine3",
    "SAAddressLine4",
    "SACity",
    "SARegion",
    "SAPostalCode",
    "SACountry",
    "InvoiceNumber",
    "Reference",
    "InvoiceDate",
    "DueDate",
    "PlannedDate",
    "Total",
    "TaxTotal",
    "InvoiceAmountPaid",
    "InvoiceAmountDue",
    "InventoryItemCode",
    "Description",
    "Quantity",
    "UnitAmount",
    "Discount",
    "LineAmount",
    "AccountCode",
    "TaxType",
    "TaxAmount",
    "TrackingName1",
    "TrackingOption1",
    "TrackingName2",
    "TrackingOption2",
    "Currency",
    "Type",
    "Sent",
    "Status",
];

pub(crate) const QBO: &[&str] = &[
    "InvoiceNo",
    "Customer",
    "InvoiceDate",
    "DueDate",
    "Terms",
    "Location",
    "Memo",
    "Item(Product/Service)",
    "ItemDescription",
    "ItemQuantity",
    "ItemRate",
    "ItemAmount",
    "Taxable",
    "TaxRate",
];

/// Zoho's columns, in the shuffled order of a real export (the order varies between exports).
pub(crate) const ZOHO: &[&str] = &[
    "Invoice Number",
    "Invoice ID",
    "Invoice Date",
    "Invoice Status",
    "Customer Name",
    "Is Inclusive Tax",
    "Due Date",
    "Currency Code",
    "Exchange Rate",
    "Discount Type",
    "Is Discount Before Tax",
    "Entity Discount Percent",
    "Entity Discount Amount",
    "Item Tax",
    "Item Desc",
    "Quantity",
    "Usage unit",
    "Item Price",
    "Discount",
    "Discount Amount",
    "Item Name",
    "Item Tax %",
    "Item Tax Amount",
    "Item Tax Type",
    "Item Tax Exemption Reason",
    "Item Total",
    "SubTotal",
    "Total",
    "Balance",
    "Reference Invoice#",
    "Reference Invoice Date",
    "Notes",
    "Billing Address",
    "Billing City",
    "Billing Country",
    "Billing Code",
    "CF.Sales Person",
    "Template Name",
];

pub(crate) const ZOHO_CREDIT_NOTES: &[&str] = &[
    "Credit Note Date",
    "CreditNotes ID",
    "Credit Note Number",
    "Credit Note Status",
    "Customer Name",
    "Is Inclusive Tax",
    "Currency Code",
    "Exchange Rate",
    "Item Name",
    "Item Desc",
    "Quantity",
    "Usage unit",
    "Item Price",
    "Discount Amount",
    "Item Tax",
    "Item Tax %",
    "Item Tax Amount",
    "Item Tax Exemption Reason",
    "Item Total",
    "SubTotal",
    "Total",
    "Balance",
    "Reference Invoice#",
    "Reference Invoice Date",
    "Reason",
    "Notes",
    "Billing Address",
    "Billing City",
    "Billing Country",
    "Billing Code",
];

pub(crate) const ODOO: &[&str] = &[
    "name",
    "move_type",
    "partner_id",
    "invoice_date",
    "invoice_date_due",
    "ref",
    "currency_id",
    "invoice_line_ids/name",
    "invoice_line_ids/product_id",
    "invoice_line_ids/quantity",
    "invoice_line_ids/price_unit",
    "invoice_line_ids/discount",
    "invoice_line_ids/tax_ids",
];

pub(crate) const ERPNEXT: &[&str] = &[
    "ID",
    "Customer",
    "Posting Date",
    "Due Date",
    "Currency",
    "Is Return (Credit Note)",
    "Is Rate Adjustment Entry (Debit Note)",
    "Return Against",
    "Item Code (Sales Invoice Item)",
    "Item Name (Sales Invoice Item)",
    "Quantity (Sales Invoice Item)",
    "Rate (Sales Invoice Item)",
    "Amount (Sales Invoice Item)",
    "Item Tax Template (Sales Invoice Item)",
];

pub(crate) const SAP_LINES: (&[&str], &[&str]) = (
    &[
        "ParentKey",
        "LineNum",
        "ItemCode",
        "ItemDescription",
        "Quantity",
        "Price",
        "Currency",
        "DiscountPercent",
        "TaxCode",
        "LineTotal",
    ],
    &[
        "DocNum",
        "LineNum",
        "ItemCode",
        "Dscription",
        "Quantity",
        "Price",
        "Currency",
        "DiscPrcnt",
        "TaxCode",
        "LineTotal",
    ],
);

pub(crate) const SAP_DOCUMENTS: (&[&str], &[&str]) = (
    &[
        "RecordKey",
        "DocNum",
        "DocDate",
        "DocDueDate",
        "CardCode",
        "CardName",
        "NumAtCard",
        "DocCurrency",
    ],
    &[
        "DocNum",
        "DocNum",
        "DocDate",
        "DocDueDate",
        "CardCode",
        "CardName",
        "NumAtCard",
        "DocCur",
    ],
);

pub(crate) const SAGE: &[&str] = &[
    "INVOICE_NUMBER",
    "ACCOUNT_REF",
    "INVOICE_DATE",
    "STOCK_CODE",
    "DESCRIPTION",
    "NOMINAL_CODE",
    "DEPT_NUMBER",
    "TAX_CODE",
    "QTY_ORDER",
    "UNIT_PRICE",
    "NET_AMOUNT",
    "TAX_AMOUNT",
];

pub(crate) const TALLY: &[&str] = &[
    "Date",
    "Voucher Number",
    "Voucher Type",
    "Party Name",
    "Item Name",
    "Quantity",
    "Rate",
    "Amount",
    "Narration",
];

pub(crate) const LEGACY: &[&str] = &[
    "رقم الفاتورة",
    "نوع المستند",
    "التاريخ",
    "الوقت",
    "اسم العميل",
    "الرقم الضريبي",
    "الشارع",
    "رقم المبنى",
    "الحي",
    "المدينة",
    "الرمز البريدي",
    "كود الصنف",
    "اسم الصنف",
    "الكمية",
    "سعر الوحدة",
    "نسبة الخصم",
    "نوع الضريبة",
    "قيمة الضريبة",
    "الإجمالي",
    "مرجع الفاتورة",
    "سبب الإشعار",
];

/// The columns of `customers.csv`.
pub(crate) const CUSTOMER_COLUMNS: &[&str] = &[
    "name",
    "account",
    "vat_number",
    "id_scheme",
    "id",
    "street",
    "building_number",
    "plot",
    "district",
    "city",
    "postal_zone",
    "country",
];

/// The columns of `credit_notes.csv`.
pub(crate) const CREDIT_NOTE_COLUMNS: &[&str] = &["number", "original_number", "original_date", "reason"];
