//! Logs go through `tracing` to stderr; `RUST_LOG` overrides the level the flags choose.
//!
//! While a progress line is shown on the terminal ([`show_bar`]), whatever is written to stderr
//! through here (logs, and the notes of [`note`]) clears the line first and draws it again
//! after, so that no message is written onto the end of the progress line.

use indicatif::ProgressBar;
use std::io::Write;
use std::sync::Mutex;
use tracing_subscriber::EnvFilter;

/// `-q`: notes are not written ([`note`]), only errors.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The progress line on the terminal, while one is shown.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// From now on, stderr lines written through here clear `bar` first (`None`: no bar any more).
pub fn show_bar(bar: Option<ProgressBar>) {
    if let Ok(mut b) = BAR.lock() {
        *b = bar;
    }
}

/// Write `bytes` to stderr, with the progress line out of the way when one is shown.
fn write_stderr(bytes: &[u8]) -> std::io::Result<()> {
    let bar = BAR.lock().ok().and_then(|b| b.clone());
    match bar {
        Some(bar) if !bar.is_hidden() => bar.suspend(|| std::io::stderr().write_all(bytes)),
        _ => std::io::stderr().write_all(bytes),
    }
}

/// One line on stderr (`note: ...`, `error: ...`), clear of the progress line.
pub fn line(text: impl std::fmt::Display) {
    let _ = write_stderr(format!("{text}\n").as_bytes());
}

/// `note: TEXT` on stderr, clear of the progress line; nothing with `-q` (errors only).
pub fn note(text: impl std::fmt::Display) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        line(format_args!("note: {text}"));
    }
}

/// The logger's writer: stderr, clear of the progress line.
struct Stderr;

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        write_stderr(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Install the stderr logger: warnings by default, errors only with `-q`, info with `-v`,
/// debug with `-vv`. `watch` also logs one line per file taken, done or failed (info) unless
/// `-q`.
pub fn init(quiet: bool, verbose: u8, watch: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        let mut directives = format!("invoicedrop={level},{level}");
        if watch && !quiet && verbose == 0 {
            directives.push_str(",invoicedrop::commands::watch=info");
        }
        EnvFilter::new(directives)
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| Stderr)
        .with_ansi(false)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::{ProgressDrawTarget, TermLike};
    use std::sync::Arc;

    /// A terminal that records what is done to it.
    #[derive(Debug, Default, Clone)]
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl Recorder {
        fn push(&self, what: String) -> std::io::Result<()> {
            self.0.lock().unwrap().push(what);
            Ok(())
        }
    }

    impl TermLike for Recorder {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
            self.push(format!("up {n}"))
        }
        fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
            self.push(format!("down {n}"))
        }
        fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
            self.push(format!("right {n}"))
        }
        fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
            self.push(format!("left {n}"))
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.push(format!("line {s}"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.push(format!("str {s}"))
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.push("clear".into())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_note_written_while_the_progress_line_is_shown_clears_it_first_and_draws_it_again() {
        let term = Recorder::default();
        let bar = ProgressBar::with_draw_target(Some(10), ProgressDrawTarget::term_like(Box::new(term.clone())));
        bar.set_style(indicatif::ProgressStyle::with_template("{pos}/{len} answered").unwrap());
        bar.set_position(3);
        bar.tick();
        let events = |t: &Recorder| t.0.lock().unwrap().clone();
        assert!(
            events(&term).iter().any(|e| e.contains("3/10 answered")),
            "{:?}",
            events(&term)
        );
        let before = events(&term).len();
        show_bar(Some(bar.clone()));
        line("note: something to know");
        show_bar(None);
        // What the note did to the terminal: the line cleared, then drawn again after the note.
        let after = events(&term)[before..].to_vec();
        let cleared = after.iter().position(|e| e == "clear");
        let drawn = after.iter().rposition(|e| e.contains("3/10 answered"));
        assert!(
            matches!((cleared, drawn), (Some(c), Some(d)) if c < d),
            "the progress line was not cleared before the note and drawn again after it: {after:?}"
        );
        // Without a bar, nothing is done to the terminal.
        let before = events(&term).len();
        line("note: another");
        assert_eq!(events(&term).len(), before);
    }
}
