//! The fuzz checks: the property checks behind the cargo-fuzz targets in `fuzz/`, callable on
//! stable so that `cargo test` replays every saved crash (`corpus/regressions/`) through exactly
//! the code the fuzzers ran.
//!
//! Each target in `fuzz/fuzz_targets/` is five lines: decode, call one `check_*` function here,
//! panic on the [`Violation`](crate::oracle::Violation) it returns. The checks never unwrap a result of the core: an error
//! from the core is an answer; a panic, a hang or a stack overflow is the bug the fuzzer reports.
//!
//! - [`presentation`]: `flatten_bytes`, bytes → flatten under every reading;
//! - [`manifest`]: `manifest_bytes`, bytes → the manifest path, which must agree with `flatten`;
//! - [`runtime`]: `runtime_diff`, a corpus schema plus a value → runtime verdict equals plain
//!   validation, and soundness;
//! - [`structured`]: `join_structured`, the harness's case model through every harness oracle;
//! - [`open_grammar`]: `open_world`, bytes driving the harness's open-world grammar through every
//!   schema-level harness oracle;
//! - [`regression`]: the regression file format and its replay;
//! - [`seeds`] and [`embedded`]: seeds for each target, built from the embedded bundled corpus.

pub mod embedded;
pub mod manifest;
pub mod open_grammar;
pub mod presentation;
pub mod regression;
pub mod runtime;
pub mod seeds;
pub mod structured;
pub mod verdict;

pub use manifest::check_manifest_bytes;
pub use open_grammar::check_open_world_bytes;
pub use presentation::check_flatten_bytes;
pub use regression::{Regression, Target};
pub use runtime::{check_runtime_diff, check_runtime_diff_bytes};
pub use structured::check_structured_bytes;
pub use verdict::{TargetResult, Verdict};
