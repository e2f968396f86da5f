//! Drawing values from a schema, per branch of its root union, covering boundaries rather than
//! random points: every literal of `const`/`enum`, bounds at their limits (exclusive ones just
//! inside), empty, minimal and maximal arrays, absent optional fields, `null` for nullable fields,
//! and undeclared keys on open objects under both readings of SPEC §2.8.
//!
//! The sampler reads raw JSON Schema (resolving local `$ref`), so it serves model cases, the
//! hand-written corpus, dialect samples and MCP manifests alike. It proposes values; the oracles
//! keep only those the original accepts, as judged by an independent validator. Under the
//! `declared` reading an object only ever gets keys its own branch declares or keys no branch
//! declares (`zz_extra`), which is exactly the set of values SPEC §4 promises for that reading.

use serde_json::{Map, Value, json};

use crate::refs::follow;
pub use crate::refs::resolve;

/// An undeclared key name no generated case and no corpus file uses.
pub const EXTRA_KEY: &str = "zz_extra";

/// The most values proposed for one nested schema node.
const MAX_VALUES: usize = 24;
/// The most values proposed for one branch (the root), so that varying each field one at a time
/// is not thinned out.
const MAX_ROOT_VALUES: usize = 160;
/// Nesting past which nothing more is proposed (recursive definitions end here).
const MAX_DEPTH: usize = 12;

/// Which undeclared keys an open object gets (SPEC §2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Only keys no branch of the enclosing union declares.
    Declared,
    /// Also keys declared by the union's other branches, with values of any type.
    Permissive,
}

impl From<flatjoin::OpenBranches> for Reading {
    fn from(value: flatjoin::OpenBranches) -> Self {
        match value {
            flatjoin::OpenBranches::Declared => Reading::Declared,
            flatjoin::OpenBranches::Permissive => Reading::Permissive,
        }
    }
}

/// The values proposed for one branch of the root union.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSamples {
    /// The branch's position in the root `oneOf`/`anyOf`.
    pub branch: usize,
    /// The merged branch schema (siblings folded in, `$ref` resolved) the values were drawn from.
    pub schema: Value,
    /// The proposed values (not yet judged).
    pub values: Vec<Value>,
}

/// The branches of the root union, each merged with the root's sibling keywords and resolved
/// through local `$ref`; `None` when the root has no `oneOf`/`anyOf`.
pub fn root_branches(root: &Value) -> Option<Vec<Value>> {
    let map = root.as_object()?;
    let members = map.get("oneOf").or_else(|| map.get("anyOf"))?.as_array()?;
    Some(members.iter().map(|m| merge_member(root, map, m)).collect())
}

/// Proposes values for every branch of the root union (or for the whole schema as branch 0 when
/// the root is not a union).
pub fn branch_samples(root: &Value, reading: Reading) -> Vec<BranchSamples> {
    let sampler = Sampler { root, reading };
    match root_branches(root) {
        Some(branches) => {
            let names: Vec<Vec<String>> = branches
                .iter()
                .map(|b| sampler.declared_within(b, 0))
                .collect();
            branches
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let foreign = foreign_names(&names, i);
                    BranchSamples {
                        branch: i,
                        schema: b.clone(),
                        values: sampler.branch_values(b, 0, &foreign),
                    }
                })
                .collect()
        }
        None => vec![BranchSamples {
            branch: 0,
            schema: root.clone(),
            values: sampler.values(root, 0, &[]),
        }],
    }
}

/// Proposes values for a whole schema (used on presentations, for the widening measure).
pub fn samples(root: &Value, reading: Reading) -> Vec<Value> {
    Sampler { root, reading }.values(root, 0, &[])
}

