//! Reading the corpus and replaying every file through the oracles.
//!
//! Files under a corpus folder are recognised by shape:
//! - a **case** or a list of cases in the join-test format, in the style of JSON-Schema-Test-Suite:
//!   `{"description", "schema", "options"?, "presentation"?, "description_contains"?,
//!   "variants"?, "tests": [{"description"?, "data", "original": bool, "presentation": bool}]}`
//!   (`corpus/spec/`, `corpus/regressions/`);
//! - an MCP **manifest** (`{"tools": [...]}`): every tool's `inputSchema`, and the manifest path;
//! - an **instances** file under `instances/` (`{"values", "mixes"}`): hand-written values for the
//!   dialect files of the same name, not replayed on its own;
//! - a **fuzz regression** (`{"description", "target", "input"...}`, see
//!   [`crate::fuzz::regression`]): replayed through the check of its fuzz target;
//! - anything else is a **raw schema** (dialect samples), replayed under both readings.
//!
//! This is the one corpus replayer: `flatjoin check`, `cargo test` and `fuzz-corpus replay` all
//! replay through [`replay_file`]. Its one list of known failures is the `"xfail": "why"` line of
//! the files themselves (case files and fuzz regressions alike; `known_failure`): such a file is
//! expected to fail (its failures are reported as skipped, with the reason), and fails the replay
//! once it passes, so the marker is removed and the file guards the fix from then on.
//!
//! `presentation` is compared by structural identity (annotations ignored); `description_contains`
//! maps JSON pointers of the presentation to texts its `description` must contain; `variants` are
//! other schemas whose presentation must relate to this one's as their `compare` says
//! (`branch-order-invariance`, `dialect-invariance`, `duplicate-branch-invariance`).

use std::path::{Path, PathBuf};

use flatjoin::{OpenBranches, Options, OptionsError};
use serde_json::Value;

use crate::oracle::{self, Oracle, Outcome, Subject, Violation};

mod case;
pub mod walk;

pub use case::compare_variant_with;
use case::{JoinCase, replay_case};

/// The outcomes of replaying one corpus file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// `(oracle, outcome)` for every check run on it.
    pub outcomes: Vec<(Oracle, Outcome)>,
}

/// Every `.json` file under `dir`, sorted ([`walk::json_files`]), skipping `instances/` (values
/// for the dialect files) and `json-schema-test-suite/` (its own format, [`crate::suite`]).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    walk::json_files(dir, &["instances", "json-schema-test-suite"])
}

/// The options a case file asks for (`{"open_branches": "permissive", "scope": "root"}`,
/// [`Options::from_json`]); anything missing is the default, and so are no options at all.
pub fn options_from(value: Option<&Value>) -> Result<Options, OptionsError> {
    value.map_or_else(|| Ok(Options::default()), Options::from_json)
}

#[cfg(feature = "fault-injection")]
fn with_fault(mut options: Options, base: &Options) -> Options {
    options.fault = base.fault;
    options
}

#[cfg(not(feature = "fault-injection"))]
fn with_fault(options: Options, _base: &Options) -> Options {
    options
}

fn failed(v: Violation) -> Outcome {
    Outcome::Failed(Box::new(v))
}

/// Replays one file. `base` supplies the injected fault (if any); each case's own options apply.
pub fn replay_file(path: &Path, base: &Options) -> FileReport {
    let outcomes = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .map(|b| flatjoin::parse(&b))
    {
        // A fuzz input that is not JSON (or nests too deep): the core answered with a typed error
        // instead of panicking, which is all SPEC §5 asks of it.
        Ok(Err(e)) => vec![(
            Oracle::FlattenAccepts,
            Outcome::Skipped(format!("not a JSON document the core accepts: {e}").into()),
        )],
        Err(e) => vec![(
            Oracle::CorpusExpectations,
            failed(Violation {
                oracle: Oracle::CorpusExpectations,
                message: format!("{}: unreadable corpus file: {e}", path.display()),
                schema: Value::Null,
                options: base.clone(),
                data: None,
                variant: None,
            }),
        )],
        Ok(Ok(value)) => replay_value(path, &value, base),
    };
    FileReport {
        path: path.to_path_buf(),
        outcomes,
    }
}

fn is_case(v: &Value) -> bool {
    v.get("schema").is_some() && (v.get("tests").is_some() || v.get("description").is_some())
}

