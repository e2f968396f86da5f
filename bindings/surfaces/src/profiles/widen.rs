//! The conservative widening of SPEC §3.5 applied to all kinds, and the sound `allOf` merge: the
//! two lowerings that remove composition keywords for providers that do not take them. The kinds
//! and the scalar part of the widening are the core's ([`flatjoin::kinds_of`],
//! [`flatjoin::widen_scalars`]); this module adds the structure (array and object bounds,
//! properties, items).
//!
//! Both are sound: `widen(A1..Ak)` accepts every value some `Ai` accepts, and `merge_all(P1..Pn)`
//! accepts every value all `Pi` accept. Both expect composition-free inputs, which the bottom-up
//! walk of [`lower_compositions`] provides (children are lowered before their parent).

use std::collections::BTreeSet;

use flatjoin::{Kind, Kinds};
use serde_json::{Map, Value, json};

use super::walk;

/// Keywords that bound arrays (the scalar bounds of SPEC §3.5 are the core's,
/// [`flatjoin::widen_scalars`]).
const ARRAY_BOUNDS: &[(&str, Loosest)] = &[("minItems", Loosest::Min), ("maxItems", Loosest::Max)];
/// Keywords that bound objects.
const OBJECT_BOUNDS: &[(&str, Loosest)] = &[
    ("minProperties", Loosest::Min),
    ("maxProperties", Loosest::Max),
];

/// The order of a widened `type` list in the profiles' output.
const TYPE_ORDER: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

#[derive(Clone, Copy)]
enum Loosest {
    Min,
    Max,
}

/// The kinds (JSON types) a composition-free schema accepts, as the core reads them
/// ([`flatjoin::kinds_of`]; a `number` schema accepts `integer` and `number`); `None` when
/// unprovable (`true`, `{}`, no type-fixing keyword) or when the schema has a `$ref` (its target
/// is not at hand here, and in draft-07 it overrides the siblings).
pub fn kinds(schema: &Value) -> Option<BTreeSet<&'static str>> {
    core_kinds(schema).map(|k| k.iter().map(kind_name).collect())
}

fn core_kinds(schema: &Value) -> Option<Kinds> {
    if schema.get("$ref").is_some() {
        return None;
    }
    let kinds = flatjoin::kinds_of(schema, &Value::Null);
    (!kinds.is_unprovable()).then_some(kinds)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Null => "null",
        Kind::Boolean => "boolean",
        Kind::Integer => "integer",
        Kind::Number => "number",
        Kind::String => "string",
        Kind::Array => "array",
        Kind::Object => "object",
    }
}

/// Whether a declared type list admits a value of JSON type `t` (`number` admits `integer`).
fn admits(declared: &[&str], t: &str) -> bool {
    declared.contains(&t) || (t == "integer" && declared.contains(&"number"))
}

/// The conservative widening of alternatives `alts` (SPEC §3.5, applied to every kind): one
/// composition-free schema that accepts every value any alternative accepts.
pub fn widen(alts: &[Value]) -> Value {
    let alts: Vec<&Value> = alts.iter().filter(|a| **a != Value::Bool(false)).collect();
    if alts.is_empty() {
        return Value::Bool(false);
    }
    let mut out = Map::new();
    if let Some(description) = shared_text(&alts, "description") {
        out.insert("description".into(), Value::String(description));
    }
    let mut pairs: Vec<(Value, Kinds)> = Vec::new();
    for alt in &alts {
        match core_kinds(alt) {
            Some(k) => pairs.push(((*alt).clone(), k)),
            None => return Value::Object(out),
        }
    }
    if pairs.iter().all(|(_, k)| k.is_empty()) {
        return Value::Bool(false);
    }
    // Type, enum and the scalar keywords: the core's widening (SPEC §3.5).
    out.extend(flatjoin::widen_scalars(&pairs));
    // The profiles list types scalars first (`["null", "string", "array"]`), as before the core
    // did the widening; only the order of the list changes.
    if let Some(Value::Array(types)) = out.get_mut("type") {
        types.sort_by_key(|t| TYPE_ORDER.iter().position(|o| Some(*o) == t.as_str()));
    }
    let with_class = |class: Kind| -> Vec<&Value> {
        alts.iter()
            .zip(&pairs)
            .filter(|(_, (_, k))| k.contains(class))
            .map(|(a, _)| *a)
            .collect()
    };
    for (class, bounds, same) in [
        (Kind::Array, ARRAY_BOUNDS, &["uniqueItems"][..]),
        (Kind::Object, OBJECT_BOUNDS, &[][..]),
    ] {
        let members = with_class(class);
        keep_bounds(&members, bounds, same, &mut out);
    }
    let objects = with_class(Kind::Object);
    if !objects.is_empty() {
        widen_objects(&objects, &mut out);
    }
    let arrays = with_class(Kind::Array);
    if !arrays.is_empty() {
        let mut elements: Vec<Value> = Vec::new();
        for a in &arrays {
            if let Some(Value::Array(prefix)) = a.get("prefixItems") {
                elements.extend(prefix.iter().cloned());
            }
            match a.get("items") {
                Some(items @ (Value::Object(_) | Value::Bool(_))) => elements.push(items.clone()),
                Some(Value::Array(tuple)) => {
                    elements.extend(tuple.iter().cloned());
                    elements.push(
                        a.get("additionalItems")
                            .cloned()
                            .unwrap_or(Value::Bool(true)),
                    );
                }
                _ => elements.push(Value::Bool(true)),
            }
        }
        let items = strip_description(widen(&elements));
        out.insert("items".into(), bool_to_object(items));
    }
    Value::Object(out)
}

