//! The fuzz regressions of `corpus/regressions/` (the files with a `target`) replay through the one
//! corpus replayer (`corpus::replay_file`), which runs the same check the fuzz target runs, on
//! stable, without libFuzzer; and that replayer's handling of broken, known-failing and passing
//! files. (`corpus_replay` replays the whole folder.)

use std::path::{Path, PathBuf};

use flatjoin::Options;
use flatjoin_harness::corpus;
use flatjoin_harness::oracle::{Oracle, Outcome};
use serde_json::Value;

/// `corpus/regressions/` at the workspace root.
fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions")
}

/// What replaying one document gave: `Err` with every failure, else the passed and skipped counts.
fn replay(path: &Path, document: &Value) -> Result<(usize, usize), String> {
    let mut failures = Vec::new();
    let (mut passed, mut skipped) = (0, 0);
    for (_, outcome) in corpus::replay_value(path, document, &Options::default()) {
        match outcome {
            Outcome::Passed(_) => passed += 1,
            Outcome::Skipped(_) => skipped += 1,
            Outcome::Failed(v) => failures.push(v.to_string()),
        }
    }
    if failures.is_empty() {
        Ok((passed, skipped))
    } else {
        Err(failures.join("\n"))
    }
}

fn replay_text(text: &str) -> Result<(usize, usize), String> {
    let document: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    replay(Path::new("inline.json"), &document)
}

#[test]
fn every_fuzz_regression_still_passes() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for path in corpus::files(&regressions_dir()) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let document: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        if document.get("target").is_none() {
            continue;
        }
        replayed += 1;
        if let Err(reason) = replay(&path, &document) {
            failures.push(format!("{}: {reason}", path.display()));
        }
    }
    // The committed fuzz regressions: a missing folder or one without them fails here instead of
    // passing empty.
    const MIN_FUZZ_REGRESSIONS: usize = 1;
    assert!(
        replayed >= MIN_FUZZ_REGRESSIONS,
        "{replayed} fuzz regressions replayed from {}, expected at least {MIN_FUZZ_REGRESSIONS}",
        regressions_dir().display()
    );
    assert!(
        failures.is_empty(),
        "{} of {replayed} fuzz regressions fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_broken_regression_file_fails_the_replay() {
    let outcome = replay_text(r#"{"description": "typo", "target": "flatten_byte", "input": {}}"#);
    assert!(
        outcome
            .as_ref()
            .is_err_and(|e| e.contains("unknown target")),
        "an unknown target must fail the replay, got {outcome:?}"
    );
}

#[test]
fn an_xfail_regression_that_passes_fails_the_replay() {
    let outcome = replay_text(
        r#"{"description": "fixed", "target": "flatten_bytes", "xfail": "open",
            "input": {"type": "string"}}"#,
    );
    assert!(
        outcome.as_ref().is_err_and(|e| e.contains("marked xfail")),
        "a passing xfail regression must be reported, got {outcome:?}"
    );
}

/// The same marker on a harness case: one known-failure list for both kinds of file.
#[test]
fn an_xfail_case_that_still_fails_is_a_skip_and_one_that_passes_fails() {
    let wrong = r#"{"description": "deliberately wrong", "xfail": "pinned bug",
        "schema": {"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"], "additionalProperties": false},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"], "additionalProperties": false}]},
        "tests": [{"data": {"k": "a"}, "original": true, "presentation": false}]}"#;
    let outcome = replay_text(wrong);
    assert!(
        matches!(outcome, Ok((_, skipped)) if skipped >= 1),
        "a known failure that still fails is reported as skipped, got {outcome:?}"
    );
    let right = wrong.replace(r#""presentation": false"#, r#""presentation": true"#);
    let outcome = replay_text(&right);
    assert!(
        outcome.as_ref().is_err_and(|e| e.contains("marked xfail")),
        "a known failure that passes must fail the replay, got {outcome:?}"
    );
}

#[test]
fn a_passing_regression_passes() {
    let outcome = replay_text(
        r#"{"description": "plain", "target": "flatten_bytes", "input": {"type": "string"}}"#,
    );
    assert_eq!(outcome, Ok((1, 0)));
}

#[test]
fn a_failing_regression_names_the_oracle() {
    // A valid schema whose presentation is fine, replayed as a harness case with a wrong
    // expectation: the failure names the oracle that judged it.
    let document = serde_json::json!({
        "description": "wrong", "schema": {"type": "string"},
        "tests": [{"data": 1, "original": true, "presentation": true}]
    });
    let outcomes = corpus::replay_value(Path::new("inline.json"), &document, &Options::default());
    assert!(
        outcomes
            .iter()
            .any(|(oracle, o)| *oracle == Oracle::CorpusExpectations
                && matches!(o, Outcome::Failed(_))),
        "{outcomes:?}"
    );
}

/// A run's report lists the known failures it met, with the file and the reason its `xfail` line
/// gives, and says "None." without one.
#[test]
fn the_report_lists_the_known_failures() {
    let report_of = |files: &[(&str, &str)]| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("known-{}", files.len()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("corpus folder");
        for (name, text) in files {
            std::fs::write(dir.join(name), text).expect("corpus file");
        }
        let mut config = flatjoin_harness::check::CheckConfig::new("known failures".to_owned());
        config.cases = 0;
        config.open_world_cases = Some(0);
        config.corpus = Some(dir);
        config.report = None;
        config.counterexamples = None;
        config.quiet = true;
        config.progress_bar = false;
        config.jobs = 1;
        let result = flatjoin_harness::check::run(&config, &mut |_| {});
        let report = flatjoin_harness::check::report_markdown(&result);
        report
            .split("\n## Known failures\n")
            .nth(1)
            .expect("a known failures section")
            .split("\n## ")
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    let wrong = r#"{"description": "deliberately wrong", "xfail": "pinned bug",
        "schema": {"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"], "additionalProperties": false},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"], "additionalProperties": false}]},
        "tests": [{"data": {"k": "a"}, "original": true, "presentation": false}]}"#;
    let plain = r#"{"description": "plain", "schema": {"type": "string"}, "tests": []}"#;
    let listed = report_of(&[("pinned.json", wrong), ("plain.json", plain)]);
    assert!(
        listed.contains("pinned.json`, corpus-expectations: pinned bug"),
        "the known failure is listed with its oracle and reason: {listed}"
    );
    assert!(!listed.contains("plain.json"), "{listed}");
    let none = report_of(&[("plain.json", plain)]);
    assert!(none.contains("None."), "{none}");
}