/// How the skip of a known failure's oracle begins (then the `xfail` reason, `; it fails: ` and
/// the failure): the report lists these skips as the run's known failures.
pub const KNOWN_FAILURE: &str = "known failure, xfail: ";

/// The known failure a corpus document declares: its `"xfail"` reason (see the module
/// documentation).
fn known_failure(value: &Value) -> Option<&str> {
    value.get("xfail").and_then(Value::as_str)
}

/// Replays one parsed corpus document (see the module documentation for the shapes), honouring
/// its `known_failure`.
pub fn replay_value(path: &Path, value: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    let outcomes = replay_shape(path, value, base);
    match known_failure(value) {
        None if value.get("xfail").is_some() => vec![(
            Oracle::CorpusExpectations,
            failed(Violation::new(
                Oracle::CorpusExpectations,
                format!("{}: `xfail` is not a string", path.display()),
                value,
                base,
            )),
        )],
        None => outcomes,
        Some(why) => expect_failure(path, value, base, why, outcomes),
    }
}

/// The outcomes of a file marked `xfail`: its failures become skips naming the reason; a file
/// that no longer fails is a failure telling to delete the marker.
fn expect_failure(
    path: &Path,
    value: &Value,
    base: &Options,
    why: &str,
    outcomes: Vec<(Oracle, Outcome)>,
) -> Vec<(Oracle, Outcome)> {
    if !outcomes
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Failed(_)))
    {
        let message = format!(
            "{}: passes now but is marked xfail ({why}): delete its \"xfail\" line so it guards the fix",
            path.display()
        );
        return vec![(
            Oracle::CorpusExpectations,
            failed(Violation::new(
                Oracle::CorpusExpectations,
                message,
                value,
                base,
            )),
        )];
    }
    known_failure_skips(why, outcomes)
}

/// `outcomes` of a known failure (reason `why`): each failure a skip naming the reason, as
/// both drivers count it (in process, and flatjoin or another flattener behind the protocol).
pub(crate) fn known_failure_skips(
    why: &str,
    outcomes: Vec<(Oracle, Outcome)>,
) -> Vec<(Oracle, Outcome)> {
    outcomes
        .into_iter()
        .map(|(oracle, outcome)| match outcome {
            Outcome::Failed(v) => (
                oracle,
                Outcome::Skipped(format!("{KNOWN_FAILURE}{why}; it fails: {}", v.message).into()),
            ),
            other => (oracle, other),
        })
        .collect()
}

fn replay_shape(path: &Path, value: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    match value {
        v if v.get("target").is_some() => replay_fuzz_regression(path, v, base),
        Value::Array(cases) if cases.iter().all(is_case) => {
            cases.iter().flat_map(|c| replay_case(c, base)).collect()
        }
        v if is_case(v) => replay_case(v, base),
        v if v.get("tools").is_some_and(Value::is_array) => replay_manifest(v, base),
        v => {
            let (values, mixes) = instances_for(path);
            let mut out = Vec::new();
            for reading in OpenBranches::ALL {
                let options = with_fault(Options::default().with_open_branches(reading), base);
                out.extend(replay_schema(v, &options, values.clone(), mixes.clone()));
            }
            out
        }
    }
}

/// Replays a fuzz regression through the check of its target (the fuzz target's own code, on
/// stable). A panic of the check is a failure, as the fuzzer would report it.
#[cfg(feature = "arbitrary")]
fn replay_fuzz_regression(path: &Path, value: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    let problem = |message: String| {
        vec![(
            Oracle::CorpusExpectations,
            failed(Violation::new(
                Oracle::CorpusExpectations,
                format!("{}: {message}", path.display()),
                value,
                base,
            )),
        )]
    };
    let regression = match crate::fuzz::Regression::from_json(value) {
        Ok(Some(regression)) => regression,
        Ok(None) => return problem("not a fuzz regression".to_owned()),
        Err(e) => return problem(format!("unreadable fuzz regression: {e}")),
    };
    match std::panic::catch_unwind(|| regression.replay()) {
        Ok(Ok(_)) => vec![(
            Oracle::CorpusExpectations,
            Outcome::Passed(oracle::Measure {
                checked: 1,
                ..oracle::Measure::default()
            }),
        )],
        Ok(Err(violation)) => vec![(violation.oracle, Outcome::Failed(violation))],
        Err(_) => problem(format!(
            "the {} check panicked (found as: {})",
            regression.target, regression.description
        )),
    }
}

