//! `flatjoin check`: the conformance run (corpus replay, generated cases, per-oracle summary,
//! `reports/conformance.md`, shrunk counterexamples under `flatjoin-counterexamples/`), whole or one
//! shard of it, with its results as JSON and JUnit XML (SPEC §6 decisions 58–60).

use super::error::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use flatjoin_harness::check::results::{self, Results};
use flatjoin_harness::check::{self, CheckConfig, CheckResult};
use flatjoin_harness::protocol::run::shell_quote;
use flatjoin_harness::shard::Shard;

/// What `flatjoin check` prints on stdout when it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The per-oracle table ending in `N passed, M failed` (progress lines before it).
    Text,
    /// The Markdown report (`reports/conformance.md`'s text).
    Markdown,
    /// The results file (`--results-json`'s text).
    Json,
    /// The JUnit XML (`--junit`'s text).
    Junit,
}

/// Arguments of `flatjoin check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Generated cases to run after the corpus.
    #[arg(long, default_value_t = check::DEFAULT_CASES)]
    pub cases: u32,
    /// Seed of the case generator (the default is fixed, so runs are reproducible).
    #[arg(long, default_value_t = check::DEFAULT_SEED)]
    pub seed: u64,
    /// Corpus folder to replay (never written to).
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    pub corpus: PathBuf,
    /// Where to write the Markdown report (default `reports/conformance.md`; with
    /// `--implementation`, no report unless `--report` is given, whose default then is
    /// `reports/implementations.md`, with its JSON results beside it).
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub report: Option<Option<PathBuf>>,
    /// Worker threads (default: the available cores). The counts and the report's findings are
    /// the same for every value.
    // Found when `check` runs, not as a clap default, which every command would compute when its
    // arguments are read (the cores' cgroup quota is a few file reads at each start-up).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Inject a named fault into the core (needs a build with `--features fault-injection`).
    #[arg(long, value_name = "NAME")]
    pub inject_fault: Option<String>,
    /// Judge this implementation instead of the in-process core: a command speaking the line
    /// protocol of `docs/protocol.md` (split into words like a shell would). Repeatable.
    #[arg(long, value_name = "CMD ARGS...")]
    pub implementation: Vec<String>,
    /// With `--implementation`: seconds an implementation may take to answer one request before
    /// it is killed (recorded as a crash of that case) and restarted.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Where shrunk counterexamples are written, as corpus cases that replay them (never into
    /// the corpus: move one under `corpus/regressions/` to keep it). In-process:
    /// `DIR/<oracle>-<hash>.json` (an injected fault's under `DIR/faults/`); with
    /// `--implementation`: `DIR/<name>/<oracle>.json`.
    #[arg(long, value_name = "DIR", default_value = check::DEFAULT_COUNTEREXAMPLES)]
    pub counterexamples: PathBuf,
    /// Upper bound on the steps shrinking one counterexample may take.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub shrink_steps: u32,
    /// Open-world cases (default: a quarter of `--cases`).
    #[arg(long, value_name = "N")]
    pub open_world_cases: Option<u32>,
    /// Stop each generator after the case of its first counterexample (default: every case
    /// runs, and the first violation of each oracle is shrunk and written).
    #[arg(long)]
    pub fail_fast: bool,
    /// Run shard K of N (1-based: K in 1..=N, as `cargo nextest run --partition count:K/N`):
    /// every N-th corpus file, suite draft and generated case index, starting at position K-1.
    /// The N shards of one seed run exactly the unsharded run's cases; `flatjoin check-merge`
    /// writes their report. A shard writes no report unless `--report` is given.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Write the results as JSON (schema `protocol/check-results.schema.json`): counts per
    /// oracle and source, every finding with its counterexample, and what `check-merge` reads.
    #[arg(long, value_name = "FILE")]
    pub results_json: Option<PathBuf>,
    /// Write the results as JUnit XML: one test case per oracle and source, a failure carrying
    /// the shrunk counterexample.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// What to print on stdout at the end (progress then goes to stderr unless `text`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The flags that choose only a shard or where the output goes: left out of the command the
