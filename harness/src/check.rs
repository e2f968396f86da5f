//! The `flatjoin check` driver: replay the corpus through every applicable oracle, then run N
//! generated cases from a fixed seed, shrink the first counterexample, write it under
//! `corpus/regressions/`, and summarise per oracle (and in `reports/conformance.md`).
//!
//! Generated cases alternate the option sets (declared reading, permissive reading, root-only
//! scope), so every guarantee is checked under both readings of open branches.
//!
//! Work runs on a pool of [`CheckConfig::jobs`] threads: corpus files and the suite's drafts are
//! replayed in parallel, and generated case `i` is a function of the seed and `i` alone
//! ([`case_runner`]), drawn and evaluated on a worker (a bounded window in flight, no barrier
//! between batches) and folded in case order — so the counts, the first violation and the report
//! are the same for every number of jobs, and the calling thread only folds.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flatjoin::{OpenBranches, Options, Scope};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rayon::prelude::*;
use serde_json::Value;

use crate::corpus;
use crate::generate;
use crate::model::Case;
use crate::open_world::{self, OpenCase};
use crate::oracle::{self, Oracle, Outcome, Violation};
use crate::suite::{self, SuiteReport};

/// The default seed of generated cases: a fixed one, so a run is reproducible.
pub const DEFAULT_SEED: u64 = 0x5EED_F1A7_2026;
/// The default number of generated cases (about a minute in release on the 2-core reference
/// machine, with the bundled corpus).
pub const DEFAULT_CASES: u32 = 10_000;
/// The typed model's generator, as the report names it.
pub const MODEL_GENERATOR: &str = "model";
/// The open-world generator ([`crate::open_world`]), as the report names it.
pub const OPEN_WORLD_GENERATOR: &str = "open-world";
/// The most open-world counterexamples shrunk and written per run (one per oracle and class).
const MAX_OPEN_WORLD_SHRINKS: usize = 6;

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
    /// Where to write a shrunk counterexample (`None`: nowhere).
    pub regressions: Option<PathBuf>,
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
}

impl CheckConfig {
    /// The defaults of `flatjoin check` with no flags (run from the repository root).
    pub fn new(command: String) -> CheckConfig {
        CheckConfig {
            cases: DEFAULT_CASES,
            seed: DEFAULT_SEED,
            corpus: Some(PathBuf::from("corpus")),
            report: Some(PathBuf::from("reports/conformance.md")),
            regressions: Some(PathBuf::from("corpus/regressions")),
            base: Options::default(),
            command,
            progress_bar: std::io::stderr().is_terminal(),
            quiet: false,
            max_shrink_steps: 400,
            jobs: default_jobs(),
            open_world_cases: None,
        }
    }
}

/// The number of cores this process may use (1 when it cannot tell).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Generated cases in flight per job ([`evaluate_in_order`]): enough that a slow case at the
/// head of the order does not idle the other workers, few enough that little work is wasted
/// past a violation.
pub(crate) const WINDOW_PER_JOB: usize = 16;

/// Evaluates drawn inputs on `pool` and folds the results in draw order. `draw` runs on the
/// calling thread, up to `window` inputs are in flight, and `fold` sees each input and its
/// result in the order drawn, so what it computes does not depend on the number of workers. There is no barrier between batches: a
/// slow input holds back the fold, never the workers. Drawing stops when `draw` returns `None`
/// or `fold` breaks; inputs still in flight then finish and are dropped.
pub(crate) fn evaluate_in_order<T, R>(
    pool: &rayon::ThreadPool,
    window: usize,
    mut draw: impl FnMut() -> Option<T>,
    eval: impl Fn(&T) -> R + Sync,
    mut fold: impl FnMut(T, R) -> ControlFlow<()>,
) where
    T: Send,
    R: Send,
{
    let (sender, receiver) = std::sync::mpsc::channel::<(u64, T, R)>();
    let eval = &eval;
    pool.in_place_scope(|scope| {
        let mut ready: BTreeMap<u64, (T, R)> = BTreeMap::new();
        let (mut drawn, mut folded) = (0u64, 0u64);
        let mut drawing = true;
        loop {
            while drawing && drawn - folded < window.max(1) as u64 {
                let Some(input) = draw() else {
                    drawing = false;
                    break;
                };
                let sender = sender.clone();
                let n = drawn;
                scope.spawn(move |_| {
                    let result = eval(&input);
                    // The receiver outlives the scope; a send cannot fail.
                    let _ = sender.send((n, input, result));
                });
                drawn += 1;
            }
            if folded == drawn {
                return;
            }
            let Ok((n, input, result)) = receiver.recv() else {
                return;
            };
            ready.insert(n, (input, result));
            while let Some((input, result)) = ready.remove(&folded) {
                folded += 1;
                if fold(input, result).is_break() {
                    return;
                }
            }
        }
    });
}