fn bool_to_object(schema: Value) -> Value {
    match schema {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({"not": {}}),
        other => other,
    }
}

fn strip_description(mut schema: Value) -> Value {
    if let Some(map) = schema.as_object_mut() {
        map.shift_remove("description");
    }
    schema
}

/// The properties of the widened object: each name's definitions from every object alternative
/// (what an open alternative accepts under an undeclared key counts as a definition).
fn widen_objects(objects: &[&Value], out: &mut Map<String, Value>) {
    let mut names: Vec<String> = Vec::new();
    for o in objects {
        if let Some(Value::Object(props)) = o.get("properties") {
            for name in props.keys() {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
    }
    let mut properties = Map::new();
    for name in &names {
        let mut defs: Vec<Value> = Vec::new();
        for o in objects {
            if let Some(def) = o.get("properties").and_then(|p| p.get(name)) {
                defs.push(def.clone());
            } else if o.get("patternProperties").is_some() {
                defs.push(Value::Bool(true));
            } else {
                match o.get("additionalProperties") {
                    Some(Value::Bool(false)) => {}
                    Some(schema @ Value::Object(_)) => defs.push(schema.clone()),
                    _ => defs.push(Value::Bool(true)),
                }
            }
        }
        properties.insert(name.clone(), bool_to_object(widen(&defs)));
    }
    if !properties.is_empty() {
        out.insert("properties".into(), Value::Object(properties));
    }
    let mut required: Option<Vec<Value>> = None;
    for o in objects {
        let mine: Vec<Value> = match o.get("required") {
            Some(Value::Array(list)) => list.clone(),
            _ => Vec::new(),
        };
        required = Some(match required {
            None => mine,
            Some(acc) => acc.into_iter().filter(|n| mine.contains(n)).collect(),
        });
    }
    if let Some(required) = required.filter(|r| !r.is_empty()) {
        out.insert("required".into(), Value::Array(required));
    }
    let closed = objects.iter().all(|o| {
        o.get("additionalProperties") == Some(&Value::Bool(false))
            && o.get("patternProperties").is_none()
    });
    if closed {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
}

fn keep_bounds(
    members: &[&Value],
    bounds: &[(&str, Loosest)],
    same: &[&str],
    out: &mut Map<String, Value>,
) {
    if members.is_empty() {
        return;
    }
    for (keyword, loosest) in bounds {
        let values: Option<Vec<f64>> = members
            .iter()
            .map(|m| m.get(*keyword).and_then(Value::as_f64))
            .collect();
        if let Some(values) = values {
            // The loosest bound is one of the members' own values, so it is copied, not re-encoded.
            let mut best: Option<(f64, &Value)> = None;
            for (m, v) in members.iter().zip(values) {
                let better = match (best, loosest) {
                    (None, _) => true,
                    (Some((b, _)), Loosest::Min) => v < b,
                    (Some((b, _)), Loosest::Max) => v > b,
                };
                if better && let Some(raw) = m.get(*keyword) {
                    best = Some((v, raw));
                }
            }
            if let Some((_, raw)) = best {
                out.insert((*keyword).into(), raw.clone());
            }
        }
    }
    for keyword in same {
        keep_identical(members, keyword, out);
    }
}

fn keep_identical(members: &[&Value], keyword: &str, out: &mut Map<String, Value>) {
    let Some(first) = members.first().and_then(|m| m.get(keyword)) else {
        return;
    };
    if members.iter().all(|m| m.get(keyword) == Some(first)) {
        out.insert(keyword.into(), first.clone());
    }
}

fn shared_text(alts: &[&Value], keyword: &str) -> Option<String> {
    let mut texts: Vec<&str> = Vec::new();
    for alt in alts {
        if let Some(Value::String(t)) = alt.get(keyword)
            && !texts.contains(&t.as_str())
        {
            texts.push(t);
        }
    }
    if texts.is_empty() {
        None
    } else {
        Some(texts.join(" / "))
    }
}

/// The sound merge of `allOf` parts: every keyword of every part is kept (the first part wins a
/// conflict, which only loosens), `required` is the union, `type` the intersection, and a property
/// defined by several parts is the merge of its definitions. Accepts every value all parts accept.
pub fn merge_all(parts: &[Value]) -> Value {
    if parts.iter().any(|p| *p == Value::Bool(false)) {
        return Value::Bool(false);
    }
    let mut out = Map::new();
    for part in parts {
        let Value::Object(map) = part else { continue };
        for (key, value) in map {
            match (key.as_str(), out.get_mut(key)) {
                (_, None) => {
                    out.insert(key.clone(), value.clone());
                }
                ("type", Some(existing)) => {
                    let mine = walk::types(existing)
                        .into_iter()
                        .map(String::from)
                        .collect::<Vec<_>>();
                    let theirs = walk::types(value);
                    let both: Vec<Value> = mine
                        .iter()
                        .filter_map(|t| {
                            if admits(&theirs, t) {
                                Some(t.clone())
                            } else if t == "number" && theirs.contains(&"integer") {
                                Some("integer".to_owned())
                            } else {
                                None
                            }
                        })
                        .map(Value::String)
                        .collect();
                    match both.len() {
                        0 => {}
                        1 => *existing = both[0].clone(),
                        _ => *existing = Value::Array(both),
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    if let Value::Array(more) = value {
                        for name in more {
                            if !existing.contains(name) {
                                existing.push(name.clone());
                            }
                        }
                    }
                }
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = value {
                        for (name, def) in more {
                            let merged = match existing.get(name) {
                                Some(old) => merge_all(&[old.clone(), def.clone()]),
                                None => def.clone(),
                            };
                            existing.insert(name.clone(), merged);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Value::Object(out)
}

/// A short rendering of an alternative for a description: its title, else its compact JSON.
fn summary(alt: &Value) -> String {
    if let Some(Value::String(title)) = alt.get("title") {
        return title.clone();
    }
    let text = strip_description(alt.clone()).to_string();
    if text.chars().count() > 160 {
        let cut: String = text.chars().take(157).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// Removes every `anyOf`, `oneOf` and `allOf` from `schema` (only at the root when `root_only`):
/// unions become their conservative widening, with the lost alternatives named in the
/// description; `allOf` becomes the sound merge of its parts. Returns whether anything changed.
pub fn lower_compositions(schema: &mut Value, root_only: bool) -> bool {
    let mut changed = false;
    if root_only {
        changed |= lower_node(schema);
    } else {
        walk::transform_bottom_up(schema, "", &mut |_, node| changed |= lower_node(node));
    }
    changed
}

fn lower_node(node: &mut Value) -> bool {
    let Value::Object(map) = node else {
        return false;
    };
    if !["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return false;
    }
    let mut base = map.clone();
    let any_of = base.shift_remove("anyOf");
    let one_of = base.shift_remove("oneOf");
    let all_of = base.shift_remove("allOf");
    let mut parts = vec![Value::Object(base)];
    let mut notes: Vec<String> = Vec::new();
    for union in [any_of, one_of].into_iter().flatten() {
        if let Value::Array(alts) = union {
            let widened = widen(&alts);
            let names: Vec<String> = alts.iter().map(summary).collect();
            notes.push(format!("Accepts any one of: {}.", names.join(" | ")));
            parts.push(strip_description(widened));
        }
    }
    if let Some(Value::Array(all)) = all_of {
        parts.extend(all);
    }
    let mut merged = merge_all(&parts);
    if !notes.is_empty()
        && let Value::Object(out) = &mut merged
    {
        let mut text = match out.get("description") {
            Some(Value::String(d)) => format!("{d} "),
            _ => String::new(),
        };
        text.push_str(&notes.join(" "));
        out.insert("description".into(), Value::String(text));
    }
    *node = merged;
    true
}
