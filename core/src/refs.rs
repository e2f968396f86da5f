//! Keeping local `$ref`s valid after flattening: a reference into the branches of a flattened
//! union is redirected to a hoisted copy of its (projected) target, and root `$defs` entries that
//! nothing references any more are pruned.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use crate::draft::Draft;
use crate::error::{Error, ErrorKind};
use crate::keywords;
use crate::pointer;
use crate::project::Projector;

/// Repairs references in the projected document `out` and prunes unreferenced definitions.
pub(crate) fn repair(out: &mut Value, projector: &mut Projector<'_>) -> Result<(), Error> {
    if projector.facts.ref_targets.is_empty() {
        return Ok(());
    }
    let container = container_name(projector.document);
    // Names the hoisted definitions must not take: every entry the document's containers hold.
    let taken: HashSet<String> = ["$defs", "definitions"]
        .iter()
        .filter_map(|c| projector.document.get(*c).and_then(Value::as_object))
        .chain(
            ["$defs", "definitions"]
                .iter()
                .filter_map(|c| out.get(*c).and_then(Value::as_object)),
        )
        .flat_map(|defs| defs.keys().cloned())
        .collect();
    let mut names = Names { taken, next: 1 };
    let mut hoisted: HashMap<String, String> = HashMap::new();
    let mut new_defs: Vec<(String, Value)> = Vec::new();
    // Worklist of values whose references still need checking: the document, then each hoisted
    // definition as it is created.
    rewrite(
        out,
        projector,
        container,
        &mut names,
        &mut hoisted,
        &mut new_defs,
    )?;
    let mut i = 0;
    while i < new_defs.len() {
        let mut value = std::mem::take(&mut new_defs[i].1);
        rewrite(
            &mut value,
            projector,
            container,
            &mut names,
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

/// The root definitions container to hoist into: the one the document already has, else the
/// draft's own ([`Draft::definitions_container`]: `definitions` up to draft-07).
fn container_name(document: &Value) -> &'static str {
    if document.get("$defs").is_some() {
        return "$defs";
    }
    if document.get("definitions").is_some() {
        return "definitions";
    }
    Draft::of(document).definitions_container()
}

/// Whether `target` (a pointer into the original) lies inside what a flattened union rewrites:
/// its branches, or the sibling object keywords that fold into every branch (`properties`,
/// `patternProperties`, …, SPEC §2.1), whose flat-object counterparts are joined, so a place under
/// them may be gone (a sibling property joined to `false` loses its `$defs`).
fn crosses_flattened(target: &str, sites: &[(String, &'static str)]) -> bool {
    sites.iter().any(|(site, keyword)| {
        std::iter::once(*keyword)
            .chain(crate::project::SIBLING_KEYWORDS.iter().copied())
            .any(|k| {
                let inner = pointer::push(site, k);
                target == inner || target.starts_with(&format!("{inner}/"))
            })
    })
}

/// Fresh names for hoisted definitions: `flatjoin_ref_N`, skipping every name the document
/// already uses (an author's own `flatjoin_ref_1` is never overwritten).
struct Names {
    taken: HashSet<String>,
    next: usize,
}

impl Names {
    fn fresh(&mut self) -> String {
        loop {
            let name = format!("flatjoin_ref_{}", self.next);
            self.next += 1;
            if !self.taken.contains(&name) {
                return name;
            }
        }
    }
}

fn rewrite(
    value: &mut Value,
    projector: &mut Projector<'_>,
    container: &str,
    names: &mut Names,
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
                let name = names.fresh();
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
            result = rewrite(child, projector, container, names, hoisted, new_defs);
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
        let once_referenced: HashSet<String> = originally_referenced
            .iter()
            .filter_map(|t| entry_of(t))
            .collect();
        let mut reached: HashSet<String> = HashSet::new();
        let mut queue: VecDeque<String> = outside.iter().filter_map(|t| entry_of(t)).collect();
        // Entries nothing referenced in the original stay (decision 4), so what they reference
        // must stay too: they are roots of the reach as well.
        queue.extend(
            defs.keys()
                .filter(|k| !once_referenced.contains(*k))
                .cloned(),
        );
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

// ---------------------------------------------------------------------------------------------
// Resolution by URI: embedded resources (`$id`), `$anchor`, the draft-07 `$ref`-sibling rule.
// ---------------------------------------------------------------------------------------------

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
    if URI_KEYWORDS.iter().any(|k| crate::keywords::has(map, k)) {
        return true;
    }
    match crate::keywords::get(map, id_keyword).and_then(Value::as_str) {
        Some(id) => !is_root || id.starts_with('#'),
        None => false,
    }
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
struct Detected {
    needs: bool,
    has_union: bool,
}

fn detect(document: &Value, declared: Draft) -> Detected {
    let id_keyword = declared.id_keyword();
    let mut found = Detected::default();
    let root_has_id = document.get(id_keyword).is_some();
    let mut stack: Vec<(&Value, bool)> = vec![(document, true)];
    while let Some((node, is_root)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        if needs_uri_resolution(map, is_root, id_keyword)
            || (root_has_id
                && map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|r| !r.starts_with('#')))
        {
            found.needs = true;
        }
        if map.contains_key("oneOf") || map.contains_key("anyOf") {
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
    let id_keyword = declared.id_keyword();
    let found = detect(document, declared);
    if !found.needs || !found.has_union {
        return Ok(None);
    }
    crate::parse::check_depth(document)?;
    let draft = declared.referencing();
    let registry_error = |e: referencing::Error| {
        Error::new(
            "",
            ErrorKind::InvalidSchema {
                message: e.to_string(),
            },
        )
    };
    let root_uri = match document.get(id_keyword).and_then(Value::as_str) {
        Some(id) if !id.starts_with('#') => {
            let base = referencing::uri::from_str(DEFAULT_BASE).map_err(registry_error)?;
            referencing::uri::resolve_against(&base.borrow(), id)
                .map_err(registry_error)?
                .as_str()
                .trim_end_matches('#')
                .to_owned()
        }
        _ => DEFAULT_BASE.to_owned(),
    };
    let registry = referencing::Registry::new()
        .retriever(NoFetch)
        .retrieve_known_draft_meta_schemas(false)
        .draft(draft)
        .add(&root_uri, document)
        .and_then(referencing::RegistryBuilder::prepare)
        .map_err(registry_error)?;
    // Where each value of the document lives.
    let mut location: HashMap<usize, String> = HashMap::new();
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
    let root_base = referencing::uri::from_str(&root_uri).map_err(registry_error)?;
    let root_resolver = registry.resolver(root_base);
    // First pass: the resources the document itself holds (their base URIs).
    let mut resources: HashSet<String> = HashSet::new();
    let mut edits: Vec<(String, Edit)> = Vec::new();
    let mut stack = vec![(document, String::new(), root_resolver.clone(), draft)];
    let mut refs = Vec::new();
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
        resources.insert(without_fragment(resolver.base_uri().as_str()).to_owned());
        let is_root = ptr.is_empty();
        let strip: Vec<&'static str> = [id_keyword, "$anchor", "$dynamicAnchor"]
            .into_iter()
            .filter(|k| {
                map.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|v| !is_root || *k != id_keyword || v.starts_with('#'))
            })
            .collect();
        if !strip.is_empty() {
            edits.push((ptr.clone(), Edit::Strip(strip)));
        }
        for keyword in ["$dynamicRef", "$recursiveRef"] {
            if let Some(reference) = map.get(keyword).and_then(Value::as_str) {
                return Err(Error::new(
                    pointer::push(&ptr, keyword),
                    ErrorKind::UnsupportedRef {
                        keyword: keyword.to_owned(),
                        reference: reference.to_owned(),
                    },
                ));
            }
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            refs.push((ptr.clone(), reference.clone(), resolver.clone()));
            if Draft::from_referencing(draft).ref_overrides_siblings() {
                // Draft-07: the siblings of `$ref` are ignored, so are references inside them.
                continue;
            }
        }
        let reading = Draft::from_referencing(draft);
        keywords::subschemas(map, |place, child| {
            if !reading.knows(place.keyword()) {
                return;
            }
            let mut child_ptr = ptr.clone();
            place.push_onto(&mut child_ptr);
            stack.push((child, child_ptr, resolver.clone(), draft));
        });
    }
    // Second pass: each reference to its target.
    for (ptr, reference, resolver) in refs {
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
        let new_ref = if resources.contains(without_fragment(absolute.as_str())) {
            let resolved = resolver.lookup(&reference).map_err(|_| unresolvable())?;
            let target = location
                .get(&(std::ptr::from_ref(resolved.contents()) as usize))
                .ok_or_else(unresolvable)?;
            fragment_ref(target)
        } else if absolute.as_str().starts_with(DEFAULT_BASE) {
            // A relative remote reference with no base to resolve it against: as written.
            reference.clone()
        } else {
            absolute.as_str().to_owned()
        };
        if new_ref != reference {
            edits.push((ptr, Edit::Ref(new_ref)));
        }
    }
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
    Ok(Some(out))
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
