//! The open-world generator: proptest strategies that build arbitrary JSON Schema documents
//! around a discriminated union, from a grammar over the applicators and assertions of draft
//! 2020-12, instead of the typed model of [`crate::model`]; each document is then spelled in one
//! of the five drafts ([`crate::drafts`]: 2020-12, 2019-09, draft-07, draft-06, draft-04).
//!
//! What the grammar reaches that the typed model does not: boolean schemas (also under `allOf`,
//! `[false]`, `[true, false]`, `[{}, false]`, contradictory members), `allOf`/`anyOf`/`oneOf`/`not`,
//! `if`/`then`/`else`, `patternProperties`, `propertyNames`, `dependentSchemas`/
//! `dependentRequired` (draft-07: `dependencies`), `unevaluatedProperties`/`unevaluatedItems`
//! beside applicators (also inside a branch's `allOf`), `prefixItems`, `contains`, `format`,
//! author `$defs` named like the join's own hoisted definitions (`flatjoin_ref_N`), `$ref` into
//! `$defs` and into the branches of the union, embedded resources (a subschema with its own `$id`
//! whose `#/...` references resolve against it) and `$anchor` references.
//!
//! Unions are placed where they live: at the root, as a property's payload, as array `items`,
//! behind a nullable `anyOf`, nested as the payload of another union's property, and with sibling
//! keywords (`properties`, `required`, `unevaluatedProperties`) beside the `oneOf`/`anyOf`.
//!
//! Values: for each branch, objects built from boundary candidates per keyword (every `const` and
//! `enum` value, lengths and numbers at and around their bounds, format examples, pattern
//! examples, arrays at their item bounds, optional properties present and absent, keys matching
//! `patternProperties`, an undeclared key), greedily completed so that the original accepts them
//! with the discriminator selecting that branch; only keys that branch declares, or that no
//! branch declares, are used, so every value is in the set SPEC §4 promises under both readings.
//! The oracles judge them (and the harness sampler's own values) with `jsonschema`.

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use serde_json::{Map, Value, json};

use flatjoin::Options;

use crate::oracle::{self, Oracle, Outcome, Subject, Sweep, Violation};

pub use crate::drafts::Draft;

/// Where the union sits in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The document root is the union.
    Root,
    /// `properties.payload` is the union.
    Property,
    /// `properties.list.items` is the union.
    Items,
    /// `properties.payload` is `anyOf: [union, {type: null}]`.
    Nullable,
}

/// One generated document: the original schema and what the generator knows about its union.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenCase {
    /// The original schema.
    pub schema: Value,
    /// Its draft.
    pub draft: Draft,
    /// Where the union sits.
    pub placement: Placement,
    /// The discriminator's name.
    pub tag: String,
    /// Each branch's discriminator literal.
    pub literals: Vec<Value>,
}

/// Property names branches draw from: few, so that branches collide.
const NAMES: [&str; 4] = ["p0", "p1", "p2", "x"];
/// The author's own definitions named like the join's hoisted ones (`core/src/refs.rs`).
const JOIN_LIKE_DEFS: [&str; 2] = ["flatjoin_ref_1", "flatjoin_ref_2"];
/// A placeholder `$ref` replaced, once the document is assembled, by a pointer into the first
/// branch of the union (or into its `$defs` entry when the branch is behind a `$ref`).
const BRANCH_REF: &str = "@branch";
/// The anchor an author definition carries.
const ANCHOR: &str = "here";
/// Patterns with strings known to match or not.
const PATTERNS: [&str; 3] = ["^a", "^[a-z]+$", "b$"];
/// Formats both drafts know.
const FORMATS: [&str; 4] = ["email", "date", "ipv4", "uri"];
/// The key used for `patternProperties` (`^x-`): no branch declares a name starting with `x-`.
const PATTERN_KEY: &str = "x-1";

fn lit() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u8..4).prop_map(|i| json!(format!("s{i}"))),
        2 => (0i64..3).prop_map(|i| json!(i)),
        1 => any::<bool>().prop_map(|b| json!(b)),
        1 => Just(Value::Null),
        1 => Just(json!(1.5)),
    ]
}

fn opt<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![1 => Just(None), 1 => s.prop_map(Some)].boxed()
}

fn insert_some(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        map.insert(key.into(), v);
    }
}

/// A string schema with any of its assertions.
fn string_schema() -> BoxedStrategy<Value> {
    (
        opt(0u64..3),
        opt(2u64..6),
        opt(prop::sample::select(&PATTERNS[..])),
        opt(prop::sample::select(&FORMATS[..])),
    )
        .prop_map(|(min, max, pattern, format)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("string"));
            insert_some(&mut m, "minLength", min.map(|v| json!(v)));
            insert_some(&mut m, "maxLength", max.map(|v| json!(v)));
            insert_some(&mut m, "pattern", pattern.map(|v| json!(v)));
            insert_some(&mut m, "format", format.map(|v| json!(v)));
            Value::Object(m)
        })
        .boxed()
}

