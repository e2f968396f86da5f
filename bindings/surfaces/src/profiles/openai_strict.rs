//! `openai-strict`: OpenAI function tools with `strict: true` (Structured Outputs).
//!
//! Rules and their source (OpenAI "Structured Outputs" guide, section "Supported schemas"):
//! - supported types: string, number, boolean, integer, object, array, enum, `anyOf`; the root is
//!   an object and not `anyOf`; every schema names its `type` ("schema must have a 'type' key");
//! - supported keywords only: `pattern`, `format` (date-time, time, date, duration, email,
//!   hostname, ipv4, ipv6, uuid), `multipleOf`, `minimum`, `maximum`, `exclusiveMinimum`,
//!   `exclusiveMaximum`, `minItems`, `maxItems`, and the structural ones (`properties`,
//!   `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `$ref`, `$defs`,
//!   `definitions`, `description`, `title`);
//! - every object has `additionalProperties: false` and lists every property in `required`
//!   (optional fields are emulated with a union with `null`);
//! - limits: 5,000 object properties in total, 10 levels of nesting, 1,000 enum values in total,
//!   120,000 characters of property names, definition names, enum and const values.
//!
//! Lowering: sound steps (`oneOf` → `anyOf`, `allOf` merge, unsupported assertions dropped,
//! `items` added, missing types filled from `enum`/`const`) plus two listed narrowings: objects
//! are closed, and every property is required with optional ones made nullable. The matching
//! normalizer ([`normalize`]) turns `null` back into "absent" for exactly the fields made nullable.
//!
//! Rules learnt from the OpenAI Agents SDK's `ensure_strict_json_schema` (every strict function
//! tool goes through it; pinned in `cli/sdk/requirements.txt`): every subschema is an object
//! (`boolean-schema`), a `$ref` has no constraining sibling (`ref-siblings`). Its fixpoint is kept
//! too: `required: []` beside `properties: {}`, a `$ref` alone in its node.

use serde_json::{Map, Value, json};

use super::{Findings, Lowered, Narrowing, NullableField, steps, walk, widen};

/// The keywords strict mode accepts.
const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// The `format` values strict mode accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords the OpenAI Agents SDK lets stand beside a `$ref` (`_REF_NON_CONSTRAINING_SIBLINGS`).
const REF_NON_CONSTRAINING: &[&str] = &[
    "$anchor",
    "$comment",
    "$defs",
    "$schema",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "default",
    "definitions",
    "deprecated",
    "description",
    "examples",
    "readOnly",
    "title",
    "writeOnly",
];

/// Name of the definition that stands for an unconstrained value.
const ANY: &str = "flatjoin_any";

/// Documented limits.
const MAX_PROPERTIES: usize = 5_000;
const MAX_NESTING: usize = 10;
const MAX_ENUM_VALUES: usize = 1_000;
const MAX_STRING_CHARS: usize = 120_000;

