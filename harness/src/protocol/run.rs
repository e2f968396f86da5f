//! `flatjoin check --implementation`: the harness's inputs — the corpus, the vendored
//! JSON-Schema-Test-Suite (plain and wrapped into unions), the model generator and the
//! open-world generator — sent through an implementation behind the protocol, each answer judged
//! by the oracles of [`Oracle::IMPLEMENTATION`] (the same functions that judge the core, given
//! the implementation's presentations). The first counterexample per oracle is shrunk through
//! the protocol (generated inputs) and written as a corpus case that replays it. Every phase
//! keeps its records, and the counts come from their fold ([`results::fold`], the in-process
//! run's: SPEC §6 decision 76).
//!
//! An implementation runs as up to [`CheckConfig::jobs`] processes (one per worker); answers
//! other than a presentation are counted per oracle, never judged: `errored` (the implementation
//! refused the input), `skipped`, and `crashed` (the process exited, hung past the timeout, or
//! broke the protocol; it is restarted).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use flatjoin::{OpenBranches, Options, Scope};
use rayon::prelude::*;
use serde_json::Value;

use super::client::Client;
use super::{Answer, ImplementationInfo};
use crate::check::flattener::Flattener;
use crate::check::policy::Counterexamples;
use crate::check::results::{self, Timing};
use crate::check::{self, CheckConfig, CheckResult, Counterexample, Counts};
use crate::corpus::{self, Input};
use crate::model::Case;
use crate::open_world::{self, OpenCase};
use crate::oracle::{self, CaseReport, Oracle, Outcome, Skip, Subject, Unpresented, Violation};
use crate::render::render;
use crate::shard::{CorpusItem, Items, Outcomes, SuiteItem};
use crate::suite;

/// The most crash, protocol-error and errored messages kept per implementation.
const MAX_MESSAGES: usize = 10;

/// One implementation to judge.
#[derive(Debug, Clone)]
pub struct Target {
    /// The command as the user wrote it (reports, replay instructions).
    pub command: String,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Per-request timeout.
    pub timeout: Duration,
}

/// What to run: the generator counts, seed, corpus, jobs, shrink steps and quietness of a
/// [`CheckConfig`] (its report and regressions folder are not used), the implementations, and
/// where counterexamples go (`<dir>/<implementation>/<oracle>.json`).
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The shared settings.
    pub check: CheckConfig,
    /// The implementations, judged one after the other.
    pub targets: Vec<Target>,
    /// Where counterexamples are written (`None`: nowhere).
    pub counterexamples: Option<PathBuf>,
}

/// Inputs sent from one source (corpus, suite, a generator) and the time they took.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// `corpus`, `suite`, `model`, `open-world`.
    pub name: &'static str,
    /// Inputs sent.
    pub inputs: u64,
    /// Wall time, judging and shrinking included.
    pub time: Duration,
}

/// What one implementation came to.
#[derive(Debug, Clone, Default)]
pub struct ImplementationResult {
    /// The command.
    pub command: String,
    /// What it said about itself (`None`: it never started).
    pub info: Option<ImplementationInfo>,
    /// Why it could not be started, if it could not.
    pub start_error: Option<String>,
    /// Counts per oracle, in [`Oracle::IMPLEMENTATION`] order.
    pub cells: Vec<(Oracle, Counts)>,
    /// The first counterexample per oracle.
    pub counterexamples: Vec<Counterexample>,
    /// Per source.
    pub sources: Vec<Source>,
    /// The suite's flatten and wrapped parts, per draft (SPEC §6 decision 75).
    pub suite: Vec<suite::SuiteReport>,
    /// Counts per source × oracle (and suite draft × part), as a results file's summary has
    /// them: from the same fold.
    pub checks: Vec<results::CheckCounts>,
    /// Crashes, hangs and protocol errors (all requests, shrinking included).
    pub crash_count: u64,
    /// The first crash and hang messages.
    pub crashes: Vec<String>,
    /// The first protocol errors (each quoting the line).
    pub protocol_errors: Vec<String>,
    /// The first `errored` messages.
    pub errored: Vec<String>,
    /// Requests sent.
    pub requests: u64,
    /// Processes started (1 + restarts, per worker).
    pub starts: u64,
    /// Time between writing requests and reading their answers, summed over the workers.
    pub waiting: Duration,
    /// Wall time of the whole run of this implementation.
    pub time: Duration,
}