/// Without the fuzz checks (feature `arbitrary` off) a fuzz regression cannot be replayed: a
/// failure, never a silent pass.
#[cfg(not(feature = "arbitrary"))]
fn replay_fuzz_regression(path: &Path, value: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    vec![(
        Oracle::CorpusExpectations,
        failed(Violation::new(
            Oracle::CorpusExpectations,
            format!(
                "{}: a fuzz regression, and this build has no fuzz checks (feature `arbitrary`)",
                path.display()
            ),
            value,
            base,
        )),
    )]
}

/// The hand-written `values` and `mixes` of `<corpus>/instances/<stem>.json` for a file at
/// `<corpus>/dialects/<emitter>/<stem>.json`.
fn instances_for(path: &Path) -> (Vec<Value>, Vec<Value>) {
    let found = (|| {
        let stem = path.file_name()?;
        let corpus = path.parent()?.parent()?.parent()?;
        let bytes = std::fs::read(corpus.join("instances").join(stem)).ok()?;
        flatjoin::parse(&bytes).ok()
    })();
    let list = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    match found {
        Some(v) => (list(&v, "values"), list(&v, "mixes")),
        None => (Vec::new(), Vec::new()),
    }
}

fn replay_schema(
    schema: &Value,
    options: &Options,
    values: Vec<Value>,
    mixes: Vec<Value>,
) -> Vec<(Oracle, Outcome)> {
    match Subject::prepare(schema, options) {
        Ok(Ok(subject)) => subject.with_instances(values, mixes).all(),
        Ok(Err(reason)) => Subject::unjudgeable(&reason, oracle::Sweep::Full),
        Err(v) => vec![(Oracle::FlattenAccepts, failed(v))],
    }
}

fn replay_manifest(manifest: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    let options = with_fault(Options::default(), base);
    let mut out = Vec::new();
    let tools = manifest
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // Each tool's schema under both readings, like a raw schema (and as the protocol sends it).
    for tool in &tools {
        if let Some(schema) = tool.get("inputSchema") {
            for reading in OpenBranches::ALL {
                let options = options.clone().with_open_branches(reading);
                out.extend(replay_schema(schema, &options, Vec::new(), Vec::new()));
            }
        }
    }
    // The manifest path as a whole: byte-identical to flattening each tool on its own.
    let outcome = match flatjoin::flatten_manifest(manifest, &options) {
        Err(e) => failed(manifest_violation(
            manifest,
            &options,
            format!("flatten_manifest failed: {e}"),
        )),
        Ok(flat) => {
            let mut problem = None;
            for (i, tool) in tools.iter().enumerate() {
                let got = &flat.manifest["tools"][i];
                let mut rest_in = tool.clone();
                let mut rest_out = got.clone();
                if let (Some(a), Some(b)) = (rest_in.as_object_mut(), rest_out.as_object_mut()) {
                    a.remove("inputSchema");
                    b.remove("inputSchema");
                }
                if rest_in != rest_out {
                    problem = Some(format!("tool {i}: fields other than inputSchema changed"));
                }
                if let Some(schema) = tool.get("inputSchema") {
                    let alone = flatjoin::flatten(schema, &options).map(|f| f.schema);
                    let same = alone.is_ok_and(|s| {
                        serde_json::to_string(&s).ok()
                            == serde_json::to_string(&got["inputSchema"]).ok()
                    });
                    if !same {
                        problem = Some(format!("tool {i}: the manifest path differs from flatten"));
                    }
                }
            }
            match problem {
                Some(p) => failed(manifest_violation(manifest, &options, p)),
                None => Outcome::Passed(oracle::Measure {
                    checked: tools.len(),
                    ..oracle::Measure::default()
                }),
            }
        }
    };
    out.push((Oracle::OneImplementation, outcome));
    out
}

