//! The repair step after projection (SPEC §6 decisions 3–4): keeping local `$ref`s valid. A
//! reference into the branches or folded siblings of a flattened union is redirected to a hoisted
//! copy of its target, projected by calling back into the [`Projector`] (so the copy is flattened
//! too); root definitions that the original referenced and nothing references any more are pruned.

use std::collections::VecDeque;

use serde_json::{Map, Value};
use smallvec::{SmallVec, smallvec};

use super::share::{self, Sharing};
use super::{Projector, SIBLING_KEYWORDS};
use crate::error::Error;
use crate::fast_path::{self, FastPath};
use crate::fasthash::{FastMap, FastSet};
use crate::keywords;
use crate::pointer;

/// Repairs references in the projected document `out` and prunes unreferenced definitions.
/// `rewritten` holds the places of the sites flattened so far, where the caller has them.
pub(super) fn repair(
    out: &mut Value,
    projector: &mut Projector<'_>,
    mut rewritten: Rewritten,
) -> Result<(), Error> {
    if projector.facts.ref_targets.is_empty() {
        return Ok(());
    }
    // Where no reference of the original crosses a flattened union (and every local one
    // resolved, so each one the walk reads — under keywords the draft has — is among
    // `ref_targets`), the walk would redirect nothing and hoist nothing: only the pruning is left
    // (SPEC §6 decision 84).
    rewritten.update(&projector.sites);
    let facts = &projector.facts;
    let mut hoisted = Vec::new();
    if !fast_path::taken(FastPath::RepairSkip)
        || facts.local_ref_unresolved
        || facts
            .ref_targets
            .iter()
            .any(|target| rewritten.crosses(target))
    {
        hoisted = redirect(out, projector, rewritten)?;
    }
    if let Value::Object(root) = out {
        prune(
            root,
            &projector.facts.ref_targets,
            &hoisted,
            projector.sharing.as_ref(),
        );
    }
    Ok(())
}

/// Redirects every local `$ref` of `out` that crosses a flattened union to a hoisted copy of
/// its target, projected, and puts the copies under the root's definitions; their names.
fn redirect(
    out: &mut Value,
    projector: &mut Projector<'_>,
    rewritten: Rewritten,
) -> Result<Vec<String>, Error> {
    let container = super::container_name(projector.document);
    // Names the hoisted definitions must not take: every entry the document's containers hold.
    let taken: FastSet<String> = ["$defs", "definitions"]
        .iter()
        .filter_map(|c| projector.document.get(*c).and_then(Value::as_object))
        .chain(
            ["$defs", "definitions"]
                .iter()
                .filter_map(|c| out.get(*c).and_then(Value::as_object)),
        )
        .flat_map(|defs| defs.keys().cloned())
        .collect();
    let mut repairer = Repairer {
        projector,
        container,
        names: Names { taken, next: 1 },
        hoisted: FastMap::default(),
        new_defs: Vec::new(),
        rewritten,
    };
    // Worklist of values whose references still need checking: the document, then each hoisted
    // definition as it is created.
    repairer.rewrite(out)?;
    let mut i = 0;
    while i < repairer.new_defs.len() {
        let mut value = std::mem::take(&mut repairer.new_defs[i].1);
        repairer.rewrite(&mut value)?;
        repairer.new_defs[i].1 = value;
        i += 1;
    }
    let new_defs = repairer.new_defs;
    let names = new_defs.iter().map(|(name, _)| name.clone()).collect();
    if let Value::Object(root) = out
        && !new_defs.is_empty()
    {
        let defs = root
            .entry(container.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            for (name, value) in new_defs {
                defs.insert(name, value);
            }
        }
    }
    Ok(names)
}

/// Whether some `$ref` of the document targets a place the flattened unions rewrite (where none
/// does, the repair projects no hoisted copy), and those places, for the repair.
pub(super) fn redirects_any(projector: &Projector<'_>) -> (bool, Rewritten) {
    let mut rewritten = Rewritten::default();
    rewritten.update(&projector.sites);
    let any = projector
        .facts
        .ref_targets
        .iter()
        .any(|target| rewritten.crosses(target));
    (any, rewritten)
}