impl ImplementationResult {
    /// Counterexamples over all oracles.
    pub fn violations(&self) -> u64 {
        let suite: usize = self.suite.iter().map(suite::SuiteReport::failed).sum();
        self.cells.iter().map(|(_, c)| c.failed).sum::<u64>() + suite as u64
    }

    /// Whether the implementation held every guarantee without crashing.
    pub fn clean(&self) -> bool {
        self.start_error.is_none() && self.violations() == 0 && self.crash_count == 0
    }

    /// The per-oracle table, then the counterexamples and a `N passed, N failed` line.
    pub fn table(&self) -> String {
        let mut out = format!("implementation: {}\n", self.command);
        if let Some(e) = &self.start_error {
            out.push_str(&format!("  cannot be started: {e}\n"));
        }
        out.push_str(&format!(
            "{:<30} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n",
            "oracle", "cases", "passed", "failed", "errored", "skipped", "crashed", "n/a"
        ));
        for (o, c) in &self.cells {
            out.push_str(&format!(
                "{:<30} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n",
                o.name(),
                c.cases,
                c.passed,
                c.failed,
                c.errored,
                c.declined,
                c.crashed,
                c.skipped
            ));
        }
        for x in &self.counterexamples {
            out.push_str(&format!(
                "counterexample {} ({}{}): {}{}\n",
                x.oracle,
                x.found,
                if x.shrunk { ", shrunk" } else { "" },
                first_line(&x.violation.message),
                x.file
                    .as_ref()
                    .map_or(String::new(), |p| format!(" → {}", p.display()))
            ));
        }
        for c in &self.crashes {
            out.push_str(&format!("crash: {}\n", first_line(c)));
        }
        for p in &self.protocol_errors {
            out.push_str(&format!("protocol error: {}\n", first_line(p)));
        }
        let passed: u64 = self.cells.iter().map(|(_, c)| c.passed).sum();
        out.push_str(&format!(
            "{}: {} requests, {} crashed, {} passed, {} failed\n",
            self.info
                .as_ref()
                .map_or(self.command.as_str(), |i| &i.name),
            self.requests,
            self.crash_count,
            passed,
            self.violations()
        ));
        out
    }

    /// The cells and the suite's parts from the fold of `items` ([`results::fold`], the one
    /// the in-process run's report, results file and shard merge come from); a fold that fails
    /// is logged and makes the implementation not clean.
    fn fold(&mut self, check: &CheckConfig, items: &Items, log: &mut dyn FnMut(&str)) {
        match results::fold(
            &results::Run::of(check),
            &Oracle::ALL,
            items,
            Timing::default(),
        ) {
            Ok(folded) => {
                for (oracle, counts) in &mut self.cells {
                    *counts = folded
                        .result
                        .oracles
                        .iter()
                        .find(|(o, _)| o == oracle)
                        .map_or_else(Counts::default, |(_, c)| *c);
                }
                self.suite = folded.result.suite;
                self.checks = folded.summary.checks;
            }
            Err(e) => {
                let e = format!("the run's records do not fold: {e}");
                log(&format!("{}: {e}", self.command));
                self.start_error = Some(e);
            }
        }
    }

