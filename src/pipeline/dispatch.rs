//! A batch's valid documents handed to a [`Dispatch`] (for `run`, sent to the authority), and
//! its verdicts applied, with the signed XML and QR image of accepted documents written.

use super::notes::Settling;
use super::*;

/// A batch whose valid documents were dispatched: the outcomes (their documents taken), which
/// outcome each verdict belongs to, and the verdicts.
pub(super) struct Dispatched {
    outcomes: Vec<Outcome>,
    /// The outcomes that have a verdict.
    pub(super) at: Vec<usize>,
    verdicts: Vec<Verdict>,
}

/// Ask `d` what the ledger holds under the numbers of documents that are not sent (kept to be
/// asked: [`Outcome::held`], [`Outcome::skipped`]); their verdicts are applied by
/// [`finish_batch`]. Nothing is sent, and nothing is said to be checked or not sent.
pub(super) fn look_up(mut outcomes: Vec<Outcome>, d: &mut (dyn Dispatch + '_)) -> Dispatched {
    let mut found = issued_before(&mut outcomes, d);
    found.extend(withdrawn_before(&mut outcomes, d));
    found.sort_by_key(|(i, _)| *i);
    let (at, verdicts) = found.into_iter().unzip();
    Dispatched { outcomes, at, verdicts }
}

/// Hand a batch's valid documents to `dispatch`, after asking it whether the invalid ones were
/// issued before; the verdicts are applied by [`finish_batch`]. Its notes are settled with their
/// invoices first (`notes.rs`): a note whose invoice was not issued is held back, and one whose
/// invoice is sent in this batch is sent after the others, once that invoice is answered.
pub(super) fn dispatch_batch(
    mut outcomes: Vec<Outcome>,
    d: &mut (dyn Dispatch + '_),
    settling: &Settling<'_>,
) -> Dispatched {
    let mut reopened = issued_before(&mut outcomes, d);
    reopened.extend(withdrawn_before(&mut outcomes, d));
    settling.before_sending(&outcomes, &reopened);
    let lookup = d.originals();
    let (not_sent, waiting) = settling.settle(&mut outcomes, None, lookup.as_ref());
    // The notes just held back are asked about as the other invalid documents.
    reopened.extend(issued_before(&mut outcomes, d));
    reopened.extend(not_sent);
    let rows = outcomes.iter().map(|o| o.rows.len() as u64).sum();
    let briefs = || outcomes.iter().filter_map(|o| o.brief.as_ref());
    let invalid = briefs().filter(|b| b.status == RowStatus::Invalid).count() as u64
        - reopened.iter().filter(|(i, _)| outcomes[*i].is_invalid()).count() as u64;
    d.checked(rows, briefs().count() as u64, invalid);
    let (mut at, mut verdicts) = send(&mut outcomes, d, |i| !waiting.contains(&i));
    if !waiting.is_empty() {
        // The notes whose invoice was just sent: settled with its answer, then sent.
        settling.after_sending(&outcomes, &at, &verdicts);
        let (not_sent, _) = settling.settle(&mut outcomes, Some(&waiting), lookup.as_ref());
        reopened.extend(issued_before(&mut outcomes, d));
        reopened.extend(not_sent);
        let (later_at, later) = send(&mut outcomes, d, |i| waiting.contains(&i));
        at.extend(later_at);
        verdicts.extend(later);
    }
    settling.after_sending(&outcomes, &at, &verdicts);
    if reopened.is_empty() && waiting.is_empty() {
        return Dispatched { outcomes, at, verdicts };
    }
    // The verdicts of both, in input order (the order artefacts are named in).
    let mut all: Vec<(usize, Verdict)> = at.into_iter().zip(verdicts).chain(reopened).collect();
    all.sort_by_key(|(i, _)| *i);
    let (at, verdicts) = all.into_iter().unzip();
    Dispatched { outcomes, at, verdicts }
}

/// Hand the valid documents of the outcomes `which` picks to `d` (telling it first of the
/// invalid simplified ones among them, not sent): the outcomes dispatched and their verdicts.
fn send(
    outcomes: &mut [Outcome],
    d: &mut (dyn Dispatch + '_),
    which: impl Fn(usize) -> bool,
) -> (Vec<usize>, Vec<Verdict>) {
    let unsent: Vec<Unsent> = outcomes
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| which(*i))
        .filter_map(|(_, o)| o.unsent.take())
        .collect();
    if !unsent.is_empty() {
        d.not_sent(unsent);
    }
    let (at, docs): (Vec<usize>, Vec<Document>) = outcomes
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| which(*i))
        .filter_map(|(i, o)| o.document.take().map(|d| (i, *d)))
        .unzip();
    if docs.is_empty() {
        return (at, Vec::new());
    }
    let n = docs.len();
    let started = std::time::Instant::now();
    let verdicts = d.dispatch(docs);
    tracing::debug!(
        documents = n,
        dispatch_ms = started.elapsed().as_millis() as u64,
        "batch dispatched"
    );
    (at, verdicts)
}

/// Ask `d` about the batch's invalid documents: the verdicts of those issued (or maybe issued)
/// before, by outcome. Their rows get the verdict in [`finish_batch`]; they are not among the
/// documents `d` is told are not sent.
fn issued_before(outcomes: &mut [Outcome], d: &mut (dyn Dispatch + '_)) -> Vec<(usize, Verdict)> {
    let (at, held): (Vec<usize>, Vec<Held>) = outcomes
        .iter_mut()
        .enumerate()
        .filter_map(|(i, o)| o.held.take().map(|h| (i, *h)))
        .unzip();
    if held.is_empty() {
        return Vec::new();
    }
    let mut reopened = Vec::new();
    for (i, v) in at.into_iter().zip(d.issued(held)) {
        if let Some(v) = v.filter(|v| v.status.is_some()) {
            outcomes[i].unsent = None;
            reopened.push((i, v));
        }
    }
    reopened
}

/// Ask `d` about the batch's documents a skip rule keeps from being issued: the verdicts of
/// those issued (or maybe issued) before, by outcome (a verdict that leaves one skipped only
/// adds what it says). Their rows get the verdict in [`finish_batch`].
fn withdrawn_before(outcomes: &mut [Outcome], d: &mut (dyn Dispatch + '_)) -> Vec<(usize, Verdict)> {
    let (at, skipped): (Vec<usize>, Vec<Skipped>) = outcomes
        .iter_mut()
        .enumerate()
        .filter_map(|(i, o)| o.skipped.take().map(|s| (i, *s)))
        .unzip();
    if skipped.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (i, v) in at.into_iter().zip(d.withdrawn(skipped)) {
        if let Some(v) = v.filter(|v| v.status.is_some()) {
            // An invalid document's number (its rows unread) issued before: not left unsent.
            outcomes[i].unsent = None;
            found.push((i, v));
        }
    }
    found
}

/// Apply a dispatched batch's verdicts; accepted documents get their signed XML and QR image
/// written beside the results when there is a `writer` (none once the results cannot be
/// written: the batch is only counted).
pub(super) fn finish_batch(batch: Dispatched, writer: Option<&mut ResultWriter>) -> Vec<Outcome> {
    let Dispatched {
        mut outcomes,
        at,
        mut verdicts,
    } = batch;
    if at.is_empty() {
        return outcomes;
    }
    let started = std::time::Instant::now();
    // The artefacts of the accepted documents (signed XML, QR image) are made in
    // parallel and written in order (documents whose files would have the same name: the later
    // ones get `_2`, `_3`...).
    let stored = match writer {
        Some(writer) => store_artefacts(&at, &verdicts, &outcomes, writer),
        None => vec![None; at.len()],
    };
    for ((i, v), stored) in at.into_iter().zip(verdicts.iter_mut()).zip(stored) {
        let mut v = std::mem::take(v);
        v.response = None;
        match stored {
            Some(Ok(paths)) => {
                v.xml_file = paths.xml_file;
                v.qr_file = paths.qr_file;
            }
            Some(Err(e)) => v.warnings.push(format!(
                "INV-ARTEFACT: accepted, but its signed XML or QR image could not be written: {e}"
            )),
            None => {}
        }
        outcomes[i].apply(v);
    }
    tracing::debug!(
        artefacts_ms = started.elapsed().as_millis() as u64,
        "batch artefacts written"
    );
    outcomes
}

/// The artefacts of a batch's accepted documents (`at[k]` is the outcome of `verdicts[k]`):
/// `None` for a document without an answer to keep.
fn store_artefacts(
    at: &[usize],
    verdicts: &[Verdict],
    outcomes: &[Outcome],
    writer: &mut ResultWriter,
) -> Vec<Option<Result<ArtefactPaths, String>>> {
    type Key = (String, String, chrono::NaiveDate, chrono::NaiveTime);
    // A document issued earlier with other content (a conflict) is named as issued.
    let issued_key = |d: &Document| -> Key {
        (
            d.supplier_info.vat_number.clone().unwrap_or_default(),
            d.number.clone(),
            d.issue_date,
            d.issue_time,
        )
    };
    let keys: Vec<Option<std::borrow::Cow<'_, Key>>> = at
        .iter()
        .zip(verdicts)
        .map(|(&i, v)| match v.issued.as_deref() {
            Some(d) => Some(std::borrow::Cow::Owned(issued_key(d))),
            None => outcomes[i].artefact_key.as_ref().map(std::borrow::Cow::Borrowed),
        })
        .collect();
    let wanted: Vec<Option<(&Key, &crate::model::SubmissionResponse)>> = keys
        .iter()
        .zip(verdicts)
        .map(|(k, v)| Some((k.as_deref()?, v.response.as_ref()?)))
        .collect();
    if wanted.iter().all(Option::is_none) {
        return vec![None; at.len()];
    }
    let sink = match writer.artefact_sink() {
        Ok(s) => s,
        Err(e) => return wanted.iter().map(|w| w.map(|_| Err(e.to_string()))).collect(),
    };
    // The files are made (base64, QR code, PNG) in parallel and created one after the other in
    // the batch's order: creating files in one folder from several threads only contends for the
    // folder's lock (the kernel spun on it for a seventh of `run`'s CPU), and in order a name
    // taken twice goes to the earlier document (the later ones get `_2`, `_3`...). A chunk at a
    // time, so that only its files are held.
    const CHUNK: usize = 64;
    let mut out = Vec::with_capacity(wanted.len());
    for chunk in wanted.chunks(CHUNK) {
        let made: Vec<_> = chunk
            .par_iter()
            .map(|w| w.map(|((_, number, _, _), response)| ArtefactContent::make(number, response)))
            .collect();
        for (w, made) in chunk.iter().zip(made) {
            out.push(w.zip(made).map(|(((vat, number, date, time), _), content)| {
                content
                    .and_then(|c| sink.store(vat, number, *date, *time, &c))
                    .map_err(|e| e.to_string())
            }));
        }
    }
    out
}
