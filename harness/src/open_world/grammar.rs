//! The open-world grammar: proptest strategies over the applicators and assertions of draft
//! 2020-12 ([`subschema`]), branches and union nodes, and whole documents ([`case`]), spelled in
//! one of the five drafts by [`crate::drafts::rewrite`].

use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use serde_json::{Map, Value, json};

use super::rewrites::{
    BRANCH_REF, branch_target, hoist_branch_defs, inline_resources, localize_resource_refs,
    resolve_branch_refs,
};
use super::{Draft, OpenCase, Placement};

const NAMES: [&str; 4] = ["p0", "p1", "p2", "x"];
/// The author's own definitions named like the join's hoisted ones (`core/src/refs.rs`).
const JOIN_LIKE_DEFS: [&str; 2] = ["flatjoin_ref_1", "flatjoin_ref_2"];
/// The anchor an author definition carries.
const ANCHOR: &str = "here";
/// A reference to the document root, which [`subschema`] draws as a leaf once in
/// `ROOT_REF_ODDS + 1` leaves.
const ROOT_REF: &str = "#";
/// How many other leaves [`subschema`] draws for each [`ROOT_REF`].
const ROOT_REF_ODDS: u32 = 40;
/// Patterns with strings known to match or not.
const PATTERNS: [&str; 3] = ["^a", "^[a-z]+$", "b$"];
/// Formats both drafts know.
const FORMATS: [&str; 4] = ["email", "date", "ipv4", "uri"];

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
    // Rarely, the document root, so that it lands under `not`, `if`, `contains`, in a branch:
    // referenced from such a place the root union is frozen too (SPEC §6 decisions 37 and 70).
    // Inside an embedded resource it becomes the resource's own `inner`
    // ([`localize_resource_refs`]); the branch values stay bounded by `MAX_VALUE_DEPTH`
    // (values.rs), the sampler's by its own depth bound.
    let leaves = prop_oneof![
        ROOT_REF_ODDS => leaf(),
        1 => Just(json!({"$ref": ROOT_REF})),
    ];
    leaves
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

/// Whether `node` holds an `$id` anywhere (an embedded resource).
fn holds_id(node: &Value) -> bool {
    match node {
        Value::Object(map) => map.contains_key("$id") || map.values().any(holds_id),
        Value::Array(items) => items.iter().any(holds_id),
        _ => false,
    }
}

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
                Placement::Shared,
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
            // Written twice, an embedded resource would be two resources of one `$id`.
            let placement = if placement == Placement::Shared && holds_id(&union) {
                Placement::Property
            } else {
                placement
            };
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
                Placement::Shared => (
                    json!({"type": "object", "properties": {"payload": union.clone(), "echo": union, "note": {"type": "string"}}, "required": ["payload"]}),
                    "/properties/payload".to_owned(),
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
