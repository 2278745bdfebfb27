//! The documents behind a generated export, independent of any layout: customers, items, VAT
//! categories, and a seeded stream of documents whose amounts are computed the way invoicedrop
//! computes them (so the ERP's own totals in the export agree with `check`).
//!
//! Money is [`Decimal`] throughout: prices are drawn as whole cents.

use crate::compute::{net_from_inclusive_total, round2, vat_of};
use chrono::{Days, NaiveDate, NaiveTime};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;

/// A VAT category as the generator uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Tax {
    /// Standard rate, 15 %.
    S15,
    /// Standard category at 5 % (transitional rate).
    S5,
    /// Zero-rated (exports, medicines).
    Z,
    /// Exempt (financial services).
    E,
    /// Out of scope.
    O,
}

impl Tax {
    /// The rate in percent.
    pub(crate) fn percent(self) -> Decimal {
        match self {
            Tax::S15 => Decimal::from(15),
            Tax::S5 => Decimal::from(5),
            Tax::Z | Tax::E | Tax::O => Decimal::ZERO,
        }
    }
}

/// A buyer: the name the ERP writes, its account code, and the authority's fields the exports
/// lack (given by the `customers.csv` lookup table the generator writes beside the export).
#[derive(Debug)]
pub(crate) struct Customer {
    pub(crate) name: &'static str,
    pub(crate) account: &'static str,
    pub(crate) vat_number: &'static str,
    pub(crate) id_scheme: &'static str,
    pub(crate) id: &'static str,
    pub(crate) street: &'static str,
    pub(crate) building_number: &'static str,
    pub(crate) plot: &'static str,
    pub(crate) district: &'static str,
    pub(crate) city: &'static str,
    pub(crate) postal_zone: &'static str,
    pub(crate) country: &'static str,
}

const fn walk_in(name: &'static str, account: &'static str) -> Customer {
    Customer {
        name,
        account,
        vat_number: "",
        id_scheme: "",
        id: "",
        street: "",
        building_number: "",
        plot: "",
        district: "",
        city: "",
        postal_zone: "",
        country: "",
    }
}

/// The buyers: three VAT-registered companies (standard documents) and walk-in customers
/// (simplified documents). Every text is encodable in windows-1256.
pub(crate) const CUSTOMERS: &[Customer] = &[
    Customer {
        name: "Al Ofuq Trading Co.",
        account: "OFUQ001",
        vat_number: "310122393500003",
        id_scheme: "CRN",
        id: "1010123456",
        street: "King Fahd Road | طريق الملك فهد",
        building_number: "7421",
        plot: "3344",
        district: "Al Olaya | العليا",
        city: "Riyadh",
        postal_zone: "12211",
        country: "SA",
    },
    Customer {
        name: "شركة الندى للمقاولات",
        account: "NADA002",
        vat_number: "300055566600003",
        id_scheme: "CRN",
        id: "4030111222",
        street: "شارع التحلية",
        building_number: "2856",
        plot: "7788",
        district: "الروضة",
        city: "جدة",
        postal_zone: "23434",
        country: "SA",
    },
    Customer {
        name: "Gulf Medical Supplies LLC",
        account: "GULF003",
        vat_number: "311111111100003",
        id_scheme: "CRN",
        id: "2050987654",
        street: "Prince Mohammed bin Fahd Road",
        building_number: "3120",
        plot: "1010",
        district: "Al Faisaliyah",
        city: "Dammam",
        postal_zone: "32272",
        country: "SA",
    },
    walk_in("محمد العتيبي", "CASH004"),
    walk_in("Walk-in Customer", "CASH005"),
    walk_in("Sara Al-Harbi", "CASH006"),
    walk_in("عبدالله القحطاني", "CASH007"),
];

/// Items: code and a name (English, Arabic or both).
pub(crate) const ITEMS: &[(&str, &str)] = &[
    ("DESK-01", "Standing desk | مكتب قائم"),
    ("CHR-02", "Ergonomic chair"),
    ("TON-10", "Printer toner | حبر طابعة"),
    ("PAP-A4", "A4 paper (carton)"),
    ("CEM-50", "أسمنت بورتلاندي | Portland cement"),
    ("STL-12", "Steel rebar 12mm | حديد تسليح"),
    ("DAT-01", "تمر سكري فاخر"),
    ("COF-01", "قهوة عربية | Arabic coffee"),
    ("SRV-IT", "IT consulting hours"),
    ("MSK-95", "N95 masks (box) | كمامات"),
    ("HLM-01", "Safety helmet | خوذة سلامة"),
    ("OUD-01", "عطر عود | Oud perfume"),
    ("BK-12", "Notebook A5 | دفتر"),
    ("DRL-01", "Hand drill"),
    ("HST-01", "Cloud hosting (monthly)"),
];

