//! A field's `when` bound to a file ([`WhenAt`]), and whether a row lets the field be read.

use super::*;

/// A field's `when` bound to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WhenAt {
    /// No `when`: the field is read from every row.
    Always,
    /// Read where this column (an index as [`Bound`] counts them) holds one of the values.
    Column(usize),
    /// The column is not in the file (the field is optional): never read.
    Absent,
}

impl Bound {
    /// False when field `f` has a `when` that this row does not meet: the field is blank here.
    /// Inlined always: every field read asks it, and the usual answer is one comparison (with a
    /// second caller, the compiler had stopped inlining it, +1 % instructions a row).
    #[inline(always)]
    pub(super) fn read_here(&self, f: FieldId, row: &Row, header: Option<&Row>) -> bool {
        match self.when.get(f).copied().unwrap_or(WhenAt::Always) {
            WhenAt::Always => true,
            WhenAt::Absent => false,
            WhenAt::Column(i) => self.when_holds(f, i, row, header),
        }
    }

    /// Whether the `when` of field `f`, which tests column `i`, holds in this row.
    fn when_holds(&self, f: FieldId, i: usize, row: &Row, header: Option<&Row>) -> bool {
        self.mapping.fields[f]
            .as_ref()
            .and_then(|r| r.when.as_ref())
            .is_some_and(|w| w.holds(self.view(row, header).get(i)))
    }

    /// The columns the fields' `when`s test.
    pub(super) fn when_columns(&self) -> impl Iterator<Item = usize> + '_ {
        self.when.iter().filter_map(|w| match w {
            WhenAt::Column(i) => Some(*i),
            WhenAt::Always | WhenAt::Absent => None,
        })
    }
}
