//! `anthropic-strict`: Anthropic tools with `strict: true` (structured outputs).
//!
//! Rules and their source (Anthropic "Structured outputs" docs, "JSON Schema limitations"):
//! - the `anthropic` rules (root object, no root union);
//! - supported: basic types, `enum`, `const`, `anyOf`, `allOf`, local `$ref`/`$defs`, `default`,
//!   `required`, `additionalProperties: false`, string formats (date-time, time, date, duration,
//!   email, hostname, uri, ipv4, ipv6, uuid), `minItems` of 0 or 1, `pattern`; not `oneOf`;
//! - not supported: numeric bounds (`minimum`, `maximum`, `multipleOf`, …), string length bounds
//!   (`minLength`, `maxLength`), other array bounds, `additionalProperties` other than `false`,
//!   recursive schemas;
//! - per request: at most 24 optional parameters and 16 parameters with union types (`anyOf` or a
//!   type array) across all strict tools, at most 20 strict tools.
//!
//! Lowering: `oneOf` → `anyOf`, `allOf` merged into its node, bounds dropped, `minItems` above 1
//! lowered to 1, unsupported formats dropped (all sound); objects closed (narrowing, listed). Recursion and the per-request
//! counts are reported, not lowered.

use serde_json::{Value, json};

use super::{Finding, Findings, Lowered, steps, walk};

/// The keywords strict tool use accepts.
const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "default",
    "description",
    "title",
    "examples",
    "$comment",
    "$schema",
    "format",
    "minItems",
    "pattern",
];

/// The `format` values strict tool use accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Per-request limits.
const MAX_OPTIONAL: usize = 24;
const MAX_UNION: usize = 16;
const MAX_STRICT_TOOLS: usize = 20;

/// Lints one tool for `anthropic-strict`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    super::anthropic::lint(schema, findings);
    let says = format!("Anthropic (strict): tool '{}'", findings.tool());
    steps::check_keywords(
        schema,
        ALLOWED,
        &says,
        "drop the keyword (sound: it only loosens), oneOf → anyOf",
        findings,
    );
    steps::check_closed_objects(schema, &says, findings);
    walk::visit(schema, "", &mut |pointer, node| {
        if let Some(n) = node.get("minItems").and_then(Value::as_u64)
            && n > 1
        {
            findings.error(
                pointer,
                "min-items",
                format!("{says}: minItems {n} is not supported (only 0 or 1)"),
                "lower minItems to 1 (sound)",
            );
        }
    });
    steps::check_formats(schema, FORMATS, &says, findings);
    for (pointer, reference) in steps::recursive_refs(schema) {
        findings.error(
            &pointer,
            "recursive-ref",
            format!("{says}: recursive schemas are not supported ($ref {reference})"),
            "none: use the non-strict profile for this tool",
        );
    }
}

/// Per-request counts across every tool of a manifest.
pub fn lint_request(tools: &[(String, Value)]) -> Vec<Finding> {
    let mut optional = 0usize;
    let mut unions = 0usize;
    for (_, schema) in tools {
        walk::visit(schema, "", &mut |_, node| {
            let Some(Value::Object(props)) = node.get("properties") else {
                return;
            };
            let required: Vec<&str> = match node.get("required") {
                Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            optional += props
                .keys()
                .filter(|k| !required.contains(&k.as_str()))
                .count();
            unions += props
                .values()
                .filter(|p| p.get("anyOf").is_some() || p.get("type").is_some_and(Value::is_array))
                .count();
        });
    }
    let mut findings = Findings::new("(request)");
    let checks = [
        (
            "limit-optional",
            optional,
            MAX_OPTIONAL,
            "optional parameters",
        ),
        (
            "limit-union",
            unions,
            MAX_UNION,
            "parameters with union types",
        ),
        (
            "limit-strict-tools",
            tools.len(),
            MAX_STRICT_TOOLS,
            "strict tools",
        ),
    ];
    findings.limits(
        &checks,
        |got, what, max| {
            format!("Anthropic (strict): {got} {what} across the request, the limit is {max}")
        },
        "none: send fewer tools with strict, or mark some non-strict",
    );
    findings.into_vec()
}

/// Lowers a presentation for `anthropic-strict`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::one_of_to_any_of(&mut schema);
    steps::add_missing_items(&mut schema);
    steps::lower_boolean_subschemas(&mut schema);
    // Closing is per object node: an `allOf` member closed on its own would reject the keys its
    // siblings declare, so the members are merged into their node first (as for openai-strict).
    steps::merge_all_of(&mut schema);
    steps::close_objects(&mut schema, &mut narrowings);
    walk::transform_bottom_up(&mut schema, "", &mut |_, node| {
        let Value::Object(map) = node else { return };
        if map
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1)
        {
            map.insert("minItems".into(), json!(1));
        }
    });
    steps::drop_formats(&mut schema, FORMATS);
    steps::retain_keywords(&mut schema, ALLOWED);
    Lowered::with_narrowings(schema, narrowings)
}
