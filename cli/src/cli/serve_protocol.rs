//! `flatjoin serve-protocol`: the implementation side of the line protocol (`docs/protocol.md`)
//! over `flatjoin::flatten`, so the harness judges the core through the same pipe as any other
//! flattener; each presentation goes with its diagnostics (SPEC §6 decision 75).

use super::error::CliError;
use std::process::ExitCode;

use serde_json::json;

/// Serves requests from stdin until `stop` or the end of input.
pub fn run() -> Result<ExitCode, CliError> {
    let describe = json!({
        "name": "flatjoin",
        "language": "rust",
        "version": env!("CARGO_PKG_VERSION"),
        "homepage": env!("CARGO_PKG_REPOSITORY"),
        "source": "core/ (flatjoin::flatten), served by `flatjoin serve-protocol`",
        "readings": flatjoin::OpenBranches::NAMES,
        "scopes": flatjoin::Scope::NAMES,
    });
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    flatjoin_harness::protocol::serve::serve(
        &mut input,
        &mut output,
        &describe,
        &flatjoin_harness::oracle::core_flatten,
    )?;
    Ok(ExitCode::SUCCESS)
}
