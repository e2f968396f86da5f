//! The harness's one `$ref` resolver (local references only: the harness never fetches), used by
//! the sampler and the oracles. Independent of the core's, like the rest of the oracles.

use std::collections::HashMap;

use serde_json::Value;

/// How many `$ref` hops [`follow`] takes at most (a cycle of references ends there).
const MAX_HOPS: usize = 8;

/// Resolves a local `$ref` against the document root: `#`, a JSON pointer `#/...`
/// (percent-encoded or not), or a plain-name fragment `#name` — the root resource's
/// `"$anchor": "name"` (2019-09 on), `"$id": "#name"` (draft-06, draft-07) or `"id": "#name"`
/// (draft-04). An anchor inside an embedded resource (a subschema with its own non-fragment
/// id) belongs to that resource, not the root's.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    resolve_in(root, reference, id_keyword(root))
}

/// The keyword that names a resource in `root`'s draft: `id` in draft-04, `$id` after it.
fn id_keyword(root: &Value) -> &'static str {
    use crate::drafts::{Draft, declared};
    if declared(root) == Draft::Draft4 {
        "id"
    } else {
        "$id"
    }
}

/// [`resolve`] within `resource` (the root or an embedded resource) of a document whose draft
/// names resources with `id_keyword`.
fn resolve_in<'a>(resource: &'a Value, reference: &str, id_keyword: &str) -> Option<&'a Value> {
    let root = resource;
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(fragment);
    if decoded.starts_with('/') {
        return root.pointer(&decoded);
    }
    anchor(root, &decoded, id_keyword)
}

/// The node of the resource `root` named `name` by `$anchor` or by a fragment id (`$id: "#name"`
/// in draft-06 and draft-07, `id: "#name"` in draft-04: `id_keyword`).
fn anchor<'a>(root: &'a Value, name: &str, id_keyword: &str) -> Option<&'a Value> {
    let mut found = None;
    crate::keywords::walk_pruned(root, &mut |node| {
        if found.is_some() {
            return false;
        }
        let id = node.get(id_keyword).and_then(Value::as_str);
        if !std::ptr::eq(node, root) && id.is_some_and(|id| !id.starts_with('#')) {
            // An embedded resource: its anchors are its own.
            return false;
        }
        let named = node.get("$anchor").and_then(Value::as_str) == Some(name)
            || id.and_then(|id| id.strip_prefix('#')) == Some(name);
        if named {
            found = Some(node);
        }
        !named
    });
    found
}

/// Follows `$ref` chains (at most `MAX_HOPS`) from `schema` to a node that is not a resolvable
/// reference.
pub fn follow<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_HOPS {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(root, r))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// Whether `root` holds a reference cycle that makes no progress through the instance: a chain
/// of `$ref`s and in-place applicators ([`crate::keywords::IN_PLACE_KEYWORDS`]: `allOf`, `not`,
/// `if`, …) that returns to a schema it started from, such as `{"$defs": {"a": {"$ref":
/// "#/$defs/a"}}}` or `{"not": {"$ref": "#"}}`. Evaluating one never ends; the JSON Schema core
/// spec calls such infinite recursive nesting undefined, and validators answer differently
/// (`jsonschema` counts re-entry as valid, `boon` as an error), so the oracles do not count their
/// disagreement on such a schema against the join.
pub fn has_cycle_without_progress(root: &Value) -> bool {
    let resources = Resources::of(root);
    // Depth-first over schema nodes by address, with an explicit stack (no recursion on input):
    // `false` while a node is on the current path, `true` once all its successors are done.
    let mut state: HashMap<*const Value, bool> = HashMap::new();
    for &start in &resources.nodes {
        if state.contains_key(&std::ptr::from_ref(start)) {
            continue;
        }
        state.insert(start, false);
        // The current path: each node with the successors not yet visited.
        let mut path = vec![(start, resources.in_place_successors(start).into_iter())];
        while let Some((node, successors)) = path.last_mut() {
            if let Some(next) = successors.next() {
                match state.get(&std::ptr::from_ref(next)) {
                    Some(false) => return true,
                    Some(true) => {}
                    None => {
                        state.insert(next, false);
                        path.push((next, resources.in_place_successors(next).into_iter()));
                    }
                }
            } else {
                state.insert(*node, true);
                path.pop();
            }
        }
    }
    false
}

/// The schema nodes of a document, each with the resource it belongs to: the nearest enclosing
/// subschema with a non-fragment `$id` (an embedded resource, against which its `#...`
/// references resolve), or the root.
struct Resources<'a> {
    /// Every schema node, in walk order.
    nodes: Vec<&'a Value>,
    /// The resource of each node, by address.
    resource: HashMap<*const Value, &'a Value>,
    /// The embedded resources by their id.
    by_id: HashMap<&'a str, &'a Value>,
    /// The keyword that names a resource in the document's draft (`id` in draft-04).
    id_keyword: &'static str,
}

