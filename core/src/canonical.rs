//! Structural identity (SPEC §3.4): the key two alternatives share when they accept the same
//! values for the same reasons, ignoring annotations at every depth, key order, the order of
//! `required`, `enum` and `type`, and comparing numbers by value.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::{Map, Number, Value};

use crate::keywords::{self, Slot};

/// How strictly [`key_with`] reads the schema; the fault variant exists only to reproduce a bug.
#[derive(Clone, Copy, Default)]
pub(crate) struct KeyOptions {
    /// Fault `annotation-names`: also drop *properties named* like annotation keywords.
    pub strip_annotation_names: bool,
}

/// The structural-identity key of a schema: two schemas have equal keys exactly when SPEC §3.4
/// calls them structurally identical.
pub fn structural_key(schema: &Value) -> String {
    key_with(schema, KeyOptions::default())
}

/// Whether two schemas are structurally identical (SPEC §3.4).
pub fn structurally_equal(a: &Value, b: &Value) -> bool {
    structural_key(a) == structural_key(b)
}

/// Keeps the first of each group of structurally identical schemas, in order. Linear in the total
/// size of the input (one key per schema, one hash lookup each). Idempotent.
pub fn dedup(alternatives: Vec<Value>) -> Vec<Value> {
    dedup_with(alternatives, KeyOptions::default())
}

pub(crate) fn dedup_with(alternatives: Vec<Value>, options: KeyOptions) -> Vec<Value> {
    let mut seen: HashMap<String, ()> = HashMap::with_capacity(alternatives.len());
    alternatives
        .into_iter()
        .filter(|a| seen.insert(key_with(a, options), ()).is_none())
        .collect()
}

pub(crate) fn key_with(schema: &Value, options: KeyOptions) -> String {
    let mut out = String::new();
    schema_key(schema, options, &mut out);
    out
}

fn schema_key(schema: &Value, options: KeyOptions, out: &mut String) {
    let Value::Object(map) = schema else {
        data_key(schema, out);
        return;
    };
    let mut entries: Vec<(&str, String)> = Vec::with_capacity(map.len());
    for (keyword, value) in map {
        if keywords::is_annotation(keyword) {
            continue;
        }
        let mut s = String::new();
        match (keyword.as_str(), keywords::slot(keyword), value) {
            ("required", _, Value::Array(items)) => sorted_set(items, &mut s),
            ("enum", _, Value::Array(items)) => sorted_set(items, &mut s),
            ("const", _, v) if !map.contains_key("enum") => {
                sorted_set(std::slice::from_ref(v), &mut s);
                entries.push(("enum", s));
                continue;
            }
            ("type", _, Value::String(t)) => {
                sorted_set(&[Value::String(t.clone())], &mut s);
            }
            ("type", _, Value::Array(items)) => sorted_set(items, &mut s),
            (_, Some(Slot::Map | Slot::MapOfSchemaOrNames), Value::Object(children)) => {
                map_key(keyword, children, options, &mut s);
            }
            (_, Some(Slot::Array | Slot::SingleOrArray), Value::Array(items)) => {
                s.push('[');
                for item in items {
                    schema_key(item, options, &mut s);
                    s.push(',');
                }
                s.push(']');
            }
            (_, Some(_), v) => schema_key(v, options, &mut s),
            (_, None, v) => data_key(v, &mut s),
        }
        entries.push((keyword.as_str(), s));
    }
    entries.sort_unstable();
    out.push('{');
    for (k, v) in entries {
        let _ = write!(out, "{k:?}:{v},");
    }
    out.push('}');
}

fn map_key(keyword: &str, children: &Map<String, Value>, options: KeyOptions, out: &mut String) {
    let mut entries: Vec<(&str, String)> = children
        .iter()
        .filter(|(name, _)| {
            !(options.strip_annotation_names
                && keyword == "properties"
                && keywords::is_annotation(name))
        })
        .map(|(name, child)| {
            let mut s = String::new();
            if child.is_array() {
                sorted_set(child.as_array().map_or(&[][..], Vec::as_slice), &mut s);
            } else {
                schema_key(child, options, &mut s);
            }
            (name.as_str(), s)
        })
        .collect();
    entries.sort_unstable();
    out.push('{');
    for (k, v) in entries {
        let _ = write!(out, "{k:?}:{v},");
    }
    out.push('}');
}

fn sorted_set(items: &[Value], out: &mut String) {
    let mut keys: Vec<String> = items
        .iter()
        .map(|v| {
            let mut s = String::new();
            data_key(v, &mut s);
            s
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    out.push('<');
    for k in keys {
        out.push_str(&k);
        out.push(',');
    }
    out.push('>');
}

/// A data value's key: object keys sorted, numbers by value.
pub(crate) fn data_key(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_key(n)),
        Value::String(s) => {
            let _ = write!(out, "{s:?}");
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                data_key(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, String)> = map
                .iter()
                .map(|(k, v)| {
                    let mut s = String::new();
                    data_key(v, &mut s);
                    (k, s)
                })
                .collect();
            entries.sort_unstable();
            out.push('{');
            for (k, v) in entries {
                let _ = write!(out, "{k:?}:{v},");
            }
            out.push('}');
        }
    }
}

/// A number's key: equal for numbers equal by value (`1`, `1.0`, `1e0`).
pub(crate) fn number_key(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
        Some(f) => format!("{f:?}"),
        None => n.to_string(),
    }
}

/// The key of a scalar literal (for discriminator disjointness and enum unions).
pub(crate) fn literal_key(value: &Value) -> String {
    let mut s = String::new();
    data_key(value, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ignores_annotations_order_and_number_form() {
        let a = json!({"type": ["string", "null"], "description": "a", "enum": ["x", "y"],
                       "properties": {"n": {"minimum": 1, "title": "N"}}, "required": ["b", "a"]});
        let b = json!({"required": ["a", "b"], "properties": {"n": {"minimum": 1.0}},
                       "enum": ["y", "x"], "type": ["null", "string"]});
        assert!(structurally_equal(&a, &b));
    }

    #[test]
    fn property_named_like_annotation_is_data() {
        let a = json!({"properties": {"title": {"type": "string"}}});
        let b = json!({"properties": {}});
        assert!(!structurally_equal(&a, &b));
        let c = json!({"enum": [{"description": 1}]});
        let d = json!({"enum": [{"description": 2}]});
        assert!(!structurally_equal(&c, &d));
    }

    #[test]
    fn dedup_keeps_first_and_is_idempotent() {
        let xs = vec![
            json!({"type": "string", "description": "first"}),
            json!({"type": "number"}),
            json!({"type": "string", "description": "second"}),
        ];
        let once = dedup(xs);
        assert_eq!(
            once,
            vec![
                json!({"type": "string", "description": "first"}),
                json!({"type": "number"})
            ]
        );
        assert_eq!(dedup(once.clone()), once);
    }

    #[test]
    fn const_equals_one_value_enum() {
        assert!(structurally_equal(
            &json!({"const": 2}),
            &json!({"enum": [2.0]})
        ));
        assert!(!structurally_equal(
            &json!({"const": 2}),
            &json!({"enum": [2, 3]})
        ));
    }
}
