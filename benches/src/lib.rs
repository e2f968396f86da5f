//! flatjoin-benches: what the flat presentation join costs, measured against baselines in the
//! same run, and the generator of the published report `reports/join-cost.md`.
//!
//! - [`shape`]: the one parameterized builder of synthetic discriminated unions.
//! - [`cases`]: which shapes are measured (slices around a base shape) and which operations.
//! - [`corpus`]: the real inputs under `corpus/`, one case per file.
//! - [`sweep`]: the shape sweep, held-out union shapes for the whole-process comparison.
//! - [`naive`]: a deliberately quadratic join, to show what the design avoids.
//! - [`alloc`]: the counting global allocator behind the memory figures.
//! - [`run`]: the run record (machine, toolchain, commit, memory) written beside criterion's output.
//! - [`report`]: reads criterion's estimates and the run record, writes the Markdown and SVG plots.
//!
//! The benchmark itself is `benches/join.rs` (`cargo bench -p flatjoin-benches --bench join`);
//! the report is `cargo run --release -p flatjoin-benches --bin join-report`.

pub mod alloc;
pub mod cases;
pub mod corpus;
pub mod naive;
pub mod report;
pub mod run;
pub mod shape;
pub mod sweep;

use std::path::PathBuf;

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
