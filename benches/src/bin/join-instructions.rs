//! `join-instructions`: runs one operation of one synthetic case once, for `callgrind.sh` to count
//! its instructions — a measure that, unlike time, does not move with the load of a shared machine.
//!
//! Usage: `join-instructions CASE-ID OP` (OP: `clone`, `join`, `join_owned` or `drop`) runs it inside
//! [`measured`], the one function `callgrind.sh` collects; `join-instructions --list` prints the
//! ids of the cases of the scaling slices.

use std::hint::black_box;
use std::process::ExitCode;

use flatjoin::Options;
use flatjoin_benches::cases::{self, Op, Profile};
use serde_json::Value;

/// The operation callgrind counts: everything it calls, nothing before or after. The input stays
/// with the caller except for `join_owned` and `drop`, which take it (so no drop of it is counted
/// for the others, as criterion does not time one either).
#[inline(never)]
fn measured(op: Op, input: &mut Option<Value>) -> Option<Result<flatjoin::Flattened, Value>> {
    let options = Options::default();
    match (op, input.as_ref()) {
        (Op::Clone, Some(value)) => Some(Err(black_box(value).clone())),
        (Op::Join, Some(value)) => flatjoin::flatten(black_box(value), &options).ok().map(Ok),
        (Op::Drop, _) => {
            drop(black_box(input.take()));
            None
        }
        _ => flatjoin::flatten_owned(black_box(input.take()?), &options)
            .ok()
            .map(Ok),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for slice in cases::slices(Profile::Full)
            .iter()
            .filter(|s| s.axis.is_scaling())
        {
            for spec in &slice.specs {
                println!("{}", spec.id());
            }
        }
        return ExitCode::SUCCESS;
    }
    let (Some(id), Some(op)) = (args.first(), args.get(1).and_then(|o| Op::from_name(o))) else {
        eprintln!(
            "usage: join-instructions CASE-ID clone|join|join_owned|drop  |  join-instructions --list"
        );
        return ExitCode::from(2);
    };
    let Some(spec) = cases::synthetic_cases(Profile::Full)
        .into_iter()
        .find(|s| &s.id() == id)
    else {
        eprintln!("join-instructions: no synthetic case {id:?}");
        return ExitCode::from(2);
    };
    let mut input = Some(spec.build());
    let output = measured(op, &mut input);
    // Dropping the output is not part of the operation (criterion does not time it either).
    std::mem::forget(black_box((output, input)));
    ExitCode::SUCCESS
}
