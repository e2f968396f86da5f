//! The bundled inputs' phases of a run: the corpus files through every applicable oracle, and
//! the official JSON-Schema-Test-Suite (`<corpus>/json-schema-test-suite/`), all five drafts.

use std::path::Path;

use rayon::prelude::*;

use super::CheckConfig;
use super::result::CheckResult;
use crate::corpus;
use crate::oracle::{Oracle, Outcome};
use crate::suite::{self, SuiteReport};

/// The corpus phase: every corpus file under `dir` replayed on `pool` and tallied in file
/// order; a file the judge cannot compile is listed as unjudgeable.
pub(super) fn corpus_phase(
    config: &CheckConfig,
    dir: &Path,
    pool: &rayon::ThreadPool,
    log: &mut dyn FnMut(&str),
) -> CheckResult {
    let mut result = CheckResult::default();
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
    result
}
