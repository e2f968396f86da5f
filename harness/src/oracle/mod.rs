//! The guarantees of SPEC §4, each a named function that judges one input and returns either what
//! it measured or a [`Violation`] describing a counterexample.
//!
//! Every oracle takes `(original schema, options)` (or a model [`Case`](crate::model::Case) for
//! the invariances that need one) and does not depend on proptest, so the fuzz targets call them
//! as they are. Verdicts on values come from the `jsonschema` crate with formats asserted,
//! cross-checked on the original by `boon`; structural comparisons use the harness's own
//! [`crate::identity`]. The core's own validation, identity and identification code is never used
//! to judge the core: the core is only called to produce what is judged (`flatten`,
//! `flatten_manifest`, `Runtime`, `dedup`).
//!
//! For repeated checks of one input, build a [`Subject`] once (it flattens and compiles the
//! validators) and call its methods. The oracles are grouped by what they look at:
//!
//! - `subject`: the [`Subject`] (one input flattened once, judges compiled once) and the
//!   oracle sets it runs ([`Subject::outcomes`], [`Subject::implementation_outcomes`]);
//! - `one_flatten`: the oracles that judge one flatten (soundness, presentation validity,
//!   static soundness, object guarantee, structure, dedup, no blow-up);
//! - `coverage`: the coverage oracle (SPEC §2.9, §4 "Object guarantee"): a root union of objects
//!   is one object, every union site is named, every reason given holds by the harness's own
//!   reading;
//! - `again`: the oracles that flatten again (determinism, one implementation, idempotence);
//! - `runtime`: the runtime boundary;
//! - `whole_case`: the invariances over a whole model case (branch order, duplicate branch,
//!   dialect, draft forms) and [`evaluate_case`];
//! - `reading`: the harness's own reading of SPEC §1 and of the declared reading (§2.8),
//!   independent of the core's; not an oracle, what the oracles ask.

// A violation is the rare path and carries the whole counterexample; boxing it would only make the
// fuzz targets' and tests' matching noisier.
#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use std::fmt;

use flatjoin::Options;
use serde_json::Value;

mod again;
mod coverage;
mod one_flatten;
mod reading;
mod runtime;
mod subject;
mod whole_case;

pub use coverage::{CODES as SKIP_CODES, judge_coverage};
pub use one_flatten::{presentation_validity, presentation_validity_of};
pub use reading::{RootUnion, discriminated_root, restrict_declared};
pub use subject::Subject;
pub use whole_case::{
    CaseReport, FORM_LABELS, UnionTally, branch_order_invariance, branch_order_invariance_with,
    check_case, compare_duplicate, dialect_invariance, dialect_invariance_with, draft_forms,
    duplicate_branch_invariance, duplicate_branch_invariance_with, evaluate_case,
    evaluate_case_with, form_label, merge_no_blow_up, no_blow_up_repeated_with,
};

/// The oracles: one per SPEC §4 guarantee the harness checks, in report order ([`Oracle::ALL`]).
/// Like the core's `Fault`: a closed set with stable kebab-case names (reports, regression file
/// names, `corpus/regressions/` `oracle` fields).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr, strum::EnumIter,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Oracle {
    /// Soundness, dynamic (SPEC I3).
    Soundness,
    /// Every presentation that exits 0 is a valid schema of its draft (meta-schema validation by
    /// `jsonschema`, offline) and `boon` compiles it.
    PresentationValidity,
    /// Soundness, static (`covers`).
    StaticSoundness,
    /// A DU root yields `type: "object"`.
    ObjectGuarantee,
    /// A root union of objects yields one object, every union site is named in the diagnostics,
    /// and every reason given for a site left as it is holds (SPEC §2.9, §4).
    Coverage,
    /// Arrays keep `items`, objects keep their vocabulary (ADR 0205).
    StructureRetained,
    /// Dedup: no identical alternatives, idempotent.
    Dedup,
    /// Same input, byte-identical output.
    Determinism,
    /// `flatten` and `flatten_manifest` agree byte for byte (SPEC I8).
    OneImplementation,
    /// Output size bounded by input size.
    NoBlowUp,
    /// Runtime = original; wrong-branch mixes rejected naming the branch.
    RuntimeBoundary,
    /// Permuting branches changes only orders and annotations.
    #[strum(serialize = "branch-order-invariance")]
    BranchOrder,
    /// A copied branch with a new literal changes only the discriminator enum and hints.
    #[strum(serialize = "duplicate-branch-invariance")]
    DuplicateBranch,
    /// Every dialect form yields the same presentation.
    #[strum(serialize = "dialect-invariance")]
    Dialect,
    /// The case spelled in an older draft (draft-04) is flattened soundly too.
    DraftForms,
    /// A corpus case's own expectations (its `tests` and expected `presentation`).
    CorpusExpectations,
    /// Flatten accepts a valid schema without error.
    FlattenAccepts,
    /// Flattening a presentation that holds no union again changes nothing but annotations
    /// (SPEC §6 decisions 42, 74).
    Idempotence,
}