/// Per-oracle counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Inputs it ran on (passed + failed + skipped).
    pub cases: u64,
    /// Passed.
    pub passed: u64,
    /// Failed.
    pub failed: u64,
    /// Did not apply.
    pub skipped: u64,
}

/// The counts of `oracle` in `list`, added (zeroed) at the end when it has none yet.
fn counts_for(list: &mut Vec<(Oracle, Counts)>, oracle: Oracle) -> &mut Counts {
    let i = match list.iter().position(|(n, _)| *n == oracle) {
        Some(i) => i,
        None => {
            list.push((oracle, Counts::default()));
            list.len() - 1
        }
    };
    &mut list[i].1
}

impl Counts {
    /// Counts one outcome.
    fn count(&mut self, outcome: &Outcome) {
        self.cases += 1;
        match outcome {
            Outcome::Passed(_) => self.passed += 1,
            Outcome::Skipped(_) => self.skipped += 1,
            Outcome::Failed(_) => self.failed += 1,
        }
    }
}

/// How many unexplained validator disagreements a run keeps as examples.
pub const MAX_DISAGREEMENT_EXAMPLES: usize = 20;

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct CheckResult {
    /// Counts per oracle, in [`Oracle::ALL`] order.
    pub oracles: Vec<(Oracle, Counts)>,
    /// Corpus files replayed.
    pub corpus_files: usize,
    /// Generated cases run (before shrinking).
    pub generated: u32,
    /// Static oracle answers.
    pub static_yes: usize,
    /// Static oracle unknowns (including unsupported schemas).
    pub static_unknown: usize,
    /// Widening measure per generated case.
    pub widenings: Vec<f64>,
    /// Values on which boon and jsonschema disagreed on an original with no reference cycle to
    /// explain it (`{"original": …, "value": …}`, the first [`MAX_DISAGREEMENT_EXAMPLES`]).
    pub disagreements: Vec<Value>,
    /// How many such unexplained disagreements there were in all.
    pub unexplained_disagreements: usize,
    /// Disagreements on originals with a reference cycle without progress (undefined by the
    /// spec: `jsonschema` counts re-entry as valid, `boon` as an error).
    pub undefined_disagreements: usize,
    /// Violations, with the regression file written for each (generated ones only).
    pub violations: Vec<(Violation, Option<PathBuf>)>,
    /// The shrunk generated case behind the last violation, with its options.
    pub counterexample: Option<(Case, Options)>,
    /// With a fault injected: generated cases that fail the same way without the fault (a bug
    /// of the core itself, not the fault's doing), passed over.
    pub unattributed: Vec<Violation>,
    /// Inputs no oracle could judge (the judge cannot compile the original), with why.
    pub unjudgeable: Vec<String>,
    /// The JSON-Schema-Test-Suite corpus (`<corpus>/json-schema-test-suite/`), per draft.
    pub suite: Vec<SuiteReport>,
    /// Per generator (`model`, `open-world`): cases run, time, and counts per oracle.
    pub generators: Vec<GeneratorResult>,
    /// Open-world cases that failed: `(case index, oracle, first line of the violation)`.
    pub open_world_failures: Vec<(u32, Oracle, String)>,
    /// Time spent on generated cases.
    pub generated_time: Duration,
    /// Time of the whole run.
    pub total_time: Duration,
}