/// A number or integer schema with any of its assertions.
fn number_schema() -> BoxedStrategy<Value> {
    (
        any::<bool>(),
        opt(-2i64..2),
        opt(3i64..9),
        opt(-2i64..2),
        opt(3i64..9),
        opt(prop::sample::select(&[2.0, 0.5][..])),
    )
        .prop_map(|(integer, min, max, xmin, xmax, multiple)| {
            let mut m = Map::new();
            m.insert(
                "type".into(),
                json!(if integer { "integer" } else { "number" }),
            );
            insert_some(&mut m, "minimum", min.map(|v| json!(v)));
            insert_some(&mut m, "maximum", max.map(|v| json!(v)));
            insert_some(&mut m, "exclusiveMinimum", xmin.map(|v| json!(v)));
            insert_some(&mut m, "exclusiveMaximum", xmax.map(|v| json!(v)));
            insert_some(&mut m, "multipleOf", multiple.map(|v| json!(v)));
            Value::Object(m)
        })
        .boxed()
}

/// A subschema without children (or whose children are fixed).
fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => Just(json!(true)),
        2 => Just(json!(false)),
        1 => Just(json!({})),
        4 => string_schema(),
        4 => number_schema(),
        1 => Just(json!({"type": "boolean"})),
        1 => Just(json!({"type": "null"})),
        1 => Just(json!({"type": ["string", "null"]})),
        2 => lit().prop_map(|v| json!({"const": v})),
        2 => prop::collection::vec(lit(), 1..4).prop_map(|v| json!({"enum": v})),
        1 => Just(json!({"minLength": 2})),
        1 => prop::sample::select(&FORMATS[..]).prop_map(|f| json!({"format": f})),
        2 => prop::sample::select(&JOIN_LIKE_DEFS[..])
            .prop_map(|d| json!({"$ref": format!("#/$defs/{d}")})),
        1 => Just(json!({"$ref": format!("#{ANCHOR}")})),
        2 => Just(json!({"$ref": BRANCH_REF})),
        // The classes that once joined to `"type": []` (SPEC §6 decision on empty kinds).
        1 => prop::sample::select(vec![
            json!({"allOf": [false]}),
            json!({"allOf": [true, false]}),
            json!({"allOf": [{}, false]}),
            json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
        ]),
    ]
    .boxed()
}

fn names_subset() -> BoxedStrategy<Vec<&'static str>> {
    prop::sample::subsequence(&NAMES[..], 0..=3).boxed()
}

/// An object schema over `inner`: properties, required, key policy, patternProperties,
/// propertyNames, size bounds, dependencies.
fn object_schema(inner: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (
        prop::collection::vec(inner.clone(), 0..3),
        names_subset(),
        0u8..6,
        opt(inner.clone()),
        opt(inner.clone()),
        opt(prop_oneof![
            Just(json!({"maxLength": 4})),
            Just(json!({"pattern": "^[a-z]"}))
        ]),
        opt(0u64..2),
        opt(2u64..4),
        any::<bool>(),
    )
        .prop_map(
            |(props, required, policy, catch_all, pattern, names, min, max, dependent)| {
                let mut m = Map::new();
                m.insert("type".into(), json!("object"));
                let mut properties = Map::new();
                for (i, p) in props.into_iter().enumerate() {
                    properties.insert(NAMES[i].into(), p);
                }
                let required: Vec<&str> = required
                    .into_iter()
                    .filter(|n| properties.contains_key(*n))
                    .collect();
                if dependent && properties.contains_key("p0") {
                    m.insert("dependentRequired".into(), json!({"p0": ["p1"]}));
                }
                m.insert("properties".into(), Value::Object(properties));
                if !required.is_empty() {
                    m.insert("required".into(), json!(required));
                }
                if let Some(p) = pattern {
                    m.insert("patternProperties".into(), json!({"^x-": p}));
                }
                match (policy, catch_all) {
                    (0, _) => {
                        m.insert("additionalProperties".into(), json!(false));
                    }
                    (1, Some(c)) => {
                        m.insert("additionalProperties".into(), c);
                    }
                    (2, _) => {
                        m.insert("unevaluatedProperties".into(), json!(false));
                    }
                    (3, Some(c)) => {
                        m.insert("dependentSchemas".into(), json!({"p1": c}));
                    }
                    _ => {}
                }
                insert_some(&mut m, "propertyNames", names);
                insert_some(&mut m, "minProperties", min.map(|v| json!(v)));
                insert_some(&mut m, "maxProperties", max.map(|v| json!(v)));
                Value::Object(m)
            },
        )
        .boxed()
}

/// An array schema over `inner`.
fn array_schema(inner: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (
        opt(inner.clone()),
        opt(prop::collection::vec(inner.clone(), 1..3)),
        opt(inner),
        opt(0u64..2),
        opt(2u64..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(items, prefix, contains, min, max, unique, unevaluated)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("array"));
            let has_prefix = prefix.is_some();
            insert_some(&mut m, "prefixItems", prefix.map(Value::Array));
            insert_some(&mut m, "items", items);
            insert_some(&mut m, "contains", contains);
            insert_some(&mut m, "minItems", min.map(|v| json!(v)));
            insert_some(&mut m, "maxItems", max.map(|v| json!(v)));
            if unique {
                m.insert("uniqueItems".into(), json!(true));
            }
            if unevaluated && has_prefix && !m.contains_key("items") {
                m.insert("unevaluatedItems".into(), json!(false));
            }
            Value::Object(m)
        })
        .boxed()
}

