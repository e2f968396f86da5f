//! The generated phases of a run: the model generator's cases and the open-world generator's,
//! each following the one rule of [`super::policy`] after a violation. Case `i` of a generator
//! is a function of the seed and `i` alone ([`draw::case_runner`]), drawn and evaluated on the
//! pool and folded in case order.

use std::ops::ControlFlow;
use std::time::Instant;

use flatjoin::Options;
use proptest::strategy::{Strategy, ValueTree};

use super::order::{WINDOW_PER_JOB, evaluate_in_order};
use super::policy::Counterexamples;
use super::regression::save_shrunk;
use super::result::{CheckResult, GeneratorResult};
use super::{CheckConfig, options_for, without_fault};
use crate::draw;
use crate::generate;
use crate::model::Case;
use crate::open_world::{self, OpenCase};
use crate::oracle::{self, CaseReport, Oracle, Outcome, Violation};
use crate::shard::{self, CaseItem};

/// The typed model's generator, as the report names it.
pub const MODEL_GENERATOR: &str = "model";
/// The open-world generator ([`crate::open_world`]), as the report names it.
pub const OPEN_WORLD_GENERATOR: &str = "open-world";

/// The seed of the open-world generator's runner: derived from the check's seed, so that both
/// generators are reproducible from `--seed` alone and draw independent streams.
pub fn open_world_seed(seed: u64) -> u64 {
    seed ^ 0x0BE5_3ED0_0000_0000
}

/// Case `index` of the model generator under `seed`, as `flatjoin check --seed seed` draws it
/// (`None` when the generator rejects it).
pub fn model_case(seed: u64, index: u32) -> Option<impl ValueTree<Value = Case>> {
    generate::case()
        .new_tree(&mut draw::case_runner(seed, index))
        .ok()
}

/// The `index`-th open-world case of `seed` (as `flatjoin check --seed seed` drew it), with its
/// option set: for replaying a reported case index.
pub fn open_world_case(
    seed: u64,
    index: u32,
) -> Option<(Box<dyn ValueTree<Value = OpenCase>>, Options)> {
    let tree = open_world::case()
        .new_tree(&mut draw::case_runner(open_world_seed(seed), index))
        .ok()?;
    let tree: Box<dyn ValueTree<Value = OpenCase>> = Box::new(tree);
    Some((tree, options_for(index, &Options::default())))
}

/// Shrinks a failing case: proptest's simplify/complicate walk, keeping the last case on which
/// the same oracle still fails. Returns the smallest failing case and its violation.
pub(super) fn shrink(
    tree: &mut dyn ValueTree<Value = Case>,
    first: Violation,
    options: &Options,
    max_steps: u32,
) -> (Case, Violation) {
    let oracle_name = first.oracle;
    draw::shrink_with(tree, first, max_steps, &|case: &Case| {
        let report = oracle::evaluate_case(case, options);
        report.outcomes.into_iter().find_map(|(name, o)| match o {
            Outcome::Failed(v) if name == oracle_name => Some(*v),
            _ => None,
        })
    })
}

/// The model phase: `config.cases` cases, each under [`options_for`] its index, the first
/// violation of each oracle shrunk and written ([`super::policy`]); `progress(done, total)`
/// after each case when a bar is shown.
pub(super) fn model_phase(
    config: &CheckConfig,
    kept: &mut Counterexamples,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(u32, u32),
) -> CheckResult {
    let mut phase = ModelPhase {
        config,
        start: Instant::now(),
        result: CheckResult::default(),
        generator: GeneratorResult::named(MODEL_GENERATOR),
        kept,
        total: config.shard.share(config.cases),
        done: 0,
    };
    // The shard's case indices (SPEC §6 decision 58).
    let mut indices = config.shard.indices(config.cases);
    evaluate_in_order(
        pool,
        WINDOW_PER_JOB * config.jobs.max(1),
        || indices.next().map(|i| (i, options_for(i, &config.base))),
        |(i, options): &(u32, Options)| {
            model_case(config.seed, *i)
                .map(|tree| {
                    let case = tree.current();
                    let report = oracle::evaluate_case(&case, options);
                    (case, report)
                })
                .ok_or_else(|| format!("the generator rejected case {i}"))
        },
        |(i, options), evaluated| match evaluated {
            Ok((case, report)) => phase.fold(i, options, &case, &report, log, progress),
            Err(e) => {
                log(&e);
                ControlFlow::Continue(())
            }
        },
    );
    let ModelPhase {
        start,
        mut result,
        mut generator,
        ..
    } = phase;
    result.generated_time = start.elapsed();
    generator.time = result.generated_time;
    result.generators.push(generator);
    result
}

