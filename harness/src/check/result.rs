//! What a run found, as plain data: counts per oracle and per generator, the measures, the
//! violations and the suite's reports. Each phase of [`super::run`] returns one [`CheckResult`]
//! and the driver [merges](CheckResult::merge) them in phase order; the report and the summary
//! table are rendered from a result alone.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use flatjoin::Options;
use serde_json::Value;

use crate::model::Case;
use crate::oracle::{Oracle, Outcome, Skip, UnionTally, Violation};
use crate::shard::Items;
use crate::suite::SuiteReport;

/// How many unexplained validator disagreements a run keeps as examples.
pub const MAX_DISAGREEMENT_EXAMPLES: usize = 20;

/// Per-oracle counts, of the core in process and of an implementation behind the protocol
/// alike: one verdict per outcome, a skip counted by its kind ([`Skip`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Inputs it ran on (every outcome below).
    pub cases: u64,
    /// Passed.
    pub passed: u64,
    /// Failed: counterexamples.
    pub failed: u64,
    /// The guarantee did not apply to the input.
    pub skipped: u64,
    /// The flattener refused the input.
    pub errored: u64,
    /// The flattener declined the input.
    pub declined: u64,
    /// The flattener crashed, hung or broke the protocol.
    pub crashed: u64,
}

impl Counts {
    /// Counts one outcome.
    pub(crate) fn count(&mut self, outcome: &Outcome) {
        self.cases += 1;
        match outcome {
            Outcome::Passed(_) => self.passed += 1,
            Outcome::Failed(_) => self.failed += 1,
            Outcome::Skipped(Skip::NotApplicable(_)) => self.skipped += 1,
            Outcome::Skipped(Skip::Errored(_)) => self.errored += 1,
            Outcome::Skipped(Skip::Declined(_)) => self.declined += 1,
            Outcome::Skipped(Skip::Crashed(_) | Skip::ProtocolError(_)) => self.crashed += 1,
        }
    }

    /// Adds `other`'s counts.
    pub(crate) fn add(&mut self, other: Counts) {
        self.cases += other.cases;
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
        self.errored += other.errored;
        self.declined += other.declined;
        self.crashed += other.crashed;
    }
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

/// What the report says of the run itself: taken from its configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunInfo {
    /// The command line.
    pub command: String,
    /// The generators' seed.
    pub seed: u64,
    /// The corpus folder replayed, if any.
    pub corpus: Option<PathBuf>,
    /// The injected fault's name, if any.
    pub fault: Option<String>,
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct CheckResult {
    /// The run's command, seed, corpus and fault, for the report.
    pub run: RunInfo,
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
    /// Disagreements where the spec leaves the answer open: originals with a reference cycle
    /// without progress (undefined: `jsonschema` counts re-entry as valid, `boon` as an error),
    /// draft-04's floats with a zero fraction read as integers or not.
    pub undefined_disagreements: usize,
    /// Violations, with the regression file written for each (generated ones only).
    pub violations: Vec<(Violation, Option<PathBuf>)>,
    /// The generated phases' counterexamples: the first violation of each oracle, shrunk where
    /// it could be, and where it was written ([`super::policy`]).
    pub counterexamples: Vec<Counterexample>,
    /// The shrunk generated case behind the last violation, with its options.
    pub counterexample: Option<(Case, Options)>,
    /// With a fault injected: generated cases that fail the same way without the fault (a bug
    /// of the core itself, not the fault's doing), passed over.
    pub unattributed: Vec<Violation>,
    /// Inputs no oracle could judge (the judge cannot compile the original), with why.
    pub unjudgeable: Vec<String>,
    /// The corpus's known failures met in this run (files marked `xfail`): `path (oracle):
    /// reason and failure`.
    pub known_failures: Vec<String>,
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
    /// The record of every input folded, in fold order, for the results file
    /// (`crate::shard::Results`) and the merge of shards.
    pub items: Items,
}

/// The counterexample of one oracle.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// The oracle.
    pub oracle: Oracle,
    /// The (shrunk, for generated inputs) violation.
    pub violation: Violation,
    /// Where the input came from (`model case 12, seed …`, a corpus file, a suite group).
    pub found: String,
    /// Whether it was shrunk.
    pub shrunk: bool,
    /// The replayable file written for it.
    pub file: Option<PathBuf>,
}