impl Oracle {
    /// Every oracle, in report order.
    pub const ALL: [Oracle; 18] = [
        Oracle::Soundness,
        Oracle::PresentationValidity,
        Oracle::StaticSoundness,
        Oracle::ObjectGuarantee,
        Oracle::Coverage,
        Oracle::StructureRetained,
        Oracle::Dedup,
        Oracle::Determinism,
        Oracle::OneImplementation,
        Oracle::Idempotence,
        Oracle::NoBlowUp,
        Oracle::RuntimeBoundary,
        Oracle::BranchOrder,
        Oracle::DuplicateBranch,
        Oracle::Dialect,
        Oracle::DraftForms,
        Oracle::CorpusExpectations,
        Oracle::FlattenAccepts,
    ];

    /// The oracles `flatjoin check --implementation` judges an implementation by: every one that
    /// needs only the presentations an implementation returns (not the core's diagnostics,
    /// manifest path, runtime or `dedup`), in report order.
    pub const IMPLEMENTATION: [Oracle; 13] = [
        Oracle::Soundness,
        Oracle::PresentationValidity,
        Oracle::StaticSoundness,
        Oracle::ObjectGuarantee,
        Oracle::Coverage,
        Oracle::StructureRetained,
        Oracle::Dedup,
        Oracle::Determinism,
        Oracle::Idempotence,
        Oracle::NoBlowUp,
        Oracle::BranchOrder,
        Oracle::DuplicateBranch,
        Oracle::Dialect,
    ];

    /// The oracle's stable kebab-case name.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl std::str::FromStr for Oracle {
    type Err = String;

    fn from_str(name: &str) -> Result<Oracle, String> {
        Oracle::ALL
            .into_iter()
            .find(|o| o.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Oracle::ALL.iter().map(|o| o.name()).collect();
                format!("unknown oracle {name:?}; known: {}", names.join(", "))
            })
    }
}

/// A counterexample to one guarantee.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// Which oracle failed.
    pub oracle: Oracle,
    /// What went wrong, in one paragraph.
    pub message: String,
    /// The original schema that exhibits it.
    pub schema: Value,
    /// The options it was flattened with.
    pub options: Options,
    /// The value that exhibits it, for value-level guarantees.
    pub data: Option<Value>,
    /// A second schema the guarantee compares with (a permuted or re-rendered original).
    pub variant: Option<(String, Value)>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.oracle, self.message)?;
        if let Some(data) = &self.data {
            write!(f, "\n  value: {data}")?;
        }
        write!(f, "\n  schema: {}", self.schema)?;
        if let Some((kind, variant)) = &self.variant {
            write!(f, "\n  {kind} variant: {variant}")?;
        }
        write!(f, "\n  options: {}", self.options.to_json())
    }
}

impl std::error::Error for Violation {}

impl Violation {
    /// A violation of `oracle` on `schema` flattened with `options`, described by `message`.
    pub fn new(
        oracle: Oracle,
        message: impl Into<String>,
        schema: &Value,
        options: &Options,
    ) -> Violation {
        Violation {
            oracle,
            message: message.into(),
            schema: schema.clone(),
            options: options.clone(),
            data: None,
            variant: None,
        }
    }

