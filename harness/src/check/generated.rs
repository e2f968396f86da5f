//! The generated phases of a run, for any [`Flattener`] (the core in process, an implementation
//! behind the protocol): the model generator's cases and the open-world generator's, each
//! following the one rule of [`super::policy`] after a violation. Case `i` of a generator is a
//! function of the seed and `i` alone ([`draw::case_runner`]), drawn and judged on the pool and
//! folded in case order.

use std::ops::ControlFlow;
use std::time::Instant;

use flatjoin::Options;
use proptest::strategy::{Strategy, ValueTree};

use super::flattener::Flattener;
use super::order::{WINDOW_PER_JOB, evaluate_in_order};
use super::policy::Counterexamples;
use super::result::{CheckResult, Counterexample, GeneratorResult};
use super::{CheckConfig, options_for};
use crate::draw;
use crate::generate;
use crate::model::Case;
use crate::open_world::{self, OpenCase};
use crate::oracle::{CaseReport, Oracle, Outcome, Violation};
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

/// The violation of `oracle` among `outcomes`, if any (what shrinking keeps).
fn failing(outcomes: Vec<(Oracle, Outcome)>, oracle: Oracle) -> Option<Violation> {
    outcomes.into_iter().find_map(|(o, outcome)| match outcome {
        Outcome::Failed(v) if o == oracle => Some(*v),
        _ => None,
    })
}

/// The model phase: `config.cases` cases, each under the flattener's option set for its index,
/// the first violation of each oracle shrunk and written ([`super::policy`]);
/// `progress(done, total)` after each case when a bar is shown.
pub fn model_phase(
    config: &CheckConfig,
    flattener: &dyn Flattener,
    kept: &mut Counterexamples,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(u32, u32),
) -> CheckResult {
    let mut phase = Phase {
        config,
        flattener,
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
        || indices.next().map(|i| (i, flattener.options_for(i))),
        |(i, options): &(u32, Options)| {
            model_case(config.seed, *i)
                .map(|tree| {
                    let case = tree.current();
                    let report = flattener.judge_model(&case, options);
                    (case, report)
                })
                .ok_or_else(|| format!("the generator rejected case {i}"))
        },
        |(i, options), evaluated| match evaluated {
            Ok((case, report)) => phase.fold_model(i, options, &case, &report, log, progress),
            Err(e) => {
                log(&e);
                ControlFlow::Continue(())
            }
        },
    );
    let mut result = phase.finish();
    result.generated_time = result.generators[0].time;
    result
}

/// The open-world phase: its cases under the flattener's option sets, the first violation of
/// each oracle shrunk and written ([`super::policy`]).
pub fn open_world_phase(
    config: &CheckConfig,
    flattener: &dyn Flattener,
    kept: &mut Counterexamples,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
) -> CheckResult {
    let cases = config.open_world_cases.unwrap_or(config.cases / 4);
    let mut phase = Phase {
        config,
        flattener,
        start: Instant::now(),
        result: CheckResult::default(),
        generator: GeneratorResult::named(OPEN_WORLD_GENERATOR),
        kept,
        // The shard's case indices (SPEC §6 decision 58); progress counts them.
        total: config.shard.share(cases),
        done: 0,
    };
    let mut indices = config.shard.indices(cases);
    evaluate_in_order(
        pool,
        WINDOW_PER_JOB * config.jobs.max(1),
        || indices.next().map(|i| (i, flattener.options_for(i))),
        |(i, options): &(u32, Options)| {
            open_world_case(config.seed, *i)
                .map(|(tree, _)| flattener.judge_open_world(&tree.current(), options))
                .ok_or_else(|| format!("the open-world generator rejected case {i}"))
        },
        |(i, options), evaluated| match evaluated {
            Ok(outcomes) => phase.fold_open_world(i, &options, &outcomes, log),
            Err(e) => {
                log(&e);
                ControlFlow::Continue(())
            }
        },
    );
    phase.finish()
}

/// Shrinks one violation of the case being folded: the shrunk violation, with the model case it
/// came from and its options (`None` for an open-world case); `None` when the case cannot be
/// drawn again.
type Shrink<'a> = &'a dyn Fn(&Violation) -> Option<(Option<(Case, Options)>, Violation)>;

/// A generated phase's state while it folds cases in order.
struct Phase<'a> {
    config: &'a CheckConfig,
    flattener: &'a dyn Flattener,
    start: Instant,
    result: CheckResult,
    generator: GeneratorResult,
    /// The oracles whose first violation the run has kept.
    kept: &'a mut Counterexamples,
    /// The shard's cases, and how many were folded.
    total: u32,
    done: u32,
}

