//! The official JSON-Schema-Test-Suite as a corpus (`corpus/json-schema-test-suite/`, drafts
//! 2020-12, 2019-09, 07, 06 and 04; see `corpus/README.md` for its origin and commit).
//!
//! Three parts, each judged by `jsonschema` (never by core code), with the suite's `remotes/`
//! registered under `http://localhost:1234/` through an offline retriever (nothing is fetched):
//!
//! - **flatten**: every suite schema is flattened; each instance the suite calls valid (and the
//!   judge accepts with the original), when the `declared` reading promises it (below), must be
//!   accepted by the presentation. A schema the core refuses is counted as unrunnable, with its
//!   error.
//! - **wrapped**: every suite schema is wrapped into discriminated unions (as a branch's own
//!   keywords, and as a `payload` property; one and two branches); each instance, tagged, that the
//!   judge accepts with the wrapped original, and that the `declared` reading promises (the
//!   original restricted to it accepts it too, SPEC §2.8, §6 decision 62; the rest is counted as
//!   not promised), must be accepted by its presentation (soundness).
//! - **validate**: `flatjoin::Runtime`'s verdict (what `flatjoin validate` prints) must equal the
//!   suite's on every required test (not under `optional/`), except the tests in [`XFAIL`].
//!
//! The flatten and wrapped parts flatten through a [`Flatten`] function ([`SuiteRun`]): the core
//! in process, or an implementation behind the protocol, which the same parts judge the same
//! way (SPEC §6 decision 75); the validate part judges the core's runtime, in process only.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use flatjoin::Options;
use serde_json::{Map, Value, json};

use crate::oracle::Flatten;

/// The drafts the suite corpus covers, by their folder name under `tests/`.
pub const DRAFTS: [&str; 5] = ["draft2020-12", "draft2019-09", "draft7", "draft6", "draft4"];

/// The one list of known failures of the `validate` part: (draft, file below the draft folder,
/// group description, test description or `*` for the whole group, why). Kept as jsonschema keeps
/// its own: a failure not listed fails the run, and a listed test that passes is reported stale.
pub const XFAIL: &[(&str, &str, &str, &str, &str)] = &[];

/// The folder of the vendored suite (from the harness crate).
pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/json-schema-test-suite")
}

/// The suite's `remotes/`, served as `http://localhost:1234/<path>` without any network access.
#[derive(Debug, Clone, Default)]
pub struct Remotes {
    docs: HashMap<String, Value>,
}

impl Remotes {
    /// Loads every JSON file under `remotes/`.
    pub fn load(suite: &Path) -> Remotes {
        let root = suite.join("remotes");
        let mut docs = HashMap::new();
        for path in crate::corpus::walk::json_files(&root, &[]) {
            let Ok(rel) = path.strip_prefix(&root) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if let Some(v) = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
            {
                docs.insert(format!("http://localhost:1234/{rel}"), v);
            }
        }
        Remotes { docs }
    }

    /// The documents, by URI.
    pub fn documents(&self) -> &HashMap<String, Value> {
        &self.docs
    }
}

impl jsonschema::Retrieve for Remotes {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str().split('#').next().unwrap_or_default();
        self.docs
            .get(key)
            .cloned()
            .ok_or_else(|| format!("{key} is not among the suite's remotes (offline)").into())
    }
}

/// The judge's draft for a suite folder.
fn draft_of(draft: &str) -> jsonschema::Draft {
    match draft {
        "draft4" => jsonschema::Draft::Draft4,
        "draft6" => jsonschema::Draft::Draft6,
        "draft7" => jsonschema::Draft::Draft7,
        "draft2019-09" => jsonschema::Draft::Draft201909,
        _ => jsonschema::Draft::Draft202012,
    }
}