/// What one generator's cases found.
#[derive(Debug, Clone, Default)]
pub struct GeneratorResult {
    /// The generator's name.
    pub name: &'static str,
    /// Cases run.
    pub cases: u32,
    /// Cases on which some oracle failed.
    pub failed_cases: u32,
    /// Time spent.
    pub time: Duration,
    /// Counts per oracle.
    pub oracles: Vec<(Oracle, Counts)>,
}

impl GeneratorResult {
    fn tally(&mut self, outcomes: &[(Oracle, Outcome)]) {
        if outcomes
            .iter()
            .any(|(_, o)| matches!(o, Outcome::Failed(_)))
        {
            self.failed_cases += 1;
        }
        self.cases += 1;
        for (name, outcome) in outcomes {
            counts_for(&mut self.oracles, *name).count(outcome);
        }
    }
}

impl CheckResult {
    fn tally(&mut self, outcomes: &[(Oracle, Outcome)]) {
        for (name, outcome) in outcomes {
            counts_for(&mut self.oracles, *name).count(outcome);
            if let Outcome::Passed(measure) = outcome {
                if *name == Oracle::StaticSoundness {
                    self.static_yes += measure.static_yes;
                    self.static_unknown += measure.static_unknown;
                }
                if *name == Oracle::Soundness {
                    self.undefined_disagreements += measure.undefined_disagreements;
                    self.unexplained_disagreements += measure.disagreements.len();
                    let room = MAX_DISAGREEMENT_EXAMPLES.saturating_sub(self.disagreements.len());
                    self.disagreements
                        .extend(measure.disagreements.iter().take(room).cloned());
                }
            }
        }
    }

    /// Total passed checks.
    pub fn passed(&self) -> u64 {
        let suite: usize = self
            .suite
            .iter()
            .map(|r| r.flatten.passed + r.wrapped.passed + r.validate.passed)
            .sum();
        self.oracles.iter().map(|(_, c)| c.passed).sum::<u64>() + suite as u64
    }

    /// Total failed checks.
    pub fn failed(&self) -> u64 {
        let suite: usize = self.suite.iter().map(SuiteReport::failed).sum();
        self.oracles.iter().map(|(_, c)| c.failed).sum::<u64>() + suite as u64
    }

    /// The summary table, ending in the line `N passed, M failed`.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<30} {:>7} {:>7} {:>7} {:>7}\n",
            "oracle", "cases", "passed", "failed", "skipped"
        );
        for (name, c) in &self.oracles {
            out.push_str(&format!(
                "{:<30} {:>7} {:>7} {:>7} {:>7}\n",
                name, c.cases, c.passed, c.failed, c.skipped
            ));
        }
        for g in &self.generators {
            out.push_str(&format!(
                "generator {}: {} cases, {} with a violation, {:.1} s\n",
                g.name,
                g.cases,
                g.failed_cases,
                g.time.as_secs_f64()
            ));
        }
        out.push_str(&format!(
            "static covers: {} yes, {} unknown; validator disagreements: {} unexplained, {} on reference cycles without progress\n",
            self.static_yes,
            self.static_unknown,
            self.unexplained_disagreements,
            self.undefined_disagreements
        ));
        for r in &self.suite {
            out.push_str(&r.summary());
        }
        out.push_str(&format!(
            "{} passed, {} failed\n",
            self.passed(),
            self.failed()
        ));
        out
    }
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

/// A deterministic proptest runner for `seed`.
pub fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes(),
        );
    }
    TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Shrinks a failing case: proptest's simplify/complicate walk, keeping the last case on which