/// Any subschema, recursively (bounded depth and breadth).
pub fn subschema() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(2, 12, 3, |inner| {
            prop_oneof![
                3 => prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
                2 => prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"anyOf": v})),
                1 => prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"oneOf": v})),
                1 => inner.clone().prop_map(|v| json!({"not": v})),
                1 => (inner.clone(), opt(inner.clone()), opt(inner.clone())).prop_map(|(i, t, e)| {
                    let mut m = Map::new();
                    m.insert("if".into(), i);
                    insert_some(&mut m, "then", t);
                    insert_some(&mut m, "else", e);
                    Value::Object(m)
                }),
                3 => object_schema(inner.clone()),
                2 => array_schema(inner.clone()),
                // An embedded resource: its `#/...` reference resolves against its own `$id`.
                1 => (inner.clone(), 0u8..3).prop_map(|(v, n)| json!({
                    "$id": format!("https://flatjoin.invalid/embedded/{n}"),
                    "$defs": {"inner": v},
                    "allOf": [{"$ref": "#/$defs/inner"}]
                })),
                // A nested discriminated union as a payload.
                1 => union_node(inner.clone(), 2, false).prop_map(|(u, _, _)| u),
            ]
        })
        .boxed()
}

/// The `allOf` members a branch may carry: more properties, evaluation beside
/// `unevaluatedProperties`, nesting.
fn branch_all_of(inner: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![
        2 => inner.clone().prop_map(|v| json!({"properties": {"q": v}})),
        2 => Just(json!({"unevaluatedProperties": true})),
        1 => inner.clone().prop_map(|v| json!({"unevaluatedProperties": v})),
        1 => Just(json!({"allOf": [{"unevaluatedProperties": true}]})),
        1 => inner.clone().prop_map(|v| json!({"additionalProperties": v})),
        1 => inner.prop_map(|v| json!({"allOf": [{"properties": {"q": v}}]})),
        1 => Just(json!({"type": "object"})),
    ]
    .boxed()
}

/// One branch of a union (without its discriminator, which [`union_node`] adds).
#[derive(Debug, Clone)]
struct BranchParts {
    properties: Vec<(&'static str, Value)>,
    required: Vec<&'static str>,
    policy: u8,
    catch_all: Value,
    extras: Vec<(u8, Value)>,
    all_of: Vec<Value>,
    behind_ref: bool,
    enum_literal: bool,
}

fn branch_parts(inner: BoxedStrategy<Value>) -> BoxedStrategy<BranchParts> {
    (
        prop::collection::vec((prop::sample::select(&NAMES[..]), inner.clone()), 0..3),
        names_subset(),
        0u8..6,
        inner.clone(),
        prop::collection::vec((0u8..5, inner.clone()), 0..2),
        prop::collection::vec(branch_all_of(inner), 0..3),
        prop::bool::weighted(0.25),
        prop::bool::weighted(0.25),
    )
        .prop_map(
            |(
                properties,
                required,
                policy,
                catch_all,
                extras,
                all_of,
                behind_ref,
                enum_literal,
            )| {
                BranchParts {
                    properties,
                    required,
                    policy,
                    catch_all,
                    extras,
                    all_of,
                    behind_ref,
                    enum_literal,
                }
            },
        )
        .boxed()
}

fn render_branch(parts: &BranchParts, tag: &str, literal: &Value) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    let mut properties = Map::new();
    properties.insert(
        tag.into(),
        if parts.enum_literal {
            json!({"enum": [literal]})
        } else {
            json!({"const": literal})
        },
    );
    for (name, schema) in &parts.properties {
        properties
            .entry((*name).to_owned())
            .or_insert_with(|| schema.clone());
    }
    let mut required = vec![tag.to_owned()];
    required.extend(
        parts
            .required
            .iter()
            .filter(|n| properties.contains_key(**n))
            .map(|n| (*n).to_owned()),
    );
    m.insert("properties".into(), Value::Object(properties));
    m.insert("required".into(), json!(required));
    match parts.policy {
        0 => {
            m.insert("additionalProperties".into(), json!(false));
        }
        1 => {
            m.insert("additionalProperties".into(), parts.catch_all.clone());
        }
        2 | 3 => {
            m.insert("unevaluatedProperties".into(), json!(false));
        }
        _ => {}
    }
    for (kind, schema) in &parts.extras {
        match kind {
            0 => {
                m.insert("patternProperties".into(), json!({"^x-": schema}));
            }
            1 => {
                m.insert("propertyNames".into(), json!({"maxLength": 6}));
            }
            2 => {
                m.insert("dependentSchemas".into(), json!({"p0": schema}));
            }
            3 => {
                m.insert("if".into(), json!({"required": ["p1"]}));
                m.insert("then".into(), schema.clone());
            }
            _ => {
                m.insert("minProperties".into(), json!(1));
            }
        }
    }
    if !parts.all_of.is_empty() {
        m.insert("allOf".into(), Value::Array(parts.all_of.clone()));
    }
    Value::Object(m)
}

