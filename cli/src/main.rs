//! The `flatjoin` command-line tool: flatten schemas and manifests, validate arguments, and run the
//! conformance harness. Each subcommand lives in its own module under `cli/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// mimalloc rather than the system allocator: a join allocates and frees many small maps and
/// strings, and glibc's malloc, free and heap consolidation were about a quarter of a large
/// join's instructions (`reports/join-cost.md`, Analysis). The `floor` binary it is measured
/// against uses the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The flat presentation join for discriminated-union tool schemas.
#[derive(Parser)]
#[command(name = "flatjoin", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Flatten one JSON Schema into its flat presentation (printed to stdout).
    Flatten(cli::flatten::FlattenArgs),
    /// Flatten every `inputSchema` of an MCP `tools/list` result, leaving every other field as it is.
    Manifest(cli::flatten::ManifestArgs),
    /// Validate arguments with the original schema (the runtime check), with branch-aware errors.
    Validate(cli::validate::ValidateArgs),
    /// Run the conformance harness: replay the corpus and generated cases through every oracle.
    Check(cli::check::CheckArgs),
    /// Merge the results of `flatjoin check --shard K/N --results-json FILE` (every K of N) into
    /// the report the unsharded run writes, and its JSON and JUnit results.
    CheckMerge(cli::check_merge::CheckMergeArgs),
    /// Check tools against a provider profile: what the provider would reject, and the fix.
    Lint(cli::lint::LintArgs),
    /// Per profile, how many tools pass lint before and after lowering (a markdown table).
    LintReport(cli::lint::LintReportArgs),
    /// Write a provider's tool declarations (flattened and lowered to its profile).
    Export(cli::export::ExportArgs),
    /// Serve an upstream MCP server's tools, flattened and lowered, with runtime-checked calls.
    McpProxy(cli::mcp_proxy::McpProxyArgs),
    /// Speak the implementation protocol (`docs/protocol.md`) on stdin/stdout over the core, so
    /// `flatjoin check --implementation 'flatjoin serve-protocol'` judges flatjoin like any other
    /// flattener.
    ServeProtocol,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(
        cli.command,
        Command::Flatten(_)
            | Command::Manifest(_)
            | Command::Validate(_)
            | Command::Lint(_)
            | Command::Export(_)
            | Command::CheckMerge(_)
    ) {
        end_quietly_on_closed_stdout();
    }
    let result = match cli.command {
        Command::Flatten(args) => cli::flatten::run_flatten(&args),
        Command::Manifest(args) => cli::flatten::run_manifest(&args),
        Command::Validate(args) => cli::validate::run(&args),
        Command::Check(args) => cli::check::run(&args),
        Command::CheckMerge(args) => cli::check_merge::run(&args),
        Command::Lint(args) => cli::lint::run(&args),
        Command::LintReport(args) => cli::lint::run_report(&args),
        Command::Export(args) => cli::export::run(&args),
        Command::McpProxy(args) => cli::mcp_proxy::run(&args),
        Command::ServeProtocol => cli::serve_protocol::run(),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("flatjoin: {message}");
            ExitCode::from(2)
        }
    }
}

/// A closed stdout (`flatjoin export … | head`) ends the process as it ends other Unix filters,
/// by SIGPIPE, instead of a panic in `println!` (Rust starts with SIGPIPE ignored, so the write
/// fails and `println!` panics; SPEC §5: nothing panics). Only for the subcommands that write to
/// no child process: the harness writes to implementations that may die, and must survive that.
fn end_quietly_on_closed_stdout() {
    #[cfg(unix)]
    #[allow(unsafe_code)]
    // SAFETY: `signal` with `SIG_DFL` installs no handler; it runs before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
