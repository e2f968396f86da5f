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
//! the files themselves (case files and fuzz regressions alike; [`known_failure`]): such a file is
//! expected to fail (its failures are reported as skipped, with the reason), and fails the replay
//! once it passes, so the marker is removed and the file guards the fix from then on.
//!
//! `presentation` is compared by structural identity (annotations ignored); `description_contains`
//! maps JSON pointers of the presentation to texts its `description` must contain; `variants` are
//! other schemas whose presentation must relate to this one's as their `compare` says
//! (`branch-order-invariance`, `dialect-invariance`, `duplicate-branch-invariance`).

use std::path::{Path, PathBuf};

use flatjoin::{OpenBranches, Options, Scope};
use serde_json::Value;

use crate::identity::{Forget, canonical_text};
use crate::oracle::{self, Oracle, Outcome, Subject, Violation};

/// The outcomes of replaying one corpus file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// `(oracle, outcome)` for every check run on it.
    pub outcomes: Vec<(Oracle, Outcome)>,
}

/// Every `.json` file under `dir`, sorted, skipping `instances/` (data for the dialect files).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                // `instances/` holds values, `json-schema-test-suite/` its own format (`suite.rs`).
                if path
                    .file_name()
                    .is_some_and(|n| n != "instances" && n != "json-schema-test-suite")
                {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The options a case file asks for (`{"open_branches": "permissive", "scope": "root"}`);
/// anything missing is the default.
pub fn options_from(value: Option<&Value>) -> Options {
    let mut options = Options::default();
    if let Some(v) = value {
        if v.get("open_branches").and_then(Value::as_str) == Some("permissive") {
            options.open_branches = OpenBranches::Permissive;
        }
        if v.get("scope").and_then(Value::as_str) == Some("root") {
            options.scope = Scope::Root;
        }
    }
    options
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
            Outcome::Skipped(format!("not a JSON document the core accepts: {e}")),
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

/// The known failure a corpus document declares: its `"xfail"` reason (see the module
/// documentation).
pub fn known_failure(value: &Value) -> Option<&str> {
    value.get("xfail").and_then(Value::as_str)
}

/// Replays one parsed corpus document (see the module documentation for the shapes), honouring
/// its [`known_failure`].
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
    outcomes
        .into_iter()
        .map(|(oracle, outcome)| match outcome {
            Outcome::Failed(v) => (
                oracle,
                Outcome::Skipped(format!("known failure (xfail: {why}): {}", v.message)),
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
            for reading in [OpenBranches::Declared, OpenBranches::Permissive] {
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
        Ok(Err(reason)) => vec![(Oracle::FlattenAccepts, Outcome::Skipped(reason))],
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
    for tool in &tools {
        if let Some(schema) = tool.get("inputSchema") {
            out.extend(replay_schema(schema, &options, Vec::new(), Vec::new()));
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

/// Replays one case of the join-test format: every schema-level oracle under the case's options,
/// then the case's own expectations.
pub fn replay_case(case: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    let Some(schema) = case.get("schema") else {
        return Vec::new();
    };
    let description = case
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("(no description)");
    let options = with_fault(options_from(case.get("options")), base);
    let subject = match Subject::prepare(schema, &options) {
        Ok(Ok(s)) => s,
        Ok(Err(reason)) => return vec![(Oracle::FlattenAccepts, Outcome::Skipped(reason))],
        Err(v) => return vec![(Oracle::FlattenAccepts, failed(v))],
    };
    let tests: Vec<Value> = case
        .get("tests")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let accepted: Vec<Value> = tests
        .iter()
        .filter(|t| t.get("original") == Some(&Value::Bool(true)))
        // A test the case marks as outside the presentation's promise (the declared reading's
        // keys of other branches) is not a soundness sample.
        .filter(|t| t.get("presentation") != Some(&Value::Bool(false)))
        .filter_map(|t| t.get("data").cloned())
        .collect();
    let subject = subject.with_instances(accepted, Vec::new());
    let mut out = subject.all();
    let fail = |message: String, data: Option<Value>| {
        failed(Violation {
            oracle: Oracle::CorpusExpectations,
            message: format!("{description}: {message}"),
            schema: schema.clone(),
            options: options.clone(),
            data,
            variant: None,
        })
    };
    let mut expectation = Outcome::Passed(oracle::Measure {
        checked: tests.len(),
        ..oracle::Measure::default()
    });
    for test in &tests {
        let Some(data) = test.get("data") else {
            continue;
        };
        let label = test
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("test");
        if let Some(expected) = test.get("original").and_then(Value::as_bool)
            && subject.original_accepts(data) != expected
        {
            expectation = fail(
                format!(
                    "{label}: the original's verdict is not {expected} (the corpus case is wrong)"
                ),
                Some(data.clone()),
            );
            break;
        }
        if let Some(expected) = test.get("presentation").and_then(Value::as_bool)
            && subject.presentation_accepts(data) != expected
        {
            expectation = fail(
                format!(
                    "{label}: the presentation's verdict is not {expected}; presentation: {}",
                    subject.flattened.schema
                ),
                Some(data.clone()),
            );
            break;
        }
    }
    if let Some(expected) = case.get("presentation")
        && canonical_text(expected, Forget::default())
            != canonical_text(&subject.flattened.schema, Forget::default())
    {
        expectation = fail(
            format!(
                "the presentation differs from the expected one (annotations ignored): got {}",
                subject.flattened.schema
            ),
            None,
        );
    }
    if let Some(Value::Object(texts)) = case.get("description_contains") {
        for (pointer, wanted) in texts {
            let description = subject
                .flattened
                .schema
                .pointer(pointer)
                .and_then(|n| n.get("description"))
                .and_then(Value::as_str)
                .unwrap_or("");
            for w in wanted
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !description.contains(w) {
                    expectation = fail(
                        format!(
                            "the description at {pointer} ({description:?}) does not contain {w:?}"
                        ),
                        None,
                    );
                }
            }
        }
    }
    out.push((Oracle::CorpusExpectations, expectation));
    for variant in case
        .get("variants")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(other), Some(compare)) = (
            variant.get("schema"),
            variant.get("compare").and_then(Value::as_str),
        ) else {
            continue;
        };
        out.push(compare_variant(&subject, other, compare, &options));
    }
    out
}

fn compare_variant(
    subject: &Subject,
    other: &Value,
    compare: &str,
    options: &Options,
) -> (Oracle, Outcome) {
    let base = &subject.flattened.schema;
    let (oracle, forget) = match compare {
        c if c.starts_with(Oracle::Dialect.name()) => (
            Oracle::Dialect,
            Forget {
                alternative_order: false,
                dialect: true,
                draft04: false,
            },
        ),
        c if c == Oracle::DuplicateBranch.name() => (Oracle::DuplicateBranch, Forget::default()),
        _ => (
            Oracle::BranchOrder,
            Forget {
                alternative_order: true,
                dialect: false,
                draft04: false,
            },
        ),
    };
    let violation = |message: String| Violation {
        oracle,
        message,
        schema: subject.original.clone(),
        options: options.clone(),
        data: None,
        variant: Some((compare.to_owned(), other.clone())),
    };
    let presented = match flatjoin::flatten(other, options) {
        Ok(f) => f.schema,
        Err(e) => {
            return (
                oracle,
                failed(violation(format!("flatten failed on the variant: {e}"))),
            );
        }
    };
    let problem = if oracle == Oracle::DuplicateBranch {
        let tag = oracle::discriminated_root(&subject.original).map(|u| u.tag);
        let fresh = oracle::discriminated_root(other)
            .and_then(|u| u.literals.last().and_then(|l| l.first().cloned()));
        match (tag, fresh) {
            (Some(tag), Some(fresh)) => oracle::compare_duplicate(base, &presented, &tag, &fresh),
            _ => Some("the variant is not a discriminated union with an added branch".into()),
        }
    } else if canonical_text(base, forget) != canonical_text(&presented, forget) {
        Some(format!(
            "the variant's presentation differs: {presented} vs {base}"
        ))
    } else {
        None
    };
    match problem {
        Some(p) => (oracle, failed(violation(p))),
        None => (
            oracle,
            Outcome::Passed(oracle::Measure {
                checked: 1,
                ..oracle::Measure::default()
            }),
        ),
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
    let mut options = oracle::options_json(&v.options);
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

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut short: String = line.chars().take(160).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    short
}
