//! `anthropic`: Anthropic Messages API tools (`tools[].input_schema`).
//!
//! Rules and their source (Anthropic "Tool use" docs and the API's validation errors):
//! - `input_schema.type` must be `"object"` ("tools.0.custom.input_schema.type: Field required");
//! - no `oneOf`, `anyOf` or `allOf` at the top level ("input_schema does not support oneOf,
//!   allOf, or anyOf at the top level").
//!
//! Lowering: the flat join already made a discriminated-union root one object; a union left at
//! the root is widened (sound) and the root typed `object` (narrowing only for non-object roots).

use serde_json::Value;

use super::{Findings, Lowered, steps};

/// Lints one tool for `anthropic`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    let says = format!("Anthropic: tools.{}.custom", findings.tool());
    steps::check_root_object(schema, &says, findings);
    steps::check_root_composition(schema, &["oneOf", "anyOf", "allOf"], &says, findings);
}

/// Lowers a presentation for `anthropic`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::lower_boolean_subschemas(&mut schema);
    Lowered::with_narrowings(schema, narrowings)
}
