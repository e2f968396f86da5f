//! The results of `flatjoin check` a CI system reads, and the merge of shards (SPEC §6 decisions
//! 59–60).
//!
//! - [`Results`]: what one run found, the JSON file `flatjoin check --results-json` writes (its
//!   schema is `protocol/check-results.schema.json`): a summary per source and oracle, every
//!   finding with its counterexample as a corpus case, and the records ([`crate::shard::Items`])
//!   a merge needs.
//! - [`merge`]: the shards' records folded in the unsharded run's order ([`fold`]: the corpus in
//!   file order, the suite by draft, the model's cases up to the first violation of any shard, the
//!   open-world cases with the first violation per oracle shrunk), so the merged [`CheckResult`]
//!   writes the same `reports/conformance.md` as the unsharded run.
//! - [`junit`]: one test case per oracle × source, failures carrying the shrunk counterexample.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use flatjoin::Options;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::policy::Counterexamples;
use super::{
    CheckConfig, CheckResult, GeneratorResult, MODEL_GENERATOR, OPEN_WORLD_GENERATOR, fault_name,
};
use crate::corpus;
use crate::oracle::{Oracle, Outcome, Violation};
use crate::shard::{CaseItem, CorpusItem, Items, Shard, SuiteItem, oracle_codes, violation_line};
use crate::suite::{self, SuiteReport};

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
    pub fn config(&self) -> Result<CheckConfig, String> {
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
fn with_fault(options: Options, fault: Option<&str>) -> Result<Options, String> {
    match fault {
        Some(name) => Ok(options.with_fault(Some(
            name.parse()
                .map_err(|e: flatjoin::UnknownName| e.to_string())?,
        ))),
        None => Ok(options),
    }
}

#[cfg(not(feature = "fault-injection"))]
fn with_fault(options: Options, fault: Option<&str>) -> Result<Options, String> {
    match fault {
        Some(name) => Err(format!(
            "these results were made with --inject-fault {name}; read them with a build with `--features fault-injection`"
        )),
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
    /// The code table of [`Outcomes::verdicts`]: the oracle of code `a`, `b`, ….
    pub oracle_codes: Vec<String>,
    /// The records a merge folds.
    pub items: Items,
}

impl Results {
    /// The results of a run of `config` (of its shard) that found `result`.
    pub fn of(config: &CheckConfig, result: &CheckResult) -> Result<Results, String> {
        let run = Run::of(config);
        let timing = Timing {
            total_seconds: result.total_time.as_secs_f64(),
            model_seconds: generator_time(result, MODEL_GENERATOR),
            open_world_seconds: generator_time(result, OPEN_WORLD_GENERATOR),
        };
        let shard = (!config.shard.is_whole()).then_some(config.shard);
        let codes = oracle_codes();
        let folded = fold(&run, &codes, &result.items, timing)?;
        Ok(folded.into_results(run, shard, Vec::new(), &codes))
    }

    /// Reads a results file.
    pub fn read(path: &Path) -> Result<Results, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let results: Results = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a results file: {e}", path.display()))?;
        if results.format != RESULTS_FORMAT {
            return Err(format!(
                "{}: format {:?}, expected {RESULTS_FORMAT:?}",
                path.display(),
                results.format
            ));
        }
        Ok(results)
    }

    /// The results as pretty JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        // Plain data: serializing it cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    fn codes(&self) -> Result<Vec<Oracle>, String> {
        self.oracle_codes.iter().map(|n| n.parse()).collect()
    }
}

fn generator_time(result: &CheckResult, name: &str) -> f64 {
    result
        .generators
        .iter()
        .find(|g| g.name == name)
        .map_or(0.0, |g| g.time.as_secs_f64())
}