/// Kind of a generated document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An invoice.
    Invoice,
    /// A credit note correcting an earlier invoice of the same file.
    CreditNote,
    /// A debit note (type 383) correcting an earlier invoice of the same file.
    DebitNote,
}

/// What the ERP says about the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Issued (sent, paid, overdue): to be reported.
    Issued,
    /// A draft: not issued.
    Draft,
    /// Voided: not issued.
    Voided,
}

/// How lines carry discounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Discount {
    /// No discount column.
    None,
    /// A percentage of the line.
    Percent,
    /// An amount off the line.
    Amount,
}

/// What a layout can express.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Features {
    /// Credit notes (which the mapping can recognise and link to their invoice).
    pub(crate) credit_notes: bool,
    /// Debit notes, rarer than credit notes (which the mapping can recognise and link to their
    /// invoice).
    pub(crate) debit_notes: bool,
    /// Every document a credit note, each correcting an invoice of another export (Zoho's
    /// credit note export): its number and date are made up.
    pub(crate) only_credit_notes: bool,
    /// Drafts and voided documents (which the mapping skips).
    pub(crate) skips: bool,
    /// Discount style.
    pub(crate) discount: Discount,
    /// Some documents with tax-inclusive prices.
    pub(crate) inclusive: bool,
    /// VAT categories to draw from (repeat one to make it likelier).
    pub(crate) taxes: &'static [Tax],
    /// Some quantities with a half unit.
    pub(crate) fractional: bool,
}

/// One line, with the amounts invoicedrop computes for it.
#[derive(Debug, Clone)]
pub(crate) struct GenLine {
    pub(crate) code: &'static str,
    pub(crate) name: &'static str,
    pub(crate) quantity: Decimal,
    /// Unit price as the export gives it (tax-inclusive for inclusive documents).
    pub(crate) price: Decimal,
    /// Discount percentage (zero: none).
    pub(crate) discount_percent: Decimal,
    /// Discount amount (zero: none).
    pub(crate) discount_amount: Decimal,
    pub(crate) tax: Tax,
    /// Line net (BT-131).
    pub(crate) net: Decimal,
    /// Line VAT (KSA-11).
    pub(crate) vat: Decimal,
    /// Line amount with VAT (KSA-12).
    pub(crate) gross: Decimal,
}

/// One document.
#[derive(Debug, Clone)]
pub(crate) struct GenDoc {
    /// 1-based sequence in the file.
    pub(crate) seq: u64,
    pub(crate) number: String,
    pub(crate) kind: Kind,
    pub(crate) state: State,
    pub(crate) customer: &'static Customer,
    pub(crate) date: NaiveDate,
    pub(crate) time: NaiveTime,
    pub(crate) inclusive: bool,
    /// The corrected invoice of a credit or debit note: its number and date.
    pub(crate) original: Option<(String, NaiveDate)>,
    pub(crate) lines: Vec<GenLine>,
    /// Σ line nets (BT-109 here: no document discounts).
    pub(crate) net_total: Decimal,
    /// Σ per-category VAT (BT-110).
    pub(crate) vat_total: Decimal,
    /// BT-112.
    pub(crate) total: Decimal,
}

/// A document number for a sequence number, kind and date.
pub(crate) type Numbering = fn(u64, Kind, NaiveDate) -> String;

/// The seeded stream of documents that fills `rows` line rows.
pub(crate) struct DocStream {
    rng: StdRng,
    features: Features,
    numbering: Numbering,
    rows: u64,
    written: u64,
    seq: u64,
    first_day: NaiveDate,
    last_invoice: Option<(String, NaiveDate, usize)>,
}

impl DocStream {
    /// Documents for `rows` line rows, dated in the 20 days before `today`.
    pub(crate) fn new(seed: u64, rows: u64, today: NaiveDate, features: Features, numbering: Numbering) -> Self {
        DocStream {
            rng: StdRng::seed_from_u64(seed),
            features,
            numbering,
            rows,
            written: 0,
            seq: 0,
            first_day: today.checked_sub_days(Days::new(20)).unwrap_or(today),
            last_invoice: None,
        }
    }