/// A union node: `(node, tag, literals)`, its branches' own `$defs` entries (for branches behind a
/// `$ref`) inlined under the node's `$defs`... no: a branch behind a `$ref` points at the root
/// `$defs`, which [`case`] adds; here such branches are returned under `$defs` of the node and
/// moved to the root by [`hoist_branch_defs`].
fn union_node(
    inner: BoxedStrategy<Value>,
    max_branches: usize,
    siblings: bool,
) -> BoxedStrategy<(Value, String, Vec<Value>)> {
    (
        prop::collection::vec(branch_parts(inner.clone()), 2..=max_branches.max(2)),
        prop::sample::select(&["kind", "op"][..]),
        any::<bool>(),
        any::<u8>(),
        if siblings {
            opt((inner, 0u8..3)).boxed()
        } else {
            Just(None).boxed()
        },
    )
        .prop_map(|(branches, tag, one_of, literal_seed, sibling)| {
            let literals: Vec<Value> = (0..branches.len())
                .map(|i| {
                    if literal_seed % 4 == 0 {
                        json!(i)
                    } else {
                        json!(format!("b{i}"))
                    }
                })
                .collect();
            let mut members = Vec::new();
            let mut defs = Map::new();
            for (i, parts) in branches.iter().enumerate() {
                let rendered = render_branch(parts, tag, &literals[i]);
                if parts.behind_ref {
                    let name = format!("Branch{i}");
                    members.push(json!({"$ref": format!("#/$defs/{name}")}));
                    defs.insert(name, rendered);
                } else {
                    members.push(rendered);
                }
            }
            let mut node = Map::new();
            node.insert(
                (if one_of { "oneOf" } else { "anyOf" }).into(),
                Value::Array(members),
            );
            if let Some((schema, how)) = sibling {
                match how {
                    0 => {
                        node.insert("type".into(), json!("object"));
                        node.insert("properties".into(), json!({"common": schema}));
                    }
                    1 => {
                        node.insert("properties".into(), json!({"p0": schema}));
                        node.insert("required".into(), json!([tag]));
                    }
                    _ => {
                        node.insert("unevaluatedProperties".into(), json!(false));
                    }
                }
            }
            if !defs.is_empty() {
                node.insert("$defs".into(), Value::Object(defs));
            }
            (Value::Object(node), tag.to_owned(), literals)
        })
        .boxed()
}

/// Moves every `$defs` entry named `Branch*` of nested nodes to the root `$defs` (branch
/// references are written as `#/$defs/BranchN`); names already taken get a suffix.
fn hoist_branch_defs(node: &mut Value, root_defs: &mut Map<String, Value>) {
    hoist_walk(node, root_defs);
}

fn hoist_walk(node: &mut Value, root_defs: &mut Map<String, Value>) {
    match node {
        Value::Object(map) => {
            let is_resource = map.contains_key("$id");
            if !is_resource && let Some(Value::Object(defs)) = map.get_mut("$defs") {
                let names: Vec<String> = defs
                    .keys()
                    .filter(|k| k.starts_with("Branch"))
                    .cloned()
                    .collect();
                let mut local = Vec::new();
                for name in names {
                    if let Some(v) = defs.remove(&name) {
                        let mut fresh = name.clone();
                        let mut n = 0;
                        while root_defs.contains_key(&fresh) {
                            n += 1;
                            fresh = format!("{name}_{n}");
                        }
                        root_defs.insert(fresh.clone(), Value::Null);
                        local.push((name, fresh, v));
                    }
                }
                if defs.is_empty() {
                    map.remove("$defs");
                }
                for (old, new, _) in &local {
                    rewrite_ref(map, &format!("#/$defs/{old}"), &format!("#/$defs/{new}"));
                }
                for (_, new, mut v) in local {
                    hoist_walk(&mut v, root_defs);
                    root_defs.insert(new, v);
                }
            }
            if is_resource {
                return;
            }
            for (_, v) in map.iter_mut() {
                hoist_walk(v, root_defs);
            }
        }
        Value::Array(items) => {
            for v in items {
                hoist_walk(v, root_defs);
            }
        }
        _ => {}
    }
}

/// Rewrites the union members `{"$ref": from}` directly under `map`'s `oneOf`/`anyOf`.
fn rewrite_ref(map: &mut Map<String, Value>, from: &str, to: &str) {
    for k in ["oneOf", "anyOf"] {
        if let Some(Value::Array(members)) = map.get_mut(k) {
            for m in members {
                if m.get("$ref").and_then(Value::as_str) == Some(from)
                    && let Some(o) = m.as_object_mut()
                {
                    o.insert("$ref".into(), json!(to));
                }
            }
        }
    }
}

/// Replaces every `{"$ref": "@branch"}` by a reference to `target` (or to an author definition
/// when there is none), outside embedded resources (whose base is their own `$id`).
fn resolve_branch_refs(node: &mut Value, target: &str) {
    match node {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some(BRANCH_REF) {
                map.insert("$ref".into(), json!(target));
            }
            let resource = map.contains_key("$id");
            for (_, v) in map.iter_mut() {
                if resource {
                    resolve_branch_refs(v, "#/$defs/inner");
                } else {
                    resolve_branch_refs(v, target);
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                resolve_branch_refs(v, target);
            }
        }
        _ => {}
    }
}