/// What the flattened unions rewrite, as pointers into the original: under each site, its union
/// keyword and the sibling object keywords that fold into every branch (`properties`,
/// `patternProperties`, …, SPEC §2.1), whose flat-object counterparts are joined, so a place under
/// them may be gone (a sibling property joined to `false` loses its `$defs`). Kept in step with
/// `Projector::sites`, which grows when a hoisted copy is projected; held as the sites with their
/// union keywords (no pointer written per place), one map lookup per token of a reference
/// instead of a scan of every site.
#[derive(Default)]
pub(super) struct Rewritten {
    sites: FastMap<String, SmallVec<[&'static str; 1]>>,
    sites_seen: usize,
}

impl Rewritten {
    fn update(&mut self, sites: &[(String, &'static str)]) {
        self.sites
            .reserve(sites.len().saturating_sub(self.sites_seen));
        for (site, keyword) in sites.iter().skip(self.sites_seen) {
            match self.sites.get_mut(site.as_str()) {
                Some(keywords) if !keywords.contains(keyword) => keywords.push(keyword),
                Some(_) => {}
                None => {
                    self.sites.insert(site.clone(), smallvec![*keyword]);
                }
            }
        }
        self.sites_seen = sites.len();
    }

    /// Whether `target` is one of the places or lies under one: a site, then a token that is
    /// its union keyword or a sibling object keyword. Tokens are escaped, so every `/` of
    /// `target` ends a token (the keywords hold no `/` or `~`: their escaped form is their own).
    fn crosses(&self, target: &str) -> bool {
        target.match_indices('/').any(|(i, _)| {
            let Some(keywords) = self.sites.get(&target[..i]) else {
                return false;
            };
            let rest = &target[i + 1..];
            let token = rest.find('/').map_or(rest, |end| &rest[..end]);
            keywords.contains(&token) || SIBLING_KEYWORDS.contains(&token)
        })
    }
}

/// Fresh names for hoisted definitions: `flatjoin_ref_N`, skipping every name the document
/// already uses (an author's own `flatjoin_ref_1` is never overwritten).
struct Names {
    taken: FastSet<String>,
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

/// The state of one repair: where hoisted copies go, the names they took, and the copies not yet
/// rewritten themselves (a worklist, so a copy's own references are repaired too).
struct Repairer<'p, 'a> {
    projector: &'p mut Projector<'a>,
    container: &'static str,
    names: Names,
    /// Hoisted target pointer → the definition name it was given.
    hoisted: FastMap<String, String>,
    new_defs: Vec<(String, Value)>,
    rewritten: Rewritten,
}

impl Repairer<'_, '_> {
    /// Redirects every local `$ref` in `value` that crosses a flattened union to a hoisted copy.
    fn rewrite(&mut self, value: &mut Value) -> Result<(), Error> {
        let Value::Object(map) = value else {
            return Ok(());
        };
        self.rewritten.update(&self.projector.sites);
        if let Some(c) = share::place_of(map) {
            return self.rewrite_shared(c);
        }
        if let Some(Value::String(reference)) = keywords::get(map, "$ref")
            && let Some(target) = pointer::local_ref(reference)
            && self.rewritten.crosses(&target)
        {
            let name = self.hoist(target)?;
            let new_ref =
                pointer::to_ref(&pointer::push(&pointer::push("", self.container), &name));
            map.insert("$ref".into(), Value::String(new_ref));
        }
        // A keyword the draft does not have holds data (SPEC §6 decision 35): a `$ref` there is
        // no reference, and is left as written, as the projection leaves it.
        let draft = self.projector.facts.draft;
        let mut result = Ok(());
        keywords::subschemas_mut(map, |place, child| {
            if result.is_ok() && draft.knows(place.keyword()) {
                result = self.rewrite(child);
            }
        });
        result
    }

    /// Repairs the join of shared group `c` (SPEC §6 decision 73), which a placeholder stands
    /// for: once, and again only when more sites were flattened since (a hoisted copy's
    /// projection adds its own), so a reference in it is redirected as it would be at each place.
    fn rewrite_shared(&mut self, c: usize) -> Result<(), Error> {
        let sites = self.projector.sites.len();
        let Some(group) = self
            .projector
            .sharing
            .as_mut()
            .and_then(|s| s.groups.get_mut(c))
        else {
            return Ok(());
        };
        if group.repaired_at == Some(sites) {
            return Ok(());
        }
        group.repaired_at = Some(sites);
        let Some(body) = &group.body else {
            return Ok(());
        };
        // A join without a `$ref` of its own has nothing to redirect but what the shared joins
        // inside it hold: those are repaired in its order, without copying it.
        let mut inner = Vec::new();
        if !holds_ref(body, &mut inner) {
            for d in inner {
                self.rewrite_shared(d)?;
            }
            return Ok(());
        }
        let mut body = Value::Object(body.clone());
        self.rewrite(&mut body)?;
        if let Value::Object(body) = body
            && let Some(sharing) = self.projector.sharing.as_mut()
            && let Some(group) = sharing.groups.get_mut(c)
        {
            group.body = Some(body);
            self.projector.digests.forget(c);
        }
        Ok(())
    }

    /// The name of `target`'s hoisted copy, projecting it the first time it is asked for.
    fn hoist(&mut self, target: String) -> Result<String, Error> {
        if let Some(name) = self.hoisted.get(&target) {
            return Ok(name.clone());
        }
        let name = self.names.fresh();
        let projected = self.projector.project_at(&target)?;
        self.hoisted.insert(target, name.clone());
        self.new_defs.push((name.clone(), projected));
        Ok(name)
    }
}

/// Whether `map` or a subschema of it holds a `$ref`, not looking into the shared joins whose
/// placeholders stand there: those are collected into `inner`, in order.
fn holds_ref(map: &Map<String, Value>, inner: &mut Vec<usize>) -> bool {
    if keywords::has(map, "$ref") {
        return true;
    }
    let mut found = false;
    keywords::subschemas(map, |_, child| {
        if found {
            return;
        }
        let Value::Object(child) = child else { return };
        match share::place_of(child) {
            Some(d) => inner.push(d),
            None => found = holds_ref(child, inner),
        }
    });
    found
}

/// Collects the local reference targets of every `$ref` in a value, reading a shared join's
/// placeholder as its join (SPEC §6 decision 73), each join once: what it references is reached
/// once it is.
struct Refs<'s> {
    sharing: Option<&'s Sharing>,
    seen: FastSet<usize>,
    /// The references already read, as written: a document refers to a few definitions from
    /// many places (every site of a shared join refers to its definition, SPEC §6 decision 86),
    /// and what one reaches is reached once.
    read: FastSet<&'s str>,
}

impl<'s> Refs<'s> {
    fn collect(&mut self, value: &'s Value, out: &mut Vec<String>) {
        let Value::Object(map) = value else { return };
        if let Some(c) = share::place_of(map) {
            let body = self
                .sharing
                .and_then(|s| s.groups.get(c))
                .and_then(|g| g.body.as_ref());
            if let Some(body) = body
                && self.seen.insert(c)
            {
                keywords::subschemas(body, |_, child| self.collect(child, out));
            }
            return;
        }
        if let Some(reference) = keywords::get(map, "$ref").and_then(Value::as_str)
            && self.read.insert(reference)
            && let Some(target) = pointer::local_ref(reference)
        {
            out.push(target);
        }
        keywords::subschemas(map, |_, child| self.collect(child, out));
    }
}

/// Removes root definitions that the original referenced and the presentation no longer does,
/// and the copies the walk hoisted (`hoisted`, made for a reference) that nothing reaches any
/// more: one made for a reference in a definition pruned here (SPEC §6 decision 85).
fn prune(
    root: &mut Map<String, Value>,
    originally_referenced: &crate::fasthash::FastSet<String>,
    hoisted: &[String],
    sharing: Option<&Sharing>,
) {
    for container in ["$defs", "definitions"] {
        let mut refs = Refs {
            sharing,
            seen: FastSet::default(),
            read: FastSet::default(),
        };
        let Some(Value::Object(defs)) = root.get(container) else {
            continue;
        };
        let prefix = format!("{}/", pointer::push("", container));
        let entry_of = |target: &str| -> Option<String> {
            let rest = target.strip_prefix(prefix.as_str())?;
            let token = rest.split('/').next()?;
            Some(pointer::unescape(token).into_owned())
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
                refs.collect(child, &mut outside);
            }
        });
        let once_referenced: FastSet<String> = originally_referenced
            .iter()
            .filter_map(|t| entry_of(t))
            .chain(hoisted.iter().cloned())
            .collect();
        let mut reached: FastSet<String> = FastSet::default();
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
            if reached.contains(&name) {
                continue;
            }
            if let Some(def) = defs.get(&name) {
                let mut inner = Vec::new();
                refs.collect(def, &mut inner);
                queue.extend(inner.iter().filter_map(|t| entry_of(t)));
            }
            reached.insert(name);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn du() -> Value {
        json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}, "x": {"$defs": {"d": {"type": "string"}}}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]})
    }

    /// The presentation (and its diagnostics) with the redirecting walk skipped where no
    /// reference crosses a flattened union is the one the walk makes: on every schema of the
    /// JSON-Schema-Test-Suite and the corpus dialects, and on documents whose references cross
    /// a union, do not, or do not resolve.
    #[test]
    fn skipping_the_walk_where_nothing_crosses_changes_nothing() {
        let mut docs = crate::test_corpus::schemas();
        let crossing = [
            json!({"properties": {"u": du(), "r": {"$ref": "#/properties/u/oneOf/0"}}}),
            json!({"properties": {"u": du(), "r": {"$ref": "#/properties/u/oneOf/0/properties/x/$defs/d"}}}),
            json!({"properties": {"u": du(), "r": {"$ref": "#/properties/u"}}}),
            json!({"$defs": {"U": du()}, "properties": {"u": {"$ref": "#/$defs/U"}, "r": {"$ref": "#/$defs/U/oneOf/1"}}}),
            json!({"$id": "https://example.com/s", "$defs": {"a": {"$anchor": "a", "type": "string"}},
                   "properties": {"u": du(), "r": {"$ref": "#/properties/u/oneOf/7"}, "s": {"$ref": "#a"}}}),
            json!({"$id": "https://example.com/s", "$defs": {"a": {"$anchor": "a", "type": "string"}},
                   "properties": {"u": du(), "r": {"$ref": "#/properties/u/oneOf/0"}, "s": {"$ref": "#a"}}}),
            // Regression (open-world case 1722 of the default seed, minimized): a `$ref` under
            // a keyword draft-04 does not have (`if`) is data, not among the reference targets;
            // the walk once redirected it to a hoisted copy the skip did not make (decision 84).
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                   "anyOf": [
                       {"type": "object", "properties": {"kind": {"enum": ["a"]}, "x": {"type": "string"}}, "required": ["kind"]},
                       {"$ref": "#/definitions/B"}
                   ],
                   "definitions": {"B": {"type": "object", "required": ["kind"], "properties": {
                       "kind": {"enum": ["b"]}, "y": {"if": {"$ref": "#/anyOf/0/properties/x"}}}}}}),
        ];
        docs.extend(crossing.iter().cloned());
        let present = |doc: &Value| {
            crate::flatten(doc, &crate::Options::default())
                .map(|f| (f.schema.to_string(), format!("{:?}", f.diagnostics)))
                .map_err(|e| e.to_string())
        };
        let (mut skipped, mut walked) = (0, 0);
        for doc in &docs {
            let fast = present(doc);
            let whole = fast_path::without(FastPath::RepairSkip, || present(doc));
            assert_eq!(fast, whole, "{doc}");
            let Ok(facts) = crate::wellformed::check(doc) else {
                continue;
            };
            if facts.union_sites.is_empty() || facts.ref_targets.is_empty() {
                continue;
            }
            match fast {
                Ok((text, _)) if text.contains("flatjoin_ref_") => walked += 1,
                Ok(_) => skipped += 1,
                Err(_) => {}
            }
        }
        eprintln!("{walked} redirected, {skipped} skipped");
        assert!(walked >= 4, "{walked} documents had a reference redirected");
        assert!(skipped >= 20, "{skipped} documents skipped the walk");
    }

    /// The places as pointers written out (every site's keyword and sibling keywords under it),
    /// and a target crossing them when it is one or lies under one: what [`Rewritten`] answers
    /// without writing them.
    fn crosses_written_out(sites: &[(String, &'static str)], target: &str) -> bool {
        let places: Vec<String> = sites
            .iter()
            .flat_map(|(site, keyword)| {
                std::iter::once(*keyword)
                    .chain(SIBLING_KEYWORDS.iter().copied())
                    .map(|k| pointer::push(site, k))
            })
            .collect();
        places
            .iter()
            .any(|p| target == p || target.starts_with(&format!("{p}/")))
    }

    #[test]
    fn rewritten_places_are_the_sites_keywords_and_what_lies_under_them() {
        let sites: Vec<(String, &'static str)> = vec![
            ("/properties/a".into(), "oneOf"),
            ("/properties/a~1b".into(), "anyOf"),
            ("/$defs/M".into(), "anyOf"),
            ("/$defs/M".into(), "oneOf"),
        ];
        let targets = [
            "/properties/a/oneOf/0",
            "/properties/a/oneOf",
            "/properties/a/anyOf/0",
            "/properties/a/properties/x/$defs/y",
            "/properties/a/title",
            "/properties/a",
            "/properties/ab/oneOf/0",
            "/properties/a~1b/anyOf/1",
            "/properties/a~1b/oneOf/1",
            "/properties/a/b/anyOf/1",
            "/$defs/M/oneOf/2",
            "/$defs/M/anyOf",
            "/$defs/M/required",
            "/$defs/Mx/oneOf",
            "/$defs",
            "",
        ];
        let mut rewritten = Rewritten::default();
        rewritten.update(&sites[..2]);
        for t in targets {
            assert_eq!(
                rewritten.crosses(t),
                crosses_written_out(&sites[..2], t),
                "{t} after two sites"
            );
        }
        rewritten.update(&sites);
        for t in targets {
            assert_eq!(rewritten.crosses(t), crosses_written_out(&sites, t), "{t}");
        }
        assert!(rewritten.crosses("/$defs/M/oneOf/2"));
        assert!(!rewritten.crosses("/properties/a/title"));
        // The root as a site: everything under its keywords.
        let root = vec![(String::new(), "oneOf")];
        let mut rewritten = Rewritten::default();
        rewritten.update(&root);
        for t in targets {
            assert_eq!(
                rewritten.crosses(t),
                crosses_written_out(&root, t),
                "{t} (root)"
            );
        }
    }
}
