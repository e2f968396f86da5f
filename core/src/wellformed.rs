//! Well-formedness of the input, checked before projection, and the facts the projection needs
//! (which pointers are `$ref` targets, whether `unevaluatedProperties` is used anywhere).

use serde_json::{Map, Value};

use crate::draft::Draft;
use crate::error::{Error, ErrorKind};
use crate::fasthash::FastSet;
use crate::keywords::{self, Slot};
use crate::parse::check_depth;
use crate::pointer;

/// What the pre-pass learned about a well-formed document.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// Pointers that some local `$ref` targets.
    pub ref_targets: crate::fasthash::FastSet<String>,
    /// Whether `unevaluatedProperties` appears in any schema of the document (SPEC §2.5).
    pub uses_unevaluated: bool,
    /// Pointers of the schemas that have `oneOf` or `anyOf`, in walk order (none: the
    /// projection is the identity).
    pub union_sites: Vec<String>,
    /// Whether some reference must be read by URI (embedded `$id`, anchors): then `#/…` is not
    /// necessarily a pointer from the root, and its resolvability is `refs::normalize`'s to judge.
    pub uses_uri_resolution: bool,
    /// The draft the document is read by ([`Draft::of`]).
    pub draft: Draft,
    /// The first `#/…` reference that does not resolve from the root (reported unless
    /// `uses_uri_resolution`).
    unresolved: Option<Error>,
}

/// Checks `document` and collects its [`Facts`].
///
/// Recursion here is bounded: [`check_depth`] runs first, and every recursive step descends at
/// least one JSON level.
pub(crate) fn check(document: &Value) -> Result<Facts, Error> {
    check_depth(document)?;
    let mut facts = Facts {
        draft: Draft::of(document),
        ..Facts::default()
    };
    let mut ptr = String::new();
    let mut resolved = FastSet::default();
    walk(document, document, &mut ptr, &mut facts, &mut resolved)?;
    match facts.unresolved.take() {
        Some(e) if !facts.uses_uri_resolution => Err(e),
        _ => Ok(facts),
    }
}

fn wrong(ptr: &str, keyword: &str, expected: &'static str) -> Error {
    Error::new(
        pointer::push(ptr, keyword),
        ErrorKind::WrongType {
            keyword: keyword.to_owned(),
            expected,
        },
    )
}

/// `ptr` is one buffer reused for the whole walk: each step appends its tokens and truncates
/// them afterwards, so no pointer is allocated unless an error needs it.
/// `resolved` holds the local references already resolved (a document refers to a few
/// definitions from many places: each is looked up once).
fn walk<'d>(
    document: &'d Value,
    node: &'d Value,
    ptr: &mut String,
    facts: &mut Facts,
    resolved: &mut FastSet<&'d str>,
) -> Result<(), Error> {
    let map = match node {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(Error::new(ptr.clone(), ErrorKind::NotASchema)),
    };
    if !facts.uses_uri_resolution
        && crate::refs::needs_uri_resolution(map, ptr.is_empty(), facts.draft.id_keyword())
    {
        facts.uses_uri_resolution = true;
    }
    check_keywords(document, map, ptr, facts, resolved)?;
    if keywords::has(map, "oneOf") || keywords::has(map, "anyOf") {
        facts.union_sites.push(ptr.clone());
    }
    let mut result = Ok(());
    let draft = facts.draft;
    keywords::subschemas(map, |place, child| {
        // A keyword the draft does not have holds data, never evaluated (SPEC §6 decision 35).
        if result.is_ok() && draft.knows(place.keyword()) {
            let len = ptr.len();
            place.push_onto(ptr);
            result = walk(document, child, ptr, facts, resolved);
            ptr.truncate(len);
        }
    });
    result
}

fn check_keywords<'d>(
    document: &'d Value,
    map: &'d Map<String, Value>,
    ptr: &str,
    facts: &mut Facts,
    resolved: &mut FastSet<&'d str>,
) -> Result<(), Error> {
    for (keyword, value) in map {
        match keyword.as_str() {
            "type" => {
                let ok = match value {
                    Value::String(_) => true,
                    Value::Array(items) => items.iter().all(Value::is_string),
                    _ => false,
                };
                if !ok {
                    return Err(wrong(ptr, keyword, "a string or an array of strings"));
                }
            }
            "required" => {
                let ok = matches!(value, Value::Array(items) if items.iter().all(Value::is_string));
                if !ok {
                    return Err(wrong(ptr, keyword, "an array of strings"));
                }
            }
            "enum" if !value.is_array() => return Err(wrong(ptr, keyword, "an array")),
            "$ref" => {
                let Value::String(reference) = value else {
                    return Err(wrong(ptr, keyword, "a string"));
                };
                if resolved.contains(reference.as_str()) {
                    continue;
                }
                if let Some(target) = pointer::local_ref(reference) {
                    if pointer::get(document, &target).is_none() {
                        if facts.unresolved.is_none() {
                            facts.unresolved = Some(Error::new(
                                pointer::push(ptr, "$ref"),
                                ErrorKind::UnresolvableRef {
                                    reference: reference.clone(),
                                },
                            ));
                        }
                        continue;
                    }
                    facts.ref_targets.insert(target);
                    resolved.insert(reference);
                }
            }
            "unevaluatedProperties" => facts.uses_unevaluated = true,
            _ => {}
        }
        match keywords::slot(keyword) {
            Some(Slot::Array) if !value.is_array() => {
                return Err(wrong(ptr, keyword, "an array of schemas"));
            }
            Some(Slot::Map | Slot::MapOfSchemaOrNames) if !value.is_object() => {
                return Err(wrong(ptr, keyword, "an object"));
            }
            Some(Slot::MapOfSchemaOrNames) => {
                if let Value::Object(deps) = value {
                    for (name, dep) in deps {
                        if let Value::Array(names) = dep
                            && !names.iter().all(Value::is_string)
                        {
                            return Err(wrong(
                                &pointer::push(ptr, keyword),
                                name,
                                "a schema or an array of strings",
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_are_located() {
        let doc = json!({"properties": {"a": {"required": "x"}}});
        let err = check(&doc).expect_err("wrong type");
        assert_eq!(err.pointer, "/properties/a/required");
        let doc = json!({"oneOf": {"type": "object"}});
        assert_eq!(check(&doc).expect_err("array").pointer, "/oneOf");
        let doc = json!({"properties": {"a": 3}});
        let err = check(&doc).expect_err("not a schema");
        assert_eq!(
            (err.pointer.as_str(), err.kind),
            ("/properties/a", ErrorKind::NotASchema)
        );
    }

    #[test]
    fn unresolvable_local_ref() {
        let doc = json!({"items": {"$ref": "#/$defs/missing"}});
        let err = check(&doc).expect_err("unresolvable");
        assert_eq!(err.pointer, "/items/$ref");
        // Remote references are never fetched, and are not an error.
        assert!(check(&json!({"$ref": "https://example.com/x.json"})).is_ok());
    }

    #[test]
    fn facts() {
        let doc = json!({"$defs": {"a": {}}, "anyOf": [{"$ref": "#/$defs/a"}], "unevaluatedProperties": false});
        let facts = check(&doc).expect("well-formed");
        assert!(!facts.union_sites.is_empty() && facts.uses_unevaluated);
        assert!(facts.ref_targets.contains("/$defs/a"));
    }
}
