//! The one rule for tests that need a program from outside the Rust toolchain (Node.js, npm,
//! Python): [`require`] says whether the programs run. When one does not, the test fails under
//! `CI` (which `.ci/run` sets) and elsewhere prints a loud warning naming the test that did not
//! run and the command that installs what is missing, then lets the test return. Installing a
//! test's packages is never a reason to skip: a failed `npm ci` ([`npm_ci`]) or `pip install`
//! (`venv::install_venv`) fails the test.
//!
//! The warning is written to the process's stderr itself ([`warn`]), not through `eprintln!`:
//! libtest captures the print macros, on every thread, and shows what they printed only for a
//! failing test, so a `println!`/`eprintln!` SKIP in a passing test is never seen under plain
//! `cargo test`.
//!
//! Std only and naming no crate's binaries, so every such test includes it: the CLI's tests
//! (`support::tools`), the harness's protocol test and the Node.js and Python package tests (by
//! `#[path]`, through `bindings/support.rs` for the latter).

#![allow(dead_code)] // each test binary uses its own part

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A program a test runs, how to tell it is there and how to install it.
pub struct Tool {
    /// What the warning calls it.
    pub name: &'static str,
    /// A command that exits with status 0 when the tool is usable.
    pub probe: &'static [&'static str],
    /// The command that installs it.
    pub install: &'static str,
}

/// Node.js.
pub const NODE: Tool = Tool {
    name: "node",
    probe: &["node", "--version"],
    install: "apt-get install nodejs (Node.js 20 or later; or https://nodejs.org)",
};

/// npm, for the tests that install their packages from a lock file.
pub const NPM: Tool = Tool {
    name: "npm",
    probe: &["npm", "--version"],
    install: "apt-get install npm",
};

/// Python 3.
pub const PYTHON3: Tool = Tool {
    name: "python3",
    probe: &["python3", "--version"],
    install: "apt-get install python3",
};

/// Python 3 able to make a venv (`venv` and `ensurepip`; Debian ships them apart), for the tests
/// that install pinned packages (`venv::install_venv`).
pub const PYTHON3_VENV: Tool = Tool {
    name: "python3 with venv",
    probe: &["python3", "-c", "import venv, ensurepip"],
    install: "apt-get install python3 python3-venv (Python 3.9 or later)",
};

/// Whether every one of `tools` runs. When one does not: under `CI`, `test` fails; elsewhere a
/// loud warning says that `test` did not run and how to install what is missing, and the answer
/// is `false` (the caller returns).
pub fn require(test: &str, tools: &[&Tool]) -> bool {
    let missing: Vec<&Tool> = tools
        .iter()
        .copied()
        .filter(|tool| !runs(tool.probe))
        .collect();
    if missing.is_empty() {
        return true;
    }
    let names = missing
        .iter()
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ");
    let install = missing
        .iter()
        .map(|t| t.install)
        .collect::<Vec<_>>()
        .join("; ");
    assert!(
        std::env::var_os("CI").is_none(),
        "{test} cannot run under CI: not installed: {names}. Install with: {install}"
    );
    warn_missing(test, &names, &install);
    false
}

/// Whether `probe` runs and exits with status 0.
fn runs(probe: &[&str]) -> bool {
    let Some((program, args)) = probe.split_first() else {
        return false;
    };
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The warning for a test that did not run: in full the first time a test binary misses these
/// tools, in one line after that.
fn warn_missing(test: &str, names: &str, install: &str) {
    static WARNED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let first = WARNED
        .lock()
        .map_or(true, |mut warned| warned.insert(names.to_owned()));
    let bar = "!".repeat(100);
    if first {
        warn(&format!(
            "\n{bar}\n\
             !! WARNING: NOT RUN: {test}\n\
             !!   not installed: {names}\n\
             !!   install with:  {install}\n\
             !!   (the test passes without running here; under CI it fails)\n\
             {bar}\n"
        ));
    } else {
        warn(&format!(
            "!! WARNING: NOT RUN: {test} (not installed: {names}; see above)\n"
        ));
    }
}

/// Writes `text` to the process's stderr, past libtest's capture of the print macros, so that it
/// shows under plain `cargo test` even when the test passes.
pub fn warn(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// `npm ci --ignore-scripts` in `dir` (a folder with a `package-lock.json`) when `node_modules`
/// was not installed from this lock file; a failed install fails the test. Install scripts do
/// not run: the packages the tests need are plain JavaScript, and the Node.js package's own
/// `install` script would build the addon the test builds itself.
pub fn npm_ci(dir: &Path) {
    let lock = std::fs::read_to_string(dir.join("package-lock.json"))
        .unwrap_or_else(|e| panic!("{}/package-lock.json: {e}", dir.display()));
    let stamp = dir.join("node_modules/.flatjoin-package-lock.json");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == lock) {
        return;
    }
    let mut npm = Command::new("npm");
    npm.args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
        .current_dir(dir);
    let out = run_with_deadline(npm, Duration::from_secs(600))
        .unwrap_or_else(|why| panic!("npm ci in {}: {why}", dir.display()));
    assert!(
        out.status.success(),
        "npm ci in {} failed:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&stamp, lock).expect("write the npm stamp");
}

/// Runs `command` to the end, killing it after `deadline`; `Err` on a timeout, with its output.
pub fn run_with_deadline(mut command: Command, deadline: Duration) -> Result<Output, String> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    // Read both pipes on threads, so a child that prints a lot never blocks on a full pipe.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                let out = out_reader.join().unwrap_or_default();
                let err = err_reader.join().unwrap_or_default();
                return Err(format!(
                    "timed out after {deadline:?}\nstdout:\n{}\nstderr:\n{}",
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&err)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(e.to_string()),
        }
    };
    Ok(Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}
