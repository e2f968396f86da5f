//! The hoisting of shared joins (SPEC §6 decision 73), a pass over the finished presentation:
//! every flat object of a shared union that stands, the same, at two or more places is written
//! once into the root definitions and referred to from each place, which keeps its own
//! annotations; one that stands once is put back in place. The places are counted in the
//! presentation as it will be written: a placeholder is a place of its group's join, and so is an
//! object written the same as a shared join without being one of its sites (a union written
//! inline once); what stands inside a flat object is counted once, however many places it has,
//! since it is written once, in place or hoisted (SPEC §6 decision 73).

use serde_json::{Map, Value};

use super::Projector;
use super::share::{
    DefinitionName, MARK, Numbering, definition_names, is_site_annotation, marked_key, place_of,
    with_body,
};
use crate::canonical::DataDigester;
use crate::fast_path::{self, FastPath};
use crate::fasthash::{FastMap, FastSet};
use crate::keywords;
use crate::wellformed::Facts;

impl Projector<'_> {
    /// Hoists the shared joins of `out` and removes every placeholder and mark; the diagnostics
    /// of the sites of a hoisted group (`sites_of`, by group) name the definition.
    pub(super) fn hoist_shared(&mut self, out: &mut Value, sites_of: &[Vec<String>]) {
        let Some(mut sharing) = self.sharing.take() else {
            return;
        };
        // A key's identity is its first group, the one its placeholders name.
        let mut ids = FastMap::default();
        for (i, g) in sharing.groups.iter().enumerate() {
            if g.body.is_some() {
                ids.entry(g.key).or_insert(i);
            }
        }
        // The numbering goes on from the projection's (the document's names and those given
        // to standing sites' joins taken), the presentation's names taken too. The identities
        // already referred to from standing sites keep their names (SPEC §6 decision 86): their
        // joins are defined at the first place the pass meets.
        let mut numbering = std::mem::take(&mut sharing.numbering);
        numbering.taken(definition_names(out));
        let names: FastMap<usize, DefinitionName> = std::mem::take(&mut sharing.direct_names)
            .into_iter()
            .collect();
        let mut hoist = Hoist {
            keys: &sharing.keys,
            bodies: sharing.groups.iter_mut().map(|g| g.body.take()).collect(),
            ids,
            counts: FastMap::default(),
            inner: FastMap::default(),
            copies: None,
            names,
            defined: FastSet::default(),
            defs: Vec::new(),
            numbering,
            group_names: FastMap::default(),
        };
        hoist.copies = copies_allowed(self.facts).then(|| hoist.shapes());
        hoist.count_root(out);
        // A site written as its reference at once is a place of its join, and what stands
        // inside that join stands once more only if nothing else put the join in place.
        for (&c, &n) in &sharing.direct_count {
            hoist.place(c, n);
        }
        // The root holds the definitions: it is never a flat object of its own.
        if let Value::Object(root) = out {
            keywords::subschemas_mut(root, |_, child| hoist.rewrite(child));
        }
        let Hoist {
            mut defs,
            group_names,
            ..
        } = hoist;
        // In number order: a join named at the projection is defined where the pass first
        // meets it, which may come after a join the pass names.
        defs.sort_by_key(|(n, ..)| *n);
        if let Value::Object(root) = out
            && !defs.is_empty()
            && let Value::Object(entries) = root
                .entry(sharing.container.to_owned())
                .or_insert_with(|| Value::Object(Map::new()))
        {
            entries.extend(defs.into_iter().map(|(_, name, body)| (name, body)));
        }
        // One pass over the diagnostics, not one per group: a site's definition by its pointer.
        let named: usize = group_names
            .keys()
            .map(|g| sites_of.get(*g).map_or(0, Vec::len))
            .sum();
        let mut definition_of: FastMap<&str, &String> =
            FastMap::with_capacity_and_hasher(named, Default::default());
        for (g, definition) in &group_names {
            for site in sites_of.get(*g).into_iter().flatten() {
                definition_of.insert(site.as_str(), definition);
            }
        }
        if !definition_of.is_empty() {
            for site in &mut self.diagnostics.flattened {
                if let Some(definition) = definition_of.get(site.pointer.as_str()) {
                    site.shared = Some((*definition).clone());
                }
            }
        }
    }
}

/// Whether `map` is a reference with nothing but a site's annotations beside it (a site written
/// as its reference at once, SPEC §6 decision 86): no placeholder, mark or subschema in it.
fn is_reference(map: &Map<String, Value>) -> bool {
    map.keys()
        .next()
        .is_some_and(|k| k == "$ref" && map.keys().skip(1).all(|k| is_site_annotation(k)))
}

