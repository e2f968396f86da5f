//! The harness's own reading of the spec, independent of the core's: which root is a
//! discriminated union (SPEC §1), and what the declared reading of open branches promises
//! (SPEC §2.8). Not an oracle: what the oracles and the samplers ask.

use serde_json::{Map, Value, json};

use crate::drafts::{self, Draft};
use crate::identity::{canonical_data, sorted_text};
use crate::keywords;
use crate::refs;
use crate::sample;

/// The root discriminated union as the harness reads SPEC §1, independently of the core.
#[derive(Debug, Clone, PartialEq)]
pub struct RootUnion {
    /// The discriminator.
    pub tag: String,
    /// Each branch's literal set.
    pub literals: Vec<Vec<Value>>,
}

/// Identifies a root discriminated union by SPEC §1 (branches resolved and merged with siblings,
/// each `type: "object"`, one name with a scalar literal set in every branch, sets pairwise
/// disjoint by value; a name every branch requires before one some branch leaves optional —
/// rule 3, relaxed by §2.9 —, and within each an explicit `discriminator.propertyName` first,
/// then the first branch's order).
pub fn discriminated_root(root: &Value) -> Option<RootUnion> {
    let branches = sample::root_branches(root)?;
    if branches.len() < 2 {
        return None;
    }
    let folded: Vec<Value> = branches.iter().map(|b| fold_all_of(root, b)).collect();
    if !folded
        .iter()
        .all(|b| b.get("type") == Some(&json!("object")))
    {
        return None;
    }
    // Draft-04 has no `const` (SPEC §6 decision 29): there only `enum` gives a literal set.
    let has_const = drafts::declared(root) != Draft::Draft4;
    let literal_set = |branch: &Value, name: &str| -> Option<Vec<Value>> {
        let prop = branch.get("properties")?.get(name)?;
        let prop = refs::follow(root, prop);
        let set = match (prop.get("const").filter(|_| has_const), prop.get("enum")) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(Value::Array(e))) if !e.is_empty() => e.clone(),
            _ => return None,
        };
        set.iter()
            .all(|v| !v.is_array() && !v.is_object())
            .then_some(set)
    };
    // Rule 3 relaxed (SPEC §2.9): a name some branch does not require still qualifies; one every
    // branch requires wins over it.
    let qualifies = |name: &str| -> Option<(Vec<Vec<Value>>, bool)> {
        let mut seen = std::collections::HashSet::new();
        let mut sets = Vec::new();
        let mut required_everywhere = true;
        for b in &folded {
            required_everywhere &= b
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|n| n == name));
            let set = literal_set(b, name)?;
            if !set
                .iter()
                .all(|v| seen.insert(sorted_text(&canonical_data(v))))
            {
                return None;
            }
            sets.push(set);
        }
        Some((sets, required_everywhere))
    };
    let explicit = root
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str);
    let mut names: Vec<String> = explicit.map(str::to_owned).into_iter().collect();
    names.extend(sample::declared_names(&folded[0]));
    let found: Vec<(String, Vec<Vec<Value>>, bool)> = names
        .into_iter()
        .filter_map(|name| qualifies(&name).map(|(sets, req)| (name, sets, req)))
        .collect();
    let pick = found
        .iter()
        .position(|(_, _, required)| *required)
        .or((!found.is_empty()).then_some(0))?;
    let (tag, literals, _) = found.into_iter().nth(pick)?;
    Some(RootUnion { tag, literals })
}

/// Folds object-only `allOf` parts into the branch (properties and required merged).
fn fold_all_of(root: &Value, branch: &Value) -> Value {
    fold_all_of_within(root, branch, 0)
}

/// [`fold_all_of`] through nested `allOf` members (and `$ref`s inside them), a bounded number of
/// levels deep.
fn fold_all_of_within(root: &Value, branch: &Value, depth: usize) -> Value {
    let Some(Value::Array(parts)) = branch.get("allOf").filter(|_| depth < 16) else {
        return branch.clone();
    };
    let mut out = branch.clone();
    if let Some(o) = out.as_object_mut() {
        o.remove("allOf");
    }
    for part in parts {
        let part = fold_all_of_within(root, refs::follow(root, part), depth + 1);
        let Some(p) = part.as_object() else { continue };
        for (k, v) in p {
            let Some(o) = out.as_object_mut() else { break };
            match (k.as_str(), o.get_mut(k)) {
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = v {
                        for (n, s) in more {
                            existing.entry(n.clone()).or_insert_with(|| s.clone());
                        }
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    if let Value::Array(more) = v {
                        existing.extend(more.iter().cloned());
                    }
                }
                _ => {
                    o.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    out
}

/// The original restricted to what the `declared` reading promises: in every `oneOf`/`anyOf`
/// whose members declare properties, each member additionally forbids the names its sibling
/// members declare and it does not.
pub fn restrict_declared(schema: &Value) -> Value {
    restrict_node(schema, schema)
}

fn restrict_node(root: &Value, node: &Value) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let rewritten = match key.as_str() {
            "anyOf" | "oneOf" => match value {
                Value::Array(members) => {
                    let names: Vec<Vec<String>> = members
                        .iter()
                        .map(|m| sample::declared_names(&fold_all_of(root, refs::follow(root, m))))
                        .collect();
                    let sibling: Vec<String> = sample::declared_names(node);
                    Value::Array(
                        members
                            .iter()
                            .enumerate()
                            .map(|(i, m)| {
                                let mut forbid = Map::new();
                                for (j, list) in names.iter().enumerate() {
                                    if j == i {
                                        continue;
                                    }
                                    for n in list {
                                        if !names[i].contains(n) && !sibling.contains(n) {
                                            // `{"not": {}}`, not `false`: draft-04 has no
                                            // boolean schemas (SPEC §6 decision 63).
                                            forbid.insert(n.clone(), json!({"not": {}}));
                                        }
                                    }
                                }
                                let inner = restrict_node(root, m);
                                if forbid.is_empty() {
                                    inner
                                } else {
                                    json!({"allOf": [inner, {"properties": forbid}]})
                                }
                            })
                            .collect(),
                    )
                }
                other => other.clone(),
            },
            _ => keywords::map_subschemas(key, value, &mut |sub| restrict_node(root, sub))
                .unwrap_or_else(|| value.clone()),
        };
        out.insert(key.clone(), rewritten);
    }
    Value::Object(out)
}
