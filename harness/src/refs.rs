//! The harness's one `$ref` resolver (local references only: the harness never fetches), used by
//! the sampler and the oracles. Independent of the core's, like the rest of the oracles.

use serde_json::Value;

/// How many `$ref` hops [`follow`] takes at most (a cycle of references ends there).
pub const MAX_HOPS: usize = 8;

/// Resolves a local `$ref` against the document root: `#`, a JSON pointer `#/...`
/// (percent-encoded or not), or a plain-name fragment `#name` — the root resource's
/// `"$anchor": "name"` (2019-09 on) or `"$id": "#name"` (draft-07). An anchor inside an embedded
/// resource (a subschema with its own non-fragment `$id`) belongs to that resource, not the root's.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(fragment);
    if decoded.starts_with('/') {
        return root.pointer(&decoded);
    }
    anchor(root, &decoded)
}

/// The node of the root resource named `name` by `$anchor` or by a draft-07 `$id: "#name"`.
fn anchor<'a>(root: &'a Value, name: &str) -> Option<&'a Value> {
    let mut found = None;
    crate::keywords::walk_pruned(root, &mut |node| {
        if found.is_some() {
            return false;
        }
        let id = node.get("$id").and_then(Value::as_str);
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

/// Follows `$ref` chains (at most [`MAX_HOPS`]) from `schema` to a node that is not a resolvable
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

fn percent_decode(text: &str) -> String {
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
}
