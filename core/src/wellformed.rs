//! Well-formedness of the input, checked before projection, and the facts the projection needs
//! (which pointers are `$ref` targets, whether `unevaluatedProperties` is used anywhere).

use std::ops::Range;

use serde_json::{Map, Value};

use crate::canonical::DataDigester;
use crate::draft::Draft;
use crate::error::{Error, ErrorKind};
use crate::fasthash::{FastMap, FastSet};
use crate::keywords::{self, Slot, Trail};
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
    /// Whether some `$ref` is not a fragment (`#…`): read against a root `$id`, it needs URI
    /// resolution too ([`Facts::needs_normalizing`]).
    pub ref_not_fragment: bool,
    /// Whether some node has a subschema under `not` or `if`, or under `contains` beside
    /// `maxContains` (keywords its draft has): the places that freeze whatever they hold
    /// whether or not a union is flattened (`polarity::may_freeze`).
    pub freezing_keyword: bool,
    /// The indexes in `union_sites` of the sites that have a `oneOf`.
    pub one_of_sites: Vec<usize>,
    /// Each union site's [`identify::site_key`] by `keys` (`None` where it has none), in the
    /// order of `union_sites`: made where the walk stands on the site's node, so identification
    /// and the sharing plan find the node only for a site not written like an earlier one.
    ///
    /// [`identify::site_key`]: crate::identify::site_key
    pub site_keys: Vec<Option<u128>>,
    /// The digester of `site_keys`, its seeds drawn once per document.
    pub keys: DataDigester,
    /// The first `#/…` reference that does not resolve from the root (reported unless
    /// `uses_uri_resolution`).
    unresolved: Option<Error>,
    /// Whether some `#/…` reference does not resolve from the root (then not every local
    /// reference's target is in `ref_targets`).
    pub local_ref_unresolved: bool,
}

impl Facts {
    /// Whether [`crate::refs::normalize`] rewrites `document`, which these facts describe: the
    /// answer of its own walk (`refs::detect`), read from this one (the same nodes, the same
    /// keywords asked about), so a well-formed document that needs no normalizing is walked once
    /// for both.
    pub(crate) fn needs_normalizing(&self, document: &Value) -> bool {
        !self.union_sites.is_empty()
            && (self.uses_uri_resolution
                || (self.ref_not_fragment && document.get(self.draft.id_keyword()).is_some()))
    }
}

/// Checks `document` and collects its [`Facts`].
///
/// Recursion here is bounded: [`check_depth`] runs first, and every recursive step descends at
/// least one JSON level.
pub(crate) fn check(document: &Value) -> Result<Facts, Error> {
    check_depth(document)?;
    check_bounded(document)
}

/// [`check`] of a document whose nesting is already known to be within [`crate::MAX_DEPTH`]:
/// one that [`crate::parse`] read (`serde_json`'s recursion limit is that depth), or a part of a
/// document already checked (a manifest's tool). The same answer without scanning the depth again.
pub(crate) fn check_bounded(document: &Value) -> Result<Facts, Error> {
    let mut facts = Facts {
        draft: Draft::of(document),
        ..Facts::default()
    };
    let mut trail = Trail::from(String::new());
    let mut seen = Seen {
        skip_copies: true,
        ..Seen::default()
    };
    walk(document, document, &mut trail, &mut facts, &mut seen)?;
    match facts.unresolved.take() {
        Some(e) if !facts.uses_uri_resolution => Err(e),
        unresolved => {
            facts.local_ref_unresolved = unresolved.is_some();
            Ok(facts)
        }
    }
}

fn wrong(trail: &Trail<'_>, keyword: &str, expected: &'static str) -> Error {
    wrong_at(&trail.pointer(), keyword, expected)
}

fn wrong_at(ptr: &str, keyword: &str, expected: &'static str) -> Error {
    Error::new(
        pointer::push(ptr, keyword),
        ErrorKind::WrongType {
            keyword: keyword.to_owned(),
            expected,
        },
    )
}

