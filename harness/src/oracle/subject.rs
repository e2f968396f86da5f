//! The [`Subject`]: one input flattened once and its judges compiled once, and the oracle sets
//! it runs.

#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use flatjoin::{Flattened, Options};
use serde_json::Value;

use super::one_flatten::presentation_validity_of;
use super::reading::{RootUnion, discriminated_root};
use super::{Boon, Judged, Oracle, Outcome, Present, Sweep, Violation, judge, violation};
use crate::sample::{self, Reading};

/// One input prepared for every oracle: flattened once, validators compiled once.
pub struct Subject {
    /// The original schema.
    pub original: Value,
    /// The options.
    pub options: Options,
    /// What `flatten` returned (for an implementation behind the protocol: its presentation,
    /// with empty diagnostics).
    pub flattened: Flattened,
    /// The flattener's diagnostics in the CLI's `--diagnostics` form (`Diagnostics::to_json`):
    /// the core's own in process; an implementation's when its run response carries them (SPEC
    /// §6 decision 75), else `None`.
    pub diagnostics: Option<Value>,
    pub(super) original_judge: jsonschema::Validator,
    pub(super) presentation_judge: jsonschema::Validator,
    pub(super) second: Option<Boon>,
    pub(super) samples: Vec<sample::BranchSamples>,
    pub(super) du: Option<RootUnion>,
    pub(super) mixes: Vec<Value>,
}

impl Subject {
    /// Flattens `original` with `options` and compiles the judges. A flatten error or a
    /// presentation the judge cannot compile is a violation (a valid schema must flatten into a
    /// valid schema); an original the judge cannot compile is not the join's fault and is
    /// reported as a `Skipped` outcome by [`Subject::prepare`].
    pub fn new(original: &Value, options: &Options) -> Result<Subject, Violation> {
        match Subject::prepare(original, options) {
            Ok(Ok(s)) => Ok(s),
            Ok(Err(reason)) => Err(violation(
                Oracle::FlattenAccepts,
                format!("the original is not judgeable: {reason}"),
                original,
                options,
            )),
            Err(v) => Err(v),
        }
    }

    /// Like [`Subject::new`], with an original the judge rejects as `Ok(Err(reason))`.
    pub fn prepare(
        original: &Value,
        options: &Options,
    ) -> Result<Result<Subject, String>, Violation> {
        let original_judge = match judgeable(original) {
            Ok(j) => j,
            Err(why) => return Ok(Err(why)),
        };
        let flattened = flatjoin::flatten(original, options).map_err(|e| {
            violation(
                Oracle::FlattenAccepts,
                format!("flatten failed on a schema the validator compiles: {e}"),
                original,
                options,
            )
        })?;
        let diagnostics = Some(flattened.diagnostics.to_json());
        Subject::assemble(original, options, original_judge, flattened, diagnostics)
    }

    /// Like [`Subject::prepare`] for a presentation some other implementation produced (the
    /// implementation protocol), with the diagnostics its answer carried, if any (SPEC §6
    /// decision 75).
    pub fn presented(
        original: &Value,
        options: &Options,
        presentation: Value,
        diagnostics: Option<Value>,
    ) -> Result<Result<Subject, String>, Violation> {
        let original_judge = match judgeable(original) {
            Ok(j) => j,
            Err(why) => return Ok(Err(why)),
        };
        let flattened = Flattened {
            schema: presentation,
            diagnostics: flatjoin::Diagnostics::default(),
        };
        Subject::assemble(original, options, original_judge, flattened, diagnostics)
    }

