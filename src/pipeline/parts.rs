//! A document whose rows are apart in the export (`INV-MAP-SPLIT`: other rows between its
//! parts) whose number the ledger holds, in `run` and `watch`: read together and reported as
//! what the ledger says of it, counted once, on its first part's first row.
//!
//! No part of such a document may be sent: the first, complete in appearance, would be sent
//! before the rest is read. A number never issued stays `invalid` on every part. But a number
//! issued in an earlier run is issued whatever the export says now: reported `invalid`, the
//! result files would lose it (its UUID, QR, signed XML and figures). So, after the first pass
//! has found the split numbers ([`SplitKeys`]), the ledger is asked which of them it holds
//! (under their kind where the mapping reads it from a column, else under any kind); only when
//! some are, the file is read once more ([`assemble`]) and only
//! the rows of those numbers are kept, each number's until its last part is read. Its parts
//! then make one document, built, computed and checked like any other, and compared with what
//! was issued exactly as a rerun compares a document whose rows are together: the same content
//! is `accepted` from the ledger, other content is the usual `INV-LEDGER-CONFLICT`, a number
//! sent without a final answer is `failed` (`INV-SUBMIT-UNKNOWN`; never `INV-SUBMIT-NOT-SENT`:
//! a number never sent is not held, so it stays `invalid`), a skipped one is looked up
//! as any skipped document. Nothing is sent. Memory holds the rows of those documents only, and
//! then their result rows, never the file.
//!
//! The file's own pass ([`check_stream`]) then gives each part of such a document its rows'
//! results ([`Assembled::take`]): the first part carries the document (its brief and record,
//! with the figures of the whole), the others only their rows, which say where the document
//! is counted (`INV-DOCUMENT`). Every part's first row says that the rows are apart
//! (`INV-MAP-SPLIT`, a warning unless the document is `failed`).

use super::dispatch::{finish_batch, look_up};
use super::evaluate::{evaluate, row_outcome};
use super::outcome::{Outcome, RowOutcome};
use super::stamp::SideWatch;
use super::*;
use crate::ingest::RowReader;
use crate::mapping::{Grouper, SPLIT_CODE, SplitKeys, whose_rows};
use crate::model::DocumentKind;
use crate::validate::Severity;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

/// One part of a document read together, as the file's pass hands it on.
struct Part {
    /// Its rows' lines, to be sure it is the same part.
    lines: Vec<Option<u64>>,
    /// Its rows' results.
    results: Vec<ResultRow>,
    /// The first part: the document's brief, record and codes (it is counted there).
    head: Option<Head>,
}

struct Head {
    brief: DocBrief,
    record: Option<DocumentRecord>,
    codes: Vec<String>,
}

/// The documents in parts whose number the ledger holds, read together, each part's results
/// by its key and first line, until the file's pass takes it.
#[derive(Default)]
pub struct Assembled {
    parts: Mutex<HashMap<(String, u64), Part>>,
}

