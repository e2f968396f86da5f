//! `gemini`: Gemini `functionDeclarations[].parameters`, a subset of the OpenAPI 3.0 schema.
//!
//! Rules and their source (Gemini API reference, `Schema` and `FunctionDeclaration`):
//! - supported fields only: `type`, `format`, `title`, `description`, `nullable`, `enum`,
//!   `maxItems`, `minItems`, `properties`, `required`, `minProperties`, `maxProperties`,
//!   `minLength`, `maxLength`, `pattern`, `example`, `anyOf`, `propertyOrdering`, `default`,
//!   `items`, `minimum`, `maximum`; in particular no `additionalProperties`, `$schema`,
//!   `$ref`/`$defs`, `const`, `exclusiveMinimum`, `multipleOf`, `propertyNames`;
//! - `type` is one name (no type arrays; `null` is `nullable: true`); `format` is `enum` or
//!   `date-time` for strings, `int32`/`int64`, `float`/`double` for numbers;
//! - an array needs `items`; an object needs non-empty `properties` (the root excepted: a
//!   function without parameters omits `parameters`, which `flatjoin export` does).
//!
//! Lowering (all sound): `oneOf` → `anyOf`, `allOf` merged, non-recursive `$ref` inlined,
//! `const` → one-value `enum`, `[T, "null"]` → `nullable: true`, other type lists → `anyOf`,
//! `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum`, an object without properties →
//! unconstrained, unsupported keywords and formats dropped, boolean subschemas lowered
//! (`steps::lower_boolean_subschemas`), non-string enums as exact alternatives (`lower_enum`;
//! a lone boolean, object or array value loosens and is listed as `enum-loosened`), `null`-valued
//! fields dropped. A recursive `$ref` stays and is reported; a definition copied into several
//! places, and a union the join wrote once for sharing, is listed in [`Lowered::inlined`].
//! `export` writes [`to_wire`]'s upper-case type names.
//!
//! Rules learnt from `google-genai`'s `Schema` model (pinned in `cli/sdk/requirements.txt`):
//! `enum` is a list of strings (`enum-not-string`), every subschema is an object
//! (`boolean-schema`).

use serde_json::{Map, Value, json};

use super::{Findings, Lowered, Narrowing, steps, walk, widen};

/// The fields of Gemini's `Schema`.
const ALLOWED: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Kept in the lowering only while a recursive reference needs them (and reported).
const KEPT_FOR_RECURSION: &[&str] = &["$ref", "$defs", "definitions"];

fn format_ok(schema: &Value, format: &str) -> bool {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => matches!(format, "enum" | "date-time"),
        Some("integer") => matches!(format, "int32" | "int64"),
        Some("number") => matches!(format, "float" | "double"),
        _ => false,
    }
}

/// Lints one tool for `gemini`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    let says = format!(
        "Gemini: function_declarations[{}].parameters",
        findings.tool()
    );
    steps::check_root_object(schema, &says, findings);
    steps::check_array_items(schema, &says, findings);
    walk::visit(schema, "", &mut |pointer, node| {
        let Value::Object(map) = node else { return };
        lint_unknown_keys(&says, pointer, map, findings);
        lint_type(&says, pointer, map, findings);
        lint_format(&says, pointer, node, findings);
        lint_empty_object(&says, pointer, map, findings);
    });
    // Rules google-genai's `Schema` model enforces (its own words).
    steps::check_boolean_subschemas(schema, findings, &|pointer, _| {
        format!(
            "{says}: google-genai: parameters{}: Input should be a valid dictionary or object to extract fields from",
            dotted(pointer)
        )
    });
    lint_enum_values(&says, schema, findings);
    for (pointer, reference) in steps::recursive_refs(schema) {
        findings.error(
            &pointer,
            "recursive-ref",
            format!("{says}: recursive reference {reference} cannot be expressed without $ref"),
            "none: the schema is recursive",
        );
    }
}

/// Each field of the node that Gemini's `Schema` does not have, with the sound rewrite.
fn lint_unknown_keys(says: &str, pointer: &str, map: &Map<String, Value>, findings: &mut Findings) {
    for key in map.keys() {
        if ALLOWED.contains(&key.as_str()) {
            continue;
        }
        let (rule, fix) = match key.as_str() {
            "const" => ("const", "rewrite as a one-value enum (sound)"),
            "$ref" | "$defs" | "definitions" => ("ref", "inline the reference (sound)"),
            "additionalProperties" => ("additional-properties", "drop it (sound: it only loosens)"),
            "exclusiveMinimum" | "exclusiveMaximum" => {
                ("exclusive-bound", "rewrite as minimum/maximum (sound)")
            }
            "oneOf" => ("one-of", "rewrite as anyOf (sound)"),
            "allOf" => ("all-of", "merge the parts (sound)"),
            _ => ("unsupported-keyword", "drop it (sound: it only loosens)"),
        };
        findings.error(
            pointer,
            rule,
            format!("{says}: Invalid JSON payload received. Unknown name \"{key}\" at '{pointer}'"),
            fix,
        );
    }
}

