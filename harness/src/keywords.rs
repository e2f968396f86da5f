//! The oracles' one list of the keywords that hold subschemas, and the walk over them.
//!
//! Written independently of the core's `flatjoin::keywords` on purpose: an oracle must not trust
//! the code it judges. Every harness walk (the oracles' node visits, the declared-reading
//! restriction, the structural identity) goes through this list, so they cannot disagree.

use serde_json::{Map, Value};

/// How a keyword's value holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// One subschema (`not`, `additionalProperties`, `contentSchema`, …).
    One,
    /// An array of subschemas (`anyOf`, `prefixItems`, …).
    List,
    /// An object mapping names to subschemas (`properties`, `$defs`, …).
    Map,
    /// `items`: one subschema, or an array of them (the draft-07 tuple form).
    OneOrList,
    /// Draft-07 `dependencies`: an object whose entries are subschemas or arrays of property
    /// names (data, not schemas).
    MapOfSchemasOrNames,
}

/// Every keyword (draft 2020-12 and draft-07) whose value holds subschemas.
/// `$ref` is a reference, not a subschema: [`crate::refs`] resolves it.
pub const SUBSCHEMA_KEYWORDS: [(&str, Holds); 22] = [
    ("additionalProperties", Holds::One),
    ("unevaluatedProperties", Holds::One),
    ("unevaluatedItems", Holds::One),
    ("additionalItems", Holds::One),
    ("contains", Holds::One),
    ("propertyNames", Holds::One),
    ("not", Holds::One),
    ("if", Holds::One),
    ("then", Holds::One),
    ("else", Holds::One),
    ("contentSchema", Holds::One),
    ("anyOf", Holds::List),
    ("oneOf", Holds::List),
    ("allOf", Holds::List),
    ("prefixItems", Holds::List),
    ("properties", Holds::Map),
    ("patternProperties", Holds::Map),
    ("$defs", Holds::Map),
    ("definitions", Holds::Map),
    ("dependentSchemas", Holds::Map),
    ("items", Holds::OneOrList),
    ("dependencies", Holds::MapOfSchemasOrNames),
];

/// The keywords that apply their subschemas to the instance itself, not to a part of it (a
/// property, an item): a `$ref` chain through these alone makes no progress through the instance
/// ([`crate::refs::has_cycle_without_progress`]).
pub const IN_PLACE_KEYWORDS: [&str; 9] = [
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
];

/// How `keyword` holds subschemas, or `None` when its value is data.
pub fn holds(keyword: &str) -> Option<Holds> {
    SUBSCHEMA_KEYWORDS
        .iter()
        .find(|(k, _)| *k == keyword)
        .map(|(_, h)| *h)
}

/// The subschemas directly under `value`, the value of `keyword` (none when `keyword` holds data,
/// or when `value` has the wrong JSON type for it).
pub fn subschemas<'a>(keyword: &str, value: &'a Value) -> Vec<&'a Value> {
    match (holds(keyword), value) {
        (None, _) => Vec::new(),
        (Some(Holds::One), v)
        | (Some(Holds::OneOrList), v @ (Value::Object(_) | Value::Bool(_))) => {
            vec![v]
        }
        (Some(Holds::List | Holds::OneOrList), Value::Array(members)) => members.iter().collect(),
        (Some(Holds::Map), Value::Object(entries)) => entries.values().collect(),
        (Some(Holds::MapOfSchemasOrNames), Value::Object(entries)) => {
            entries.values().filter(|v| !v.is_array()).collect()
        }
        (Some(_), _) => Vec::new(),
    }
}

/// `value` (the value of `keyword`) with each direct subschema replaced by `f(subschema)`, data
/// (a `dependencies` name list) kept; `None` when `keyword` holds no subschemas or `value` has the
/// wrong JSON type for it.
pub fn map_subschemas(
    keyword: &str,
    value: &Value,
    f: &mut dyn FnMut(&Value) -> Value,
) -> Option<Value> {
    let mapped = match (holds(keyword)?, value) {
        (Holds::One, v) | (Holds::OneOrList, v @ (Value::Object(_) | Value::Bool(_))) => f(v),
        (Holds::List | Holds::OneOrList, Value::Array(members)) => {
            Value::Array(members.iter().map(&mut *f).collect())
        }
        (Holds::Map, Value::Object(entries)) => Value::Object(
            entries
                .iter()
                .map(|(name, sub)| (name.clone(), f(sub)))
                .collect::<Map<String, Value>>(),
        ),
        (Holds::MapOfSchemasOrNames, Value::Object(entries)) => Value::Object(
            entries
                .iter()
                .map(|(name, sub)| {
                    let sub = if sub.is_array() { sub.clone() } else { f(sub) };
                    (name.clone(), sub)
                })
                .collect::<Map<String, Value>>(),
        ),
        _ => return None,
    };
    Some(mapped)
}

/// Calls `visit` on `schema` and every schema node below it, through [`SUBSCHEMA_KEYWORDS`] only
/// (never on data: `enum`, `const`, `default`, `examples`).
pub fn walk(schema: &Value, visit: &mut dyn FnMut(&Value)) {
    walk_pruned(schema, &mut |node| {
        visit(node);
        true
    });
}

/// [`walk`], descending below a node only when `visit` returns `true` for it.
pub fn walk_pruned<'a>(schema: &'a Value, visit: &mut dyn FnMut(&'a Value) -> bool) {
    walk_keywords(schema, &|_| true, visit);
}

/// [`walk_pruned`] through only the keywords `knows` accepts: a document's draft leaves the
/// others data (draft-04 has no `if`, [`crate::drafts::Draft::knows`]).
pub fn walk_keywords<'a>(
    schema: &'a Value,
    knows: &dyn Fn(&str) -> bool,
    visit: &mut dyn FnMut(&'a Value) -> bool,
) {
    let Value::Object(map) = schema else {
        return;
    };
    if !visit(schema) {
        return;
    }
    for (keyword, value) in map {
        if knows(keyword) {
            for sub in subschemas(keyword, value) {
                walk_keywords(sub, knows, visit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn content_schema_and_draft7_dependencies_are_walked_names_are_not() {
        let schema = json!({
            "contentSchema": {"title": "a"},
            "dependencies": {"x": {"title": "b"}, "y": ["z"]},
            "items": [{"title": "c"}],
            "enum": [{"title": "not a schema"}],
            "properties": {"p": {"title": "d"}}
        });
        let mut titles = Vec::new();
        walk(&schema, &mut |node| {
            if let Some(t) = node.get("title").and_then(Value::as_str) {
                titles.push(t.to_owned());
            }
        });
        titles.sort();
        assert_eq!(titles, ["a", "b", "c", "d"]);
        let mapped = map_subschemas("dependencies", &schema["dependencies"], &mut |_| {
            json!(true)
        });
        assert_eq!(mapped, Some(json!({"x": true, "y": ["z"]})));
        assert_eq!(
            map_subschemas("enum", &schema["enum"], &mut |_| json!(true)),
            None
        );
        assert_eq!(
            map_subschemas("properties", &json!(3), &mut |_| json!(true)),
            None
        );
    }
}
