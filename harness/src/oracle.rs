//! The guarantees of SPEC §4, each a named function that judges one input and returns either what
//! it measured or a [`Violation`] describing a counterexample.
//!
//! Every oracle takes `(original schema, options)` (or a model [`Case`] for the invariances that
//! need one) and does not depend on proptest, so the fuzz targets call them as they are. Verdicts on
//! values come from the `jsonschema` crate with formats asserted, cross-checked on the original by
//! `boon`; structural comparisons use the harness's own [`crate::identity`]. The core's own
//! validation, identity and identification code is never used to judge the core: the core is only
//! called to produce what is judged (`flatten`, `flatten_manifest`, `Runtime`, `dedup`).
//!
//! For repeated checks of one input, build a [`Subject`] once (it flattens and compiles the
//! validators) and call its methods.

// A violation is the rare path and carries the whole counterexample; boxing it would only make the
// fuzz targets' and tests' matching noisier.
#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use std::fmt;

use flatjoin::{Flattened, OpenBranches, Options, Scope};
use jsonschema::canonical::Containment;
use serde_json::{Map, Value, json};

use crate::drafts::{self, Draft};
use crate::identity::{Forget, canonical_data, canonical_text, sorted_text};
use crate::keywords;
use crate::model::{Case, Literal};
use crate::refs;
use crate::render::{DIALECTS, Dialect, literal_value, render, render_as};
use crate::sample::{self, Reading};

/// The oracles: one per SPEC §4 guarantee the harness checks, in report order ([`Oracle::ALL`]).
/// Like the core's `Fault`: a closed set with stable kebab-case names (reports, regression file
/// names, `corpus/regressions/` `oracle` fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    BranchOrder,
    /// A copied branch with a new literal changes only the discriminator enum and hints.
    DuplicateBranch,
    /// Every dialect form yields the same presentation.
    Dialect,
    /// The case spelled in an older draft (draft-04) is flattened soundly too.
    DraftForms,
    /// A corpus case's own expectations (its `tests` and expected `presentation`).
    CorpusExpectations,
    /// Flatten accepts a valid schema without error.
    FlattenAccepts,
    /// Flattening a presentation that holds no union again changes nothing but annotations
    /// (judged through the implementation protocol only: [`Oracle::IMPLEMENTATION`]).
    Idempotence,
}