/// `type` is one name, and not `null`.
fn lint_type(says: &str, pointer: &str, map: &Map<String, Value>, findings: &mut Findings) {
    match map.get("type") {
        Some(Value::Array(_)) => findings.error(
            pointer,
            "type-array",
            format!(
                "{says}: Proto field is not repeating, cannot start list (type at '{pointer}')"
            ),
            "[T, \"null\"] → nullable: true; other lists → anyOf (sound)",
        ),
        Some(Value::String(t)) if t == "null" => findings.error(
            pointer,
            "type-null",
            format!("{says}: type \"null\" is not supported at '{pointer}'"),
            "nullable: true on the other alternatives (sound)",
        ),
        _ => {}
    }
}

/// `format` is one of the few Gemini knows for the node's type.
fn lint_format(says: &str, pointer: &str, node: &Value, findings: &mut Findings) {
    if let Some(Value::String(format)) = node.get("format")
        && !format_ok(node, format)
    {
        findings.error(
            pointer,
            "format",
            format!("{says}: format '{format}' is not supported at '{pointer}'"),
            "drop the format (sound)",
        );
    }
}

/// An object below the root needs non-empty `properties`.
fn lint_empty_object(says: &str, pointer: &str, map: &Map<String, Value>, findings: &mut Findings) {
    if !pointer.is_empty()
        && map.get("type") == Some(&json!("object"))
        && map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.is_empty())
    {
        findings.error(
            pointer,
            "empty-object",
            format!("{says}: properties: should be non-empty for OBJECT type at '{pointer}'"),
            "drop the object type: any value (sound)",
        );
    }
}

/// `enum` holds strings only (google-genai's `Schema.enum: list[str]`, in its own words).
fn lint_enum_values(says: &str, schema: &Value, findings: &mut Findings) {
    walk::visit(schema, "", &mut |pointer, node| {
        let Some(Value::Array(values)) = node.get("enum") else {
            return;
        };
        for (i, v) in values.iter().enumerate().filter(|(_, v)| !v.is_string()) {
            findings.error(
                pointer,
                "enum-not-string",
                format!(
                    "{says}: google-genai: parameters{}.enum.{i}: Input should be a valid string (input_value={v})",
                    dotted(pointer)
                ),
                "strings stay an enum; numbers become exact ranges, null nullable, booleans the boolean type (a lone one loosens, listed)",
            );
        }
    });
}

/// A JSON pointer as pydantic's error location (`/properties/a/anyOf/0` → `.properties.a.anyOf.0`).
fn dotted(pointer: &str) -> String {
    pointer.replace('/', ".")
}

/// Lowers a presentation for `gemini`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    let mut inlined = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::one_of_to_any_of(&mut schema);
    steps::merge_all_of(&mut schema);
    let recursive = steps::inline_refs(&mut schema, &mut inlined);
    steps::add_missing_items(&mut schema);
    steps::lower_boolean_subschemas(&mut schema);
    walk::transform_bottom_up(&mut schema, "", &mut |pointer, node| {
        lower_node(pointer, node, &mut narrowings)
    });
    let mut allowed: Vec<&str> = ALLOWED.to_vec();
    if !recursive.is_empty() {
        allowed.extend_from_slice(KEPT_FOR_RECURSION);
    }
    steps::retain_keywords(&mut schema, &allowed);
    Lowered::with_narrowings(schema, narrowings).with_inlined(inlined)
}

/// One node, its children already lowered: each step below, in order.
fn lower_node(pointer: &str, node: &mut Value, narrowings: &mut Vec<Narrowing>) {
    let Value::Object(map) = node else { return };
    if let Some(c) = map.shift_remove("const") {
        map.insert("enum".into(), json!([c]));
    }
    lower_enum(pointer, map, narrowings);
    // `google-genai` reads a `null` field as absent (`default: null`, `example: null`) and drops it.
    map.retain(|_, v| !v.is_null());
    exclusive_to_inclusive_bounds(map);
    if unconstrain_empty_object(pointer, map) {
        return;
    }
    lower_type_list(map);
    if map.get("type") == Some(&json!("null")) {
        map.shift_remove("type");
        map.insert("nullable".into(), json!(true));
    }
    lower_null_alternatives(map);
    if let Some(Value::String(format)) = map.get("format").cloned()
        && !format_ok(&Value::Object(map.clone()), &format)
    {
        map.shift_remove("format");
    }
}