    /// The rest of [`Subject::prepare`]: presentation validity, then the judges.
    fn assemble(
        original: &Value,
        options: &Options,
        original_judge: jsonschema::Validator,
        flattened: Flattened,
        diagnostics: Option<Value>,
    ) -> Result<Result<Subject, String>, Violation> {
        let second = Boon::new(original);
        // The meta-schema binds the presentation only when the original passes it: a schema
        // that names a meta-schema nobody can load (`{"$schema": ""}`) compiles but is not a
        // valid schema of a known draft, and its presentation, which keeps `$schema`, cannot be
        // either (corpus/regressions/flatten_bytes-81a698f2.json). The original is judged only
        // when the presentation fails, off the common path.
        let validity =
            presentation_validity_of(&flattened.schema, true, second.is_some()).or_else(|why| {
                if jsonschema::meta::validate(original).is_ok() {
                    Err(why)
                } else {
                    presentation_validity_of(&flattened.schema, false, second.is_some())
                }
            });
        if let Err(why) = validity {
            return Err(violation(
                Oracle::PresentationValidity,
                format!("{why}; presentation: {}", flattened.schema),
                original,
                options,
            ));
        }
        let presentation_judge = judge(&flattened.schema).map_err(|e| {
            violation(
                Oracle::FlattenAccepts,
                format!(
                    "the presentation is not a valid schema ({e}): {}",
                    flattened.schema
                ),
                original,
                options,
            )
        })?;
        let reading = Reading::from(options.open_branches);
        Ok(Ok(Subject {
            original: original.clone(),
            options: options.clone(),
            samples: sample::branch_samples(original, reading),
            du: discriminated_root(original),
            mixes: Vec::new(),
            second,
            flattened,
            diagnostics,
            original_judge,
            presentation_judge,
        }))
    }

    /// Adds hand-written values: `values` join the sampled ones (judged by the original first);
    /// `mixes` (one branch's fields under another branch's discriminator) go to the runtime
    /// boundary oracle.
    pub fn with_instances(mut self, values: Vec<Value>, mixes: Vec<Value>) -> Subject {
        if !values.is_empty() {
            self.samples.push(sample::BranchSamples {
                branch: usize::MAX,
                schema: Value::Bool(true),
                values,
            });
        }
        self.mixes = mixes;
        self
    }

    /// Whether the root union was flattened: as the diagnostics say, or, without diagnostics,
    /// when the harness's own reading finds a discriminated union there
    /// ([`discriminated_root`]) and the presentation's root holds no `oneOf`/`anyOf`.
    pub(super) fn root_flattened(&self) -> bool {
        match &self.diagnostics {
            Some(d) => d["flattened"]
                .as_array()
                .is_some_and(|sites| sites.iter().any(|s| s["pointer"] == "")),
            None => {
                self.du.is_some()
                    && self.flattened.schema.get("oneOf").is_none()
                    && self.flattened.schema.get("anyOf").is_none()
            }
        }
    }

    /// A violation of `oracle` on this subject's original and options.
    pub(super) fn violation(&self, oracle: Oracle, message: String) -> Violation {
        violation(oracle, message, &self.original, &self.options)
    }
}

impl Subject {
    /// The widening measure: of values drawn from the presentation that it accepts, the share the
    /// original rejects (`None` when no value was drawn). Reported, never asserted.
    pub fn widening(&self) -> Option<f64> {
        let values = sample::samples(&self.flattened.schema, Reading::Declared);
        let accepted: Vec<&Value> = values
            .iter()
            .filter(|v| self.presentation_judge.is_valid(v))
            .collect();
        if accepted.is_empty() {
            return None;
        }
        let rejected = accepted
            .iter()
            .filter(|v| !self.original_judge.is_valid(v))
            .count();
        #[allow(clippy::cast_precision_loss, reason = "counts are small")]
        Some(rejected as f64 / accepted.len() as f64)
    }

    /// Whether the presentation accepts `value` (for corpus expectations).
    pub fn presentation_accepts(&self, value: &Value) -> bool {
        self.presentation_judge.is_valid(value)
    }

    /// Whether the original accepts `value` (for corpus expectations).
    pub fn original_accepts(&self, value: &Value) -> bool {
        self.original_judge.is_valid(value)
    }

    /// What an input whose original the judge cannot compile gets ([`Subject::prepare`]'s
    /// `Ok(Err(reason))`): flatten-accepts and every schema-level oracle of `sweep`, skipped
    /// with the reason — as an implementation's answer to such an input is tallied (SPEC §6
    /// decision 75).
    pub fn unjudgeable(reason: &str, sweep: Sweep) -> Vec<(Oracle, Outcome)> {
        std::iter::once(Oracle::FlattenAccepts)
            .chain(
                // The schema-level oracles lead `Oracle::ALL`, up to the model-level ones
                // (the test below holds them to `Subject::outcomes`).
                Oracle::ALL
                    .into_iter()
                    .take_while(|o| *o != Oracle::BranchOrder)
                    .filter(|o| sweep == Sweep::Full || !FULL_ONLY.contains(o)),
            )
            .map(|o| (o, Outcome::Skipped(reason.to_owned().into())))
            .collect()
    }