impl Oracle {
    /// Every oracle, in report order.
    pub const ALL: [Oracle; 16] = [
        Oracle::Soundness,
        Oracle::PresentationValidity,
        Oracle::StaticSoundness,
        Oracle::ObjectGuarantee,
        Oracle::StructureRetained,
        Oracle::Dedup,
        Oracle::Determinism,
        Oracle::OneImplementation,
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
    pub const IMPLEMENTATION: [Oracle; 12] = [
        Oracle::Soundness,
        Oracle::PresentationValidity,
        Oracle::StaticSoundness,
        Oracle::ObjectGuarantee,
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
        match self {
            Oracle::Soundness => "soundness",
            Oracle::PresentationValidity => "presentation-validity",
            Oracle::StaticSoundness => "static-soundness",
            Oracle::ObjectGuarantee => "object-guarantee",
            Oracle::StructureRetained => "structure-retained",
            Oracle::Dedup => "dedup",
            Oracle::Determinism => "determinism",
            Oracle::OneImplementation => "one-implementation",
            Oracle::NoBlowUp => "no-blow-up",
            Oracle::RuntimeBoundary => "runtime-boundary",
            Oracle::BranchOrder => "branch-order-invariance",
            Oracle::DuplicateBranch => "duplicate-branch-invariance",
            Oracle::Dialect => "dialect-invariance",
            Oracle::DraftForms => "draft-forms",
            Oracle::CorpusExpectations => "corpus-expectations",
            Oracle::FlattenAccepts => "flatten-accepts",
            Oracle::Idempotence => "idempotence",
        }
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
            .chain([Oracle::Idempotence])
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
        write!(f, "\n  options: {}", options_json(&self.options))
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

/// The options as the corpus format writes them.
pub fn options_json(options: &Options) -> Value {
    let mut m = Map::new();
    m.insert(
        "open_branches".into(),
        json!(match options.open_branches {
            OpenBranches::Declared => "declared",
            OpenBranches::Permissive => "permissive",
        }),
    );
    m.insert(
        "scope".into(),
        json!(match options.scope {
            Scope::All => "all",
            Scope::Root => "root",
        }),
    );
    #[cfg(feature = "fault-injection")]
    if let Some(fault) = options.fault {
        m.insert("fault".into(), json!(fault.name()));
    }
    Value::Object(m)
}

/// What an oracle that passed measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measure {
    /// Values (or comparisons) actually checked.
    pub checked: usize,
    /// Values where `boon` and `jsonschema` disagreed on an original with no reference cycle
    /// that explains it, as `{"original": …, "value": …}` (excluded from the check).
    pub disagreements: Vec<Value>,
    /// Values where they disagreed on an original that holds a reference cycle without progress
    /// ([`refs::has_cycle_without_progress`]: undefined by the spec; excluded from the check).
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
    /// The guarantee does not apply to this input (why).
    Skipped(String),
    /// A counterexample.
    Failed(Box<Violation>),
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

/// One input prepared for every oracle: flattened once, validators compiled once.
pub struct Subject {
    /// The original schema.
    pub original: Value,
    /// The options.
    pub options: Options,
    /// What `flatten` returned.
    pub flattened: Flattened,
    original_judge: jsonschema::Validator,
    presentation_judge: jsonschema::Validator,
    second: Option<Boon>,
    samples: Vec<sample::BranchSamples>,
    du: Option<RootUnion>,
    mixes: Vec<Value>,
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
        let original_judge = match judge(original) {
            Ok(j) => j,
            Err(e) => return Ok(Err(format!("jsonschema cannot compile the original: {e}"))),
        };
        let flattened = flatjoin::flatten(original, options).map_err(|e| {
            violation(
                Oracle::FlattenAccepts,
                format!("flatten failed on a schema the validator compiles: {e}"),
                original,
                options,
            )
        })?;
        Subject::assemble(original, options, original_judge, flattened)
    }

    /// Like [`Subject::prepare`] for a presentation some other implementation produced (the
    /// implementation protocol): no diagnostics come with it, so the root counts as flattened
    /// when the harness's own reading finds a discriminated union there
    /// ([`discriminated_root`]) and the presentation's root holds no `oneOf`/`anyOf` (what
    /// [`Subject::static_soundness`] asks).
    pub fn presented(
        original: &Value,
        options: &Options,
        presentation: Value,
    ) -> Result<Result<Subject, String>, Violation> {
        let original_judge = match judge(original) {
            Ok(j) => j,
            Err(e) => return Ok(Err(format!("jsonschema cannot compile the original: {e}"))),
        };
        let mut diagnostics = flatjoin::Diagnostics::default();
        if let Some(du) = discriminated_root(original)
            && presentation.get("oneOf").is_none()
            && presentation.get("anyOf").is_none()
        {
            diagnostics.flattened.push(flatjoin::FlattenedSite {
                pointer: String::new(),
                discriminator: du.tag,
                branches: du.literals.len(),
            });
        }
        let flattened = Flattened {
            schema: presentation,
            diagnostics,
        };
        Subject::assemble(original, options, original_judge, flattened)
    }

    /// The rest of [`Subject::prepare`]: presentation validity, then the judges.
    fn assemble(
        original: &Value,
        options: &Options,
        original_judge: jsonschema::Validator,
        flattened: Flattened,
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

    fn violation(&self, oracle: Oracle, message: String) -> Violation {
        violation(oracle, message, &self.original, &self.options)
    }

    /// Soundness (SPEC I3), dynamic: every sampled branch value the original accepts is accepted
    /// by the presentation. Under `declared` the sampler only adds keys no branch declares, which
    /// is the promised set. Values where boon disagrees with jsonschema on the original are set
    /// aside as validator disagreements: undefined ones when the original holds a reference cycle
    /// without progress, the rest listed with their original for triage.
    pub fn soundness(&self) -> Judged {
        let mut measure = Measure::default();
        let mut cyclic = None;
        for branch in &self.samples {
            for value in &branch.values {
                let accepted = self.original_judge.is_valid(value);
                if let Some(second) = &self.second
                    && second.is_valid(value) != accepted
                {
                    if *cyclic
                        .get_or_insert_with(|| refs::has_cycle_without_progress(&self.original))
                    {
                        measure.undefined_disagreements += 1;
                    } else {
                        measure
                            .disagreements
                            .push(json!({"original": self.original, "value": value}));
                    }
                    continue;
                }
                if !accepted {
                    continue;
                }
                measure.checked += 1;
                if !self.presentation_judge.is_valid(value) {
                    let why = self
                        .presentation_judge
                        .iter_errors(value)
                        .map(|e| format!("{} at {}", e, e.instance_path()))
                        .collect::<Vec<_>>()
                        .join("; ");
                    let mut v = self.violation(
                        Oracle::Soundness,
                        format!(
                            "a value of branch {} accepted by the original is rejected by the presentation ({why}); presentation: {}",
                            branch.branch, self.flattened.schema
                        ),
                    );
                    v.data = Some(value.clone());
                    return Err(v);
                }
            }
        }
        Ok(Outcome::Passed(measure))
    }

    /// Presentation validity: the presentation is a valid schema of its draft by the meta-schema
    /// (`jsonschema::meta`, bundled, nothing fetched), and `boon` compiles it whenever it compiles
    /// the original. (Checked once in [`Subject::prepare`], where a failure is the violation;
    /// here it is counted.)
    pub fn presentation_validity(&self) -> Judged {
        // A `Subject` exists only when `prepare` found the presentation valid: compiling it
        // again here would double the oracle's cost and could not answer differently.
        Ok(passed(1))
    }

    /// Soundness, static: for each root branch, `jsonschema`'s canonical `covers` must never say the
    /// presentation fails to contain it. Under `declared`, each open branch is first restricted to
    /// the keys the reading promises (keys declared by other members of any union become `false`).
    /// Yes and unknown answers are counted; unsupported schemas count as unknown.
    pub fn static_soundness(&self) -> Judged {
        let Some(map) = self.original.as_object() else {
            return Ok(Outcome::Skipped("the original is not an object".into()));
        };
        let keyword = if map.contains_key("oneOf") {
            "oneOf"
        } else if map.contains_key("anyOf") {
            "anyOf"
        } else {
            return Ok(Outcome::Skipped("the root is not a union".into()));
        };
        let Some(members) = map.get(keyword).and_then(Value::as_array) else {
            return Ok(Outcome::Skipped("the union keyword is not an array".into()));
        };
        // Only a flattened root is a join of its branches; a union that is not a DU passes
        // through, and with overlapping members (`{"oneOf": [{}, {}]}`) the original does not
        // contain its own members either (corpus/regressions/flatten_bytes-bcffec09.json).
        if !self
            .flattened
            .diagnostics
            .flattened
            .iter()
            .any(|site| site.pointer.is_empty())
        {
            return Ok(Outcome::Skipped("the root union was not flattened".into()));
        }
        // The branch documents below keep one member of the union; a reference into the
        // union's members (`#/oneOf/1/properties/x`) would then point elsewhere or nowhere.
        let into_members = format!("\"#/{keyword}/");
        if serde_json::to_string(&self.original).is_ok_and(|t| t.contains(&into_members)) {
            return Ok(Outcome::Skipped(
                "a reference points into the root union's members".into(),
            ));
        }
        let canon = |v: &Value| {
            jsonschema::canonical::options()
                .should_validate_formats(true)
                .canonicalize(v)
        };
        let mut measure = Measure::default();
        let Ok(presentation) = canon(&self.flattened.schema) else {
            measure.static_unknown += members.len();
            return Ok(Outcome::Passed(measure));
        };
        let restricted = match self.options.open_branches {
            OpenBranches::Declared => restrict_declared(&self.original),
            OpenBranches::Permissive => self.original.clone(),
        };
        for i in 0..members.len() {
            let mut branch_doc = restricted.clone();
            if let Some(Value::Array(ms)) = branch_doc.get_mut(keyword)
                && let Some(member) = ms.get(i).cloned()
            {
                *ms = vec![member];
            }
            if let Some(obj) = branch_doc.as_object_mut() {
                obj.remove("discriminator");
            }
            let answer = canon(&branch_doc)
                .ok()
                .and_then(|b| presentation.covers(&b).ok());
            match answer {
                Some(Containment::Yes) => measure.static_yes += 1,
                Some(Containment::No) => {
                    let mut v = self.violation(
                        Oracle::StaticSoundness,
                        format!(
                            "covers says the presentation does not contain branch {i}; presentation: {}",
                            self.flattened.schema
                        ),
                    );
                    v.variant = Some(("branch".into(), branch_doc));
                    return Err(v);
                }
                _ => measure.static_unknown += 1,
            }
        }
        measure.checked = members.len();
        Ok(Outcome::Passed(measure))
    }

    /// Object guarantee: a root that is a discriminated union (by the harness's own reading of
    /// SPEC §1) yields `type: "object"` with no root `oneOf`/`anyOf`.
    pub fn object_guarantee(&self) -> Judged {
        if self.du.is_none() {
            return Ok(Outcome::Skipped(
                "the root is not a discriminated union".into(),
            ));
        }
        let p = &self.flattened.schema;
        let is_object = p.get("type") == Some(&json!("object"));
        let union_left = p.get("oneOf").is_some() || p.get("anyOf").is_some();
        if !is_object || union_left {
            return Err(self.violation(
                Oracle::ObjectGuarantee,
                format!("the root is a discriminated union but the presentation is not one flat object: {p}"),
            ));
        }
        Ok(passed(1))
    }

    /// Structure retained (ADR 0205): every node of the presentation that admits arrays keeps an
    /// `items`/`prefixItems`, and every node that admits objects keeps `properties` (or a key
    /// policy), unless the original itself has such a bare node.
    pub fn structure_retained(&self) -> Judged {
        let bare_in = |schema: &Value| {
            let mut bare = (false, false);
            walk_schemas(schema, &mut |node| {
                let (array, object) = bare_structure(node);
                bare.0 |= array;
                bare.1 |= object;
            });
            bare
        };
        let original = bare_in(&self.original);
        let mut found: Option<Value> = None;
        walk_schemas(&self.flattened.schema, &mut |node| {
            let (array, object) = bare_structure(node);
            if found.is_none() && ((array && !original.0) || (object && !original.1)) {
                found = Some(node.clone());
            }
        });
        match found {
            Some(node) => Err(self.violation(
                Oracle::StructureRetained,
                format!(
                    "the presentation has a bare array/object node {node} (no items/properties) where the original has none; presentation: {}",
                    self.flattened.schema
                ),
            )),
            None => Ok(passed(1)),
        }
    }

    /// Dedup: no `anyOf`/`oneOf` of the presentation holds two structurally identical members
    /// (unless the original already had such a node), and the core's `dedup` is idempotent, keeps
    /// one of each identity class and loses none, judged by the harness's own identity.
    pub fn dedup(&self) -> Judged {
        self.dedup_of_presentation()?;
        self.dedup_of_core()
    }

    /// The first half of [`Subject::dedup`], which judges the presentation alone (so any
    /// implementation's): no `anyOf`/`oneOf` holds two structurally identical members unless the
    /// original already had such a node.
    pub fn dedup_of_presentation(&self) -> Judged {
        let forget = Forget {
            draft04: drafts::declared(&self.original) == Draft::Draft4,
            ..Forget::default()
        };
        let duplicated = |schema: &Value| {
            let mut dup: Option<Value> = None;
            walk_schemas(schema, &mut |node| {
                for keyword in ["anyOf", "oneOf"] {
                    if let Some(Value::Array(members)) = node.get(keyword) {
                        let mut seen = std::collections::HashSet::new();
                        for m in members {
                            if !seen.insert(canonical_text(m, forget)) && dup.is_none() {
                                dup = Some(node.clone());
                            }
                        }
                    }
                }
            });
            dup
        };
        if duplicated(&self.original).is_none()
            && let Some(node) = duplicated(&self.flattened.schema)
        {
            return Err(self.violation(
                Oracle::Dedup,
                format!(
                    "structurally identical alternatives survive in {node}; presentation: {}",
                    self.flattened.schema
                ),
            ));
        }
        Ok(passed(1))
    }

    /// The second half of [`Subject::dedup`]: the core's `dedup` is idempotent, keeps one of
    /// each identity class and loses none.
    fn dedup_of_core(&self) -> Judged {
        // The core's dedup on every property schema of both documents.
        let mut alternatives = Vec::new();
        for doc in [&self.original, &self.flattened.schema] {
            walk_schemas(doc, &mut |node| {
                if let Some(Value::Object(props)) = node.get("properties") {
                    alternatives.extend(props.values().take(8).cloned());
                }
            });
        }
        alternatives.truncate(64);
        let once = flatjoin::dedup(alternatives.clone());
        let twice = flatjoin::dedup(once.clone());
        if once != twice {
            return Err(self.violation(
                Oracle::Dedup,
                "dedup(dedup(x)) differs from dedup(x)".into(),
            ));
        }
        let keys: Vec<String> = once
            .iter()
            .map(|a| canonical_text(a, Forget::default()))
            .collect();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        if unique.len() != keys.len() {
            return Err(self.violation(
                Oracle::Dedup,
                "dedup kept two structurally identical alternatives".into(),
            ));
        }
        for a in &alternatives {
            if !keys.contains(&canonical_text(a, Forget::default())) {
                return Err(self.violation(
                    Oracle::Dedup,
                    format!("dedup lost an alternative with no identical copy kept: {a}"),
                ));
            }
        }
        Ok(passed(alternatives.len()))
    }

    /// Determinism: flattening again (from a copy, and through `flatten_owned`) gives a
    /// byte-identical presentation and the same diagnostics.
    pub fn determinism(&self) -> Judged {
        let first = to_text(&self.flattened.schema);
        let again = flatjoin::flatten(&self.original.clone(), &self.options);
        let owned = flatjoin::flatten_owned(self.original.clone(), &self.options);
        for (how, result) in [("flatten", again), ("flatten_owned", owned)] {
            match result {
                Ok(f)
                    if to_text(&f.schema) == first
                        && f.diagnostics == self.flattened.diagnostics => {}
                Ok(f) => {
                    let mut v = self.violation(
                        Oracle::Determinism,
                        format!(
                            "{how} gave a different output the second time: {} vs {first}",
                            to_text(&f.schema)
                        ),
                    );
                    v.variant = Some(("second output".into(), f.schema));
                    return Err(v);
                }
                Err(e) => {
                    return Err(self.violation(
                        Oracle::Determinism,
                        format!("{how} failed the second time: {e}"),
                    ));
                }
            }
        }
        Ok(passed(2))
    }

    /// One owning implementation (SPEC I8): the manifest path yields the byte-identical schema and
    /// the same diagnostics, and leaves the tool's other fields untouched.
    pub fn one_implementation(&self) -> Judged {
        let manifest =
            json!({"tools": [{"name": "probe", "description": "d", "inputSchema": self.original}]});
        match flatjoin::flatten_manifest(&manifest, &self.options) {
            Ok(out) => {
                let tool = &out.manifest["tools"][0];
                let same = to_text(&tool["inputSchema"]) == to_text(&self.flattened.schema);
                let diags = out.tools.first().map(|(_, d)| d) == Some(&self.flattened.diagnostics);
                let untouched = tool["name"] == "probe" && tool["description"] == "d";
                if same && diags && untouched {
                    Ok(passed(1))
                } else {
                    Err(self.violation(
                        Oracle::OneImplementation,
                        format!(
                            "the manifest path differs (schema equal: {same}, diagnostics equal: {diags}, other fields untouched: {untouched}): {}",
                            tool["inputSchema"]
                        ),
                    ))
                }
            }
            Err(e) => Err(self.violation(
                Oracle::OneImplementation,
                format!("flatten_manifest failed: {e}"),
            )),
        }
    }

    /// No blow-up: the presentation has at most as many JSON nodes as the original (definitions
    /// counted twice, since a branch behind `$ref` may be inlined while its entry stays) plus
    /// a small constant per property of the presentation.
    pub fn no_blow_up(&self) -> Judged {
        let input = node_count(&self.original);
        let defs: usize = ["$defs", "definitions"]
            .iter()
            .filter_map(|k| self.original.get(*k))
            .map(node_count)
            .sum();
        let mut properties = 0usize;
        walk_schemas(&self.flattened.schema, &mut |node| {
            if let Some(Value::Object(p)) = node.get("properties") {
                properties += p.len();
            }
        });
        let output = node_count(&self.flattened.schema);
        let bound = input + defs + 8 * properties + 16;
        if output > bound {
            return Err(self.violation(
                Oracle::NoBlowUp,
                format!("the presentation has {output} nodes, more than the bound {bound} (input {input})"),
            ));
        }
        Ok(passed(1))
    }

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
        let runtime = match flatjoin::Runtime::with_options(&self.original, &asserting) {
            Ok(r) => r,
            Err(e) => {
                return Err(
                    self.violation(Oracle::RuntimeBoundary, format!("Runtime::new failed: {e}"))
                );
            }
        };
        let mut checked = 0;
        for branch in &self.samples {
            for value in &branch.values {
                checked += 1;
                if runtime.is_valid(value) != self.original_judge.is_valid(value) {
                    let mut v = self.violation(
                        Oracle::RuntimeBoundary,
                        "the runtime's verdict differs from plain validation of the original"
                            .into(),
                    );
                    v.data = Some(value.clone());
                    return Err(v);
                }
            }
        }
        let Some(du) = &self.du else {
            return Ok(passed(checked));
        };
        for branch in &self.samples {
            for value in branch.values.iter().take(6) {
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
                    let mut mixed = obj.clone();
                    mixed.insert(du.tag.clone(), literal.clone());
                    let mixed = Value::Object(mixed);
                    let original_ok = self.original_judge.is_valid(&mixed);
                    checked += 1;
                    if runtime.is_valid(&mixed) != original_ok {
                        let mut v = self.violation(Oracle::RuntimeBoundary, "the runtime's verdict on a wrong-branch mix differs from plain validation".into());
                        v.data = Some(mixed);
                        return Err(v);
                    }
                    if original_ok || !self.presentation_judge.is_valid(&mixed) {
                        continue;
                    }
                    match runtime.validate(&mixed) {
                        Ok(()) => {
                            let mut v = self.violation(
                                Oracle::RuntimeBoundary,
                                "the runtime accepts a wrong-branch mix".into(),
                            );
                            v.data = Some(mixed);
                            return Err(v);
                        }
                        Err(errors) => {
                            let text = errors.to_string();
                            let literal_text = literal.to_string();
                            let named = errors
                                .branch
                                .as_deref()
                                .is_some_and(|b| names_branch(b, &du.tag, literal))
                                && names_branch(&text, &du.tag, literal);
                            if !named {
                                let mut v = self.violation(
                                    Oracle::RuntimeBoundary,
                                    format!("the runtime's error does not name the selected branch {} {literal_text}: {text}", du.tag),
                                );
                                v.data = Some(mixed);
                                return Err(v);
                            }
                        }
                    }
                }
            }
        }
        for mixed in &self.mixes {
            let Some(literal) = mixed.get(&du.tag) else {
                continue;
            };
            checked += 1;
            let original_ok = self.original_judge.is_valid(mixed);
            if runtime.is_valid(mixed) != original_ok {
                let mut v = self.violation(
                    Oracle::RuntimeBoundary,
                    "the runtime's verdict on a hand-written mix differs from plain validation"
                        .into(),
                );
                v.data = Some(mixed.clone());
                return Err(v);
            }
            if !original_ok && self.presentation_judge.is_valid(mixed) {
                let literal_text = literal.to_string();
                let named = runtime.validate(mixed).err().is_some_and(|e| {
                    e.branch
                        .as_deref()
                        .is_some_and(|b| names_branch(b, &du.tag, literal))
                });
                if !named {
                    let mut v = self.violation(Oracle::RuntimeBoundary, format!("the runtime's error on a hand-written mix does not name the selected branch {} {literal_text}", du.tag));
                    v.data = Some(mixed.clone());
                    return Err(v);
                }
            }
        }
        Ok(passed(checked))
    }

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
            (Oracle::StructureRetained, run(self.structure_retained())),
            (Oracle::Dedup, run(self.dedup())),
        ];
        if sweep == Sweep::Full {
            out.push((Oracle::Determinism, run(self.determinism())));
            out.push((Oracle::OneImplementation, run(self.one_implementation())));
        }
        out.push((Oracle::NoBlowUp, run(self.no_blow_up())));
        out.push((Oracle::RuntimeBoundary, run(self.runtime_boundary())));
        out
    }
}