/// the same oracle still fails. Returns the smallest failing case and its violation.
pub fn shrink(
    tree: &mut dyn ValueTree<Value = Case>,
    first: Violation,
    options: &Options,
    max_steps: u32,
) -> (Case, Violation) {
    let oracle_name = first.oracle;
    shrink_with(tree, first, max_steps, &|case: &Case| {
        let report = oracle::evaluate_case(case, options);
        report.outcomes.into_iter().find_map(|(name, o)| match o {
            Outcome::Failed(v) if name == oracle_name => Some(*v),
            _ => None,
        })
    })
}

/// The one shrinking walk of the harness (the model's and the open-world generator's): simplify
/// while `fails` still answers a violation, complicate when it does not, at most `max_steps`
/// steps; the smallest case that failed, with its violation.
pub fn shrink_with<T: std::fmt::Debug>(
    tree: &mut dyn ValueTree<Value = T>,
    first: Violation,
    max_steps: u32,
    fails: &dyn Fn(&T) -> Option<Violation>,
) -> (T, Violation) {
    let mut best = (tree.current(), first);
    if !tree.simplify() {
        return best;
    }
    for _ in 0..max_steps {
        let candidate = tree.current();
        match fails(&candidate) {
            Some(v) => {
                best = (candidate, v);
                if !tree.simplify() {
                    break;
                }
            }
            None => {
                if !tree.complicate() {
                    break;
                }
            }
        }
    }
    best
}

fn short_hash(text: &str) -> String {
    // FNV-1a: stable across runs and platforms, enough to name a file.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", h >> 32)
}

/// Writes a shrunk counterexample under the configured regressions folder (when there is one),
/// logging `heading`, then where it was written or why it could not be.
fn save_shrunk(
    config: &CheckConfig,
    shrunk: &Violation,
    found_by: &str,
    heading: &str,
    log: &mut dyn FnMut(&str),
) -> Option<PathBuf> {
    let written = config.regressions.as_ref().and_then(|dir| {
        match write_regression(dir, shrunk, found_by, fault_name(&config.base)) {
            Ok(p) => Some(p),
            Err(e) => {
                log(&format!("cannot write the regression: {e}"));
                None
            }
        }
    });
    log(heading);
    if let Some(p) = &written {
        log(&format!("counterexample written to {}", p.display()));
    }
    written
}