    /// Every schema-level oracle, in [`Oracle::ALL`] order.
    pub fn all(&self) -> Vec<(Oracle, Outcome)> {
        self.outcomes(Sweep::Full)
    }

    /// The schema-level oracles of `sweep`, in [`Oracle::ALL`] order.
    pub fn outcomes(&self, sweep: Sweep) -> Vec<(Oracle, Outcome)> {
        let run = |r: Judged| r.unwrap_or_else(|v| Outcome::Failed(Box::new(v)));
        let mut out = vec![
            (Oracle::Soundness, run(self.soundness())),
            (
                Oracle::PresentationValidity,
                run(self.presentation_validity()),
            ),
            (Oracle::StaticSoundness, run(self.static_soundness())),
            (Oracle::ObjectGuarantee, run(self.object_guarantee())),
            (Oracle::Coverage, run(self.coverage())),
            (Oracle::StructureRetained, run(self.structure_retained())),
            (Oracle::Dedup, run(self.dedup())),
        ];
        if sweep == Sweep::Full {
            out.push((Oracle::Determinism, run(self.determinism())));
            out.push((Oracle::OneImplementation, run(self.one_implementation())));
            out.push((
                Oracle::Idempotence,
                run(self.idempotence_with(&super::core_present)),
            ));
        }
        out.push((Oracle::NoBlowUp, run(self.no_blow_up())));
        out.push((Oracle::RuntimeBoundary, run(self.runtime_boundary())));
        out
    }

    /// The schema-level oracles of [`Oracle::IMPLEMENTATION`] on a presentation some
    /// implementation gave ([`Subject::presented`]); `present` asks it again (determinism,
    /// idempotence). The model-level invariances are the caller's
    /// (`branch_order_invariance_with` and its siblings).
    pub fn implementation_outcomes(&self, present: Present<'_>) -> Vec<(Oracle, Outcome)> {
        let run = |r: Judged| r.unwrap_or_else(|v| Outcome::Failed(Box::new(v)));
        vec![
            (Oracle::Soundness, run(self.soundness())),
            (
                Oracle::PresentationValidity,
                run(self.presentation_validity()),
            ),
            (Oracle::StaticSoundness, run(self.static_soundness())),
            (Oracle::ObjectGuarantee, run(self.object_guarantee())),
            (Oracle::Coverage, run(self.coverage())),
            (Oracle::StructureRetained, run(self.structure_retained())),
            (Oracle::Dedup, run(self.dedup_of_presentation())),
            (Oracle::Determinism, run(self.determinism_with(present))),
            (Oracle::Idempotence, run(self.idempotence_with(present))),
            (Oracle::NoBlowUp, run(self.no_blow_up())),
        ]
    }
}

/// The oracles [`Sweep::Full`] adds.
const FULL_ONLY: [Oracle; 3] = [
    Oracle::Determinism,
    Oracle::OneImplementation,
    Oracle::Idempotence,
];

/// The judge of an original the oracles can judge, or why not: `jsonschema` cannot compile it,
/// or two different schema resources share one URI, so that what a reference means is
/// undefined (SPEC §6 decision 67).
fn judgeable(original: &Value) -> Result<jsonschema::Validator, String> {
    let judge =
        judge(original).map_err(|e| format!("jsonschema cannot compile the original: {e}"))?;
    match crate::refs::shared_resource_uri(original) {
        Some(uri) => Err(format!(
            "two different schema resources declare {uri}: which one a reference means is undefined"
        )),
        None => Ok(judge),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// An unjudgeable input is tallied under exactly the oracles a judgeable one is.
    #[test]
    fn an_unjudgeable_input_skips_the_oracles_a_judgeable_one_runs() {
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]});
        let subject = Subject::new(&schema, &Options::default()).expect("judgeable");
        for sweep in [Sweep::Full, Sweep::OneFlatten] {
            let judged: Vec<Oracle> = subject
                .outcomes(sweep)
                .into_iter()
                .map(|(o, _)| o)
                .collect();
            let skipped: Vec<Oracle> = Subject::unjudgeable("why", sweep)
                .into_iter()
                .map(|(o, outcome)| {
                    assert!(matches!(outcome, Outcome::Skipped(_)), "{o:?}");
                    o
                })
                .collect();
            assert_eq!(skipped[0], Oracle::FlattenAccepts);
            assert_eq!(skipped[1..], judged[..], "{sweep:?}");
        }
    }
}
