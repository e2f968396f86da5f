//! The fold of a run's records ([`fold`]): what the unsharded run computes from what it
//! evaluated, by the run's own rules, for a results file and for the merge of shards.

use std::time::Duration;

use super::super::policy::Counterexamples;
use super::super::{
    CheckConfig, CheckResult, GeneratorResult, MODEL_GENERATOR, OPEN_WORLD_GENERATOR,
};
use super::{
    CORPUS_SOURCE, CheckCounts, Finding, RESULTS_FORMAT, Results, ResultsError, Run, SUITE_SOURCE,
    Summary, Timing,
};
use crate::corpus;
use crate::oracle::{Oracle, Outcome, Violation};
use crate::shard::{CaseItem, CorpusItem, Items, Shard, SuiteItem, violation_line};
use crate::suite::{self, SuiteReport};

/// A fold of records: the result as the unsharded run computes it, the findings, and the items
/// that took part (the model's cases up to its first violation).
#[derive(Debug, Clone)]
pub struct Folded {
    /// The result, as [`crate::check::run`] returns it for the same run (but the kept
    /// counterexample case, which only the run itself has).
    pub result: CheckResult,
    /// Counts per oracle × source.
    pub summary: Summary,
    /// Every failure.
    pub findings: Vec<Finding>,
    /// The items folded.
    pub items: Items,
    /// The times.
    pub timing: Timing,
}

impl Folded {
    pub(super) fn into_results(
        self,
        run: Run,
        shard: Option<Shard>,
        merged_from: Vec<Shard>,
        codes: &[Oracle],
    ) -> Results {
        Results {
            format: RESULTS_FORMAT.to_owned(),
            run,
            shard,
            merged_from,
            summary: self.summary,
            findings: self.findings,
            timing: self.timing,
            oracle_codes: codes.iter().map(|o| o.name().to_owned()).collect(),
            items: self.items,
        }
    }
}

/// A finding for each failed outcome of `outcomes`, the first of each oracle in `shrunk`
/// replaced by its shrunk counterexample (and the file written for it).
fn findings_of(
    source: &str,
    item: &str,
    found_by: &str,
    outcomes: &[(Oracle, Outcome)],
    shrunk: &[(Violation, Option<String>)],
    unattributed: bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut replaced: Vec<Oracle> = Vec::new();
    for (_, outcome) in outcomes {
        let Outcome::Failed(v) = outcome else {
            continue;
        };
        let (v, is_shrunk, file) = match shrunk.iter().find(|(s, _)| s.oracle == v.oracle) {
            Some((s, file)) if !replaced.contains(&v.oracle) => {
                replaced.push(v.oracle);
                (s, true, file.as_deref())
            }
            _ => (&**v, false, None),
        };
        out.push(Finding {
            source: source.to_owned(),
            check: v.oracle.name().to_owned(),
            item: item.to_owned(),
            message: v.message.clone(),
            shrunk: is_shrunk,
            unattributed,
            counterexample: Some(corpus::regression_case(v, found_by)),
            regression_file: file.map(str::to_owned),
        });
    }
    out
}