/// The model phase's state while it folds cases in order.
struct ModelPhase<'a> {
    config: &'a CheckConfig,
    start: Instant,
    result: CheckResult,
    generator: GeneratorResult,
    /// The oracles whose first violation the run has shrunk.
    kept: &'a mut Counterexamples,
    /// The shard's cases, and how many were folded.
    total: u32,
    done: u32,
}

impl ModelPhase<'_> {
    /// Tallies case `i`, reports progress, and hands its first violation to
    /// [`ModelPhase::counterexample`].
    fn fold(
        &mut self,
        i: u32,
        options: Options,
        case: &Case,
        report: &CaseReport,
        log: &mut dyn FnMut(&str),
        progress: &mut dyn FnMut(u32, u32),
    ) -> ControlFlow<()> {
        let config = self.config;
        self.result.items.model.push(
            CaseItem::of(i, &report.outcomes, report.widening).with_unions(report.unions.clone()),
        );
        self.result.tally(&report.outcomes);
        self.generator.tally(&report.outcomes);
        self.generator
            .tally_unions(report.unions.as_ref(), report.widening);
        self.result.generated += 1;
        if let Some(w) = report.widening {
            self.result.widenings.push(w);
        }
        self.done += 1;
        let (done, total) = (self.done, self.total);
        if config.progress_bar && !config.quiet {
            progress(done, total);
        } else if !config.quiet && done.is_multiple_of((total / 10).max(1)) {
            let secs = self.start.elapsed().as_secs_f64().max(1e-9);
            log(&format!(
                "generated {done}/{total} cases ({:.1} cases/s)",
                f64::from(done) / secs
            ));
        }
        match report.first_violation().cloned() {
            Some(first) => self.counterexample(i, options, case, first, log),
            None => ControlFlow::Continue(()),
        }
    }

    /// Case `i` failed with `first`: passed over when it fails the same way without the
    /// injected fault (a core bug, not the fault's doing); else shrunk and written when it is the
    /// first of its oracle, listed as it is otherwise; the phase stops when the run fails fast.
    fn counterexample(
        &mut self,
        i: u32,
        options: Options,
        case: &Case,
        first: Violation,
        log: &mut dyn FnMut(&str),
    ) -> ControlFlow<()> {
        let config = self.config;
        if let Some(without) = without_fault(&options)
            && oracle::evaluate_case(case, &without)
                .outcomes
                .iter()
                .any(|(name, o)| *name == first.oracle && matches!(o, Outcome::Failed(_)))
        {
            log(&format!(
                "case {i} fails {} without the injected fault too (a core bug, not the fault): {first}",
                first.oracle
            ));
            self.result.unattributed.push(first);
            if let Some(item) = self.result.items.model.last_mut() {
                item.unattributed = true;
            }
            return ControlFlow::Continue(());
        }
        let stop = if config.fail_fast {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        };
        if !self.kept.take(first.oracle) {
            log(&format!(
                "case {i} failed {}: {}",
                first.oracle,
                shard::violation_line(&first)
            ));
            self.result.violations.push((first, None));
            return stop;
        }
        log(&format!("case {i} failed {}; shrinking…", first.oracle));
        let Some(mut tree) = model_case(config.seed, i) else {
            if let Some(item) = self.result.items.model.last_mut() {
                item.set_shrunk(None);
            }
            self.result.violations.push((first, None));
            return stop;
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
        if let Some(item) = self.result.items.model.last_mut() {
            item.set_shrunk(Some((&shrunk, written.as_deref())));
        }
        self.result.violations.push((shrunk, written));
        self.result.counterexample.get_or_insert((case, options));
        stop
    }
}

