//! `cursor`: Cursor's MCP tool loader.
//!
//! Rules and their source (Cursor forum reports and changelog on MCP tool schemas): tools whose
//! input schema uses `anyOf`, `oneOf` or `allOf` at any depth are dropped or fail to call; the
//! root is `type: "object"` as in MCP.
//!
//! Lowering: local references inlined (sound; each definition copied into several places, and
//! each union the join wrote once for sharing, listed in [`Lowered::inlined`]), then every union
//! replaced bottom-up by the conservative widening of SPEC §3.5 applied to all kinds, and every
//! `allOf` by the sound merge of its parts ([`super::widen`]); the lost alternatives are named in
//! the description. Sound.

use serde_json::Value;

use super::{Findings, Lowered, steps, widen};

/// Lints one tool for `cursor`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    let says = "Cursor";
    steps::check_root_object(schema, says, findings);
    for key in ["anyOf", "oneOf", "allOf"] {
        steps::check_keyword_anywhere(
            schema,
            key,
            "composition",
            &format!("{says}: '{key}' in a tool schema is not supported (the tool is dropped)"),
            "replace the union by its conservative widening, alternatives named in the description (sound)",
            findings,
        );
    }
}

/// Lowers a presentation for `cursor`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    let mut inlined = Vec::new();
    steps::inline_refs(&mut schema, &mut inlined);
    widen::lower_compositions(&mut schema, false);
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::lower_boolean_subschemas(&mut schema);
    Lowered::with_narrowings(schema, narrowings).with_inlined(inlined)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::profiles::walk;

    #[test]
    fn unions_are_widened_at_every_depth_and_named() {
        let presentation = json!({
            "type": "object",
            "properties": {
                "to": {"description": "Recipients.", "anyOf": [
                    {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    {"type": "string", "minLength": 3}
                ]},
                "body": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                  {"properties": {"b": {"type": "integer"}}}]}
            }
        });
        let lowered = lower(&presentation).schema;
        let mut compositions = 0;
        walk::visit(&lowered, "", &mut |_, node| {
            compositions += ["anyOf", "oneOf", "allOf"]
                .iter()
                .filter(|k| node.get(**k).is_some())
                .count();
        });
        assert_eq!(compositions, 0, "{lowered}");
        let to = &lowered["properties"]["to"];
        assert_eq!(to["type"], json!(["string", "array"]));
        assert_eq!(to["items"], json!({"type": "string"}));
        assert_eq!(to["minLength"], json!(3));
        let description = to["description"].as_str().unwrap_or_default();
        assert!(
            description.starts_with("Recipients. Accepts any one of: "),
            "{description}"
        );
        assert!(description.contains("\"minItems\":1"), "{description}");
        assert_eq!(lowered["properties"]["body"]["required"], json!(["a"]));
    }
}
