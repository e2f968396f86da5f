//! The harness's own structural comparison of schemas, written independently of the core's
//! `structural_key`, so that an oracle built on it does not trust the code it judges.
//!
//! Structural identity (SPEC §3.4) ignores annotation keywords at every schema depth, object key
//! order, the order and repetitions of `required`, `enum` and `type` arrays, and compares numbers by value; it reads
//! `const: v` as `enum: [v]` (they accept the same values; not in draft-04, which has no `const`,
//! [`Forget::draft04`]). For the
//! invariance oracles the comparison can also ignore the order of `anyOf`/`oneOf` members (a branch
//! permutation reorders alternatives) and the location of `$defs` (`definitions` vs `$defs`).

use serde_json::{Map, Number, Value};

use crate::keywords;

/// Keywords that never change what a schema accepts (SPEC §1).
pub const ANNOTATIONS: [&str; 8] = [
    "title",
    "description",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// How much the comparison forgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Forget {
    /// Ignore the order of `anyOf` and `oneOf` members.
    pub alternative_order: bool,
    /// Compare across dialect forms: drop the root's `$schema`, `$id`, `$defs` and
    /// `definitions`, read `#/definitions/` and `#/$defs/` references as the same, read `oneOf` as
    /// `anyOf` (their members are disjoint in a discriminated union) and ignore OpenAPI's
    /// `discriminator` keyword.
    pub dialect: bool,
    /// The document is draft-04, where `const` is no keyword: compared as written, never as
    /// a one-value `enum` (SPEC §6 decision 29).
    pub draft04: bool,
    /// Read a local `$ref` with nothing but annotations beside it as its target ([`inline`]):
    /// where a presentation keeps a definition (a shared join, SPEC §6 decision 73) is not
    /// structural.
    pub references: bool,
}

impl Forget {
    /// What branch-order invariance forgets: the order of alternatives, and where references
    /// point (read as their targets): which of a reference and an inline copy of its target
    /// the join keeps is the first alternative's spelling (SPEC §6 decision 88), so it follows
    /// the branches' order.
    pub const BRANCH_ORDER: Forget = Forget {
        alternative_order: true,
        dialect: false,
        draft04: false,
        references: true,
    };

    /// What dialect invariance forgets: the dialect's spelling, and where references point
    /// (one form writes behind a `$ref` what another writes in place).
    pub const DIALECT: Forget = Forget {
        alternative_order: false,
        dialect: true,
        draft04: false,
        references: true,
    };
}

/// How deep [`inline`] expands nested references.
const MAX_INLINE_DEPTH: usize = 16;

/// `schema` (a node of the document `root`) with every local `$ref` that has nothing but
/// annotations beside it replaced by its target, expanded the same way. A reference back to a
/// target being expanded stays, as does one past `MAX_INLINE_DEPTH`.
pub fn inline(root: &Value, schema: &Value) -> Value {
    inline_within(root, schema, &mut Vec::new())
}

fn inline_within(root: &Value, schema: &Value, stack: &mut Vec<String>) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    if let Some(Value::String(reference)) = map.get("$ref")
        && map
            .keys()
            .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
        && stack.len() < MAX_INLINE_DEPTH
        && !stack.contains(reference)
        && let Some(target) = crate::refs::resolve(root, reference)
    {
        stack.push(reference.clone());
        let out = inline_within(root, target, stack);
        stack.pop();
        return out;
    }
    let mut out = Map::new();
    for (key, value) in map {
        let mapped =
            keywords::map_subschemas(key, value, &mut |sub| inline_within(root, sub, stack));
        out.insert(key.clone(), mapped.unwrap_or_else(|| value.clone()));
    }
    Value::Object(out)
}

/// The canonical text of `schema` under structural identity: two schemas are structurally
/// identical exactly when their canonical texts are equal.
pub fn canonical_text(schema: &Value, forget: Forget) -> String {
    let inlined;
    let schema = if forget.references {
        inlined = inline(schema, schema);
        &inlined
    } else {
        schema
    };
    let mut root = canonical_schema(schema, forget);
    if let Value::Object(map) = &mut root {
        if forget.dialect {
            for key in ["$schema", "$id", "$defs", "definitions"] {
                map.remove(key);
            }
        } else if forget.references {
            // Every reference read as its target: the definitions say nothing more, unless a
            // reference stayed (a cycle) and may lead into them.
            let mut rest = map.clone();
            rest.remove("$defs");
            rest.remove("definitions");
            if !holds_reference(&Value::Object(rest)) {
                map.remove("$defs");
                map.remove("definitions");
            }
        }
    }
    sorted_text(&root)
}