/// `trail` is where the walk stands, written out only where a pointer is needed (a union site, an
/// error).
/// `resolved` holds the local references already resolved (a document refers to a few
/// definitions from many places: each is looked up once).
/// What the walk remembers: the references already resolved, and the union sites walked by key
/// ([`crate::identify::site_key`]) with the range of `facts.union_sites` their subtree added.
#[derive(Default)]
struct Seen<'d> {
    resolved: FastSet<&'d str>,
    sites: FastMap<u128, Range<usize>>,
    /// Off only in tests, which compare the facts with and without the skip.
    skip_copies: bool,
    /// How many sites were taken as walked.
    copies: usize,
}

/// Registers the union sites under a site written like an earlier one (the same key: the same
/// subtree as written, the site's own annotations aside) without walking its subtree again: the
/// earlier site's walk found every fault the subtree has (it came first in document order, and a
/// fault ends the walk), resolved its references (against the same root, through the same
/// pointers) and met its keywords; what the copy adds is its nested sites, under its own pointer
/// with the earlier ones' keys. Returns whether the subtree was taken as walked.
fn copied_site(facts: &mut Facts, seen: &Seen<'_>, key: Option<u128>, site: usize) -> bool {
    let Some(nested) = key.and_then(|k| seen.sites.get(&k)).cloned() else {
        return false;
    };
    let first = nested.start - 1;
    for i in nested {
        let suffix = &facts.union_sites[i][facts.union_sites[first].len()..];
        let ptr = format!("{}{suffix}", facts.union_sites[site]);
        if facts.one_of_sites.binary_search(&i).is_ok() {
            facts.one_of_sites.push(facts.union_sites.len());
        }
        facts.union_sites.push(ptr);
        facts.site_keys.push(facts.site_keys[i]);
    }
    true
}

fn walk<'d>(
    document: &'d Value,
    node: &'d Value,
    trail: &mut Trail<'d>,
    facts: &mut Facts,
    seen: &mut Seen<'d>,
) -> Result<(), Error> {
    let map = match node {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(Error::new(trail.pointer(), ErrorKind::NotASchema)),
    };
    if !facts.uses_uri_resolution
        && crate::refs::needs_uri_resolution(map, trail.at_root(), facts.draft.id_keyword())
    {
        facts.uses_uri_resolution = true;
    }
    check_keywords(document, map, trail, facts, &mut seen.resolved)?;
    let one_of = keywords::has(map, "oneOf");
    let mut site = None;
    if one_of || keywords::has(map, "anyOf") {
        if one_of {
            facts.one_of_sites.push(facts.union_sites.len());
        }
        let key = crate::identify::site_key(&facts.keys, map);
        let at = facts.union_sites.len();
        facts.union_sites.push(trail.pointer());
        facts.site_keys.push(key);
        if seen.skip_copies && copied_site(facts, seen, key, at) {
            seen.copies += 1;
            return Ok(());
        }
        site = key.map(|k| (k, at));
    }
    let mut result = Ok(());
    let draft = facts.draft;
    keywords::subschemas(map, |place, child| {
        // A keyword the draft does not have holds data, never evaluated (SPEC §6 decision 35).
        if result.is_ok() && draft.knows(place.keyword()) {
            let keyword = place.keyword();
            if matches!(keyword, "not" | "if")
                || (keyword == "contains" && keywords::has(map, "maxContains"))
            {
                facts.freezing_keyword = true;
            }
            trail.push(place);
            result = walk(document, child, trail, facts, seen);
            trail.pop();
        }
    });
    if let Some((key, at)) = site {
        seen.sites
            .entry(key)
            .or_insert(at + 1..facts.union_sites.len());
    }
    result
}