/// Writes a violation as a corpus case under `dir`, named after its oracle (and fault).
pub fn write_regression(
    dir: &Path,
    v: &Violation,
    found_by: &str,
    fault: Option<&str>,
) -> Result<PathBuf, String> {
    let case = corpus::regression_case(v, found_by);
    let text = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())?;
    let name = match fault {
        Some(f) => format!("fault-{f}-{}-{}.json", v.oracle, short_hash(&text)),
        None => format!("{}-{}.json", v.oracle, short_hash(&text)),
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
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

fn fault_name(options: &Options) -> Option<&'static str> {
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
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.max(1))
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            log(&format!(
                "cannot start {} worker threads ({e}); using 1",
                config.jobs
            ));
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .expect("a one-thread pool")
        }
    };
    let mut result = CheckResult {
        oracles: Oracle::ALL
            .iter()
            .map(|n| (*n, Counts::default()))
            .collect(),
        ..CheckResult::default()
    };
    if let Some(dir) = &config.corpus {
        let files = corpus::files(dir);
        if !config.quiet {
            log(&format!(
                "replaying {} corpus files from {}",
                files.len(),
                dir.display()
            ));
        }
        let reports: Vec<_> = pool.install(|| {
            files
                .par_iter()
                .map(|path| corpus::replay_file(path, &config.base))
                .collect()
        });
        for (path, report) in files.iter().zip(reports) {
            result.tally(&report.outcomes);
            result.corpus_files += 1;
            for (name, outcome) in &report.outcomes {
                if let (&Oracle::FlattenAccepts, Outcome::Skipped(why)) = (name, outcome) {
                    result
                        .unjudgeable
                        .push(format!("{}: {why}", path.display()));
                }
                if let Outcome::Failed(v) = outcome {
                    log(&format!("VIOLATION in {}: {v}", path.display()));
                    result.violations.push(((**v).clone(), None));
                }
            }
        }
    }
    // The official test suite, a corpus part of its own (not with an injected fault: the faults
    // are judged on generated cases).
    if let Some(dir) = &config.corpus {
        let suite_dir = dir.join("json-schema-test-suite");
        if suite_dir.is_dir() && fault_name(&config.base).is_none() {
            let reports: Vec<SuiteReport> = pool.install(|| {
                suite::DRAFTS
                    .par_iter()
                    .map(|&draft| suite::run_draft(&suite_dir, draft))
                    .collect()
            });
            for report in reports {
                if !config.quiet {
                    for line in report.summary().lines() {
                        log(line);
                    }
                }
                for f in report
                    .flatten
                    .failures
                    .iter()
                    .chain(&report.wrapped.failures)
                    .chain(&report.validate.failures)
                    .chain(&report.stale_xfail)
                {
                    log(&format!("VIOLATION in the test suite: {f}"));
                }
                result.suite.push(report);
            }
        }
    }
    let generated_start = Instant::now();
    let mut model = GeneratorResult {
        name: MODEL_GENERATOR,
        ..GeneratorResult::default()
    };
    let bar = config.progress_bar && !config.quiet;
    let step = (config.cases / 10).max(1);
    let mut next = 0u32;
    evaluate_in_order(
        &pool,
        WINDOW_PER_JOB * config.jobs.max(1),
        || {
            let i = next;
            next += 1;
            (i < config.cases).then(|| (i, options_for(i, &config.base)))
        },
        |(i, options): &(u32, Options)| {
            model_case(config.seed, *i)
                .map(|tree| {
                    let case = tree.current();
                    let report = oracle::evaluate_case(&case, options);
                    (case, report)
                })
                .ok_or_else(|| format!("the generator rejected case {i}"))
        },
        |(i, options), evaluated| {
            let (case, report) = match evaluated {
                Ok(evaluated) => evaluated,
                Err(e) => {
                    log(&e);
                    return ControlFlow::Continue(());
                }
            };
            result.tally(&report.outcomes);
            model.tally(&report.outcomes);
            result.generated += 1;
            if let Some(w) = report.widening {
                result.widenings.push(w);
            }
            if bar {
                progress(i + 1, config.cases);
            } else if !config.quiet && (i + 1) % step == 0 {
                let secs = generated_start.elapsed().as_secs_f64().max(1e-9);
                log(&format!(
                    "generated {}/{} cases ({:.1} cases/s)",
                    i + 1,
                    config.cases,
                    f64::from(i + 1) / secs
                ));
            }
            let Some(first) = report.first_violation().cloned() else {
                return ControlFlow::Continue(());
            };
            if let Some(without) = without_fault(&options)
                && oracle::evaluate_case(&case, &without)
                    .outcomes
                    .iter()
                    .any(|(name, o)| *name == first.oracle && matches!(o, Outcome::Failed(_)))
            {
                log(&format!(
                    "case {i} fails {} without the injected fault too (a core bug, not the fault): {first}",
                    first.oracle
                ));
                result.unattributed.push(first);
                return ControlFlow::Continue(());
            }
            log(&format!("case {i} failed {}; shrinking…", first.oracle));
            let Some(mut tree) = model_case(config.seed, i) else {
                result.violations.push((first, None));
                return ControlFlow::Break(());
            };
            let (case, shrunk) = shrink(&mut tree, first, &options, config.max_shrink_steps);
            let found_by = format!("{} (case {i}, seed {})", config.command, config.seed);
            let written = save_shrunk(
                config,
                &shrunk,
                &found_by,
                &format!("VIOLATION (shrunk): {shrunk}\n  case model: {case:?}"),
                log,
            );
            result.violations.push((shrunk, written));
            result.counterexample = Some((case, options));
            ControlFlow::Break(())
        },
    );
    result.generated_time = generated_start.elapsed();
    model.time = result.generated_time;
    result.generators.push(model);
    let open_world = run_open_world(config, &pool, &mut result, log);
    result.generators.push(open_world);
    result.total_time = start.elapsed();
    if let Some(path) = &config.report {
        let text = report_markdown(config, &result);
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
    result
}

