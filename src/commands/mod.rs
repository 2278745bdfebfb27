//! One handler per command; each returns the process exit status (design.md exit codes).

mod api;
mod check;
mod elsewhere;
mod folder;
mod generate;
mod inputs;
mod interrupt;
pub mod json;
mod mappings;
mod onboard;
mod out;
mod progress;
mod report;
mod run;
mod runner;
mod sandbox;
mod verdict;
mod watch;

pub use check::check;
pub use generate::generate;
pub use mappings::mappings;
pub use onboard::onboard;
pub use report::report;
pub use run::run;
pub use sandbox::sandbox;
pub use watch::watch;

use std::process::ExitCode;

/// Exit statuses: 0 all accepted/valid/skipped, 1 some document rejected/invalid/failed,
/// 2 usage, configuration or whole-file error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything went through.
    Success,
    /// At least one document was rejected, invalid or failed.
    Failure,
    /// Usage, configuration or whole-file error.
    Error,
}

impl Status {
    /// The process exit code: 0, 1 or 2.
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Failure => 1,
            Status::Error => 2,
        }
    }
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s.code())
    }
}