/// Lints one tool for `openai-strict`.
pub fn lint(schema: &Value, findings: &mut Findings) {
    let says = format!("OpenAI: Invalid schema for function '{}'", findings.tool());
    steps::check_root_object(schema, &says, findings);
    steps::check_root_composition(schema, &["anyOf"], &says, findings);
    steps::check_keywords(
        schema,
        ALLOWED,
        &says,
        "drop the keyword (sound: it only loosens), oneOf → anyOf, allOf merged",
        findings,
    );
    steps::check_array_items(schema, &says, findings);
    steps::check_closed_objects(schema, &says, findings);
    walk::visit(schema, "", &mut |pointer, node| {
        let Value::Object(map) = node else { return };
        if walk::is_object_schema(node) {
            let required: Vec<&str> = match map.get("required") {
                Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if let Some(Value::Object(props)) = map.get("properties") {
                let missing: Vec<&str> = props
                    .keys()
                    .map(String::as_str)
                    .filter(|k| !required.contains(k))
                    .collect();
                if !missing.is_empty() {
                    findings.error(
                        pointer,
                        "required-all",
                        format!(
                            "{says}: In context=({pointer}), 'required' is required to be supplied and to be an array including every key in properties. Missing '{}'",
                            missing.join("', '")
                        ),
                        "require every property, optional ones made nullable (narrowing; null → absent by the normalizer)",
                    );
                }
            }
        }
        let typed = ["type", "anyOf", "$ref", "enum", "const"]
            .iter()
            .any(|k| map.contains_key(*k));
        let is_defs = pointer.ends_with("/$defs") || pointer.ends_with("/definitions");
        if !typed && !is_defs {
            findings.error(
                pointer,
                "missing-type",
                format!("{says}: In context=({pointer}), schema must have a 'type' key"),
                "fill the type from enum/const, or stand for any value with an anyOf of every type (objects inside narrowed to {})",
            );
        }
    });
    steps::check_formats(schema, FORMATS, &says, findings);
    check_limits(schema, &says, findings);
    // Rules the OpenAI Agents SDK's `ensure_strict_json_schema` enforces (its own words).
    steps::check_boolean_subschemas(schema, findings, &|pointer, b| {
        let path: Vec<String> = pointer
            .split('/')
            .skip(1)
            .map(|t| format!("'{}'", t.replace("~1", "/").replace("~0", "~")))
            .collect();
        let comma = if path.len() == 1 { "," } else { "" };
        format!(
            "{says}: Expected {} to be a dictionary; path=({}{comma})",
            if b { "True" } else { "False" },
            path.join(", ")
        )
    });
    walk::visit(schema, "", &mut |pointer, node| {
        let Value::Object(map) = node else { return };
        if !map.contains_key("$ref") {
            return;
        }
        let mut siblings: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "$ref" && !REF_NON_CONSTRAINING.contains(k))
            .filter(|k| !(pointer.is_empty() && *k == "$id"))
            .collect();
        siblings.sort_unstable();
        if !siblings.is_empty() {
            findings.error(
                pointer,
                "ref-siblings",
                format!(
                    "{says}: JSON schema contains a `$ref` with incompatible sibling keyword(s) ({}) that cannot be merged without changing its accepted values.",
                    siblings.join(", ")
                ),
                "a root $ref becomes its target; elsewhere the $ref moves into a one-member anyOf (sound)",
            );
        }
    });
}

