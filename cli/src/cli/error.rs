//! The CLI layer's one error type: what a subcommand ends with when it cannot do its job (the
//! process prints `flatjoin: <error>` and exits with status 2). The layers below keep their own
//! types — the results layer's [`ResultsError`], the protocol's [`ProtocolError`] — and a
//! message of the CLI's own (an argument that does not fit, a file that cannot be read) is
//! [`CliError::Message`].

use flatjoin_harness::check::results::ResultsError;
use flatjoin_harness::protocol::ProtocolError;

/// Why a subcommand failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A results file, a shard or a merge of results.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// The implementation protocol (`serve-protocol`).
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// The CLI's own message.
    #[error("{0}")]
    Message(String),
}

impl From<String> for CliError {
    fn from(message: String) -> CliError {
        CliError::Message(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> CliError {
        CliError::Message(message.to_owned())
    }
}
