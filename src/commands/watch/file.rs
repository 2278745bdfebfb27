//! One claimed file of the inbox processed to its end: done (moved to `done/`), failed (moved
//! to `failed/` with its error), or interrupted (left in `.processing/` for the next start).

use super::*;

impl Watcher<'_> {
    /// Process one claimed file to the end: done, failed, or (interrupted) left in `.processing/`.
    pub(super) fn process(&mut self, claimed: PathBuf, leftover: bool) -> anyhow::Result<()> {
        let name = name_of(&claimed);
        let hash = match sha256_file(&claimed) {
            Ok(h) => h,
            Err(e) => return self.fail(&claimed, &name, &e.to_string()),
        };
        let repeat = self.seen.first_name(&hash).map(str::to_string);
        let claimed = if leftover {
            claimed
        } else {
            unclash::unclash(&self.input.results, &self.inbox.processing, claimed)?
        };
        match &repeat {
            Some(first) => info!(
                "{}",
                one_line(&format!(
                    "{name}: taken; the same content as {first}, done before: reported from the ledger, nothing accepted is sent again"
                ))
            ),
            None if leftover => info!("{}: taken again after an interruption", one_line(&name)),
            None => info!("{}: taken", one_line(&name)),
        }
        self.write_status(Some(&name));
        if let Some(note) = crate::results::stale::clean_note(&self.input.results) {
            info!("{note}");
        }
        // Given up on the API (for the file before): this file probes with the usual patience.
        self.runner.submitter().patience_again();
        let mut dispatch = self.runner.dispatch(false, Some(self.halt));
        let evaluated = self.evaluate_file(&claimed, &mut dispatch);
        self.track_simplified(&mut dispatch, &name);
        let (halted, stopped) = (dispatch.halted, dispatch.stopped.clone());
        drop(dispatch);
        let (report, _) = match evaluated {
            Ok(r) => r,
            Err(e) => return self.fail(&claimed, &name, &format!("{e:#}")),
        };
        let Some(summary) = report.files.into_iter().next() else {
            let why = report
                .skipped_files
                .first()
                .cloned()
                .unwrap_or_else(|| "nothing to read".into());
            return self.fail(&claimed, &name, &why);
        };
        let counts = format!(
            "{}, {}, {} rejected, {} failed, {} invalid, {} skipped",
            crate::text::count_of(summary.rows, "row", "rows"),
            check::accepted_text(&summary.documents),
            summary.documents.rejected,
            summary.documents.failed,
            summary.documents.invalid,
            summary.documents.skipped
        );
        if let Some(changed) = &summary.changed {
            // Still being written when taken (a writer that stalled longer than the quiet
            // period), or replaced: its last documents were not sent. Dropped again once
            // complete, it is reported from the ledger and only the rest is sent.
            let error = format!(
                "{} ({counts})",
                changed.explain(
                    "not sent",
                    &format!(
                        "Drop {name} into the inbox again once it is complete: what was accepted is reported from the ledger and only the rest is sent"
                    ),
                )
            );
            let result_file = summary.result_file.clone();
            return self.fail_after(
                &claimed,
                &name,
                &error,
                summary.rows,
                summary.documents.clone(),
                result_file,
            );
        }
        if let Some(error) = &summary.error {
            // Its results could not be written, but documents may have been sent: say how many,
            // and that dropping the file again writes the results without sending them again.
            let d = &summary.documents;
            let error = if d.accepted + d.rejected + d.failed > 0 {
                format!(
                    "{error} (before it: {counts}); for its results, fix that and move {name} from failed/ back into the inbox"
                )
            } else {
                error.clone()
            };
            return self.fail_after(&claimed, &name, &error, summary.rows, summary.documents.clone(), None);
        }
        let mut last = LastFile {
            name: name.clone(),
            finished_at: Utc::now(),
            outcome: "done".into(),
            repeat: repeat.is_some(),
            rows: summary.rows,
            documents: summary.documents.clone(),
            result_file: summary.result_file.clone(),
            error: None,
        };
        if halted || stopped.is_some() {
            last.outcome = "interrupted".into();
            warn!(
                "{}: interrupted ({counts}); left in .processing/, the next start sends the rest",
                one_line(&name)
            );
            if let Some(stop) = stopped {
                self.fatal = Some(stop);
            }
        } else {
            self.seen.record(&hash, &name)?;
            let to = self.inbox.to_done(&claimed)?;
            info!(
                "{}",
                one_line(&format!(
                    "{name}: done ({counts}) -> {} ; results {}",
                    to.display(),
                    summary.result_file.as_deref().unwrap_or("-")
                ))
            );
            self.file_done(&name, &to);
        }
        self.last = Some(last);
        self.write_status(None);
        Ok(())
    }

    pub(super) fn fail(&mut self, claimed: &Path, name: &str, error: &str) -> anyhow::Result<()> {
        self.fail_after(claimed, name, error, 0, Default::default(), None)
    }

    /// [`Self::fail`] for a file of which `rows` were read and `documents` handled before it
    /// failed (their counts stay in `status.json`), with its result file when it was written.
    fn fail_after(
        &mut self,
        claimed: &Path,
        name: &str,
        error: &str,
        rows: u64,
        documents: crate::pipeline::Counts,
        result_file: Option<String>,
    ) -> anyhow::Result<()> {
        // The error as written in failed/: the file named where it is now, not in .processing/.
        let (to, error) = self.inbox.to_failed(claimed, error)?;
        let error = error.as_str();
        // An error: a journal filtered to errors (`-q`) shows every file that failed.
        error!("{}", one_line(&format!("{name}: failed: {error} -> {}", to.display())));
        self.last = Some(LastFile {
            name: name.to_string(),
            finished_at: Utc::now(),
            outcome: "failed".into(),
            repeat: false,
            rows,
            documents,
            result_file,
            error: Some(error.to_string()),
        });
        self.write_status(None);
        Ok(())
    }
}
