//! Flattening every `inputSchema` of an MCP `tools/list` result with the one projection.

use serde_json::Value;

use crate::diagnostics::Diagnostics;
use crate::error::{Error, ErrorKind};
use crate::{Depth, Options, flatten_in, flatten_owned_in, parse};

/// A flattened manifest: the manifest with every tool's `inputSchema` replaced by its
/// presentation, and each tool's diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct FlattenedManifest {
    /// The manifest; every field other than `tools[*].inputSchema` is untouched.
    pub manifest: Value,
    /// `(tool name, diagnostics)` per tool with an `inputSchema`, in order.
    pub tools: Vec<(String, Diagnostics)>,
}

/// Flattens every `tools[i].inputSchema` of an MCP `tools/list` result with [`flatten`](crate::flatten). Errors
/// carry the pointer inside the manifest (`/tools/3/inputSchema/...`).
pub fn flatten_manifest(manifest: &Value, options: &Options) -> Result<FlattenedManifest, Error> {
    let tools = tools_of(manifest, Depth::Unchecked)?;
    let mut out = manifest.clone();
    let mut diagnostics = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        let fields = tool_fields(tool, i)?;
        let Some(schema) = fields.get("inputSchema") else {
            continue;
        };
        // Each tool is inside the manifest, whose depth was checked.
        let flat = flatten_in(schema, options, Depth::Bounded)
            .map_err(|e| e.within(&format!("/tools/{i}/inputSchema")))?;
        diagnostics.push((tool_name(fields, i), flat.diagnostics));
        out["tools"][i]["inputSchema"] = flat.schema;
    }
    Ok(FlattenedManifest {
        manifest: out,
        tools: diagnostics,
    })
}

/// [`flatten_manifest`] on a manifest the caller gives away: each `inputSchema` is taken out and
/// flattened in place with [`flatten_owned`](crate::flatten_owned), so nothing is copied (the CLI's `manifest` command;
/// on a 500-tool manifest the copy and the borrowing join were half of the whole process).
/// The result is the same as [`flatten_manifest`]'s.
pub fn flatten_manifest_owned(
    manifest: Value,
    options: &Options,
) -> Result<FlattenedManifest, Error> {
    flatten_manifest_owned_with(manifest, options, &mut drop::<Value>)
}

/// [`flatten_manifest_owned`], handing `spent` each `inputSchema` the join only read, as
/// [`flatten_owned_with`](crate::flatten_owned_with) does (the CLI leaves them unfreed).
pub fn flatten_manifest_owned_with(
    manifest: Value,
    options: &Options,
    spent: &mut dyn FnMut(Value),
) -> Result<FlattenedManifest, Error> {
    flatten_manifest_owned_in(manifest, options, spent, Depth::Unchecked)
}

/// [`parse`] then [`flatten_manifest_owned_with`]: the same result and the same errors, without
/// scanning the parsed manifest's depth a second time ([`parse`] bounds it), as
/// [`flatten_text_with`](crate::flatten_text_with) does for one schema.
pub fn flatten_manifest_text_with(
    text: &[u8],
    options: &Options,
    spent: &mut dyn FnMut(Value),
) -> Result<FlattenedManifest, Error> {
    flatten_manifest_owned_in(parse(text)?, options, spent, Depth::Bounded)
}

fn flatten_manifest_owned_in(
    mut manifest: Value,
    options: &Options,
    spent: &mut dyn FnMut(Value),
    depth: Depth,
) -> Result<FlattenedManifest, Error> {
    let count = tools_of(&manifest, depth)?.len();
    let mut diagnostics = Vec::with_capacity(count);
    for i in 0..count {
        let Value::Object(fields) = &mut manifest["tools"][i] else {
            return Err(not_an_object(i));
        };
        let Some(slot) = fields.get_mut("inputSchema") else {
            continue;
        };
        // Each tool is inside the manifest, whose depth was checked.
        let flat = flatten_owned_in(slot.take(), options, spent, Depth::Bounded)
            .map_err(|e| e.within(&format!("/tools/{i}/inputSchema")))?;
        *slot = flat.schema;
        diagnostics.push((tool_name(fields, i), flat.diagnostics));
    }
    Ok(FlattenedManifest {
        manifest,
        tools: diagnostics,
    })
}

/// The `tools` array of a manifest, after the depth check every input gets (unless its `depth`
/// is already bounded).
fn tools_of(manifest: &Value, depth: Depth) -> Result<&Vec<Value>, Error> {
    if depth == Depth::Unchecked {
        crate::parse::check_depth(manifest)?;
    }
    let Some(tools) = manifest.get("tools") else {
        return Err(Error::new(
            "",
            ErrorKind::NotAManifest {
                expected: "an object with a \"tools\" array",
            },
        ));
    };
    let Value::Array(tools) = tools else {
        return Err(Error::new(
            "/tools",
            ErrorKind::NotAManifest {
                expected: "an array",
            },
        ));
    };
    Ok(tools)
}

fn tool_fields(tool: &Value, i: usize) -> Result<&serde_json::Map<String, Value>, Error> {
    tool.as_object().ok_or_else(|| not_an_object(i))
}

fn not_an_object(i: usize) -> Error {
    Error::new(
        format!("/tools/{i}"),
        ErrorKind::NotAManifest {
            expected: "each tool to be an object",
        },
    )
}

fn tool_name(fields: &serde_json::Map<String, Value>, i: usize) -> String {
    fields
        .get("name")
        .and_then(Value::as_str)
        .map_or_else(|| format!("#{i}"), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The owning path must give exactly what the borrowing one gives, on every bundled real
    /// manifest and on the error cases.
    #[test]
    fn owned_and_borrowed_agree() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/manifests");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("corpus/manifests") {
            let path = entry.expect("entry").path();
            let text = std::fs::read(&path).expect("readable");
            let manifest = crate::parse(&text).expect("json");
            let options = Options::default();
            let borrowed = flatten_manifest(&manifest, &options);
            let owned = flatten_manifest_owned(manifest, &options);
            assert_eq!(borrowed, owned, "{}", path.display());
            seen += 1;
        }
        assert!(seen >= 13, "only {seen} manifests under {}", dir.display());
        let union = json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]},
        ]});
        for bad in [
            json!({"tools": [{"name": "t", "inputSchema": union}, 3]}),
            json!({"tools": {}}),
            json!({}),
            json!({"tools": [{"inputSchema": {"required": 1}}]}),
        ] {
            let options = Options::default();
            let borrowed = flatten_manifest(&bad, &options);
            assert!(borrowed.is_err(), "{bad}");
            assert_eq!(borrowed, flatten_manifest_owned(bad, &options));
        }
    }
}
