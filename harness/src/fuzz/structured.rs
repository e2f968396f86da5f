//! `join_structured`: an `Arbitrary` case of the harness's model → render → flatten → the oracles
//! of the harness ([`crate::oracle::check_case`]). Cases without a collision are
//! rejected from the corpus: collisions are what the join is about.
//!
//! Throughput is what makes a structured target explore, so an input is bounded
//! (`MAX_INPUT_BYTES`) and runs the oracles that judge its one flatten; the oracles that
//! flatten it again or re-render it run on a deterministic share of the inputs
//! ([`Sweep::for_input`]: one in [`Sweep::FULL_EVERY`], chosen by a hash of the bytes, so
//! that a saved input replays exactly the oracles the fuzzer ran).

use std::collections::HashSet;

use crate::model::{Case, Shape};
use crate::oracle::{self, Outcome, Sweep};
use crate::render::render;
use arbitrary::{Arbitrary, Unstructured};
use flatjoin::{OpenBranches, Options, Scope};

use crate::fuzz::presentation::options;
use crate::fuzz::verdict::{TargetResult, Verdict};

/// How many seeds [`seeds`] writes.
const SEED_COUNT: usize = 64;

/// The bytes of an input that [`structured_input`] reads; the rest is ignored. The model's own
/// caps (`MAX_BRANCHES`, `MAX_FIELDS`, `MAX_SHAPE_DEPTH`) still allow cases whose oracles take
/// seconds under AddressSanitizer; a kilobyte decodes to a case of up to a few dozen fields,
/// which is where collisions, nesting and every shape of the model already meet.
const MAX_INPUT_BYTES: usize = 1024;

/// Decodes a `join_structured` input the way the fuzz target does: one `bool` (permissive reading
/// of open branches, SPEC §2.8), then the [`Case`] from the rest of the first
/// [`MAX_INPUT_BYTES`] bytes, through `arbitrary`.
fn structured_input(data: &[u8]) -> Option<(Case, Options)> {
    let mut input = Unstructured::new(&data[..data.len().min(MAX_INPUT_BYTES)]);
    let permissive = bool::arbitrary(&mut input).ok()?;
    let case = Case::arbitrary_take_rest(input).ok()?;
    let reading = if permissive {
        OpenBranches::Permissive
    } else {
        OpenBranches::Declared
    };
    Some((case, options(Scope::All, reading)))
}

/// The `join_structured` check on raw fuzzer bytes: `structured_input`, then
/// `check_structured` with the input's [`Sweep::for_input`].
pub fn check_structured_bytes(data: &[u8]) -> TargetResult {
    let Some((case, options)) = structured_input(data) else {
        return Ok(Verdict::Uninteresting);
    };
    check_structured(&case, &options, Sweep::for_input(data))
}

/// Runs the oracles of `sweep` on `case` (normalised by the harness first). A case with no
/// collision, or on which every oracle was skipped, is [`Verdict::Uninteresting`].
fn check_structured(case: &Case, options: &Options, sweep: Sweep) -> TargetResult {
    if !has_collision(&case.normalized()) {
        return Ok(Verdict::Uninteresting);
    }
    match oracle::check_case(case, options, sweep) {
        Ok(report)
            if report
                .outcomes
                .iter()
                .all(|(_, o)| matches!(o, Outcome::Skipped(_))) =>
        {
            Ok(Verdict::Uninteresting)
        }
        Ok(_) => Ok(Verdict::Checked),
        Err(violation) => Err(Box::new(violation)),
    }
}

/// The rendered original of a structured input, for a regression file a person reads.
pub fn rendered(data: &[u8]) -> Option<serde_json::Value> {
    structured_input(data).map(|(case, _)| render(&case.normalized()))
}