impl Assembled {
    /// How many parts are still to be taken.
    pub fn len(&self) -> usize {
        self.parts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The part of a document read together that `draft` is, taken out; `None` when it is not
    /// such a part, or the file's pass found it otherwise (a file that changed meanwhile: it is
    /// held back as any other).
    fn part(&self, draft: &DocDraft) -> Option<Part> {
        if !draft.split {
            return None;
        }
        let first = draft.rows.first().and_then(DraftRow::source).map(|s| s.line)?;
        let held_back = draft
            .rows
            .iter()
            .flat_map(|r| &r.issues)
            .any(|i| [FILE_CHANGED_CODE, FILE_CUT_CODE].contains(&i.code.as_str()));
        if held_back {
            return None;
        }
        let mut parts = self.parts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = (draft.key.clone(), first);
        let same = parts.get(&at).is_some_and(|p| {
            p.lines.len() == draft.rows.len()
                && p.lines
                    .iter()
                    .zip(&draft.rows)
                    .all(|(l, r)| *l == r.source().map(|s| s.line))
        });
        if same { parts.remove(&at) } else { None }
    }
}

/// The outcome of `unit`: a part of a document read together gets its results from there
/// ([`Assembled`]); any other unit is evaluated (`otherwise`).
pub(super) fn outcome(assembled: Option<&Assembled>, unit: Unit, otherwise: impl FnOnce(Unit) -> Outcome) -> Outcome {
    match unit {
        Unit::Document(draft) => match assembled.and_then(|a| a.part(&draft)) {
            Some(part) => part_outcome(draft, part),
            None => otherwise(Unit::Document(draft)),
        },
        stray => otherwise(stray),
    }
}

/// A part's outcome: its rows (`draft`'s) with their results (`part`'s).
fn part_outcome(draft: DocDraft, part: Part) -> Outcome {
    let rows = draft
        .rows
        .into_iter()
        .zip(part.results)
        .map(|(r, result)| row_outcome(r, result))
        .collect();
    let (brief, record, codes) = match part.head {
        Some(Head { brief, record, codes }) => (Some(brief), record, codes),
        None => (None, None, Vec::new()),
    };
    Outcome {
        rows,
        brief,
        codes,
        record,
        document: None,
        held: None,
        skipped: None,
        artefact_key: None,
        unsent: None,
        link: Default::default(),
    }
}

/// A document's parts read so far.
struct Gathering {
    draft: DocDraft,
    /// Each part's number of rows and first line.
    parts: Vec<(usize, u64)>,
}

/// A document's key and, where documents are known by kind too, its kind.
type DocKey = (String, Option<DocumentKind>);

/// A document read together and evaluated, waiting for the ledger's answer.
struct Whole {
    outcome: Outcome,
    key: String,
    parts: Vec<(usize, u64)>,
    /// Where its parts start, as findings say it.
    starts: String,
    /// Its kind and number, when another document of the file has its number.
    name: Option<String>,
}

/// Read `path` once more for the split numbers of `splits` the ledger holds (`d` says which):
/// each one's parts read together, evaluated, looked up and written (signed XML, QR image) as
/// one document. `None` when the ledger holds none of them (nothing is read), or when the file
/// cannot be read again (the file's pass says why).
pub fn assemble(
    path: &Path,
    bound: &Arc<Bound>,
    splits: &Arc<SplitKeys>,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    d: &mut (dyn Dispatch + '_),
) -> Option<Arc<Assembled>> {
    // Negative amounts, or a debit-note flag (ERPNext), may make a note of what the kind column
    // calls an invoice: then the ledger is asked under every kind.
    let flagged = bound.mapping.credit_note_when_negative || bound.maps(crate::mapping::fields::fid!("debit_note"));
    let asked = |kind: Option<DocumentKind>| kind.filter(|_| !flagged);
    let (keys, numbers): (Vec<DocKey>, Vec<(String, Option<DocumentKind>)>) = splits
        .numbers()
        .map(|(k, n, kind)| ((k.to_string(), kind), (n.to_string(), asked(kind))))
        .unzip();
    if keys.is_empty() {
        return None;
    }
    let held = d.holds(&numbers, opts.seller.vat_number.as_deref());
    let wanted: HashSet<DocKey> = keys
        .into_iter()
        .zip(held)
        .filter_map(|(k, held)| held.then_some(k))
        .collect();
    if wanted.is_empty() {
        return None;
    }
    let reader = RowReader::open(path, &open::read_options(&bound.mapping)).ok()?;
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let side = SideWatch::new(bound, true);
    let mut grouper = Grouper::with_splits(bound.clone(), Some(splits.clone()));
    let mut gathering: HashMap<DocKey, Gathering> = HashMap::new();
    let mut whole: Vec<Whole> = Vec::new();
    let assembled = Assembled::default();
    let mut units = Vec::new();
    let mut rows = reader;
    loop {
        let done = match rows.next() {
            Some(Ok(row)) => {
                units.extend(grouper.push(row));
                false
            }
            Some(Err(e)) => {
                units.extend(grouper.push_error(e.source_ref().cloned(), e.to_string()));
                false
            }
            None => {
                units.extend(grouper.finish());
                true
            }
        };
        for u in units.drain(..) {
            let Unit::Document(part) = u else { continue };
            if !part.split || !wanted.contains(&(part.key.clone(), part.kind)) {
                continue;
            }
            let Some(draft) = gather(&mut gathering, part, splits) else {
                continue;
            };
            let Gathering { draft, parts } = draft;
            let (key, kind) = (draft.key.clone(), draft.kind);
            let mut outcome = evaluate(Unit::Document(draft), bound, opts, &time, true, &side);
            // The file's pass gives each part its own rows back.
            for r in &mut outcome.rows {
                r.row = None;
            }
            let starts = splits.starts(&key, kind).unwrap_or_default();
            let name = splits.name(&key, kind);
            whole.push(Whole {
                outcome,
                key,
                parts,
                starts,
                name,
            });
            if whole.len() >= BATCH_DOCUMENTS {
                answer(std::mem::take(&mut whole), bound, d, writer, &assembled);
            }
        }
        if done {
            break;
        }
    }
    answer(whole, bound, d, writer, &assembled);
    // Parts of a document not all read again (the file changed meanwhile) are dropped: that
    // document's parts stay invalid.
    drop(side.finish());
    (!assembled.is_empty()).then(|| Arc::new(assembled))
}

/// Add a part to its document; the document, once its last part is read.
fn gather(gathering: &mut HashMap<DocKey, Gathering>, mut part: DocDraft, splits: &SplitKeys) -> Option<Gathering> {
    // Read together, the parts are one document: what says they are apart is said again
    // once its standing is known.
    for r in &mut part.rows {
        r.issues.retain(|i| i.code != SPLIT_CODE);
    }
    let first = part.rows.first().and_then(DraftRow::source).map_or(0, |s| s.line);
    let size = part.rows.len();
    let at = (part.key.clone(), part.kind);
    let g = gathering.entry(at.clone()).or_insert_with(|| Gathering {
        draft: DocDraft {
            key: part.key.clone(),
            kind: part.kind,
            rows: Vec::new(),
            skip: part.skip.clone(),
            split: false,
            original_date: part.original_date,
            original_note: part.original_note.clone(),
        },
        parts: Vec::new(),
    });
    g.draft.rows.append(&mut part.rows);
    g.draft.original_date = g.draft.original_date.or(part.original_date);
    if g.draft.original_date.is_some() {
        g.draft.original_note = None;
    } else if g.draft.original_note.is_none() {
        g.draft.original_note = part.original_note.clone();
    }
    g.parts.push((size, first));
    if (g.parts.len() as u64) < splits.part_count(&part.key, part.kind) {
        return None;
    }
    gathering.remove(&at)
}

/// Ask `d` what the ledger holds under each document read together (nothing is sent), write
/// the artefacts of those it holds issued, and keep their parts' results in `into`.
fn answer(whole: Vec<Whole>, bound: &Bound, d: &mut (dyn Dispatch + '_), writer: &mut ResultWriter, into: &Assembled) {
    if whole.is_empty() {
        return;
    }
    let mut layout = Vec::with_capacity(whole.len());
    let mut outcomes = Vec::with_capacity(whole.len());
    for Whole {
        mut outcome,
        key,
        parts,
        starts,
        name,
    } in whole
    {
        // A document that passes the checks is asked about as one that fails them: never sent.
        if let Some(document) = outcome.document.take() {
            outcome.held = Some(Box::new(Held {
                document: *document,
                failing: Vec::new(),
                amounts_known: true,
                unread: false,
            }));
        }
        outcomes.push(outcome);
        layout.push((key, parts, starts, name));
    }
    let batch = look_up(outcomes, d);
    let answered: HashSet<usize> = batch.at.iter().copied().collect();
    let outcomes = finish_batch(batch, Some(writer));
    let mut parts = into.parts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for (i, (outcome, (key, layout, starts, name))) in outcomes.into_iter().zip(layout).enumerate() {
        // Never issued: its parts stay invalid, as the file's pass finds them.
        if answered.contains(&i) {
            let apart = Apart {
                starts: &starts,
                name: name.as_deref(),
            };
            parts.extend(split_up(outcome, bound, key, &layout, apart));
        }
    }
}

/// What the first row of each part of a document read together says of its rows being apart.
#[derive(Clone, Copy)]
struct Apart<'a> {
    /// Where its parts start (`its 2 parts start at lines 2 and 5`).
    starts: &'a str,
    /// Its kind and number, when another document of the file has its number.
    name: Option<&'a str>,
}

/// A document read together and answered, back into its parts (`layout`: each part's number of
/// rows and first line), each keyed by the document's key and its first line; every part's
/// first row says the rows are apart, the later parts' rows where the document is counted.
fn split_up(
    mut o: Outcome,
    bound: &Bound,
    key: String,
    layout: &[(usize, u64)],
    apart: Apart<'_>,
) -> Vec<((String, u64), Part)> {
    let first = layout.first().map_or(0, |p| p.1);
    let status = o.brief.as_ref().map_or(RowStatus::Invalid, |b| b.status);
    let conflict = o.brief.as_ref().is_some_and(|b| b.conflict);
    let failed = status == RowStatus::Failed;
    let column = bound.key_label().filter(|l| !l.is_empty()).map(str::to_string);
    let split = ResultIssue {
        severity: if failed { Severity::Error } else { Severity::Warning },
        ..ResultIssue::from(&Issue::error(
            SPLIT_CODE,
            column,
            Some(key.clone()),
            split_message(status, conflict, first, apart),
        ))
    };
    let pointer = ResultIssue {
        severity: split.severity,
        ..ResultIssue::error("INV-DOCUMENT", counted_on(first))
    };
    if let Some(r) = &mut o.record {
        r.add_codes([&split]);
    }
    if !o.codes.iter().any(|c| c == SPLIT_CODE) {
        o.codes.push(SPLIT_CODE.to_string());
        o.codes.sort();
    }
    let mut rows = o.rows.into_iter();
    let mut head = o.brief.map(|brief| Head {
        brief,
        record: o.record,
        codes: o.codes,
    });
    let mut out = Vec::with_capacity(layout.len());
    for (k, &(size, line)) in layout.iter().enumerate() {
        let mut lines = Vec::with_capacity(size);
        let mut results = Vec::with_capacity(size);
        for (
            n,
            RowOutcome {
                result: mut rr, line, ..
            },
        ) in rows.by_ref().take(size).enumerate()
        {
            if n == 0 {
                rr.push_issue(split.clone());
            }
            // A conflict's other rows already refer to its first row.
            let counted = rr.status != RowStatus::Skipped || status == RowStatus::Skipped;
            if k > 0 && !conflict && counted {
                rr.push_issue(pointer.clone());
            }
            lines.push(line);
            results.push(rr);
        }
        let head = if k == 0 { head.take() } else { None };
        out.push(((key.clone(), line), Part { lines, results, head }));
    }
    out
}

/// Where a part of a document read together says it is counted.
fn counted_on(first: u64) -> String {
    format!(
        "a part of the document counted on line {first}, its first row: its rows are apart in the export (see \
         {SPLIT_CODE})"
    )
}

/// What every part's first row says of a document read together, by its standing.
fn split_message(status: RowStatus, conflict: bool, first: u64, apart: Apart<'_>) -> String {
    let apart = format!(
        "{} are not together in the file ({})",
        whose_rows(apart.name),
        apart.starts
    );
    match (status, conflict) {
        (RowStatus::Accepted, false) => format!(
            "{apart}; read together, they are what was issued under its number, so it is reported issued \
             (counted once, on line {first}) and nothing was sent. Put all its rows together, with its number on \
             each"
        ),
        (RowStatus::Accepted, true) => format!(
            "{apart}; read together, they were compared with what was issued under its number (see {} on line \
             {first}): it is reported issued (counted once, on line {first}) and nothing was sent",
            crate::submit::CONFLICT_CODE
        ),
        (RowStatus::Failed, _) => format!(
            "{apart}; read together, they are a document sent earlier without a final answer (see \
             INV-SUBMIT-UNKNOWN): no part of it is sent, and it is counted once, on line {first}. Put all its \
             rows together, with its number on each"
        ),
        _ => format!("{apart}; read together, they are counted once, on line {first}, and nothing was sent"),
    }
}

#[cfg(test)]
#[path = "parts_tests.rs"]
mod tests;
