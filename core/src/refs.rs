//! The one `$ref` resolver, run before projection (SPEC §6 decisions 15–16): a document whose
//! references need URI resolution (embedded `$id` resources, anchors, a root `$id` with relative
//! references) and that holds a union is rewritten by [`normalize`] so every reference into it is
//! a pointer from the root, resolved by `referencing` (`jsonschema`'s own resolver); everything
//! after it follows `#/…` pointers only. [`needs_uri_resolution`] is the per-object test, shared
//! with the well-formedness pre-pass.

use serde_json::{Map, Value};

use crate::draft::Draft;
use crate::error::{Error, ErrorKind};
use crate::fasthash::FastMap;
use crate::keywords;
use crate::pointer;

/// Keywords that make a `$ref` mean something other than a pointer from the document root.
const URI_KEYWORDS: [&str; 4] = ["$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef"];

/// Whether a schema object needs URI resolution (RFC 3986 base URIs, anchors) for the references
/// of its document to be read correctly: an embedded resource (`$id` below the root, or a
/// draft-07 fragment `$id` anywhere), an anchor, a dynamic reference.
/// Called on every schema object of every document, so the lookups scan instead of hashing
/// ([`crate::keywords::get`]): five SipHash lookups per object were 6.5 % of the whole process's
/// instructions on 1,001 nested union sites.
///
/// `id_keyword` is the draft's base-URI keyword ([`Draft::id_keyword`]: `id` in draft-04).
pub(crate) fn needs_uri_resolution(
    map: &Map<String, Value>,
    is_root: bool,
    id_keyword: &str,
) -> bool {
    let embeds = |id: Option<&Value>| match id.and_then(Value::as_str) {
        Some(id) => !is_root || id.starts_with('#'),
        None => false,
    };
    // One pass over the keys of a small object (this runs for every node).
    if map.len() <= 16 {
        let mut id = None;
        for (k, v) in map {
            if URI_KEYWORDS.contains(&k.as_str()) {
                return true;
            }
            if k == id_keyword {
                id = Some(v);
            }
        }
        return embeds(id);
    }
    URI_KEYWORDS.iter().any(|k| map.contains_key(*k)) || embeds(map.get(id_keyword))
}

/// The base URI of a document without a root `$id` (the one `jsonschema` uses too).
const DEFAULT_BASE: &str = "json-schema:///";

/// Answers every retrieval with an empty schema, so the registry can be built over a document
/// whose remote references are never fetched; [`normalize`] tells remote targets apart itself.
struct NoFetch;

impl referencing::Retrieve for NoFetch {
    fn retrieve(
        &self,
        _: &referencing::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Value::Object(Map::new()))
    }
}

/// What the detection walk found.
#[derive(Default)]
pub(crate) struct Detected {
    pub(crate) needs: bool,
    pub(crate) has_union: bool,
}

