//! The results of `flatjoin check` a CI system reads, and the merge of shards (SPEC §6 decisions
//! 59–60), one file per job:
//!
//! - this module: [`Results`], what one run found, the JSON file `flatjoin check --results-json`
//!   writes (its schema is `protocol/check-results.schema.json`): a summary per source and
//!   oracle, every finding with its counterexample as a corpus case, and the records
//!   ([`crate::shard::Items`]) a merge needs; and [`merge`], the shards' records folded in the
//!   unsharded run's order;
//! - `fold.rs`: [`fold`], records folded by the run's own rules (the corpus in file order, the
//!   suite by draft, the generators' cases by [`super::policy`]), so the merged [`CheckResult`]
//!   writes the same `reports/conformance.md` as the unsharded run;
//! - `junit.rs`: [`junit`], one test case per oracle × source, failures carrying the shrunk
//!   counterexample.

use std::path::Path;

use flatjoin::Options;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CheckConfig, CheckResult, MODEL_GENERATOR, OPEN_WORLD_GENERATOR, fault_name};
use crate::oracle::Oracle;
pub use crate::shard::ResultsError;
use crate::shard::{Items, Shard, oracle_codes};

mod fold;
mod junit;

pub use fold::{Folded, fold};
pub use junit::junit;

/// The `format` field of a results file (its version: a reader refuses any other).
pub const RESULTS_FORMAT: &str = "flatjoin-check-results/1";

/// The source of the corpus files, as the results and the JUnit XML name it.
pub const CORPUS_SOURCE: &str = "corpus";
/// The source of the JSON-Schema-Test-Suite, as the results and the JUnit XML name it.
pub const SUITE_SOURCE: &str = "json-schema-test-suite";

/// What was run: the same in every shard of one run (a merge refuses shards that differ).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// The command, without the flags that only choose a shard or an output (`--shard`,
    /// `--results-json`, `--junit`, `--format`, `--report`): the reports' headers name it.
    pub command: String,
    /// The generators' seed.
    pub seed: u64,
    /// Model cases asked for.
    pub cases: u32,
    /// Open-world cases asked for.
    pub open_world_cases: u32,
    /// The corpus folder (`None`: no corpus).
    pub corpus: Option<String>,
    /// The injected fault's name.
    pub fault: Option<String>,
    /// Upper bound on shrinking steps.
    pub shrink_steps: u32,
    /// Each generated phase stopped at its first counterexample (`--fail-fast`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fail_fast: bool,
}

impl Run {
    /// What `config` runs.
    pub fn of(config: &CheckConfig) -> Run {
        Run {
            command: config.command.clone(),
            seed: config.seed,
            cases: config.cases,
            open_world_cases: config.open_world_cases.unwrap_or(config.cases / 4),
            corpus: config.corpus.as_ref().map(|p| p.display().to_string()),
            fault: fault_name(&config.base).map(str::to_owned),
            shrink_steps: config.max_shrink_steps,
            fail_fast: config.fail_fast,
        }
    }

    /// A configuration that writes the same report header (quiet, writing nothing).
    pub fn config(&self) -> Result<CheckConfig, ResultsError> {
        let mut config = CheckConfig::new(self.command.clone());
        config.seed = self.seed;
        config.cases = self.cases;
        config.open_world_cases = Some(self.open_world_cases);
        config.corpus = self.corpus.as_ref().map(Into::into);
        config.report = None;
        config.counterexamples = None;
        config.quiet = true;
        config.progress_bar = false;
        config.max_shrink_steps = self.shrink_steps;
        config.fail_fast = self.fail_fast;
        config.base = with_fault(Options::default(), self.fault.as_deref())?;
        Ok(config)
    }
}

#[cfg(feature = "fault-injection")]
fn with_fault(options: Options, fault: Option<&str>) -> Result<Options, ResultsError> {
    match fault {
        Some(name) => Ok(options
            .with_fault(Some(name.parse().map_err(|e: flatjoin::UnknownName| {
                ResultsError::Record(e.to_string())
            })?))),
        None => Ok(options),
    }
}