/// Folds `items` as the unsharded run folds what it evaluates (SPEC §6 decision 59): the corpus in
/// file order, the suite by draft, each generator's cases in index order by the one rule of
/// [`crate::check::policy`] (the first violation of each oracle shrunk; with `--fail-fast`, up to the
/// first case with a violation not passed over as unattributed).
pub fn fold(
    run: &Run,
    codes: &[Oracle],
    items: &Items,
    timing: Timing,
) -> Result<Folded, ResultsError> {
    let config = run.config()?;
    let base = &config.base;
    let mut result = CheckResult::new(config.run_info());
    let mut kept = Items::default();
    let mut findings = Vec::new();
    let mut corpus_counts = GeneratorResult::default();
    let mut corpus_items: Vec<&CorpusItem> = items.corpus.iter().collect();
    corpus_items.sort_by_key(|i| i.index);
    for item in corpus_items {
        let outcomes = item.outcomes.restore(codes, base)?;
        result.tally(&outcomes);
        corpus_counts.tally(&outcomes);
        result.corpus_files += 1;
        for known in &item.outcomes.known_failures {
            result
                .known_failures
                .push(format!("`{}`, {known}", item.path));
        }
        for (name, outcome) in &outcomes {
            if let (&Oracle::FlattenAccepts, Outcome::Skipped(why)) = (name, outcome) {
                result.unjudgeable.push(format!("{}: {why}", item.path));
            }

            if let Outcome::Failed(v) = outcome {
                result.violations.push(((**v).clone(), None));
            }
        }
        findings.extend(findings_of(
            CORPUS_SOURCE,
            &item.path,
            &item.path,
            &outcomes,
            &[],
            false,
        ));
        kept.corpus.push(item.clone());
    }
    let mut suite_items: Vec<&SuiteItem> = items.suite.iter().collect();
    suite_items.sort_by_key(|i| i.index);
    for item in suite_items {
        findings.extend(suite_findings(&item.report));
        result.suite.push(item.report.clone());
        kept.suite.push(item.clone());
    }
    let mut shrunk = Counterexamples::default();
    let outputs = (&mut result, &mut kept, &mut findings, &mut shrunk);
    let model = fold_generator(Generator::Model, &config, codes, items, outputs)?;
    let outputs = (&mut result, &mut kept, &mut findings, &mut shrunk);
    let open_world = fold_generator(Generator::OpenWorld, &config, codes, items, outputs)?;
    result.generated_time = Duration::from_secs_f64(timing.model_seconds.max(0.0));
    result.total_time = Duration::from_secs_f64(timing.total_seconds.max(0.0));
    let mut model = model;
    model.time = result.generated_time;
    let mut open_world = open_world;
    open_world.time = Duration::from_secs_f64(timing.open_world_seconds.max(0.0));
    result.generators.push(model);
    result.generators.push(open_world);
    let summary = summary(&result, &corpus_counts);
    Ok(Folded {
        result,
        summary,
        findings,
        items: kept,
        timing,
    })
}

/// The two generators a run folds.
#[derive(Clone, Copy)]
enum Generator {
    /// The typed model's.
    Model,
    /// The open world's.
    OpenWorld,
}

impl Generator {
    fn name(self) -> &'static str {
        match self {
            Generator::Model => MODEL_GENERATOR,
            Generator::OpenWorld => OPEN_WORLD_GENERATOR,
        }
    }

    /// How a finding names its case (`found by`) and the error names a case.
    fn case_name(self, i: u32) -> String {
        match self {
            Generator::Model => format!("model case {i}"),
            Generator::OpenWorld => format!("open-world case {i}"),
        }
    }

    fn items(self, items: &Items) -> &[CaseItem] {
        match self {
            Generator::Model => &items.model,
            Generator::OpenWorld => &items.open_world,
        }
    }

    fn kept(self, items: &mut Items) -> &mut Vec<CaseItem> {
        match self {
            Generator::Model => &mut items.model,
            Generator::OpenWorld => &mut items.open_world,
        }
    }
}