impl Subject {
    /// Determinism of any implementation: asked again, `present` gives a byte-identical
    /// presentation.
    pub fn determinism_with(&self, present: Present<'_>) -> Judged {
        let again = match present_with(present, &self.original, &self.options, Oracle::Determinism)?
        {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        let first = to_text(&self.flattened.schema);
        if to_text(&again) != first {
            let mut v = self.violation(
                Oracle::Determinism,
                format!(
                    "asked again, the implementation gave a different output: {} vs {first}",
                    to_text(&again)
                ),
            );
            v.variant = Some(("second output".into(), again));
            return Err(v);
        }
        Ok(passed(1))
    }

    /// Idempotence where it is claimed: a presentation with no `oneOf`/`anyOf` left anywhere
    /// has nothing to flatten, so flattening it again yields it unchanged up to annotations (the
    /// core returns such a document as it is). A presentation that still holds a union is
    /// skipped: flattening is not idempotent in general (SPEC §4, "not claimed").
    pub fn idempotence_with(&self, present: Present<'_>) -> Judged {
        let mut union = false;
        walk_schemas(&self.flattened.schema, &mut |node| {
            union |= node.get("oneOf").is_some() || node.get("anyOf").is_some();
        });
        if union {
            return Ok(Outcome::Skipped(
                "the presentation still holds a union (not claimed, SPEC §4)".into(),
            ));
        }
        let again = match present_with(
            present,
            &self.flattened.schema,
            &self.options,
            Oracle::Idempotence,
        )? {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        if canonical_text(&again, Forget::default())
            != canonical_text(&self.flattened.schema, Forget::default())
        {
            let mut v = self.violation(
                Oracle::Idempotence,
                format!(
                    "flattening the presentation {} again changes it: {again}",
                    self.flattened.schema
                ),
            );
            v.variant = Some(("flattened again".into(), again));
            return Err(v);
        }
        Ok(passed(1))
    }

    /// The schema-level oracles of [`Oracle::IMPLEMENTATION`] on a presentation some
    /// implementation gave ([`Subject::presented`]); `present` asks it again (determinism,
    /// idempotence). The model-level invariances are the caller's
    /// ([`branch_order_invariance_with`] and its siblings).
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
            (Oracle::StructureRetained, run(self.structure_retained())),
            (Oracle::Dedup, run(self.dedup_of_presentation())),
            (Oracle::Determinism, run(self.determinism_with(present))),
            (Oracle::Idempotence, run(self.idempotence_with(present))),
            (Oracle::NoBlowUp, run(self.no_blow_up())),
        ]
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

/// Whether `presentation` is a valid schema of its declared draft (meta-schema validation, when
/// `meta_too`: the original is one) and, when `boon_too` (boon compiles the original), whether
/// boon compiles it.
pub fn presentation_validity_of(
    presentation: &Value,
    meta_too: bool,
    boon_too: bool,
) -> Result<(), String> {
    if meta_too && let Err(e) = jsonschema::meta::validate(presentation) {
        return Err(format!(
            "the presentation is not a valid schema of its draft: {e} at {}",
            e.instance_path()
        ));
    }
    if boon_too {
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        let url = "http://flatjoin.invalid/presentation.json";
        let compiled = compiler
            .add_resource(url, presentation.clone())
            .map_err(|e| e.to_string())
            .and_then(|()| {
                compiler
                    .compile(url, &mut boon::Schemas::new())
                    .map(|_| ())
                    .map_err(|e| format!("{e:#}"))
            });
        if let Err(e) = compiled {
            return Err(format!(
                "boon compiles the original but not the presentation: {e}"
            ));
        }
    }
    Ok(())
}

/// Whether an error text names the branch `tag = literal` (numbers by value: `1.0` may be
/// written `1`).
fn names_branch(text: &str, tag: &str, literal: &Value) -> bool {
    let canonical = sorted_text(&canonical_data(literal));
    text.contains(tag) && (text.contains(&literal.to_string()) || text.contains(&canonical))
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

fn to_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

macro_rules! schema_oracle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub fn $name(original: &Value, options: &Options) -> Result<Outcome, Violation> {
            match Subject::prepare(original, options)? {
                Ok(subject) => subject.$name(),
                Err(reason) => Ok(Outcome::Skipped(reason)),
            }
        }
    };
}

schema_oracle!(
    /// [`Subject::soundness`] on one input.
    soundness
);
schema_oracle!(
    /// [`Subject::presentation_validity`] on one input.
    presentation_validity
);
schema_oracle!(
    /// [`Subject::static_soundness`] on one input.
    static_soundness
);
schema_oracle!(
    /// [`Subject::object_guarantee`] on one input.
    object_guarantee
);
schema_oracle!(
    /// [`Subject::structure_retained`] on one input.
    structure_retained
);
schema_oracle!(
    /// [`Subject::dedup`] on one input.
    dedup
);
schema_oracle!(
    /// [`Subject::determinism`] on one input.
    determinism
);
schema_oracle!(
    /// [`Subject::one_implementation`] on one input.
    one_implementation
);
schema_oracle!(
    /// [`Subject::no_blow_up`] on one input.
    no_blow_up
);
schema_oracle!(
    /// [`Subject::runtime_boundary`] on one input.
    runtime_boundary
);

/// The root discriminated union as the harness reads SPEC §1, independently of the core.
#[derive(Debug, Clone, PartialEq)]
pub struct RootUnion {
    /// The discriminator.
    pub tag: String,
    /// Each branch's literal set.
    pub literals: Vec<Vec<Value>>,
}

/// Identifies a root discriminated union by SPEC §1 (branches resolved and merged with siblings,
/// each `type: "object"`, one name with a scalar literal set in every branch, required in every
/// branch, sets pairwise disjoint by value; an explicit `discriminator.propertyName` wins).
pub fn discriminated_root(root: &Value) -> Option<RootUnion> {
    let branches = sample::root_branches(root)?;
    if branches.len() < 2 {
        return None;
    }
    let folded: Vec<Value> = branches.iter().map(|b| fold_all_of(root, b)).collect();
    if !folded
        .iter()
        .all(|b| b.get("type") == Some(&json!("object")))
    {
        return None;
    }
    // Draft-04 has no `const` (SPEC §6 decision 29): there only `enum` gives a literal set.
    let has_const = drafts::declared(root) != Draft::Draft4;
    let literal_set = |branch: &Value, name: &str| -> Option<Vec<Value>> {
        let prop = branch.get("properties")?.get(name)?;
        let prop = refs::follow(root, prop);
        let set = match (prop.get("const").filter(|_| has_const), prop.get("enum")) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(Value::Array(e))) if !e.is_empty() => e.clone(),
            _ => return None,
        };
        set.iter()
            .all(|v| !v.is_array() && !v.is_object())
            .then_some(set)
    };
    let qualifies = |name: &str| -> Option<Vec<Vec<Value>>> {
        let mut seen = std::collections::HashSet::new();
        let mut sets = Vec::new();
        for b in &folded {
            let required = b
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|n| n == name));
            let set = literal_set(b, name)?;
            if !required
                || !set
                    .iter()
                    .all(|v| seen.insert(sorted_text(&canonical_data(v))))
            {
                return None;
            }
            sets.push(set);
        }
        Some(sets)
    };
    let explicit = root
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str);
    let mut names: Vec<String> = explicit.map(str::to_owned).into_iter().collect();
    names.extend(sample::declared_names(&folded[0]));
    names.into_iter().find_map(|name| {
        qualifies(&name).map(|literals| RootUnion {
            tag: name,
            literals,
        })
    })
}

