//! `flatjoin check --implementation` has teeth, on flatteners written for the tests
//! (`cli/tests/fixtures/flatteners/`) behind the Node and Python adapters (`protocol/adapters/`): the
//! three deliberately wrong ones are reported unsound with a shrunk counterexample that replays;
//! a crashing and a hanging flattener are recorded and survived (fakes in Rust,
//! `flatjoin_test_support::fake`, so that test needs no runtime); flatjoin itself,
//! through `serve-protocol` and through both adapters, holds every guarantee; and the core gets
//! the same verdicts in process and through `serve-protocol` (no runtime either).
//!
//! The others need Node.js and Python 3: without them they fail under `CI` and are shown as
//! ignored elsewhere (`flatjoin_test_support::runner`). Nothing is installed: the adapters use
//! nothing beyond the runtimes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;

flatjoin_test_support::tests! {
    @before flatjoin_test_support::fake::serve_if_asked;
    the_wrong_flatteners_are_unsound_with_a_shrunk_counterexample_that_replays needs NODE;
    a_crashing_and_a_hanging_flattener_are_recorded_and_survived;
    flatjoin_through_serve_protocol_and_both_adapters_holds_every_guarantee needs NODE, PYTHON3;
    the_adapters_await_async_functions_and_keep_stdout_for_the_protocol needs NODE, PYTHON3;
    the_core_in_process_and_through_serve_protocol_get_the_same_verdicts;
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "flatjoin-implementations-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn node_fixture(spec: &str) -> String {
    format!("node protocol/adapters/node/run.mjs cli/tests/fixtures/flatteners/{spec}")
}

