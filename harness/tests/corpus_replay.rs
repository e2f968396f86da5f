//! Replays the bundled corpus through the oracles: the hand-written SPEC cases (`corpus/spec/`),
//! every counterexample ever found (`corpus/regressions/`, fuzz regressions included), the dialect
//! samples and the MCP manifests, through the one replayer (`corpus::replay_file`). Each file is
//! one check; a failure names the file and the violation.

use std::path::{Path, PathBuf};

use flatjoin::Options;
use flatjoin_harness::corpus::{self, replay_value};
use flatjoin_harness::oracle::{Oracle, Outcome};
use serde_json::json;

fn corpus_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(sub)
}

/// How many files each corpus folder holds at least (the bundled count when this was written), so
/// a missing or emptied folder fails instead of replaying nothing.
const MIN_FILES: &[(&str, usize)] = &[
    ("spec", 6),
    ("regressions", 15),
    ("dialects", 50),
    ("manifests", 13),
];

/// Replays every file under `sub`, returning the number of passed checks; panics with every
/// violation found, or when `sub` holds fewer files than its [`MIN_FILES`] entry.
fn replay(sub: &str) -> usize {
    let files = corpus::files(&corpus_dir(sub));
    let min = MIN_FILES
        .iter()
        .find(|(folder, _)| *folder == sub)
        .map_or(1, |(_, n)| *n);
    assert!(
        files.len() >= min,
        "corpus/{sub}: {} files replayed, expected at least {min}",
        files.len()
    );
    let mut failures = Vec::new();
    let mut passed = 0;
    for path in &files {
        for (_, outcome) in corpus::replay_file(path, &Options::default()).outcomes {
            match outcome {
                Outcome::Failed(v) => failures.push(format!("{}: {v}", path.display())),
                Outcome::Passed(_) => passed += 1,
                Outcome::Skipped(_) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} violation(s):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    passed
}

#[test]
fn spec_cases_hold() {
    assert!(replay("spec") > 100);
}

/// Every counterexample ever found, harness cases and fuzz regressions alike, through the one
/// replayer; a file marked `xfail` is expected to fail (and fails this test once it passes).
#[test]
fn regressions_replay() {
    replay("regressions");
}

#[test]
fn dialect_samples_hold() {
    assert!(replay("dialects") > 100);
}

#[test]
fn manifests_hold() {
    assert!(replay("manifests") > 100);
}

/// The replay has teeth: a case whose expectation is wrong fails.
#[test]
fn a_wrong_expectation_fails() {
    let case = json!({
        "description": "deliberately wrong",
        "schema": {"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"], "additionalProperties": false},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"], "additionalProperties": false}
        ]},
        "tests": [{"data": {"k": "a"}, "original": true, "presentation": false}]
    });
    let outcomes = replay_value(Path::new("inline.json"), &case, &Options::default());
    let expectation = outcomes
        .iter()
        .find(|(name, _)| *name == Oracle::CorpusExpectations);
    assert!(
        matches!(expectation, Some((_, Outcome::Failed(_)))),
        "{outcomes:?}"
    );
}