pub(crate) fn detect(document: &Value, declared: Draft) -> Detected {
    let id_keyword = declared.id_keyword();
    let mut found = Detected::default();
    let root_has_id = document.get(id_keyword).is_some();
    let mut stack: Vec<(&Value, bool)> = vec![(document, true)];
    while let Some((node, is_root)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        if needs_uri_resolution(map, is_root, id_keyword)
            || (root_has_id
                && keywords::get(map, "$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|r| !r.starts_with('#')))
        {
            found.needs = true;
        }
        // `keywords::has`, not the map's own lookup (SipHash): this runs for every node.
        if keywords::has(map, "oneOf") || keywords::has(map, "anyOf") {
            found.has_union = true;
        }
        if found.needs && found.has_union {
            break;
        }
        keywords::subschemas(map, |place, child| {
            if declared.knows(place.keyword()) {
                stack.push((child, false));
            }
        });
    }
    found
}

/// Encodes a JSON pointer as a URI fragment `$ref` (`#` + the pointer, percent-encoding what a
/// URI fragment cannot hold).
fn fragment_ref(ptr: &str) -> String {
    let mut out = String::with_capacity(ptr.len() + 1);
    out.push('#');
    for b in ptr.bytes() {
        let c = b as char;
        if c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@/?".contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Resolves every `$ref` of a document that uses embedded resources or anchors with
/// `jsonschema`'s own resolver (`referencing`), and returns a copy in which each reference into the
/// document is a pointer from its root (`#/…`), each remote one is absolute, and the embedded
/// `$id`s and anchors that only served resolution are gone: what the join reads (it follows
/// `#/…` pointers only) means what the original meant. `None` when nothing needs it (no
/// embedded identifiers, or no union to flatten: then the presentation is the input itself).
///
/// A `$dynamicRef` or `$recursiveRef` in such a document is refused with its pointer: its target
/// depends on the evaluation path, which a static join cannot follow. A reference that does not
/// resolve is refused with its pointer. Nothing is fetched.
pub(crate) fn normalize(document: &Value) -> Result<Option<Value>, Error> {
    let declared = Draft::of(document);
    let found = detect(document, declared);
    if !found.needs || !found.has_union {
        return Ok(None);
    }
    crate::parse::check_depth(document)?;
    let root_uri = root_uri(document, declared.id_keyword())?;
    let registry = build_registry(document, &root_uri, declared)?;
    let location = locate(document);
    let root_base = referencing::uri::from_str(&root_uri).map_err(registry_error)?;
    let walk = walk_resources(document, registry.resolver(root_base), declared)?;
    let mut edits = walk.edits;
    for reference in walk.refs {
        if let Some(edit) = rewrite_ref(reference, &walk.resources, &location)? {
            edits.push(edit);
        }
    }
    Ok(Some(apply(document, edits)))
}

/// An error of the registry (building it, or parsing a base URI), at the root.
fn registry_error(e: referencing::Error) -> Error {
    Error::new("", invalid(e))
}

/// The document's base URI: its root `$id` resolved against [`DEFAULT_BASE`], without an empty
/// fragment; [`DEFAULT_BASE`] when it has none (or only a fragment).
fn root_uri(document: &Value, id_keyword: &str) -> Result<String, Error> {
    Ok(match document.get(id_keyword).and_then(Value::as_str) {
        Some(id) if !id.starts_with('#') => {
            let base = referencing::uri::from_str(DEFAULT_BASE).map_err(registry_error)?;
            referencing::uri::resolve_against(&base.borrow(), id)
                .map_err(registry_error)?
                .as_str()
                .trim_end_matches('#')
                .to_owned()
        }
        _ => DEFAULT_BASE.to_owned(),
    })
}

/// The registry over the borrowed document alone: no meta-schemas, nothing fetched.
fn build_registry<'d>(
    document: &'d Value,
    root_uri: &str,
    declared: Draft,
) -> Result<referencing::Registry<'d>, Error> {
    referencing::Registry::new()
        .retriever(NoFetch)
        .retrieve_known_draft_meta_schemas(false)
        .draft(declared.referencing())
        .add(root_uri, document)
        .and_then(referencing::RegistryBuilder::prepare)
        .map_err(registry_error)
}

/// Where each value of the document lives: its JSON pointer, by address.
fn locate(document: &Value) -> FastMap<usize, String> {
    let mut location: FastMap<usize, String> = FastMap::default();
    let mut stack: Vec<(&Value, String)> = vec![(document, String::new())];
    while let Some((node, ptr)) = stack.pop() {
        match node {
            Value::Object(map) => {
                for (k, v) in map {
                    stack.push((v, pointer::push(&ptr, k)));
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    stack.push((v, pointer::push_index(&ptr, i)));
                }
            }
            _ => {}
        }
        location.insert(std::ptr::from_ref(node) as usize, ptr);
    }
    location
}

/// What the walk over the document's resources found.
struct Walk<'r, 'd> {
    /// The resources the document itself holds: each base URI (without fragment) with the schema
    /// object that declares it, the first the walk reaches. Only schema positions of the draft
    /// in scope count: an `id` inside a keyword the draft does not read (draft-04's `then`) is
    /// data, even where `referencing` indexes it as a resource (SPEC §6 decision 66).
    resources: FastMap<String, &'d Value>,
    /// The identifier keywords to strip.
    edits: Vec<(String, Edit)>,
    /// Each `$ref`: its schema object's pointer, the reference, and the resolver in scope there.
    refs: Vec<(String, String, referencing::Resolver<'r>)>,
}

/// Walks the schema objects the draft in scope reads, each with the resolver of its resource:
/// records the resources, the identifiers to strip and the references; refuses dynamic ones.
fn walk_resources<'r, 'd>(
    document: &'d Value,
    root_resolver: referencing::Resolver<'r>,
    declared: Draft,
) -> Result<Walk<'r, 'd>, Error> {
    let id_keyword = declared.id_keyword();
    let mut walk = Walk {
        resources: FastMap::default(),
        edits: Vec::new(),
        refs: Vec::new(),
    };
    let mut stack = vec![(
        document,
        String::new(),
        root_resolver,
        declared.referencing(),
    )];
    while let Some((node, ptr, resolver, draft)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        let draft = if map.contains_key(id_keyword) {
            draft.detect(node)
        } else {
            draft
        };
        let resolver = resolver
            .in_subresource(draft.create_resource_ref(node))
            .map_err(|e| Error::new(pointer::push(&ptr, id_keyword), invalid(e)))?;
        let base = without_fragment(resolver.base_uri().as_str()).to_owned();
        match walk.resources.get(&base) {
            None => {
                walk.resources.insert(base, node);
            }
            // Two different schema resources under one URI: which one a reference means is
            // undefined, and validators pick differently (SPEC §6 decision 67).
            Some(first)
                if map
                    .get(id_keyword)
                    .and_then(Value::as_str)
                    .is_some_and(|id| !id.starts_with('#'))
                    && *first != node =>
            {
                return Err(Error::new(
                    pointer::push(&ptr, id_keyword),
                    ErrorKind::InvalidSchema {
                        message: format!(
                            "another, different schema resource declares {base} too; which one a reference means is undefined"
                        ),
                    },
                ));
            }
            Some(_) => {}
        }
        let strip = identifiers_to_strip(map, ptr.is_empty(), id_keyword);
        if !strip.is_empty() {
            walk.edits.push((ptr.clone(), Edit::Strip(strip)));
        }
        refuse_dynamic(map, &ptr)?;
        let reading = Draft::from_referencing(draft);
        if let Some(Value::String(reference)) = map.get("$ref") {
            walk.refs
                .push((ptr.clone(), reference.clone(), resolver.clone()));
            if reading.ref_overrides_siblings() {
                // Draft-07: the siblings of `$ref` are ignored, so are references inside them.
                continue;
            }
        }
        keywords::subschemas(map, |place, child| {
            if !reading.knows(place.keyword()) {
                return;
            }
            let mut child_ptr = ptr.clone();
            place.push_onto(&mut child_ptr);
            stack.push((child, child_ptr, resolver.clone(), draft));
        });
    }
    Ok(walk)
}

/// The identifier keywords of a schema object that only served resolution: its anchors, and its
/// `$id` unless it is the root's own base URI (a root fragment `$id` goes too).
fn identifiers_to_strip(
    map: &Map<String, Value>,
    is_root: bool,
    id_keyword: &'static str,
) -> Vec<&'static str> {
    [id_keyword, "$anchor", "$dynamicAnchor"]
        .into_iter()
        .filter(|k| {
            map.get(*k)
                .and_then(Value::as_str)
                .is_some_and(|v| !is_root || *k != id_keyword || v.starts_with('#'))
        })
        .collect()
}

/// Refuses a `$dynamicRef` or `$recursiveRef` (SPEC §6 decision 16), at its pointer.
fn refuse_dynamic(map: &Map<String, Value>, ptr: &str) -> Result<(), Error> {
    for keyword in ["$dynamicRef", "$recursiveRef"] {
        if let Some(reference) = map.get(keyword).and_then(Value::as_str) {
            return Err(Error::new(
                pointer::push(ptr, keyword),
                ErrorKind::UnsupportedRef {
                    keyword: keyword.to_owned(),
                    reference: reference.to_owned(),
                },
            ));
        }
    }
    Ok(())
}

/// The rewrite of one reference, if it changes: a target inside the document becomes its pointer
/// from the root, a remote one its absolute URI (a relative one with no base stays as written).
fn rewrite_ref(
    (ptr, reference, resolver): (String, String, referencing::Resolver<'_>),
    resources: &FastMap<String, &Value>,
    location: &FastMap<usize, String>,
) -> Result<Option<(String, Edit)>, Error> {
    let at = pointer::push(&ptr, "$ref");
    let unresolvable = || {
        Error::new(
            at.clone(),
            ErrorKind::UnresolvableRef {
                reference: reference.clone(),
            },
        )
    };
    let absolute = resolver
        .resolve_uri(&resolver.base_uri().borrow(), &reference)
        .map_err(|_| unresolvable())?;
    let new_ref = if let Some(resource) = resources.get(without_fragment(absolute.as_str())) {
        let resolved = resolver.lookup(&reference).map_err(|_| unresolvable())?;
        // A pointer fragment is followed from the resource the walk found (decision 66);
        // an anchor is `referencing`'s to find.
        let fragment = absolute.as_str().split_once('#').map_or("", |(_, f)| f);
        let contents = match pointer::local_ref(&format!("#{fragment}")) {
            Some(p) => pointer::get(resource, &p).ok_or_else(unresolvable)?,
            None => resolved.contents(),
        };
        let target = location
            .get(&(std::ptr::from_ref(contents) as usize))
            .ok_or_else(unresolvable)?;
        fragment_ref(target)
    } else if absolute.as_str().starts_with(DEFAULT_BASE) {
        // A relative remote reference with no base to resolve it against: as written.
        reference.clone()
    } else {
        absolute.as_str().to_owned()
    };
    Ok((new_ref != reference).then_some((ptr, Edit::Ref(new_ref))))
}

/// A copy of the document with the edits made.
fn apply(document: &Value, edits: Vec<(String, Edit)>) -> Value {
    let mut out = document.clone();
    for (ptr, edit) in edits {
        let Some(Value::Object(map)) = out.pointer_mut(&ptr) else {
            continue;
        };
        match edit {
            Edit::Strip(keys) => {
                for k in keys {
                    map.shift_remove(k);
                }
            }
            Edit::Ref(r) => {
                map.insert("$ref".into(), Value::String(r));
            }
        }
    }
    out
}

enum Edit {
    /// Remove these identifier keywords.
    Strip(Vec<&'static str>),
    /// Replace the `$ref`.
    Ref(String),
}

fn invalid(e: referencing::Error) -> ErrorKind {
    ErrorKind::InvalidSchema {
        message: e.to_string(),
    }
}

fn without_fragment(uri: &str) -> &str {
    uri.split('#').next().unwrap_or(uri)
}
