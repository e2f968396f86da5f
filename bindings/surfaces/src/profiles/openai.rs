//! `openai`: OpenAI function tools without `strict`.
//!
//! Rules and their source (OpenAI API reference, "Function calling", and the API's own error
//! messages for `tools[].function.parameters`):
//! - the root is `type: "object"` with `properties` ("schema must be a JSON Schema of 'type:
//!   \"object\"'", "object schema missing properties");
//! - no `oneOf`, `anyOf`, `allOf`, `enum` or `not` at the top level (the API's "... is not permitted
//!   at the top level");
//! - every array has `items` ("array schema missing items");
//! - no `oneOf` anywhere (OpenAI documents `anyOf` only).
//!
//! Lowering: root union widened and typed `object` (narrowing only for non-object roots), a root
//! `enum`/`not` dropped (sound), missing
//! `properties` added (`{}`: sound), `items: {}` added (sound), `oneOf` → `anyOf` (sound).

use serde_json::{Value, json};

use super::{Findings, Lowered, steps};

/// Lints one tool for `openai`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    let says = format!("OpenAI: Invalid schema for function '{}'", findings.tool());
    steps::check_root_object(schema, &says, findings);
    check_root_properties(schema, &says, findings);
    for key in ["oneOf", "anyOf", "allOf", "enum", "not"] {
        if schema.get(key).is_some() {
            findings.error(
                "",
                "root-composition",
                format!("{says}: '{key}' is not permitted at the top level"),
                "flatten or widen the root union; drop a root enum/not (sound)",
            );
        }
    }
    steps::check_array_items(schema, &says, findings);
    steps::check_keyword_anywhere(
        schema,
        "oneOf",
        "one-of",
        &format!("{says}: 'oneOf' is not permitted, use 'anyOf'"),
        "rewrite oneOf as anyOf (sound)",
        findings,
    );
}

/// Lint: the root object declares `properties`.
pub(crate) fn check_root_properties(schema: &Value, says: &str, findings: &mut Findings) {
    if schema.get("type") == Some(&json!("object"))
        && !schema.get("properties").is_some_and(Value::is_object)
    {
        findings.error(
            "",
            "root-properties",
            format!("{says}: In context=(), object schema missing properties"),
            "add \"properties\": {} (sound)",
        );
    }
}

/// Lowers a presentation for `openai`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    if let Value::Object(root) = &mut schema {
        // Dropping an assertion only loosens.
        root.shift_remove("enum");
        root.shift_remove("not");
    }
    add_root_properties(&mut schema);
    steps::one_of_to_any_of(&mut schema);
    steps::add_missing_items(&mut schema);
    steps::lower_boolean_subschemas(&mut schema);
    Lowered::with_narrowings(schema, narrowings)
}

/// Adds `properties: {}` to a root object without it. Sound: an empty `properties` constrains
/// nothing.
pub(crate) fn add_root_properties(schema: &mut Value) {
    if let Value::Object(map) = schema
        && !map.get("properties").is_some_and(Value::is_object)
    {
        map.insert("properties".into(), json!({}));
    }
}