    /// The same violation, exhibited by `data`.
    #[must_use]
    pub fn with_data(mut self, data: &Value) -> Violation {
        self.data = Some(data.clone());
        self
    }
}

/// What an oracle that passed measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measure {
    /// Values (or comparisons) actually checked.
    pub checked: usize,
    /// Values where `boon` and `jsonschema` disagreed on an original with nothing the spec leaves
    /// open to explain it, as `{"original": …, "value": …}` (excluded from the check).
    pub disagreements: Vec<Value>,
    /// Values where they disagreed where the spec leaves the answer open: an original that holds
    /// a reference cycle without progress ([`crate::refs::has_cycle_without_progress`]: undefined),
    /// or draft-04's reading of a float with a zero fraction as an integer (optional in the
    /// Test Suite); excluded from the check.
    pub undefined_disagreements: usize,
    /// Static oracle: `covers` answered yes.
    pub static_yes: usize,
    /// Static oracle: `covers` answered unknown (or could not run).
    pub static_unknown: usize,
}

/// The outcome of one oracle on one input.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The guarantee held.
    Passed(Measure),
    /// No verdict: the guarantee does not apply to this input, or the flattener gave nothing
    /// to judge ([`Skip`]).
    Skipped(Skip),
    /// A counterexample.
    Failed(Box<Violation>),
}

/// Why an oracle gave no verdict on an input. Only [`Skip::NotApplicable`] comes from an
/// oracle; the others are what a flattener behind the protocol answered instead of a
/// presentation (SPEC §6 decision 74), counted apart in its table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// The guarantee does not apply to this input (why).
    NotApplicable(String),
    /// The flattener refused the input (its `errored` message).
    Errored(String),
    /// The flattener declined the input (its `skipped` reason).
    Declined(String),
    /// The flattener's process exited or did not answer in time.
    Crashed(String),
    /// The flattener answered outside the protocol (the line quoted).
    ProtocolError(String),
}

impl Skip {
    /// Every kind, each with its one-letter code in a results file's verdicts.
    pub const CODES: [(char, &'static str); 5] = [
        ('s', "not applicable"),
        ('e', "errored"),
        ('d', "skipped by the implementation"),
        ('c', "crashed"),
        ('x', "protocol error"),
    ];

    /// The reason or message, without its kind.
    pub fn reason(&self) -> &str {
        match self {
            Skip::NotApplicable(r)
            | Skip::Errored(r)
            | Skip::Declined(r)
            | Skip::Crashed(r)
            | Skip::ProtocolError(r) => r,
        }
    }

    /// Its code in a results file's verdicts ([`Skip::CODES`]).
    pub fn code(&self) -> char {
        Skip::CODES[self.index()].0
    }

    fn index(&self) -> usize {
        match self {
            Skip::NotApplicable(_) => 0,
            Skip::Errored(_) => 1,
            Skip::Declined(_) => 2,
            Skip::Crashed(_) => 3,
            Skip::ProtocolError(_) => 4,
        }
    }

    /// The skip of code `code` with `reason` (`None`: not a skip's code).
    pub fn of_code(code: char, reason: String) -> Option<Skip> {
        Some(match code {
            's' => Skip::NotApplicable(reason),
            'e' => Skip::Errored(reason),
            'd' => Skip::Declined(reason),
            'c' => Skip::Crashed(reason),
            'x' => Skip::ProtocolError(reason),
            _ => return None,
        })
    }

    /// Whether the flattener, not the oracle, left the input unjudged.
    pub fn by_flattener(&self) -> bool {
        !matches!(self, Skip::NotApplicable(_))
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::NotApplicable(r) => f.write_str(r),
            other => write!(f, "{}: {}", Skip::CODES[other.index()].1, other.reason()),
        }
    }
}

impl From<String> for Skip {
    fn from(reason: String) -> Skip {
        Skip::NotApplicable(reason)
    }
}

impl From<&str> for Skip {
    fn from(reason: &str) -> Skip {
        Skip::NotApplicable(reason.to_owned())
    }
}

type Judged = Result<Outcome, Violation>;

