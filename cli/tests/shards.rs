//! `flatjoin check --shard K/N` and `flatjoin check-merge` (SPEC §6 decisions 58–60): the merge of
//! 1, 2 and 3 shards writes the unsharded run's report (timing aside), an injected fault's one
//! violation is found by exactly the shard that owns its case, and the JSON and JUnit results carry
//! it with its counterexample. The binary runs as CI runs it, each shard in a fresh copy of a
//! small corpus.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// `flatjoin ARGS` from the test's temporary directory, where `flatjoin-counterexamples/` goes.
fn flatjoin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flatjoin"))
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .args(args)
        .output()
        .expect("flatjoin runs")
}

/// `flatjoin ARGS`, asserting its exit code.
fn run(args: &[&str], code: i32) -> Output {
    let out = flatjoin(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "flatjoin {}\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh folder under the test's temporary directory.
fn fresh(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Lays out the small corpus at `corpus` (the same path for every run, so every run names the
/// same command): the SPEC cases, one manifest, and a JSON-Schema-Test-Suite of three files in
/// three drafts (so the suite's drafts are partitioned too). Any regression file an earlier run
/// wrote is gone.
fn small_corpus(corpus: &Path) {
    let _ = std::fs::remove_dir_all(corpus);
    let copy = |from: &str, to: &str| {
        let to = corpus.join(to);
        std::fs::create_dir_all(to.parent().expect("a folder")).expect("corpus folder");
        std::fs::copy(repo().join("corpus").join(from), &to).expect("corpus file copied");
    };
    for entry in std::fs::read_dir(repo().join("corpus/spec")).expect("corpus/spec") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        copy(&format!("spec/{name}"), &format!("spec/{name}"));
    }
    copy("manifests/memory.json", "manifests/memory.json");
    for (draft, file) in [
        ("draft2020-12", "const.json"),
        ("draft7", "enum.json"),
        ("draft4", "required.json"),
    ] {
        let path = format!("json-schema-test-suite/tests/{draft}/{file}");
        copy(&path, &path);
    }
}

/// An empty corpus folder at `corpus` (any regression file an earlier run wrote is gone).
#[cfg_attr(
    not(feature = "fault-injection"),
    allow(dead_code, reason = "the fault test's")
)]
fn empty_corpus(corpus: &Path) {
    let _ = std::fs::remove_dir_all(corpus);
    std::fs::create_dir_all(corpus).expect("corpus folder");
}

/// Text without the lines that carry wall-clock times (the run summary, the per-generator rows).
fn without_times(text: &str) -> String {
    text.lines()
        .filter(|l| {
            !(l.contains("cases/s")
                || l.starts_with("| model |")
                || l.starts_with("| open-world |"))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Validates `results` with the repository's schema of the results file, by `jsonschema`.
fn assert_results_shape(results: &Value) {
    let schema = json(&repo().join("protocol/check-results.schema.json"));
    let validator = jsonschema::validator_for(&schema).expect("the results schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(results)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(5)
        .collect();
    assert!(errors.is_empty(), "results off their schema: {errors:#?}");
}

/// Runs `common` whole (report and results under `dir/whole.*`), then as N shards for each N of
/// `partitions`, each merged by `check-merge`; returns the whole run's report and results and,
/// per N, the merged report and results and the shards' results.
struct Runs {
    whole_report: String,
    whole_results: Value,
    merged: Vec<(u32, String, Value, Vec<Value>)>,
}

fn run_sharded(
    dir: &Path,
    corpus: &Path,
    lay_out: fn(&Path),
    common: &[&str],
    partitions: &[u32],
    code: i32,
) -> Runs {
    let path = |name: String| dir.join(name).display().to_string();
    lay_out(corpus);
    let (report, results) = (path("whole.md".into()), path("whole.json".into()));
    let mut args = common.to_vec();
    args.extend(["--report", &report, "--results-json", &results]);
    run(&args, code);
    let whole_report = read(Path::new(&report));
    let whole_results = json(Path::new(&results));
    let mut merged = Vec::new();
    for &n in partitions {
        let mut files = Vec::new();
        let mut shards = Vec::new();
        for k in 1..=n {
            lay_out(corpus);
            let file = path(format!("shard-{k}-of-{n}.json"));
            let shard = format!("{k}/{n}");
            let mut args = common.to_vec();
            args.extend(["--shard", &shard, "--results-json", &file]);
            // A shard exits 1 only when it found a failure itself.
            let out = flatjoin(&args);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "shard {shard}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            shards.push(json(Path::new(&file)));
            files.push(file);
        }
        let (report, results) = (
            path(format!("merged-{n}.md")),
            path(format!("merged-{n}.json")),
        );
        let mut args = vec![
            "check-merge",
            "--report",
            &report,
            "--results-json",
            &results,
        ];
        // In reverse order: the merge does not depend on the order of its arguments.
        args.extend(files.iter().rev().map(String::as_str));
        run(&args, code);
        merged.push((
            n,
            read(Path::new(&report)),
            json(Path::new(&results)),
            shards,
        ));
    }
    Runs {
        whole_report,
        whole_results,
        merged,
    }
}

#[test]
fn merged_shards_write_the_unsharded_report() {
    let dir = fresh("shards-merge");
    let corpus = dir.join("corpus");
    let corpus_arg = corpus.display().to_string();
    let common = [
        "check",
        "--cases",
        "10",
        "--open-world-cases",
        "5",
        "--seed",
        "7",
        "--jobs",
        "1",
        "--corpus",
        &corpus_arg,
    ];
    let runs = run_sharded(&dir, &corpus, small_corpus, &common, &[1, 2, 3], 0);
    let whole = &runs.whole_results;
    assert_results_shape(whole);
    assert_eq!(
        whole["summary"]["corpus_files"], 7,
        "6 SPEC cases and a manifest"
    );
    assert_eq!(whole["summary"]["model_cases"], 10);
    assert_eq!(whole["summary"]["open_world_cases"], 5);
    assert_eq!(whole["items"]["suite"].as_array().map(Vec::len), Some(5));
    assert!(
        runs.whole_report.contains("| draft7 | validate |"),
        "the suite ran:\n{}",
        runs.whole_report
    );
    assert!(
        runs.whole_report.starts_with(&format!(
            "<!-- Generated by `flatjoin {}`",
            common.join(" ")
        )),
        "the report names the command without the output flags:\n{}",
        runs.whole_report
    );
    for (n, report, merged, shards) in &runs.merged {
        assert_eq!(
            without_times(report),
            without_times(&runs.whole_report),
            "the merge of {n} shards"
        );
        assert_eq!(
            merged["summary"], whole["summary"],
            "merged summary, {n} shards"
        );
        assert_eq!(
            merged["items"], whole["items"],
            "merged records, {n} shards"
        );
        assert_results_shape(merged);
        // Each shard ran its own share: every N-th position from K-1, nothing twice.
        for (k, shard) in (1u64..).zip(shards) {
            assert_results_shape(shard);
            // `1/1` is the whole run: its results name no shard.
            let expected = if *n == 1 {
                Value::Null
            } else {
                format!("{k}/{n}").into()
            };
            assert_eq!(shard["shard"], expected);
            for phase in ["corpus", "suite", "model", "open_world"] {
                for item in shard["items"][phase].as_array().expect("items") {
                    let i = item["index"].as_u64().expect("index");
                    assert_eq!(
                        i % u64::from(*n),
                        k - 1,
                        "{phase} item {i} in shard {k}/{n}"
                    );
                }
            }
        }
        let total = |field: &str| {
            shards
                .iter()
                .map(|s| s["summary"][field].as_u64().expect("count"))
                .sum::<u64>()
        };
        for field in ["corpus_files", "model_cases", "open_world_cases", "passed"] {
            assert_eq!(
                Some(total(field)),
                whole["summary"][field].as_u64(),
                "{field} over {n} shards"
            );
        }
    }
}

#[test]
fn a_merge_refuses_missing_repeated_and_foreign_shards() {
    let dir = fresh("shards-refused");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).expect("empty corpus");
    let corpus_arg = corpus.display().to_string();
    let shard = |spec: &str, seed: &str| {
        let file = dir.join(format!("{}-{seed}.json", spec.replace('/', "-of-")));
        let file_arg = file.display().to_string();
        run(
            &[
                "check",
                "--cases",
                "3",
                "--open-world-cases",
                "0",
                "--seed",
                seed,
                "--corpus",
                &corpus_arg,
                "--shard",
                spec,
                "--results-json",
                &file_arg,
            ],
            0,
        );
        file_arg
    };
    let (one, two, foreign) = (shard("1/2", "1"), shard("2/2", "1"), shard("2/2", "2"));
    let report = dir.join("merged.md").display().to_string();
    for (args, why) in [
        (vec![one.as_str()], "missing shards: 2/2"),
        (
            vec![one.as_str(), one.as_str(), two.as_str()],
            "given twice",
        ),
        (vec![one.as_str(), foreign.as_str()], "different runs"),
    ] {
        let mut all = vec!["check-merge", "--report", &report];
        all.extend(args);
        let out = run(&all, 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "expected {why:?}, got {stderr}");
    }
    assert!(
        !Path::new(&report).exists(),
        "a refused merge wrote a report"
    );
    for bad in ["0/2", "3/2", "2"] {
        let out = flatjoin(&[
            "check",
            "--cases",
            "0",
            "--corpus",
            &corpus_arg,
            "--shard",
            bad,
        ]);
        assert_eq!(out.status.code(), Some(2), "--shard {bad} was accepted");
    }
}

#[cfg(feature = "fault-injection")]
mod fault {
    use super::*;

    use quick_xml::Reader;
    use quick_xml::events::Event;

    /// The injected fault, seed and case count: with these, model case 7 (the last) is the only
    /// generated case that violates a guarantee, and only one oracle (branch-order invariance)
    /// finds it (the open-world generator is off; found by running the unsharded check over
    /// seeds with `--results-json`, again whenever the model generator changes what a seed
    /// draws, last when it began drawing a union used in many fields, SPEC §6 decision 73), so of 3 shards only
    /// shard 2 (positions 1, 4, 7) meets it, of 2 only shard 2.
    const FAULT: &str = "annotation-names";
    const SEED: &str = "49";
    const CASES: &str = "8";
    const FAILING_CASE: u64 = 7;

    /// The `<failure>` texts of the JUnit XML `xml`, with their test suite and test case names.
    fn junit_failures(xml: &str) -> Vec<(String, String, String)> {
        let mut reader = Reader::from_str(xml);
        let (mut suite, mut case) = (String::new(), String::new());
        let mut in_failure = false;
        let mut out = Vec::new();
        let attr = |e: &quick_xml::events::BytesStart<'_>, name: &str| {
            e.attributes()
                .flatten()
                .find(|a| a.key.as_ref() == name)
                .map(|a| {
                    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .expect("an attribute value")
                        .into_owned()
                })
                .unwrap_or_default()
        };
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Start(e) if e.name().as_ref() == "testsuite" => suite = attr(&e, "name"),
                Event::Start(e) if e.name().as_ref() == "testcase" => case = attr(&e, "name"),
                Event::Start(e) if e.name().as_ref() == "failure" => {
                    in_failure = true;
                    out.push((suite.clone(), case.clone(), String::new()));
                }
                Event::Text(t) if in_failure => {
                    if let Some(last) = out.last_mut() {
                        last.2.push_str(&t.xml10_content());
                    }
                }
                // `&lt;`, `&#10;` …: quick-xml reports references apart from the text.
                Event::GeneralRef(r) if in_failure => {
                    let text = match r.resolve_char_ref().expect("a character reference") {
                        Some(c) => c.to_string(),
                        None => quick_xml::escape::resolve_predefined_entity(&r)
                            .expect("a predefined entity")
                            .to_owned(),
                    };
                    if let Some(last) = out.last_mut() {
                        last.2.push_str(&text);
                    }
                }
                Event::End(e) if e.name().as_ref() == "failure" => in_failure = false,
                Event::Eof => break,
                _ => {}
            }
        }
        out
    }

    #[test]
    fn an_injected_fault_is_found_by_exactly_one_shard() {
        let dir = fresh("shards-fault");
        let corpus = dir.join("corpus");
        let corpus_arg = corpus.display().to_string();
        let common = [
            "check",
            "--inject-fault",
            FAULT,
            "--cases",
            CASES,
            "--open-world-cases",
            "0",
            "--seed",
            SEED,
            "--jobs",
            "1",
            "--shrink-steps",
            "40",
            "--corpus",
            &corpus_arg,
        ];
        // No corpus: the fault breaks corpus cases too.
        let runs = run_sharded(&dir, &corpus, empty_corpus, &common, &[1, 2, 3], 1);
        let whole = &runs.whole_results;
        let findings = whole["findings"].as_array().expect("findings");
        assert_eq!(findings.len(), 1, "one violation: {findings:#?}");
        let finding = &findings[0];
        assert_eq!(finding["source"], "model");
        assert_eq!(finding["item"], format!("case {FAILING_CASE}"));
        assert_eq!(finding["shrunk"], true);
        assert_eq!(
            whole["summary"]["model_cases"].as_u64(),
            Some(FAILING_CASE + 1),
            "the model generator stops at its violation"
        );
        for (n, report, merged, shards) in &runs.merged {
            assert_eq!(
                without_times(report),
                without_times(&runs.whole_report),
                "the merge of {n} shards"
            );
            assert_eq!(merged["findings"], whole["findings"], "{n} shards");
            let found: Vec<u64> = (1u64..)
                .zip(shards)
                .filter(|(_, s)| !s["findings"].as_array().expect("findings").is_empty())
                .map(|(k, _)| k)
                .collect();
            assert_eq!(
                found,
                vec![FAILING_CASE % u64::from(*n) + 1],
                "with {n} shards, only the shard of case {FAILING_CASE} finds it"
            );
        }
        // JUnit: the merged results' one failure, in the model's suite under the oracle that
        // failed, carrying the shrunk counterexample as a corpus case.
        let merged_results = dir.join("merged-3.json").display().to_string();
        let junit = dir.join("merged-3.xml").display().to_string();
        let report = dir.join("again.md").display().to_string();
        let out = run(
            &[
                "check-merge",
                "--report",
                &report,
                "--junit",
                &junit,
                "--format",
                "junit",
                &dir.join("shard-1-of-3.json").display().to_string(),
                &dir.join("shard-2-of-3.json").display().to_string(),
                &dir.join("shard-3-of-3.json").display().to_string(),
            ],
            1,
        );
        let xml = read(Path::new(&junit));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            xml,
            "--format junit prints it"
        );
        let failures = junit_failures(&xml);
        assert_eq!(failures.len(), 1, "{failures:#?}");
        let (suite, case, text) = &failures[0];
        assert_eq!(suite, "model");
        assert_eq!(Some(case.as_str()), finding["check"].as_str());
        let counterexample = text
            .split_once("counterexample (a corpus case):\n")
            .map(|(_, json)| json)
            .expect("the failure carries the counterexample");
        let counterexample: Value =
            serde_json::from_str(counterexample.trim()).expect("the counterexample is JSON");
        assert_eq!(counterexample, finding["counterexample"]);
        assert_eq!(counterexample["oracle"], finding["check"]);
        assert!(counterexample["schema"].is_object(), "{counterexample}");
        assert_eq!(
            json(Path::new(&merged_results))["findings"],
            whole["findings"]
        );
    }
}