/// The open-world phase: its cases under [`options_for`] their indices, the first violation of
/// each oracle shrunk and written ([`super::policy`]).
pub(super) fn open_world_phase(
    config: &CheckConfig,
    kept: &mut Counterexamples,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
) -> CheckResult {
    let mut phase = OpenWorldPhase {
        config,
        start: Instant::now(),
        cases: config.open_world_cases.unwrap_or(config.cases / 4),
        result: CheckResult::default(),
        generator: GeneratorResult::named(OPEN_WORLD_GENERATOR),
        kept,
        done: 0,
    };
    // The shard's case indices (SPEC §6 decision 58); progress counts them.
    let mut indices = config.shard.indices(phase.cases);
    phase.cases = config.shard.share(phase.cases);
    evaluate_in_order(
        pool,
        WINDOW_PER_JOB * config.jobs.max(1),
        || indices.next().map(|i| (i, options_for(i, &config.base))),
        |(i, options): &(u32, Options)| {
            open_world_case(config.seed, *i)
                .map(|(tree, _)| open_world::evaluate(&tree.current(), options))
                .ok_or_else(|| format!("the open-world generator rejected case {i}"))
        },
        |(i, options), evaluated| match evaluated {
            Ok(outcomes) => phase.fold(i, &options, &outcomes, log),
            Err(e) => {
                log(&e);
                ControlFlow::Continue(())
            }
        },
    );
    phase.generator.time = phase.start.elapsed();
    let mut result = phase.result;
    result.generators.push(phase.generator);
    result
}

/// The open-world phase's state while it folds cases in order.
struct OpenWorldPhase<'a> {
    config: &'a CheckConfig,
    start: Instant,
    cases: u32,
    result: CheckResult,
    generator: GeneratorResult,
    /// The oracles whose first violation the run has shrunk.
    kept: &'a mut Counterexamples,
    /// Cases folded.
    done: u32,
}

impl OpenWorldPhase<'_> {
    /// Tallies case `i`, reports progress, and lists its first violation (shrinking it when it
    /// is the first of its oracle); breaks when the run fails fast and the case failed.
    fn fold(
        &mut self,
        i: u32,
        options: &Options,
        outcomes: &[(Oracle, Outcome)],
        log: &mut dyn FnMut(&str),
    ) -> ControlFlow<()> {
        let config = self.config;
        self.result
            .items
            .open_world
            .push(CaseItem::of(i, outcomes, None));
        self.result.tally(outcomes);
        self.generator.tally(outcomes);
        self.done += 1;
        let (done, total) = (self.done, self.cases);
        if !config.quiet && done.is_multiple_of((total / 10).max(1)) {
            let secs = self.start.elapsed().as_secs_f64().max(1e-9);
            log(&format!(
                "open-world {done}/{total} cases ({:.1} cases/s)",
                f64::from(done) / secs
            ));
        }
        let Some(first) = open_world::first_violation(outcomes) else {
            return ControlFlow::Continue(());
        };
        let stop = if config.fail_fast {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        };
        let line = shard::violation_line(&first);
        log(&format!(
            "open-world case {i} (seed {}) failed {}: {line}",
            config.seed, first.oracle
        ));
        self.result
            .open_world_failures
            .push((i, first.oracle, line));
        if !self.kept.take(first.oracle) {
            self.result.violations.push((first, None));
            return stop;
        }
        let written = shrink_open_world(config, i, options, first, log);
        if let Some(item) = self.result.items.open_world.last_mut() {
            item.set_shrunk(written.1.then_some((&written.0, written.2.as_deref())));
        }
        self.result.violations.push((written.0, written.2));
        stop
    }
}

/// Shrinks open-world case `i`'s violation `first` (keeping its oracle) and writes it: the
/// violation, whether it was shrunk (not when the case could not be drawn again), and where it
/// was written.
fn shrink_open_world(
    config: &CheckConfig,
    i: u32,
    options: &Options,
    first: Violation,
    log: &mut dyn FnMut(&str),
) -> (Violation, bool, Option<std::path::PathBuf>) {
    let oracle_name = first.oracle;
    let Some((mut tree, _)) = open_world_case(config.seed, i) else {
        return (first, false, None);
    };
    let (_, shrunk) = open_world::shrink(
        &mut *tree,
        first,
        options,
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
    (shrunk, true, written)
}