    fn line(&mut self, inclusive: bool) -> GenLine {
        let f = self.features;
        let (code, name) = ITEMS[self.rng.random_range(0..ITEMS.len())];
        let tax = f.taxes[self.rng.random_range(0..f.taxes.len())];
        let mut quantity = Decimal::from(self.rng.random_range(1..=20u32));
        if f.fractional && self.rng.random_ratio(1, 10) {
            quantity += Decimal::new(5, 1);
        }
        let price = Decimal::new(self.rng.random_range(100..=99_999i64), 2);
        let (mut discount_percent, mut discount_amount) = (Decimal::ZERO, Decimal::ZERO);
        match f.discount {
            Discount::Percent if self.rng.random_ratio(1, 4) => {
                discount_percent = Decimal::from([5u32, 10, 7][self.rng.random_range(0..3)]);
            }
            Discount::Amount if self.rng.random_ratio(1, 5) => {
                discount_amount = Decimal::new(self.rng.random_range(100..=1_000i64), 2);
            }
            _ => {}
        }
        let pct = tax.percent();
        let hundred = Decimal::ONE_HUNDRED;
        // Prices up to 999.99 × 20.5 with a 2-decimal percentage: no overflow is possible.
        let undiscounted = round2(quantity * price * (hundred - discount_percent) / hundred);
        // A discount is less than the line it is taken off (an ERP does not let it go below
        // zero, and the authority refuses a negative line, BR-KSA-F-04).
        if discount_amount * Decimal::TWO > undiscounted {
            discount_amount = Decimal::ZERO;
        }
        let before = undiscounted - discount_amount;
        let (net, vat, gross) = if inclusive {
            let net = net_from_inclusive_total(quantity, before, pct).map_or(before, |n| n.line_net);
            let vat = vat_of(net, pct).unwrap_or_default();
            if (before - (net + vat)).abs() <= Decimal::new(1, 2) {
                (net, before - net, before)
            } else {
                (net, vat, net + vat)
            }
        } else {
            let vat = vat_of(before, pct).unwrap_or_default();
            (before, vat, before + vat)
        };
        GenLine {
            code,
            name,
            quantity,
            price,
            discount_percent,
            discount_amount,
            tax,
            net,
            vat,
            gross,
        }
    }
}

impl Iterator for DocStream {
    type Item = GenDoc;