fn check_limits(schema: &Value, says: &str, findings: &mut Findings) {
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    let mut chars = 0usize;
    walk::visit(schema, "", &mut |_, node| {
        if let Some(Value::Object(props)) = node.get("properties") {
            properties += props.len();
            chars += props.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = node.get(defs) {
                chars += d.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = node.get("enum") {
            enum_values += values.len();
            chars += values.iter().map(text_len).sum::<usize>();
        }
        if let Some(value) = node.get("const") {
            chars += text_len(value);
        }
    });
    let nesting = nesting(schema, 0);
    let checks = [
        (
            "limit-properties",
            properties,
            MAX_PROPERTIES,
            "object properties in total",
        ),
        ("limit-nesting", nesting, MAX_NESTING, "levels of nesting"),
        (
            "limit-enum-values",
            enum_values,
            MAX_ENUM_VALUES,
            "enum values in total",
        ),
        (
            "limit-string-length",
            chars,
            MAX_STRING_CHARS,
            "characters of names, enum and const values",
        ),
    ];
    findings.limits(
        &checks,
        |got, what, max| format!("{says}: {got} {what}, the limit is {max}"),
        "none: split the tool or simplify its schema",
    );
}

fn text_len(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// Object nesting depth: 1 for an object, plus the deepest object below it.
fn nesting(schema: &Value, depth: usize) -> usize {
    if depth > 64 {
        return depth;
    }
    let here = usize::from(walk::is_object_schema(schema));
    let mut deepest = 0;
    walk::for_each_child(schema, &mut |suffix, child| {
        if suffix.starts_with("/$defs") || suffix.starts_with("/definitions") {
            return;
        }
        deepest = deepest.max(nesting(child, depth + here));
    });
    here + deepest
}

/// Lowers a presentation for `openai-strict`.
pub fn lower(presentation: &Value) -> Lowered {
    let mut schema = presentation.clone();
    let mut narrowings = Vec::new();
    steps::ensure_root_object(&mut schema, &mut narrowings);
    steps::one_of_to_any_of(&mut schema);
    steps::merge_all_of(&mut schema);
    steps::add_missing_items(&mut schema);
    steps::lower_boolean_subschemas(&mut schema);
    steps::close_objects(&mut schema, &mut narrowings);
    steps::drop_formats(&mut schema, FORMATS);
    steps::retain_keywords(&mut schema, ALLOWED);
    let used_any = fill_types(&mut schema, &mut narrowings);
    if used_any && let Value::Object(root) = &mut schema {
        let defs = root.entry("$defs").or_insert_with(|| json!({}));
        if let Value::Object(defs) = defs {
            defs.insert(ANY.into(), any_schema(None));
        }
    }
    let mut made_nullable = Vec::new();
    let mut required_nullable = Vec::new();
    require_all(
        &mut schema,
        &mut narrowings,
        &mut made_nullable,
        &mut required_nullable,
    );
    isolate_refs(&mut schema);
    Lowered {
        schema,
        narrowings,
        made_nullable,
        required_nullable,
        inlined: Vec::new(),
    }
}

/// A `$ref` stands alone (the OpenAI Agents SDK's `ensure_strict_json_schema` inlines a `$ref`
/// with any sibling, and refuses one whose siblings constrain): `{"$ref": r, ..rest}` becomes
/// `{..rest, "anyOf": [{"$ref": r}]}`, the same values (a one-member `anyOf` is its member). Where
/// the node already has an `anyOf`, the reference is inlined when it is not recursive (the same
/// values) and dropped otherwise (looser, sound).
fn isolate_refs(schema: &mut Value) {
    let root = schema.clone();
    let recursive: Vec<String> = steps::recursive_refs(&root)
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        let Value::Object(map) = node else { return };
        if map.len() < 2 || !map.contains_key("$ref") {
            return;
        }
        let Some(Value::String(reference)) = map.shift_remove("$ref") else {
            return;
        };
        if !map.contains_key("anyOf") {
            map.insert("anyOf".into(), json!([{"$ref": reference}]));
        } else if !recursive.contains(&reference)
            && let Some(target) = walk::resolve(&root, &reference)
        {
            *node = widen::merge_all(&[Value::Object(map.clone()), target.clone()]);
        }
    });
}

/// Strict mode's stand-in for an unconstrained value: every scalar type, arrays of anything, and
/// the empty closed object (the one narrowing: a non-empty object no longer passes).
fn any_schema(description: Option<Value>) -> Value {
    let mut out = Map::new();
    if let Some(d) = description {
        out.insert("description".into(), d);
    }
    out.insert(
        "anyOf".into(),
        json!([
            {"type": "string"},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
            {"type": "array", "items": {"$ref": format!("#/$defs/{ANY}")}},
            {"type": "object", "properties": {}, "required": [], "additionalProperties": false}
        ]),
    );
    Value::Object(out)
}

/// Gives every schema node a `type`: from `enum`/`const` values (exact), `object`/`array` from
/// their keywords (a narrowing: non-objects no longer pass there), or the unconstrained stand-in.
/// Returns whether the stand-in was used.
fn fill_types(schema: &mut Value, narrowings: &mut Vec<Narrowing>) -> bool {
    let mut used_any = false;
    walk::transform_bottom_up(schema, "", &mut |pointer, node| {
        if pointer.ends_with("/$defs") || pointer.ends_with("/definitions") {
            return;
        }
        if let Value::Bool(true) = node {
            *node = any_schema(None);
            used_any = true;
            narrowings.push(Narrowing {
                pointer: pointer.to_owned(),
                rule: "any-value",
                detail: "an unconstrained value stands as any scalar, any array or the empty object: a non-empty object no longer passes".into(),
            });
            return;
        }
        let Value::Object(map) = node else { return };
        // Object keywords beside an `anyOf` (schemars' sibling `properties`): the SDK's strict
        // transform types such a node `object`, so the export does it first (a narrowing only
        // where a member admits a non-object).
        if !map.contains_key("type") && map.contains_key("properties") && map.contains_key("anyOf")
        {
            let members_objects = map
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|ms| ms.iter().all(|m| m.get("type") == Some(&json!("object"))));
            if !members_objects {
                narrowings.push(Narrowing {
                    pointer: pointer.to_owned(),
                    rule: "object-type",
                    detail: "object keywords beside anyOf stand as an object: a non-object value no longer passes".into(),
                });
            }
            map.insert("type".into(), json!("object"));
            return;
        }
        if ["type", "anyOf", "$ref"]
            .iter()
            .any(|k| map.contains_key(*k))
        {
            return;
        }
        let literals: Option<Vec<Value>> = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(values)), _) => Some(values.clone()),
            (_, Some(c)) => Some(vec![c.clone()]),
            _ => None,
        };
        if let Some(values) = literals {
            if let Some(t) = widen::widen(
                &values
                    .iter()
                    .map(|v| json!({"const": v}))
                    .collect::<Vec<_>>(),
            )
            .get("type")
            {
                map.insert("type".into(), t.clone());
            }
            return;
        }
        if map.contains_key("properties") || map.contains_key("items") {
            let t = if map.contains_key("properties") {
                "object"
            } else {
                "array"
            };
            map.insert("type".into(), json!(t));
            narrowings.push(Narrowing {
                pointer: pointer.to_owned(),
                rule: "typed",
                detail: format!("a schema with {t} keywords but no type became type \"{t}\": other values no longer pass"),
            });
            return;
        }
        let description = map.get("description").cloned();
        *node = any_schema(description);
        used_any = true;
        narrowings.push(Narrowing {
            pointer: pointer.to_owned(),
            rule: "any-value",
            detail: "an unconstrained value stands as any scalar, any array or the empty object: a non-empty object no longer passes".into(),
        });
    });
    used_any
}