    /// Takes what a generated phase found: its counterexamples and source; its records are
    /// the answer.
    fn absorb(&mut self, phase: CheckResult) -> Items {
        self.counterexamples.extend(phase.counterexamples);
        for g in phase.generators {
            self.sources.push(Source {
                name: if g.name == check::MODEL_GENERATOR {
                    check::MODEL_GENERATOR
                } else {
                    check::OPEN_WORLD_GENERATOR
                },
                inputs: u64::from(g.cases),
                time: g.time,
            });
        }
        phase.items
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut short: String = line.chars().take(200).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    short
}

/// The processes of one implementation, one per worker at most, and what happened to them.
struct Pool {
    argv: Vec<String>,
    timeout: Duration,
    idle: Mutex<Vec<Client>>,
    events: Mutex<Events>,
}

#[derive(Default)]
struct Events {
    crash_count: u64,
    crashes: Vec<String>,
    protocol_errors: Vec<String>,
    errored: Vec<String>,
}

impl Pool {
    fn new(target: &Target) -> Pool {
        Pool {
            argv: target.argv.clone(),
            timeout: target.timeout,
            idle: Mutex::new(Vec::new()),
            events: Mutex::new(Events::default()),
        }
    }

    /// Runs one request on an idle process (a new client when none is idle).
    fn run(&self, schema: &Value, options: &Options) -> Answer {
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        let mut client = idle.unwrap_or_else(|| Client::new(self.argv.clone(), self.timeout));
        let answer = client.run(schema, options);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(client);
        }
        if let Ok(mut events) = self.events.lock() {
            let keep = |list: &mut Vec<String>, m: &str| {
                if list.len() < MAX_MESSAGES {
                    list.push(m.to_owned());
                }
            };
            match &answer {
                Answer::Crashed(m) => {
                    events.crash_count += 1;
                    keep(&mut events.crashes, m);
                }
                Answer::ProtocolError(m) => {
                    events.crash_count += 1;
                    keep(&mut events.protocol_errors, m);
                }
                Answer::Errored(m) => keep(&mut events.errored, m),
                _ => {}
            }
        }
        answer
    }

    /// [`Pool::run`] as an oracle's flatten function.
    fn present(&self, schema: &Value, options: &Options) -> Result<Value, Unpresented> {
        self.presented(schema, options).map(|(p, _)| p)
    }

    /// [`Pool::run`]'s presentation and the diagnostics sent with it, if any.
    fn presented(
        &self,
        schema: &Value,
        options: &Options,
    ) -> Result<(Value, Option<Value>), Unpresented> {
        match self.run(schema, options) {
            Answer::Presentation {
                schema,
                diagnostics,
            } => Ok((schema, diagnostics)),
            Answer::Errored(m) => Err(Unpresented::NotJudged(Skip::Errored(m))),
            Answer::Skipped(r) => Err(Unpresented::NotJudged(Skip::Declined(r))),
            Answer::Crashed(m) => Err(Unpresented::NotJudged(Skip::Crashed(m))),
            Answer::ProtocolError(m) => Err(Unpresented::NotJudged(Skip::ProtocolError(m))),
        }
    }

    /// Stops every process; returns (requests, starts, time waiting on answers).
    fn finish(&self) -> (u64, u64, Duration) {
        let clients = self
            .idle
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        let mut totals = (0, 0, Duration::ZERO);
        for mut c in clients {
            c.stop();
            totals.0 += c.requests;
            totals.1 += u64::from(c.starts);
            totals.2 += c.waiting;
        }
        totals
    }
}

/// The oracles that apply to an input (the model-level invariances only to model cases).
fn oracles_for(model: bool) -> impl Iterator<Item = Oracle> {
    Oracle::IMPLEMENTATION.into_iter().filter(move |o| {
        model
            || !matches!(
                o,
                Oracle::BranchOrder | Oracle::DuplicateBranch | Oracle::Dialect
            )
    })
}

/// Every applicable oracle skipped with `why`.
fn every(why: &Skip, model: bool) -> Vec<(Oracle, Outcome)> {
    oracles_for(model)
        .map(|o| (o, Outcome::Skipped(why.clone())))
        .collect()
}

/// One input: the schema, its options, values it must accept, and the model case it renders
/// (for the invariances) or a corpus case's variants.
struct Job<'a> {
    schema: &'a Value,
    options: &'a Options,
    values: Vec<Value>,
    case: Option<&'a Case>,
    variants: &'a [(String, Value)],
}

