//! A venv under `target/` filled from a pinned requirements file, made once and reused while the
//! pins are unchanged. Shared by the CLI's SDK tests (`support::install_sdk_venv`) and the
//! Python package's test (`bindings/python/tests/python.rs`). Whether Python can make a venv at
//! all is the runner's to say (`needs PYTHON3_VENV`: ignored, or failed under `CI`); once it
//! can, every `Err` here is a failure of the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python of `venv`, created and filled from `requirements` when missing or stale; `Err` says
/// why it cannot be had (no `python3`, no venv, or a failed install: a failure, never a skip).
pub fn install_venv(venv: &Path, requirements: &Path) -> Result<PathBuf, String> {
    let python = venv.join("bin").join("python");
    let pins = std::fs::read_to_string(requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    let stamp = venv.join("flatjoin-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == pins) {
        return Ok(python);
    }
    // The Python `tools::PYTHON3_VENV` probes.
    let system = "python3";
    let out = Command::new(system)
        .args(["-m", "venv", "--clear"])
        .arg(venv)
        .output()
        .map_err(|e| format!("{system} -m venv cannot run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cannot create a venv: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let out = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(requirements)
        .output()
        .map_err(|e| format!("pip cannot run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "pip install -r {} failed: {}",
            requirements.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::write(&stamp, pins).map_err(|e| format!("cannot write the stamp: {e}"))?;
    Ok(python)
}