/// Runs `flatjoin check` from the repository root with `args`; the output and the JSON results
/// of `--report DIR/report.md` (when `dir` is given).
fn check(args: &[&str], dir: &Path) -> (Output, Value) {
    let report = dir.join("report.md");
    let out = Command::new(env!("CARGO_BIN_EXE_flatjoin"))
        .arg("check")
        .args(args)
        .arg("--report")
        .arg(&report)
        .arg("--counterexamples")
        .arg(dir.join("counterexamples"))
        .current_dir(repo())
        .env("FLATJOIN_BIN", env!("CARGO_BIN_EXE_flatjoin"))
        .output()
        .expect("flatjoin runs");
    let json = std::fs::read_to_string(dir.join("report.json")).unwrap_or_else(|e| {
        panic!(
            "no JSON results ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, serde_json::from_str(&json).expect("JSON results"))
}

fn implementation<'a>(results: &'a Value, name: &str) -> &'a Value {
    results["implementations"]
        .as_array()
        .and_then(|list| {
            list.iter()
                .find(|i| i["implementation"]["name"].as_str() == Some(name))
        })
        .unwrap_or_else(|| panic!("no implementation {name:?} in {results}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn the_wrong_flatteners_are_unsound_with_a_shrunk_counterexample_that_replays() {
    let dir = scratch("wrong");
    let empty = dir.join("empty-corpus");
    std::fs::create_dir_all(&empty).expect("empty corpus");
    let fixtures = [
        ("first-wins.mjs#flatten", "fixture: first definition wins"),
        ("last-wins.cjs#flatten", "fixture: last definition wins"),
        ("merge-type-array.mjs#flatten", "fixture: merge, type array"),
    ];
    let commands: Vec<String> = fixtures.iter().map(|(f, _)| node_fixture(f)).collect();
    let mut args = vec![
        "--corpus",
        empty.to_str().expect("utf-8 path"),
        "--cases",
        "200",
        "--open-world-cases",
        "40",
        "--shrink-steps",
        "150",
    ];
    for c in &commands {
        args.extend(["--implementation", c.as_str()]);
    }
    let (out, results) = check(&args, &dir);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for ((_, name), command) in fixtures.iter().zip(&commands) {
        let imp = implementation(&results, name);
        let soundness = &imp["oracles"]["soundness"];
        assert!(
            soundness["violations"].as_u64() > Some(0),
            "{name} was not found unsound: {soundness}\n{text}"
        );
        let first = &soundness["first_counterexample"];
        assert_eq!(first["shrunk"], true, "{name}: {first}");
        let found = first["found"].as_str().unwrap_or_default();
        let case: u32 = found
            .strip_prefix("model case ")
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: not found by the model generator: {found}"));
        assert!(case < 1000, "{name}: found only at case {case}");
        // Minimized: a small schema, and the value the original accepts and the presentation
        // rejects is in the file.
        let file = PathBuf::from(first["file"].as_str().expect("a counterexample file"));
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("the file")).expect("JSON");
        assert!(
            written["schema"].to_string().len() < 1500,
            "{name}: not minimized: {}",
            written["schema"]
        );
        assert_eq!(written["tests"][0]["original"], true, "{written}");
        assert_eq!(written["implementation"].as_str(), Some(command.as_str()));
        // Replayable: the file alone, through the same implementation, fails soundness again;
        // through flatjoin it passes (the counterexample is the fixture's, not the harness's).
        let replay = dir.join(format!("replay-{}", case));
        std::fs::create_dir_all(&replay).expect("replay folder");
        std::fs::copy(&file, replay.join("case.json")).expect("copied");
        let replay_args = |implementation: &str| {
            vec![
                "--corpus".to_owned(),
                replay.display().to_string(),
                "--cases".to_owned(),
                "0".to_owned(),
                "--implementation".to_owned(),
                implementation.to_owned(),
            ]
        };
        let args = replay_args(command);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (again, replayed) = check(&args, &replay);
        assert_eq!(again.status.code(), Some(1), "{}", stdout(&again));
        assert!(
            implementation(&replayed, name)["oracles"]["soundness"]["violations"].as_u64()
                > Some(0),
            "{name}: the counterexample does not replay: {}",
            stdout(&again)
        );
        let flatjoin = format!("{} serve-protocol", env!("CARGO_BIN_EXE_flatjoin"));
        let args = replay_args(&flatjoin);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (core, _) = check(&args, &replay);
        assert_eq!(core.status.code(), Some(0), "{}", stdout(&core));
    }
    let report = std::fs::read_to_string(dir.join("report.md")).expect("report");
    assert!(
        report.contains("| `fixture: first definition wins` |"),
        "{report}"
    );
}

fn a_crashing_and_a_hanging_flattener_are_recorded_and_survived() {
    let dir = scratch("crash");
    let empty = dir.join("empty-corpus");
    std::fs::create_dir_all(&empty).expect("empty corpus");
    let crashing = flatjoin_test_support::fake::command("crashing");
    let hanging = flatjoin_test_support::fake::command("hanging");
    let (out, results) = check(
        &[
            "--corpus",
            empty.to_str().expect("utf-8 path"),
            "--cases",
            "40",
            "--open-world-cases",
            "10",
            "--timeout",
            "1",
            "--shrink-steps",
            "20",
            "--implementation",
            &crashing,
            "--implementation",
            &hanging,
        ],
        &dir,
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for (name, symptom) in [
        ("fixture: crashing", "exit status: 70"),
        ("fixture: hanging", "no answer within 1.0 s"),
    ] {
        let imp = implementation(&results, name);
        assert!(imp["crashed"].as_u64() > Some(0), "{name}: {imp}");
        assert!(
            imp["crashes"].as_array().is_some_and(|c| c
                .iter()
                .any(|m| m.as_str().is_some_and(|m| m.contains(symptom)))),
            "{name}: {}",
            imp["crashes"]
        );
        // Survived: restarted, and the cases after a crash were judged.
        assert!(imp["starts"].as_u64() > Some(1), "{name}: {imp}");
        // Recorded against the case: in the cell of the oracle whose request crashed or hung.
        let crashed_cells: u64 = imp["oracles"]
            .as_object()
            .map(|cells| cells.values().filter_map(|c| c["crashed"].as_u64()).sum())
            .unwrap_or(0);
        assert!(crashed_cells > 0, "{name}: {}", imp["oracles"]);
        let soundness = &imp["oracles"]["soundness"];
        assert!(
            soundness["passed"].as_u64() > Some(10),
            "{name}: {soundness}"
        );
        assert_eq!(soundness["violations"], 0, "{name}: {soundness}");
    }
}

fn flatjoin_through_serve_protocol_and_both_adapters_holds_every_guarantee() {
    let dir = scratch("flatjoin");
    let serve = format!("{} serve-protocol", env!("CARGO_BIN_EXE_flatjoin"));
    // The whole corpus (the suite included) through the pipe to the core.
    let (out, results) = check(
        &["--cases", "150", "--implementation", &serve],
        &dir.join("serve"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let imp = implementation(&results, "flatjoin");
    assert_eq!(imp["crashed"], 0, "{imp}");
    for oracle in flatjoin_harness::oracle::Oracle::IMPLEMENTATION {
        let cell = &imp["oracles"][oracle.name()];
        assert_eq!(cell["violations"], 0, "{oracle}: {cell}");
        assert!(
            cell["passed"].as_u64() > Some(0),
            "{oracle} never judged: {cell}"
        );
    }
    let suite = imp["sources"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "suite"))
        .expect("the suite was sent");
    assert!(suite["inputs"].as_u64() > Some(3000), "{suite}");
    // The binary once per request, through each adapter: the dialect samples and generated cases.
    let node = node_fixture("flatjoin-cli.mjs#flatten");
    let python = "python3 protocol/adapters/python/run.py cli/tests/fixtures/flatteners/flatjoin_cli.py:flatten";
    let (out, results) = check(
        &[
            "--corpus",
            "corpus/dialects",
            "--cases",
            "60",
            "--implementation",
            &node,
            "--implementation",
            python,
        ],
        &dir.join("adapters"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    for name in [
        "flatjoin (CLI via the node adapter)",
        "flatjoin (CLI via the python adapter)",
    ] {
        let imp = implementation(&results, name);
        assert_eq!(imp["crashed"], 0, "{name}: {imp}");
        let soundness = &imp["oracles"]["soundness"];
        assert_eq!(soundness["violations"], 0, "{name}: {soundness}");
        assert!(
            soundness["passed"].as_u64() > Some(100),
            "{name}: {soundness}"
        );
    }
}

fn the_adapters_await_async_functions_and_keep_stdout_for_the_protocol() {
    let dir = scratch("noisy");
    let empty = dir.join("empty-corpus");
    std::fs::create_dir_all(&empty).expect("empty corpus");
    let node = node_fixture("noisy.mjs#flatten");
    let python = "python3 protocol/adapters/python/run.py cli/tests/fixtures/flatteners/noisy_async.py:flatten";
    let (out, results) = check(
        &[
            "--corpus",
            empty.to_str().expect("utf-8 path"),
            "--cases",
            "10",
            "--shrink-steps",
            "5",
            "--implementation",
            &node,
            "--implementation",
            python,
        ],
        &dir,
    );
    for name in [
        "fixture: noisy async (node)",
        "fixture: noisy async (python)",
    ] {
        let imp = implementation(&results, name);
        // Logs on stdout would be protocol errors, counted as crashes.
        assert_eq!(imp["crashed"], 0, "{name}: {imp}\n{}", stdout(&out));
        assert_eq!(imp["protocol_errors"], serde_json::json!([]), "{name}");
        let soundness = &imp["oracles"]["soundness"];
        assert!(
            soundness["passed"].as_u64() >= Some(10),
            "{name}: {soundness}"
        );
    }
}

/// One driver (SPEC §6 decisions 74, 75): on the default seed and the bundled corpus, the core in
/// process and the core behind `serve-protocol` (Rust, no adapter) get the same verdicts — from
/// every implementation oracle on the corpus and the generated cases (static soundness and
/// coverage included: `serve-protocol` sends the core's diagnostics with each presentation), and
/// the same flatten and wrapped parts on the test suite.
fn the_core_in_process_and_through_serve_protocol_get_the_same_verdicts() {
    let dir = scratch("one-driver");
    let common = ["--cases", "100", "--open-world-cases", "25"];
    let in_process = dir.join("in-process.json");
    let out = Command::new(env!("CARGO_BIN_EXE_flatjoin"))
        .arg("check")
        .args(common)
        .arg("--report")
        .arg(dir.join("in-process.md"))
        .arg("--results-json")
        .arg(&in_process)
        .arg("--counterexamples")
        .arg(dir.join("in-process-counterexamples"))
        .current_dir(repo())
        .output()
        .expect("flatjoin runs");
    assert!(out.status.success(), "{}", stdout(&out));
    let in_process: Value =
        serde_json::from_str(&std::fs::read_to_string(&in_process).expect("results"))
            .expect("JSON");
    let serve = format!("{} serve-protocol", env!("CARGO_BIN_EXE_flatjoin"));
    let mut args = common.to_vec();
    args.extend(["--corpus", "corpus", "--implementation", &serve]);
    let (out, results) = check(&args, &dir);
    assert!(out.status.success(), "{}", stdout(&out));
    let through = implementation(&results, "flatjoin");
    let checks = in_process["summary"]["checks"].as_array().expect("checks");
    // The in-process counts of one check over `sources`: (cases, passed, failed, skipped).
    let counts = |check: &str, sources: &[&str]| {
        let mut sum = [0u64; 4];
        for c in checks {
            if c["check"] == check && sources.iter().any(|s| c["source"] == *s) {
                for (k, key) in ["cases", "passed", "failed", "skipped"].iter().enumerate() {
                    sum[k] += c[key].as_u64().unwrap_or(0);
                }
            }
        }
        sum
    };
    let cells = &through["oracles"];
    let mut compared = 0;
    for (oracle, cell) in cells.as_object().expect("cells") {
        let [cases, passed, failed, skipped] = counts(oracle, &["corpus", "model", "open-world"]);
        let cell = |key: &str| cell[key].as_u64().unwrap_or(0);
        assert_eq!(failed, 0, "{oracle}");
        assert_eq!(
            (cases, passed, skipped, 0),
            (
                cell("cases"),
                cell("passed"),
                cell("not_applicable"),
                cell("violations")
            ),
            "{oracle}: in process (cases, passed, not applicable, violations) against through the protocol"
        );
        compared += 1;
    }
    assert_eq!(compared, 13, "{cells}");
    // The suite: every draft's flatten and wrapped parts, counts and lines alike.
    let suite = through["suite"].as_array().expect("suite parts");
    assert_eq!(suite.len(), 5, "{suite:?}");
    let in_suite = in_process["items"]["suite"]
        .as_array()
        .expect("suite items");
    for report in suite {
        let draft = &report["draft"];
        let mine = in_suite
            .iter()
            .map(|item| &item["report"])
            .find(|r| r["draft"] == *draft)
            .expect("the draft in process");
        for part in ["flatten", "wrapped"] {
            assert!(
                report[part]["instances"].as_u64() > Some(100),
                "{draft} {part}"
            );
            for key in [
                "schemas",
                "flattened",
                "instances",
                "passed",
                "not_promised",
            ] {
                assert_eq!(report[part][key], mine[part][key], "{draft} {part} {key}");
            }
            for key in ["unrunnable", "failures"] {
                let lines = |r: &Value| r[part][key].as_array().cloned().unwrap_or_default();
                let (theirs, ours) = (lines(report), lines(mine));
                let first = theirs.iter().zip(&ours).find(|(a, b)| a != b);
                assert_eq!(theirs.len(), ours.len(), "{draft} {part} {key}: {first:?}");
                assert!(first.is_none(), "{draft} {part} {key}: {first:?}");
            }
        }
    }
}