#[cfg(not(feature = "fault-injection"))]
fn with_fault(options: Options, fault: Option<&str>) -> Result<Options, ResultsError> {
    match fault {
        Some(name) => Err(ResultsError::Record(format!(
            "these results were made with --inject-fault {name}; read them with a build with `--features fault-injection`"
        ))),
        None => Ok(options),
    }
}
/// Seconds spent (never compared: a merge adds the generators' times and keeps the longest
/// shard's whole run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The whole run.
    pub total_seconds: f64,
    /// The model generator's cases.
    pub model_seconds: f64,
    /// The open-world generator's cases.
    pub open_world_seconds: f64,
}

/// One oracle × source (or one suite draft × part): a JUnit test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckCounts {
    /// `corpus`, `json-schema-test-suite`, `model` or `open-world`.
    pub source: String,
    /// The oracle's name (for the suite: `<draft> <part>`).
    pub check: String,
    /// Inputs judged.
    pub cases: u64,
    /// Passed.
    pub passed: u64,
    /// Failed.
    pub failed: u64,
    /// Did not apply (for the suite: schemas that could not be run).
    pub skipped: u64,
}

/// The counts a CI system shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Checks passed (as `flatjoin check` ends: `N passed, M failed`).
    pub passed: u64,
    /// Checks failed.
    pub failed: u64,
    /// Corpus files replayed.
    pub corpus_files: u64,
    /// Model cases run.
    pub model_cases: u64,
    /// Open-world cases run.
    pub open_world_cases: u64,
    /// Per oracle × source.
    pub checks: Vec<CheckCounts>,
}

/// One failure, with its counterexample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Where: `corpus`, `json-schema-test-suite`, `model` or `open-world`.
    pub source: String,
    /// The oracle's name (for the suite: `<draft> <part>`).
    pub check: String,
    /// Which input: the corpus file, `case N` of the generator, or the suite test.
    pub item: String,
    /// What went wrong.
    pub message: String,
    /// Whether the counterexample was shrunk.
    pub shrunk: bool,
    /// With a fault injected: the case fails the same way without it (a bug of the core itself).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unattributed: bool,
    /// The counterexample as a corpus case (`corpus/README.md`): it replays with
    /// `flatjoin check --corpus DIR --cases 0` once saved under `DIR`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<Value>,
    /// Where the run wrote that corpus case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression_file: Option<String>,
}

/// What one run (or one shard, or a merge of shards) found: the file `--results-json` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// [`RESULTS_FORMAT`].
    pub format: String,
    /// What was run.
    pub run: Run,
    /// The shard these results are of (`None`: the whole run).
    #[serde(default)]
    pub shard: Option<Shard>,
    /// The shards merged into these results (empty unless merged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<Shard>,
    /// Counts.
    pub summary: Summary,
    /// Every failure.
    pub findings: Vec<Finding>,
    /// Time spent.
    pub timing: Timing,
    /// The code table of [`crate::shard::Outcomes::verdicts`]: the oracle of code `a`, `b`, ….
    pub oracle_codes: Vec<String>,
    /// The records a merge folds.
    pub items: Items,
}

impl Results {
    /// The results of a run of `config` (of its shard) that found `result`.
    pub fn of(config: &CheckConfig, result: &CheckResult) -> Result<Results, ResultsError> {
        let (run, codes, folded) = fold_run(config, result)?;
        let shard = (!config.shard.is_whole()).then_some(config.shard);
        Ok(folded.into_results(run, shard, Vec::new(), &codes))
    }

    /// Reads a results file.
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let text = std::fs::read_to_string(path).map_err(|e| ResultsError::Unreadable {
            path: path.display().to_string(),
            why: e.to_string(),
        })?;
        let results: Results =
            serde_json::from_str(&text).map_err(|e| ResultsError::NotResults {
                path: path.display().to_string(),
                why: e.to_string(),
            })?;
        if results.format != RESULTS_FORMAT {
            return Err(ResultsError::NotResults {
                path: path.display().to_string(),
                why: ResultsError::Format {
                    found: results.format,
                    expected: RESULTS_FORMAT,
                }
                .to_string(),
            });
        }
        Ok(results)
    }

    /// The results as pretty JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        // Plain data: serializing it cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    fn codes(&self) -> Result<Vec<Oracle>, ResultsError> {
        self.oracle_codes
            .iter()
            .map(|n| n.parse().map_err(ResultsError::Record))
            .collect()
    }
}

