//! The drafts a generated document may declare, and the rewriting of a draft 2020-12 document
//! written by the generators ([`crate::open_world`], [`crate::render`]) into each older draft's
//! spelling: 2019-09 (tuple `items` + `additionalItems`), draft-07 (`definitions`,
//! `dependencies`, fragment `$id` for `$anchor`), draft-06 (draft-07's spelling; `if`/`then`/
//! `else` are unknown keywords there, kept as such) and draft-04 (`id`, boolean exclusive bounds,
//! no boolean subschemas, a one-value `enum` for `const` unless `const` is kept on purpose: there
//! it is an unknown keyword, and a union tagged by it is no discriminated union, SPEC §6
//! decision 29). What a rewritten document accepts is judged by `jsonschema` under its declared
//! draft; the rewriting only has to produce a valid document of that draft.

use serde_json::{Map, Value, json};

use crate::keywords;

/// The draft a generated document declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Draft {
    /// `https://json-schema.org/draft/2020-12/schema`.
    Draft2020,
    /// `https://json-schema.org/draft/2019-09/schema`.
    Draft2019,
    /// `http://json-schema.org/draft-07/schema#`.
    Draft7,
    /// `http://json-schema.org/draft-06/schema#`.
    Draft6,
    /// `http://json-schema.org/draft-04/schema#`.
    Draft4,
}

impl Draft {
    /// The `$schema` a document of this draft declares.
    pub fn meta_schema(self) -> &'static str {
        match self {
            Draft::Draft2020 => "https://json-schema.org/draft/2020-12/schema",
            Draft::Draft2019 => "https://json-schema.org/draft/2019-09/schema",
            Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
            Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
            Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
        }
    }

    /// Whether this draft has `keyword` as a keyword that holds subschemas: one it lacks is
    /// an unknown keyword there, and its value data (draft-04 and draft-06 have no `if`, draft-07
    /// no `unevaluatedProperties`, 2019-09 no `prefixItems`). Where a later draft only dropped or
    /// renamed a keyword (`additionalItems`, `dependencies`, `definitions` in 2020-12), and for
    /// `$defs`, which a `$ref` reaches by pointer in every draft, this answers `true`: an oracle that walks more of a document judges it more leniently, never
    /// wrongly.
    pub fn knows(self, keyword: &str) -> bool {
        const SINCE_2019: [&str; 4] = [
            "dependentSchemas",
            "unevaluatedProperties",
            "unevaluatedItems",
            "contentSchema",
        ];
        let since_2020 = keyword == "prefixItems";
        let since_7 = matches!(keyword, "if" | "then" | "else");
        let since_6 = matches!(keyword, "contains" | "propertyNames");
        match self {
            Draft::Draft2020 => true,
            Draft::Draft2019 => !since_2020,
            Draft::Draft7 => !since_2020 && !SINCE_2019.contains(&keyword),
            Draft::Draft6 => !since_2020 && !SINCE_2019.contains(&keyword) && !since_7,
            Draft::Draft4 => !since_2020 && !SINCE_2019.contains(&keyword) && !since_7 && !since_6,
        }
    }

    /// A short name for reports and variant names.
    pub fn name(self) -> &'static str {
        match self {
            Draft::Draft2020 => "2020-12",
            Draft::Draft2019 => "2019-09",
            Draft::Draft7 => "draft-07",
            Draft::Draft6 => "draft-06",
            Draft::Draft4 => "draft-04",
        }
    }
}

/// The draft `doc` declares by its root `$schema` (the harness's own reading, written apart from
/// the core's `flatjoin::Draft`): 2020-12 when undeclared or unknown.
pub fn declared(doc: &Value) -> Draft {
    let uri = doc
        .get("$schema")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let uri = uri.trim_end_matches('#');
    [
        Draft::Draft4,
        Draft::Draft6,
        Draft::Draft7,
        Draft::Draft2019,
        Draft::Draft2020,
    ]
    .into_iter()
    .find(|d| {
        let meta = d.meta_schema().trim_end_matches('#');
        let path = |u: &str| u.split_once("://").map(|(_, p)| p.to_owned());
        path(meta).is_some() && path(meta) == path(uri)
    })
    .unwrap_or(Draft::Draft2020)
}

/// `doc`, a draft 2020-12 document written by the generators, spelled in `draft` with its
/// `$schema` declared. `keep_const` (draft-04 only) leaves `const` as it is, an unknown keyword
/// there, instead of writing a one-value `enum`.
pub fn rewrite(doc: &Value, draft: Draft, keep_const: bool) -> Value {
    let mut out = match draft {
        Draft::Draft2020 => doc.clone(),
        Draft::Draft2019 => to_draft2019(doc),
        Draft::Draft7 | Draft::Draft6 => to_draft7(doc),
        Draft::Draft4 => to_draft4(&to_draft7(doc), keep_const),
    };
    if let Some(obj) = out.as_object_mut() {
        obj.insert("$schema".into(), json!(draft.meta_schema()));
    }
    out
}

