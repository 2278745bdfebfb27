//! The commands' output on stdout. `println!` panics when the reader has gone (`invoicedrop check
//! --json | head -c 100`, a closed pipe): here the output stops instead and the command finishes
//! its work and exits with its own status. Any other write error is said once on stderr.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout has failed: nothing more is written to it.
static GONE: AtomicBool = AtomicBool::new(false);

/// Write `args` to stdout, ignoring a reader that has gone.
pub fn write(args: std::fmt::Arguments<'_>) {
    if GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        stopped(&e);
    }
}

/// Note that stdout failed; say so unless its reader just went away.
fn stopped(e: &std::io::Error) {
    if !GONE.swap(true, Ordering::Relaxed) && e.kind() != ErrorKind::BrokenPipe {
        tracing::warn!("could not write to standard output ({e}); the rest of the output is dropped");
    }
}

/// `println!` on stdout through [`write`].
macro_rules! outln {
    () => {
        $crate::commands::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::commands::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` on stdout through [`write`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::commands::out::write(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_gone_stops_the_output_quietly_and_for_good() {
        let e = std::io::Error::from(ErrorKind::BrokenPipe);
        stopped(&e);
        assert!(GONE.load(Ordering::Relaxed));
        // Nothing is written (nor panics) after that.
        write(format_args!("not written\n"));
    }
}