/// reports name, so the shards of a run and the unsharded run name the same command (SPEC §6
/// decision 59). Each with whether it takes a value (`--report`'s is optional).
const OUTPUT_FLAGS: [(&str, bool); 5] = [
    ("--shard", true),
    ("--results-json", true),
    ("--junit", true),
    ("--format", true),
    ("--report", false),
];

/// `flatjoin` and `args`, without [`OUTPUT_FLAGS`], quoted as a shell needs them.
pub fn report_command(args: &[String]) -> String {
    let mut words = vec!["flatjoin".to_owned()];
    let mut rest = args.iter().peekable();
    while let Some(arg) = rest.next() {
        let flag = OUTPUT_FLAGS
            .iter()
            .find(|(name, _)| arg == name || arg.starts_with(&format!("{name}=")));
        match flag {
            Some((name, required)) if arg == name => {
                // `--report` takes its value only when one follows.
                if *required || rest.peek().is_some_and(|next| !next.starts_with('-')) {
                    rest.next();
                }
            }
            Some(_) => {}
            None => words.push(shell_quote(arg)),
        }
    }
    words.join(" ")
}

/// Writes `text` to `path`, creating its folder.
pub fn write_output(path: &Path, text: &str) -> Result<(), CliError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Runs `flatjoin check`: exit 0 when every oracle held, 1 on any violation.
pub fn run(args: &CheckArgs) -> Result<ExitCode, CliError> {
    // Words quoted as a shell needs them (`--implementation 'node run.mjs f.mjs#fn'`), so the
    // reports' headers can be pasted back.
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let command = if args.implementation.is_empty() {
        report_command(&argv)
    } else {
        std::iter::once("flatjoin".to_owned())
            .chain(argv.iter().map(|a| shell_quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut config = CheckConfig::new(command);
    config.cases = args.cases;
    config.seed = args.seed;
    config.jobs = args.jobs.unwrap_or_else(check::default_jobs).max(1);
    // The corpus: `--corpus DIR`, by default `corpus/` under the working directory (the
    // repository root); outside a checkout (the binary from npm or PyPI) the corpus the binary
    // carries, written out once (SPEC §6 decision 71).
    let corpus = if args.corpus.is_dir() {
        args.corpus.clone()
    } else if args.corpus.as_os_str() == "corpus" {
        let dir = flatjoin_harness::fuzz::embedded::extracted()?;
        eprintln!(
            "flatjoin: no corpus/ here: checking on the bundled corpus (dialects, spec, manifests) in {}",
            dir.display()
        );
        dir
    } else {
        return Err(format!(
            "{}: no such corpus folder (run from the repository root, or pass --corpus DIR)",
            args.corpus.display()
        )
        .into());
    };
    config.max_shrink_steps = args.shrink_steps;
    config.open_world_cases = args.open_world_cases;
    config.fail_fast = args.fail_fast;
    if !args.implementation.is_empty() {
        if args.inject_fault.is_some() {
            return Err(
                "--inject-fault injects into the in-process core; it cannot apply to --implementation"
                    .into(),
            );
        }
        if args.shard.is_some()
            || args.results_json.is_some()
            || args.junit.is_some()
            || args.format != Format::Text
        {
            return Err(
                "--shard, --results-json, --junit and --format apply to the in-process check; with --implementation, --report writes the results"
                    .into(),
            );
        }
        config.corpus = Some(corpus);
        let implementations = super::implementations::ImplementationArgs {
            implementation: args.implementation.clone(),
            timeout: args.timeout,
            counterexamples: args.counterexamples.clone(),
            report: args.report.clone(),
        };
        return super::implementations::run(&implementations, config);
    }
    // A shard's report would be partial: written only when asked for.
    let report = match (&args.report, args.shard) {
        (Some(Some(path)), _) => Some(path.clone()),
        (Some(None), _) | (None, None) => Some(PathBuf::from("reports/conformance.md")),
        (None, Some(_)) => None,
    };
    config.counterexamples = Some(args.counterexamples.clone());
    config.corpus = Some(corpus);
    config.report.clone_from(&report);
    config.shard = args.shard.unwrap_or(Shard::WHOLE);
    if let Some(name) = &args.inject_fault {
        inject(&mut config, name)?;
    }
    let result = run_check(&config, args.format);
    let code = finish(
        &config,
        &result,
        args.format,
        args.results_json.as_deref(),
        args.junit.as_deref(),
    )?;
    if let Some(path) = &report {
        eprintln_or_print(
            args.format,
            &format!("report written to {}", path.display()),
        );
    }
    Ok(code)
}

/// `line` on stdout when the final output is the text table, else on stderr (stdout then
/// carries only the chosen format).
fn eprintln_or_print(format: Format, line: &str) {
    if format == Format::Text {
        println!("{line}");
    } else {
        eprintln!("{line}");
    }
}

/// Runs the check, a progress bar on a terminal.
fn run_check(config: &CheckConfig, format: Format) -> CheckResult {
    let total = config.shard.share(config.cases);
    let bar = (config.progress_bar && !config.quiet).then(|| {
        let bar = indicatif::ProgressBar::new(u64::from(total));
        if let Ok(style) = indicatif::ProgressStyle::default_bar()
            .template("{msg} [{bar:40}] {pos}/{len} cases ({per_sec}, eta {eta})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message("generated");
        bar
    });
    let result = check::run_with_progress(
        config,
        &mut |line| eprintln_or_print(format, line),
        &mut |done, _total| {
            if let Some(bar) = &bar {
                bar.set_position(u64::from(done));
            }
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

/// Writes the results files asked for, prints `format` on stdout, and answers the exit code: 0
/// when every check passed, 1 on any failure. `check-merge` ends the same way.
pub fn finish(
    config: &CheckConfig,
    result: &CheckResult,
    format: Format,
    results_json: Option<&Path>,
    junit: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let results = Results::of(config, result)?;
    finish_with(result, &results, format, results_json, junit)
}

/// [`finish`] with the results already made (a merge's).
pub fn finish_with(
    result: &CheckResult,
    results: &Results,
    format: Format,
    results_json: Option<&Path>,
    junit: Option<&Path>,
) -> Result<ExitCode, CliError> {
    if let Some(path) = results_json {
        write_output(path, &results.to_json())?;
    }
    if let Some(path) = junit {
        write_output(path, &results::junit(results))?;
    }
    match format {
        Format::Text => print!("{}", result.table()),
        Format::Markdown => print!("{}", check::report_markdown(result)),
        Format::Json => print!("{}", results.to_json()),
        Format::Junit => print!("{}", results::junit(results)),
    }
    Ok(if result.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(feature = "fault-injection")]
fn inject(config: &mut CheckConfig, name: &str) -> Result<(), CliError> {
    let fault: flatjoin::Fault = name
        .parse()
        .map_err(|e: flatjoin::UnknownName| e.to_string())?;
    config.base.fault = Some(fault);
    Ok(())
}

#[cfg(not(feature = "fault-injection"))]
fn inject(_config: &mut CheckConfig, name: &str) -> Result<(), CliError> {
    Err(format!(
        "--inject-fault {name}: this binary has no faults; build it with `cargo build --release -p flatjoin-cli --features fault-injection`"
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::report_command;

    fn words(args: &str) -> Vec<String> {
        args.split(' ').map(str::to_owned).collect()
    }

    /// The shards of a run, and the run with its outputs elsewhere, name the same command.
    #[test]
    fn the_report_command_leaves_out_the_shard_and_the_outputs() {
        for args in [
            "check --cases 5",
            "check --shard 2/3 --cases 5 --results-json r.json --junit j.xml",
            "check --shard=2/3 --cases 5 --format junit --report out.md",
            "check --report --cases 5 --format=json",
            "check --cases 5 --report=x.md",
        ] {
            assert_eq!(
                report_command(&words(args)),
                "flatjoin check --cases 5",
                "{args}"
            );
        }
        assert_eq!(
            report_command(&words("check --corpus my dir --report")),
            "flatjoin check --corpus my dir"
        );
        assert_eq!(
            report_command(&["check".into(), "--corpus".into(), "a b".into()]),
            "flatjoin check --corpus 'a b'"
        );
    }
}
