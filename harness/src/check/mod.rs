//! The `flatjoin check` driver: a run is a sequence of named phases, each returning its findings
//! as a [`CheckResult`] that the driver [merges](CheckResult::merge) in order —
//!
//! 1. *corpus* (`replay.rs`): every corpus file through every applicable oracle;
//! 2. *suite* (`replay.rs`): the official JSON-Schema-Test-Suite, all five drafts;
//! 3. *model* (`generated.rs`): N cases of the typed model's generator from a fixed seed;
//! 4. *open world* (`generated.rs`): the open-world generator's cases;
//!
//!    in both, the first counterexample of each oracle is shrunk and written under
//!    `flatjoin-counterexamples/` (never the corpus), the one rule of [`policy`];
//! 5. *report* (`report.rs`): `reports/conformance.md`, rendered from the merged result alone.
//!
//! Generated cases alternate the option sets ([`options_for`]: declared reading, permissive
//! reading, root-only scope), so every guarantee is checked under both readings of open
//! branches.
//!
//! Work runs on a pool of [`CheckConfig::jobs`] threads: corpus files and the suite's drafts are
//! replayed in parallel, and generated case `i` is a function of the seed and `i` alone
//! ([`crate::draw::case_runner`]), drawn and evaluated on a worker and folded in case order
//! (`order.rs`) — so the counts, the first violation and the report are the same for every number
//! of jobs, and the calling thread only folds.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use flatjoin::{OpenBranches, Options, Scope};

use crate::shard::Shard;

pub mod flattener;
mod generated;
mod order;
pub mod policy;
mod regression;
mod replay;
mod report;
mod result;
pub mod results;

use flattener::Core;
pub use generated::{
    MODEL_GENERATOR, OPEN_WORLD_GENERATOR, model_case, model_phase, open_world_case,
    open_world_phase, open_world_seed,
};
pub use report::report_markdown;
pub use result::{
    CheckResult, Counterexample, Counts, FormCounts, GeneratorResult, MAX_DISAGREEMENT_EXAMPLES,
    RunInfo,
};

/// The default seed of generated cases: a fixed one, so a run is reproducible.
pub const DEFAULT_SEED: u64 = 0x5EED_F1A7_2026;
/// Where `flatjoin check` writes shrunk counterexamples by default (git-ignored; SPEC §6
/// decision 65).
pub const DEFAULT_COUNTEREXAMPLES: &str = "flatjoin-counterexamples";
/// The default number of generated cases (about a minute in release on the 2-core reference
/// machine, with the bundled corpus).
pub const DEFAULT_CASES: u32 = 10_000;

/// What to run.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// Generated cases.
    pub cases: u32,
    /// Seed of the generator.
    pub seed: u64,
    /// Corpus folder to replay (`None`: none).
    pub corpus: Option<PathBuf>,
    /// Where to write the Markdown report (`None`: nowhere).
    pub report: Option<PathBuf>,
    /// Where to write a shrunk counterexample (`None`: nowhere); never the corpus, whose
    /// replay would then fail on it (SPEC §6 decision 65). An injected fault's go to `faults/`
    /// below it.
    pub counterexamples: Option<PathBuf>,
    /// Base options; carries the injected fault, if any.
    pub base: Options,
    /// The command line, for the report header.
    pub command: String,
    /// The caller shows progress itself (the CLI's progress bar, on a terminal), fed by the
    /// `progress` callback of [`run_with_progress`], instead of plain progress lines.
    pub progress_bar: bool,
    /// Print progress at all.
    pub quiet: bool,
    /// Upper bound on shrinking steps.
    pub max_shrink_steps: u32,
    /// Worker threads (at least 1). The result does not depend on it.
    pub jobs: usize,
    /// Open-world cases ([`crate::open_world`]); `None`: a quarter of `cases`.
    pub open_world_cases: Option<u32>,
    /// The shard to run ([`Shard::WHOLE`]: everything; SPEC §6 decision 58): each phase keeps
    /// the positions of its inputs that belong to it.
    pub shard: Shard,
    /// Stop each generated phase after the case of its first counterexample (`--fail-fast`);
    /// otherwise every case runs ([`policy`]).
    pub fail_fast: bool,
}

