//! The one walk over a corpus folder: every `*.json` file below it, sorted.
//!
//! It depends on nothing but `std`, so that the places that cannot depend on the harness crate
//! include this very file (`#[path]`) instead of walking again: the harness's build script
//! (which embeds the corpus), the benchmarks' corpus loader, and the core's integration tests
//! (the core never depends on the harness). Everything else calls
//! `flatjoin_harness::corpus::walk::json_files`.

use std::path::{Path, PathBuf};

/// Every `*.json` file below `dir` (at any depth), sorted by path. Folders named in `skip` are
/// not entered, at any depth; a missing or unreadable folder contributes nothing.
pub fn json_files(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path
                    .file_name()
                    .is_some_and(|n| skip.iter().any(|s| n == *s))
                {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
