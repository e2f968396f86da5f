//! `open_world`: the fuzzer's bytes seed the harness's open-world grammar
//! ([`crate::open_world::case_from_bytes`]: the bytes seed proptest's RNG), and the generated
//! document runs through every schema-level harness oracle ([`crate::open_world::evaluate`]).

use crate::fuzz::verdict::{CheckResult, Verdict};

/// How many seeds [`seeds`] writes.
const SEED_COUNT: usize = 32;

/// The `open_world` check on raw fuzzer bytes. A case on which no oracle ran is
/// [`Verdict::Uninteresting`].
pub fn check_open_world_bytes(data: &[u8]) -> CheckResult {
    match crate::open_world::check_bytes(data) {
        Ok(true) => Ok(Verdict::Checked),
        Ok(false) => Ok(Verdict::Uninteresting),
        Err(violation) => Err(violation),
    }
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