/// The seed of the open-world generator's runner: derived from the check's seed, so that both
/// generators are reproducible from `--seed` alone and draw independent streams.
pub fn open_world_seed(seed: u64) -> u64 {
    seed ^ 0x0BE5_3ED0_0000_0000
}

/// The runner that draws case `index` of `seed`: every generated case is a function of the seed
/// and its index alone, so any worker can draw any case and a reported case index replays
/// directly.
pub fn case_runner(seed: u64, index: u32) -> TestRunner {
    // splitmix64 of the pair: neighbouring indices get unrelated streams.
    let mut z = seed
        ^ u64::from(index)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    runner(z ^ (z >> 31))
}

/// Case `index` of the model generator under `seed`, as `flatjoin check --seed seed` draws it
/// (`None` when the generator rejects it).
pub fn model_case(seed: u64, index: u32) -> Option<impl ValueTree<Value = Case>> {
    generate::case()
        .new_tree(&mut case_runner(seed, index))
        .ok()
}

/// The `index`-th open-world case of `seed` (as `flatjoin check --seed seed` drew it), with its
/// option set: for replaying a reported case index.
pub fn open_world_case(
    seed: u64,
    index: u32,
) -> Option<(Box<dyn ValueTree<Value = OpenCase>>, Options)> {
    let tree = open_world::case()
        .new_tree(&mut case_runner(open_world_seed(seed), index))
        .ok()?;
    let tree: Box<dyn ValueTree<Value = OpenCase>> = Box::new(tree);
    Some((tree, options_for(index, &Options::default())))
}

/// Runs the open-world cases: every case runs to the end (a violation does not stop the run, so
/// that one run reports every class it reaches); the first violation per oracle (up to
/// [`MAX_OPEN_WORLD_SHRINKS`]) is shrunk and written under the regressions folder.
fn run_open_world(
    config: &CheckConfig,
    pool: &rayon::ThreadPool,
    result: &mut CheckResult,
    log: &mut dyn FnMut(&str),
) -> GeneratorResult {
    let start = Instant::now();
    let mut generator = GeneratorResult {
        name: OPEN_WORLD_GENERATOR,
        ..GeneratorResult::default()
    };
    let cases = config.open_world_cases.unwrap_or(config.cases / 4);
    let step = (cases / 10).max(1);
    let mut shrunk_oracles: Vec<Oracle> = Vec::new();
    // As for the model generator: cases drawn in order, evaluated on the pool, folded in case
    // order (the same findings for every number of jobs).
    let mut next = 0u32;
    evaluate_in_order(
        pool,
        WINDOW_PER_JOB * config.jobs.max(1),
        || {
            let i = next;
            next += 1;
            (i < cases).then(|| (i, options_for(i, &config.base)))
        },
        |(i, options): &(u32, Options)| {
            open_world_case(config.seed, *i)
                .map(|(tree, _)| open_world::evaluate(&tree.current(), options))
                .ok_or_else(|| format!("the open-world generator rejected case {i}"))
        },
        |(i, options), evaluated| {
            let outcomes = match evaluated {
                Ok(outcomes) => outcomes,
                Err(e) => {
                    log(&e);
                    return ControlFlow::Continue(());
                }
            };
            result.tally(&outcomes);
            generator.tally(&outcomes);
            if !config.quiet && (i + 1) % step == 0 {
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                log(&format!(
                    "open-world {}/{} cases ({:.1} cases/s)",
                    i + 1,
                    cases,
                    f64::from(i + 1) / secs
                ));
            }
            let Some(first) = open_world::first_violation(&outcomes) else {
                return ControlFlow::Continue(());
            };
            let line = first
                .message
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect::<String>();
            log(&format!(
                "open-world case {i} (seed {}) failed {}: {line}",
                config.seed, first.oracle
            ));
            result.open_world_failures.push((i, first.oracle, line));
            if shrunk_oracles.contains(&first.oracle)
                || shrunk_oracles.len() >= MAX_OPEN_WORLD_SHRINKS
            {
                result.violations.push((first, None));
                return ControlFlow::Continue(());
            }
            shrunk_oracles.push(first.oracle);
            let oracle_name = first.oracle;
            let Some((mut tree, _)) = open_world_case(config.seed, i) else {
                result.violations.push((first, None));
                return ControlFlow::Continue(());
            };
            let (_, shrunk) = open_world::shrink(
                &mut *tree,
                first,
                &options,
                config.max_shrink_steps,
                &|v: &Violation| v.oracle == oracle_name,
            );
            let found_by = format!(
                "{} (open-world case {i}, seed {})",
                config.command, config.seed
            );
            let written = save_shrunk(
                config,
                &shrunk,
                &found_by,
                &format!("VIOLATION (open-world, shrunk): {shrunk}"),
                log,
            );
            result.violations.push((shrunk, written));
            ControlFlow::Continue(())
        },
    );
    generator.time = start.elapsed();
    generator
}

