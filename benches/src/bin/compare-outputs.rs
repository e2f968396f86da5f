//! `compare-outputs`: two `flatjoin` binaries must present every input byte for byte alike — the
//! check that a performance change changed nothing else.
//!
//! Inputs: every schema of every `*.json` file under `corpus/` (the JSON-Schema-Test-Suite's
//! included, each test's `schema`; a manifest as a whole through `flatjoin manifest` and each of
//! its tools' schemas through `flatjoin flatten`), and every input of the whole-process
//! comparison (the benchmark's shapes and the shape sweep, `sweep.rs`). Each is presented under
//! both open-branch readings, with `--diagnostics`; standard output, standard error, the exit
//! status and the diagnostics file of the two binaries must be identical.
//!
//! Usage: `compare-outputs --before BIN --after BIN [--quick] [--corpus DIR]`. Exits 1 and names
//! the first ten inputs that differ (0 when none does, 2 on a usage or I/O error).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use flatjoin_benches::corpus::{CorpusKind, corpus_dir, load_corpus_with_suite};
use flatjoin_benches::sweep;
use serde_json::Value;

/// One document to present, and how.
struct Case {
    /// Where it comes from (file and index).
    name: String,
    /// `flatten` or `manifest`.
    command: &'static str,
    /// The document.
    value: Value,
}

fn corpus_cases(dir: &Path) -> Result<Vec<Case>, String> {
    let corpus = load_corpus_with_suite(dir)?;
    let mut cases = Vec::new();
    for file in corpus.cases {
        if file.kind == CorpusKind::Manifest {
            let tools: Vec<Value> = file
                .schemas
                .iter()
                .enumerate()
                .map(|(i, schema)| {
                    serde_json::json!({"name": format!("tool_{i}"), "inputSchema": schema})
                })
                .collect();
            cases.push(Case {
                name: format!("{} (manifest)", file.id),
                command: "manifest",
                value: serde_json::json!({ "tools": tools }),
            });
        }
        for (i, schema) in file.schemas.into_iter().enumerate() {
            cases.push(Case {
                name: format!("{} #{i}", file.id),
                command: "flatten",
                value: schema,
            });
        }
    }
    Ok(cases)
}

/// What one binary did with one case under one reading.
#[derive(PartialEq, Eq)]
struct Outcome {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    diagnostics: Option<Vec<u8>>,
}

fn present(bin: &Path, case: &Case, reading: &str, input: &Path) -> Result<Outcome, String> {
    let diagnostics = input.with_extension("diagnostics.json");
    let _ = std::fs::remove_file(&diagnostics);
    let output = Command::new(bin)
        .arg(case.command)
        .arg(input)
        .arg("--open-branches")
        .arg(reading)
        .arg("--diagnostics")
        .arg(&diagnostics)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    // The file names differ by nothing between the two runs, so messages may name them.
    Ok(Outcome {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: output.stderr,
        diagnostics: std::fs::read(&diagnostics).ok(),
    })
}

struct Options {
    before: PathBuf,
    after: PathBuf,
    quick: bool,
    corpus: PathBuf,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let (mut before, mut after, mut quick, mut corpus) = (None, None, false, corpus_dir());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--before" => before = Some(PathBuf::from(value()?)),
            "--after" => after = Some(PathBuf::from(value()?)),
            "--corpus" => corpus = PathBuf::from(value()?),
            "--quick" => quick = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Options {
        before: before.ok_or("--before BIN is required")?,
        after: after.ok_or("--after BIN is required")?,
        quick,
        corpus,
    })
}

fn run(options: &Options) -> Result<Vec<String>, String> {
    let mut cases = corpus_cases(&options.corpus)?;
    cases.extend(sweep::inputs(options.quick).into_iter().map(|i| Case {
        name: i.label,
        command: i.command,
        value: i.value,
    }));
    let dir = std::env::temp_dir().join(format!("flatjoin-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let input = dir.join("input.json");
    let mut differing = Vec::new();
    for case in &cases {
        let text = serde_json::to_vec(&case.value).map_err(|e| e.to_string())?;
        std::fs::write(&input, text).map_err(|e| format!("{}: {e}", input.display()))?;
        for &reading in flatjoin::OpenBranches::NAMES {
            let before = present(&options.before, case, reading, &input)?;
            let after = present(&options.after, case, reading, &input)?;
            if before != after {
                differing.push(format!("{} (--open-branches {reading})", case.name));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "compare-outputs: {} inputs, {} presentations each way, {} differ",
        cases.len(),
        flatjoin::OpenBranches::NAMES.len() * cases.len(),
        differing.len()
    );
    Ok(differing)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse_options(&args) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("compare-outputs: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(differing) if differing.is_empty() => ExitCode::SUCCESS,
        Ok(differing) => {
            for name in differing.iter().take(10) {
                eprintln!("compare-outputs: differs: {name}");
            }
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("compare-outputs: {e}");
            ExitCode::from(2)
        }
    }
}