/// The property names a (merged) branch declares.
pub fn declared_names(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The members of a schema that is a union and declares no properties of its own (a branch that
/// is itself a union), with the schema's keywords.
fn union_members(schema: &Value) -> Option<(&Map<String, Value>, &Vec<Value>)> {
    let map = schema.as_object()?;
    if map.contains_key("properties") {
        return None;
    }
    let members = map.get("oneOf").or_else(|| map.get("anyOf"))?.as_array()?;
    Some((map, members))
}

fn foreign_names(names: &[Vec<String>], own: usize) -> Vec<String> {
    let mut foreign: Vec<String> = Vec::new();
    for (j, list) in names.iter().enumerate() {
        if j == own {
            continue;
        }
        for name in list {
            if !names[own].contains(name) && !foreign.contains(name) {
                foreign.push(name.clone());
            }
        }
    }
    foreign
}

/// A union member with the union node's sibling keywords folded in (SPEC §1: sibling
/// `properties`/`required` merge into each branch; a name defined by both becomes an `allOf`).
fn merge_member(root: &Value, union: &Map<String, Value>, member: &Value) -> Value {
    let member = follow(root, member);
    let Value::Object(member_map) = member else {
        return member.clone();
    };
    let mut out = Map::new();
    for (k, v) in union {
        if matches!(
            k.as_str(),
            "oneOf"
                | "anyOf"
                | "discriminator"
                | "$defs"
                | "definitions"
                | "$schema"
                | "$id"
                | "title"
                | "description"
        ) {
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    for (k, v) in member_map {
        match (k.as_str(), out.get_mut(k)) {
            ("properties", Some(Value::Object(existing))) => {
                if let Value::Object(props) = v {
                    for (name, schema) in props {
                        let merged = match existing.get(name) {
                            Some(sibling) => json!({"allOf": [sibling, schema]}),
                            None => schema.clone(),
                        };
                        existing.insert(name.clone(), merged);
                    }
                }
            }
            ("required", Some(Value::Array(existing))) => {
                if let Value::Array(names) = v {
                    for name in names {
                        if !existing.contains(name) {
                            existing.push(name.clone());
                        }
                    }
                }
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

struct Sampler<'a> {
    root: &'a Value,
    reading: Reading,
}

/// Keeps at most [`MAX_VALUES`] values ([`MAX_ROOT_VALUES`] at depth 0), spread over the list so
/// that its tail is represented.
fn cap(mut values: Vec<Value>, depth: usize) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    values.retain(|v| seen.insert(v.to_string()));
    let max = if depth == 0 {
        MAX_ROOT_VALUES
    } else {
        MAX_VALUES
    };
    if values.len() <= max {
        return values;
    }
    let n = values.len();
    (0..max).map(|i| values[i * n / max].clone()).collect()
}

fn types_of(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => {
            let mut inferred = Vec::new();
            let has = |ks: &[&str]| ks.iter().any(|k| map.contains_key(*k));
            if has(&[
                "properties",
                "required",
                "additionalProperties",
                "patternProperties",
            ]) {
                inferred.push("object".to_owned());
            }
            if has(&["items", "prefixItems", "minItems", "maxItems"]) {
                inferred.push("array".to_owned());
            }
            if has(&["minLength", "maxLength", "pattern", "format"]) {
                inferred.push("string".to_owned());
            }
            if has(&[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ]) {
                inferred.push("number".to_owned());
            }
            inferred
        }
    }
}

/// `literals`, then each integer literal written as a float (`0` → `0.0`): `const` and `enum`
/// compare numbers by value in every draft, so both are accepted, but draft-04's `integer` takes
/// only the first (SPEC §6 decision 30).
fn with_float_twins(literals: Vec<Value>) -> Vec<Value> {
    let twins: Vec<Value> = literals
        .iter()
        .filter_map(|v| match v {
            Value::Number(n) if n.is_i64() || n.is_u64() => {
                let f = n.as_f64()?;
                (f.abs() < 9.0e15).then(|| json!(f))
            }
            _ => None,
        })
        .collect();
    let mut out = literals;
    out.extend(twins);
    out
}

fn num(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

impl Sampler<'_> {
    /// The values of one root branch: a branch that is itself a union (a nested discriminated
    /// union, SPEC §2.9) gets the values of each of its members as a root branch of its own
    /// (each up to [`MAX_ROOT_VALUES`]), so that every leaf is covered as well as a plain branch
    /// is; `foreign` then also holds the names its sibling members declare. `level` counts the
    /// unions entered.
    fn branch_values(&self, branch: &Value, level: usize, foreign: &[String]) -> Vec<Value> {
        let Some((map, members)) = union_members(branch).filter(|_| level < MAX_DEPTH) else {
            return self.values(branch, 0, foreign);
        };
        let merged: Vec<Value> = members
            .iter()
            .map(|m| merge_member(self.root, map, m))
            .collect();
        let names: Vec<Vec<String>> = merged
            .iter()
            .map(|m| self.declared_within(m, level + 1))
            .collect();
        let mut out = Vec::new();
        for (i, member) in merged.iter().enumerate() {
            let mut foreign = foreign.to_vec();
            for name in foreign_names(&names, i) {
                if !foreign.contains(&name) {
                    foreign.push(name);
                }
            }
            out.extend(self.branch_values(member, level + 1, &foreign));
        }
        out
    }

    /// The property names a branch declares: its own, or, for a branch that is itself a union,
    /// those its members declare (through `$ref`, a bounded number of levels deep).
    fn declared_within(&self, branch: &Value, depth: usize) -> Vec<String> {
        let branch = follow(self.root, branch);
        match union_members(branch).filter(|_| depth <= MAX_DEPTH) {
            Some((map, members)) => {
                let mut names: Vec<String> = Vec::new();
                for member in members {
                    let merged = merge_member(self.root, map, member);
                    for name in self.declared_within(&merged, depth + 1) {
                        if !names.contains(&name) {
                            names.push(name);
                        }
                    }
                }
                names
            }
            None => declared_names(branch),
        }
    }

    fn values(&self, schema: &Value, depth: usize, foreign: &[String]) -> Vec<Value> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let map = match schema {
            Value::Bool(true) => return vec![json!("x"), json!(0), Value::Null],
            Value::Object(map) => map,
            _ => return Vec::new(),
        };
        if let Some(Value::String(r)) = map.get("$ref") {
            return match resolve(self.root, r) {
                Some(target) => self.values(target, depth + 1, foreign),
                None => Vec::new(),
            };
        }
        if let Some(c) = map.get("const") {
            return with_float_twins(vec![c.clone()]);
        }
        if let Some(Value::Array(members)) = map.get("enum") {
            return cap(with_float_twins(members.clone()), depth);
        }
        for combinator in ["anyOf", "oneOf"] {
            if let Some(Value::Array(members)) = map.get(combinator) {
                let merged: Vec<Value> = members
                    .iter()
                    .map(|m| merge_member(self.root, map, m))
                    .collect();
                let names: Vec<Vec<String>> = merged.iter().map(declared_names).collect();
                let mut out = Vec::new();
                for (i, m) in merged.iter().enumerate() {
                    out.extend(self.values(m, depth + 1, &foreign_names(&names, i)));
                }
                return cap(out, depth);
            }
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let mut folded = map.clone();
            folded.remove("allOf");
            let mut folded = Value::Object(folded);
            for part in parts {
                let part = follow(self.root, part);
                if let (Value::Object(f), Value::Object(p)) = (&mut folded, part) {
                    let merged = merge_member(self.root, f, &Value::Object(p.clone()));
                    folded = merged;
                }
            }
            return self.values(&folded, depth + 1, foreign);
        }
        let types = types_of(map);
        if types.is_empty() {
            // Unprovable kinds: one value of every type.
            return vec![
                Value::Null,
                json!(true),
                json!(3),
                json!("ab"),
                json!([]),
                json!({}),
            ];
        }
        let mut out = Vec::new();
        for t in &types {
            match t.as_str() {
                "null" => out.push(Value::Null),
                "boolean" => out.extend([json!(true), json!(false)]),
                "string" => out.extend(strings(map)),
                "integer" => out.extend(integers(map)),
                "number" => {
                    out.extend(integers(map));
                    out.extend(fractions(map));
                }
                "array" => out.extend(self.arrays(map, depth)),
                "object" => out.extend(self.objects(map, depth, foreign)),
                _ => {}
            }
        }
        cap(out, depth)
    }

    fn arrays(&self, map: &Map<String, Value>, depth: usize) -> Vec<Value> {
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = map
            .get("maxItems")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let items = match map.get("items") {
            Some(items) if items.is_object() || items.is_boolean() => {
                self.values(items, depth + 1, &[])
            }
            _ => vec![json!(1), json!("a")],
        };
        let mut out = Vec::new();
        if min == 0 {
            out.push(json!([]));
        }
        if items.is_empty() {
            return out;
        }
        let fill = |len: usize, start: usize| -> Value {
            Value::Array(
                (0..len)
                    .map(|i| items[(start + i) % items.len()].clone())
                    .collect(),
            )
        };
        let within = |len: usize| len >= min && max.is_none_or(|m| len <= m);
        for start in 0..items.len() {
            let len = min.max(1);
            if within(len) {
                out.push(fill(len, start));
            }
        }
        if let Some(m) = max
            && within(m)
        {
            out.push(fill(m, 0));
        }
        if max.is_none() {
            out.push(fill(min.max(3), 0));
        }
        out
    }

    fn objects(&self, map: &Map<String, Value>, depth: usize, foreign: &[String]) -> Vec<Value> {
        let empty = Map::new();
        let props = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let catch_all = map.get("additionalProperties");
        let closed = catch_all == Some(&Value::Bool(false))
            || map.get("unevaluatedProperties") == Some(&Value::Bool(false));
        let candidates: Vec<(&String, Vec<Value>)> = props
            .iter()
            .map(|(name, sub)| (name, self.values(sub, depth + 1, &[])))
            .collect();
        let build = |include: &dyn Fn(&str) -> bool, swap: Option<(&str, &Value)>| -> Value {
            let mut obj = Map::new();
            for (name, cands) in &candidates {
                if !include(name) {
                    continue;
                }
                match swap {
                    Some((n, v)) if n == name.as_str() => {
                        obj.insert((*name).clone(), v.clone());
                    }
                    _ => {
                        if let Some(first) = cands.first() {
                            obj.insert((*name).clone(), first.clone());
                        }
                    }
                }
            }
            Value::Object(obj)
        };
        let is_required = |n: &str| required.contains(&n);
        let mut out = vec![build(&|_| true, None), build(&is_required, None)];
        for (name, cands) in &candidates {
            if !is_required(name) {
                let without = name.as_str();
                out.push(build(&|n| n != without, None));
            }
            for value in cands.iter().skip(1) {
                out.push(build(&|_| true, Some((name.as_str(), value))));
            }
        }
        if !closed {
            let extra_values: Vec<Value> = match catch_all {
                Some(schema @ Value::Object(_)) => self.values(schema, depth + 1, &[]),
                _ => vec![json!("extra"), json!({"deep": [1, null]})],
            };
            let full = build(&|_| true, None);
            for (i, value) in extra_values.iter().take(3).enumerate() {
                if let Value::Object(mut obj) = full.clone() {
                    obj.insert(EXTRA_KEY.to_owned(), value.clone());
                    // Values of one required-only object too, so the extra key also meets bare
                    // objects.
                    if i == 1
                        && let Value::Object(mut base) = build(&is_required, None)
                    {
                        base.insert(EXTRA_KEY.to_owned(), value.clone());
                        out.push(Value::Object(base));
                    }
                    out.push(Value::Object(obj));
                }
            }
            if self.reading == Reading::Permissive {
                let odd = [
                    json!(12345),
                    json!("w"),
                    json!([1]),
                    json!({"q": 1}),
                    Value::Null,
                ];
                for (i, name) in foreign.iter().enumerate() {
                    let value = match catch_all {
                        Some(Value::Object(_)) => {
                            match extra_values.get(i % extra_values.len().max(1)) {
                                Some(v) => v.clone(),
                                None => continue,
                            }
                        }
                        _ => odd[i % odd.len()].clone(),
                    };
                    if let Value::Object(mut obj) = full.clone() {
                        obj.insert(name.clone(), value);
                        out.push(Value::Object(obj));
                    }
                }
            }
        }
        out
    }
}

fn strings(map: &Map<String, Value>) -> Vec<Value> {
    let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = map
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let make = |len: usize| json!("a".repeat(len));
    let mut out = Vec::new();
    match map.get("format").and_then(Value::as_str) {
        Some("email") => {
            out.push(json!("a@b.io"));
            out.push(json!("ab@example.com"));
        }
        Some("date-time") => out.push(json!("2024-01-02T03:04:05Z")),
        Some("date") => out.push(json!("2024-01-02")),
        Some("uri" | "url") => out.push(json!("https://example.com/a")),
        Some("uuid") => out.push(json!("123e4567-e89b-12d3-a456-426614174000")),
        _ => {}
    }
    out.push(make(min));
    if let Some(m) = max {
        out.push(make(m));
        out.push(make(min.max(m / 2)));
    } else {
        out.push(make(min + 3));
    }
    out
}

fn lower(map: &Map<String, Value>) -> Option<(f64, bool)> {
    match (num(map, "minimum"), num(map, "exclusiveMinimum")) {
        (Some(a), Some(b)) if b >= a => Some((b, true)),
        (Some(a), _) => Some((a, false)),
        (None, Some(b)) => Some((b, true)),
        (None, None) => None,
    }
}

fn upper(map: &Map<String, Value>) -> Option<(f64, bool)> {
    match (num(map, "maximum"), num(map, "exclusiveMaximum")) {
        (Some(a), Some(b)) if b <= a => Some((b, true)),
        (Some(a), _) => Some((a, false)),
        (None, Some(b)) => Some((b, true)),
        (None, None) => None,
    }
}

fn integers(map: &Map<String, Value>) -> Vec<Value> {
    let lo = lower(map).map(|(v, ex)| if ex { v.floor() + 1.0 } else { v.ceil() });
    let hi = upper(map).map(|(v, ex)| if ex { v.ceil() - 1.0 } else { v.floor() });
    let mut out = Vec::new();
    let mut push = |v: f64| {
        if v.is_finite() && v.abs() < 1.0e15 {
            // Integral by construction (floor/ceil above), inside the exact range.
            #[allow(clippy::cast_possible_truncation, reason = "integral and below 2^53")]
            out.push(json!(v as i64));
        }
    };
    match (lo, hi) {
        (Some(l), Some(h)) => {
            push(l);
            push(h);
            push(((l + h) / 2.0).floor());
        }
        (Some(l), None) => {
            push(l);
            push(l + 1.0);
            push(l + 100.0);
        }
        (None, Some(h)) => {
            push(h);
            push(h - 1.0);
            push(h - 100.0);
        }
        (None, None) => {
            push(0.0);
            push(1.0);
            push(-7.0);
        }
    }
    if let Some(m) = num(map, "multipleOf") {
        out.push(number(m));
    }
    out
}

/// `f` as JSON: an integer when it is integral (and exactly representable), else a float.
/// `2.0` against draft-04's `integer` is where boon and jsonschema part (the draft leaves it
/// open; SPEC §6 decision 30 pins what the join does with it), so a sampler that wrote it would
/// only have the value set aside as a validator disagreement.
pub(crate) fn number(f: f64) -> Value {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "only when integral and below 2^53"
    )]
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        json!(f as i64)
    } else {
        json!(f)
    }
}

fn fractions(map: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some((v, ex)) = lower(map) {
        out.push(json!(if ex { v + 0.25 } else { v + 0.5 }));
    }
    if let Some((v, ex)) = upper(map) {
        out.push(json!(if ex { v - 0.25 } else { v - 0.5 }));
    }
    if out.is_empty() {
        out.push(json!(2.5));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_hit_at_their_limits() {
        let s = json!({"type": "string", "minLength": 2, "maxLength": 5});
        let vs = samples(&s, Reading::Declared);
        assert!(vs.contains(&json!("aa")) && vs.contains(&json!("aaaaa")));
        let n = json!({"type": "integer", "exclusiveMinimum": 0, "maximum": 9});
        let vs = samples(&n, Reading::Declared);
        assert!(vs.contains(&json!(1)) && vs.contains(&json!(9)));
        let a = json!({"type": "array", "items": {"enum": ["x", "y"]}, "maxItems": 3});
        let vs = samples(&a, Reading::Declared);
        assert!(vs.contains(&json!([])) && vs.contains(&json!(["x", "y", "x"])));
    }

    #[test]
    fn open_branches_get_foreign_keys_only_when_permissive() {
        let s = json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "p": {"type": "string"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "q": {"type": "null"}}, "required": ["kind"]}
        ]});
        let declared = branch_samples(&s, Reading::Declared);
        assert!(declared[0].values.iter().all(|v| v.get("q").is_none()));
        assert!(
            declared[0]
                .values
                .iter()
                .any(|v| v.get(EXTRA_KEY).is_some())
        );
        let permissive = branch_samples(&s, Reading::Permissive);
        assert!(permissive[0].values.iter().any(|v| v.get("q").is_some()));
        assert!(
            permissive[0]
                .values
                .iter()
                .any(|v| v.get("p") == Some(&json!("")))
        );
    }

    #[test]
    fn siblings_and_refs_are_folded_into_branches() {
        let s = json!({"type": "object", "properties": {"shared": {"type": "boolean"}}, "required": ["shared"],
            "oneOf": [{"$ref": "#/$defs/A"}], "$defs": {"A": {"properties": {"kind": {"const": 1}}, "required": ["kind"]}}});
        let branches = root_branches(&s).unwrap_or_default();
        assert_eq!(branches[0]["required"], json!(["shared", "kind"]));
        let vs = branch_samples(&s, Reading::Declared);
        assert!(vs[0].values.contains(&json!({"shared": true, "kind": 1})));
    }

    #[test]
    fn each_branch_of_a_union_branch_is_sampled_as_a_root_branch_is() {
        // Pydantic's nested union: `Cat` (itself a union on `color`) beside `Dog`, each leaf with
        // enough fields that a cap on nested values would thin it out.
        let fields = |tag: &str, prefix: &str| {
            let mut props = serde_json::Map::new();
            props.insert("pet".into(), json!({"const": "cat"}));
            props.insert("color".into(), json!({"const": tag}));
            for k in 0..8 {
                props.insert(
                    format!("{prefix}{k}"),
                    json!({"type": "integer", "minimum": k, "maximum": 9}),
                );
            }
            json!({"type": "object", "properties": props, "required": ["pet", "color"]})
        };
        let (black, white) = (fields("black", "b"), fields("white", "w"));
        let s = json!({"oneOf": [
            {"oneOf": [black, white]},
            {"type": "object", "properties": {"pet": {"const": "dog"}, "d": {"type": "string"}},
                "required": ["pet"]}
        ]});
        let samples = branch_samples(&s, Reading::Permissive);
        assert_eq!(samples.len(), 2);
        for leaf in [&black, &white] {
            let alone = branch_samples(&json!({"oneOf": [leaf]}), Reading::Permissive);
            assert!(alone[0].values.len() > MAX_VALUES);
            for value in &alone[0].values {
                if value.get("d").is_none() {
                    assert!(samples[0].values.contains(value), "{value} is missing");
                }
            }
        }
        // Under the permissive reading a leaf also meets the names its sibling and the other
        // root branch declare.
        let values = &samples[0].values;
        assert!(
            values
                .iter()
                .any(|v| v["color"] == "black" && v.get("w0").is_some())
        );
        assert!(
            values
                .iter()
                .any(|v| v["color"] == "white" && v.get("d").is_some())
        );
    }
}
