//! The bundled corpus, embedded at build time: the schemas `runtime_diff` picks from and the inputs
//! the seed generator encodes.

use std::sync::OnceLock;

use serde_json::Value;

include!(concat!(env!("OUT_DIR"), "/corpus_files.rs"));

/// One schema of the bundled corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusSchema {
    /// Where it came from: the file below `corpus/`, plus `#N` for the Nth case of a spec file or
    /// `#tool` for a manifest's tool.
    pub name: String,
    /// The schema itself.
    pub schema: Value,
}

/// Every embedded corpus file: its path below `corpus/` (`dialects/…`, `spec/…`, `manifests/…`)
/// and its bytes, sorted by path.
pub fn files() -> &'static [(&'static str, &'static [u8])] {
    CORPUS_FILES
}

/// The embedded files written out as a corpus folder (`dialects/`, `spec/`, `manifests/`), for
/// a `flatjoin check` run outside a checkout (the binary from npm or PyPI; SPEC §6 decision 71):
/// under the temporary directory, in a folder named by the files' hash, written once (beside,
/// then renamed, so a concurrent run never reads half a corpus).
pub fn extracted() -> Result<std::path::PathBuf, String> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    files().hash(&mut hasher);
    let root = std::env::temp_dir().join(format!("flatjoin-corpus-{:016x}", hasher.finish()));
    if root.is_dir() {
        return Ok(root);
    }
    let partial = root.with_extension(format!("partial-{}", std::process::id()));
    let fail =
        |e: std::io::Error| format!("cannot write the bundled corpus to {}: {e}", root.display());
    for (name, bytes) in files() {
        let path = partial.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        std::fs::write(&path, bytes).map_err(fail)?;
    }
    match std::fs::rename(&partial, &root) {
        Ok(()) => Ok(root),
        // Another run renamed its copy first: the same files.
        Err(_) if root.is_dir() => {
            let _ = std::fs::remove_dir_all(&partial);
            Ok(root)
        }
        Err(e) => Err(fail(e)),
    }
}

/// The embedded manifests (`tools/list` results), path and bytes.
pub fn manifests() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    files()
        .iter()
        .copied()
        .filter(|(name, _)| name.starts_with("manifests/"))
}

/// Every schema of the bundled corpus, in a fixed order: each dialect file; the `schema` of each
/// case in `spec/`; and each manifest tool's `inputSchema` that holds a `oneOf` or `anyOf` (the
/// plain ones add nothing a dialect file does not). Files that are not JSON are left out.
pub fn schemas() -> &'static [CorpusSchema] {
    static SCHEMAS: OnceLock<Vec<CorpusSchema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let mut schemas = Vec::new();
        for (name, bytes) in files() {
            let Ok(document) = serde_json::from_slice::<Value>(bytes) else {
                continue;
            };
            if name.starts_with("dialects/") {
                schemas.push(CorpusSchema {
                    name: (*name).to_owned(),
                    schema: document,
                });
            } else if name.starts_with("spec/") {
                for (index, case) in cases(&document).into_iter().enumerate() {
                    if let Some(schema) = case.get("schema") {
                        let name = format!("{name}#{index}");
                        schemas.push(CorpusSchema {
                            name,
                            schema: schema.clone(),
                        });
                    }
                }
            } else if name.starts_with("manifests/") {
                for tool in tools(&document) {
                    let Some(schema) = tool.get("inputSchema") else {
                        continue;
                    };
                    if holds_union(schema) {
                        let tool_name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                        let name = format!("{name}#{tool_name}");
                        schemas.push(CorpusSchema {
                            name,
                            schema: schema.clone(),
                        });
                    }
                }
            }
        }
        schemas
    })
}

/// The cases of a join-test file: the object itself, or each element of an array of cases.
pub fn cases(document: &Value) -> Vec<&Value> {
    match document {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![document],
        _ => Vec::new(),
    }
}

/// The tools of a `tools/list` result, whether bare (`{"tools": […]}`) or in a JSON-RPC reply
/// (`{"result": {"tools": […]}}`).
pub fn tools(manifest: &Value) -> &[Value] {
    let tools = manifest
        .get("tools")
        .or_else(|| manifest.pointer("/result/tools"));
    tools.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// Whether `schema` has a `oneOf` or `anyOf` keyword anywhere (a cheap, over-approximate test).
fn holds_union(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.contains_key("oneOf") || map.contains_key("anyOf") || map.values().any(holds_union)
        }
        Value::Array(items) => items.iter().any(holds_union),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialect_corpus_is_embedded() {
        let dialects = schemas()
            .iter()
            .filter(|s| s.name.starts_with("dialects/"))
            .count();
        assert!(
            dialects > 0,
            "no dialect schema embedded; is corpus/dialects empty?"
        );
    }

    #[test]
    fn a_manifest_lists_its_tools() {
        let manifest = serde_json::json!({"result": {"tools": [{"name": "a"}]}});
        assert_eq!(tools(&manifest).len(), 1);
        assert!(tools(&serde_json::json!({"tools": 3})).is_empty());
    }
}
