//! The harness's one `$ref` resolver (local references only: the harness never fetches), used by
//! the sampler and the oracles. Independent of the core's, like the rest of the oracles.

use serde_json::Value;

/// How many `$ref` hops [`follow`] takes at most (a cycle of references ends there).
pub const MAX_HOPS: usize = 8;

/// Resolves a local `$ref` (`#`, `#/...`, percent-encoded or not) against the document root.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(fragment);
    root.pointer(&decoded)
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
