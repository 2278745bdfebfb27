//! Who settles a document left without a final answer, and the words its reason ends with: the
//! next `run`, or, for a watcher that runs for weeks with no next run, the watcher itself.

/// Who settles a document left without a final answer, as its reason ends: the next `run`, or,
/// for a watcher that runs for weeks with no next run, the watcher itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Later {
    /// `run`: the next run.
    Run,
    /// `watch`: the watcher, once the API answers again ([`Submitter::for_watch`](super::Submitter::for_watch)).
    Watch,
}

/// What the watcher's words add, after "once the API answers again": where the document is
/// shown meanwhile (`list`, a list of status.json), and what follows: the results of its file
/// written again, if the file went to done/. A file that went to failed/ (it changed while it was
/// read, was cut short or damaged) is not run again: it gets its results when it is dropped into
/// the inbox again, as its `.error.txt` says.
fn watch_then(list: &str) -> String {
    format!("(status.json lists it under `{list}` until then), then writes the results of its file in done/ again")
}

/// What a file that went to failed/ gets instead, for a document sent without a final answer.
const FAILED_FILE: &str =
    "(a file that went to failed/ instead gets its results when it is dropped into the inbox again)";

impl Later {
    /// A document sent whose outcome is unknown.
    pub(crate) fn repeats(self) -> String {
        match self {
            Later::Run => "the next run repeats it with the same idempotency key".into(),
            Later::Watch => format!(
                "the watcher repeats it with the same idempotency key once the API answers again {} {FAILED_FILE}",
                watch_then("unanswered")
            ),
        }
    }

    /// A document nothing of which reached the API.
    pub(crate) fn sends(self) -> String {
        match self {
            Later::Run => "the next run sends it".into(),
            Later::Watch => format!(
                "the watcher sends it once the API answers again {} (if the file went to failed/ instead, the \
                 document is sent when the file is dropped into the inbox again)",
                watch_then("not_sent")
            ),
        }
    }

    /// What to do about a document not sent while the API stays down.
    pub(crate) fn if_down(self) -> &'static str {
        match self {
            Later::Run => {
                "if the API stays down, check the network, INVOICEDROP_API_URL and the authority's status, then run \
                 again (nothing is sent twice)"
            }
            Later::Watch => {
                "if the API stays down, check the network, INVOICEDROP_API_URL and the authority's status; the \
                 watcher keeps looking, nothing needs to be done to the file"
            }
        }
    }

    /// A number sent earlier without a final answer, found again in an export.
    pub(crate) fn repeats_that_request(self) -> String {
        match self {
            Later::Run => {
                "the next run repeats that request (the content sent then, with the same idempotency key) to settle it"
                    .into()
            }
            Later::Watch => format!(
                "the watcher repeats that request (the content sent then, with the same idempotency key) once the API \
                 answers again {} {FAILED_FILE}",
                watch_then("unanswered")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watcher_says_what_it_does_with_a_document_left_without_an_answer() {
        for (text, list) in [
            (Later::Watch.repeats(), "unanswered"),
            (Later::Watch.sends(), "not_sent"),
            (Later::Watch.repeats_that_request(), "unanswered"),
        ] {
            assert!(
                text.starts_with("the watcher ")
                    && text.contains(&format!(
                        "once the API answers again (status.json lists it under `{list}` until then), then writes \
                         the results of its file in done/ again"
                    ))
                    && !text.contains("next run"),
                "{text}"
            );
        }
        // What a file that went to failed/ gets: not a rewrite from done/.
        assert!(Later::Watch.repeats().ends_with(FAILED_FILE));
        assert!(Later::Watch.repeats_that_request().ends_with(FAILED_FILE));
        assert!(Later::Watch.sends().ends_with(
            "(if the file went to failed/ instead, the document is sent when the file is dropped into the inbox again)"
        ));
        assert_eq!(
            Later::Run.repeats(),
            "the next run repeats it with the same idempotency key"
        );
        assert_eq!(Later::Run.sends(), "the next run sends it");
        assert!(Later::Run.if_down().contains("run again") && !Later::Watch.if_down().contains("run again"));
    }
}
