//! The document kind as a row's own column gives it: when a mapping reads the kind from a column
//! (Tally's `Voucher Type`), an export may number each kind from 1, so the rows of invoice 1 and
//! of credit note 1 are two documents, told apart by that column as the mapping maps it.

use super::*;

impl Bound {
    /// The column the document kind is read from (of the file, or of its joined header file),
    /// when the mapping reads it from one: documents are then known by their kind and number.
    /// `None` when the kind is a constant, a template, a lookup or not mapped (or the optional
    /// column is absent): documents are known by their number alone.
    #[inline]
    pub fn kind_column(&self) -> Option<usize> {
        self.kind_column
    }

    /// The cell of a row the document kind is read from (empty without a [kind
    /// column](Bound::kind_column)).
    #[inline]
    pub(crate) fn kind_cell<'a>(&self, row: &'a Row, header: Option<&'a Row>) -> CellRef<'a> {
        match self.kind_column {
            Some(i) => self.view(row, header).get(i),
            None => CellRef::Empty,
        }
    }

    /// The kind of the document a row opens, as it is built: the kind its cell maps to (the
    /// field's default for a blank cell), an invoice when the cell is blank without a default or
    /// cannot be read (that is said when the document is built).
    pub(crate) fn opening_kind(&self, row: &Row, header: Option<&Row>) -> DocumentKind {
        match self.field(fid!("kind"), row, header) {
            Ok(Some(Sourced {
                value: Value::Kind(k), ..
            })) => k,
            _ => DocumentKind::Invoice,
        }
    }

    /// The kind a later row of a document says, when it says one the mapping reads: `None` for
    /// a blank cell (the row repeats nothing, as a continuation row may) or one that cannot be
    /// read (the document's rows then disagree, which `INV-MAP-CONFLICT` says).
    pub(crate) fn row_kind(&self, row: &Row, header: Option<&Row>) -> Option<DocumentKind> {
        if self.kind_cell(row, header).is_blank() {
            return None;
        }
        match self.field(fid!("kind"), row, header) {
            Ok(Some(Sourced {
                value: Value::Kind(k), ..
            })) => Some(k),
            _ => None,
        }
    }
}
