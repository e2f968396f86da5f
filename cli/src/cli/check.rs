//! `flatjoin check`: the conformance run (corpus replay, generated cases, per-oracle summary,
//! `reports/conformance.md`, shrunk counterexamples under `corpus/regressions/`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use flatjoin_harness::check::{self, CheckConfig};
use flatjoin_harness::protocol::run::shell_quote;

/// Arguments of `flatjoin check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Generated cases to run after the corpus.
    #[arg(long, default_value_t = check::DEFAULT_CASES)]
    pub cases: u32,
    /// Seed of the case generator (the default is fixed, so runs are reproducible).
    #[arg(long, default_value_t = check::DEFAULT_SEED)]
    pub seed: u64,
    /// Corpus folder to replay; counterexamples are written to its `regressions/`.
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    pub corpus: PathBuf,
    /// Where to write the Markdown report (default `reports/conformance.md`; with
    /// `--implementation`, no report unless `--report` is given, whose default then is
    /// `reports/implementations.md`, with its JSON results beside it).
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub report: Option<Option<PathBuf>>,
    /// Worker threads (default: the available cores). The counts and the report's findings are
    /// the same for every value.
    #[arg(long, value_name = "N", default_value_t = check::default_jobs())]
    pub jobs: usize,
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
    /// With `--implementation`: where each implementation's first counterexample per oracle is
    /// written (`DIR/<name>/<oracle>.json`, a corpus case that replays it).
    #[arg(long, value_name = "DIR", default_value = "flatjoin-counterexamples")]
    pub counterexamples: PathBuf,
    /// Upper bound on the steps shrinking one counterexample may take.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub shrink_steps: u32,
    /// Open-world cases (default: a quarter of `--cases`).
    #[arg(long, value_name = "N")]
    pub open_world_cases: Option<u32>,
}

/// Runs `flatjoin check`: exit 0 when every oracle held, 1 on any violation.
pub fn run(args: &CheckArgs) -> Result<ExitCode, String> {
    // Words quoted as a shell needs them (`--implementation 'node run.mjs f.mjs#fn'`), so the
    // reports' headers can be pasted back.
    let command = std::iter::once("flatjoin".to_owned())
        .chain(std::env::args().skip(1).map(|a| shell_quote(&a)))
        .collect::<Vec<_>>()
        .join(" ");
    let mut config = CheckConfig::new(command);
    config.cases = args.cases;
    config.seed = args.seed;
    config.jobs = args.jobs.max(1);
    // The bundled corpus: `corpus/` under the working directory (the repository root), else the
    // one this binary was built from.
    let bundled = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus"));
    let corpus = if args.corpus.is_dir() {
        args.corpus.clone()
    } else if args.corpus.as_os_str() == "corpus" && bundled.is_dir() {
        bundled
    } else {
        return Err(format!(
            "{}: no such corpus folder (run from the repository root, or pass --corpus DIR)",
            args.corpus.display()
        ));
    };
    config.max_shrink_steps = args.shrink_steps;
    config.open_world_cases = args.open_world_cases;
    if !args.implementation.is_empty() {
        if args.inject_fault.is_some() {
            return Err(
                "--inject-fault injects into the in-process core; it cannot apply to --implementation"
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
    let report = match &args.report {
        Some(Some(path)) => path.clone(),
        _ => PathBuf::from("reports/conformance.md"),
    };
    config.regressions = Some(corpus.join("regressions"));
    config.corpus = Some(corpus);
    config.report = Some(report.clone());
    if let Some(name) = &args.inject_fault {
        inject(&mut config, name)?;
    }
    let bar = (config.progress_bar && !config.quiet).then(|| {
        let bar = indicatif::ProgressBar::new(u64::from(config.cases));
        if let Ok(style) = indicatif::ProgressStyle::default_bar()
            .template("{msg} [{bar:40}] {pos}/{len} cases ({per_sec}, eta {eta})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message("generated");
        bar
    });
    let result = check::run_with_progress(
        &config,
        &mut |line| println!("{line}"),
        &mut |done, _total| {
            if let Some(bar) = &bar {
                bar.set_position(u64::from(done));
            }
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    print!("{}", result.table());
    println!("report written to {}", report.display());
    Ok(if result.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(feature = "fault-injection")]
fn inject(config: &mut CheckConfig, name: &str) -> Result<(), String> {
    let fault: flatjoin::Fault = name.parse()?;
    config.base.fault = Some(fault);
    Ok(())
}

#[cfg(not(feature = "fault-injection"))]
fn inject(_config: &mut CheckConfig, name: &str) -> Result<(), String> {
    Err(format!(
        "--inject-fault {name}: this binary has no faults; build it with `cargo build --release -p flatjoin-cli --features fault-injection`"
    ))
}
