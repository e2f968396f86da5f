//! The programs from outside the Rust toolchain that tests need (Node.js, npm, Python, zip), how
//! to tell they run ([`missing`]) and how to install them; the runner ([`crate::runner`]) ignores
//! or fails a test whose programs are missing. Installing a test's packages is never a reason to
//! skip: a failed `npm ci` ([`npm_ci`]) or `pip install` (`venv::install_venv`) fails the test.
//!
//! A note for the reader of a test's output is written to the process's stderr itself
//! ([`warn`]), not through `eprintln!`: libtest captures the print macros, on every thread, and
//! shows what they printed only for a failing test.

use std::collections::BTreeMap;
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

/// ZIP's `zip` and `unzip`, for the ClusterFuzzLite build's test.
pub const ZIP: Tool = Tool {
    name: "zip and unzip",
    probe: &["sh", "-c", "zip -v && unzip -v"],
    install: "apt-get install zip unzip",
};

/// Those of `tools` that do not run here (each probe run once per process).
pub fn missing<'t>(tools: &[&'t Tool]) -> Vec<&'t Tool> {
    static PROBED: Mutex<BTreeMap<&'static str, bool>> = Mutex::new(BTreeMap::new());
    tools
        .iter()
        .copied()
        .filter(|tool| {
            let known = PROBED
                .lock()
                .ok()
                .and_then(|probed| probed.get(tool.name).copied());
            let runs = known.unwrap_or_else(|| {
                let runs = runs(tool.probe);
                if let Ok(mut probed) = PROBED.lock() {
                    probed.insert(tool.name, runs);
                }
                runs
            });
            !runs
        })
        .collect()
}

/// `not installed: NAMES; install with: COMMANDS`.
pub fn describe(missing: &[&Tool]) -> String {
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
    format!("not installed: {names}; install with: {install}")
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
