//! The one place that knows which JSON Schema keywords hold subschemas (after schemars'
//! `transform_subschemas`): every profile check and every lowering step walks through here, so a
//! new keyword is one edit in one place.

use flatjoin::keywords::{Slot, slot};
use serde_json::Value;

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Calls `f(suffix, child)` for every direct subschema of `schema`, where `suffix` is the JSON
/// pointer from `schema` to the child (for example `/properties/name`).
pub fn for_each_child(schema: &Value, f: &mut dyn FnMut(String, &Value)) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map {
        let key = key.as_str();
        let Some(slot) = slot(key) else { continue };
        let single =
            matches!(slot, Slot::Single) || (slot == Slot::SingleOrArray && !value.is_array());
        let list = matches!(slot, Slot::Array) || (slot == Slot::SingleOrArray && value.is_array());
        if single {
            f(format!("/{key}"), value);
        } else if list {
            if let Value::Array(items) = value {
                for (i, item) in items.iter().enumerate() {
                    f(format!("/{key}/{i}"), item);
                }
            }
        } else if matches!(slot, Slot::Map | Slot::MapOfSchemaOrNames)
            && let Value::Object(children) = value
        {
            for (name, child) in children {
                // draft-07 `dependencies` mixes schemas with arrays of names.
                if child.is_object() || child.is_boolean() {
                    f(format!("/{key}/{}", escape(name)), child);
                }
            }
        }
    }
}

/// The mutable twin of [`for_each_child`].
pub fn for_each_child_mut(schema: &mut Value, f: &mut dyn FnMut(String, &mut Value)) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        let Some(slot) = slot(key) else { continue };
        let single =
            matches!(slot, Slot::Single) || (slot == Slot::SingleOrArray && !value.is_array());
        let list = matches!(slot, Slot::Array) || (slot == Slot::SingleOrArray && value.is_array());
        if single {
            f(format!("/{key}"), value);
        } else if list {
            if let Value::Array(items) = value {
                for (i, item) in items.iter_mut().enumerate() {
                    f(format!("/{key}/{i}"), item);
                }
            }
        } else if matches!(slot, Slot::Map | Slot::MapOfSchemaOrNames)
            && let Value::Object(children) = value
        {
            for (name, child) in children.iter_mut() {
                if child.is_object() || child.is_boolean() {
                    f(format!("/{key}/{}", escape(name)), child);
                }
            }
        }
    }
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

/// Resolves a local `$ref` (`#` or `#/...`) against `root`.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}