/// The value at quantile `q` of sorted `values`.
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "an index into a short list"
    )]
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted.get(i).copied()
}

/// The Markdown report.
pub fn report_markdown(config: &CheckConfig, result: &CheckResult) -> String {
    let mut md = String::new();
    md.push_str(&format!(
        "<!-- Generated by `{}` (from the repository root: `cargo run --release -p flatjoin-cli -- {}`); do not edit by hand. -->\n\n# Conformance report\n\n",
        config.command,
        config.command.strip_prefix("flatjoin ").unwrap_or(&config.command)
    ));
    md.push_str(&format!("- Command: `{}`\n", config.command));
    md.push_str(&format!(
        "- Seed: {} (`--seed {}`)\n",
        config.seed, config.seed
    ));
    md.push_str(&format!(
        "- Corpus files replayed: {} (from `{}`)\n",
        result.corpus_files,
        config
            .corpus
            .as_ref()
            .map_or("none".to_owned(), |p| p.display().to_string())
    ));
    let secs = result.generated_time.as_secs_f64().max(1e-9);
    md.push_str(&format!(
        "- Generated cases: {} in {:.1} s ({:.1} cases/s); whole run {:.1} s\n",
        result.generated,
        result.generated_time.as_secs_f64(),
        f64::from(result.generated) / secs,
        result.total_time.as_secs_f64()
    ));
    if let Some(f) = fault_name(&config.base) {
        md.push_str(&format!("- Injected fault: `{f}`\n"));
    }
    md.push_str(&format!(
        "- Result: **{} passed, {} failed**\n\n",
        result.passed(),
        result.failed()
    ));
    md.push_str("## Oracles\n\n| oracle | cases | passed | failed | skipped |\n| --- | ---: | ---: | ---: | ---: |\n");
    for (name, c) in &result.oracles {
        md.push_str(&format!(
            "| {name} | {} | {} | {} | {} |\n",
            c.cases, c.passed, c.failed, c.skipped
        ));
    }
    md.push_str("\n## Generators\n\nPer generator: cases run, cases with a violation, time, and the checks per oracle (passed / failed / skipped).\n\n| generator | cases | failed cases | time (s) | checks passed | checks failed | checks skipped |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for g in &result.generators {
        let sum = |f: fn(&Counts) -> u64| g.oracles.iter().map(|(_, c)| f(c)).sum::<u64>();
        md.push_str(&format!(
            "| {} | {} | {} | {:.1} | {} | {} | {} |\n",
            g.name,
            g.cases,
            g.failed_cases,
            g.time.as_secs_f64(),
            sum(|c| c.passed),
            sum(|c| c.failed),
            sum(|c| c.skipped)
        ));
    }
    for g in &result.generators {
        md.push_str(&format!(
            "\n### Generator `{}`\n\n| oracle | cases | passed | failed | skipped |\n| --- | ---: | ---: | ---: | ---: |\n",
            g.name
        ));
        for (name, c) in &g.oracles {
            md.push_str(&format!(
                "| {name} | {} | {} | {} | {} |\n",
                c.cases, c.passed, c.failed, c.skipped
            ));
        }
    }
    if !result.open_world_failures.is_empty() {
        md.push_str("\n### Open-world cases that failed\n\n| case | oracle | violation |\n| ---: | --- | --- |\n");
        for (i, oracle, line) in result.open_world_failures.iter().take(50) {
            md.push_str(&format!(
                "| {i} | {oracle} | {} |\n",
                line.replace('|', "\\|")
            ));
        }
    }
    md.push_str(&format!(
        "\n## Static oracle\n\n`jsonschema` canonical `covers` (presentation ⊇ branch): {} yes, {} unknown (unsupported schemas count as unknown), 0 no.\n",
        result.static_yes, result.static_unknown
    ));
    let mut w = result.widenings.clone();
    w.sort_by(f64::total_cmp);
    md.push_str("\n## Widening\n\nPer generated case: of the values drawn from the presentation that it accepts, the share the original rejects. Reported, not asserted.\n\n");
    if w.is_empty() {
        md.push_str("No case produced a measurable value.\n");
    } else {
        let q = |x| quantile(&w, x).map_or("-".into(), |v| format!("{v:.3}"));
        md.push_str(&format!(
            "| cases | min | p25 | median | p75 | p90 | max |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n| {} | {} | {} | {} | {} | {} | {} |\n\n",
            w.len(),
            q(0.0),
            q(0.25),
            q(0.5),
            q(0.75),
            q(0.9),
            q(1.0)
        ));
        md.push_str("| share rejected by the original | cases |\n| --- | ---: |\n");
        let buckets = [
            (0.0, 0.0, "0"),
            (0.0, 0.25, "(0, 0.25]"),
            (0.25, 0.5, "(0.25, 0.5]"),
            (0.5, 0.75, "(0.5, 0.75]"),
            (0.75, 1.0, "(0.75, 1]"),
        ];
        for (i, (lo, hi, label)) in buckets.iter().enumerate() {
            let n = w
                .iter()
                .filter(|v| {
                    if i == 0 {
                        **v == 0.0
                    } else {
                        **v > *lo && **v <= *hi
                    }
                })
                .count();
            md.push_str(&format!("| {label} | {n} |\n"));
        }
    }
    if !result.suite.is_empty() {
        md.push_str(&suite::report_markdown(&result.suite));
    }
    md.push_str(&format!(
        "\n## Validator disagreements\n\nValues on which `boon` and `jsonschema` disagree about an original are set aside (not counted as join bugs):\n\n\
         - on an original with a reference cycle that makes no progress through the instance (`$ref`s and in-place applicators that return to where they started; the spec leaves infinite recursive nesting undefined, `jsonschema` counts re-entry as valid and `boon` as an error): {}\n\
         - unexplained: {}\n",
        result.undefined_disagreements, result.unexplained_disagreements
    ));
    for d in result.disagreements.iter().take(5) {
        md.push_str(&format!("  - `{d}`\n"));
    }
    md.push_str("\n## Inputs the judge cannot compile\n\nSkipped by every oracle (not the join's fault: the original is not a valid schema for its draft):\n\n");
    if result.unjudgeable.is_empty() {
        md.push_str("None.\n");
    }
    for u in &result.unjudgeable {
        md.push_str(&format!("- {u}\n"));
    }
    md.push_str("\n## Violations\n\n");
    if result.violations.is_empty() {
        md.push_str("None.\n");
    }
    for (v, path) in &result.violations {
        md.push_str(&format!(
            "- **{}**: {}{}\n",
            v.oracle,
            v.message.lines().next().unwrap_or(""),
            path.as_ref().map_or(String::new(), |p| format!(
                " (written to `{}`)",
                p.display()
            ))
        ));
    }
    md
}