/// Rewrites author `$ref`s inside embedded resources: `#/$defs/flatjoin_ref_N` and `#here`
/// would resolve against the resource, where they do not exist; point them at the resource's
/// own `inner` instead.
fn localize_resource_refs(node: &mut Value, inside: bool) {
    match node {
        Value::Object(map) => {
            let inside = inside || map.contains_key("$id");
            if inside
                && let Some(Value::String(r)) = map.get("$ref")
                && r != "#/$defs/inner"
            {
                map.insert("$ref".into(), json!("#/$defs/inner"));
            }
            for (_, v) in map.iter_mut() {
                localize_resource_refs(v, inside);
            }
        }
        Value::Array(items) => {
            for v in items {
                localize_resource_refs(v, inside);
            }
        }
        _ => {}
    }
}

/// Replaces every embedded resource `{"$id", "$defs": {"inner": S}, "allOf": [{"$ref":
/// "#/$defs/inner"}]}` by `S` (its references to itself by `true`): most cases carry none, so
/// that the classes behind them are not masked by a refused resource.
fn inline_resources(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if map.contains_key("$id")
                && let Some(mut inner) = map
                    .get_mut("$defs")
                    .and_then(|d| d.get_mut("inner"))
                    .map(Value::take)
            {
                replace_self_refs(&mut inner);
                inline_resources(&mut inner);
                *node = inner;
                return;
            }
            for (_, v) in map.iter_mut() {
                inline_resources(v);
            }
        }
        Value::Array(items) => {
            for v in items {
                inline_resources(v);
            }
        }
        _ => {}
    }
}

fn replace_self_refs(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some("#/$defs/inner") {
                *node = Value::Bool(true);
                return;
            }
            for (_, v) in map.iter_mut() {
                replace_self_refs(v);
            }
        }
        Value::Array(items) => {
            for v in items {
                replace_self_refs(v);
            }
        }
        _ => {}
    }
}

/// The pointer of the first branch's first non-discriminator property, if any.
fn branch_target(doc: &Value, union_ptr: &str, tag: &str) -> Option<String> {
    let node = doc.pointer(union_ptr)?;
    let (keyword, members) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| node.get(*k).and_then(Value::as_array).map(|m| (*k, m)))?;
    let first = members.first()?;
    let (base, branch) = match first.get("$ref").and_then(Value::as_str) {
        Some(r) => (
            r.trim_start_matches('#').to_owned(),
            doc.pointer(r.trim_start_matches('#'))?,
        ),
        None => (format!("{union_ptr}/{keyword}/0"), first),
    };
    let name = branch
        .get("properties")?
        .as_object()?
        .keys()
        .find(|k| *k != tag)?;
    Some(format!("#{base}/properties/{name}"))
}

/// The drafts a document is spelled in, by weight: 2020-12 half of the time, each older draft
/// beside it (draft-04 with a one-value `enum` or, kept on purpose, `const` for the tags).
const DRAFTS: [Draft; 10] = [
    Draft::Draft2020,
    Draft::Draft2020,
    Draft::Draft2020,
    Draft::Draft2020,
    Draft::Draft2019,
    Draft::Draft7,
    Draft::Draft7,
    Draft::Draft6,
    Draft::Draft4,
    Draft::Draft4,
];