/// The `$schema` a document of a suite folder declares.
fn meta_schema_of(draft: &str) -> &'static str {
    match draft {
        "draft4" => "http://json-schema.org/draft-04/schema#",
        "draft6" => "http://json-schema.org/draft-06/schema#",
        "draft7" => "http://json-schema.org/draft-07/schema#",
        "draft2019-09" => "https://json-schema.org/draft/2019-09/schema",
        _ => "https://json-schema.org/draft/2020-12/schema",
    }
}

/// Compiles `schema` with the independent judge (`jsonschema`, the suite's draft, offline remotes;
/// formats as the draft's default: `jsonschema` asserts them for draft-07, not for 2020-12).
pub fn judge(
    schema: &Value,
    draft: &str,
    remotes: &Remotes,
) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(draft_of(draft))
        .with_retriever(remotes.clone())
        .build(schema)
        .map_err(|e| e.to_string())
}

/// One test of the suite.
#[derive(Debug, Clone)]
pub struct SuiteTest {
    /// `draft/file` with the group and test descriptions, for messages.
    pub id: String,
    /// The file below the draft folder (`ref.json`, `optional/format/date.json`).
    pub file: String,
    /// Group description.
    pub group: String,
    /// Test description.
    pub test: String,
    /// The instance.
    pub data: Value,
    /// The suite's verdict.
    pub valid: bool,
}

/// One group: a schema and its tests.
#[derive(Debug, Clone)]
pub struct SuiteGroup {
    /// `draft/file: group`.
    pub id: String,
    /// The file below the draft folder.
    pub file: String,
    /// Whether the file is under `optional/`.
    pub optional: bool,
    /// The schema.
    pub schema: Value,
    /// Its tests.
    pub tests: Vec<SuiteTest>,
}

/// Every group of one draft, in file order.
pub fn groups(suite: &Path, draft: &str) -> Vec<SuiteGroup> {
    let root = suite.join("tests").join(draft);
    let mut out = Vec::new();
    for path in crate::corpus::walk::json_files(&root, &[]) {
        let file = path
            .strip_prefix(&root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let Some(Value::Array(items)) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        else {
            continue;
        };
        for g in items {
            let group = g["description"].as_str().unwrap_or_default().to_owned();
            let id = format!("{draft}/{file}: {group}");
            let tests = g["tests"]
                .as_array()
                .map(|ts| {
                    ts.iter()
                        .map(|t| {
                            let test = t["description"].as_str().unwrap_or_default().to_owned();
                            SuiteTest {
                                id: format!("{id} / {test}"),
                                file: file.clone(),
                                group: group.clone(),
                                test,
                                data: t["data"].clone(),
                                valid: t["valid"].as_bool().unwrap_or(false),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.push(SuiteGroup {
                id,
                optional: file.starts_with("optional/"),
                file: file.clone(),
                schema: g["schema"].clone(),
                tests,
            });
        }
    }
    out
}

/// Counts of one part.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartCounts {
    /// Schemas (or wrapped schemas) run.
    pub schemas: usize,
    /// Of those, how many had at least one union flattened (the join really ran).
    pub flattened: usize,
    /// Instances judged.
    pub instances: usize,
    /// Instances that passed.
    pub passed: usize,
    /// Schemas that could not be run (the core refused them, or the judge cannot compile the
    /// original), each with why.
    pub unrunnable: Vec<String>,
    /// Failures, each a line naming the test.
    pub failures: Vec<String>,
    /// Instances the original accepts outside what the `declared` reading promises (SPEC §2.8,
    /// §6 decision 62): the original restricted to the promise rejects them, so they are not
    /// judged (the flatten and wrapped parts). Left out of the results file while zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_promised: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What the suite corpus found for one draft (serialized as is in `flatjoin check`'s results
/// file, `crate::shard::Results`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SuiteReport {
    /// The draft folder.
    pub draft: String,
    /// Part (a): presentations accept the suite's valid instances.
    pub flatten: PartCounts,
    /// Part (b): wrapped into discriminated unions, presentations accept what the original does.
    pub wrapped: PartCounts,
    /// Part (c): the runtime's verdict equals the suite's (required tests only).
    pub validate: PartCounts,
    /// Required tests that failed as [`XFAIL`] expects.
    pub xfailed: usize,
    /// [`XFAIL`] entries of this draft that passed (stale: to be removed from the list).
    pub stale_xfail: Vec<String>,
}

impl SuiteReport {
    /// Failures of all three parts, plus stale xfail entries.
    pub fn failed(&self) -> usize {
        self.flatten.failures.len()
            + self.wrapped.failures.len()
            + self.validate.failures.len()
            + self.stale_xfail.len()
    }

    /// One line per part.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for (name, c) in [
            ("flatten", &self.flatten),
            ("wrapped", &self.wrapped),
            ("validate", &self.validate),
        ] {
            let _ = writeln!(
                s,
                "suite {} {name}: {} schemas ({} with a union flattened), {} instances, {} passed, {} failed, {} unrunnable, {} not promised",
                self.draft,
                c.schemas,
                c.flattened,
                c.instances,
                c.passed,
                c.failures.len(),
                c.unrunnable.len(),
                c.not_promised
            );
        }
        let _ = writeln!(
            s,
            "suite {} xfail: {} expected failures, {} stale entries",
            self.draft,
            self.xfailed,
            self.stale_xfail.len()
        );
        s
    }
}

fn xfail_reason(draft: &str, t: &SuiteTest) -> Option<&'static str> {
    XFAIL
        .iter()
        .find(|(d, f, g, name, _)| {
            *d == draft && *f == t.file && *g == t.group && (*name == "*" || *name == t.test)
        })
        .map(|e| e.4)
}

/// How a run of the suite flattens: the flattener, the options it is asked under, and whether
/// the validate part (the core's runtime) runs.
pub struct SuiteRun<'a> {
    /// The flattener of the flatten and wrapped parts.
    pub flatten: Flatten<'a>,
    /// The options every schema is flattened under.
    pub options: Options,
    /// Whether the validate part runs (the core in process).
    pub runtime: bool,
}

impl SuiteRun<'_> {
    /// The core in process under the default options, all three parts.
    pub fn core() -> SuiteRun<'static> {
        SuiteRun {
            flatten: &crate::oracle::core_flatten,
            options: Options::default(),
            runtime: true,
        }
    }
}