/// One hoisting pass's state. A flat object's identity is its sharing key ([`marked_key`]),
/// numbered: a group's join by its group (the first group of each key, which is the one its
/// placeholders name), any other marked object after the groups.
struct Hoist<'k> {
    /// The digester of the sharing keys.
    keys: &'k DataDigester,
    /// Each group's join, by group: read while the places are counted, then taken where it is
    /// written out ([`Hoist::rewritten_body`]).
    bodies: Vec<Option<Map<String, Value>>>,
    /// Sharing key → identity.
    ids: FastMap<u128, usize>,
    /// Identity → the number of places it stands at in the presentation: a placeholder as its
    /// group's join, and what stands inside an identity counted once, however many places that
    /// identity has (it is written once: in place, or hoisted).
    counts: FastMap<usize, usize>,
    /// Identity → whether a placeholder, a marked object or a copy stands inside it, once it
    /// has been counted ([`Hoist::place`]).
    inner: FastMap<usize, bool>,
    /// The shapes of the groups' joins ([`Shapes`]), where an object written the same as a
    /// join without its mark (a union flattened on its own, the same flat object) may refer to
    /// it instead ([`copies_allowed`]); `None` where not.
    copies: Option<Shapes>,
    /// Identity → its definition's number, name and `$ref`.
    names: FastMap<usize, DefinitionName>,
    /// The identities whose definitions are written (a name given at the projection comes
    /// before its definition).
    defined: FastSet<usize>,
    /// The definitions written, with their numbers.
    defs: Vec<(usize, String, Value)>,
    /// The numbering of the definitions, gone on with from the projection's.
    numbering: Numbering,
    /// Group → the `$ref` its first hoisted object took.
    group_names: FastMap<usize, String>,
}

impl Hoist<'_> {
    fn id_of(&mut self, map: &Map<String, Value>) -> usize {
        let key = marked_key(self.keys, map);
        let next = self.bodies.len() + self.ids.len();
        *self.ids.entry(key).or_insert(next)
    }

    /// Counts the places of `root`'s flat objects ([`Hoist::count`]): the root itself is never
    /// one (it holds the definitions).
    fn count_root(&mut self, root: &Value) {
        if let Value::Object(map) = root {
            let mut found = false;
            keywords::subschemas(map, |_, child| self.count(child, &mut found));
        }
    }

    /// Adds the places of every marked object, placeholder and copy of a join ([`Hoist::copy_of`])
    /// in `value` to the counts; `found` is set when there is one.
    fn count(&mut self, value: &Value, found: &mut bool) {
        let Value::Object(map) = value else {
            return;
        };
        if is_reference(map) {
            return;
        }
        if let Some(c) = place_of(map) {
            *found = true;
            self.place(c, 1);
            return;
        }
        let id = if keywords::has(map, MARK) {
            Some(self.id_of(map))
        } else {
            self.copy_of(map)
        };
        let Some(id) = id else {
            keywords::subschemas(map, |_, child| self.count(child, found));
            return;
        };
        *found = true;
        *self.counts.entry(id).or_default() += 1;
        // What stands inside is counted at the identity's first place only: a later place
        // holds the same, and the identity is written out once.
        if !self.inner.contains_key(&id) {
            let mut inside = false;
            keywords::subschemas(map, |_, child| self.count(child, &mut inside));
            self.inner.insert(id, inside);
        }
    }

    /// Adds `n` places of group `c`'s join, and, the first time, what stands inside that join.
    fn place(&mut self, c: usize, n: usize) {
        *self.counts.entry(c).or_default() += n;
        if self.inner.contains_key(&c) {
            return;
        }
        let mut inside = false;
        // Out of its slot while its places are counted (a join cannot hold its own placeholder:
        // its group's join was finished before any placeholder of it was made).
        if let Some(body) = self.bodies.get_mut(c).and_then(Option::take) {
            keywords::subschemas(&body, |_, child| self.count(child, &mut inside));
            self.bodies[c] = Some(body);
        }
        self.inner.insert(c, inside);
    }

    /// The group identity of `map`, an object without mark written the same as a group's join
    /// (SPEC §6 decision 73: a union written inline once, whose flat object is a shared join),
    /// where copies may refer to it ([`Hoist::copies`]).
    fn copy_of(&self, map: &Map<String, Value>) -> Option<usize> {
        let shapes = self.copies.as_ref()?;
        let properties = properties_len(map);
        if !shapes.properties.contains(&properties)
            || !shapes.both.contains(&(keyword_count(map), properties))
        {
            return None;
        }
        let id = *self.ids.get(&marked_key(self.keys, map))?;
        (id < self.bodies.len()).then_some(id)
    }

    /// The shapes of the groups' joins.
    fn shapes(&self) -> Shapes {
        let both: FastSet<(usize, usize)> = self
            .bodies
            .iter()
            .flatten()
            .map(|b| (keyword_count(b), properties_len(b)))
            .collect();
        let mut properties: Vec<usize> = both.iter().map(|(_, p)| *p).collect();
        properties.sort_unstable();
        properties.dedup();
        Shapes { properties, both }
    }

    /// Group `c`'s join with what stands inside it rewritten (the same at every place: what it
    /// holds is counted and named the same everywhere). It is written out once per group, so it
    /// is taken, not copied: where the join stands twice or more its first place defines it and
    /// the others refer to it, and where it stands once there is no other place (a placeholder
    /// inside a join counts once per place of that join, and the join is written out once).
    fn rewritten_body(&mut self, c: usize) -> Map<String, Value> {
        let mut body = self
            .bodies
            .get_mut(c)
            .and_then(Option::take)
            .unwrap_or_default();
        // A join with no placeholder, marked object or copy inside (counted: [`Hoist::place`])
        // has nothing to rewrite: the walk would find only objects it leaves as they are.
        let nothing_inside = self.inner.get(&c).is_some_and(|inside| !inside);
        if nothing_inside && fast_path::taken(FastPath::HoistSkip) {
            #[cfg(test)]
            super::share::tests::BODIES_NOT_WALKED
                .set(super::share::tests::BODIES_NOT_WALKED.get() + 1);
        } else {
            keywords::subschemas_mut(&mut body, |_, child| self.rewrite(child));
        }
        body
    }

    /// Bottom-up: the children first, then this object when it is marked or a placeholder.
    fn rewrite(&mut self, value: &mut Value) {
        let Value::Object(map) = value else {
            return;
        };
        if is_reference(map) {
            return;
        }
        let group = keywords::get(map, MARK)
            .and_then(Value::as_u64)
            .and_then(|g| usize::try_from(g).ok());
        if let Some(c) = place_of(map) {
            // Hoisted and already defined: the site needs only its own annotations.
            let full = if self.hoists(c) && self.defined.contains(&c) {
                std::mem::take(map)
            } else {
                with_body(map, self.rewritten_body(c))
            };
            *map = self.hoisted(c, group, full);
            return;
        }
        let id = if keywords::has(map, MARK) {
            Some(self.id_of(map))
        } else {
            self.copy_of(map).filter(|id| self.hoists(*id))
        };
        keywords::subschemas_mut(map, |_, child| self.rewrite(child));
        if id.is_some() {
            map.shift_remove(MARK);
        }
        if let Some(id) = id {
            let full = std::mem::take(map);
            *map = self.hoisted(id, group, full);
        }
    }

    /// Whether the flat object of identity `id` stands twice or more (every join written out).
    fn hoists(&self, id: usize) -> bool {
        self.counts.get(&id).copied().unwrap_or(0) >= 2
    }

    /// The flat object `full` of identity `id` (of group `group`): a reference to its
    /// definition, with `full`'s site annotations, where it stands twice or more; else itself.
    fn hoisted(
        &mut self,
        id: usize,
        group: Option<usize>,
        full: Map<String, Value>,
    ) -> Map<String, Value> {
        if !self.hoists(id) {
            return full;
        }
        // The site keeps its own annotations; the rest is the definition's body, moved into the
        // definition the first time and dropped after.
        let mut annotations = Vec::new();
        let mut body = Map::new();
        let defined = self.defined.contains(&id);
        for (k, v) in full {
            if is_site_annotation(&k) {
                annotations.push((k, v));
            } else if !defined {
                body.insert(k, v);
            }
        }
        // Numbered here the first time, unless the projection numbered it (SPEC §6 decision
        // 86); defined the first time the pass meets it either way.
        let named = self
            .names
            .entry(id)
            .or_insert_with(|| self.numbering.fresh());
        if !defined {
            self.defs
                .push((named.n, named.name.clone(), Value::Object(body)));
            self.defined.insert(id);
        }
        let reference = named.reference.clone();
        if let Some(g) = group {
            self.group_names
                .entry(g)
                .or_insert_with(|| reference.clone());
        }
        let mut site = Map::with_capacity(1 + annotations.len());
        site.insert("$ref".into(), Value::String(reference));
        site.extend(annotations);
        site
    }
}