/// Sends one input through the implementation and judges the answer.
fn judge(pool: &Pool, job: Job<'_>) -> Vec<(Oracle, Outcome)> {
    let present = |s: &Value, o: &Options| pool.present(s, o);
    let model = job.case.is_some();
    let (presentation, diagnostics) = match pool.presented(job.schema, job.options) {
        Ok(answer) => answer,
        Err(Unpresented::NotJudged(why)) => return every(&why, model),
        Err(Unpresented::Failed(why)) => return every(&why.into(), model),
    };
    // The invariances and variants ask for the input's own presentation again as their base:
    // answered from the first answer (determinism asks the implementation again itself).
    let first = presentation.clone();
    let again = |s: &Value, o: &Options| {
        if s == job.schema && o == job.options {
            Ok(first.clone())
        } else {
            pool.present(s, o)
        }
    };
    let subject = match Subject::presented(job.schema, job.options, presentation, diagnostics) {
        Ok(Ok(subject)) => subject.with_instances(job.values, Vec::new()),
        Ok(Err(reason)) => return every(&reason.into(), model),
        Err(mut v) => {
            v.oracle = Oracle::PresentationValidity;
            let mut out = every(&"no valid presentation to judge".into(), model);
            for (o, outcome) in &mut out {
                if *o == Oracle::PresentationValidity {
                    *outcome = Outcome::Failed(Box::new(v.clone()));
                }
            }
            return out;
        }
    };
    let mut out = subject.implementation_outcomes(&present);
    let run = |r: Result<Outcome, Violation>| r.unwrap_or_else(|v| Outcome::Failed(Box::new(v)));
    if let Some(case) = job.case {
        out.push((
            Oracle::BranchOrder,
            run(oracle::branch_order_invariance_with(
                case,
                job.options,
                &again,
            )),
        ));
        out.push((
            Oracle::DuplicateBranch,
            run(oracle::duplicate_branch_invariance_with(
                case,
                job.options,
                &again,
            )),
        ));
        out.push((
            Oracle::Dialect,
            run(oracle::dialect_invariance_with(case, job.options, &again)),
        ));
        let repeated = run(oracle::no_blow_up_repeated_with(case, job.options, &again));
        oracle::merge_no_blow_up(&mut out, repeated);
    }
    for (compare, other) in job.variants {
        out.push(corpus::compare_variant_with(
            &subject,
            other,
            compare,
            job.options,
            &present,
        ));
    }
    out
}

/// The option sets an input without its own is sent under: each declared reading, at the
/// widest declared scope.
fn reading_options(info: &ImplementationInfo) -> Vec<Options> {
    let scope = if info.scopes.contains(&Scope::All) {
        Scope::All
    } else {
        Scope::Root
    };
    [OpenBranches::Declared, OpenBranches::Permissive]
        .into_iter()
        .filter(|r| info.readings.contains(r))
        .map(|r| Options::default().with_open_branches(r).with_scope(scope))
        .collect()
}

/// A fixed input: a schema of a corpus file.
struct Fixed {
    /// The file's position in the corpus's file order, and its path.
    file: (u64, String),
    found: String,
    schema: Value,
    options: Options,
    values: Vec<Value>,
    variants: Vec<(String, Value)>,
    /// The file's `"xfail"` reason: its failures count as skips, as in process.
    known_failure: Option<String>,
}

/// The corpus inputs (every [`Input`] of every file, under each declared reading when it has no
/// options of its own; a case whose options the implementation does not declare is left out).
fn corpus_inputs(dir: &Path, info: &ImplementationInfo) -> Vec<Fixed> {
    let mut out = Vec::new();
    for (index, path) in (0u64..).zip(corpus::files(dir)) {
        let file = (index, path.display().to_string());
        for Input {
            label,
            schema,
            options,
            values,
            variants,
            known_failure,
        } in corpus::inputs(&path)
        {
            let sets = match options {
                Some(o) if info.supports(&o) => vec![o],
                Some(_) => Vec::new(),
                None => reading_options(info),
            };
            for options in sets {
                out.push(Fixed {
                    file: file.clone(),
                    found: label.clone(),
                    schema: schema.clone(),
                    options,
                    values: values.clone(),
                    variants: variants.clone(),
                    known_failure: known_failure.clone(),
                });
            }
        }
    }
    out
}