/// The strategy of whole documents.
pub fn case() -> BoxedStrategy<OpenCase> {
    let inner = subschema();
    (
        union_node(inner.clone(), 3, true),
        prop::sample::select(
            &[
                Placement::Root,
                Placement::Root,
                Placement::Root,
                Placement::Property,
                Placement::Items,
                Placement::Nullable,
            ][..],
        ),
        (
            prop::sample::select(&DRAFTS[..]),
            prop::bool::weighted(0.3),
        ),
        (leaf(), leaf(), leaf()),
        prop::bool::weighted(0.2),
    )
        .prop_map(|((union, tag, literals), placement, (draft, keep_const), (d1, d2, anchored), embedded)| {
            let mut defs = Map::new();
            defs.insert(JOIN_LIKE_DEFS[0].into(), d1);
            defs.insert(JOIN_LIKE_DEFS[1].into(), d2);
            let mut anchored = match anchored {
                Value::Object(m) => m,
                Value::Bool(true) => Map::new(),
                other => {
                    let mut m = Map::new();
                    m.insert("allOf".into(), json!([other]));
                    m
                }
            };
            anchored.insert("$anchor".into(), json!(ANCHOR));
            defs.insert("anchored".into(), Value::Object(anchored));
            let mut union = union;
            hoist_branch_defs(&mut union, &mut defs);
            let (mut doc, union_ptr) = match placement {
                Placement::Root => (union, String::new()),
                Placement::Property => (
                    json!({"type": "object", "properties": {"payload": union, "note": {"type": "string"}}, "required": ["payload"]}),
                    "/properties/payload".to_owned(),
                ),
                Placement::Items => (
                    json!({"type": "object", "properties": {"list": {"type": "array", "items": union}}, "required": ["list"]}),
                    "/properties/list/items".to_owned(),
                ),
                Placement::Nullable => (
                    json!({"type": "object", "properties": {"payload": {"anyOf": [union, {"type": "null"}]}}, "required": ["payload"]}),
                    "/properties/payload/anyOf/0".to_owned(),
                ),
            };
            if let Some(obj) = doc.as_object_mut() {
                let mut map = Map::new();
                map.insert(
                    "$schema".into(),
                    json!("https://json-schema.org/draft/2020-12/schema"),
                );
                for (k, v) in std::mem::take(obj) {
                    if k == "$defs" {
                        continue;
                    }
                    map.insert(k, v);
                }
                map.insert("$defs".into(), Value::Object(defs));
                *obj = map;
            }
            if embedded {
                localize_resource_refs(&mut doc, false);
            } else {
                inline_resources(&mut doc);
            }
            let target = branch_target(&doc, &union_ptr, &tag)
                .unwrap_or_else(|| format!("#/$defs/{}", JOIN_LIKE_DEFS[0]));
            resolve_branch_refs(&mut doc, &target);
            let doc = crate::drafts::rewrite(&doc, draft, keep_const);
            OpenCase {
                schema: doc,
                draft,
                placement,
                tag,
                literals,
            }
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------------
// Values.

/// The most candidates proposed for one schema node.
const MAX_CANDIDATES: usize = 12;
/// Nesting past which only generic values are proposed.
const MAX_VALUE_DEPTH: usize = 6;

fn generic() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(2.5),
        json!(""),
        json!("ab"),
        json!([]),
        json!({}),
    ]
}

fn strings() -> Vec<Value> {
    [
        "",
        "a",
        "ab",
        "abc",
        "abcde",
        "abcdef",
        "b",
        "aab",
        "a@b.co",
        "2020-01-02",
        "1.2.3.4",
        "http://a.b/c",
        "Ab1",
    ]
    .iter()
    .map(|s| json!(s))
    .collect()
}

fn numbers(map: &Map<String, Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for k in ["minimum", "maximum"] {
        if let Some(v) = map.get(k) {
            out.push(v.clone());
        }
    }
    for (k, step) in [("exclusiveMinimum", 1.0), ("exclusiveMaximum", -1.0)] {
        if let Some(f) = map.get(k).and_then(Value::as_f64) {
            out.push(json!(f + step));
            out.push(json!(f + step / 2.0));
        }
    }
    out.extend([
        json!(0),
        json!(4),
        json!(6),
        json!(-1),
        json!(2.5),
        json!(1),
    ]);
    out
}

/// Resolves a local `$ref` of `node` (`#/...` or `#here`) against `root`, else `None`.
fn follow_local<'a>(root: &'a Value, node: &'a Value) -> Option<&'a Value> {
    let r = node.get("$ref")?.as_str()?;
    if let Some(p) = r.strip_prefix('#') {
        if p.is_empty() {
            return Some(root);
        }
        if p.starts_with('/') {
            return root.pointer(p);
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(entries)) = root.get(defs) {
                for v in entries.values() {
                    let anchor = v.get("$anchor").and_then(Value::as_str);
                    let id = v.get("$id").and_then(Value::as_str);
                    if anchor == Some(p) || id == Some(r) {
                        return Some(v);
                    }
                }
            }
        }
    }
    None
}

/// Candidate values for `node` (boundaries per keyword; not yet judged). `root` is the base
/// `$ref`s resolve against (an embedded resource is its own root).
fn candidates(root: &Value, node: &Value, depth: usize) -> Vec<Value> {
    let Value::Object(map) = node else {
        return if node == &Value::Bool(false) {
            Vec::new()
        } else {
            generic()
        };
    };
    if depth > MAX_VALUE_DEPTH {
        return generic();
    }
    let root = if map.contains_key("$id") && !map.contains_key("$anchor") {
        node
    } else {
        root
    };
    let mut out = Vec::new();
    if let Some(c) = map.get("const") {
        out.push(c.clone());
    }
    if let Some(Value::Array(e)) = map.get("enum") {
        out.extend(e.iter().cloned());
    }
    if !out.is_empty() {
        return out;
    }
    if let Some(target) = follow_local(root, node) {
        out.extend(candidates(root, target, depth + 1));
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let objectish = types.contains(&"object")
        || map.contains_key("properties")
        || map.contains_key("allOf") && types.is_empty();
    if objectish {
        out.extend(objects(root, node, depth, &[], None));
    }
    if types.contains(&"array") || map.contains_key("items") || map.contains_key("prefixItems") {
        out.extend(arrays(root, map, depth));
    }
    if types.contains(&"string") || map.contains_key("minLength") || map.contains_key("format") {
        out.extend(strings());
    }
    if types.contains(&"integer") || types.contains(&"number") {
        out.extend(numbers(map));
    }
    if types.contains(&"boolean") {
        out.extend([json!(true), json!(false)]);
    }
    if types.contains(&"null") {
        out.push(Value::Null);
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = map.get(k) {
            for m in members {
                out.extend(candidates(root, m, depth + 1));
            }
        }
    }
    for k in ["then", "else", "if"] {
        if let Some(s) = map.get(k) {
            out.extend(candidates(root, s, depth + 1));
        }
    }
    if types.is_empty() && out.is_empty() {
        out = generic();
    }
    dedup_values(out, MAX_CANDIDATES)
}

fn dedup_values(values: Vec<Value>, cap: usize) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for v in values {
        if seen.insert(v.to_string()) {
            out.push(v);
        }
        if out.len() >= cap {
            break;
        }
    }
    out
}