/// `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum` where those are not set (looser
/// by one value: sound).
fn exclusive_to_inclusive_bounds(map: &mut Map<String, Value>) {
    for (exclusive, inclusive) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(v) = map.shift_remove(exclusive)
            && v.is_number()
            && !map.contains_key(inclusive)
        {
            map.insert(inclusive.into(), v);
        }
    }
}

/// An object without properties (a map or a free-form object): Gemini has no way to say it, so
/// below the root it becomes unconstrained (`true` when it did). The root keeps its type:
/// `export` omits empty parameters.
fn unconstrain_empty_object(pointer: &str, map: &mut Map<String, Value>) -> bool {
    let types = walk::types(&Value::Object(map.clone()))
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    let empty = map
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty());
    if pointer.is_empty() || !types.iter().any(|t| t == "object") || !empty {
        return false;
    }
    for key in [
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "type",
        "format",
    ] {
        map.shift_remove(key);
    }
    true
}

/// A type list: `null` in it → `nullable: true` (and `null` out of the enum); one other name →
/// that `type`; several → an `anyOf` of one alternative per name.
fn lower_type_list(map: &mut Map<String, Value>) {
    let Some(Value::Array(list)) = map.get("type").cloned() else {
        return;
    };
    let mut names: Vec<String> = list
        .iter()
        .filter_map(|t| t.as_str().map(String::from))
        .collect();
    let nullable = names.iter().any(|t| t == "null");
    names.retain(|t| t != "null");
    match names.len() {
        0 => {
            map.shift_remove("type");
        }
        1 => {
            map.insert("type".into(), json!(names[0]));
        }
        _ => split_types_into_any_of(map, &names),
    }
    if nullable {
        map.insert("nullable".into(), json!(true));
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
    }
}