/// Judges every implementation of `config`, one after the other; `log` receives progress and
/// findings one line at a time.
pub fn run(config: &RunConfig, log: &mut dyn FnMut(&str)) -> Vec<ImplementationResult> {
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(config.check.jobs.max(1))
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            log(&format!("cannot start the worker threads: {e}"));
            return Vec::new();
        }
    };
    config
        .targets
        .iter()
        .map(|target| run_one(config, target, &pool, log))
        .collect()
}

fn run_one(
    config: &RunConfig,
    target: &Target,
    threads: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
) -> ImplementationResult {
    let start = Instant::now();
    let mut result = ImplementationResult {
        command: target.command.clone(),
        cells: Oracle::IMPLEMENTATION
            .iter()
            .map(|o| (*o, Counts::default()))
            .collect(),
        ..ImplementationResult::default()
    };
    let pool = Pool::new(target);
    let mut first = Client::new(target.argv.clone(), target.timeout);
    let info = match first.ensure_started() {
        Ok(info) => info.clone(),
        Err(e) => {
            log(&format!("{}: cannot be started: {e}", target.command));
            result.start_error = Some(e);
            result.time = start.elapsed();
            return result;
        }
    };
    if let Ok(mut idle) = pool.idle.lock() {
        idle.push(first);
    }
    log(&format!(
        "implementation {} ({}{}, readings: {}): {}",
        info.name,
        info.language,
        if info.version.is_empty() {
            String::new()
        } else {
            format!(" {}", info.version)
        },
        info.readings
            .iter()
            .map(|r| r.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        target.command
    ));
    result.info = Some(info.clone());
    let run = Run {
        config,
        target,
        info: &info,
        pool: &pool,
        threads,
    };
    // The records of every input, folded at the end as the in-process run folds its own.
    let mut items = Items::default();
    if let Some(dir) = &config.check.corpus {
        let inputs = corpus_inputs(dir, &info);
        run.corpus(inputs, &mut items, &mut result, log);
        let suite_dir = dir.join("json-schema-test-suite");
        if suite_dir.is_dir() {
            run.suite(&suite_dir, &mut items, &mut result, log);
        }
    }
    // The one rule after a violation (`check::policy`), over the generated phases as in process.
    let kept = &mut Counterexamples::default();
    let check = &config.check;
    let model = check::model_phase(check, &run, kept, threads, log, &mut |_, _| {});
    items.extend(result.absorb(model));
    let open_world = check::open_world_phase(check, &run, kept, threads, log);
    items.extend(result.absorb(open_world));
    result.fold(check, &items, log);
    let (requests, starts, waiting) = pool.finish();
    result.requests = requests;
    result.starts = starts;
    result.waiting = waiting;
    if let Ok(events) = pool.events.into_inner() {
        result.crash_count = events.crash_count;
        result.crashes = events.crashes;
        result.protocol_errors = events.protocol_errors;
        result.errored = events.errored;
    }
    result.time = start.elapsed();
    result
}

/// One implementation's run.
struct Run<'a> {
    config: &'a RunConfig,
    target: &'a Target,
    info: &'a ImplementationInfo,
    pool: &'a Pool,
    threads: &'a rayon::ThreadPool,
}