/// Runs the parts of `run` over one draft of the suite.
pub fn run_draft(suite: &Path, draft: &str, run: &SuiteRun<'_>) -> SuiteReport {
    let remotes = Remotes::load(suite);
    let mut report = SuiteReport {
        draft: draft.to_owned(),
        ..SuiteReport::default()
    };
    let mut xfail_hit: Vec<String> = Vec::new();
    for mut g in groups(suite, draft) {
        // The draft is declared, as a user's schema must be for flatjoin to read it by its rules
        // (an undeclared schema is read as 2020-12).
        g.schema = declared(&g.schema, draft);
        if let Some(meta) = custom_meta_schema(&g.schema) {
            // A custom meta-schema may drop vocabularies (the validation one: `type`, `const`,
            // `required` then assert nothing); the join models the drafts' own vocabularies only.
            let why = format!(
                "{}: custom meta-schema {meta}: vocabularies not modelled",
                g.id
            );
            report.flatten.unrunnable.push(why.clone());
            report.wrapped.unrunnable.push(why);
            if run.runtime && !g.optional {
                validate_part(
                    &g,
                    draft,
                    &remotes,
                    &mut report.validate,
                    &mut report.xfailed,
                    &mut xfail_hit,
                );
            }
            continue;
        }
        let original = match judge(&g.schema, draft, &remotes) {
            Ok(v) => Some(v),
            Err(e) => {
                report
                    .flatten
                    .unrunnable
                    .push(format!("{}: the judge cannot compile it: {e}", g.id));
                None
            }
        };
        if let Some(original) = &original {
            let part = Part {
                draft,
                remotes: &remotes,
                run,
            };
            part.flatten(&g, original, &mut report.flatten);
            part.wrapped(&g, &mut report.wrapped);
        }
        if run.runtime && !g.optional {
            validate_part(
                &g,
                draft,
                &remotes,
                &mut report.validate,
                &mut report.xfailed,
                &mut xfail_hit,
            );
        }
    }
    for (d, f, g, t, _) in XFAIL {
        if run.runtime && *d == draft {
            let key = format!("{d}/{f}: {g} / {t}");
            if !xfail_hit.contains(&key) {
                report
                    .stale_xfail
                    .push(format!("{key}: listed in XFAIL but did not fail"));
            }
        }
    }
    report
}

