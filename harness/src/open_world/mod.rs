//! The open-world generator: proptest strategies that build arbitrary JSON Schema documents
//! around a discriminated union, from a grammar over the applicators and assertions of draft
//! 2020-12, instead of the typed model of [`crate::model`]; each document is then spelled in one
//! of the five drafts ([`crate::drafts`]: 2020-12, 2019-09, draft-07, draft-06, draft-04).
//!
//! What the grammar reaches that the typed model does not: boolean schemas (also under `allOf`,
//! `[false]`, `[true, false]`, `[{}, false]`, contradictory members), `allOf`/`anyOf`/`oneOf`/`not`,
//! `if`/`then`/`else`, `patternProperties`, `propertyNames`, `dependentSchemas`/
//! `dependentRequired` (draft-07: `dependencies`), `unevaluatedProperties`/`unevaluatedItems`
//! beside applicators (also inside a branch's `allOf`), `prefixItems`, `contains`, `format`,
//! author `$defs` named like the join's own hoisted definitions (`flatjoin_ref_N`), `$ref` into
//! `$defs` and into the branches of the union, embedded resources (a subschema with its own `$id`
//! whose `#/...` references resolve against it) and `$anchor` references.
//!
//! Unions are placed where they live: at the root, as a property's payload, as array `items`,
//! behind a nullable `anyOf`, nested as the payload of another union's property, and with sibling
//! keywords (`properties`, `required`, `unevaluatedProperties`) beside the `oneOf`/`anyOf`.
//!
//! Values: for each branch, objects built from boundary candidates per keyword (every `const` and
//! `enum` value, lengths and numbers at and around their bounds, format examples, pattern
//! examples, arrays at their item bounds, optional properties present and absent, keys matching
//! `patternProperties`, an undeclared key), greedily completed so that the original accepts them
//! with the discriminator selecting that branch; only keys that branch declares, or that no
//! branch declares, are used, so every value is in the set SPEC §4 promises under both readings.
//! The oracles judge them (and the harness sampler's own values) with `jsonschema`.
//!
//! The module is in three parts: `grammar` (the strategies, and [`case`]), `rewrites` (what
//! turns a drawn tree into a document: branch definitions hoisted, references into branches,
//! embedded resources) and `values` (the branch values, [`values()`]); here, the case type and
//! the judging of a case.

use proptest::strategy::ValueTree;
use serde_json::Value;

use flatjoin::Options;

use crate::oracle::{self, Oracle, Outcome, Subject, Sweep, Violation};

pub use crate::drafts::Draft;

mod grammar;
mod rewrites;
mod values;

pub use grammar::{case, subschema};
pub use values::values;

/// Where the union sits in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The document root is the union.
    Root,
    /// `properties.payload` is the union.
    Property,
    /// `properties.list.items` is the union.
    Items,
    /// `properties.payload` is `anyOf: [union, {type: null}]`.
    Nullable,
    /// `properties.payload` and `properties.echo` are the same union, written twice (a model
    /// with the same union in two fields, as Pydantic writes it: the join shares it, and the
    /// second site, standing where it is written, refers to the shared join at once, SPEC §6
    /// decisions 73 and 86); each value carries its object in both.
    Shared,
}

/// One generated document: the original schema and what the generator knows about its union.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenCase {
    /// The original schema.
    pub schema: Value,
    /// Its draft.
    pub draft: Draft,
    /// Where the union sits.
    pub placement: Placement,
    /// The discriminator's name.
    pub tag: String,
    /// Each branch's discriminator literal.
    pub literals: Vec<Value>,
}

/// The most generated values per branch.
pub const VALUES_PER_BRANCH: usize = 24;

/// Every schema-level oracle on one open-world case under `options`: the original is judged by
/// `jsonschema` first (an original it cannot compile is skipped, not the join's fault), the
/// branch values of [`values`] join the harness sampler's, and [`Subject::all`] runs (soundness,
/// presentation validity, static soundness, determinism, …). A flatten error or an invalid
/// presentation is a violation.
pub fn evaluate(case: &OpenCase, options: &Options) -> Vec<(Oracle, Outcome)> {
    evaluate_with(case, options, Sweep::Full)
}

/// [`evaluate`] with the oracles of `sweep` only.
pub fn evaluate_with(case: &OpenCase, options: &Options, sweep: Sweep) -> Vec<(Oracle, Outcome)> {
    let judge = match oracle::judge(&case.schema) {
        Ok(j) => j,
        Err(e) => {
            let why = format!("jsonschema cannot compile the original: {e}");
            return Subject::unjudgeable(&why, sweep);
        }
    };
    let values = values(case, &judge, VALUES_PER_BRANCH);
    match Subject::prepare(&case.schema, options) {
        Ok(Ok(subject)) => subject.with_instances(values, Vec::new()).outcomes(sweep),
        Ok(Err(reason)) => Subject::unjudgeable(&reason, sweep),
        Err(v) => vec![(v.oracle, Outcome::Failed(Box::new(v)))],
    }
}

/// The first violation among `outcomes`.
pub fn first_violation(outcomes: &[(Oracle, Outcome)]) -> Option<Violation> {
    outcomes.iter().find_map(|(_, o)| match o {
        Outcome::Failed(v) => Some((**v).clone()),
        _ => None,
    })
}

/// Shrinks a failing case with the harness's one walk ([`crate::draw::shrink_with`]), keeping
/// the last case on which a violation still satisfies `same` (the same oracle, and whatever else
/// the caller pins).
pub fn shrink(
    tree: &mut dyn ValueTree<Value = OpenCase>,
    first: Violation,
    options: &Options,
    max_steps: u32,
    same: &dyn Fn(&Violation) -> bool,
) -> (OpenCase, Violation) {
    crate::draw::shrink_with(tree, first, max_steps, &|case: &OpenCase| {
        evaluate(case, options)
            .into_iter()
            .find_map(|(_, o)| match o {
                Outcome::Failed(v) if same(&v) => Some(*v),
                _ => None,
            })
    })
}
