//! The hoisting of shared joins (SPEC §6 decision 73), a pass over the finished presentation:
//! every flat object of a shared union that stands, the same, at two or more places is written
//! once into the root definitions and referred to from each place, which keeps its own
//! annotations; one that stands once is put back in place. A placeholder counts as its group's
//! join, and so does everything inside that join, once per place the placeholder stands: the
//! counts are those of the presentation with every join written out, without writing it out.

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
            names,
            defined: FastSet::default(),
            defs: Vec::new(),
            numbering,
            group_names: FastMap::default(),
        };
        let mut counts = FastMap::default();
        hoist.count(out, &mut counts);
        // A site written as its reference at once is a place of its join, and of what stands
        // inside that join, as a placeholder is.
        for (&c, &n) in &sharing.direct_count {
            *counts.entry(c).or_default() += n;
            for (id, k) in hoist.inner_of(c) {
                *counts.entry(id).or_default() += k * n;
            }
        }
        hoist.counts = counts;
        hoist.rewrite(out);
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
    /// Identity → the number of places it stands at, every join written out.
    counts: FastMap<usize, usize>,
    /// Group → the identities inside its join and how often each stands there.
    inner: FastMap<usize, Vec<(usize, usize)>>,
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

    /// Adds the places of every marked object and placeholder in `value` to `into`.
    fn count(&mut self, value: &Value, into: &mut FastMap<usize, usize>) {
        let Value::Object(map) = value else {
            return;
        };
        if is_reference(map) {
            return;
        }
        if let Some(c) = place_of(map) {
            *into.entry(c).or_default() += 1;
            for (id, n) in self.inner_of(c) {
                *into.entry(id).or_default() += n;
            }
            return;
        }
        if keywords::has(map, MARK) {
            let id = self.id_of(map);
            *into.entry(id).or_default() += 1;
        }
        keywords::subschemas(map, |_, child| self.count(child, into));
    }

    /// What stands inside group `c`'s join, counted once.
    fn inner_of(&mut self, c: usize) -> Vec<(usize, usize)> {
        if let Some(inner) = self.inner.get(&c) {
            return inner.clone();
        }
        let mut counts = FastMap::default();
        // Out of its slot while its places are counted (a join cannot hold its own placeholder:
        // its group's join was finished before any placeholder of it was made).
        if let Some(body) = self.bodies.get_mut(c).and_then(Option::take) {
            keywords::subschemas(&body, |_, child| self.count(child, &mut counts));
            self.bodies[c] = Some(body);
        }
        let inner: Vec<(usize, usize)> = counts.into_iter().collect();
        self.inner.insert(c, inner.clone());
        inner
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
        // A join with no placeholder and no marked object inside (counted: [`Hoist::inner_of`])
        // has nothing to rewrite: the walk would find only objects it leaves as they are.
        let nothing_inside = self.inner.get(&c).is_some_and(Vec::is_empty);
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
        let id = keywords::has(map, MARK).then(|| self.id_of(map));
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
