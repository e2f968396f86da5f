//! `flatjoin check-merge`: the results of the shards of one `flatjoin check` run
//! (`--shard K/N --results-json FILE`) merged into the report the unsharded run writes, and the
//! merged results as JSON and JUnit XML (SPEC §6 decision 59).

use super::error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use flatjoin_harness::check;
use flatjoin_harness::check::results::{self, Results};

use super::check::{Format, finish_with, write_output};

/// Arguments of `flatjoin check-merge`.
#[derive(Args, Debug)]
pub struct CheckMergeArgs {
    /// Where to write the Markdown report (the unsharded run's `reports/conformance.md`, but for
    /// its times: the generators' are the shards' added up, the whole run's the longest shard's).
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
    /// Write the merged results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the merged results as JSON (the shape `--results-json` writes).
    #[arg(long, value_name = "FILE")]
    pub results_json: Option<PathBuf>,
    /// What to print on stdout at the end.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The shards' results files (`flatjoin check --shard K/N --results-json FILE`), every K of
    /// 1..=N once, in any order.
    #[arg(value_name = "RESULTS.json", required = true)]
    pub results: Vec<PathBuf>,
}

/// Runs `flatjoin check-merge`: exit 0 when every check of every shard passed, 1 on any
/// failure, 2 when the results cannot be merged (missing or repeated shards, different runs).
pub fn run(args: &CheckMergeArgs) -> Result<ExitCode, CliError> {
    let parts = args
        .results
        .iter()
        .map(|p| Results::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = results::merge(parts)?;
    write_output(&args.report, &check::report_markdown(&merged.result))?;
    let code = finish_with(
        &merged.result,
        &merged.results,
        args.format,
        args.results_json.as_deref(),
        args.junit.as_deref(),
    )?;
    let line = format!(
        "merged {} results into {}",
        args.results.len(),
        args.report.display()
    );
    if args.format == Format::Text {
        println!("{line}");
    } else {
        eprintln!("{line}");
    }
    Ok(code)
}