/// The flatten and wrapped parts of one draft.
struct Part<'a> {
    draft: &'a str,
    remotes: &'a Remotes,
    run: &'a SuiteRun<'a>,
}

impl Part<'_> {
    /// The presentation of `schema` (counting it as flattened when the diagnostics say a union
    /// was), or why there is none, as an unrunnable line of `id`.
    fn present(&self, schema: &Value, id: &str, counts: &mut PartCounts) -> Option<Value> {
        match (self.run.flatten)(schema, &self.run.options) {
            Ok((presentation, diagnostics)) => {
                let flattened = diagnostics
                    .as_ref()
                    .and_then(|d| d["flattened"].as_array())
                    .is_some_and(|sites| !sites.is_empty());
                counts.flattened += usize::from(flattened);
                Some(presentation)
            }
            Err(e) => {
                counts
                    .unrunnable
                    .push(format!("{id}: flatten refused it: {e}"));
                None
            }
        }
    }

    fn flatten(&self, g: &SuiteGroup, original: &jsonschema::Validator, counts: &mut PartCounts) {
        let (draft, remotes, options) = (self.draft, self.remotes, &self.run.options);
        let Some(presentation) = self.present(&g.schema, &g.id, counts) else {
            return;
        };
        counts.schemas += 1;
        let judged = match judge(&presentation, draft, remotes) {
            Ok(v) => v,
            Err(e) => {
                counts.failures.push(format!(
                    "{}: the presentation does not compile: {e}\n  presentation: {presentation}",
                    g.id
                ));
                return;
            }
        };
        // Compiled once, when a first value reaches it.
        let mut promise = None;
        for t in &g.tests {
            if !(t.valid && original.is_valid(&t.data)) {
                continue;
            }
            if promise
                .get_or_insert_with(|| promise_of(&g.schema, draft, remotes, options))
                .as_ref()
                .is_some_and(|p| !p.is_valid(&t.data))
            {
                counts.not_promised += 1;
                continue;
            }
            counts.instances += 1;
            if judged.is_valid(&t.data) {
                counts.passed += 1;
            } else {
                counts.failures.push(format!(
                "{}: the presentation rejects a valid instance {}\n  presentation: {presentation}",
                t.id, t.data
            ));
            }
        }
    }

    fn wrapped(&self, g: &SuiteGroup, counts: &mut PartCounts) {
        let (draft, remotes, options) = (self.draft, self.remotes, &self.run.options);
        let tag = tag_for(&g.schema);
        let forms = TagForm::for_draft(draft)
            .iter()
            .flat_map(|&f| wraps(&g.schema, tag, f));
        for (form, wrapped, value_of) in forms {
            let id = format!("{} [{form}]", g.id);
            let Ok(original) = judge(&wrapped, draft, remotes) else {
                // A wrapping the judge cannot compile (a `$ref` that only resolved at the old root):
                // nothing to compare against.
                counts.unrunnable.push(format!(
                    "{id}: the judge cannot compile the wrapped original"
                ));
                continue;
            };
            let Some(presentation) = self.present(&wrapped, &id, counts) else {
                continue;
            };
            counts.schemas += 1;
            let judged = match judge(&presentation, draft, remotes) {
                Ok(v) => v,
                Err(e) => {
                    counts.failures.push(format!(
                    "{id}: the presentation does not compile: {e}\n  presentation: {presentation}"
                ));
                    continue;
                }
            };
            // Compiled once per wrapping, when a first value reaches it.
            let mut promise = None;
            for t in &g.tests {
                let Some(value) = value_of(tag, &t.data) else {
                    continue;
                };
                if !original.is_valid(&value) {
                    continue;
                }
                if promise
                    .get_or_insert_with(|| promise_of(&wrapped, draft, remotes, options))
                    .as_ref()
                    .is_some_and(|p| !p.is_valid(&value))
                {
                    counts.not_promised += 1;
                    continue;
                }
                counts.instances += 1;
                if judged.is_valid(&value) {
                    counts.passed += 1;
                } else {
                    counts.failures.push(format!(
                    "{} [{form}]: the presentation rejects {value}, which the wrapped original accepts\n  wrapped: {wrapped}\n  presentation: {presentation}",
                    t.id
                ));
                }
            }
        }
    }
}

