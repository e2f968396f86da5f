//! A shrunk counterexample written as a corpus case under the counterexamples folder (never the
//! corpus: SPEC §6 decision 65), named after its oracle (and the injected fault) and a hash of
//! its text.

use std::path::{Path, PathBuf};

use super::{CheckConfig, fault_name};
use crate::corpus;
use crate::draw::short_hash;
use crate::oracle::Violation;

/// Writes a shrunk counterexample under the configured counterexamples folder (when there is
/// one; an injected fault's under its `faults/`), logging `heading`, then where it was written
/// or why it could not be.
pub(super) fn save_shrunk(
    config: &CheckConfig,
    shrunk: &Violation,
    found_by: &str,
    heading: &str,
    log: &mut dyn FnMut(&str),
) -> Option<PathBuf> {
    let fault = fault_name(&config.base);
    let written = config.counterexamples.as_ref().and_then(|dir| {
        let dir = if fault.is_some() {
            dir.join("faults")
        } else {
            dir.clone()
        };
        match write_regression(&dir, shrunk, found_by, fault) {
            Ok(p) => Some(p),
            Err(e) => {
                log(&format!("cannot write the regression: {e}"));
                None
            }
        }
    });
    log(heading);
    if let Some(p) = &written {
        log(&format!(
            "counterexample written to {} (not replayed: to keep it as a regression, move it under corpus/regressions/ with a name saying what it guards)",
            p.display()
        ));
    }
    written
}

/// Writes a violation as a corpus case under `dir`, named after its oracle (and fault).
fn write_regression(
    dir: &Path,
    v: &Violation,
    found_by: &str,
    fault: Option<&str>,
) -> Result<PathBuf, String> {
    let case = corpus::regression_case(v, found_by);
    let text = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())?;
    let name = match fault {
        Some(f) => format!("fault-{f}-{}-{}.json", v.oracle, short_hash(&text)),
        None => format!("{}-{}.json", v.oracle, short_hash(&text)),
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
