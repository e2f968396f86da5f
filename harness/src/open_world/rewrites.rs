//! The rewrites that turn a drawn tree into a document: branch definitions hoisted to the root,
//! references into a union's branches resolved, embedded resources (`$id`) given local
//! references or inlined.

use serde_json::{Map, Value, json};

/// A placeholder `$ref` replaced, once the document is assembled, by a pointer into the first
/// branch of the union (or into its `$defs` entry when the branch is behind a `$ref`).
pub(super) const BRANCH_REF: &str = "@branch";

/// Moves every `$defs` entry named `Branch*` of nested nodes to the root `$defs` (branch
/// references are written as `#/$defs/BranchN`); names already taken get a suffix.
pub(super) fn hoist_branch_defs(node: &mut Value, root_defs: &mut Map<String, Value>) {
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
pub(super) fn resolve_branch_refs(node: &mut Value, target: &str) {
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
pub(super) fn localize_resource_refs(node: &mut Value, inside: bool) {
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
pub(super) fn inline_resources(node: &mut Value) {
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
pub(super) fn branch_target(doc: &Value, union_ptr: &str, tag: &str) -> Option<String> {
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