/// The JSON-Schema judge: `jsonschema` with formats asserted.
pub fn judge(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The second judge on originals: `boon`, formats asserted.
pub struct Boon {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Boon {
    /// Compiles `schema`, or `None` when boon cannot (then there is no second opinion).
    pub fn new(schema: &Value) -> Option<Boon> {
        let mut compiler = boon::Compiler::new();
        compiler.enable_format_assertions();
        compiler.set_default_draft(boon::Draft::V2020_12);
        let url = "http://flatjoin.invalid/original.json";
        compiler.add_resource(url, schema.clone()).ok()?;
        let mut schemas = boon::Schemas::new();
        let index = compiler.compile(url, &mut schemas).ok()?;
        Some(Boon { schemas, index })
    }

    /// boon's verdict.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.schemas.validate(value, self.index).is_ok()
    }
}

/// How much of the oracle set one case runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// Every oracle, and the widening measure: what `flatjoin check` and the corpus run.
    Full,
    /// The oracles that judge one flatten of the case (soundness, validity, static soundness,
    /// object guarantee, structure, dedup, no blow-up, runtime boundary). The oracles that
    /// flatten the case again or re-render it (determinism, one implementation, branch order,
    /// duplicate branch, dialect, draft forms) and the widening measure are left out: they cost more than
    /// the rest together, so the `join_structured` fuzz target runs them on a deterministic
    /// share of its inputs only ([`Sweep::for_input`]).
    OneFlatten,
}

impl Sweep {
    /// One input in this many runs [`Sweep::Full`] in the structured fuzz targets.
    pub const FULL_EVERY: u64 = 8;

    /// The sweep a structured fuzz target (`join_structured`, `open_world`) runs on an input:
    /// [`Sweep::Full`] when the FNV-1a hash of its bytes is a multiple of [`Sweep::FULL_EVERY`],
    /// else [`Sweep::OneFlatten`]. The oracles that flatten again cost more than the rest
    /// together, and a fuzzer explores by executions per second; the choice is a function of the
    /// bytes, so a saved input replays exactly the oracles the fuzzer ran.
    pub fn for_input(data: &[u8]) -> Sweep {
        if crate::draw::fnv1a(data).is_multiple_of(Sweep::FULL_EVERY) {
            Sweep::Full
        } else {
            Sweep::OneFlatten
        }
    }
}

fn passed(checked: usize) -> Outcome {
    Outcome::Passed(Measure {
        checked,
        ..Measure::default()
    })
}

fn violation(oracle: Oracle, message: String, schema: &Value, options: &Options) -> Violation {
    Violation {
        oracle,
        message,
        schema: schema.clone(),
        options: options.clone(),
        data: None,
        variant: None,
    }
}

/// Whether a presentation's root is one object: `type: "object"` and no root `oneOf`/`anyOf`
/// (SPEC §4, object guarantee; §2.9).
pub(crate) fn is_one_object(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("object"))
        && schema.get("oneOf").is_none()
        && schema.get("anyOf").is_none()
}

fn to_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Calls `visit` on every schema node of a document (not on data: `enum`, `const`, `default`),
/// through the harness's one keyword list ([`crate::keywords`]).
pub fn walk_schemas(schema: &Value, visit: &mut dyn FnMut(&Value)) {
    crate::keywords::walk(schema, visit);
}

/// Why a flatten function gave no presentation.
#[derive(Debug, Clone, PartialEq)]
pub enum Unpresented {
    /// The flattener failed where the guarantee needs a presentation (the core's `flatten`
    /// error): a violation of the oracle that asked.
    Failed(String),
    /// Nothing to judge (an implementation refused or skipped the input, crashed or broke the
    /// protocol; counted by the caller): the oracle is skipped with this reason.
    NotJudged(Skip),
}

/// A flatten function whose presentations an oracle judges: the in-process core
/// ([`core_present`]) or an implementation behind the protocol ([`crate::protocol`]).
pub type Present<'a> = &'a dyn Fn(&Value, &Options) -> Result<Value, Unpresented>;

