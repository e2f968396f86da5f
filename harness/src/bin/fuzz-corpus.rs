//! `fuzz-corpus`: writes the fuzz targets' seeds and turns fuzzer crashes into regression files.
//!
//! ```text
//! fuzz-corpus seeds DIR [TARGET...]           write each target's seeds to DIR/<target>/
//! fuzz-corpus describe TARGET FILE            run TARGET's check on FILE's bytes, print the outcome
//! fuzz-corpus save TARGET FILE OUT [TEXT]     write the regression file OUT for a crash in FILE
//! fuzz-corpus replay FILE...                  replay regression files, exit 1 if any fails
//! ```
//!
//! `fuzz/overnight.sh` calls it; it runs on stable and needs no libFuzzer.

use std::path::Path;
use std::process::ExitCode;
use std::{fs, panic};

use flatjoin::Options;
use flatjoin_harness::corpus;
use flatjoin_harness::fuzz::{Regression, Target, seeds};
use flatjoin_harness::oracle::Outcome;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["seeds", dir, targets @ ..] => write_seeds(Path::new(dir), targets),
        ["describe", target, file] => describe(target, Path::new(file)),
        ["save", target, file, out] => save(target, Path::new(file), Path::new(out), None),
        ["save", target, file, out, text] => {
            save(target, Path::new(file), Path::new(out), Some(text))
        }
        ["replay", files @ ..] if !files.is_empty() => replay(files),
        _ => Err(format!("usage:\n{}", USAGE.trim_end())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("fuzz-corpus: {message}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "  fuzz-corpus seeds DIR [TARGET...]
  fuzz-corpus describe TARGET FILE
  fuzz-corpus save TARGET FILE OUT [TEXT]
  fuzz-corpus replay FILE...
";

fn target(name: &str) -> Result<Target, String> {
    Target::from_name(name).ok_or_else(|| format!("unknown target {name:?}"))
}

/// Writes every seed of each target (all of them without names) to `dir/<target>/<seed>`.
fn write_seeds(dir: &Path, names: &[&str]) -> Result<(), String> {
    let targets = if names.is_empty() {
        Target::ALL.to_vec()
    } else {
        names
            .iter()
            .map(|name| target(name))
            .collect::<Result<_, _>>()?
    };
    for target in targets {
        let folder = dir.join(target.name());
        fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let seeds = seeds::seeds(target);
        for (name, bytes) in &seeds {
            let path = folder.join(name);
            fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        println!("{target}: {} seeds in {}", seeds.len(), folder.display());
    }
    Ok(())
}

/// What the check of `target` says about `bytes`: the violation, the panic message, or that it passes.
fn outcome(target: Target, bytes: &[u8]) -> Result<String, String> {
    // Keep the default hook's message off stderr: the panic is the answer here, not an accident.
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(|| target.check_bytes(bytes));
    let _ = panic::take_hook();
    match result {
        Ok(Ok(verdict)) => Ok(format!("passes ({verdict:?})")),
        Ok(Err(violation)) => Err(violation.to_string()),
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "a panic without a message".to_owned());
            Err(format!("panic: {message}"))
        }
    }
}

/// Prints the outcome of `target`'s check on the bytes of `file`; fails when the check fails.
fn describe(name: &str, file: &Path) -> Result<(), String> {
    let target = target(name)?;
    let bytes = fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    match outcome(target, &bytes) {
        Ok(text) => {
            println!("{text}");
            Ok(())
        }
        Err(text) => {
            println!("{text}");
            Err("the check fails".to_owned())
        }
    }
}

/// Writes the regression file `out` for the crash input `file` of `target`, described by `text`
/// (default: the outcome of the check, for a crash that reproduces without libFuzzer).
fn save(name: &str, file: &Path, out: &Path, text: Option<&str>) -> Result<(), String> {
    let target = target(name)?;
    let bytes = fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let replay = outcome(target, &bytes);
    let reproduces = replay.is_err();
    let description = match text {
        Some(text) => text.to_owned(),
        None => replay.unwrap_or_else(|failure| failure),
    };
    let mut regression = Regression::from_crash(target, &bytes, &description);
    if !reproduces {
        // The stable replay passes: there is no failure for an `xfail` to mark (a libFuzzer
        // timeout on a starved machine, or a stack or memory limit only the sanitizer build
        // hits), and a passing `xfail` file fails `cargo test`. Saved without it, the file
        // guards that the input keeps passing; the fuzz report keeps the crash for triage.
        regression.xfail = None;
    }
    let mut json =
        serde_json::to_string_pretty(&regression.to_json()).map_err(|e| e.to_string())?;
    json.push('\n');
    fs::write(out, json).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("{}: {description}", out.display());
    Ok(())
}

/// Replays regression files through the one corpus replayer (`corpus::replay_file`, which
/// honours `xfail`); fails when any of them fails or cannot be read.
fn replay(files: &[&str]) -> Result<(), String> {
    let mut failures = 0;
    for file in files {
        let report = corpus::replay_file(Path::new(file), &Options::default());
        let mut failed = false;
        for (oracle, outcome) in &report.outcomes {
            match outcome {
                Outcome::Failed(violation) => {
                    failed = true;
                    println!("{file}: FAILS {oracle}: {violation}");
                }
                Outcome::Skipped(why) => println!("{file}: {oracle} skipped: {why}"),
                Outcome::Passed(_) => {}
            }
        }
        if failed {
            failures += 1;
        } else {
            println!("{file}: passes");
        }
    }
    if failures == 0 {
        Ok(())
    } else {
        Err(format!("{failures} regression file(s) fail"))
    }
}
