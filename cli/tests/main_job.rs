//! The main job's gates, as `.ci/run` applies them (`reports/fresh.py`, SPEC §6 decision 65): a
//! run's output must end `0 failed` and its report must state the committed results, timings
//! aside. Both must fail on a seeded fault, and pass on a second run of the same seed (whose
//! timings differ). A fault run writes its counterexamples under `faults/` of the
//! counterexamples folder, never into the corpus it replays.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

flatjoin_test_support::tests! {
    the_gates_pass_a_clean_run_and_its_rerun needs PYTHON3;
    #[cfg(feature = "fault-injection")]
    both_gates_fail_on_a_seeded_fault_and_the_corpus_is_left_alone needs PYTHON3;
}

/// The repository root (where `reports/fresh.py` lives).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh folder under the test's temporary directory.
fn fresh(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir
}

/// `flatjoin check` on a small corpus (one dialect sample), its report and stdout under `dir`
/// named `name`; `extra` adds flags. The stdout is also written to `dir/name.log`.
fn check(dir: &Path, name: &str, extra: &[&str]) -> Output {
    let corpus = dir.join("corpus");
    let sample = corpus.join("dialects/zod4-draft2020-12");
    std::fs::create_dir_all(&sample).expect("corpus folder");
    std::fs::copy(
        repo().join("corpus/dialects/zod4-draft2020-12/shape.json"),
        sample.join("shape.json"),
    )
    .expect("a dialect sample");
    let report = dir.join(format!("{name}.md"));
    let out = Command::new(env!("CARGO_BIN_EXE_flatjoin"))
        .current_dir(dir)
        .args(["check", "--cases", "24", "--open-world-cases", "6"])
        .args(["--seed", "3", "--jobs", "1", "--shrink-steps", "20"])
        .arg("--corpus")
        .arg(&corpus)
        .arg("--report")
        .arg(&report)
        .arg("--counterexamples")
        .arg(dir.join("counterexamples"))
        .args(extra)
        .output()
        .expect("flatjoin runs");
    std::fs::write(dir.join(format!("{name}.log")), &out.stdout).expect("log");
    out
}

/// `reports/fresh.py ARGS` (exit code, stderr).
fn fresh_py(args: &[&Path], flags: &[&str]) -> (i32, String) {
    let mut cmd = Command::new("python3");
    cmd.arg(repo().join("reports/fresh.py"));
    for (flag, path) in flags.iter().zip(args) {
        cmd.arg(flag).arg(path);
    }
    let out = cmd.output().expect("python3 runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Both gates: the run's output `log` (under `dir`) and its report `new` against `committed`.
fn gates(dir: &Path, log: &str, committed: &str, new: &str) -> (i32, String) {
    fresh_py(
        &[&dir.join(log), &dir.join(committed), &dir.join(new)],
        &["--log", "--committed", "--new"],
    )
}

fn the_gates_pass_a_clean_run_and_its_rerun() {
    let dir = fresh("main-job-clean");
    let first = check(&dir, "first", &[]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let again = check(&dir, "again", &[]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    let (code, err) = gates(&dir, "again.log", "first.md", "again.md");
    assert_eq!(code, 0, "{err}");
    // Timings are set aside wherever the report writes them: the summary line and the
    // generators' time column.
    let text = std::fs::read_to_string(dir.join("first.md")).expect("report");
    let slower: String = text
        .lines()
        .map(|line| {
            if line.starts_with("- Generated cases:") {
                "- Generated cases: 24 in 987.6 s (0.0 cases/s); whole run 999.9 s".to_owned()
            } else if line.starts_with("| model |") {
                let mut cells: Vec<&str> = line.split('|').collect();
                cells[4] = " 987.6 ";
                cells.join("|")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(slower.trim_end(), text.trim_end(), "no timing was changed");
    std::fs::write(dir.join("slower.md"), slower).expect("report");
    let (code, err) = fresh_py(
        &[&dir.join("first.md"), &dir.join("slower.md")],
        &["--committed", "--new"],
    );
    assert_eq!(code, 0, "{err}");
}

#[cfg(feature = "fault-injection")]
fn both_gates_fail_on_a_seeded_fault_and_the_corpus_is_left_alone() {
    let dir = fresh("main-job-fault");
    let clean = check(&dir, "clean", &[]);
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
    let faulty = check(&dir, "faulty", &["--inject-fault", "first-wins"]);
    assert_eq!(faulty.status.code(), Some(1), "{faulty:?}");
    let (code, err) = gates(&dir, "faulty.log", "clean.md", "faulty.md");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the main job ended"), "closing gate: {err}");
    assert!(
        err.contains("states other results"),
        "freshness gate: {err}"
    );
    // Each gate alone fails too.
    let (code, err) = fresh_py(
        &[&dir.join("clean.md"), &dir.join("faulty.md")],
        &["--committed", "--new"],
    );
    assert_eq!(code, 1, "freshness alone: {err}");
    let (code, err) = gates(&dir, "faulty.log", "clean.md", "clean.md");
    assert_eq!(code, 1, "closing line alone: {err}");
    // The fault's counterexamples: under faults/, and nothing new in the corpus.
    let faults = std::fs::read_dir(dir.join("counterexamples/faults"))
        .expect("counterexamples/faults written")
        .count();
    assert!(faults > 0, "no counterexample under counterexamples/faults");
    let corpus_files = walk(&dir.join("corpus"));
    assert_eq!(
        corpus_files,
        vec![dir.join("corpus/dialects/zod4-draft2020-12/shape.json")],
        "the run wrote into the corpus"
    );
}

/// Every file under `dir`.
#[cfg(feature = "fault-injection")]
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