/// The node as an `anyOf` of one copy per type name (annotations stay on the node).
fn split_types_into_any_of(map: &mut Map<String, Value>, names: &[String]) {
    map.shift_remove("type");
    let base = map.clone();
    let alts: Vec<Value> = names
        .iter()
        .map(|t| {
            let mut alt = base.clone();
            alt.shift_remove("description");
            alt.shift_remove("title");
            alt.insert("type".into(), json!(t));
            Value::Object(alt)
        })
        .collect();
    let mut out = Map::new();
    for key in ["title", "description"] {
        if let Some(v) = map.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    out.insert("anyOf".into(), Value::Array(alts));
    *map = out;
}

/// An `anyOf` alternative that only says `nullable` goes, and makes the others nullable; a
/// single alternative left is merged into the node.
fn lower_null_alternatives(map: &mut Map<String, Value>) {
    let Some(Value::Array(alts)) = map.get_mut("anyOf") else {
        return;
    };
    let is_null = |a: &Value| {
        a.get("nullable") == Some(&json!(true))
            && a.as_object().is_some_and(|o| {
                o.keys()
                    .all(|k| k == "nullable" || steps::ANNOTATIONS.contains(&k.as_str()))
            })
    };
    let before = alts.len();
    alts.retain(|a| !is_null(a));
    if alts.len() == before {
        return;
    }
    for alt in alts.iter_mut() {
        if let Value::Object(a) = alt {
            a.insert("nullable".into(), json!(true));
        }
    }
    if alts.len() == 1 {
        let only = alts.remove(0);
        map.shift_remove("anyOf");
        let merged = widen::merge_all(&[Value::Object(map.clone()), only]);
        if let Value::Object(m) = merged {
            *map = m;
        }
    } else if alts.is_empty() {
        map.shift_remove("anyOf");
        map.insert("nullable".into(), json!(true));
    }
}

/// Gemini's `enum` is a list of strings (`google-genai`: `Schema.enum: list[str]`). A string enum
/// stays (typed `string` when it had no type); any other enum becomes, per kind of value:
/// strings → `{"type": "string", "enum": [...]}`; each number → `{"type": "integer"|"number",
/// "minimum": v, "maximum": v}` (exactly that value); `null` → `nullable: true`; `true` and `false`
/// together → `{"type": "boolean"}` (exact); a lone boolean, an object or an array value → its
/// type unconstrained, which loosens: the values are stated in the description and a note is
/// listed (rule `enum-loosened`; the original schema still rejects the others at runtime). Several
/// kinds become an `anyOf`, one kind is merged into the node. The node's other assertions go with
/// the enum (the enum implied them; dropping only loosens).
fn lower_enum(pointer: &str, map: &mut Map<String, Value>, narrowings: &mut Vec<Narrowing>) {
    let Some(Value::Array(values)) = map.get("enum") else {
        return;
    };
    if values.iter().all(Value::is_string) {
        if !map.contains_key("type") && !map.contains_key("anyOf") {
            map.insert("type".into(), json!("string"));
        }
        return;
    }
    let Some(Value::Array(values)) = map.shift_remove("enum") else {
        return;
    };
    let (alts, loosened) = enum_alternatives(&values);
    let keep: Vec<(String, Value)> = std::mem::take(map)
        .into_iter()
        .filter(|(k, _)| {
            steps::ANNOTATIONS.contains(&k.as_str()) || k == "nullable" || k == "anyOf"
        })
        .collect();
    map.extend(keep);
    if !loosened.is_empty() {
        describe_loosened(pointer, map, &values, &loosened, narrowings);
    }
    if map.contains_key("anyOf") {
        // An enum beside an anyOf: the enum is dropped (only loosens), its values described.
        return;
    }
    put_enum_alternatives(map, alts, values.iter().any(Value::is_null));
}

/// The alternatives that say a non-string enum's `values` (strings first, then per value in
/// order), and the values they cannot say exactly (a lone boolean, arrays, objects).
fn enum_alternatives(values: &[Value]) -> (Vec<Value>, Vec<&Value>) {
    let strings: Vec<Value> = values.iter().filter(|v| v.is_string()).cloned().collect();
    let mut alts: Vec<Value> = Vec::new();
    if !strings.is_empty() {
        alts.push(json!({"type": "string", "enum": strings}));
    }
    let mut loosened: Vec<&Value> = Vec::new();
    for v in values {
        match v {
            Value::Number(_) => {
                let t = if walk::json_type(v) == "integer" {
                    "integer"
                } else {
                    "number"
                };
                alts.push(json!({"type": t, "minimum": v, "maximum": v}));
            }
            Value::Bool(b) => {
                if !values.contains(&json!(!b)) {
                    loosened.push(v);
                }
                if !alts.contains(&json!({"type": "boolean"})) {
                    alts.push(json!({"type": "boolean"}));
                }
            }
            Value::Array(_) => {
                loosened.push(v);
                alts.push(json!({"type": "array", "items": {}}));
            }
            Value::Object(_) => {
                loosened.push(v);
                alts.push(json!({}));
            }
            Value::String(_) | Value::Null => {}
        }
    }
    (alts, loosened)
}

/// States the enum's `values` in the node's description and lists the `enum-loosened` note.
fn describe_loosened(
    pointer: &str,
    map: &mut Map<String, Value>,
    values: &[Value],
    loosened: &[&Value],
    narrowings: &mut Vec<Narrowing>,
) {
    let stated = format!(
        "Allowed values: {}.",
        values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} {stated}"),
        _ => stated,
    };
    map.insert("description".into(), json!(description));
    narrowings.push(Narrowing {
        pointer: pointer.to_owned(),
        rule: "enum-loosened",
        detail: format!(
            "Gemini's enum holds strings only: the values {} are stated in the description and their type accepted as a whole (a loosening: the declaration accepts more; the original still rejects the others)",
            loosened
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });
}

/// The enum's alternatives into the node (each `nullable` when the enum held `null`): none →
/// only `nullable`, one → merged, several → an `anyOf`.
fn put_enum_alternatives(map: &mut Map<String, Value>, mut alts: Vec<Value>, nullable: bool) {
    if nullable {
        for alt in &mut alts {
            if let Value::Object(a) = alt {
                a.insert("nullable".into(), json!(true));
            }
        }
    }
    match alts.len() {
        0 => {
            if nullable {
                map.insert("nullable".into(), json!(true));
            }
        }
        1 => {
            if let Some(Value::Object(only)) = alts.pop() {
                map.extend(only);
            }
        }
        _ => {
            map.insert("anyOf".into(), Value::Array(alts));
        }
    }
}

/// The declaration as `google-genai` writes it back: `type` names in the API's upper case
/// (`Type.STRING` dumps as `"STRING"`), so an export is a fixpoint of
/// `FunctionDeclaration.model_validate(..).model_dump(by_alias=True, exclude_none=True)`.
/// Applied to `parameters` by `flatjoin export` only; the profile's schema (lint, soundness, the
/// proxy) keeps JSON Schema's lower-case names, which the SDK accepts as well.
pub fn to_wire(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        if let Some(Value::String(t)) = node.get_mut("type") {
            *t = t.to_uppercase();
        }
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn openapi_subset_rewrites() {
        let presentation = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "mode": {"const": "fast"},
                "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0},
                "id": {"type": ["string", "integer"]},
                "meta": {"type": "object", "additionalProperties": {"type": "string"}},
                "ref": {"$ref": "#/$defs/P"}
            },
            "additionalProperties": false,
            "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}}
        });
        let lowered = lower(&presentation).schema;
        let p = &lowered["properties"];
        assert_eq!(p["mode"], json!({"enum": ["fast"], "type": "string"}));
        assert_eq!(
            p["limit"],
            json!({"type": "integer", "minimum": 0, "nullable": true})
        );
        assert_eq!(
            p["id"]["anyOf"],
            json!([{"type": "string"}, {"type": "integer"}])
        );
        assert_eq!(p["meta"], json!({}));
        assert_eq!(p["ref"]["properties"]["x"], json!({"type": "number"}));
        assert!(lowered.get("$schema").is_none() && lowered.get("$defs").is_none());
        assert!(lowered.get("additionalProperties").is_none());
        let mut findings = Findings::new("t");
        lint(&lowered, &mut findings);
        assert_eq!(findings.into_vec(), Vec::new());
    }

    #[test]
    fn non_string_enums_and_boolean_subschemas_reach_gemini_as_its_schema_model_allows() {
        let presentation = json!({
            "type": "object",
            "properties": {
                "version": {"type": "integer", "enum": [1, 2]},
                "mixed": {"enum": ["a", 1.5, null]},
                "flag": {"const": true},
                "either": {"anyOf": [false, {"type": "string"}, false]},
                "gone": false,
                "empty": {"type": "array", "items": false}
            },
            "required": ["version", "gone"]
        });
        let lowered = lower(&presentation);
        let p = &lowered.schema["properties"];
        assert_eq!(
            p["version"],
            json!({"anyOf": [
                {"type": "integer", "minimum": 1, "maximum": 1},
                {"type": "integer", "minimum": 2, "maximum": 2}
            ]})
        );
        assert_eq!(
            p["mixed"]["anyOf"],
            json!([
                {"type": "string", "enum": ["a"], "nullable": true},
                {"type": "number", "minimum": 1.5, "maximum": 1.5, "nullable": true}
            ])
        );
        // A lone boolean cannot be said: the type stands, the value is described, a note listed.
        assert_eq!(p["flag"]["type"], json!("boolean"));
        assert_eq!(p["flag"]["description"], json!("Allowed values: true."));
        assert_eq!(lowered.narrowings.len(), 1);
        assert_eq!(lowered.narrowings[0].rule, "enum-loosened");
        assert_eq!(lowered.narrowings[0].pointer, "/properties/flag");
        assert_eq!(p["either"], json!({"type": "string"}));
        assert!(p.get("gone").is_none());
        assert_eq!(lowered.schema["required"], json!(["version"]));
        assert_eq!(
            p["empty"],
            json!({"type": "array", "items": {}, "maxItems": 0})
        );
        let mut findings = Findings::new("t");
        lint(&lowered.schema, &mut findings);
        assert_eq!(findings.into_vec(), Vec::new());
    }

    #[test]
    fn lint_words_what_google_genai_refuses() {
        let published = json!({
            "type": "object",
            "properties": {"v": {"enum": ["a", 2]}, "w": {"anyOf": [false, {"type": "string"}]}}
        });
        let mut findings = Findings::new("t");
        lint(&published, &mut findings);
        let found: Vec<(String, &str, String)> = findings
            .into_vec()
            .into_iter()
            .map(|f| (f.pointer, f.rule, f.message))
            .collect();
        assert!(found.iter().any(|(p, r, m)| p == "/properties/v"
            && *r == "enum-not-string"
            && m.contains("parameters.properties.v.enum.1: Input should be a valid string")));
        assert!(found.iter().any(|(p, r, m)| p == "/properties/w/anyOf/0"
            && *r == "boolean-schema"
            && m.contains("Input should be a valid dictionary")));
    }
}
