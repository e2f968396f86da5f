//! `flatjoin check --implementation 'CMD ARGS…'`: judge flatteners behind the line protocol
//! (`docs/protocol.md`) instead of the in-process core; per implementation a table of oracles,
//! counterexamples written as replayable corpus cases, and with `--report` the comparison
//! `reports/implementations.md` with its JSON beside it.

use super::error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use flatjoin_harness::check::CheckConfig;
use flatjoin_harness::protocol::{adapters, report, run};

/// What `flatjoin check` was asked about implementations (its `--implementation`, `--timeout`,
/// `--counterexamples` and `--report` flags).
#[derive(Debug, Clone)]
pub struct ImplementationArgs {
    /// The commands.
    pub implementation: Vec<String>,
    /// Seconds per request.
    pub timeout: f64,
    /// Where counterexamples go.
    pub counterexamples: PathBuf,
    /// `--report` absent (`None`), without a file (`Some(None)`), or with one.
    pub report: Option<Option<PathBuf>>,
}

/// The targets of the `--implementation` flags.
fn targets(args: &ImplementationArgs) -> Result<Vec<run::Target>, CliError> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(format!(
            "--timeout {}: must be a positive number of seconds",
            args.timeout
        )
        .into());
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    args.implementation
        .iter()
        .map(|command| {
            let argv = shlex::split(command)
                .filter(|words| !words.is_empty())
                .ok_or_else(|| {
                    format!(
                        "--implementation {command:?}: not a command (empty, or an unclosed quote)"
                    )
                })?;
            Ok(run::Target {
                command: command.clone(),
                argv: adapters::expand(argv)?,
                timeout,
            })
        })
        .collect()
}

/// Runs the implementations; exit 0 when every one held every guarantee without crashing.
pub fn run(args: &ImplementationArgs, check: CheckConfig) -> Result<ExitCode, CliError> {
    let config = run::RunConfig {
        check,
        targets: targets(args)?,
        counterexamples: Some(args.counterexamples.clone()),
    };
    let results = run::run(&config, &mut |line| println!("{line}"));
    for r in &results {
        print!("{}", r.table());
    }
    let path = match &args.report {
        Some(Some(path)) => Some(path.clone()),
        Some(None) => Some(PathBuf::from("reports/implementations.md")),
        None => None,
    };
    if let Some(path) = path {
        report::write(&path, &config, &results)?;
        println!(
            "report written to {} and {}",
            path.display(),
            report::json_path(&path).display()
        );
    }
    let clean = results.iter().filter(|r| r.clean()).count();
    println!(
        "{} implementations: {clean} held every guarantee, {} did not",
        results.len(),
        results.len() - clean
    );
    Ok(if clean == results.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