impl Phase<'_> {
    /// The phase's result, its generator's counts and time in it.
    fn finish(self) -> CheckResult {
        let Phase {
            start,
            mut result,
            mut generator,
            ..
        } = self;
        generator.time = start.elapsed();
        result.generators.push(generator);
        result
    }

    /// Counts one case's outcomes and reports progress.
    fn tally(&mut self, outcomes: &[(Oracle, Outcome)], log: &mut dyn FnMut(&str)) {
        self.result.tally(outcomes);
        self.generator.tally(outcomes);
        self.done += 1;
        let (done, total) = (self.done, self.total);
        if !self.config.quiet && done.is_multiple_of((total / 10).max(1)) {
            let secs = self.start.elapsed().as_secs_f64().max(1e-9);
            let what = if self.generator.name == MODEL_GENERATOR {
                "generated"
            } else {
                OPEN_WORLD_GENERATOR
            };
            log(&format!(
                "{what} {done}/{total} cases ({:.1} cases/s)",
                f64::from(done) / secs
            ));
        }
    }

    /// After a case with a violation: stop when the run fails fast.
    fn after_violation(&self) -> ControlFlow<()> {
        if self.config.fail_fast {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    /// Tallies model case `i` and hands its first violation to the rule after a violation.
    fn fold_model(
        &mut self,
        i: u32,
        options: Options,
        case: &Case,
        report: &CaseReport,
        log: &mut dyn FnMut(&str),
        progress: &mut dyn FnMut(u32, u32),
    ) -> ControlFlow<()> {
        self.result.items.model.push(
            CaseItem::of(i, &report.outcomes, report.widening).with_unions(report.unions.clone()),
        );
        self.generator
            .tally_unions(report.unions.as_ref(), report.widening);
        self.result.generated += 1;
        if let Some(w) = report.widening {
            self.result.widenings.push(w);
        }
        if self.config.progress_bar && !self.config.quiet {
            self.result.tally(&report.outcomes);
            self.generator.tally(&report.outcomes);
            self.done += 1;
            progress(self.done, self.total);
        } else {
            self.tally(&report.outcomes, log);
        }
        let Some(first) = report.first_violation().cloned() else {
            return ControlFlow::Continue(());
        };
        if self.flattener.passed_over(case, &options, &first) {
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
        let found = format!("model case {i}, seed {}", self.config.seed);
        let (config, flattener) = (self.config, self.flattener);
        let shrink = |v: &Violation| {
            let oracle = v.oracle;
            model_case(config.seed, i).map(|mut tree| {
                let (case, shrunk) = draw::shrink_with(
                    &mut tree,
                    v.clone(),
                    config.max_shrink_steps,
                    &|c: &Case| failing(flattener.judge_model(c, &options).outcomes, oracle),
                );
                (Some((case, options.clone())), shrunk)
            })
        };
        self.keep_new(&report.outcomes, first, &found, &shrink, log);
        self.after_violation()
    }

    /// Tallies open-world case `i` and hands its first violation to the rule after a
    /// violation.
    fn fold_open_world(
        &mut self,
        i: u32,
        options: &Options,
        outcomes: &[(Oracle, Outcome)],
        log: &mut dyn FnMut(&str),
    ) -> ControlFlow<()> {
        self.result
            .items
            .open_world
            .push(CaseItem::of(i, outcomes, None));
        self.tally(outcomes, log);
        let Some(first) = open_world::first_violation(outcomes) else {
            return ControlFlow::Continue(());
        };
        let line = shard::violation_line(&first);
        let found = format!("open-world case {i}, seed {}", self.config.seed);
        log(&format!("{found} failed {}: {line}", first.oracle));
        self.result
            .open_world_failures
            .push((i, first.oracle, line));
        let (config, flattener) = (self.config, self.flattener);
        let shrink = |v: &Violation| {
            let oracle = v.oracle;
            open_world_case(config.seed, i).map(|(mut tree, _)| {
                let (_, shrunk) = draw::shrink_with(
                    &mut *tree,
                    v.clone(),
                    config.max_shrink_steps,
                    &|c: &OpenCase| failing(flattener.judge_open_world(c, options), oracle),
                );
                (None, shrunk)
            })
        };
        self.keep_new(outcomes, first, &found, &shrink, log);
        self.after_violation()
    }

    /// The rule after a violation ([`super::policy`]) on one failing case: each of its
    /// violations that is the first of its oracle in the run is shrunk (`shrink`: the shrunk
    /// violation, with the model case it came from; `None` when the case cannot be drawn again)
    /// and kept; when none is, the case's `first` violation is listed as found.
    fn keep_new(
        &mut self,
        outcomes: &[(Oracle, Outcome)],
        first: Violation,
        found: &str,
        shrink: Shrink<'_>,
        log: &mut dyn FnMut(&str),
    ) {
        let new: Vec<Violation> = outcomes
            .iter()
            .filter_map(|(_, o)| match o {
                Outcome::Failed(v) => Some(v),
                _ => None,
            })
            .filter(|v| self.kept.take(v.oracle))
            .map(|v| (**v).clone())
            .collect();
        if new.is_empty() {
            log(&format!(
                "{found} failed {}: {}",
                first.oracle,
                shard::violation_line(&first)
            ));
            self.result.violations.push((first, None));
            return;
        }
        for v in new {
            log(&format!("{found} failed {}; shrinking…", v.oracle));
            match shrink(&v) {
                Some((case, shrunk)) => {
                    if let Some(case) = case {
                        self.result.counterexample.get_or_insert(case);
                    }
                    self.keep(shrunk, found.to_owned(), true, log);
                }
                None => self.keep(v, found.to_owned(), false, log),
            }
        }
    }

    /// Keeps the phase's counterexample of its oracle: written by the flattener, recorded on
    /// the case's item and in the result.
    fn keep(
        &mut self,
        violation: Violation,
        found: String,
        shrunk: bool,
        log: &mut dyn FnMut(&str),
    ) {
        let file = self.flattener.save(&violation, &found, shrunk, log);
        let items = if self.generator.name == MODEL_GENERATOR {
            &mut self.result.items.model
        } else {
            &mut self.result.items.open_world
        };
        if let Some(item) = items.last_mut() {
            item.set_shrunk(shrunk.then_some((&violation, file.as_deref())));
        }
        self.result
            .violations
            .push((violation.clone(), file.clone()));
        self.result.counterexamples.push(Counterexample {
            oracle: violation.oracle,
            violation,
            found,
            shrunk,
            file,
        });
    }
}