impl Run<'_> {
    /// The suite's flatten and wrapped parts ([`suite::run_draft`], as they judge the core in
    /// process), each draft on a worker, under the first option set of [`reading_options`]
    /// (SPEC §6 decision 75).
    fn suite(
        &self,
        suite_dir: &Path,
        items: &mut Items,
        result: &mut ImplementationResult,
        log: &mut dyn FnMut(&str),
    ) {
        let Some(options) = reading_options(self.info).into_iter().next() else {
            return;
        };
        let start = Instant::now();
        let flatten = |s: &Value, o: &Options| {
            self.pool.presented(s, o).map_err(|why| match why {
                // A refusal reads as the core's own (`flatten refused it: …`).
                Unpresented::NotJudged(Skip::Errored(message)) | Unpresented::Failed(message) => {
                    message
                }
                Unpresented::NotJudged(skip) => skip.to_string(),
            })
        };
        let run = suite::SuiteRun {
            flatten: &flatten,
            options,
            runtime: false,
        };
        let reports: Vec<suite::SuiteReport> = self.threads.install(|| {
            suite::DRAFTS
                .par_iter()
                .map(|draft| suite::run_draft(suite_dir, draft, &run))
                .collect()
        });
        let mut inputs = 0;
        for (index, report) in (0u64..).zip(reports) {
            inputs += (report.flatten.schemas + report.wrapped.schemas) as u64;
            for failure in report
                .flatten
                .failures
                .iter()
                .chain(&report.wrapped.failures)
            {
                log(&format!("VIOLATION (suite): {}", first_line(failure)));
            }
            items.suite.push(SuiteItem { index, report });
        }
        if !self.config.check.quiet {
            log(&format!(
                "suite: {inputs} schemas in {:.1} s",
                start.elapsed().as_secs_f64()
            ));
        }
        result.sources.push(Source {
            name: "suite",
            inputs,
            time: start.elapsed(),
        });
    }

    /// Judges the corpus's inputs (in parallel) and records them per file, in file order, as
    /// the in-process corpus phase does; the first violation of each oracle in the corpus is
    /// kept as a counterexample (not shrunk: a fixed input).
    fn corpus(
        &self,
        inputs: Vec<Fixed>,
        items: &mut Items,
        result: &mut ImplementationResult,
        log: &mut dyn FnMut(&str),
    ) {
        let name = "corpus";
        let kept = &mut Counterexamples::default();
        let start = Instant::now();
        let judged: Vec<Vec<(Oracle, Outcome)>> = self.threads.install(|| {
            inputs
                .par_iter()
                .map(|f| {
                    let outcomes = judge(
                        self.pool,
                        Job {
                            schema: &f.schema,
                            options: &f.options,
                            values: f.values.clone(),
                            case: None,
                            variants: &f.variants,
                        },
                    );
                    match &f.known_failure {
                        Some(why) => corpus::known_failure_skips(why, outcomes),
                        None => outcomes,
                    }
                })
                .collect()
        });
        for (input, outcomes) in inputs.iter().zip(judged) {
            let (index, path) = &input.file;
            if items.corpus.last().is_none_or(|c| c.index != *index) {
                items.corpus.push(CorpusItem {
                    index: *index,
                    path: path.clone(),
                    outcomes: Outcomes::of(&[]),
                });
            }
            if let Some(item) = items.corpus.last_mut() {
                item.outcomes.extend(&outcomes);
            }
            for (oracle, outcome) in outcomes {
                if let Outcome::Failed(v) = outcome
                    && kept.take(oracle)
                {
                    let found = format!("{name}: {}", input.found);
                    log(&format!(
                        "VIOLATION ({found}): {}",
                        first_line(&v.to_string())
                    ));
                    self.keep(result, *v, found, log);
                }
            }
        }
        if !self.config.check.quiet {
            log(&format!(
                "{name}: {} inputs in {:.1} s",
                inputs.len(),
                start.elapsed().as_secs_f64()
            ));
        }
        result.sources.push(Source {
            name,
            inputs: inputs.len() as u64,
            time: start.elapsed(),
        });
    }

    /// Records the first counterexample of `oracle` (from a fixed input: not shrunk) and writes
    /// its replayable file.
    fn keep(
        &self,
        result: &mut ImplementationResult,
        violation: Violation,
        found: String,
        log: &mut dyn FnMut(&str),
    ) {
        // The corpus's own file, beside the generated phases' `<oracle>.json` (SPEC §6
        // decision 76: an oracle can have both).
        let stem = format!("{}-corpus", violation.oracle.name());
        let file = self.write(&violation, &found, &stem, log);
        result.counterexamples.push(Counterexample {
            oracle: violation.oracle,
            violation,
            found,
            shrunk: false,
            file,
        });
    }
}