/// Whether `value` has a `$ref` key anywhere (an explicit stack: no recursion on input).
fn holds_reference(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.contains_key("$ref") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// Whether two schemas are structurally identical (annotations, key order and the order of
/// `required`/`enum`/`type` ignored, numbers by value).
#[cfg(test)]
fn structurally_identical(a: &Value, b: &Value) -> bool {
    canonical_text(a, Forget::default()) == canonical_text(b, Forget::default())
}

/// A schema with annotations removed, arrays that are sets sorted and numbers normalised.
fn canonical_schema(schema: &Value, forget: Forget) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                if ANNOTATIONS.contains(&key.as_str()) || (forget.dialect && key == "discriminator")
                {
                    continue;
                }
                let out_key = if forget.dialect && key == "oneOf" {
                    "anyOf"
                } else {
                    key.as_str()
                };
                let canonical = match key.as_str() {
                    "enum" | "required" | "type" => match value {
                        Value::Array(items) => {
                            let mut texts: Vec<(String, Value)> = items
                                .iter()
                                .map(|v| {
                                    let d = canonical_data(v);
                                    (sorted_text(&d), d)
                                })
                                .collect();
                            texts.sort_by(|a, b| a.0.cmp(&b.0));
                            // Sets: a repeated member accepts nothing more (`enum: [0, 0]` is
                            // `enum: [0]`, SPEC §2.4 and §6 decision 26).
                            texts.dedup_by(|a, b| a.0 == b.0);
                            Value::Array(texts.into_iter().map(|(_, v)| v).collect())
                        }
                        other => canonical_data(other),
                    },
                    // `const: v` accepts exactly what `enum: [v]` accepts; both read as the
                    // latter, so a one-value `enum` (Pydantic, OpenAI mode) matches a `const`.
                    "const" if !map.contains_key("enum") && !forget.draft04 => {
                        out.insert("enum".to_owned(), Value::Array(vec![canonical_data(value)]));
                        continue;
                    }
                    "const" => canonical_data(value),
                    "$ref" if forget.dialect => match value {
                        Value::String(r) => {
                            Value::String(r.replacen("#/definitions/", "#/$defs/", 1))
                        }
                        other => other.clone(),
                    },
                    k if keywords::holds(k).is_some() => {
                        match keywords::map_subschemas(k, value, &mut |sub| {
                            canonical_schema(sub, forget)
                        }) {
                            // With references read as their targets, two `anyOf` members may
                            // be one schema written once inline and once behind a `$ref` (the
                            // join dedups what it can see, SPEC §3.4): an `anyOf` is a set.
                            Some(Value::Array(members))
                                if forget.references
                                    && k == "anyOf"
                                    && !forget.alternative_order =>
                            {
                                let mut seen = std::collections::HashSet::new();
                                Value::Array(
                                    members
                                        .into_iter()
                                        .filter(|m| seen.insert(sorted_text(m)))
                                        .collect(),
                                )
                            }
                            Some(Value::Array(members))
                                if forget.alternative_order && (k == "anyOf" || k == "oneOf") =>
                            {
                                let mut keyed: Vec<(String, Value)> =
                                    members.into_iter().map(|m| (sorted_text(&m), m)).collect();
                                keyed.sort_by(|a, b| a.0.cmp(&b.0));
                                Value::Array(keyed.into_iter().map(|(_, v)| v).collect())
                            }
                            Some(mapped) => mapped,
                            None => canonical_data(value),
                        }
                    }
                    _ => canonical_data(value),
                };
                out.insert(out_key.to_owned(), canonical);
            }
            Value::Object(out)
        }
        other => canonical_data(other),
    }
}

