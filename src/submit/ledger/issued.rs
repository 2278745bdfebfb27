//! What the ledger tells of the invoices it holds as issued, for the notes correcting them: an
//! invoice's issue date and total with VAT, and the credit notes accepted against it.

use super::store::{Answer, Request};
use super::{Ledger, LedgerError};
use crate::model::CreditedBefore;

impl Ledger {
    /// The issue date of the invoice issued (accepted, through any device of this state folder)
    /// under `number` by the seller `seller_vat` (any seller when `None`): what a credit or debit
    /// note correcting it refers to. `None` when no such invoice is accepted. Blocks briefly.
    pub fn invoice_date(
        &self,
        number: &str,
        seller_vat: Option<&str>,
    ) -> Result<Option<chrono::NaiveDate>, LedgerError> {
        match self.ask_blocking(Request::InvoiceDate {
            number: number.to_string(),
            seller_vat: seller_vat.map(str::to_string),
        })? {
            Answer::Date(d) => Ok(d),
            _ => Err(LedgerError::Closed),
        }
    }

    /// The kind of the credit or debit note issued (accepted) under `number` by the seller
    /// `seller_vat` when no invoice of that number is: a note naming it names no invoice. `None`
    /// otherwise. Blocks briefly.
    pub fn note_kind(
        &self,
        number: &str,
        seller_vat: Option<&str>,
    ) -> Result<Option<crate::model::DocumentKind>, LedgerError> {
        match self.ask_blocking(Request::NoteKind {
            number: number.to_string(),
            seller_vat: seller_vat.map(str::to_string),
        })? {
            Answer::Kind(k) => Ok(k),
            _ => Err(LedgerError::Closed),
        }
    }

    /// The total with VAT and the currency of the invoice [`Ledger::invoice_date`] finds: what a
    /// credit note correcting it is compared with. `None` when no such invoice is accepted.
    /// Blocks briefly.
    pub fn invoice_total(
        &self,
        number: &str,
        seller_vat: Option<&str>,
    ) -> Result<Option<crate::model::IssuedTotal>, LedgerError> {
        match self.ask_blocking(Request::InvoiceTotal {
            number: number.to_string(),
            seller_vat: seller_vat.map(str::to_string),
        })? {
            Answer::Total(t) => Ok(t),
            _ => Err(LedgerError::Closed),
        }
    }

    /// The credit notes accepted (through any device of this state folder) against the invoice
    /// [`Ledger::invoice_date`] finds (`number`, seller `seller_vat`), in `currency`, before the
    /// note `except` (the one being compared: all of them, or when it was accepted already, a
    /// rerun, those accepted before it; never itself), and whether it was: one per note number,
    /// its total with VAT exact and positive. Found through an
    /// index of the credit notes by billing reference, never by reading every document. Blocks
    /// briefly.
    pub fn credited(
        &self,
        number: &str,
        seller_vat: Option<&str>,
        currency: &str,
        except: &str,
    ) -> Result<CreditedBefore, LedgerError> {
        match self.ask_blocking(Request::Credited {
            number: number.to_string(),
            seller_vat: seller_vat.map(str::to_string),
            currency: currency.to_string(),
            except: except.to_string(),
        })? {
            Answer::Credited(c) => Ok(c),
            _ => Err(LedgerError::Closed),
        }
    }
}
