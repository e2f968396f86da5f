//! Replays the bundled corpus through the oracles: the hand-written SPEC cases (`corpus/spec/`),
//! every counterexample ever found (`corpus/regressions/`), the dialect samples and the MCP
//! manifests. Each file is one check; a failure names the file and the violation.

use std::path::{Path, PathBuf};

use flatjoin::Options;
use flatjoin_harness::corpus::{self, replay_value};
use flatjoin_harness::oracle::{CORPUS_EXPECTATIONS, Outcome};
use serde_json::json;

fn corpus_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(sub)
}

/// Regression files that fail on the current core, each with the core bug it pins (the named
/// xfail list). A listed file that passes fails `regressions_replay`, so the list only shrinks.
// Emptied as the core was fixed: 0.0 read as a non-integer (c8854e0), a `discriminator` beside a
// nested `oneOf` blocking unwrapping (736004e), the runtime naming no branch when only the
// union node's `unevaluatedProperties` rejects a mix.
const KNOWN_CORE_BUGS: &[(&str, &str)] = &[
    (
        "hoisted-name-collides-with-author-def.json",
        "core/src/refs.rs names hoisted definitions flatjoin_ref_N without looking at the author's own $defs (issue 9; fixed on branch refs)",
    ),
    (
        "embedded-resource-ref-resolves-against-its-id.json",
        "a #/... $ref inside a subschema with its own $id is resolved against the document root (SPEC §6 decision 15; issue 9; fixed on branch refs)",
    ),
];

/// Replays every file under `sub`; returns the passed checks and the violations per file.
fn replay_all(sub: &str) -> (usize, Vec<(String, String)>) {
    let files = corpus::files(&corpus_dir(sub));
    let mut failures = Vec::new();
    let mut passed = 0;
    for path in &files {
        let report = corpus::replay_file(path, &Options::default());
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (_, outcome) in &report.outcomes {
            match outcome {
                Outcome::Failed(v) => {
                    failures.push((name.clone(), format!("{}: {v}", path.display())))
                }
                Outcome::Passed(_) => passed += 1,
                Outcome::Skipped(_) => {}
            }
        }
    }
    (passed, failures)
}

/// Replays every file under `sub`, returning the number of passed checks; panics with every
/// violation found.
fn replay(sub: &str) -> usize {
    let (passed, failures) = replay_all(sub);
    let texts: Vec<&str> = failures.iter().map(|(_, t)| t.as_str()).collect();
    assert!(
        failures.is_empty(),
        "{} violation(s):\n{}",
        failures.len(),
        texts.join("\n\n")
    );
    passed
}

#[test]
fn spec_cases_hold() {
    let files = corpus::files(&corpus_dir("spec"));
    assert!(
        files.len() >= 6,
        "expected the hand-written SPEC cases, found {}",
        files.len()
    );
    assert!(replay("spec") > 100);
}

#[test]
fn regressions_replay() {
    let (_, failures) = replay_all("regressions");
    let unexpected: Vec<&str> = failures
        .iter()
        .filter(|(file, _)| !KNOWN_CORE_BUGS.iter().any(|(known, _)| known == file))
        .map(|(_, text)| text.as_str())
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} violation(s):\n{}",
        unexpected.len(),
        unexpected.join("\n\n")
    );
    let mut stale = Vec::new();
    for (known, bug) in KNOWN_CORE_BUGS {
        if !corpus_dir("regressions").join(known).is_file() {
            stale.push(format!("{known} is listed but not in corpus/regressions/"));
        } else if !failures.iter().any(|(file, _)| file == known) {
            stale.push(format!("{known} now passes (fixed: {bug})"));
        }
    }
    assert!(
        stale.is_empty(),
        "remove from KNOWN_CORE_BUGS:\n{}",
        stale.join("\n")
    );
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
        .find(|(name, _)| *name == CORPUS_EXPECTATIONS);
    assert!(
        matches!(expectation, Some((_, Outcome::Failed(_)))),
        "{outcomes:?}"
    );
}