fn arrays(root: &Value, map: &Map<String, Value>, depth: usize) -> Vec<Value> {
    let mut first: Vec<Value> = Vec::new();
    if let Some(Value::Array(prefix)) = map.get("prefixItems").or(map.get("items")) {
        let mut tuple = Vec::new();
        for p in prefix {
            match candidates(root, p, depth + 1).into_iter().next() {
                Some(v) => tuple.push(v),
                None => break,
            }
        }
        return vec![json!([]), Value::Array(tuple)];
    }
    let item = map.get("items").or(map.get("contains"));
    let items = match item {
        Some(s) => candidates(root, s, depth + 1),
        None => generic(),
    };
    let mut out = vec![json!([])];
    for v in items.iter().take(4) {
        first.push(v.clone());
        out.push(json!([v]));
    }
    if first.len() >= 2 {
        out.push(json!([first[0], first[1]]));
        out.push(json!([first[0], first[1], first[first.len() - 1]]));
    }
    out
}

/// The properties an object schema declares, through `allOf`, local `$ref` and the union
/// node's siblings: `(name, schema)`, first-appearance order, and the required names.
fn declared(
    root: &Value,
    node: &Value,
    depth: usize,
    out: &mut Vec<(String, Value)>,
    required: &mut Vec<String>,
) {
    if depth > MAX_VALUE_DEPTH {
        return;
    }
    let Value::Object(map) = node else { return };
    if let Some(target) = follow_local(root, node) {
        declared(root, target, depth + 1, out, required);
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        for (n, s) in props {
            if !out.iter().any(|(m, _)| m == n) {
                out.push((n.clone(), s.clone()));
            }
        }
    }
    if let Some(Value::Array(r)) = map.get("required") {
        for n in r.iter().filter_map(Value::as_str) {
            if !required.iter().any(|m| m == n) {
                required.push(n.to_owned());
            }
        }
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        for m in members {
            declared(root, m, depth + 1, out, required);
        }
    }
}

/// Counts a value's errors against the whole original (the value placed where the union sits).
trait Errors {
    fn errors(&self, v: &Map<String, Value>) -> usize;
}

struct Placed<'a> {
    judge: &'a jsonschema::Validator,
    placement: Placement,
}

impl Placed<'_> {
    fn place(&self, v: Value) -> Value {
        match self.placement {
            Placement::Root => v,
            Placement::Property | Placement::Nullable => json!({"payload": v}),
            Placement::Items => json!({"list": [v]}),
        }
    }
}

impl Errors for Placed<'_> {
    fn errors(&self, v: &Map<String, Value>) -> usize {
        self.judge
            .iter_errors(&self.place(Value::Object(v.clone())))
            .count()
    }
}

/// Object candidates for `node`: every required property from its first candidate, then each
/// property varied through its candidates, optional ones present and absent, a `^x-` key and an
/// undeclared key. `fixed` are entries every candidate carries (the discriminator). With a
/// `judge` (the branch level), the base object is completed greedily: for each property in turn
/// the candidate (or absence) with the fewest errors against the whole original is kept, and
/// every accepted step is proposed.
fn objects(
    root: &Value,
    node: &Value,
    depth: usize,
    fixed: &[(String, Value)],
    judge: Option<&dyn Errors>,
) -> Vec<Value> {
    let mut props = Vec::new();
    let mut required = Vec::new();
    declared(root, node, depth, &mut props, &mut required);
    let fixed_names: Vec<&str> = fixed.iter().map(|(n, _)| n.as_str()).collect();
    let per: Vec<(String, Vec<Value>)> = props
        .iter()
        .filter(|(n, _)| !fixed_names.contains(&n.as_str()))
        .map(|(n, s)| (n.clone(), candidates(root, s, depth + 1)))
        .collect();
    let mut base = Map::new();
    for (n, v) in fixed {
        base.insert(n.clone(), v.clone());
    }
    for (n, cands) in &per {
        if required.contains(n)
            && let Some(v) = cands.first()
        {
            base.insert(n.clone(), v.clone());
        }
    }
    let mut out = Vec::new();
    if let Some(judge) = judge {
        for (n, cands) in &per {
            let mut best = judge.errors(&base);
            let mut best_map = base.clone();
            let mut tries = vec![{
                let mut m = base.clone();
                m.remove(n);
                m
            }];
            for c in cands {
                let mut m = base.clone();
                m.insert(n.clone(), c.clone());
                tries.push(m);
            }
            for m in tries {
                let e = judge.errors(&m);
                if e == 0 {
                    out.push(Value::Object(m.clone()));
                }
                if e < best {
                    best = e;
                    best_map = m;
                }
            }
            base = best_map;
        }
    }
    out.push(Value::Object(base.clone()));
    for (n, cands) in &per {
        let mut without = base.clone();
        without.remove(n);
        out.push(Value::Object(without));
        for c in cands {
            let mut m = base.clone();
            m.insert(n.clone(), c.clone());
            out.push(Value::Object(m));
        }
    }
    for (k, v) in [
        (PATTERN_KEY, json!("a")),
        (PATTERN_KEY, json!(1)),
        (crate::sample::EXTRA_KEY, json!(1)),
    ] {
        let mut m = base.clone();
        m.insert(k.into(), v);
        out.push(Value::Object(m));
    }
    out
}

/// The union node of a case.
fn union_of(case: &OpenCase) -> Option<&Value> {
    let union_ptr = match case.placement {
        Placement::Root => "",
        Placement::Property => "/properties/payload",
        Placement::Items => "/properties/list/items",
        Placement::Nullable => "/properties/payload/anyOf/0",
    };
    case.schema.pointer(union_ptr)
}

