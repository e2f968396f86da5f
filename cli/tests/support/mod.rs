//! What the CLI's end-to-end tests share (`mod support;` in each): the target directory and the
//! venv of pinned provider SDKs (`cli/sdk/requirements.txt`), made once and reused while the pins
//! are unchanged; `tools` and `venv` are `flatjoin-test-support`'s.

#![allow(dead_code)] // each test binary uses its own part

use std::path::{Path, PathBuf};

#[allow(unused_imports)] // each test binary uses its own part
pub use flatjoin_test_support::{tools, venv};

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
/// or stale; `Err` says why it cannot be had (a failure: check [`tools::PYTHON3_VENV`] first).
pub fn install_sdk_venv() -> Result<PathBuf, String> {
    venv::install_venv(
        &target_dir().join("sdk-venv"),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("sdk/requirements.txt"),
    )
}