/// A discriminator name the schema does not mention.
pub fn tag_for(schema: &Value) -> &'static str {
    let text = schema.to_string();
    if text.contains("\"kind\"") {
        "flatjoin_suite_tag"
    } else {
        "kind"
    }
}

/// Root keywords that must stay at the document root when a schema is moved into a union (its
/// definitions, so `#/$defs/...` still resolves; its draft), unless the schema is its own
/// resource (`$id`), which carries them along.
const ROOT_ONLY: [&str; 3] = ["$defs", "definitions", "$schema"];

/// Splits a schema into (what stays at the wrapper's root, the rest).
fn split_root(schema: &Value) -> (Map<String, Value>, Value) {
    let Value::Object(map) = schema else {
        return (Map::new(), schema.clone());
    };
    if map.contains_key("$id") {
        let mut root = Map::new();
        if let Some(s) = map.get("$schema") {
            root.insert("$schema".into(), s.clone());
        }
        return (root, schema.clone());
    }
    let mut root = Map::new();
    let mut rest = Map::new();
    for (k, v) in map {
        if ROOT_ONLY.contains(&k.as_str()) {
            root.insert(k.clone(), v.clone());
        } else {
            rest.insert(k.clone(), v.clone());
        }
    }
    (root, Value::Object(rest))
}

/// The wrapped forms of a suite schema: (name, wrapped schema, how to turn an instance into a
/// value of branch `a`; `None` when the form does not apply to that instance).
pub type Wrap = (&'static str, Value, fn(&str, &Value) -> Option<Value>);

fn tagged(tag: &str, data: &Value) -> Option<Value> {
    let Value::Object(map) = data else {
        return None;
    };
    if map.contains_key(tag) {
        return None;
    }
    let mut out = Map::new();
    out.insert(tag.to_owned(), json!("a"));
    out.extend(map.clone());
    Some(Value::Object(out))
}

fn as_payload(tag: &str, data: &Value) -> Option<Value> {
    let mut out = Map::new();
    out.insert(tag.to_owned(), json!("a"));
    out.insert("payload".into(), data.clone());
    Some(Value::Object(out))
}

/// How the wrapped forms spell the discriminator literal: `const` (draft-06 and later), or
/// `enum` with one value, the only way draft-04 has (there `const` is an unknown keyword, so a
/// `const`-tagged union is no discriminated union at all, SPEC §6 decision 29).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagForm {
    /// `{"const": v}`.
    Const,
    /// `{"enum": [v]}`.
    Enum,
}

impl TagForm {
    /// The tag forms a suite folder is wrapped with: draft-04 gets both (the `const` form checks
    /// that the join does not read `const` there).
    pub fn for_draft(draft: &str) -> &'static [TagForm] {
        if draft == "draft4" {
            &[TagForm::Const, TagForm::Enum]
        } else {
            &[TagForm::Const]
        }
    }

    fn literal(self, value: &str) -> Value {
        match self {
            TagForm::Const => json!({ "const": value }),
            TagForm::Enum => json!({ "enum": [value] }),
        }
    }

    /// The four form names, with the tag form said for `enum`.
    fn names(self) -> [&'static str; 4] {
        match self {
            TagForm::Const => [
                "own keywords, one branch",
                "own keywords, two branches",
                "payload, one branch",
                "payload, two branches",
            ],
            TagForm::Enum => [
                "own keywords, one branch, enum tag",
                "own keywords, two branches, enum tag",
                "payload, one branch, enum tag",
                "payload, two branches, enum tag",
            ],
        }
    }
}