fn check_keywords<'d>(
    document: &'d Value,
    map: &'d Map<String, Value>,
    trail: &Trail<'_>,
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
                    return Err(wrong(trail, keyword, "a string or an array of strings"));
                }
            }
            "required" => {
                let ok = matches!(value, Value::Array(items) if items.iter().all(Value::is_string));
                if !ok {
                    return Err(wrong(trail, keyword, "an array of strings"));
                }
            }
            "enum" if !value.is_array() => return Err(wrong(trail, keyword, "an array")),
            "$ref" => {
                let Value::String(reference) = value else {
                    return Err(wrong(trail, keyword, "a string"));
                };
                if !reference.starts_with('#') {
                    facts.ref_not_fragment = true;
                }
                if resolved.contains(reference.as_str()) {
                    continue;
                }
                if let Some(target) = pointer::local_ref(reference) {
                    if pointer::get(document, &target).is_none() {
                        if facts.unresolved.is_none() {
                            facts.unresolved = Some(Error::new(
                                pointer::push(&trail.pointer(), "$ref"),
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
                return Err(wrong(trail, keyword, "an array of schemas"));
            }
            Some(Slot::Map | Slot::MapOfSchemaOrNames) if !value.is_object() => {
                return Err(wrong(trail, keyword, "an object"));
            }
            Some(Slot::MapOfSchemaOrNames) => {
                if let Value::Object(deps) = value {
                    for (name, dep) in deps {
                        if let Value::Array(names) = dep
                            && !names.iter().all(Value::is_string)
                        {
                            return Err(wrong_at(
                                &pointer::push(&trail.pointer(), keyword),
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

    /// The walk writes its trail out only where a pointer is needed: each one is the place's
    /// pointer from the root, tokens escaped, indexes and names in their steps.
    #[test]
    fn pointers_written_where_needed_name_the_place() {
        let pointer_of = |doc: Value| {
            check(&doc)
                .map(|_| String::new())
                .unwrap_or_else(|e| e.pointer)
        };
        assert_eq!(
            pointer_of(json!({"properties": {"a/b": {"items": [true, {"type": 5}]}}})),
            "/properties/a~1b/items/1/type"
        );
        assert_eq!(
            pointer_of(json!({"$defs": {"m~n": {"oneOf": [{}, 3]}}})),
            "/$defs/m~0n/oneOf/1"
        );
        assert_eq!(
            pointer_of(json!({"not": {"properties": {"x": {"$ref": "#/$defs/missing"}}}})),
            "/not/properties/x/$ref"
        );
        assert_eq!(
            pointer_of(json!({"dependentSchemas": {"k": {"required": [1]}}})),
            "/dependentSchemas/k/required"
        );
        let facts = check(&json!({
            "properties": {"m~n": {"anyOf": [{}, {"oneOf": [{}, {}]}]}},
            "items": {"oneOf": [{}, {}]}
        }))
        .expect("well-formed");
        assert_eq!(
            facts.union_sites,
            ["/properties/m~0n", "/properties/m~0n/anyOf/1", "/items"]
        );
    }

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

    /// One walk of `doc` from its root, with or without [`copied_site`]'s skip.
    fn walked(doc: &Value, skip_copies: bool) -> (Result<(), Error>, Facts, usize) {
        let mut facts = Facts {
            draft: Draft::of(doc),
            ..Facts::default()
        };
        let mut seen = Seen {
            skip_copies,
            ..Seen::default()
        };
        let result = walk(
            doc,
            doc,
            &mut Trail::from(String::new()),
            &mut facts,
            &mut seen,
        );
        (result, facts, seen.copies)
    }

    /// The facts with and without [`copied_site`]'s skip, the site keys as the partition they
    /// make (each digester draws its own seeds).
    fn both_ways(doc: &Value) -> (String, String) {
        let facts_of = |skip_copies: bool| {
            let (result, facts, _) = walked(doc, skip_copies);
            let partition: Vec<Option<usize>> = facts
                .site_keys
                .iter()
                .map(|k| {
                    k.map(|k| {
                        facts
                            .site_keys
                            .iter()
                            .position(|x| *x == Some(k))
                            .unwrap_or(0)
                    })
                })
                .collect();
            let mut targets: Vec<&String> = facts.ref_targets.iter().collect();
            targets.sort();
            format!(
                "{result:?} {:?} {:?} {partition:?} {targets:?} {} {} {} {} {:?}",
                facts.union_sites,
                facts.one_of_sites,
                facts.uses_unevaluated,
                facts.uses_uri_resolution,
                facts.ref_not_fragment,
                facts.freezing_keyword,
                facts.unresolved,
            )
        };
        (facts_of(false), facts_of(true))
    }

    /// A site written like an earlier one is not walked again, and the facts are those of the
    /// full walk: on repeated sites with nested sites (`oneOf` and `anyOf`), unresolved and
    /// freezing keywords, faults after a copy, and on every corpus schema.
    #[test]
    fn sites_written_alike_are_walked_once_with_the_same_facts() {
        let site = json!({"anyOf": [
            {"oneOf": [{"$ref": "#/$defs/a"}, {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "null"}]}]},
            {"not": {"$ref": "#/$defs/missing"}}
        ]});
        let mut copies = Map::new();
        for i in 0..4 {
            let mut s = site.clone();
            s["title"] = json!(format!("copy {i}"));
            copies.insert(format!("p{i}"), s);
        }
        let doc = json!({
            "$defs": {"a": {"type": "object"}, "b": {"items": {"oneOf": [{}, {}]}}},
            "properties": copies,
            "items": [site.clone(), {"properties": {"x~/": site}}],
        });
        let mut schemas = vec![doc.clone()];
        let mut faulty = doc.clone();
        faulty["items"][1]["properties"]["y"] = json!({"required": 3});
        schemas.push(faulty);
        let mut resolved = doc;
        resolved["$defs"]["missing"] = json!(false);
        schemas.push(resolved);
        schemas.extend(crate::test_corpus::schemas());
        let mut copied = Vec::new();
        for schema in &schemas {
            let (full, skipping) = both_ways(schema);
            assert_eq!(full, skipping, "{schema}");
            copied.push(walked(schema, true).2);
        }
        // Five copies of the site in each constructed document (the fault comes after them).
        assert_eq!(copied[..3], [5, 5, 5]);
        assert!(copied.iter().sum::<usize>() >= 20, "{copied:?}");
    }

    #[test]
    fn facts() {
        let doc = json!({"$defs": {"a": {}}, "anyOf": [{"$ref": "#/$defs/a"}], "unevaluatedProperties": false});
        let facts = check(&doc).expect("well-formed");
        assert!(!facts.union_sites.is_empty() && facts.uses_unevaluated);
        assert!(facts.ref_targets.contains("/$defs/a"));
    }

    /// [`Facts::needs_normalizing`] answers as `refs::detect`'s own walk does, on every schema of
    /// the JSON-Schema-Test-Suite (every draft: `$id`, anchors, relative and remote references,
    /// unions) and every corpus dialect file that is well-formed, and on a few made to tell the
    /// clauses apart.
    #[test]
    fn needs_normalizing_answers_as_the_normalizing_walk() {
        let mut schemas: Vec<Value> = vec![
            json!({"$id": "https://x/s.json", "oneOf": [{"$ref": "t.json"}, {}]}),
            json!({"$id": "https://x/s.json", "oneOf": [{"$ref": "#/$defs/a"}, {}],
                "$defs": {"a": {}}}),
            json!({"oneOf": [{"$ref": "t.json"}, {}]}),
            json!({"oneOf": [{"$anchor": "a"}, {}]}),
            json!({"$id": "https://x/s.json", "$ref": "t.json"}),
        ];
        schemas.extend(crate::test_corpus::schemas());
        assert!(schemas.len() > 1000, "{} schemas", schemas.len());
        let (mut checked, mut normalizing) = (0, 0);
        for schema in &schemas {
            let Ok(facts) = check(schema) else { continue };
            let detected = crate::refs::detect(schema, Draft::of(schema));
            let expected = detected.needs && detected.has_union;
            assert_eq!(facts.needs_normalizing(schema), expected, "{schema}");
            checked += 1;
            normalizing += usize::from(expected);
        }
        assert!(
            checked > 1000 && normalizing >= 10,
            "{checked} {normalizing}"
        );
    }
}
