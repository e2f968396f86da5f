//! The `open_world` target: the fuzzer's bytes seed the harness's open-world grammar
//! ([`case_from_bytes`]: the bytes seed proptest's RNG), and the generated document runs through
//! every schema-level harness oracle ([`crate::open_world::evaluate_with`]).

use flatjoin::Options;
use proptest::strategy::{Strategy, ValueTree};

use crate::fuzz::verdict::{TargetResult, Verdict};
use crate::open_world::{self, OpenCase};
use crate::oracle::Sweep;

/// How many seeds [`seeds`] writes.
const SEED_COUNT: usize = 32;

/// The case a fuzzer's bytes select: the first byte picks the reading of open branches, the
/// rest seeds the runner ([`crate::draw::bytes_runner`]).
pub fn case_from_bytes(data: &[u8]) -> Option<(OpenCase, Options)> {
    let (&first, rest) = data.split_first()?;
    let tree = open_world::case()
        .new_tree(&mut crate::draw::bytes_runner(rest))
        .ok()?;
    let mut options = Options::default();
    if first & 1 == 1 {
        options.open_branches = flatjoin::OpenBranches::Permissive;
    }
    Some((tree.current(), options))
}

/// The `open_world` check on raw fuzzer bytes: decode with [`case_from_bytes`], run
/// [`open_world::evaluate_with`] the input's [`Sweep::for_input`]. A case on which no oracle
/// passed is [`Verdict::Uninteresting`]; a violation is the error.
pub fn check_open_world_bytes(data: &[u8]) -> TargetResult {
    let Some((case, options)) = case_from_bytes(data) else {
        return Ok(Verdict::Uninteresting);
    };
    let outcomes = open_world::evaluate_with(&case, &options, Sweep::for_input(data));
    if let Some(v) = open_world::first_violation(&outcomes) {
        return Err(Box::new(v));
    }
    let passed = outcomes
        .iter()
        .any(|(_, o)| matches!(o, crate::oracle::Outcome::Passed(_)));
    Ok(if passed {
        Verdict::Checked
    } else {
        Verdict::Uninteresting
    })
}

/// Seeds for `open_world`: byte strings from a fixed pseudo-random sequence (the grammar has no
/// inverse), so that the seeds are reproducible.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut state: u64 = 0x0BE5_3ED0_F1A7_2026;
    let mut next = move || {
        // xorshift64*: enough for varied seed bytes; not a statistical generator.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    (0..SEED_COUNT)
        .map(|i| {
            let length = 64 + usize::try_from(next() % 960).unwrap_or(0);
            let bytes: Vec<u8> = (0..length).map(|_| next().to_le_bytes()[3]).collect();
            (format!("random-{i:04}"), bytes)
        })
        .collect()
}
