//! The bundled inputs' phases of a run: the corpus files through every applicable oracle, and
//! the official JSON-Schema-Test-Suite (`<corpus>/json-schema-test-suite/`), all five drafts.

use std::path::Path;

use rayon::prelude::*;

use super::CheckConfig;
use super::result::CheckResult;
use crate::corpus;
use crate::oracle::{Oracle, Outcome};
use crate::shard::{CorpusItem, Outcomes, SuiteItem};
use crate::suite::{self, SuiteReport, SuiteRun};

/// The corpus phase: every corpus file under `dir` (of the configured shard) replayed on `pool`
/// and tallied in file order; a file the judge cannot compile is listed as unjudgeable.
pub(super) fn corpus_phase(
    config: &CheckConfig,
    dir: &Path,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
) -> CheckResult {
    let mut result = CheckResult::default();
    // The shard's files, with their positions in the whole corpus (SPEC §6 decision 58).
    let files: Vec<(u64, std::path::PathBuf)> = (0u64..)
        .zip(corpus::files(dir))
        .filter(|(i, _)| config.shard.contains(*i))
        .collect();
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
            .map(|(_, path)| corpus::replay_file(path, &config.base))
            .collect()
    });
    for ((index, path), report) in files.iter().zip(reports) {
        result.items.corpus.push(CorpusItem {
            index: *index,
            path: path.display().to_string(),
            outcomes: Outcomes::of(&report.outcomes),
        });
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
    result
}

/// The suite phase: the official test suite under `dir`, a corpus part of its own, each draft
/// on `pool`. Not run with an injected fault (the faults are judged on generated cases), nor
/// when the corpus holds no suite.
pub(super) fn suite_phase(
    config: &CheckConfig,
    dir: &Path,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
) -> CheckResult {
    let mut result = CheckResult::default();
    let suite_dir = dir.join("json-schema-test-suite");
    if !suite_dir.is_dir() || super::fault_name(&config.base).is_some() {
        return result;
    }
    // The shard's drafts (SPEC §6 decision 58).
    let drafts: Vec<(u64, &str)> = (0u64..)
        .zip(suite::DRAFTS)
        .filter(|(i, _)| config.shard.contains(*i))
        .collect();
    let core = SuiteRun::core();
    let reports: Vec<SuiteReport> = pool.install(|| {
        drafts
            .par_iter()
            .map(|&(_, draft)| suite::run_draft(&suite_dir, draft, &core))
            .collect()
    });
    for ((index, _), report) in drafts.iter().zip(reports) {
        result.items.suite.push(SuiteItem {
            index: *index,
            report: report.clone(),
        });
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
    result
}