fn manifest_violation(manifest: &Value, options: &Options, message: String) -> Violation {
    Violation {
        oracle: Oracle::OneImplementation,
        message,
        schema: manifest.clone(),
        options: options.clone(),
        data: None,
        variant: None,
    }
}
/// A violation as a corpus case: the schema, its options, the counterexample value (with the
/// verdicts SPEC requires: the original accepts it, so the presentation must), and any variant.
pub fn regression_case(v: &Violation, found_by: &str) -> Value {
    let mut case = serde_json::Map::new();
    case.insert(
        "description".into(),
        Value::String(format!("{}: {}", v.oracle, first_line(&v.message))),
    );
    case.insert("found_by".into(), Value::String(found_by.to_owned()));
    case.insert("oracle".into(), Value::String(v.oracle.name().to_owned()));
    let mut options = v.options.to_json();
    if let Some(o) = options.as_object_mut() {
        o.remove("fault");
    }
    case.insert("options".into(), options);
    case.insert("schema".into(), v.schema.clone());
    let mut tests = Vec::new();
    if let Some(data) = &v.data {
        let original = oracle::judge(&v.schema).is_ok_and(|j| j.is_valid(data));
        let mut t = serde_json::Map::new();
        t.insert(
            "description".into(),
            Value::String("the counterexample".into()),
        );
        t.insert("data".into(), data.clone());
        t.insert("original".into(), Value::Bool(original));
        if original {
            t.insert("presentation".into(), Value::Bool(true));
        }
        tests.push(Value::Object(t));
    }
    case.insert("tests".into(), Value::Array(tests));
    if let Some((kind, variant)) = &v.variant
        && (kind.starts_with(Oracle::Dialect.name())
            || kind == Oracle::BranchOrder.name()
            || kind == Oracle::DuplicateBranch.name())
    {
        case.insert(
            "variants".into(),
            serde_json::json!([{"compare": kind, "schema": variant}]),
        );
    }
    Value::Object(case)
}

/// The first line of `text`, cut at 160 characters (`…` where cut).
pub(crate) fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut short: String = line.chars().take(160).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    short
}

/// One schema a corpus file holds, as `flatjoin check --implementation` sends it through the
/// protocol ([`crate::protocol::run`]): the same shapes [`replay_file`] reads, without what only
/// the core can be asked (a case's expected presentation and description texts, the manifest
/// path, fuzz regressions, which replay a fuzz target's own check).
#[derive(Debug, Clone)]
pub struct Input {
    /// The file, and the tool or case within it.
    pub label: String,
    /// The original schema.
    pub schema: Value,
    /// The options a case file asks for; `None` (raw schemas, manifest tools): each reading
    /// the implementation declares.
    pub options: Option<Options>,
    /// Values the presentation must accept besides the sampled ones: a case's tests the original
    /// accepts (and does not mark outside the presentation's promise), a dialect sample's
    /// hand-written instances.
    pub values: Vec<Value>,
    /// A case's `variants`: `(compare, schema)`, judged by [`compare_variant_with`].
    pub variants: Vec<(String, Value)>,
    /// The file's `"xfail"` reason: a known failure of the core, whose failures count as skips
    /// for every flattener (SPEC §6 decision 88).
    pub known_failure: Option<String>,
}

/// The [`Input`]s of one corpus file (none for a fuzz regression or an unreadable file).
pub fn inputs(path: &Path) -> Vec<Input> {
    let Ok(Ok(value)) = std::fs::read(path).map(|b| flatjoin::parse(&b)) else {
        return Vec::new();
    };
    let label = path.display().to_string();
    let case_input = |case: &Value, label: String| -> Option<Input> {
        let case = JoinCase::read(case)?;
        Some(Input {
            label,
            schema: case.schema.clone(),
            options: Some(case.options.clone()),
            values: case.accepted_values(),
            variants: case
                .variants
                .iter()
                .map(|(compare, schema)| ((*compare).to_owned(), (*schema).clone()))
                .collect(),
            known_failure: None,
        })
    };
    let mut inputs = match &value {
        v if v.get("target").is_some() => Vec::new(),
        Value::Array(cases) if cases.iter().all(is_case) => cases
            .iter()
            .enumerate()
            .filter_map(|(i, c)| case_input(c, format!("{label} [{i}]")))
            .collect(),
        v if is_case(v) => case_input(v, label).into_iter().collect(),
        v if v.get("tools").is_some_and(Value::is_array) => v["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| {
                Some(Input {
                    label: format!(
                        "{label} tool {}",
                        tool.get("name").and_then(Value::as_str).unwrap_or("?")
                    ),
                    schema: tool.get("inputSchema")?.clone(),
                    options: None,
                    values: Vec::new(),
                    variants: Vec::new(),
                    known_failure: None,
                })
            })
            .collect(),
        v => vec![Input {
            label,
            schema: v.clone(),
            options: None,
            values: instances_for(path).0,
            variants: Vec::new(),
            known_failure: None,
        }],
    };
    if let Some(why) = known_failure(&value) {
        for input in &mut inputs {
            input.known_failure = Some(why.to_owned());
        }
    }
    inputs
}
