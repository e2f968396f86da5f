//! `anthropic`: Anthropic Messages API tools (`tools[].input_schema`).
//!
//! Rules and their source (Anthropic "Tool use" docs and the API's validation errors):
//! - `input_schema.type` must be `"object"` ("tools.0.custom.input_schema.type: Field required");
//! - no `oneOf`, `anyOf` or `allOf` at the top level ("input_schema does not support oneOf,
//!   allOf, or anyOf at the top level");
//! - the schema is valid under the 2020-12 meta-schema, whatever `$schema` it declares
//!   ("tools.18.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft
//!   2020-12", as MCP clients relaying draft-07 tools report it): draft-07's array `items`,
//!   draft-04's boolean `exclusiveMinimum` are rejected.
//!
//! Lowering: the flat join already made a discriminated-union root one object; a union left at
//! the root is widened (sound) and the root typed `object` (narrowing only for non-object roots);
//! an older draft's spelling is written in 2020-12's words first (`steps::respell`, SPEC §6
//! decision 36).

use serde_json::Value;

use super::{Findings, Lowered, steps};

/// Lints one tool for `anthropic`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    let says = format!("Anthropic: tools.{}.custom", findings.tool());
    steps::check_root_object(schema, &says, findings);
    steps::check_root_composition(schema, &["oneOf", "anyOf", "allOf"], &says, findings);
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        findings.error(
            &error.instance_path().to_string(),
            "meta-schema-2020-12",
            format!(
                "{says}.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12: {error}"
            ),
            "lower the tool for anthropic (an older draft is written in 2020-12's words: the same values)",
        );
    }
}

/// Lowers a presentation for `anthropic`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::modernize_exclusive_bounds(&mut schema);
    steps::lower_boolean_subschemas(&mut schema);
    Lowered::with_narrowings(schema, narrowings)
}