/// The wrapped forms of `schema` with discriminator `tag` spelled in `form` (own keywords and as
/// a `payload` property; one and two branches).
pub fn wraps(schema: &Value, tag: &str, form: TagForm) -> Vec<Wrap> {
    let (root, rest) = split_root(schema);
    let names = form.names();
    let mut out: Vec<Wrap> = Vec::new();
    let with_root = |union: Value| {
        let mut doc = root.clone();
        if let Value::Object(u) = union {
            doc.extend(u);
        }
        Value::Object(doc)
    };
    let b_plain = json!({"type": "object", "properties": {tag: form.literal("b"), "other": {"type": "string"}}, "required": [tag]});
    // As the branch's own keywords: the tag is merged into the schema's own `properties` and
    // `required` (a schema whose `type` excludes objects makes a branch that is not an object, so
    // the union is not flattened: soundness is still judged).
    if let Value::Object(own) = &rest {
        let mut branch = own.clone();
        let mut props = match branch.get("properties") {
            Some(Value::Object(p)) => p.clone(),
            _ => Map::new(),
        };
        let mut tagged_props = Map::new();
        tagged_props.insert(tag.to_owned(), form.literal("a"));
        tagged_props.extend(std::mem::take(&mut props));
        branch.insert("properties".into(), Value::Object(tagged_props));
        let mut required = match branch.get("required") {
            Some(Value::Array(r)) => r.clone(),
            _ => Vec::new(),
        };
        required.insert(0, json!(tag));
        branch.insert("required".into(), Value::Array(required));
        if !branch.contains_key("type") {
            branch.insert("type".into(), json!("object"));
        }
        let branch = Value::Object(branch);
        out.push((
            names[0],
            with_root(json!({"oneOf": [branch.clone()]})),
            tagged,
        ));
        out.push((
            names[1],
            with_root(json!({"oneOf": [branch, b_plain.clone()]})),
            tagged,
        ));
    }
    let a_payload = json!({"type": "object", "properties": {tag: form.literal("a"), "payload": rest}, "required": [tag, "payload"]});
    let b_payload = json!({"type": "object", "properties": {tag: form.literal("b"), "payload": {"type": "integer"}}, "required": [tag, "payload"]});
    out.push((
        names[2],
        with_root(json!({"oneOf": [a_payload.clone()]})),
        as_payload,
    ));
    out.push((
        names[3],
        with_root(json!({"oneOf": [a_payload, b_payload]})),
        as_payload,
    ));
    out
}

/// What the presentation of `original` (a suite schema, or one wrapped) promises to accept,
/// judged as the soundness oracle judges it (SPEC §4, §6 decision 62): under the `declared`
/// reading of open branches (§2.8), the original restricted to that promise
/// ([`crate::oracle::restrict_declared`], which only ever narrows, decision 68); `None` when every
/// value the original accepts is promised (the `permissive` reading, or a restriction that
/// changes nothing). A value it rejects carries, at some union, a key that another branch
/// declares and the branch it selects does not: under draft-04, where `const` is no keyword, the
/// `const`-tagged wrappers are unions without a discriminator, and a value of the open branch `b`
/// may carry the keys the suite schema's branch declares; a suite schema whose root is an `anyOf`
/// of objects is one too. A restriction the judge cannot compile promises all the original
/// accepts.
fn promise_of(
    original: &Value,
    draft: &str,
    remotes: &Remotes,
    options: &flatjoin::Options,
) -> Option<jsonschema::Validator> {
    if !matches!(options.open_branches, flatjoin::OpenBranches::Declared) {
        return None;
    }
    let restricted = crate::oracle::restrict_declared(original);
    if restricted == *original {
        return None;
    }
    judge(&restricted, draft, remotes).ok()
}

