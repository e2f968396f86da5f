//! Keeping local `$ref`s valid after flattening: a reference into the branches of a flattened
//! union is redirected to a hoisted copy of its (projected) target, and root `$defs` entries that
//! nothing references any more are pruned.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use crate::error::Error;
use crate::keywords;
use crate::pointer;
use crate::project::Projector;

/// Repairs references in the projected document `out` and prunes unreferenced definitions.
pub(crate) fn repair(out: &mut Value, projector: &mut Projector<'_>) -> Result<(), Error> {
    if projector.facts.ref_targets.is_empty() {
        return Ok(());
    }
    let container = container_name(projector.document);
    let mut hoisted: HashMap<String, String> = HashMap::new();
    let mut new_defs: Vec<(String, Value)> = Vec::new();
    // Worklist of values whose references still need checking: the document, then each hoisted
    // definition as it is created.
    rewrite(out, projector, container, &mut hoisted, &mut new_defs)?;
    let mut i = 0;
    while i < new_defs.len() {
        let mut value = std::mem::take(&mut new_defs[i].1);
        rewrite(
            &mut value,
            projector,
            container,
            &mut hoisted,
            &mut new_defs,
        )?;
        new_defs[i].1 = value;
        i += 1;
    }
    if let Value::Object(root) = out {
        if !new_defs.is_empty() {
            let defs = root
                .entry(container.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(defs) = defs {
                for (name, value) in new_defs {
                    defs.insert(name, value);
                }
            }
        }
        prune(root, &projector.facts.ref_targets);
    }
    Ok(())
}

/// The root definitions container to hoist into: the one the document already has, else
/// `definitions` for draft-07 and older, else `$defs`.
fn container_name(document: &Value) -> &'static str {
    if document.get("$defs").is_some() {
        return "$defs";
    }
    if document.get("definitions").is_some() {
        return "definitions";
    }
    let old = document
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|s| s.contains("draft-0"));
    if old { "definitions" } else { "$defs" }
}

/// Whether `target` (a pointer into the original) lies inside the branches of a flattened union.
fn crosses_flattened(target: &str, sites: &[(String, &'static str)]) -> bool {
    sites.iter().any(|(site, keyword)| {
        let inner = pointer::push(site, keyword);
        target == inner || target.starts_with(&format!("{inner}/"))
    })
}

fn rewrite(
    value: &mut Value,
    projector: &mut Projector<'_>,
    container: &str,
    hoisted: &mut HashMap<String, String>,
    new_defs: &mut Vec<(String, Value)>,
) -> Result<(), Error> {
    let Value::Object(map) = value else {
        return Ok(());
    };
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some(target) = pointer::local_ref(reference)
        && crosses_flattened(&target, &projector.sites)
    {
        let name = match hoisted.get(&target) {
            Some(name) => name.clone(),
            None => {
                let name = format!("flatjoin_ref_{}", hoisted.len() + 1);
                hoisted.insert(target.clone(), name.clone());
                let projected = projector.project_at(&target)?;
                new_defs.push((name.clone(), projected));
                name
            }
        };
        let new_ref = pointer::to_ref(&pointer::push(&pointer::push("", container), &name));
        map.insert("$ref".into(), Value::String(new_ref));
    }
    let mut result = Ok(());
    keywords::subschemas_mut(map, |_, child| {
        if result.is_ok() {
            result = rewrite(child, projector, container, hoisted, new_defs);
        }
    });
    result
}

/// Collects the local reference targets of every `$ref` in `value`.
fn collect_refs(value: &Value, out: &mut Vec<String>) {
    let Value::Object(map) = value else { return };
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(pointer::local_ref)
    {
        out.push(target);
    }
    keywords::subschemas(map, |_, child| collect_refs(child, out));
}

/// Removes root definitions that the original referenced and the presentation no longer does.
fn prune(root: &mut Map<String, Value>, originally_referenced: &HashSet<String>) {
    for container in ["$defs", "definitions"] {
        let Some(Value::Object(defs)) = root.get(container) else {
            continue;
        };
        let prefix = pointer::push("", container);
        let entry_of = |target: &str| -> Option<String> {
            let rest = target.strip_prefix(&format!("{prefix}/"))?;
            let token = rest.split('/').next()?;
            Some(token.replace("~1", "/").replace("~0", "~"))
        };
        // References from outside the container, then transitively through reached entries.
        let mut outside = Vec::new();
        if let Some(target) = root
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(pointer::local_ref)
        {
            outside.push(target);
        }
        keywords::subschemas(root, |place, child| {
            if place.keyword() != container {
                collect_refs(child, &mut outside);
            }
        });
        let mut reached: HashSet<String> = HashSet::new();
        let mut queue: VecDeque<String> = outside.iter().filter_map(|t| entry_of(t)).collect();
        // A reference to the root itself reaches everything under it.
        if outside.iter().any(|t| t.is_empty()) {
            queue.extend(defs.keys().cloned());
        }
        while let Some(name) = queue.pop_front() {
            if !reached.insert(name.clone()) {
                continue;
            }
            if let Some(def) = defs.get(&name) {
                let mut inner = Vec::new();
                collect_refs(def, &mut inner);
                queue.extend(inner.iter().filter_map(|t| entry_of(t)));
            }
        }
        let once_referenced: HashSet<String> = originally_referenced
            .iter()
            .filter_map(|t| entry_of(t))
            .collect();
        let doomed: Vec<String> = defs
            .keys()
            .filter(|k| once_referenced.contains(*k) && !reached.contains(*k))
            .cloned()
            .collect();
        if let Some(Value::Object(defs)) = root.get_mut(container) {
            for k in doomed {
                defs.shift_remove(&k);
            }
            if defs.is_empty() {
                root.shift_remove(container);
            }
        }
    }
}
