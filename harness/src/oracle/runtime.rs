//! The runtime boundary: `flatjoin::Runtime` against plain validation of the original, and
//! wrong-branch mixes rejected with an error that names the selected branch.

#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use flatjoin::Runtime;
use serde_json::{Map, Value};

use super::reading::RootUnion;
use super::{Judged, Oracle, Subject, Violation, passed};
use crate::identity::{canonical_data, sorted_text};

/// How many sampled values per branch are turned into wrong-branch mixes.
const MIXED_PER_BRANCH: usize = 6;

impl Subject {
    /// Runtime boundary: the runtime's verdict equals plain validation of the original on every
    /// sampled value; a value mixing one branch's fields with another branch's discriminator that
    /// the presentation accepts and the original rejects is rejected by the runtime, whose error
    /// names the selected branch.
    pub fn runtime_boundary(&self) -> Judged {
        // The judge asserts formats, so the runtime is asked to as well (its default follows the
        // draft; the suite corpus checks that default against plain validation).
        let asserting = flatjoin::RuntimeOptions {
            assert_formats: true,
            ..flatjoin::RuntimeOptions::default()
        };
        let runtime = Runtime::with_options(&self.original, &asserting).map_err(|e| {
            self.violation(Oracle::RuntimeBoundary, format!("Runtime::new failed: {e}"))
        })?;
        let mut checked = self.runtime_verdicts(&runtime)?;
        let Some(du) = &self.du else {
            return Ok(passed(checked));
        };
        checked += self.sampled_mixes(&runtime, du)?;
        checked += self.hand_written_mixes(&runtime, du)?;
        Ok(passed(checked))
    }

    /// A runtime-boundary violation exhibited by `data`.
    fn boundary_violation(&self, message: String, data: Value) -> Violation {
        self.violation(Oracle::RuntimeBoundary, message)
            .with_data(&data)
    }

    /// The runtime's verdict equals plain validation of the original on every sampled value;
    /// how many values were checked.
    fn runtime_verdicts(&self, runtime: &Runtime) -> Result<usize, Violation> {
        let mut checked = 0;
        for value in self.samples.iter().flat_map(|b| &b.values) {
            checked += 1;
            if runtime.is_valid(value) != self.original_judge.is_valid(value) {
                return Err(self.boundary_violation(
                    "the runtime's verdict differs from plain validation of the original".into(),
                    value.clone(),
                ));
            }
        }
        Ok(checked)
    }

    /// Each of the first sampled values of a branch, given every other branch's discriminator:
    /// the runtime agrees with plain validation, and a mix the presentation accepts and the
    /// original rejects is rejected naming the selected branch. How many mixes were checked.
    fn sampled_mixes(&self, runtime: &Runtime, du: &RootUnion) -> Result<usize, Violation> {
        let mut checked = 0;
        for branch in &self.samples {
            for value in branch.values.iter().take(MIXED_PER_BRANCH) {
                let Some(obj) = value.as_object() else {
                    continue;
                };
                if !obj.contains_key(&du.tag) {
                    continue;
                }
                for (j, literals) in du.literals.iter().enumerate() {
                    if j == branch.branch {
                        continue;
                    }
                    let Some(literal) = literals.first() else {
                        continue;
                    };
                    checked += 1;
                    self.sampled_mix(runtime, du, obj, literal)?;
                }
            }
        }
        Ok(checked)
    }

    /// One wrong-branch mix: `obj` with the discriminator set to `literal`.
    fn sampled_mix(
        &self,
        runtime: &Runtime,
        du: &RootUnion,
        obj: &Map<String, Value>,
        literal: &Value,
    ) -> Result<(), Violation> {
        let mut mixed = obj.clone();
        mixed.insert(du.tag.clone(), literal.clone());
        let mixed = Value::Object(mixed);
        let original_ok = self.original_judge.is_valid(&mixed);
        if runtime.is_valid(&mixed) != original_ok {
            return Err(self.boundary_violation(
                "the runtime's verdict on a wrong-branch mix differs from plain validation".into(),
                mixed,
            ));
        }
        if original_ok || !self.presentation_judge.is_valid(&mixed) {
            return Ok(());
        }
        match runtime.validate(&mixed) {
            Ok(()) => {
                Err(self.boundary_violation("the runtime accepts a wrong-branch mix".into(), mixed))
            }
            Err(errors) => {
                let text = errors.to_string();
                let named = errors
                    .branch
                    .as_deref()
                    .is_some_and(|b| names_branch(b, &du.tag, literal))
                    && names_branch(&text, &du.tag, literal);
                if named {
                    return Ok(());
                }
                Err(self.boundary_violation(
                    format!(
                        "the runtime's error does not name the selected branch {} {literal}: {text}",
                        du.tag
                    ),
                    mixed,
                ))
            }
        }
    }

    /// The hand-written mixes ([`Subject::with_instances`]): the runtime agrees with plain
    /// validation, and one the presentation accepts and the original rejects is rejected naming
    /// the selected branch. How many were checked.
    fn hand_written_mixes(&self, runtime: &Runtime, du: &RootUnion) -> Result<usize, Violation> {
        let mut checked = 0;
        for mixed in &self.mixes {
            let Some(literal) = mixed.get(&du.tag) else {
                continue;
            };
            checked += 1;
            let original_ok = self.original_judge.is_valid(mixed);
            if runtime.is_valid(mixed) != original_ok {
                return Err(self.boundary_violation(
                    "the runtime's verdict on a hand-written mix differs from plain validation"
                        .into(),
                    mixed.clone(),
                ));
            }
            if original_ok || !self.presentation_judge.is_valid(mixed) {
                continue;
            }
            let named = runtime.validate(mixed).err().is_some_and(|e| {
                e.branch
                    .as_deref()
                    .is_some_and(|b| names_branch(b, &du.tag, literal))
            });
            if !named {
                return Err(self.boundary_violation(
                    format!(
                        "the runtime's error on a hand-written mix does not name the selected branch {} {literal}",
                        du.tag
                    ),
                    mixed.clone(),
                ));
            }
        }
        Ok(checked)
    }
}

/// Whether an error text names the branch `tag = literal` (numbers by value: `1.0` may be
/// written `1`).
fn names_branch(text: &str, tag: &str, literal: &Value) -> bool {
    let canonical = sorted_text(&canonical_data(literal));
    text.contains(tag) && (text.contains(&literal.to_string()) || text.contains(&canonical))
}