    fn next(&mut self) -> Option<GenDoc> {
        if self.written >= self.rows {
            return None;
        }
        self.seq += 1;
        let seq = self.seq;
        let f = self.features;
        let n = self.rng.random_range(1..=9u64).min(self.rows - self.written);
        let day = self.written.saturating_mul(20) / self.rows.max(1);
        let date = self
            .first_day
            .checked_add_days(Days::new(day))
            .unwrap_or(self.first_day);
        self.written += n;
        // Notes fall on fixed documents (no random draw): a layout without them keeps its bytes.
        let note = if self.last_invoice.is_none() {
            None
        } else if f.credit_notes && seq.is_multiple_of(40) {
            Some(Kind::CreditNote)
        } else if f.debit_notes && seq % 60 == 30 {
            Some(Kind::DebitNote)
        } else {
            None
        };
        let state = if !f.skips || (note.is_some() && !f.only_credit_notes) {
            State::Issued
        } else if seq.is_multiple_of(50) {
            State::Voided
        } else if seq.is_multiple_of(70) {
            State::Draft
        } else {
            State::Issued
        };
        let (kind, customer, original) = match (&self.last_invoice, note) {
            _ if f.only_credit_notes => {
                let invoiced = date.checked_sub_days(Days::new(10)).unwrap_or(date);
                let customer = self.rng.random_range(0..CUSTOMERS.len());
                (Kind::CreditNote, customer, Some((format!("INV-{seq:06}"), invoiced)))
            }
            (Some((number, d, c)), Some(kind)) => (kind, *c, Some((number.clone(), *d))),
            _ => (Kind::Invoice, self.rng.random_range(0..CUSTOMERS.len()), None),
        };
        let inclusive = f.inclusive && seq.is_multiple_of(3);
        let time = NaiveTime::from_hms_opt(self.rng.random_range(8..22), self.rng.random_range(0..60), 0)
            .unwrap_or(NaiveTime::MIN);
        let lines: Vec<GenLine> = (0..n).map(|_| self.line(inclusive)).collect();
        let mut categories: Vec<(Tax, Decimal)> = Vec::new();
        for l in &lines {
            // One breakdown per (category, rate): S15 and S5 are distinct, as are Z, E and O.
            match categories.iter_mut().find(|(t, _)| *t == l.tax) {
                Some((_, sum)) => *sum += l.net,
                None => categories.push((l.tax, l.net)),
            }
        }
        let net_total: Decimal = lines.iter().map(|l| l.net).sum();
        let vat_total: Decimal = categories
            .iter()
            .map(|(t, sum)| vat_of(*sum, t.percent()).unwrap_or_default())
            .sum();
        let number = (self.numbering)(seq, kind, date);
        if kind == Kind::Invoice && state == State::Issued {
            self.last_invoice = Some((number.clone(), date, customer));
        }
        Some(GenDoc {
            seq,
            number,
            kind,
            state,
            customer: &CUSTOMERS[customer],
            date,
            time,
            inclusive,
            original,
            lines,
            net_total,
            vat_total,
            total: net_total + vat_total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Features = Features {
        credit_notes: true,
        debit_notes: true,
        only_credit_notes: false,
        skips: true,
        discount: Discount::Percent,
        inclusive: true,
        taxes: &[Tax::S15, Tax::S5, Tax::Z, Tax::E, Tax::O],
        fractional: true,
    };

    fn number(seq: u64, kind: Kind, _: NaiveDate) -> String {
        format!("{kind:?}-{seq}")
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    #[test]
    fn rows_add_up_and_dates_stay_in_the_window() {
        let docs: Vec<GenDoc> = DocStream::new(7, 1_001, today(), ALL, number).collect();
        assert_eq!(docs.iter().map(|d| d.lines.len()).sum::<usize>(), 1_001);
        assert!(docs.iter().all(|d| (1..=9).contains(&d.lines.len())));
        assert!(docs.windows(2).all(|w| w[0].date <= w[1].date));
        assert!(
            docs.iter()
                .all(|d| d.date < today() && d.date >= today() - Days::new(20))
        );
        assert!(docs.iter().any(|d| d.kind == Kind::CreditNote));
        assert!(docs.iter().any(|d| d.state == State::Voided));
        assert!(docs.iter().any(|d| d.state == State::Draft));
    }

    #[test]
    fn a_discount_amount_never_takes_a_line_below_zero() {
        let amounts = Features {
            discount: Discount::Amount,
            ..ALL
        };
        let docs: Vec<GenDoc> = DocStream::new(42, 20_000, today(), amounts, number).collect();
        let discounted = docs
            .iter()
            .flat_map(|d| &d.lines)
            .filter(|l| !l.discount_amount.is_zero());
        assert!(discounted.clone().count() > 100);
        for l in discounted {
            assert!(l.net > Decimal::ZERO && l.gross > Decimal::ZERO, "{l:?}");
        }
    }

    #[test]
    fn same_seed_same_documents() {
        let a: Vec<String> = DocStream::new(1, 300, today(), ALL, number)
            .map(|d| format!("{d:?}"))
            .collect();
        let b: Vec<String> = DocStream::new(1, 300, today(), ALL, number)
            .map(|d| format!("{d:?}"))
            .collect();
        let c: Vec<String> = DocStream::new(2, 300, today(), ALL, number)
            .map(|d| format!("{d:?}"))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn notes_correct_an_issued_invoice_before_them() {
        let docs: Vec<GenDoc> = DocStream::new(3, 5_000, today(), ALL, number).collect();
        let count = |k| docs.iter().filter(|d| d.kind == k).count();
        let (credit, debit) = (count(Kind::CreditNote), count(Kind::DebitNote));
        assert!(
            debit > 0 && debit < credit,
            "{credit} credit notes, {debit} debit notes"
        );
        for d in docs.iter().filter(|d| d.kind != Kind::Invoice) {
            assert_eq!(d.state, State::Issued, "{d:?}");
            let (orig, date) = d.original.clone().unwrap();
            let o = docs.iter().find(|o| o.number == orig).unwrap();
            assert_eq!((o.kind, o.state, o.date), (Kind::Invoice, State::Issued, date));
            assert!(o.seq < d.seq && o.date <= d.date);
        }
    }
}
