//! Test input: every schema of the JSON-Schema-Test-Suite (every draft) and of the corpus
//! dialect files, for unit tests that hold a fast path to the walk it stands in for.

use serde_json::Value;

/// Every schema of `corpus/json-schema-test-suite/tests` (each test group's `schema`) and every
/// file of `corpus/dialects`.
pub(crate) fn schemas() -> Vec<Value> {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = Vec::new();
    let mut dirs = vec![
        corpus.join("json-schema-test-suite/tests"),
        corpus.join("dialects"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut schemas = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus file");
        match serde_json::from_str::<Value>(&text).expect("JSON") {
            Value::Array(groups) => schemas.extend(
                groups
                    .into_iter()
                    .filter_map(|mut g| g.get_mut("schema").map(Value::take)),
            ),
            schema => schemas.push(schema),
        }
    }
    schemas
}