/// The values of a case: for each branch, the objects `objects` proposes with its literal,
/// accepted by the original (`judge`), placed where the union sits. At most `cap` per branch.
pub fn values(case: &OpenCase, judge: &jsonschema::Validator, cap: usize) -> Vec<Value> {
    let Some(node) = union_of(case) else {
        return Vec::new();
    };
    let members = ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| node.get(*k).and_then(Value::as_array))
        .cloned()
        .unwrap_or_default();
    // The union node's siblings are part of every branch (SPEC §1).
    let mut siblings = node.clone();
    if let Some(o) = siblings.as_object_mut() {
        o.remove("oneOf");
        o.remove("anyOf");
        o.remove("$defs");
        o.remove("definitions");
    }
    let placed = Placed {
        judge,
        placement: case.placement,
    };
    let mut out = Vec::new();
    for (i, member) in members.iter().enumerate() {
        let Some(literal) = case.literals.get(i) else {
            continue;
        };
        let branch = json!({"allOf": [member, siblings]});
        let fixed = vec![(case.tag.clone(), literal.clone())];
        let mut kept = 0;
        for v in objects(&case.schema, &branch, 0, &fixed, Some(&placed)) {
            let v = placed.place(v);
            if judge.is_valid(&v) {
                out.push(v);
                kept += 1;
                if kept >= cap {
                    break;
                }
            }
        }
    }
    dedup_values(out, usize::MAX)
}

// ---------------------------------------------------------------------------------------------
// Judging a case.

/// The most generated values per branch.
pub const VALUES_PER_BRANCH: usize = 24;

/// Every schema-level oracle on one open-world case under `options`: the original is judged by
/// `jsonschema` first (an original it cannot compile is skipped, not the join's fault), the
/// branch values of [`values`] join the harness sampler's, and [`Subject::all`] runs (soundness,
/// presentation validity, static soundness, determinism, …). A flatten error or an invalid
/// presentation is a violation.
pub fn evaluate(case: &OpenCase, options: &Options) -> Vec<(Oracle, Outcome)> {
    evaluate_with(case, options, Sweep::Full)
}

/// [`evaluate`] with the oracles of `sweep` only.
pub fn evaluate_with(case: &OpenCase, options: &Options, sweep: Sweep) -> Vec<(Oracle, Outcome)> {
    let judge = match oracle::judge(&case.schema) {
        Ok(j) => j,
        Err(e) => {
            return vec![(
                Oracle::FlattenAccepts,
                Outcome::Skipped(format!("jsonschema cannot compile the original: {e}")),
            )];
        }
    };
    let values = values(case, &judge, VALUES_PER_BRANCH);
    match Subject::prepare(&case.schema, options) {
        Ok(Ok(subject)) => subject.with_instances(values, Vec::new()).outcomes(sweep),
        Ok(Err(reason)) => vec![(Oracle::FlattenAccepts, Outcome::Skipped(reason))],
        Err(v) => vec![(v.oracle, Outcome::Failed(Box::new(v)))],
    }
}

/// The first violation among `outcomes`.
pub fn first_violation(outcomes: &[(Oracle, Outcome)]) -> Option<Violation> {
    outcomes.iter().find_map(|(_, o)| match o {
        Outcome::Failed(v) => Some((**v).clone()),
        _ => None,
    })
}

/// Shrinks a failing case with the harness's one walk ([`crate::draw::shrink_with`]), keeping
/// the last case on which a violation still satisfies `same` (the same oracle, and whatever else
/// the caller pins).
pub fn shrink(
    tree: &mut dyn ValueTree<Value = OpenCase>,
    first: Violation,
    options: &Options,
    max_steps: u32,
    same: &dyn Fn(&Violation) -> bool,
) -> (OpenCase, Violation) {
    crate::draw::shrink_with(tree, first, max_steps, &|case: &OpenCase| {
        evaluate(case, options)
            .into_iter()
            .find_map(|(_, o)| match o {
                Outcome::Failed(v) if same(&v) => Some(*v),
                _ => None,
            })
    })
}

/// The case a fuzzer's bytes select: the first byte picks the reading of open branches, the
/// rest seeds the runner ([`crate::draw::bytes_runner`]).
pub fn case_from_bytes(data: &[u8]) -> Option<(OpenCase, Options)> {
    let (&first, rest) = data.split_first()?;
    let tree = case().new_tree(&mut crate::draw::bytes_runner(rest)).ok()?;
    let mut options = Options::default();
    if first & 1 == 1 {
        options.open_branches = flatjoin::OpenBranches::Permissive;
    }
    Some((tree.current(), options))
}

/// The `open_world` fuzz target's check: decode with [`case_from_bytes`], run [`evaluate_with`]
/// the input's [`Sweep::for_input`]; `Ok(true)` when some oracle judged it,
/// `Ok(false)` when nothing applied, `Err` on a violation.
pub fn check_bytes(data: &[u8]) -> Result<bool, Box<Violation>> {
    let Some((case, options)) = case_from_bytes(data) else {
        return Ok(false);
    };
    let outcomes = evaluate_with(&case, &options, Sweep::for_input(data));
    if let Some(v) = first_violation(&outcomes) {
        return Err(Box::new(v));
    }
    Ok(outcomes
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Passed(_))))
}