/// The in-process core as a [`Present`]: `flatjoin::flatten`'s presentation.
pub fn core_present(schema: &Value, options: &Options) -> Result<Value, Unpresented> {
    flatjoin::flatten(schema, options)
        .map(|f| f.schema)
        .map_err(|e| Unpresented::Failed(format!("flatten failed: {e}")))
}

/// A flatten function with the diagnostics it gives (in the CLI's `--diagnostics` form, when it
/// gives any), or why there is no presentation: what `flatjoin serve-protocol` answers with and
/// what the suite's parts flatten by (SPEC §6 decision 75).
pub type Flatten<'a> =
    &'a (dyn Fn(&Value, &Options) -> Result<(Value, Option<Value>), String> + Sync);

/// The in-process core as a [`Flatten`]: `flatjoin::flatten`'s presentation and diagnostics.
pub fn core_flatten(schema: &Value, options: &Options) -> Result<(Value, Option<Value>), String> {
    flatjoin::flatten(schema, options)
        .map(|f| (f.schema, Some(f.diagnostics.to_json())))
        .map_err(|e| e.to_string())
}

/// `present`'s presentation of `schema`; `Ok(Err(skipped))` when there is none to judge.
fn present_with(
    present: Present<'_>,
    schema: &Value,
    options: &Options,
    oracle: Oracle,
) -> Result<Result<Value, Outcome>, Violation> {
    match present(schema, options) {
        Ok(p) => Ok(Ok(p)),
        Err(Unpresented::NotJudged(why)) => Ok(Err(Outcome::Skipped(why))),
        Err(Unpresented::Failed(message)) => Err(violation(oracle, message, schema, options)),
    }
}

#[cfg(test)]
mod tests {
    use strum::IntoEnumIterator;

    use super::{Oracle, Skip};

    #[test]
    fn all_lists_every_oracle_once() {
        let every: Vec<Oracle> = Oracle::iter().collect();
        let mut all = Oracle::ALL.to_vec();
        all.sort();
        let mut sorted = every.clone();
        sorted.sort();
        assert_eq!(all, sorted, "Oracle::ALL is not every oracle once");
        for o in Oracle::IMPLEMENTATION {
            assert!(Oracle::ALL.contains(&o), "{o} judges implementations only");
        }
    }

    #[test]
    fn names_are_the_stable_ones_and_parse_back() {
        // The names regression files, reports and results files carry (SPEC §4's guarantees).
        let stable = [
            "soundness",
            "presentation-validity",
            "static-soundness",
            "object-guarantee",
            "coverage",
            "structure-retained",
            "dedup",
            "determinism",
            "one-implementation",
            "idempotence",
            "no-blow-up",
            "runtime-boundary",
            "branch-order-invariance",
            "duplicate-branch-invariance",
            "dialect-invariance",
            "draft-forms",
            "corpus-expectations",
            "flatten-accepts",
        ];
        let names: Vec<&str> = Oracle::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(names, stable);
        for o in Oracle::ALL {
            assert_eq!(o.name().parse::<Oracle>(), Ok(o));
        }
        assert!("soundnes".parse::<Oracle>().is_err());
    }

    #[test]
    fn every_skip_kind_has_its_own_code_and_keeps_its_reason() {
        let kinds = [
            Skip::NotApplicable("r".into()),
            Skip::Errored("r".into()),
            Skip::Declined("r".into()),
            Skip::Crashed("r".into()),
            Skip::ProtocolError("r".into()),
        ];
        let mut codes: Vec<char> = kinds.iter().map(Skip::code).collect();
        for (k, c) in kinds.iter().zip(&codes) {
            assert_eq!(Skip::of_code(*c, "r".into()).as_ref(), Some(k));
            assert_eq!(k.reason(), "r");
            assert_eq!(k.by_flattener(), !matches!(k, Skip::NotApplicable(_)));
        }
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), kinds.len());
        // `p` and `f` are the verdicts' other codes.
        assert!(!codes.contains(&'p') && !codes.contains(&'f'));
        assert_eq!(
            Skip::Crashed("exit 3".into()).to_string(),
            "crashed: exit 3"
        );
        assert_eq!(
            Skip::NotApplicable("no union".into()).to_string(),
            "no union"
        );
    }
}
