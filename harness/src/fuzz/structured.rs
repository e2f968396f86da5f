//! `join_structured`: an `Arbitrary` case of the harness's model → render → flatten → every oracle
//! of the harness ([`crate::oracle::check_case`]). Cases without a collision are
//! rejected from the corpus: collisions are what the join is about.

use std::collections::HashSet;

use crate::model::{Case, Shape};
use crate::oracle::{self, Outcome};
use crate::render::render;
use arbitrary::{Arbitrary, Unstructured};
use flatjoin::{OpenBranches, Options, Scope};

use crate::fuzz::presentation::options;
use crate::fuzz::verdict::{CheckResult, Verdict};

/// How many seeds [`seeds`] writes.
const SEED_COUNT: usize = 64;

/// Decodes a `join_structured` input the way the fuzz target does: one `bool` (permissive reading
/// of open branches, SPEC §2.8), then the [`Case`] from the rest of the bytes, through `arbitrary`.
pub fn structured_input(data: &[u8]) -> Option<(Case, Options)> {
    let mut input = Unstructured::new(data);
    let permissive = bool::arbitrary(&mut input).ok()?;
    let case = Case::arbitrary_take_rest(input).ok()?;
    let reading = if permissive {
        OpenBranches::Permissive
    } else {
        OpenBranches::Declared
    };
    Some((case, options(Scope::All, reading)))
}

/// The `join_structured` check on raw fuzzer bytes: [`structured_input`], then [`check_structured`].
pub fn check_structured_bytes(data: &[u8]) -> CheckResult {
    let Some((case, options)) = structured_input(data) else {
        return Ok(Verdict::Uninteresting);
    };
    check_structured(&case, &options)
}

/// Runs every oracle of the harness on `case` (normalised by the harness first). A case with no
/// collision, or on which every oracle was skipped, is [`Verdict::Uninteresting`].
pub fn check_structured(case: &Case, options: &Options) -> CheckResult {
    if !has_collision(&case.normalized()) {
        return Ok(Verdict::Uninteresting);
    }
    match oracle::check_case(case, options) {
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
