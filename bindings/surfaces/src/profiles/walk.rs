//! The one place that knows which JSON Schema keywords hold subschemas (after schemars'
//! `transform_subschemas`): every profile check and every lowering step walks through here, so a
//! new keyword is one edit in one place.

use flatjoin::keywords::{Place, subschemas, subschemas_mut};
use serde_json::Value;

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Calls `f(suffix, child)` for every direct subschema of `schema`, where `suffix` is the JSON
/// pointer from `schema` to the child (for example `/properties/name`). The keyword table is the
/// core's ([`flatjoin::keywords::subschemas`]).
pub fn for_each_child(schema: &Value, f: &mut dyn FnMut(String, &Value)) {
    let Value::Object(map) = schema else { return };
    subschemas(map, |place, child| {
        if is_schema_at(place, child) {
            f(place.suffix(), child);
        }
    });
}

/// The mutable twin of [`for_each_child`].
pub fn for_each_child_mut(schema: &mut Value, f: &mut dyn FnMut(String, &mut Value)) {
    let Value::Object(map) = schema else { return };
    subschemas_mut(map, |place, child| {
        if is_schema_at(place, child) {
            f(place.suffix(), child);
        }
    });
}

/// Under a name (`properties`, `$defs`, draft-07 `dependencies`), only objects and booleans are
/// schemas; anything else there is left alone.
fn is_schema_at(place: Place<'_>, child: &Value) -> bool {
    !matches!(place, Place::Name(..)) || child.is_object() || child.is_boolean()
}

/// Calls `f(pointer, node)` on `schema` and every subschema below it, parents first.
pub fn visit(schema: &Value, pointer: &str, f: &mut dyn FnMut(&str, &Value)) {
    f(pointer, schema);
    for_each_child(schema, &mut |suffix, child| {
        visit(child, &format!("{pointer}{suffix}"), f);
    });
}

/// Applies `f(pointer, node)` to every subschema of `schema` children first, then to `schema`
/// itself: the bottom-up order every lowering uses, so a step sees already lowered children.
pub fn transform_bottom_up(schema: &mut Value, pointer: &str, f: &mut dyn FnMut(&str, &mut Value)) {
    for_each_child_mut(schema, &mut |suffix, child| {
        transform_bottom_up(child, &format!("{pointer}{suffix}"), f);
    });
    f(pointer, schema);
}

/// The JSON types a node's `type` keyword names (empty when it has none).
pub fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `schema` is (also) an object schema: `type` names `object`, or it has no `type` but
/// object keywords.
pub fn is_object_schema(schema: &Value) -> bool {
    let t = types(schema);
    if t.is_empty() {
        schema.get("properties").is_some()
    } else {
        t.contains(&"object")
    }
}

/// Whether `schema` is (also) an array schema: `type` names `array`, or it has no `type` but
/// array keywords.
pub fn is_array_schema(schema: &Value) -> bool {
    let t = types(schema);
    if t.is_empty() {
        schema.get("items").is_some() || schema.get("prefixItems").is_some()
    } else {
        t.contains(&"array")
    }
}

/// The JSON type name of a value, as JSON Schema spells it (`integer` for whole numbers).
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Resolves a local `$ref` (`#` or `#/...`, a URI fragment: percent-decoded, as the core reads
/// it with [`flatjoin::local_ref`]) against `root`.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = flatjoin::local_ref(reference)?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&pointer)
}
