//! `floor`: the whole-process floor any `flatjoin flatten` must pay — read a file, parse it with the
//! same order-preserving `serde_json`, deep-clone it (a join that builds a new document touches
//! every node once more) and pretty-print it to stdout. `whole-process` runs it beside the
//! `flatjoin` binary on the same inputs and reports the ratio of the two.
//!
//! Usage: `floor FILE`.

use std::io::Write;
use std::process::ExitCode;

use serde_json::Value;

/// The allocator the `flatjoin` binary uses (`cli/src/main.rs`): the floor is the same program
/// minus the join, so the ratio measures the join, not a difference of allocators.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: floor FILE");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("floor: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(e) => {
            eprintln!("floor: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let copy = std::hint::black_box(value.clone());
    let Ok(text) = serde_json::to_string_pretty(&copy) else {
        return ExitCode::from(2);
    };
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