/// What one generator's cases found.
#[derive(Debug, Clone, Default)]
pub struct GeneratorResult {
    /// The generator's name ([`super::MODEL_GENERATOR`], [`super::OPEN_WORLD_GENERATOR`]).
    pub name: String,
    /// Cases run.
    pub cases: u32,
    /// Cases on which some oracle failed.
    pub failed_cases: u32,
    /// Time spent.
    pub time: Duration,
    /// Counts per oracle.
    pub oracles: Vec<(Oracle, Counts)>,
    /// Per form of the root union (model cases), what the join made of the unions.
    pub forms: BTreeMap<String, FormCounts>,
}

/// What the join made of the unions of one form's cases (SPEC §2.9): the report's per-form table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FormCounts {
    /// Cases of the form.
    pub cases: u32,
    /// Cases whose presentation's root is one object.
    pub root_object: u32,
    /// Union sites flattened.
    pub flattened: u32,
    /// Union sites left as they are, by reason code.
    pub skipped: BTreeMap<String, u32>,
    /// The widening measure of each case that has one (precision, SPEC §4).
    pub widenings: Vec<f64>,
}

impl GeneratorResult {
    /// An empty result of generator `name`.
    pub(super) fn named(name: &str) -> GeneratorResult {
        GeneratorResult {
            name: name.to_owned(),
            ..GeneratorResult::default()
        }
    }

    /// Counts one case's unions (SPEC §2.9), under its root union's form.
    pub(crate) fn tally_unions(&mut self, unions: Option<&UnionTally>, widening: Option<f64>) {
        let Some(u) = unions else { return };
        let form = self.forms.entry(u.form.clone()).or_default();
        form.cases += 1;
        form.root_object += u32::from(u.root_object);
        form.flattened += u.flattened;
        for (code, n) in &u.skipped {
            *form.skipped.entry(code.clone()).or_insert(0) += n;
        }
        form.widenings.extend(widening);
    }

    /// Counts one case's outcomes.
    pub(crate) fn tally(&mut self, outcomes: &[(Oracle, Outcome)]) {
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
    /// An empty result of the run `run`, with every oracle of [`Oracle::ALL`] at zero.
    pub fn new(run: RunInfo) -> CheckResult {
        CheckResult {
            run,
            oracles: Oracle::ALL
                .iter()
                .map(|n| (*n, Counts::default()))
                .collect(),
            ..CheckResult::default()
        }
    }

    /// Counts one input's outcomes, and the measures the static and soundness oracles carry.
    pub(crate) fn tally(&mut self, outcomes: &[(Oracle, Outcome)]) {
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

    /// Adds what `later` found after this result (a later phase, or a later part of the same
    /// inputs): counts and measures add up, lists are appended, the disagreement examples stay
    /// the first [`MAX_DISAGREEMENT_EXAMPLES`], the counterexample is the last one. This
    /// result's [`RunInfo`] and whole-run time are kept.
    pub fn merge(&mut self, later: CheckResult) {
        for (oracle, counts) in later.oracles {
            counts_for(&mut self.oracles, oracle).add(counts);
        }
        self.corpus_files += later.corpus_files;
        self.generated += later.generated;
        self.static_yes += later.static_yes;
        self.static_unknown += later.static_unknown;
        self.widenings.extend(later.widenings);
        let room = MAX_DISAGREEMENT_EXAMPLES.saturating_sub(self.disagreements.len());
        self.disagreements
            .extend(later.disagreements.into_iter().take(room));
        self.unexplained_disagreements += later.unexplained_disagreements;
        self.undefined_disagreements += later.undefined_disagreements;
        self.violations.extend(later.violations);
        self.counterexamples.extend(later.counterexamples);
        if later.counterexample.is_some() {
            self.counterexample = later.counterexample;
        }
        self.unattributed.extend(later.unattributed);
        self.unjudgeable.extend(later.unjudgeable);
        self.known_failures.extend(later.known_failures);
        self.suite.extend(later.suite);
        self.generators.extend(later.generators);
        self.open_world_failures.extend(later.open_world_failures);
        self.generated_time += later.generated_time;
        self.items.extend(later.items);
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
            "static covers: {} yes, {} unknown; validator disagreements: {} unexplained, {} where the spec leaves the answer open\n",
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
