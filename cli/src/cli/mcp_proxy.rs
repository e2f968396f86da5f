//! `flatjoin mcp-proxy`: serve an upstream MCP server's tools with flat, lowered input schemas and
//! runtime-checked calls (see `flatjoin_cli::mcp_proxy`).

use super::error::CliError;
use std::process::ExitCode;

use clap::Args;

use flatjoin_cli::profiles::Profile;

/// Arguments of `flatjoin mcp-proxy`.
#[derive(Args, Debug)]
pub struct McpProxyArgs {
    /// The profile the presented schemas are lowered to.
    #[arg(long, value_enum, default_value = "mcp")]
    pub profile: Profile,
    /// The upstream MCP server's command and arguments (after `--`).
    #[arg(last = true, required = true, value_name = "UPSTREAM")]
    pub upstream: Vec<String>,
}

/// Runs the proxy until the client disconnects.
pub fn run(args: &McpProxyArgs) -> Result<ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(flatjoin_cli::mcp_proxy::run(
        &args.upstream,
        args.profile,
        flatjoin::Options::default(),
    ))?;
    Ok(ExitCode::SUCCESS)
}