/// The fold of the records of a run of `config` that found `result` ([`fold`], with the run's
/// times): what its report, results file and JUnit are made from.
pub fn fold_run(
    config: &CheckConfig,
    result: &CheckResult,
) -> Result<(Run, Vec<Oracle>, Folded), ResultsError> {
    let run = Run::of(config);
    let timing = Timing {
        total_seconds: result.total_time.as_secs_f64(),
        model_seconds: generator_time(result, MODEL_GENERATOR),
        open_world_seconds: generator_time(result, OPEN_WORLD_GENERATOR),
    };
    let codes = oracle_codes();
    let folded = fold(&run, &codes, &result.items, timing)?;
    Ok((run, codes, folded))
}

fn generator_time(result: &CheckResult, name: &str) -> f64 {
    result
        .generators
        .iter()
        .find(|g| g.name == name)
        .map_or(0.0, |g| g.time.as_secs_f64())
}

/// Merged shards: what the unsharded run would have found.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The result, for [`super::report_markdown`].
    pub result: CheckResult,
    /// The merged results file.
    pub results: Results,
}

/// Merges the results of the shards `1/N` … `N/N` of one run (or takes one unsharded run's
/// results as they are). Refuses shards of different runs, a missing or repeated shard, and
/// results files of another format.
pub fn merge(parts: Vec<Results>) -> Result<Merged, ResultsError> {
    let Some(first) = parts.first() else {
        return Err(ResultsError::Merge("no results to merge".to_owned()));
    };
    let run = first.run.clone();
    for p in &parts {
        if p.format != RESULTS_FORMAT {
            return Err(ResultsError::Format {
                found: p.format.clone(),
                expected: RESULTS_FORMAT,
            });
        }
        if p.run != run {
            return Err(ResultsError::Merge(format!(
                "the results are of different runs: `{}` (seed {}, {} cases, corpus {:?}) and `{}` (seed {}, {} cases, corpus {:?})",
                run.command,
                run.seed,
                run.cases,
                run.corpus,
                p.run.command,
                p.run.seed,
                p.run.cases,
                p.run.corpus
            )));
        }
    }
    let shards = covered_shards(&parts)?;
    let mut items = Items::default();
    let mut timing = Timing::default();
    let mut codes: Option<Vec<Oracle>> = None;
    for p in parts {
        let own = p.codes()?;
        // The shards of one run come from one flatjoin, whose oracles code the verdicts alike.
        if let Some(c) = &codes
            && *c != own
        {
            return Err(ResultsError::Merge(
                "the results code their oracles differently (made by different flatjoin versions)"
                    .to_owned(),
            ));
        }
        codes.get_or_insert(own);
        items.extend(p.items);
        timing.total_seconds = timing.total_seconds.max(p.timing.total_seconds);
        timing.model_seconds += p.timing.model_seconds;
        timing.open_world_seconds += p.timing.open_world_seconds;
    }
    let codes = codes.unwrap_or_else(oracle_codes);
    let folded = fold(&run, &codes, &items, timing)?;
    let result = folded.result.clone();
    let results = folded.into_results(run, None, shards, &codes);
    Ok(Merged { result, results })
}