impl Flattener for Run<'_> {
    fn options_for(&self, i: u32) -> Options {
        self.info.options_for(i)
    }

    fn judge_model(&self, case: &Case, options: &Options) -> CaseReport {
        let schema = render(&case.normalized());
        let outcomes = judge(
            self.pool,
            Job {
                schema: &schema,
                options,
                values: Vec::new(),
                case: Some(case),
                variants: &[],
            },
        );
        CaseReport {
            outcomes,
            widening: None,
            unions: None,
        }
    }

    fn judge_open_world(&self, case: &OpenCase, options: &Options) -> Vec<(Oracle, Outcome)> {
        let judge_original = match oracle::judge(&case.schema) {
            Ok(j) => j,
            Err(e) => {
                return every(
                    &format!("jsonschema cannot compile the original: {e}").into(),
                    false,
                );
            }
        };
        let values = open_world::values(case, &judge_original, open_world::VALUES_PER_BRANCH);
        judge(
            self.pool,
            Job {
                schema: &case.schema,
                options,
                values,
                case: None,
                variants: &[],
            },
        )
    }

    fn save(
        &self,
        violation: &Violation,
        found: &str,
        _shrunk: bool,
        log: &mut dyn FnMut(&str),
    ) -> Option<PathBuf> {
        self.write(violation, found, violation.oracle.name(), log)
    }
}

impl Run<'_> {
    /// Writes the counterexample `violation` as `<dir>/<implementation>/<stem>.json`; where it
    /// went, or `None` (no folder given, or the write failed: logged).
    fn write(
        &self,
        violation: &Violation,
        found: &str,
        stem: &str,
        log: &mut dyn FnMut(&str),
    ) -> Option<PathBuf> {
        let dir = self.config.counterexamples.as_ref()?;
        let folder = dir.join(slug(&self.info.name));
        match write_counterexample(
            &folder,
            &self.config.check.command,
            self.target,
            violation,
            found,
            stem,
        ) {
            Ok(p) => {
                log(&format!(
                    "counterexample for {} written to {}",
                    violation.oracle,
                    p.display()
                ));
                Some(p)
            }
            Err(e) => {
                log(&format!("cannot write the counterexample: {e}"));
                None
            }
        }
    }
}

/// A file name part from an implementation's name.
fn slug(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_owned();
    if s.is_empty() {
        "implementation".into()
    } else {
        s
    }
}

/// Writes a counterexample as a corpus case ([`corpus::regression_case`]) at
/// `<folder>/<stem>.json` (`folder` the implementation's, `stem` the oracle's name, with
/// `-corpus` for a corpus input's), with the implementation's command and the command that
/// replays it.
fn write_counterexample(
    folder: &Path,
    command: &str,
    target: &Target,
    v: &Violation,
    found: &str,
    stem: &str,
) -> Result<PathBuf, String> {
    let mut case = corpus::regression_case(v, &format!("{command} ({found})"));
    if let Some(map) = case.as_object_mut() {
        map.insert(
            "implementation".into(),
            Value::String(target.command.clone()),
        );
        map.insert(
            "replay".into(),
            Value::String(format!(
                "flatjoin check --implementation {} --corpus {} --cases 0",
                shell_quote(&target.command),
                shell_quote(&folder.display().to_string())
            )),
        );
    }
    let text = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let path = folder.join(format!("{stem}.json"));
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// `text` quoted for a POSIX shell (`shlex`), unless it needs none. A command-line word cannot
/// hold a NUL, the one thing `shlex` refuses; such text is returned as it is.
pub fn shell_quote(text: &str) -> String {
    shlex::try_quote(text).map_or_else(|_| text.to_owned(), std::borrow::Cow::into_owned)
}