/// What a join and its copy must have alike before their keys are compared: the number of
/// their `properties` (looked up first: most objects of a presentation have none, and a join
/// has some), and of their keywords but the site's annotations and the mark.
struct Shapes {
    /// The joins' numbers of `properties` (`usize::MAX`: none), each once.
    properties: Vec<usize>,
    /// The joins' (keywords, properties) pairs.
    both: FastSet<(usize, usize)>,
}

/// The number of `map`'s `properties`, `usize::MAX` where it has none.
fn properties_len(map: &Map<String, Value>) -> usize {
    keywords::get(map, "properties")
        .and_then(Value::as_object)
        .map_or(usize::MAX, Map::len)
}

/// The number of `map`'s keywords but the site's annotations and the mark.
fn keyword_count(map: &Map<String, Value>) -> usize {
    map.keys()
        .filter(|k| !is_site_annotation(k) && k.as_str() != MARK)
        .count()
}

/// Whether an object written the same as a shared join may be replaced by a reference to it:
/// no reference of the document is read by URI or leads into a node below a root definition
/// (such a reference would lose its target), so every reference the presentation holds names
/// the root, a root definition or a definition the join added.
fn copies_allowed(facts: &Facts) -> bool {
    !facts.uses_uri_resolution
        && !facts.ref_not_fragment
        && facts
            .ref_targets
            .iter()
            .all(|t| crate::pointer::is_root_definition(t))
}
