//! The documents of a batch that are not sent: invalid or skipped ones, whose numbers are looked
//! up in the ledger (issued or maybe issued before), and those the export's result set lists as
//! issued through another state folder ([`crate::commands::elsewhere`]).

use super::*;

impl RunDispatch<'_> {
    /// The verdicts of a batch not sent, or not wholly sent, because the run stopped (`reason`):
    /// `INV-RUN-STOPPED` for each document but those the ledger holds ([`Self::held_or`]). When
    /// the ledger cannot be read, every one stopped.
    pub(super) fn stopped_verdicts(&mut self, docs: &[Document], reason: &str) -> Vec<Verdict> {
        self.held_or(docs, &stopped_verdict(reason))
    }

    /// The verdicts of a batch not sent because the run (or the watch) was interrupted by a
    /// signal: `INV-RUN-INTERRUPTED` (`INV-WATCH-STOPPED`) for each document but those the
    /// ledger holds, which are what it says (accepted by an earlier run: issued before; sent
    /// without an answer). When the ledger cannot be read, every one not sent.
    pub(super) fn halted_verdicts(&mut self, docs: &[Document]) -> Vec<Verdict> {
        self.held_or(docs, &halted_verdict(self.halted_by))
    }

    /// What the ledger holds of each document not sent, as its verdict (accepted, by this run or
    /// an earlier one; sent without an answer), else `otherwise`.
    fn held_or(&mut self, docs: &[Document], otherwise: &Verdict) -> Vec<Verdict> {
        let mut verdicts: Vec<Verdict> = docs.iter().map(|_| otherwise.clone()).collect();
        let asked: Vec<(Outgoing, bool)> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let o = Outgoing {
                    document: d.clone(),
                    tag: i as u64,
                };
                (o, false)
            })
            .collect();
        let Ok(found) = self.rt.block_on(self.submitter.issued_before(asked)) else {
            return verdicts;
        };
        for o in found {
            let tag = o.tag() as usize;
            let Some(document) = docs.get(tag) else { continue };
            let mut v = verdict(
                o,
                Some(Export {
                    document,
                    amounts_known: true,
                }),
            );
            // Accepted since this run started: issued by it, not before.
            let since = v
                .accepted_at
                .as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .is_some_and(|t| t >= self.started - chrono::Duration::seconds(1));
            if since {
                v.issued_before = false;
            }
            verdicts[tag] = v;
        }
        verdicts
    }

    /// What the ledger holds under the numbers of invalid documents (never sent): a verdict for
    /// each issued or maybe issued before, in the batch's order. When the ledger cannot be read,
    /// none (they stay invalid; sending stops on the same ledger anyway).
    pub(super) fn look_up(&mut self, invalid: Vec<Held>) -> Vec<Option<Verdict>> {
        let n = invalid.len();
        // The export's documents, to say how a conflict differs from the issued one.
        let mut held: Vec<(Document, bool, Vec<String>, Option<Tracked>)> = Vec::with_capacity(n);
        let outgoing: Vec<(Outgoing, bool)> = invalid
            .into_iter()
            .enumerate()
            .map(|(i, h)| {
                held.push((
                    h.document.clone(),
                    h.amounts_known,
                    h.failing,
                    Self::simplified_of(&h.document),
                ));
                let o = Outgoing {
                    document: h.document,
                    tag: i as u64,
                };
                (o, h.unread)
            })
            .collect();
        let outcomes = match self.rt.block_on(self.submitter.issued_before(outgoing)) {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!(error = %e, "the ledger could not be read for the documents that failed the checks");
                return Vec::new();
            }
        };
        let mut verdicts: Vec<Option<Verdict>> = vec![None; n];
        self.progress.add(outcomes.len() as u64);
        for o in outcomes {
            let tag = o.tag() as usize;
            let Some((document, amounts_known, failing, tracked)) = held.get_mut(tag) else {
                continue;
            };
            self.on_event(match &o {
                Outcome::Accepted { .. } => SubmitEvent::Accepted,
                Outcome::Conflict { .. } => SubmitEvent::Conflict,
                Outcome::Rejected { .. } => SubmitEvent::Rejected,
                Outcome::Failed { .. } => SubmitEvent::Failed,
            });
            let export = Export {
                document,
                amounts_known: *amounts_known,
            };
            let v = held_verdict(o, Some(export), failing);
            if let Some(mut t) = tracked.take() {
                t.status = v.status.map_or_else(String::new, |s| s.as_str().to_string());
                t.why = why(&v);
                self.simplified.push(t);
            }
            verdicts[tag] = Some(v);
        }
        verdicts
    }

    /// What the ledger holds under the numbers of documents a skip rule keeps from being issued
    /// (never sent): a verdict for each issued or maybe issued before, in the batch's order.
    /// When the ledger cannot be read, none (they stay skipped; sending stops on the same
    /// ledger anyway).
    pub(super) fn look_up_withdrawn(&mut self, skipped: Vec<Skipped>) -> Vec<Option<Verdict>> {
        let n = skipped.len();
        let mut numbers = Vec::with_capacity(n);
        // The errors of the invalid documents among them (their rows unread), by tag.
        let mut unread = Vec::with_capacity(n);
        let asked: Vec<Withdrawn> = skipped
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                numbers.push(s.number.clone());
                let w = Withdrawn {
                    tag: i as u64,
                    marked: format!("column {}, value \"{}\": {}", s.column, s.value, s.reason),
                    number: s.number,
                    kind: s.kind,
                    seller_vat: s.seller_vat,
                    unread: s.unread.is_some(),
                };
                unread.push(s.unread);
                w
            })
            .collect();
        let found = match self.rt.block_on(self.submitter.withdrawn_before(asked)) {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "the ledger could not be read for the skipped documents");
                return Vec::new();
            }
        };
        let mut verdicts: Vec<Option<Verdict>> = vec![None; n];
        for s in found {
            let tag = s.tag() as usize;
            let Some(number) = numbers.get(tag) else {
                continue;
            };
            if let Standing::Known(o) = &s {
                self.progress.add(1);
                self.on_event(match o.as_ref() {
                    Outcome::Accepted { .. } => SubmitEvent::Accepted,
                    Outcome::Conflict { .. } => SubmitEvent::Conflict,
                    Outcome::Rejected { .. } => SubmitEvent::Rejected,
                    Outcome::Failed { .. } => SubmitEvent::Failed,
                });
            }
            verdicts[tag] = match (s, unread.get(tag).and_then(Option::as_ref)) {
                // An invalid document's number: issued (a conflict) or maybe issued (`failed`),
                // saying what the export fails, as for a document built (`look_up`); held under
                // several kinds, nothing is claimed: it stays invalid.
                (Standing::Known(o), Some(failing)) => Some(held_verdict(*o, None, failing)),
                (Standing::Ambiguous { .. }, Some(_)) => None,
                (s, None) => Some(withdrawn_verdict(s, number)),
            };
        }
        verdicts
    }

    /// Send one batch and turn the outcomes into verdicts, in the batch's order.
    /// [`Self::send`] the documents but those the export's result set lists as accepted while the
    /// ledger holds nothing under their numbers ([`crate::commands::elsewhere`]): those are not sent.
    pub(super) fn send_unless_elsewhere(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        let listed = crate::commands::elsewhere::listed(&self.accepted_before, &docs);
        if listed.is_empty() {
            return self.send(docs);
        }
        let asked = crate::commands::elsewhere::asked(&docs, &listed);
        let seller = docs[listed[0].0].supplier_info.vat_number.clone();
        let held = match self.rt.block_on(self.submitter.holds(&asked, seller.as_deref())) {
            Ok(held) => held,
            // Sending stops on the same ledger, saying why.
            Err(_) => return self.send(docs),
        };
        let mut not_sent: Vec<Option<Verdict>> = vec![None; docs.len()];
        for (&(i, uuid), held) in listed.iter().zip(held) {
            if !held {
                not_sent[i] = Some(crate::commands::elsewhere::verdict(
                    &self.accepted_before,
                    &docs[i],
                    uuid,
                    self.state,
                ));
            }
        }
        if not_sent.iter().all(Option::is_none) {
            return self.send(docs);
        }
        let (rest, at): (Vec<Document>, Vec<usize>) = docs
            .into_iter()
            .enumerate()
            .filter(|(i, _)| not_sent[*i].is_none())
            .map(|(i, d)| (d, i))
            .unzip();
        let sent = if rest.is_empty() { Vec::new() } else { self.send(rest) };
        for (i, v) in at.into_iter().zip(sent) {
            not_sent[i] = Some(v);
        }
        not_sent.into_iter().map(Option::unwrap_or_default).collect()
    }
}