/// A fold of records: the result as the unsharded run computes it, the findings, and the items
/// that took part (the model's cases up to its first violation).
#[derive(Debug, Clone)]
pub struct Folded {
    /// The result, as [`super::run`] returns it for the same run (but the kept
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
    fn into_results(
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

/// A finding for each failed outcome of `outcomes` (its violation in `record`), the first one
/// replaced by `first` when given (a shrunk counterexample).
fn findings_of(
    source: &str,
    item: &str,
    found_by: &str,
    outcomes: &[(Oracle, Outcome)],
    first: Option<(&Violation, Option<&str>)>,
    unattributed: bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (_, outcome) in outcomes {
        let Outcome::Failed(v) = outcome else {
            continue;
        };
        let (v, shrunk, file) = match (out.is_empty(), first) {
            (true, Some((shrunk, file))) => (shrunk, true, file),
            _ => (&**v, false, None),
        };
        out.push(Finding {
            source: source.to_owned(),
            check: v.oracle.name().to_owned(),
            item: item.to_owned(),
            message: v.message.clone(),
            shrunk,
            unattributed,
            counterexample: Some(corpus::regression_case(v, found_by)),
            regression_file: file.map(str::to_owned),
        });
    }
    out
}

/// Folds `items` as the unsharded run folds what it evaluates (SPEC §6 decision 59): the corpus in
/// file order, the suite by draft, each generator's cases in index order by the one rule of
/// [`super::policy`] (the first violation of each oracle shrunk; with `--fail-fast`, up to the
/// first case with a violation not passed over as unattributed).
pub fn fold(run: &Run, codes: &[Oracle], items: &Items, timing: Timing) -> Result<Folded, String> {
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
            None,
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
            Generator::Model => format!("case {i}"),
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
) -> Result<GeneratorResult, String> {
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
            findings.extend(findings_of(
                source, &label, &found_by, &outcomes, None, true,
            ));
            continue;
        }
        let shrinks = kept_oracles.take(first.oracle);
        let shrunk = match &item.shrunk {
            _ if !shrinks => None,
            Some(s) => Some((
                s.violation.restore(&config.base)?,
                s.regression_file.clone(),
            )),
            None if item.unshrinkable => None,
            None => {
                return Err(format!(
                    "{case} failed {} (a violation the run shrinks) but its results hold no shrunk counterexample",
                    first.oracle
                ));
            }
        };
        match &shrunk {
            Some((v, file)) => result
                .violations
                .push((v.clone(), file.as_ref().map(Into::into))),
            None => result.violations.push((first.clone(), None)),
        }
        findings.extend(findings_of(
            generator.name(),
            &label,
            &found_by,
            &outcomes,
            shrunk.as_ref().map(|(v, f)| (v, f.as_deref())),
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
pub fn merge(parts: Vec<Results>) -> Result<Merged, String> {
    let Some(first) = parts.first() else {
        return Err("no results to merge".to_owned());
    };
    let run = first.run.clone();
    for p in &parts {
        if p.format != RESULTS_FORMAT {
            return Err(format!(
                "format {:?}, expected {RESULTS_FORMAT:?}",
                p.format
            ));
        }
        if p.run != run {
            return Err(format!(
                "the results are of different runs: `{}` (seed {}, {} cases, corpus {:?}) and `{}` (seed {}, {} cases, corpus {:?})",
                run.command,
                run.seed,
                run.cases,
                run.corpus,
                p.run.command,
                p.run.seed,
                p.run.cases,
                p.run.corpus
            ));
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
            return Err(
                "the results code their oracles differently (made by different flatjoin versions)"
                    .to_owned(),
            );
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
fn covered_shards(parts: &[Results]) -> Result<Vec<Shard>, String> {
    let whole = parts.iter().filter(|p| p.shard.is_none()).count();
    if whole > 0 {
        if parts.len() == 1 {
            return Ok(Vec::new());
        }
        return Err(
            "an unsharded run's results cannot be merged with other results (it is complete already)"
                .to_owned(),
        );
    }
    let mut shards: Vec<Shard> = parts.iter().filter_map(|p| p.shard).collect();
    let n = shards[0].count();
    if let Some(other) = shards.iter().find(|s| s.count() != n) {
        return Err(format!(
            "shards of different partitions: {} and {other}",
            shards[0]
        ));
    }
    shards.sort_by_key(|s| s.index());
    for w in shards.windows(2) {
        if w[0] == w[1] {
            return Err(format!("shard {} is given twice", w[0]));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !shards.iter().any(|s| s.index() == *k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing shards: {}", missing.join(", ")));
    }
    Ok(shards)
}

/// Text fit for XML character data and attribute values: markup escaped, characters XML 1.0
/// does not allow dropped.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// The JUnit XML of `results` (SPEC §6 decision 60): one `<testsuite>` per source (`corpus`,
/// `json-schema-test-suite`, `model`, `open-world`; a shard's suites named with `[shard K/N]`), one
/// `<testcase>` per oracle that judged anything there (per draft and part for the suite), with a
/// `<failure>` carrying the findings — each counterexample a corpus case in JSON — or `<skipped/>`
/// when the oracle never applied.
pub fn junit(results: &Results) -> String {
    let suffix = results
        .shard
        .map_or(String::new(), |s| format!(" [shard {s}]"));
    let mut sources: Vec<&str> = Vec::new();
    for c in &results.summary.checks {
        if !sources.contains(&c.source.as_str()) {
            sources.push(&c.source);
        }
    }
    let count = |pred: &dyn Fn(&CheckCounts) -> bool| {
        results
            .summary
            .checks
            .iter()
            .filter(|c| c.cases > 0 || c.skipped > 0)
            .filter(|c| pred(c))
            .count()
    };
    let failed = |c: &CheckCounts| c.failed > 0;
    let skipped = |c: &CheckCounts| c.failed == 0 && c.passed == 0;
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        xml_escape(&format!("{}{suffix}", results.run.command)),
        count(&|_| true),
        count(&failed),
        count(&skipped),
        results.timing.total_seconds
    );
    for source in sources {
        let of_source = |c: &CheckCounts| c.source == source;
        let time = match source {
            MODEL_GENERATOR => results.timing.model_seconds,
            OPEN_WORLD_GENERATOR => results.timing.open_world_seconds,
            _ => 0.0,
        };
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{time:.3}\">",
            xml_escape(&format!("{source}{suffix}")),
            count(&of_source),
            count(&|c| of_source(c) && failed(c)),
            count(&|c| of_source(c) && skipped(c)),
        );
        let _ = writeln!(
            xml,
            "    <properties>\n      <property name=\"seed\" value=\"{}\"/>\n      <property name=\"shard\" value=\"{}\"/>\n    </properties>",
            results.run.seed,
            results.shard.unwrap_or(Shard::WHOLE)
        );
        for c in results
            .summary
            .checks
            .iter()
            .filter(|c| of_source(c) && (c.cases > 0 || c.skipped > 0))
        {
            junit_case(&mut xml, results, c);
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn junit_case(xml: &mut String, results: &Results, c: &CheckCounts) {
    let _ = write!(
        xml,
        "    <testcase classname=\"flatjoin.{}\" name=\"{}\" time=\"0\"",
        xml_escape(&c.source),
        xml_escape(&c.check)
    );
    let counts = format!(
        "{} judged: {} passed, {} failed, {} skipped",
        c.cases, c.passed, c.failed, c.skipped
    );
    if c.failed > 0 {
        let findings: Vec<&Finding> = results
            .findings
            .iter()
            .filter(|f| f.source == c.source && f.check == c.check)
            .collect();
        let message = findings.first().map_or_else(
            || format!("{counts} (each failing case's first violation is under another oracle)"),
            |f| {
                format!(
                    "{}: {}",
                    f.item,
                    f.message.lines().next().unwrap_or_default()
                )
            },
        );
        let mut body = format!("{counts}\n");
        for f in findings {
            let _ = writeln!(
                body,
                "\n{} ({}{}): {}",
                f.item,
                if f.shrunk { "shrunk" } else { "as found" },
                if f.unattributed {
                    ", fails without the injected fault too"
                } else {
                    ""
                },
                f.message
            );
            if let Some(file) = &f.regression_file {
                let _ = writeln!(body, "written to {file}");
            }
            if let Some(case) = &f.counterexample {
                let _ = writeln!(
                    body,
                    "counterexample (a corpus case):\n{}",
                    serde_json::to_string_pretty(case).unwrap_or_default()
                );
            }
        }
        let _ = write!(
            xml,
            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
            xml_escape(&message),
            xml_escape(&c.check),
            xml_escape(&body)
        );
    } else if c.passed == 0 {
        let _ = write!(
            xml,
            ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
            xml_escape(&counts)
        );
    } else {
        let _ = write!(
            xml,
            ">\n      <system-out>{}</system-out>\n    </testcase>\n",
            xml_escape(&counts)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Measure;
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
            refused.contains("code their oracles differently"),
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

    #[test]
    fn xml_escape_leaves_no_markup_and_no_forbidden_characters() {
        assert_eq!(
            xml_escape("a<b>&\"c'\u{1}\n"),
            "a&lt;b&gt;&amp;&quot;c&apos;\n"
        );
    }
}