impl CheckConfig {
    /// The defaults of `flatjoin check` with no flags (run from the repository root).
    pub fn new(command: String) -> CheckConfig {
        CheckConfig {
            cases: DEFAULT_CASES,
            seed: DEFAULT_SEED,
            corpus: Some(PathBuf::from("corpus")),
            report: Some(PathBuf::from("reports/conformance.md")),
            counterexamples: Some(PathBuf::from(DEFAULT_COUNTEREXAMPLES)),
            base: Options::default(),
            command,
            progress_bar: std::io::stderr().is_terminal(),
            quiet: false,
            max_shrink_steps: 400,
            jobs: default_jobs(),
            open_world_cases: None,
            shard: Shard::WHOLE,
            fail_fast: false,
        }
    }

    /// What the report says of this run.
    pub fn run_info(&self) -> RunInfo {
        RunInfo {
            command: self.command.clone(),
            seed: self.seed,
            corpus: self.corpus.clone(),
            fault: fault_name(&self.base).map(str::to_owned),
        }
    }
}

/// The number of cores this process may use (1 when it cannot tell).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The option set of the i-th generated case.
pub fn options_for(i: u32, base: &Options) -> Options {
    let mut options = base.clone();
    options.open_branches = if i.is_multiple_of(2) {
        OpenBranches::Declared
    } else {
        OpenBranches::Permissive
    };
    options.scope = if i % 5 == 4 { Scope::Root } else { Scope::All };
    options
}

/// Runs the check. `log` receives one line at a time (the progress lines, when no bar is shown,
/// and the violations).
pub fn run(config: &CheckConfig, log: &mut dyn FnMut(&str)) -> CheckResult {
    run_with_progress(config, log, &mut |_, _| {})
}

/// [`run`], also calling `progress(done, total)` after each generated case when
/// [`CheckConfig::progress_bar`] is set (and not [`CheckConfig::quiet`]); the harness draws no
/// progress bar itself, so it needs no terminal library.
pub fn run_with_progress(
    config: &CheckConfig,
    log: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(u32, u32),
) -> CheckResult {
    let start = Instant::now();
    let pool = order::pool(config.jobs, log);
    let mut result = CheckResult::new(config.run_info());
    if let Some(dir) = &config.corpus {
        result.merge(replay::corpus_phase(config, dir, &pool, log));
        result.merge(replay::suite_phase(config, dir, &pool, log));
    }
    let mut kept = policy::Counterexamples::default();
    let core = Core { config };
    result.merge(generated::model_phase(
        config, &core, &mut kept, &pool, log, progress,
    ));
    result.merge(generated::open_world_phase(
        config, &core, &mut kept, &pool, log,
    ));
    result.total_time = start.elapsed();
    let result = folded(config, result, log);
    if let Some(path) = &config.report {
        write_report(path, &report_markdown(&result), log);
    }
    result
}

/// Records, then one fold (SPEC §6 decision 75): the run's result as [`results::fold`] makes it
/// from the records the phases kept — the very fold a results file and a merge of shards come
/// from — with what only the live run has (the kept counterexample case). A fold that fails is
/// a harness bug: logged, and the live result kept.
fn folded(config: &CheckConfig, live: CheckResult, log: &mut dyn FnMut(&str)) -> CheckResult {
    match results::fold_run(config, &live) {
        Ok((_, _, folded)) => {
            let mut result = folded.result;
            result.items = folded.items;
            result.counterexample = live.counterexample;
            result.total_time = live.total_time;
            result
        }
        Err(e) => {
            log(&format!("HARNESS BUG: the run's records do not fold: {e}"));
            live
        }
    }
}

/// Writes the report to `path` (creating its folder), logging why it could not.
fn write_report(path: &Path, text: &str, log: &mut dyn FnMut(&str)) {
    let written = path
        .parent()
        .map_or(Ok(()), |p| {
            if p.as_os_str().is_empty() {
                Ok(())
            } else {
                std::fs::create_dir_all(p)
            }
        })
        .and_then(|()| std::fs::write(path, text));
    if let Err(e) = written {
        log(&format!("cannot write the report {}: {e}", path.display()));
    }
}

/// The same options with no fault, when a fault is injected.
fn without_fault(options: &Options) -> Option<Options> {
    #[cfg(feature = "fault-injection")]
    {
        options.fault.map(|_| options.clone().with_fault(None))
    }
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = options;
        None
    }
}

/// The injected fault's name, if any.
pub(crate) fn fault_name(options: &Options) -> Option<&'static str> {
    #[cfg(feature = "fault-injection")]
    {
        options.fault.map(flatjoin::Fault::name)
    }
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = options;
        None
    }
}