/// 2020-12 → 2019-09: `prefixItems` becomes the tuple form of `items`, and a schema `items`
/// beside it `additionalItems`; the rest is spelled alike.
fn to_draft2019(node: &Value) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    let mut out = Map::new();
    for (k, v) in map {
        match k.as_str() {
            "prefixItems" => {
                // The tuple's members are subschemas too (a `prefixItems` inside one).
                let tuple = match v {
                    Value::Array(members) => members.iter().map(to_draft2019).collect(),
                    other => to_draft2019(other),
                };
                out.insert("items".into(), tuple);
                if let Some(items) = map.get("items") {
                    out.insert("additionalItems".into(), to_draft2019(items));
                }
            }
            "items" if map.contains_key("prefixItems") => {}
            _ => {
                let mapped = keywords::map_subschemas(k, v, &mut |s| to_draft2019(s));
                out.insert(k.clone(), mapped.unwrap_or_else(|| v.clone()));
            }
        }
    }
    Value::Object(out)
}

/// Draft-07 → draft-04: `$id` → `id`; numeric exclusive bounds → `minimum`/`maximum` with a
/// boolean `exclusive*` (keeping the stricter bound when both are given); boolean subschemas →
/// `{}` and `{"not": {}}` (draft-04 has none, except `additionalProperties`/`additionalItems`,
/// which stay); `const` → a one-value `enum` unless `keep_const`.
fn to_draft4(node: &Value, keep_const: bool) -> Value {
    let map = match node {
        Value::Bool(true) => return json!({}),
        Value::Bool(false) => return json!({"not": {}}),
        Value::Object(map) => map,
        other => return other.clone(),
    };
    let mut out = Map::new();
    let mut extra_enum = None;
    for (k, v) in map {
        match (k.as_str(), v) {
            ("$id", _) => {
                out.insert("id".into(), v.clone());
            }
            ("const", _) if !keep_const => {
                if map.contains_key("enum") {
                    extra_enum = Some(json!({"enum": [v]}));
                } else {
                    out.insert("enum".into(), json!([v]));
                }
            }
            ("exclusiveMinimum" | "exclusiveMaximum", Value::Number(_)) => {}
            ("additionalProperties" | "additionalItems", Value::Bool(_)) => {
                out.insert(k.clone(), v.clone());
            }
            _ => {
                let mapped = keywords::map_subschemas(k, v, &mut |s| to_draft4(s, keep_const));
                out.insert(k.clone(), mapped.unwrap_or_else(|| v.clone()));
            }
        }
    }
    for (exclusive, inclusive, stricter_is_larger) in [
        ("exclusiveMinimum", "minimum", true),
        ("exclusiveMaximum", "maximum", false),
    ] {
        let Some(x) = map.get(exclusive).and_then(Value::as_f64) else {
            continue;
        };
        let kept = map.get(inclusive).and_then(Value::as_f64);
        let exclusive_wins = kept.is_none_or(|m| if stricter_is_larger { x >= m } else { x <= m });
        if exclusive_wins {
            out.insert(inclusive.into(), map[exclusive].clone());
            out.insert(exclusive.into(), json!(true));
        }
    }
    if let Some(e) = extra_enum {
        match out.get_mut("allOf") {
            Some(Value::Array(members)) => members.push(e),
            _ => {
                out.insert("allOf".into(), json!([e]));
            }
        }
    }
    Value::Object(out)
}

/// Converts a 2020-12 document written by the generators to draft-07: `$defs` → `definitions`,
/// `dependentSchemas`/`dependentRequired` → `dependencies`, `prefixItems` → array `items` (a
/// schema `items` → `additionalItems`), `$anchor` → a plain-name `$id`, and the keywords draft-07
/// does not have (`unevaluated*`) dropped.
fn to_draft7(node: &Value) -> Value {
    match node {
        Value::Object(map) => {
            let mut out = Map::new();
            let mut dependencies = Map::new();
            for (k, v) in map {
                match k.as_str() {
                    "$defs" => {
                        out.insert("definitions".into(), map_entries(v));
                    }
                    "properties" | "patternProperties" => {
                        out.insert(k.clone(), map_entries(v));
                    }
                    "dependentSchemas" => {
                        if let Value::Object(e) = v {
                            for (n, s) in e {
                                dependencies.insert(n.clone(), to_draft7(s));
                            }
                        }
                    }
                    "dependentRequired" => {
                        if let Value::Object(e) = v {
                            for (n, s) in e {
                                dependencies.insert(n.clone(), s.clone());
                            }
                        }
                    }
                    "prefixItems" => {
                        out.insert("items".into(), to_draft7(v));
                        if let Some(items) = map.get("items") {
                            out.insert("additionalItems".into(), to_draft7(items));
                        }
                    }
                    "items" if map.contains_key("prefixItems") => {}
                    "unevaluatedProperties"
                    | "unevaluatedItems"
                    | "minContains"
                    | "maxContains" => {}
                    "$anchor" => {
                        if let Value::String(a) = v {
                            out.insert("$id".into(), json!(format!("#{a}")));
                        }
                    }
                    "$ref" => {
                        let r = v
                            .as_str()
                            .unwrap_or_default()
                            .replace("/$defs/", "/definitions/");
                        out.insert(k.clone(), json!(r));
                    }
                    "const" | "enum" | "required" => {
                        out.insert(k.clone(), v.clone());
                    }
                    _ => {
                        out.insert(k.clone(), to_draft7(v));
                    }
                }
            }
            if !dependencies.is_empty() {
                out.insert("dependencies".into(), Value::Object(dependencies));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(to_draft7).collect()),
        other => other.clone(),
    }
}

fn map_entries(v: &Value) -> Value {
    match v {
        Value::Object(e) => {
            Value::Object(e.iter().map(|(n, s)| (n.clone(), to_draft7(s))).collect())
        }
        other => other.clone(),
    }
}