/// The shards `parts` are, checked to be `1/N` … `N/N` once each (empty for one unsharded run).
fn covered_shards(parts: &[Results]) -> Result<Vec<Shard>, ResultsError> {
    let whole = parts.iter().filter(|p| p.shard.is_none()).count();
    if whole > 0 {
        if parts.len() == 1 {
            return Ok(Vec::new());
        }
        return Err(ResultsError::Merge(
            "an unsharded run's results cannot be merged with other results (it is complete already)"
                .to_owned(),
        ));
    }
    let mut shards: Vec<Shard> = parts.iter().filter_map(|p| p.shard).collect();
    let n = shards[0].count();
    if let Some(other) = shards.iter().find(|s| s.count() != n) {
        return Err(ResultsError::Merge(format!(
            "shards of different partitions: {} and {other}",
            shards[0]
        )));
    }
    shards.sort_by_key(|s| s.index());
    for w in shards.windows(2) {
        if w[0] == w[1] {
            return Err(ResultsError::Merge(format!(
                "shard {} is given twice",
                w[0]
            )));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !shards.iter().any(|s| s.index() == *k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(ResultsError::Merge(format!(
            "missing shards: {}",
            missing.join(", ")
        )));
    }
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{Measure, Outcome, Violation};
    use crate::shard::{Outcomes, oracle_codes};

    fn violation(oracle: Oracle) -> Violation {
        Violation::new(
            oracle,
            "a message\nsecond line",
            &serde_json::json!({"oneOf": []}),
            &Options::default(),
        )
        .with_data(&serde_json::json!({"kind": "a"}))
    }

    /// Shards of one run merge; results whose oracle code tables differ (another flatjoin) are
    /// refused rather than re-coded.
    #[test]
    fn a_merge_refuses_results_whose_oracles_are_coded_differently() {
        let mut config = CheckConfig::new("merge test".to_owned());
        config.corpus = None;
        config.cases = 0;
        config.open_world_cases = Some(0);
        let result = CheckResult::new(config.run_info());
        let mut one = Results::of(&config, &result).expect("results");
        one.shard = Some(Shard::new(1, 2).expect("valid"));
        let mut two = one.clone();
        two.shard = Some(Shard::new(2, 2).expect("valid"));
        assert!(merge(vec![one.clone(), two.clone()]).is_ok());
        two.oracle_codes.reverse();
        let refused = merge(vec![one, two]).expect_err("different tables");
        assert!(
            matches!(&refused, ResultsError::Merge(m) if m.contains("code their oracles differently")),
            "{refused}"
        );
    }

    /// The record of a case's outcomes gives back what the tally reads: the verdicts in order, the
    /// measures, the skip reason of `flatten-accepts` and the violations.
    #[test]
    fn outcomes_round_trip_through_json() {
        let measure = Measure {
            checked: 3,
            disagreements: vec![serde_json::json!({"value": 1})],
            undefined_disagreements: 2,
            static_yes: 4,
            static_unknown: 1,
        };
        let outcomes = vec![
            (Oracle::Soundness, Outcome::Passed(measure.clone())),
            (Oracle::StaticSoundness, Outcome::Passed(measure)),
            (
                Oracle::FlattenAccepts,
                Outcome::Skipped("the judge cannot compile it".into()),
            ),
            (
                Oracle::Dedup,
                Outcome::Failed(Box::new(violation(Oracle::Dedup))),
            ),
            (Oracle::Dialect, Outcome::Skipped("n/a".into())),
        ];
        let record = Outcomes::of(&outcomes);
        let text = serde_json::to_string(&record).expect("serializes");
        let back: Outcomes = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, record);
        let restored = back
            .restore(&oracle_codes(), &Options::default())
            .expect("restores");
        let names: Vec<Oracle> = restored.iter().map(|(o, _)| *o).collect();
        assert_eq!(
            names,
            [
                Oracle::Soundness,
                Oracle::StaticSoundness,
                Oracle::FlattenAccepts,
                Oracle::Dedup,
                Oracle::Dialect
            ]
        );
        let mut a = CheckResult::default();
        a.tally(&outcomes);
        let mut b = CheckResult::default();
        b.tally(&restored);
        assert_eq!(a.oracles, b.oracles);
        assert_eq!(
            (a.static_yes, a.static_unknown, a.undefined_disagreements),
            (4, 1, 2)
        );
        assert_eq!(
            (b.static_yes, b.static_unknown, b.undefined_disagreements),
            (4, 1, 2)
        );
        assert_eq!(a.disagreements, b.disagreements);
        assert_eq!(b.unexplained_disagreements, 1);
        assert_eq!(
            restored[2].1,
            Outcome::Skipped("the judge cannot compile it".into())
        );
        match &restored[3].1 {
            Outcome::Failed(v) => assert_eq!(**v, violation(Oracle::Dedup)),
            other => panic!("expected the dedup violation, got {other:?}"),
        }
    }

    #[test]
    fn records_keep_at_least_the_reports_disagreement_examples() {
        const { assert!(crate::shard::MAX_EXAMPLES_PER_ITEM >= super::super::MAX_DISAGREEMENT_EXAMPLES) };
    }
}