/// Lists every property in `required`; an optional one is made nullable first (recorded for the
/// normalizer). An optional property that already accepts `null` stays as it is: there `null`
/// keeps its own meaning, and "absent" cannot be expressed any more (listed).
fn require_all(
    schema: &mut Value,
    narrowings: &mut Vec<Narrowing>,
    made: &mut Vec<NullableField>,
    kept_nullable: &mut Vec<NullableField>,
) {
    walk::transform_bottom_up(schema, "", &mut |pointer, node| {
        let Value::Object(map) = node else { return };
        let Some(Value::Object(props)) = map.get("properties") else {
            return;
        };
        let required: Vec<String> = match map.get("required") {
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        };
        let optional: Vec<String> = props
            .keys()
            .filter(|k| !required.contains(k))
            .cloned()
            .collect();
        if optional.is_empty() {
            // `properties: {}` still gets its `required: []` (the SDK's fixpoint).
            map.entry("required").or_insert_with(|| json!([]));
            return;
        }
        let mut nulled = Vec::new();
        let mut kept = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for name in &optional {
                if let Some(def) = props.get_mut(name) {
                    if make_nullable(def) {
                        nulled.push(name.clone());
                        made.push(NullableField {
                            object: pointer.to_owned(),
                            field: name.clone(),
                        });
                    } else {
                        kept.push(name.clone());
                        kept_nullable.push(NullableField {
                            object: pointer.to_owned(),
                            field: name.clone(),
                        });
                    }
                }
            }
        }
        let all: Vec<Value> = match map.get("properties") {
            Some(Value::Object(props)) => props.keys().map(|k| Value::String(k.clone())).collect(),
            _ => Vec::new(),
        };
        map.insert("required".into(), Value::Array(all));
        if !nulled.is_empty() {
            narrowings.push(Narrowing {
                pointer: pointer.to_owned(),
                rule: "required-all",
                detail: format!(
                    "optional {} made required and nullable: a value omitting them no longer passes; the normalizer turns null into absent",
                    quoted(&nulled)
                ),
            });
        }
        if !kept.is_empty() {
            narrowings.push(Narrowing {
                pointer: pointer.to_owned(),
                rule: "required-all",
                detail: format!(
                    "optional {} already accepted null and are now required: a value omitting them no longer passes (null is passed through as null)",
                    quoted(&kept)
                ),
            });
        }
    });
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Makes `def` accept `null` without moving its subschemas (so recorded pointers stay valid).
/// Returns false when it already accepted `null` (nothing to undo later).
fn make_nullable(def: &mut Value) -> bool {
    if widen::kinds(def).is_some_and(|k| k.contains("null")) {
        return false;
    }
    if let Value::Object(map) = def {
        if let Some(Value::Array(alts)) = map.get_mut("anyOf") {
            if alts
                .iter()
                .any(|a| widen::kinds(a).is_some_and(|k| k.contains("null")))
            {
                return false;
            }
            alts.push(json!({"type": "null"}));
            return true;
        }
        // Beside `allOf`, `$ref` or `oneOf`, a `null` named in `type` would still have to pass
        // them: the node is wrapped instead.
        let applied = ["allOf", "$ref", "oneOf"]
            .iter()
            .any(|k| map.contains_key(*k));
        match map.get_mut("type").filter(|_| !applied) {
            // `type: "null"` beside keywords that take `null` out of the node's kinds.
            Some(Value::String(t)) if t == "null" => {}
            Some(Value::String(t)) => {
                let t = t.clone();
                map.insert("type".into(), json!([t, "null"]));
            }
            // `type` can name `null` where the node's kinds do not (an `allOf` beside it that
            // takes `null` out): `type` keeps its names unique, as the meta-schema wants.
            Some(Value::Array(list)) => {
                if !list.contains(&json!("null")) {
                    list.push(json!("null"));
                }
            }
            _ => {
                let description = map.shift_remove("description");
                let inner = Value::Object(std::mem::take(map));
                if let Some(d) = description {
                    map.insert("description".into(), d);
                }
                map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                return true;
            }
        }
        if let Some(c) = map.shift_remove("const") {
            map.insert("enum".into(), json!([c, null]));
        } else if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
        return true;
    }
    false
}