/// Folds object-only `allOf` parts into the branch (properties and required merged).
fn fold_all_of(root: &Value, branch: &Value) -> Value {
    fold_all_of_within(root, branch, 0)
}

/// [`fold_all_of`] through nested `allOf` members (and `$ref`s inside them), a bounded number of
/// levels deep.
fn fold_all_of_within(root: &Value, branch: &Value, depth: usize) -> Value {
    let Some(Value::Array(parts)) = branch.get("allOf").filter(|_| depth < 16) else {
        return branch.clone();
    };
    let mut out = branch.clone();
    if let Some(o) = out.as_object_mut() {
        o.remove("allOf");
    }
    for part in parts {
        let part = fold_all_of_within(root, refs::follow(root, part), depth + 1);
        let Some(p) = part.as_object() else { continue };
        for (k, v) in p {
            let Some(o) = out.as_object_mut() else { break };
            match (k.as_str(), o.get_mut(k)) {
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = v {
                        for (n, s) in more {
                            existing.entry(n.clone()).or_insert_with(|| s.clone());
                        }
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    if let Value::Array(more) = v {
                        existing.extend(more.iter().cloned());
                    }
                }
                _ => {
                    o.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    out
}

/// Whether a node admits arrays without `items`/`prefixItems`, and objects without any object
/// vocabulary.
fn bare_structure(node: &Value) -> (bool, bool) {
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let has = |k: &str| node.get(k).is_some();
    let array = types.contains(&"array") && !has("items") && !has("prefixItems");
    let object = types.contains(&"object")
        && !has("properties")
        && !has("additionalProperties")
        && !has("patternProperties")
        && !has("$ref")
        && !has("allOf");
    (array, object)
}

/// Calls `visit` on every schema node of a document (not on data: `enum`, `const`, `default`),
/// through the harness's one keyword list ([`crate::keywords`]).
pub fn walk_schemas(schema: &Value, visit: &mut dyn FnMut(&Value)) {
    keywords::walk(schema, visit);
}

fn node_count(value: &Value) -> usize {
    match value {
        Value::Object(m) => 1 + m.values().map(node_count).sum::<usize>(),
        Value::Array(a) => 1 + a.iter().map(node_count).sum::<usize>(),
        _ => 1,
    }
}

/// The original restricted to what the `declared` reading promises: in every `oneOf`/`anyOf`
/// whose members declare properties, each member additionally forbids the names its sibling
/// members declare and it does not.
pub fn restrict_declared(schema: &Value) -> Value {
    restrict_node(schema, schema)
}

fn restrict_node(root: &Value, node: &Value) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let rewritten = match key.as_str() {
            "anyOf" | "oneOf" => match value {
                Value::Array(members) => {
                    let names: Vec<Vec<String>> = members
                        .iter()
                        .map(|m| sample::declared_names(&fold_all_of(root, refs::follow(root, m))))
                        .collect();
                    let sibling: Vec<String> = sample::declared_names(node);
                    Value::Array(
                        members
                            .iter()
                            .enumerate()
                            .map(|(i, m)| {
                                let mut forbid = Map::new();
                                for (j, list) in names.iter().enumerate() {
                                    if j == i {
                                        continue;
                                    }
                                    for n in list {
                                        if !names[i].contains(n) && !sibling.contains(n) {
                                            forbid.insert(n.clone(), json!(false));
                                        }
                                    }
                                }
                                let inner = restrict_node(root, m);
                                if forbid.is_empty() {
                                    inner
                                } else {
                                    json!({"allOf": [inner, {"properties": forbid}]})
                                }
                            })
                            .collect(),
                    )
                }
                other => other.clone(),
            },
            _ => keywords::map_subschemas(key, value, &mut |sub| restrict_node(root, sub))
                .unwrap_or_else(|| value.clone()),
        };
        out.insert(key.clone(), rewritten);
    }
    Value::Object(out)
}

/// Branch-order invariance (model): the case with its root branches reversed and rotated yields a
/// presentation structurally identical up to the order of alternatives and annotations. Skipped
/// when another property also qualifies as the discriminator (the first branch decides which).
pub fn branch_order_invariance(case: &Case, options: &Options) -> Judged {
    branch_order_invariance_with(case, options, &core_present)
}

/// [`branch_order_invariance`] of the presentations `present` gives.
pub fn branch_order_invariance_with(
    case: &Case,
    options: &Options,
    present: Present<'_>,
) -> Judged {
    let case = &case.normalized();
    if !case.rival_discriminators().is_empty() {
        return Ok(Outcome::Skipped(
            "another property qualifies as discriminator".into(),
        ));
    }
    let original = render(case);
    let base = match present_with(present, &original, options, Oracle::BranchOrder)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    let forget = Forget {
        alternative_order: true,
        dialect: false,
        draft04: false,
    };
    let mut checked = 0;
    for permutation in ["reversed", "rotated"] {
        let mut permuted = case.clone();
        if permutation == "reversed" {
            permuted.root.branches.reverse();
        } else {
            permuted.root.branches.rotate_left(1);
        }
        let variant = render(&permuted);
        let other = match present_with(present, &variant, options, Oracle::BranchOrder)? {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        if canonical_text(&base, forget) != canonical_text(&other, forget) {
            let mut v = violation(
                Oracle::BranchOrder,
                format!(
                    "{permutation} branches change the presentation beyond orders and annotations: {base} vs {other}"
                ),
                &original,
                options,
            );
            v.variant = Some((Oracle::BranchOrder.name().into(), variant));
            return Err(v);
        }
        checked += 1;
    }
    Ok(passed(checked))
}

/// A string literal no branch of the root union uses (`s250` unless taken).
fn fresh_tag(case: &Case) -> Literal {
    let used: Vec<String> = case
        .root
        .branches
        .iter()
        .flat_map(|b| b.tags.iter().map(|l| l.value_key()))
        .collect();
    (250u8..=255)
        .chain(0..250)
        .map(Literal::Str)
        .find(|l| !used.contains(&l.value_key()))
        .unwrap_or(Literal::Half(100))
}

/// Duplicate-branch invariance (model): appending a copy of the first branch with a new literal
/// changes only the discriminator's `enum` (by exactly that literal) and annotations.
pub fn duplicate_branch_invariance(case: &Case, options: &Options) -> Judged {
    duplicate_branch_invariance_with(case, options, &core_present)
}

/// [`duplicate_branch_invariance`] of the presentations `present` gives.
pub fn duplicate_branch_invariance_with(
    case: &Case,
    options: &Options,
    present: Present<'_>,
) -> Judged {
    let case = &case.normalized();
    if !case.rival_discriminators().is_empty() {
        return Ok(Outcome::Skipped(
            "another property qualifies as discriminator".into(),
        ));
    }
    let Some(first) = case.root.branches.first() else {
        return Ok(Outcome::Skipped("no branch".into()));
    };
    let original = render(case);
    let base = match present_with(present, &original, options, Oracle::DuplicateBranch)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    let fresh = fresh_tag(case);
    let mut copy = first.clone();
    copy.tags = vec![fresh];
    let mut bigger = case.clone();
    bigger.root.branches.push(copy);
    let variant = render(&bigger);
    let other = match present_with(present, &variant, options, Oracle::DuplicateBranch)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    if let Some(message) =
        compare_duplicate(&base, &other, case.root.tag_name(), &literal_value(fresh))
    {
        let mut v = violation(Oracle::DuplicateBranch, message, &original, options);
        v.variant = Some((Oracle::DuplicateBranch.name().into(), variant));
        return Err(v);
    }
    Ok(passed(1))
}

/// Compares a presentation with the one of the same union plus a copied branch whose literal is
/// `fresh`; `None` when they differ only as allowed.
pub fn compare_duplicate(base: &Value, other: &Value, tag: &str, fresh: &Value) -> Option<String> {
    let strip = |p: &Value| {
        let mut p = p.clone();
        if let Some(props) = p.get_mut("properties").and_then(Value::as_object_mut) {
            props.remove(tag);
        }
        canonical_text(
            &p,
            Forget {
                alternative_order: true,
                dialect: false,
                draft04: false,
            },
        )
    };
    if strip(base) != strip(other) {
        return Some(format!(
            "a copied branch changes more than the discriminator: {base} vs {other}"
        ));
    }
    let enum_of = |p: &Value| -> Vec<String> {
        let mut e: Vec<String> = p["properties"][tag]["enum"]
            .as_array()
            .map(|a| a.iter().map(|v| sorted_text(&canonical_data(v))).collect())
            .unwrap_or_default();
        e.sort();
        e
    };
    let mut expected = enum_of(base);
    expected.push(sorted_text(&canonical_data(fresh)));
    expected.sort();
    let got = enum_of(other);
    if got != expected {
        return Some(format!(
            "the discriminator enum after adding {fresh} is {got:?}, expected {expected:?}"
        ));
    }
    None
}

/// Dialect invariance (model): every dialect form of the case yields a presentation structurally
/// identical to the Zod v4 form's (annotations, root definitions and the location of definitions
/// ignored).
pub fn dialect_invariance(case: &Case, options: &Options) -> Judged {
    dialect_invariance_with(case, options, &core_present)
}

/// [`dialect_invariance`] of the presentations `present` gives.
pub fn dialect_invariance_with(case: &Case, options: &Options, present: Present<'_>) -> Judged {
    let case = &case.normalized();
    let original = render(case);
    let base = match present_with(present, &original, options, Oracle::Dialect)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    let forget = Forget {
        alternative_order: false,
        dialect: true,
        draft04: false,
    };
    let base_text = canonical_text(&base, forget);
    let mut checked = 0;
    for dialect in DIALECTS.iter().skip(1) {
        let Some(variant) = render_as(case, *dialect) else {
            continue;
        };
        let other = match present_with(present, &variant, options, Oracle::Dialect)? {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        if canonical_text(&other, forget) != base_text {
            let mut v = violation(
                Oracle::Dialect,
                format!(
                    "the {} form yields a different presentation: {other} vs {base}",
                    dialect.name()
                ),
                &original,
                options,
            );
            v.variant = Some((dialect_variant_name(*dialect), variant));
            return Err(v);
        }
        checked += 1;
    }
    Ok(passed(checked))
}

/// Draft forms (model): the reference rendering spelled in draft-04 ([`drafts::rewrite`]) — the
/// tags as one-value `enum`s, and with `const` kept, an unknown keyword there, so that the union
/// is no discriminated union — is judged as a subject of its own by the one-flatten oracles
/// (soundness under draft-04's reading of `integer`, presentation validity by draft-04's
/// meta-schema, …). The violation names the form and the inner oracle; its schema is the form.
pub fn draft_forms(case: &Case, options: &Options) -> Judged {
    let original = render(&case.normalized());
    let mut checked = 0;
    for (keep_const, form) in [(false, "draft-04"), (true, "draft-04 with const kept")] {
        let schema = drafts::rewrite(&original, Draft::Draft4, keep_const);
        let subject = match Subject::prepare(&schema, options) {
            Ok(Ok(subject)) => subject,
            // The judge cannot compile the form: nothing to judge it by.
            Ok(Err(_)) => continue,
            Err(v) => return Err(in_draft_form(v, form)),
        };
        for (_, outcome) in subject.outcomes(Sweep::OneFlatten) {
            if let Outcome::Failed(v) = outcome {
                return Err(in_draft_form(*v, form));
            }
        }
        checked += 1;
    }
    Ok(passed(checked))
}

fn in_draft_form(mut v: Violation, form: &str) -> Violation {
    v.message = format!("the {form} form, {}: {}", v.oracle, v.message);
    v.oracle = Oracle::DraftForms;
    v
}

fn dialect_variant_name(dialect: Dialect) -> String {
    format!("{}:{}", Oracle::Dialect, dialect.name())
}

/// Why a flatten function gave no presentation.
#[derive(Debug, Clone, PartialEq)]
pub enum Unpresented {
    /// The flattener failed where the guarantee needs a presentation (the core's `flatten`
    /// error): a violation of the oracle that asked.
    Failed(String),
    /// Nothing to judge (an implementation refused or skipped the input, crashed or broke the
    /// protocol; counted by the caller): the oracle is skipped with this reason.
    NotJudged(String),
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

/// Everything the harness checks on one generated case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseReport {
    /// Each oracle's outcome, in [`Oracle::ALL`] order (model oracles last).
    pub outcomes: Vec<(Oracle, Outcome)>,
    /// The widening measure of the case.
    pub widening: Option<f64>,
}

impl CaseReport {
    /// The first violation, if any.
    pub fn first_violation(&self) -> Option<&Violation> {
        self.outcomes.iter().find_map(|(_, o)| match o {
            Outcome::Failed(v) => Some(&**v),
            _ => None,
        })
    }
}

/// Runs every oracle on one case under `options`, returning all outcomes (a violation is an
/// outcome, not an early return).
pub fn evaluate_case(case: &Case, options: &Options) -> CaseReport {
    evaluate_case_with(case, options, Sweep::Full)
}

/// [`evaluate_case`] with the oracles of `sweep` only.
pub fn evaluate_case_with(case: &Case, options: &Options, sweep: Sweep) -> CaseReport {
    let case = case.normalized();
    let original = render(&case);
    let run = |r: Judged| r.unwrap_or_else(|v| Outcome::Failed(Box::new(v)));
    let (mut outcomes, widening) = match Subject::prepare(&original, options) {
        Ok(Ok(subject)) => {
            let widening = (sweep == Sweep::Full).then(|| subject.widening()).flatten();
            (subject.outcomes(sweep), widening)
        }
        Ok(Err(reason)) => (
            vec![(Oracle::FlattenAccepts, Outcome::Skipped(reason))],
            None,
        ),
        Err(v) => (
            vec![(Oracle::FlattenAccepts, Outcome::Failed(Box::new(v)))],
            None,
        ),
    };
    if sweep == Sweep::Full {
        outcomes.push((
            Oracle::BranchOrder,
            run(branch_order_invariance(&case, options)),
        ));
        outcomes.push((
            Oracle::DuplicateBranch,
            run(duplicate_branch_invariance(&case, options)),
        ));
        outcomes.push((Oracle::Dialect, run(dialect_invariance(&case, options))));
        outcomes.push((Oracle::DraftForms, run(draft_forms(&case, options))));
    }
    CaseReport { outcomes, widening }
}

/// Runs the oracles of `sweep` on one case, the first violation as the error; the
/// `join_structured` fuzz target's entry point. The case is normalised first.
pub fn check_case(case: &Case, options: &Options, sweep: Sweep) -> Result<CaseReport, Violation> {
    let report = evaluate_case_with(case, options, sweep);
    match report.first_violation() {
        Some(v) => Err(v.clone()),
        None => Ok(report),
    }
}
