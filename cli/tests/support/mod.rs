//! What the SDK end-to-end tests share (`mod support;` in each): the target directory and the venv
//! of pinned provider SDKs (`cli/sdk/requirements.txt`), made once and reused while the pins are
//! unchanged.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The target directory `cargo test` builds into: two levels above the `flatjoin` binary it built
/// for this test (`target/debug/flatjoin`).
pub fn target_dir() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_flatjoin"));
    exe.ancestors().nth(2).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        Path::to_path_buf,
    )
}

/// The Python of `target/sdk-venv`, created and filled from the pinned requirements when missing
/// or stale; `Err` says why it cannot be had.
pub fn install_sdk_venv() -> Result<PathBuf, String> {
    let target = target_dir();
    let venv = target.join("sdk-venv");
    let python = venv.join("bin").join("python");
    let requirements = Path::new(env!("CARGO_MANIFEST_DIR")).join("sdk/requirements.txt");
    let pins = std::fs::read_to_string(&requirements).expect("cli/sdk/requirements.txt");
    let stamp = venv.join("flatjoin-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == pins) {
        return Ok(python);
    }
    let system = ["python3", "python"]
        .into_iter()
        .find(|p| Command::new(p).arg("--version").output().is_ok());
    let Some(system) = system else {
        return Err("python3 is not installed".into());
    };
    let out = Command::new(system)
        .args(["-m", "venv", "--clear"])
        .arg(&venv)
        .output()
        .expect("python runs");
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
        .arg(&requirements)
        .output()
        .expect("pip runs");
    if !out.status.success() {
        return Err(format!(
            "pip install -r cli/sdk/requirements.txt failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::write(&stamp, pins).map_err(|e| format!("cannot write the stamp: {e}"))?;
    Ok(python)
}
