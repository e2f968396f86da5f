//! `mcp`: a `tools/list` entry as MCP clients check it.
//!
//! Rules and their source: the MCP specification (`Tool.inputSchema`: "A JSON Schema object
//! defining the expected parameters for the tool", `type: "object"`, draft 2020-12 by default) and
//! the MCP TypeScript SDK's `ToolSchema` (`inputSchema.type` is the literal `"object"`; a client's
//! `listTools` rejects the whole list when one tool fails it). The schema must also be a valid
//! schema of its dialect (checked with the `jsonschema` meta-schemas).
//!
//! The SDK also requires each root `properties` value to be an object (a boolean schema `true`
//! fails its `AssertObjectSchema`) and `required` to be a list of strings.
//!
//! Lowering: the root union widened and the root typed `object` (narrowing only for non-object
//! roots); a boolean property schema becomes its object form (`true` → `{}`, `false` →
//! `{"not": {}}`: the same values, sound); draft-04 boolean exclusive bounds rewritten in the
//! current form (the same values).

use serde_json::{Value, json};

use super::{Findings, Lowered, steps, walk};

/// Lints one tool for `mcp`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    if schema.get("type") != Some(&Value::String("object".into())) {
        findings.error(
            "/type",
            "root-type-object",
            "MCP TypeScript SDK: tools[].inputSchema.type: Invalid literal value, expected \"object\"".into(),
            "flatten the root union into one object (flat join), widen a remaining union, set type \"object\"",
        );
    }
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (name, def) in props {
            if !def.is_object() {
                findings.error(
                    &format!("/properties/{}", walk::escape(name)),
                    "property-schema-object",
                    format!("MCP TypeScript SDK: tools[].inputSchema.properties.{name}: Expected object, received {def}"),
                    "write the boolean schema as an object ({} or {\"not\": {}}: sound)",
                );
            }
        }
    }
    if let Err(error) = jsonschema::meta::validate(schema) {
        findings.error(
            &error.instance_path().to_string(),
            "meta-schema",
            format!("not a valid JSON Schema of its dialect: {error}"),
            "none: fix the schema at its source",
        );
    } else if let Err(error) = jsonschema::validator_for(schema) {
        findings.error(
            "",
            "meta-schema",
            format!("the schema does not compile: {error}"),
            "none: fix the schema at its source",
        );
    }
}

/// Lowers a presentation for `mcp`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::modernize_exclusive_bounds(&mut schema);
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for def in props.values_mut() {
            if let Value::Bool(accepts) = def {
                *def = if *accepts {
                    json!({})
                } else {
                    json!({"not": {}})
                };
            }
        }
    }
    Lowered::with_narrowings(schema, narrowings)
}
