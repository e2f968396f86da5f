//! The one walk over a corpus folder: every `*.json` file below it, sorted (`walkdir`).
//!
//! It depends on nothing but `std` and `walkdir`, so that the places that cannot depend on the
//! harness crate include this very file (`#[path]`) instead of walking again: the harness's build
//! script (which embeds the corpus), the benchmarks' corpus loader, and the core's integration
//! tests (the core never depends on the harness). Everything else calls
//! `flatjoin_harness::corpus::walk::json_files`.

use std::path::{Path, PathBuf};

/// Every `*.json` file below `dir` (at any depth, following symbolic links), sorted by path.
/// Folders named in `skip` are not entered, at any depth below `dir`; a missing or unreadable
/// folder contributes nothing.
pub fn json_files(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !e.file_type().is_dir() || !skip.iter().any(|s| e.file_name() == *s)
        })
        .flatten()
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
        .map(walkdir::DirEntry::into_path)
        .collect();
    out.sort();
    out
}