/// Whether two branches of the root union share a property name, or some field holds a nested
/// union: the cases where the join has something to do beyond merging disjoint fields.
fn has_collision(case: &Case) -> bool {
    let mut seen = HashSet::new();
    for branch in &case.root.branches {
        let names: HashSet<&str> = branch.fields.iter().map(|f| f.name.as_str()).collect();
        if names.iter().any(|name| seen.contains(name)) {
            return true;
        }
        seen.extend(names);
    }
    let mut shapes: Vec<&Shape> = case.defs.iter().collect();
    shapes.extend(
        case.root
            .branches
            .iter()
            .flat_map(|b| b.fields.iter().map(|f| &f.shape)),
    );
    shapes.into_iter().any(holds_union)
}

/// Whether `shape` is or contains a nested union.
fn holds_union(shape: &Shape) -> bool {
    match shape {
        Shape::Union(_) => true,
        Shape::Nullable { inner, .. } => holds_union(inner),
        Shape::Array { items, .. } => holds_union(items),
        Shape::Object { fields, .. } => fields.iter().any(|f| holds_union(&f.shape)),
        _ => false,
    }
}

/// Seeds for `join_structured`: byte strings from a fixed pseudo-random sequence whose cases
/// collide, with pairwise different rendered schemas, so that the seeds are reproducible and
/// decode through exactly the target's encoding.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // xorshift64*: enough for varied seed bytes; not a statistical generator.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut seeds = Vec::new();
    let mut schemas = HashSet::new();
    for attempt in 0..SEED_COUNT * 50 {
        if seeds.len() == SEED_COUNT {
            break;
        }
        let length = 32 + usize::try_from(next() % 480).unwrap_or(0);
        let bytes: Vec<u8> = (0..length).map(|_| next().to_le_bytes()[3]).collect();
        let Some((case, _)) = structured_input(&bytes) else {
            continue;
        };
        let case = case.normalized();
        if !has_collision(&case) || !schemas.insert(render(&case).to_string()) {
            continue;
        }
        seeds.push((format!("random-{attempt:04}"), bytes));
    }
    seeds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Oracle;

    #[test]
    fn a_share_of_the_inputs_runs_the_full_sweep() {
        let inputs: Vec<Vec<u8>> = (0u32..4096).map(|i| i.to_le_bytes().to_vec()).collect();
        let full = inputs
            .iter()
            .filter(|d| Sweep::for_input(d) == Sweep::Full)
            .count();
        // One in Sweep::FULL_EVERY = 8 (512 of 4096), within a generous margin for the hash.
        assert!((256..=1024).contains(&full), "{full} of 4096 inputs");
    }

    #[test]
    fn the_one_flatten_sweep_leaves_out_exactly_the_oracles_that_flatten_again() {
        let again = [
            Oracle::Determinism,
            Oracle::OneImplementation,
            Oracle::Idempotence,
            Oracle::BranchOrder,
            Oracle::DuplicateBranch,
            Oracle::Dialect,
            Oracle::DraftForms,
        ];
        let (case, options) = seeds()
            .iter()
            .find_map(|(_, bytes)| structured_input(bytes))
            .expect("a seed decodes");
        let names = |sweep| -> Vec<Oracle> {
            oracle::evaluate_case_with(&case, &options, sweep)
                .outcomes
                .into_iter()
                .map(|(o, _)| o)
                .collect()
        };
        let full = names(Sweep::Full);
        let one = names(Sweep::OneFlatten);
        assert!(again.iter().all(|o| full.contains(o)), "{full:?}");
        let expected: Vec<Oracle> = full.into_iter().filter(|o| !again.contains(o)).collect();
        assert_eq!(one, expected);
        assert!(one.contains(&Oracle::Soundness), "{one:?}");
    }

    #[test]
    fn bytes_past_the_bound_do_not_change_the_case() {
        let (_, bytes) = seeds().into_iter().next().expect("a seed");
        let mut long = bytes.clone();
        long.resize(MAX_INPUT_BYTES, 0x5a);
        let mut longer = long.clone();
        longer.extend(std::iter::repeat_n(0xa5, 4096));
        let decoded = |d: &[u8]| structured_input(d).map(|(c, _)| render(&c.normalized()));
        assert!(decoded(&long).is_some());
        assert_eq!(decoded(&long), decoded(&longer));
    }
}