/// Folds one generator's case records in index order into `result`, `kept` and `findings`.
fn fold_generator(
    generator: Generator,
    config: &CheckConfig,
    codes: &[Oracle],
    items: &Items,
    (result, kept, findings, kept_oracles): (
        &mut CheckResult,
        &mut Items,
        &mut Vec<Finding>,
        &mut Counterexamples,
    ),
) -> Result<GeneratorResult, ResultsError> {
    let mut counts = GeneratorResult {
        name: generator.name().to_owned(),
        ..GeneratorResult::default()
    };
    let mut cases: Vec<&CaseItem> = generator.items(items).iter().collect();
    cases.sort_by_key(|i| i.index);
    for item in cases {
        let outcomes = item.outcomes.restore(codes, &config.base)?;
        result.tally(&outcomes);
        counts.tally(&outcomes);
        counts.tally_unions(item.unions.as_ref(), item.widening);
        if let Generator::Model = generator {
            result.generated += 1;
            if let Some(w) = item.widening {
                result.widenings.push(w);
            }
        }
        generator.kept(kept).push(item.clone());
        let Some(first) = crate::open_world::first_violation(&outcomes) else {
            continue;
        };
        let i = item.index;
        let case = generator.case_name(i);
        let found_by = format!("{} ({case}, seed {})", config.command, config.seed);
        let label = format!("case {i}");
        if let Generator::OpenWorld = generator {
            result
                .open_world_failures
                .push((i, first.oracle, violation_line(&first)));
        }
        if item.unattributed {
            result.unattributed.push(first.clone());
            let source = generator.name();
            findings.extend(findings_of(source, &label, &found_by, &outcomes, &[], true));
            continue;
        }
        // The rule after a violation (`check::policy`): each violation that is the first of its
        // oracle in the run was shrunk; a case with none lists its first violation as found.
        let new: Vec<&Violation> = outcomes
            .iter()
            .filter_map(|(_, o)| match o {
                Outcome::Failed(v) => Some(&**v),
                _ => None,
            })
            .filter(|v| kept_oracles.take(v.oracle))
            .collect();
        if new.is_empty() {
            result.violations.push((first.clone(), None));
        }
        let mut shrunk = Vec::new();
        for v in new {
            // A shard shrank every violation the whole run shrinks in this case, and maybe
            // more (its earlier cases are fewer): its record of the same oracle.
            match item
                .shrunk_all()
                .find(|s| s.violation.oracle == v.oracle.name())
            {
                Some(s) => {
                    let restored = s.violation.restore(&config.base)?;
                    let file = s.regression_file.clone();
                    result
                        .violations
                        .push((restored.clone(), file.as_ref().map(Into::into)));
                    shrunk.push((restored, file));
                }
                None if item.unshrinkable => result.violations.push((v.clone(), None)),
                None => {
                    return Err(ResultsError::NoShrunk {
                        case,
                        oracle: v.oracle,
                    });
                }
            }
        }
        findings.extend(findings_of(
            generator.name(),
            &label,
            &found_by,
            &outcomes,
            &shrunk,
            false,
        ));
        if config.fail_fast {
            break;
        }
    }
    Ok(counts)
}

/// The suite's parts of one draft.
fn suite_parts(report: &SuiteReport) -> [(&'static str, &suite::PartCounts); 3] {
    [
        ("flatten", &report.flatten),
        ("wrapped", &report.wrapped),
        ("validate", &report.validate),
    ]
}

fn suite_findings(report: &SuiteReport) -> Vec<Finding> {
    let mut out = Vec::new();
    for (part, counts) in suite_parts(report) {
        for failure in &counts.failures {
            out.push(Finding {
                source: SUITE_SOURCE.to_owned(),
                check: format!("{} {part}", report.draft),
                item: failure.lines().next().unwrap_or("").to_owned(),
                message: failure.clone(),
                shrunk: false,
                unattributed: false,
                counterexample: None,
                regression_file: None,
            });
        }
    }
    for stale in &report.stale_xfail {
        out.push(Finding {
            source: SUITE_SOURCE.to_owned(),
            check: format!("{} validate", report.draft),
            item: stale.clone(),
            message: stale.clone(),
            shrunk: false,
            unattributed: false,
            counterexample: None,
            regression_file: None,
        });
    }
    out
}

fn summary(result: &CheckResult, corpus_counts: &GeneratorResult) -> Summary {
    let mut checks = Vec::new();
    let sources = std::iter::once((CORPUS_SOURCE, &corpus_counts.oracles)).chain(
        result
            .generators
            .iter()
            .map(|g| (g.name.as_str(), &g.oracles)),
    );
    for (source, oracles) in sources {
        for (oracle, c) in oracles {
            checks.push(CheckCounts {
                source: source.to_owned(),
                check: oracle.name().to_owned(),
                cases: c.cases,
                passed: c.passed,
                failed: c.failed,
                skipped: c.skipped,
            });
        }
    }
    for report in &result.suite {
        for (part, c) in suite_parts(report) {
            let failed = c.failures.len()
                + if part == "validate" {
                    report.stale_xfail.len()
                } else {
                    0
                };
            checks.push(CheckCounts {
                source: SUITE_SOURCE.to_owned(),
                check: format!("{} {part}", report.draft),
                cases: c.instances as u64,
                passed: c.passed as u64,
                failed: failed as u64,
                skipped: c.unrunnable.len() as u64,
            });
        }
    }
    let generator_cases = |name: &str| {
        result
            .generators
            .iter()
            .find(|g| g.name == name)
            .map_or(0, |g| u64::from(g.cases))
    };
    Summary {
        passed: result.passed(),
        failed: result.failed(),
        corpus_files: result.corpus_files as u64,
        model_cases: generator_cases(MODEL_GENERATOR),
        open_world_cases: generator_cases(OPEN_WORLD_GENERATOR),
        checks,
    }
}
