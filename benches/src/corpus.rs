//! The real inputs: every `*.json` file under `corpus/`, each its own benchmark case.
//!
//! A file whose root has a `tools` array is an MCP `tools/list` manifest: its case is the list of
//! the tools' `inputSchema`s, each flattened on its own (what the manifest surface does per tool).
//! A join-test file (`corpus/spec/`: an array of `{"description", "schema", "tests"}`, or one such
//! object) contributes its `schema`s. An instance file (`corpus/instances/`: `{"description",
//! "values", …}`) holds data, not schemas, and is skipped with a reason. Any other file is one
//! schema.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The harness's one corpus walk, which depends on nothing but `std` (the benches do not depend
/// on the harness crate).
#[path = "../../harness/src/corpus/walk.rs"]
mod walk;

/// What a corpus file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorpusKind {
    /// One JSON Schema.
    Schema,
    /// An MCP manifest; the case holds its tools' input schemas.
    Manifest,
    /// Join tests; the case holds each test's `schema`.
    JoinTests,
}

/// A corpus file that is not benchmarked, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path relative to the corpus folder.
    pub id: String,
    /// Why it is not a benchmark case.
    pub reason: String,
}

/// Everything under the corpus folder.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// The files benchmarked, sorted by path.
    pub cases: Vec<CorpusCase>,
    /// The files that hold no schema.
    pub skipped: Vec<Skipped>,
}

/// What a parsed corpus file holds: its kind and schemas, or why it holds none.
fn classify(value: Value) -> Result<(CorpusKind, Vec<Value>), String> {
    if let Some(tools) = value.get("tools").and_then(Value::as_array) {
        let schemas = tools
            .iter()
            .filter_map(|t| t.get("inputSchema").cloned())
            .collect();
        return Ok((CorpusKind::Manifest, schemas));
    }
    let is_join_test = |v: &Value| v.get("schema").is_some() && v.get("tests").is_some();
    match &value {
        Value::Array(tests) if !tests.is_empty() && tests.iter().all(is_join_test) => Ok((
            CorpusKind::JoinTests,
            tests.iter().map(|t| t["schema"].clone()).collect(),
        )),
        v if is_join_test(v) => Ok((CorpusKind::JoinTests, vec![v["schema"].clone()])),
        Value::Object(map)
            if map.contains_key("values") && !map.keys().any(|k| is_schema_keyword(k)) =>
        {
            Err("instance data (`values`), not a schema".to_owned())
        }
        Value::Object(_) | Value::Bool(_) => Ok((CorpusKind::Schema, vec![value])),
        _ => Err("neither a schema, a manifest nor join tests".to_owned()),
    }
}

fn is_schema_keyword(key: &str) -> bool {
    matches!(
        key,
        "$schema"
            | "type"
            | "oneOf"
            | "anyOf"
            | "allOf"
            | "properties"
            | "$ref"
            | "$defs"
            | "definitions"
    )
}

/// One corpus file, loaded.
#[derive(Debug, Clone)]
pub struct CorpusCase {
    /// The path relative to the corpus folder, with `/` separators: the benchmark id.
    pub id: String,
    /// Whether it is a schema or a manifest.
    pub kind: CorpusKind,
    /// The schemas to flatten: one for a schema file, one per tool for a manifest.
    pub schemas: Vec<Value>,
    /// Size of the file in bytes.
    pub bytes: usize,
}

/// The workspace's `corpus/` folder.
pub fn corpus_dir() -> PathBuf {
    crate::workspace_root().join("corpus")
}

/// Loads every `*.json` file under `dir`, recursively, sorted by path. A missing folder is an
/// empty corpus; a file that does not parse is an error naming it.
pub fn load_corpus(dir: &Path) -> Result<Corpus, String> {
    load(dir, false)
}

/// [`load_corpus`] with the JSON-Schema-Test-Suite's files too (its tests are join-test files,
/// its remotes schemas): for `compare-outputs`, which must see every schema the repository holds.
pub fn load_corpus_with_suite(dir: &Path) -> Result<Corpus, String> {
    load(dir, true)
}

fn load(dir: &Path, with_suite: bool) -> Result<Corpus, String> {
    // The JSON-Schema-Test-Suite is a conformance corpus of small keyword tests (and remote
    // documents), not tool schemas: the harness runs it (`suite.rs`), not the bench.
    let skip: &[&str] = if with_suite {
        &[]
    } else {
        &["json-schema-test-suite"]
    };
    let files = walk::json_files(dir, skip);
    let mut corpus = Corpus::default();
    for path in &files {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let value = flatjoin::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let id = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        match classify(value) {
            Ok((kind, schemas)) => corpus.cases.push(CorpusCase {
                id,
                kind,
                schemas,
                bytes: bytes.len(),
            }),
            Err(reason) => corpus.skipped.push(Skipped { id, reason }),
        }
    }
    Ok(corpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_schemas_manifests_and_join_tests_recursively() {
        let dir =
            std::env::temp_dir().join(format!("flatjoin-benches-corpus-{}", std::process::id()));
        let nested = dir.join("manifests");
        std::fs::create_dir_all(&nested).expect("temp dir");
        let write = |path: PathBuf, text: &str| std::fs::write(path, text).expect("write");
        write(dir.join("one.json"), r#"{"type": "string"}"#);
        write(dir.join("notes.txt"), "not json");
        write(
            dir.join("values.json"),
            r#"{"description": "d", "values": [1]}"#,
        );
        write(
            dir.join("tests.json"),
            r#"[{"description": "a", "schema": {"type": "object"}, "tests": []},
                {"description": "b", "schema": {"oneOf": []}, "tests": []}]"#,
        );
        write(
            nested.join("m.json"),
            r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}},
                          {"name": "b", "inputSchema": {"type": "object"}}]}"#,
        );
        let corpus = load_corpus(&dir).expect("loads");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        let cases = &corpus.cases;
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["manifests/m.json", "one.json", "tests.json"]);
        assert_eq!(cases[0].kind, CorpusKind::Manifest);
        assert_eq!(cases[0].schemas.len(), 2);
        assert_eq!(cases[1].kind, CorpusKind::Schema);
        assert_eq!(cases[2].kind, CorpusKind::JoinTests);
        assert_eq!(cases[2].schemas[1], serde_json::json!({"oneOf": []}));
        let skipped: Vec<&str> = corpus.skipped.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(skipped, ["values.json"]);
        let missing = load_corpus(&dir).expect("a missing folder is an empty corpus");
        assert!(missing.cases.is_empty() && missing.skipped.is_empty());
    }
}
