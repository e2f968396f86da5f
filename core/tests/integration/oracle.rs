//! The independent judge: `jsonschema` validators with formats asserted, plus corpus helpers.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The harness's one corpus walk, included as a file: it depends on nothing but `std`, and the
/// core (tests included) never depends on the harness crate.
#[path = "../../../harness/src/corpus/walk.rs"]
mod walk;

/// A validator for `schema`, formats asserted, offline.
pub fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}\n{schema:#}"))
}

/// The repository's `corpus/` folder.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// Reads a JSON file.
pub fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How many files each corpus folder holds at least (the bundled count when this was written);
/// any other folder must hold one.
const MIN_FILES: &[(&str, usize)] = &[("dialects", 50), ("manifests", 13)];

/// Every `*.json` file under `corpus/<sub>`, sorted. Panics when the folder is missing or holds
/// fewer than its minimum: a replay over nothing must fail, never pass.
pub fn files(sub: &str) -> Vec<PathBuf> {
    let out = files_below(sub);
    let min = MIN_FILES
        .iter()
        .find(|(folder, _)| *folder == sub)
        .map_or(1, |(_, n)| *n);
    assert!(
        out.len() >= min,
        "corpus/{sub}: {} JSON files, expected at least {min} ({})",
        out.len(),
        corpus_dir().join(sub).display()
    );
    out
}

fn files_below(sub: &str) -> Vec<PathBuf> {
    walk::json_files(&corpus_dir().join(sub), &[])
}

/// Corpus originals that `jsonschema` refuses for their own declared draft, with the reason.
/// Flattening them still succeeds; only validation-based checks skip them.
pub fn invalid_original(path: &Path) -> Option<&'static str> {
    const INVALID: &[(&str, &str)] = &[(
        "dialects/zod-to-json-schema-openai/shape.json",
        "declares draft 2019-09 but writes draft-04's boolean exclusiveMinimum",
    )];
    let p = path.to_string_lossy();
    INVALID
        .iter()
        .find(|(suffix, _)| p.ends_with(suffix))
        .map(|(_, r)| *r)
}