/// The argument normalizer of `openai-strict`: walks `value` along the lowered `schema` (at
/// `pointer` in `root`) and removes every `null` sent for a property the lowering made nullable.
pub fn normalize(
    root: &Value,
    pointer: &str,
    schema: &Value,
    made: &[NullableField],
    value: &mut Value,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    if let Some(Value::String(reference)) = schema.get("$ref")
        && let Some(target) = walk::resolve(root, reference)
    {
        let target_pointer = reference.trim_start_matches('#').to_owned();
        normalize(root, &target_pointer, target, made, value, depth + 1);
        return;
    }
    if let Some(Value::Array(alts)) = schema.get("anyOf") {
        let kind = walk::json_type(value);
        let fits = |alt: &Value| match widen::kinds(alt) {
            Some(k) => k.contains(kind) || (kind == "integer" && k.contains("number")),
            None => true,
        };
        // Among the alternatives of the value's type, the first whose properties declare every
        // key of the value with a matching literal (`const`/`enum`): closed strict objects make
        // that the one the value is for; else the first of the value's type.
        let declares = |alt: &Value| {
            let (Value::Object(fields), Some(Value::Object(props))) =
                (&*value, alt.get("properties"))
            else {
                return false;
            };
            fields.iter().all(|(k, v)| {
                props
                    .get(k)
                    .is_some_and(|def| match (def.get("const"), def.get("enum")) {
                        (Some(c), _) => c == v,
                        (None, Some(Value::Array(list))) => list.contains(v),
                        _ => true,
                    })
            })
        };
        let chosen = alts
            .iter()
            .enumerate()
            .find(|(_, a)| fits(a) && declares(a))
            .or_else(|| alts.iter().enumerate().find(|(_, a)| fits(a)));
        if let Some((i, alt)) = chosen {
            normalize(
                root,
                &format!("{pointer}/anyOf/{i}"),
                alt,
                made,
                value,
                depth + 1,
            );
        }
        return;
    }
    match value {
        Value::Object(fields) => {
            let Some(Value::Object(props)) = schema.get("properties") else {
                return;
            };
            fields.retain(|name, v| {
                !(v.is_null() && made.iter().any(|m| m.object == pointer && m.field == *name))
            });
            for (name, v) in fields.iter_mut() {
                if let Some(def) = props.get(name) {
                    let child = format!("{pointer}/properties/{}", walk::escape(name));
                    normalize(root, &child, def, made, v, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(def) = schema.get("items") {
                let child = format!("{pointer}/items");
                for v in items {
                    normalize(root, &child, def, made, v, depth + 1);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::profiles::normalize_arguments;

    fn presentation() -> Value {
        json!({
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["a", "b"]},
                "size": {"type": "integer"},
                "note": {"type": ["string", "null"]},
                "tag": {"const": "x"}
            },
            "required": ["kind"]
        })
    }

    #[test]
    fn optional_fields_become_required_and_nullable_and_objects_closed() {
        let lowered = lower(&presentation());
        let s = &lowered.schema;
        assert_eq!(s["required"], json!(["kind", "size", "note", "tag"]));
        assert_eq!(s["properties"]["size"]["type"], json!(["integer", "null"]));
        assert_eq!(s["properties"]["tag"]["enum"], json!(["x", null]));
        assert_eq!(s["additionalProperties"], json!(false));
        let made: Vec<&str> = lowered
            .made_nullable
            .iter()
            .map(|m| m.field.as_str())
            .collect();
        assert_eq!(made, ["size", "tag"]);
        let kept: Vec<&str> = lowered
            .required_nullable
            .iter()
            .map(|m| m.field.as_str())
            .collect();
        assert_eq!(kept, ["note"]);
        assert!(lowered.narrowings.iter().any(|n| n.rule == "closed-object"));
        assert!(lowered.narrowings.iter().any(|n| n.rule == "required-all"));
    }

    /// A `type` list that names `null` where the node's kinds do not (an `enum` without it)
    /// stays a list of unique names when the field is made nullable: the meta-schema wants them
    /// unique, and the lowered schema did not compile (open-world case 229 of the default seed,
    /// SPEC §6 decision 90). Beside an `allOf` that takes `null` out, the node is wrapped instead,
    /// so `null` passes (case 2297).
    #[test]
    fn a_field_made_nullable_accepts_null_and_stays_valid() {
        let mut listed = json!({"type": ["string", "null", "integer"], "enum": ["a", 1]});
        make_nullable(&mut listed);
        assert_eq!(listed["type"], json!(["string", "null", "integer"]));
        let mut beside = json!({"type": ["string", "null"], "allOf": [{"type": "string"}]});
        make_nullable(&mut beside);
        for def in [listed, beside] {
            assert!(jsonschema::meta::is_valid(&def), "{def}");
            let accepts = jsonschema::validator_for(&def).is_ok_and(|v| v.is_valid(&Value::Null));
            assert!(accepts, "{def} rejects null");
        }
    }

    #[test]
    fn the_normalizer_drops_null_for_exactly_the_fields_made_nullable() {
        let lowered = lower(&presentation());
        let sent = json!({"kind": "a", "size": null, "note": null, "tag": null});
        assert_eq!(
            normalize_arguments(&lowered, &sent),
            json!({"kind": "a", "note": null})
        );
        let full = json!({"kind": "b", "size": 3, "note": "n", "tag": "x"});
        assert_eq!(normalize_arguments(&lowered, &full), full);
    }

    #[test]
    fn lint_names_what_strict_mode_rejects() {
        let mut findings = Findings::new("t");
        lint(&presentation(), &mut findings);
        let rules: Vec<&str> = findings.into_vec().iter().map(|f| f.rule).collect();
        assert!(rules.contains(&"required-all"), "{rules:?}");
        assert!(rules.contains(&"additional-properties-false"), "{rules:?}");
        let mut after = Findings::new("t");
        lint(&lower(&presentation()).schema, &mut after);
        assert_eq!(after.into_vec(), Vec::new());
    }

    #[test]
    fn lint_words_what_the_agents_sdk_refuses_and_the_lowering_avoids_it() {
        let published = json!({
            "$defs": {"N": {"type": "object", "properties": {"x": {"anyOf": [false, {"type": "string"}]}}}},
            "$ref": "#/$defs/N",
            "type": "object"
        });
        let mut findings = Findings::new("t");
        lint(&published, &mut findings);
        let found: Vec<(String, &str, String)> = findings
            .into_vec()
            .into_iter()
            .map(|f| (f.pointer, f.rule, f.message))
            .collect();
        assert!(found.iter().any(|(p, r, m)| p.is_empty()
            && *r == "ref-siblings"
            && m.contains("incompatible sibling keyword(s) (type)")));
        assert!(found.iter().any(|(p, r, m)| p == "/$defs/N/properties/x/anyOf/0"
            && *r == "boolean-schema"
            && m.contains("Expected False to be a dictionary; path=('$defs', 'N', 'properties', 'x', 'anyOf', '0')")));
        let lowered = lower(&published).schema;
        let mut after = Findings::new("t");
        lint(&lowered, &mut after);
        assert_eq!(after.into_vec(), Vec::new(), "{lowered}");
        assert!(lowered.get("$ref").is_none(), "{lowered}");
        // x was optional: required and nullable now (listed), its false alternative gone.
        assert_eq!(
            lowered["properties"]["x"],
            json!({"type": ["string", "null"]})
        );
    }
}