/// The `$schema` of a schema when it is not one of the drafts' own meta-schemas.
pub fn custom_meta_schema(schema: &Value) -> Option<&str> {
    let meta = schema.get("$schema")?.as_str()?;
    let known = [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-04/schema",
    ];
    (!known.contains(&meta.trim_end_matches('#'))).then_some(meta)
}

/// The schema as a user hands it to `flatjoin validate`: a suite schema of any draft but 2020-12
/// declares its draft (the suite leaves it implicit; `validate` would otherwise read it as
/// 2020-12).
pub fn declared(schema: &Value, draft: &str) -> Value {
    match schema {
        Value::Object(map) if draft != "draft2020-12" && !map.contains_key("$schema") => {
            let mut out = Map::new();
            out.insert("$schema".into(), json!(meta_schema_of(draft)));
            out.extend(map.clone());
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn validate_part(
    g: &SuiteGroup,
    draft: &str,
    remotes: &Remotes,
    counts: &mut PartCounts,
    xfailed: &mut usize,
    xfail_hit: &mut Vec<String>,
) {
    let schema = declared(&g.schema, draft);
    counts.schemas += 1;
    let runtime = runtime_for(&schema, remotes);
    for t in &g.tests {
        counts.instances += 1;
        let verdict = match &runtime {
            Ok(r) => Ok(r.is_valid(&t.data)),
            Err(e) => Err(e.clone()),
        };
        let ok = verdict.as_ref().is_ok_and(|v| *v == t.valid);
        match (ok, xfail_reason(draft, t)) {
            (true, None) => counts.passed += 1,
            (true, Some(_)) => counts.passed += 1,
            (false, Some(_)) => {
                *xfailed += 1;
                xfail_hit.push(format!("{draft}/{}: {} / {}", t.file, t.group, t.test));
                xfail_hit.push(format!("{draft}/{}: {} / *", t.file, t.group));
            }
            (false, None) => counts.failures.push(match verdict {
                Ok(v) => format!(
                    "{}: validate says {}, the suite {}",
                    t.id,
                    if v { "valid" } else { "invalid" },
                    if t.valid { "valid" } else { "invalid" }
                ),
                Err(e) => format!("{}: validate refused the schema: {e}", t.id),
            }),
        }
    }
}

fn runtime_for(schema: &Value, remotes: &Remotes) -> Result<flatjoin::Runtime, String> {
    let options = flatjoin::RuntimeOptions {
        resources: remotes
            .documents()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        ..flatjoin::RuntimeOptions::default()
    };
    flatjoin::Runtime::with_options(schema, &options).map_err(|e| e.to_string())
}

/// A short Markdown section for `reports/conformance.md`.
pub fn report_markdown(reports: &[SuiteReport]) -> String {
    let mut md = String::from(
        "\n## JSON-Schema-Test-Suite corpus\n\n`corpus/json-schema-test-suite/` (see `corpus/README.md`), judged by `jsonschema` with the suite's remotes served offline.\n\n| draft | part | schemas | flattened | instances | passed | failed | unrunnable | not promised |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in reports {
        for (name, c) in [
            ("flatten", &r.flatten),
            ("wrapped", &r.wrapped),
            ("validate", &r.validate),
        ] {
            let _ = writeln!(
                md,
                "| {} | {name} | {} | {} | {} | {} | {} | {} | {} |",
                r.draft,
                c.schemas,
                c.flattened,
                c.instances,
                c.passed,
                c.failures.len(),
                c.unrunnable.len(),
                c.not_promised
            );
        }
    }
    let xfailed: usize = reports.iter().map(|r| r.xfailed).sum();
    let _ = writeln!(
        md,
        "\nKnown failures of `validate` (the one list, `flatjoin_harness::suite::XFAIL`): {xfailed}."
    );
    md
}
