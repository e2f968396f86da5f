//! Replays every fuzz regression in `corpus/regressions/` (the files with a `target`) through the
//! same check the fuzz target runs, on stable, without libFuzzer. The harness replays the others.

use std::fs;
use std::panic;
use std::path::{Path, PathBuf};

use flatjoin_harness::fuzz::Regression;
use serde_json::Value;

/// `corpus/regressions/` at the workspace root.
fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions")
}

/// Every `*.json` file in `dir`, sorted; none when the folder does not exist yet.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

/// What replaying one file gave.
#[derive(Debug, PartialEq)]
enum Replayed {
    /// A fuzz regression that passes.
    Passed,
    /// A known failure (`xfail`) that still fails, with what it says now.
    KnownFailure(String),
    /// Not a fuzz regression (a harness case).
    NotOurs,
}

/// Replays one file; `Err` with the reason when it fails (or an `xfail` one passes) or cannot be
/// read.
fn replay(path: &Path) -> Result<Replayed, String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let document: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let Some(regression) = Regression::from_json(&document)? else {
        return Ok(Replayed::NotOurs);
    };
    let failure = match panic::catch_unwind(|| regression.replay()) {
        Ok(Ok(_)) => None,
        Ok(Err(violation)) => Some(violation.to_string()),
        Err(_) => Some("the check panicked".to_owned()),
    };
    match (failure, &regression.xfail) {
        (None, None) => Ok(Replayed::Passed),
        (Some(failure), Some(_)) => Ok(Replayed::KnownFailure(failure)),
        (None, Some(why)) => Err(format!(
            "passes now but is marked xfail ({why}): delete its \"xfail\" line so it guards the fix"
        )),
        (Some(failure), None) => Err(format!("{failure} (found as: {})", regression.description)),
    }
}

#[test]
fn every_fuzz_regression_still_passes() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for path in json_files(&regressions_dir()) {
        match replay(&path) {
            Ok(Replayed::Passed) => replayed += 1,
            Ok(Replayed::KnownFailure(failure)) => {
                replayed += 1;
                eprintln!("known failure (xfail) {}: {failure}", path.display());
            }
            Ok(Replayed::NotOurs) => {}
            Err(reason) => failures.push(format!("{}: {reason}", path.display())),
        }
    }
    // The committed fuzz regressions (files with a `target`): a missing folder or a replay that
    // recognises none of them fails here instead of passing empty.
    const MIN_FUZZ_REGRESSIONS: usize = 1;
    assert!(
        replayed + failures.len() >= MIN_FUZZ_REGRESSIONS,
        "{} fuzz regressions replayed from {}, expected at least {MIN_FUZZ_REGRESSIONS}",
        replayed + failures.len(),
        regressions_dir().display()
    );
    assert!(
        failures.is_empty(),
        "{} of {} fuzz regressions fail:\n{}",
        failures.len(),
        replayed + failures.len(),
        failures.join("\n")
    );
}

/// Replays `text` written to a temporary file.
fn replay_text(name: &str, text: &str) -> Result<Replayed, String> {
    let dir = std::env::temp_dir().join(format!("fuzz-regression-{name}-{}", std::process::id()));
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{name}.json"));
    fs::write(&path, text).map_err(|e| e.to_string())?;
    let outcome = replay(&path);
    let _ = fs::remove_dir_all(&dir);
    outcome
}

#[test]
fn a_broken_regression_file_fails_the_replay() {
    let text = r#"{"description": "typo", "target": "flatten_byte", "input": {}}"#;
    let outcome = replay_text("typo", text);
    assert!(
        outcome.is_err(),
        "an unknown target must fail the replay, got {outcome:?}"
    );
}

#[test]
fn an_xfail_regression_that_passes_fails_the_replay() {
    let text = r#"{"description": "fixed", "target": "flatten_bytes", "xfail": "open",
                   "input": {"type": "string"}}"#;
    let outcome = replay_text("fixed", text);
    assert!(
        outcome.is_err(),
        "a passing xfail regression must be reported, got {outcome:?}"
    );
}

#[test]
fn a_passing_regression_passes() {
    let text =
        r#"{"description": "plain", "target": "flatten_bytes", "input": {"type": "string"}}"#;
    assert_eq!(replay_text("plain", text), Ok(Replayed::Passed));
}