/// Data (an `enum` member, a `const`): only numbers are normalised, so `1` and `1.0` agree.
pub fn canonical_data(value: &Value) -> Value {
    match value {
        Value::Number(n) => Value::Number(canonical_number(n)),
        Value::Array(items) => Value::Array(items.iter().map(canonical_data).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), canonical_data(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// 2^63 (the nearest double to this literal is exactly 2^63).
const TWO_TO_63: f64 = 9.223_372_036_854_776e18;
/// 2^64 (likewise exact).
const TWO_TO_64: f64 = 1.844_674_407_370_955_2e19;

/// A float with an integer value becomes that integer (`1.0` → `1`, `1e16` → `10000000000000000`)
/// wherever an integer can hold it exactly; every other number is kept.
fn canonical_number(n: &Number) -> Number {
    if n.is_f64()
        && let Some(f) = n.as_f64()
        && f.fract() == 0.0
    {
        // 2^63 and 2^64 are exact doubles; an integral double below them converts exactly.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "integral and inside the target's range"
        )]
        if (-TWO_TO_63..TWO_TO_63).contains(&f) {
            return Number::from(f as i64);
        } else if (0.0..TWO_TO_64).contains(&f) {
            return Number::from(f as u64);
        }
    }
    n.clone()
}

/// JSON text with every object's keys sorted, so key order never matters.
pub fn sorted_text(value: &Value) -> String {
    let mut out = String::new();
    write_sorted(value, &mut out);
    out
}

fn write_sorted(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key.as_str()) {
                    write_sorted(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_sorted(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn branch_order_reads_a_reference_as_its_target_and_forgets_definitions_then() {
        let text = |v: Value| canonical_text(&v, Forget::BRANCH_ORDER);
        let object = json!({"type": "object", "additionalProperties": false});
        let inline = json!({"properties": {"data": {"anyOf": [object, {"type": "null"}]}}});
        let referred = json!({"properties": {"data": {"anyOf": [{"$ref": "#/$defs/D0"},
            {"type": "null"}]}}, "$defs": {"D0": object}});
        assert_eq!(text(inline.clone()), text(referred.clone()));
        // What the reference leads to still counts, and so do definitions a reference that
        // stayed (a cycle) may lead into.
        let other = json!({"properties": {"data": {"anyOf": [{"$ref": "#/$defs/D0"},
            {"type": "null"}]}}, "$defs": {"D0": {"type": "string"}}});
        assert_ne!(text(inline), text(other));
        let cycle = |leaf: Value| {
            json!({"$ref": "#/$defs/T", "$defs": {"T": {"properties": {"next": {"$ref":
                "#/$defs/T"}}}, "U": leaf}})
        };
        assert_ne!(text(cycle(json!(true))), text(cycle(json!(false))));
        assert_ne!(
            text(referred.clone()),
            canonical_text(&referred, Forget::default())
        );
    }

    #[test]
    fn repeated_members_of_enum_required_and_type_are_one_member() {
        let text = |v: Value| canonical_text(&v, Forget::default());
        assert_eq!(text(json!({"enum": [0, 0]})), text(json!({"const": 0})));
        assert_eq!(
            text(json!({"enum": [1.0, 1, 2]})),
            text(json!({"enum": [2, 1]}))
        );
        assert_eq!(
            text(json!({"required": ["a", "a"], "type": ["string", "string"]})),
            text(json!({"required": ["a"], "type": ["string"]}))
        );
        // Distinct members stay distinct.
        assert_ne!(text(json!({"enum": [0, 1]})), text(json!({"enum": [0]})));
    }

    #[test]
    fn annotations_at_depth_and_orders_are_ignored() {
        let a = json!({"type": "object", "description": "x", "required": ["b", "a"],
            "properties": {"a": {"type": ["null", "string"], "title": "A"}, "b": {"enum": [2, 1.0]}}});
        let b = json!({"properties": {"b": {"enum": [1, 2]}, "a": {"type": ["string", "null"]}},
            "required": ["a", "b"], "type": "object"});
        assert!(structurally_identical(&a, &b));
    }

    #[test]
    fn a_property_named_title_is_data() {
        let a = json!({"type": "object", "properties": {"title": {"type": "string"}}});
        let b = json!({"type": "object", "properties": {}});
        assert!(!structurally_identical(&a, &b));
        let c = json!({"const": {"description": "kept"}});
        let d = json!({"const": {}});
        assert!(!structurally_identical(&c, &d));
    }

    #[test]
    fn alternative_order_only_when_asked() {
        let a = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        let b = json!({"anyOf": [{"type": "null"}, {"type": "string"}]});
        assert!(!structurally_identical(&a, &b));
        let forget = Forget {
            alternative_order: true,
            ..Forget::default()
        };
        assert_eq!(canonical_text(&a, forget), canonical_text(&b, forget));
    }
}