impl<'a> Resources<'a> {
    fn of(root: &'a Value) -> Resources<'a> {
        let mut nodes = Vec::new();
        crate::keywords::walk_pruned(root, &mut |node| {
            nodes.push(node);
            true
        });
        let id_keyword = id_keyword(root);
        let mut by_id = HashMap::new();
        let mut resource = HashMap::new();
        // Walk order puts an outer resource before the ones inside it, so an inner resource's
        // marks overwrite its parent's.
        for &node in &nodes {
            let id = node.get(id_keyword).and_then(Value::as_str);
            let embedded = std::ptr::eq(node, root) || id.is_some_and(|id| !id.starts_with('#'));
            if !embedded {
                continue;
            }
            if let Some(id) = id {
                by_id.insert(id.trim_end_matches('#'), node);
            }
            crate::keywords::walk_pruned(node, &mut |inner| {
                resource.insert(std::ptr::from_ref(inner), node);
                true
            });
        }
        Resources {
            nodes,
            resource,
            by_id,
            id_keyword,
        }
    }

    /// The schemas `node` applies to the same instance: its in-place applicators' subschemas and
    /// its `$ref`'s target (a fragment against `node`'s resource, an absolute reference against
    /// the embedded resource with that `$id`).
    fn in_place_successors(&self, node: &'a Value) -> Vec<&'a Value> {
        let Value::Object(map) = node else {
            return Vec::new();
        };
        let mut next: Vec<&Value> = crate::keywords::IN_PLACE_KEYWORDS
            .iter()
            .filter_map(|keyword| {
                map.get(*keyword)
                    .map(|v| crate::keywords::subschemas(keyword, v))
            })
            .flatten()
            .collect();
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return next;
        };
        let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let resource = if base.is_empty() {
            self.resource.get(&std::ptr::from_ref(node)).copied()
        } else {
            self.by_id.get(base).copied()
        };
        let target = resource.and_then(|r| resolve_in(r, &format!("#{fragment}"), self.id_keyword));
        if let Some(target) = target {
            next.push(target);
        }
        next
    }
}

/// `text` with every `%XX` escape decoded (a URI fragment's spelling of a JSON pointer).
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(h, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An absolute URI that two different schema resources of `root` declare (`$id`, draft-04 `id`),
/// if any: which one a reference to it means is undefined, and validators pick differently
/// (SPEC §6 decision 67), so such an original is not judgeable. Every subschema keyword counts,
/// `if`/`then`/`else` under draft-04 and draft-06 too, where they are data: the judge's resolver
/// (`referencing`) indexes an id there all the same, and then reads a reference to it
/// differently from the spec and from the core (found by `reports/soak.sh`, seed 27). Only ids
/// written as absolute URIs are compared.
pub fn shared_resource_uri(root: &Value) -> Option<String> {
    let id_keyword = id_keyword(root);
    let mut seen: HashMap<&str, &Value> = HashMap::new();
    let mut shared = None;
    crate::keywords::walk_pruned(root, &mut |node| {
        if let Some(id) = node.get(id_keyword).and_then(Value::as_str)
            && id.contains("://")
        {
            let id = id.trim_end_matches('#');
            match seen.get(id) {
                Some(first) if **first != *node => shared = Some(id.to_owned()),
                Some(_) => {}
                None => {
                    seen.insert(id, node);
                }
            }
        }
        shared.is_none()
    });
    shared
}

/// A JSON pointer token (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A JSON pointer as a URI fragment (percent-encoded where a fragment cannot hold it as is).
pub fn fragment_of(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for b in pointer.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn plain_name_fragments_resolve_to_the_root_resources_anchors() {
        let root = json!({
            "$defs": {
                "a": {"$anchor": "here", "type": "integer"},
                "b": {"$id": "#old", "type": "string"},
                "c": {"$id": "http://example.com/other", "$defs": {
                    "d": {"$anchor": "inner", "type": "null"}
                }}
            }
        });
        assert_eq!(resolve(&root, "#here"), Some(&root["$defs"]["a"]));
        assert_eq!(resolve(&root, "#old"), Some(&root["$defs"]["b"]));
        assert_eq!(
            resolve(&root, "#inner"),
            None,
            "an embedded resource's anchor"
        );
        assert_eq!(resolve(&root, "#missing"), None);
        let schema = json!({"$ref": "#here"});
        let doc = json!({"$defs": {"x": {"$anchor": "here", "const": 1}}, "allOf": [schema]});
        assert_eq!(follow(&doc, &doc["allOf"][0]), &doc["$defs"]["x"]);
    }

    #[test]
    fn resolves_local_encoded_and_chained_references() {
        let root = json!({"$defs": {"a b": {"$ref": "#/$defs/c"}, "c": {"type": "string"}},
                          "x": {"$ref": "#/$defs/a%20b"}, "loop": {"$ref": "#/loop"}});
        assert_eq!(resolve(&root, "#"), Some(&root));
        assert_eq!(resolve(&root, "#/$defs/a%20b"), Some(&root["$defs"]["a b"]));
        assert_eq!(resolve(&root, "other.json#/x"), None);
        assert_eq!(follow(&root, &root["x"]), &json!({"type": "string"}));
        assert_eq!(follow(&root, &root["loop"]), &root["loop"]);
    }

    #[test]
    fn cycles_through_in_place_applicators_make_no_progress() {
        // From the open-world disagreements (`flatjoin check`, default seed): a definition that is
        // its own `$ref`, a property that re-enters itself through `then`, an anchor that names
        // itself, a two-step chain through `oneOf`, and the root under `not`.
        for cyclic in [
            json!({"$defs": {"a": {"$ref": "#/$defs/a"}}}),
            json!({"properties": {"x": {"if": true, "then": {"$ref": "#/properties/x"}}}}),
            json!({"$defs": {"a": {"$ref": "#here", "$anchor": "here"}}}),
            json!({"properties": {"x": {"oneOf": [{"$ref": "#/$defs/b"}, {"const": 1}]}},
                   "$defs": {"b": {"$ref": "#/properties/x"}}}),
            json!({"not": {"$ref": "#"}}),
            json!({"dependentSchemas": {"k": {"allOf": [{"$ref": "#"}]}}}),
            // Inside an embedded resource, `#/...` is that resource's own pointer.
            json!({"properties": {"p": {"$id": "https://flatjoin.invalid/e",
                   "$defs": {"inner": {"$ref": "#/$defs/inner"}},
                   "allOf": [{"$ref": "#/$defs/inner"}]}}}),
            json!({"$defs": {"e": {"$id": "https://flatjoin.invalid/e", "not": {"$ref": "#"}}}}),
            json!({"$defs": {"e": {"$id": "https://flatjoin.invalid/e",
                   "anyOf": [{"$ref": "https://flatjoin.invalid/e#/anyOf/0"}]}}}),
            // Draft-04 names a resource and an anchor with `id` (the seed-20261211 hunt's
            // unexplained disagreements: an embedded resource's cycle read as the root's
            // unresolved pointer).
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                   "additionalProperties": {"id": "https://flatjoin.invalid/e",
                   "definitions": {"inner": {"$ref": "#/definitions/inner"}},
                   "allOf": [{"$ref": "#/definitions/inner"}]}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                   "definitions": {"a": {"id": "#here", "allOf": [{"$ref": "#here"}]}}}),
        ] {
            assert!(has_cycle_without_progress(&cyclic), "{cyclic}");
        }
        // Recursion through a property, an item or `additionalProperties` moves into the
        // instance; a reference reached twice without a cycle (a diamond) is no cycle either.
        for progressing in [
            json!({"properties": {"next": {"$ref": "#"}}}),
            json!({"items": {"$ref": "#"}}),
            json!({"$defs": {"t": {"additionalProperties": {"$ref": "#/$defs/t"}}},
                   "$ref": "#/$defs/t"}),
            json!({"allOf": [{"$ref": "#/$defs/i"}, {"$ref": "#/$defs/i"}],
                   "$defs": {"i": {"type": "integer"}}}),
            json!({"$ref": "#/$defs/missing"}),
            // The embedded resource's `#/$defs/inner` is its own, not the root's.
            json!({"$defs": {"inner": {"$ref": "#/properties/p"}},
                   "properties": {"p": {"$id": "https://flatjoin.invalid/e",
                   "$defs": {"inner": {"type": "integer"}}, "$ref": "#/$defs/inner"}}}),
            // In draft-04 `$id` is no keyword: the pointer is the root's, which has no cycle.
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                   "definitions": {"inner": {"type": "integer"}},
                   "properties": {"p": {"$id": "https://flatjoin.invalid/e",
                   "definitions": {"inner": {"$ref": "#/definitions/inner"}},
                   "allOf": [{"$ref": "#/definitions/inner"}]}}}),
            json!(true),
        ] {
            assert!(!has_cycle_without_progress(&progressing), "{progressing}");
        }
    }

    /// Two different resources under one URI are found; the same resource twice is not; an `id`
    /// inside draft-04's `then` counts too, since the judge's resolver indexes it (SPEC §6
    /// decision 67).
    #[test]
    fn shared_resource_uris_are_found_wherever_the_resolver_indexes_ids() {
        let r =
            |inner: serde_json::Value| json!({"$id": "https://x.invalid/r", "$defs": {"i": inner}});
        let doc = json!({"anyOf": [r(json!(true)), r(json!(false))]});
        assert_eq!(
            shared_resource_uri(&doc).as_deref(),
            Some("https://x.invalid/r")
        );
        assert_eq!(
            shared_resource_uri(&json!({"anyOf": [r(json!(true)), r(json!(true))]})),
            None
        );
        let draft04 = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "properties": {"a": {"id": "https://x.invalid/r", "type": "string"}},
            "then": {"id": "https://x.invalid/r", "type": "integer"}
        });
        assert_eq!(
            shared_resource_uri(&draft04).as_deref(),
            Some("https://x.invalid/r")
        );
        let mut draft07 = draft04.clone();
        draft07["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        draft07["properties"]["a"] = json!({"$id": "https://x.invalid/r", "type": "string"});
        draft07["then"] = json!({"$id": "https://x.invalid/r", "type": "integer"});
        assert_eq!(
            shared_resource_uri(&draft07).as_deref(),
            Some("https://x.invalid/r")
        );
    }
}
