//! Flattening every `inputSchema` of an MCP `tools/list` result with the one projection.

use serde_json::Value;

use crate::diagnostics::Diagnostics;
use crate::error::{Error, ErrorKind};
use crate::{Options, flatten};

/// A flattened manifest: the manifest with every tool's `inputSchema` replaced by its
/// presentation, and each tool's diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct FlattenedManifest {
    /// The manifest; every field other than `tools[*].inputSchema` is untouched.
    pub manifest: Value,
    /// `(tool name, diagnostics)` per tool with an `inputSchema`, in order.
    pub tools: Vec<(String, Diagnostics)>,
}

/// Flattens every `tools[i].inputSchema` of an MCP `tools/list` result with [`flatten`]. Errors
/// carry the pointer inside the manifest (`/tools/3/inputSchema/...`).
pub fn flatten_manifest(manifest: &Value, options: &Options) -> Result<FlattenedManifest, Error> {
    crate::parse::check_depth(manifest)?;
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
    let mut out = manifest.clone();
    let mut diagnostics = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        let Value::Object(fields) = tool else {
            return Err(Error::new(
                format!("/tools/{i}"),
                ErrorKind::NotAManifest {
                    expected: "each tool to be an object",
                },
            ));
        };
        let Some(schema) = fields.get("inputSchema") else {
            continue;
        };
        let flat =
            flatten(schema, options).map_err(|e| e.within(&format!("/tools/{i}/inputSchema")))?;
        let name = fields
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("#{i}"), str::to_owned);
        diagnostics.push((name, flat.diagnostics));
        out["tools"][i]["inputSchema"] = flat.schema;
    }
    Ok(FlattenedManifest {
        manifest: out,
        tools: diagnostics,
    })
}
