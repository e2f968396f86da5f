//! Shared, not multiplied (SPEC §6 decision 73): a union whose branches reach definitions through
//! `$ref`, written the same at several sites (Pydantic writes a union field as a `oneOf` of
//! `$ref`s at every use), is joined once; where its flat object still stands at two or more
//! places of the finished presentation, it is hoisted into the root definitions as
//! `flatjoin_union_N` and each place refers to it, keeping its own annotations. The input shared
//! those definitions; the join would copy them into every site.
//!
//! During the projection the join's flat object carries a marker key (never in the output), so
//! the enclosing joins see an object, as they would without sharing; the hoisting is a pass over
//! the finished presentation, after the repair of references, and only identical objects share.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{KEPT_AFTER, KEPT_BEFORE, Projector};
use crate::diagnostics::{FlattenedSite, SkippedSite};
use crate::error::Error;
use crate::identify::Union;
use crate::keywords;
use crate::pointer;
use crate::polarity::Frozen;
use crate::wellformed::Facts;
use crate::{Options, Scope};

/// The mark of a shared join's flat object during the projection.
const MARK: &str = keywords::SHARE_MARK;

/// Keywords of a union node that make it a place of its own (a resource, an anchor, definitions
/// referenced by pointer, a reference beside the union): such a site is never shared.
const OWN_PLACE: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$defs",
    "definitions",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// The plan of one projection's sharing: which sites join into which group, and each group's
/// hoisted definition once its first site is joined.
#[derive(Default)]
pub(super) struct Sharing {
    group_of: HashMap<String, usize>,
    groups: Vec<Group>,
    /// The root definitions container the shared joins go into.
    container: &'static str,
}

#[derive(Default)]
struct Group {
    /// The first site's pointer and its flat object without the site's annotations (marked).
    first: Option<String>,
    body: Option<Map<String, Value>>,
    /// What the first site's projection recorded: (flattened, skipped, sites) before and after.
    marks: Option<(Marks, Marks)>,
    discriminator: Option<String>,
    branches: usize,
    later: Vec<(String, &'static str)>,
}

impl Group {
    /// What [`Projector::record_shared_sites`] reads of the group (the body left out).
    fn recorded(&self) -> Group {
        Group {
            first: self.first.clone(),
            body: None,
            marks: self.marks,
            discriminator: self.discriminator.clone(),
            branches: self.branches,
            later: self.later.clone(),
        }
    }
}

#[derive(Clone, Copy)]
struct Marks {
    flattened: usize,
    skipped: usize,
    sites: usize,
}

impl Sharing {
    /// Groups the sites that will be shared: union sites in scope, not frozen, whose union has a
    /// branch behind `$ref`, written the same (annotations aside, branches in any order) at two
    /// or more sites.
    pub(super) fn plan(
        document: &Value,
        facts: &Facts,
        frozen: &Frozen,
        options: &Options,
    ) -> Option<Sharing> {
        if options.scope != Scope::All || facts.ref_targets.is_empty() {
            return None;
        }
        let mut by_key: HashMap<String, Vec<&str>> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        for site in &facts.union_sites {
            if frozen.sites.contains(site.as_str()) {
                continue;
            }
            let Some(key) = pointer::get(document, site).and_then(|n| share_key(site, n)) else {
                continue;
            };
            let entry = by_key.entry(key.clone()).or_default();
            if entry.is_empty() {
                order.push(key);
            }
            entry.push(site);
        }
        let mut sharing = Sharing {
            container: super::repair::container_name(document),
            ..Sharing::default()
        };
        for key in order {
            let sites = &by_key[&key];
            if sites.len() < 2 {
                continue;
            }
            let g = sharing.groups.len();
            sharing.groups.push(Group::default());
            for site in sites {
                sharing.group_of.insert((*site).to_owned(), g);
            }
        }
        (!sharing.groups.is_empty()).then_some(sharing)
    }
}

/// The sharing key of the union node at `site`: its keywords without the annotations a site
/// keeps, the union's members in a canonical order; `None` where the site is not shared (the
/// root, a definitions entry, a place of its own, no branch behind `$ref`).
fn share_key(site: &str, node: &Value) -> Option<String> {
    let Value::Object(map) = node else {
        return None;
    };
    let parent = &site[..site.rfind('/')?];
    if parent.ends_with("/$defs") || parent.ends_with("/definitions") {
        return None;
    }
    if OWN_PLACE.iter().any(|k| map.contains_key(*k)) {
        return None;
    }
    let keyword = super::union_keyword(map);
    let Some(Value::Array(members)) = map.get(keyword) else {
        return None;
    };
    let behind_ref = |m: &Value| {
        m.get("$ref").is_some()
            || m.get("allOf")
                .and_then(Value::as_array)
                .is_some_and(|parts| parts.iter().any(|p| p.get("$ref").is_some()))
    };
    if !members.iter().any(behind_ref) {
        return None;
    }
    let mut sorted: Vec<String> = members.iter().map(sorted_text).collect();
    sorted.sort_unstable();
    Some(key_text(map, Some((keyword, &sorted))))
}

/// The text of `map` without its site annotations and mark, its keywords and every object
/// below in sorted order (an enclosing join may move keywords: the same schema written in
/// another order is the same schema); with `members`, that keyword's value is written as the
/// given member texts (sorted by the caller). The mark names the group: two groups' identical
/// objects share one definition.
fn key_text(map: &Map<String, Value>, members: Option<(&str, &[String])>) -> String {
    let mut keys: Vec<&String> = map
        .keys()
        .filter(|k| !is_site_annotation(k) && *k != MARK)
        .collect();
    keys.sort_unstable();
    let mut key = String::new();
    for k in keys {
        crate::canonical::data_key(&Value::String(k.clone()), &mut key);
        key.push(':');
        match members {
            Some((keyword, sorted)) if k == keyword => {
                key.push('[');
                key.push_str(&sorted.join(","));
                key.push(']');
            }
            _ => crate::canonical::data_key(&map[k], &mut key),
        }
        key.push(',');
    }
    key
}

/// [`crate::canonical::data_key`] of `value`: its text with object keys sorted.
fn sorted_text(value: &Value) -> String {
    let mut out = String::new();
    crate::canonical::data_key(value, &mut out);
    out
}

/// Whether `keyword` is one of the union node's annotations that stay at its site.
fn is_site_annotation(keyword: &str) -> bool {
    (KEPT_BEFORE.contains(&keyword) || KEPT_AFTER.contains(&keyword))
        && !OWN_PLACE.contains(&keyword)
}

impl Projector<'_> {
    /// The group of the union site at `ptr`, when it is shared.
    pub(super) fn shared_group(&self, ptr: &str) -> Option<usize> {
        self.sharing.as_ref()?.group_of.get(ptr).copied()
    }

    /// Joins the shared union site at `ptr` (the group's first site reached) or takes the join
    /// of its group (a later site), marked, with the site's own annotations.
    pub(super) fn flatten_shared(
        &mut self,
        node: &Map<String, Value>,
        ptr: &str,
        union: Union,
        g: usize,
    ) -> Result<Value, Error> {
        let keyword = super::union_keyword(node);
        let group = &mut self
            .sharing
            .as_mut()
            .expect("a shared group has a plan")
            .groups[g];
        if let Some(body) = &group.body {
            let body = body.clone();
            if group.first.as_deref() != Some(ptr) {
                group.later.push((ptr.to_owned(), keyword));
            }
            return Ok(with_site_annotations(node, body));
        }
        let first_time = group.first.is_none();
        if first_time {
            group.first = Some(ptr.to_owned());
            group.discriminator.clone_from(&union.discriminator);
            group.branches = union.branches.len();
        }
        let before = self.marks();
        let Value::Object(mut flat) = self.flatten_union(node, ptr, union)? else {
            unreachable!("a flattened union is an object")
        };
        flat.insert(MARK.into(), Value::from(g));
        if first_time {
            let after = self.marks();
            let mut body = flat.clone();
            body.retain(|k, _| !(is_site_annotation(k) && node.contains_key(k)));
            let group = &mut self.sharing.as_mut().expect("planned").groups[g];
            group.body = Some(body);
            group.marks = Some((before, after));
        }
        Ok(Value::Object(flat))
    }

    fn marks(&self) -> Marks {
        Marks {
            flattened: self.diagnostics.flattened.len(),
            skipped: self.diagnostics.skipped.len(),
            sites: self.sites.len(),
        }
    }

    /// After the projection: records every later site as its group's first site was recorded
    /// (flattened, with what was flattened or left below it), so the diagnostics and the repair
    /// of references see each site. Returns the sites of each group, for [`hoist_shared`].
    pub(super) fn record_shared_sites(&mut self) -> Vec<Vec<String>> {
        let Some(sharing) = &self.sharing else {
            return Vec::new();
        };
        // Cloned, not taken: the repair may still reach a shared site through a hoisted copy.
        let groups: Vec<Group> = sharing.groups.iter().map(Group::recorded).collect();
        let mut sites_of = Vec::with_capacity(groups.len());
        for group in groups {
            let Some(first) = group.first else {
                sites_of.push(Vec::new());
                continue;
            };
            let mut sites = vec![first.clone()];
            sites.extend(group.later.iter().map(|(p, _)| p.clone()));
            sites_of.push(sites);
            let Some((before, after)) = group.marks else {
                continue;
            };
            let inner = format!("{first}/");
            let flattened: Vec<FlattenedSite> = self.diagnostics.flattened
                [before.flattened..after.flattened]
                .iter()
                .filter(|s| s.pointer.starts_with(&inner))
                .cloned()
                .collect();
            let skipped: Vec<SkippedSite> = self.diagnostics.skipped[before.skipped..after.skipped]
                .iter()
                .filter(|s| s.pointer.starts_with(&inner))
                .cloned()
                .collect();
            let sites: Vec<(String, &'static str)> = self.sites[before.sites..after.sites]
                .iter()
                .filter(|(p, _)| p.starts_with(&inner))
                .cloned()
                .collect();
            for (later, keyword) in group.later {
                let rebase = |p: &str| format!("{later}{}", &p[first.len()..]);
                self.diagnostics.record_flattened(FlattenedSite {
                    pointer: later.clone(),
                    discriminator: group.discriminator.clone(),
                    branches: group.branches,
                    shared: None,
                });
                self.sites.push((later.clone(), keyword));
                for s in &flattened {
                    self.diagnostics.record_flattened(FlattenedSite {
                        pointer: rebase(&s.pointer),
                        ..s.clone()
                    });
                }
                for s in &skipped {
                    self.diagnostics.record_skipped(SkippedSite {
                        pointer: rebase(&s.pointer),
                        reason: s.reason.clone(),
                    });
                }
                for (p, k) in &sites {
                    self.sites.push((rebase(p), k));
                }
            }
        }
        sites_of
    }

    /// The pass over the finished presentation `out`: each marked flat object that stands, the
    /// same, at two or more places is written once into the root definitions and referred to
    /// from each place, which keeps its own annotations; every mark is removed. The diagnostics
    /// of the sites of a hoisted group name the definition.
    pub(super) fn hoist_shared(&mut self, out: &mut Value, sites_of: &[Vec<String>]) {
        let Some(sharing) = self.sharing.take() else {
            return;
        };
        let mut counts: HashMap<String, usize> = HashMap::new();
        count_marked(out, &mut counts);
        let mut hoist = Hoist {
            counts,
            names: HashMap::new(),
            defs: Vec::new(),
            taken: taken_names(self.document, out),
            container: sharing.container,
            group_names: HashMap::new(),
        };
        hoist.rewrite(out);
        let Hoist {
            defs, group_names, ..
        } = hoist;
        if let Value::Object(root) = out
            && !defs.is_empty()
            && let Value::Object(entries) = root
                .entry(sharing.container.to_owned())
                .or_insert_with(|| Value::Object(Map::new()))
        {
            entries.extend(defs);
        }
        for (g, definition) in group_names {
            let Some(sites) = sites_of.get(g) else {
                continue;
            };
            for site in &mut self.diagnostics.flattened {
                if sites.contains(&site.pointer) {
                    site.shared = Some(definition.clone());
                }
            }
        }
    }
}

/// `body` (a shared join without site annotations) with the annotations of the union node
/// `node` where the join puts them: the kept ones before `type` first, the others after.
fn with_site_annotations(node: &Map<String, Value>, body: Map<String, Value>) -> Value {
    let mut out = Map::with_capacity(body.len() + 4);
    for k in KEPT_BEFORE {
        if let Some(v) = node.get(*k)
            && is_site_annotation(k)
        {
            out.insert((*k).to_owned(), v.clone());
        }
    }
    out.extend(body);
    for k in KEPT_AFTER {
        if let Some(v) = node.get(*k) {
            out.insert((*k).to_owned(), v.clone());
        }
    }
    if let Some(mark) = out.shift_remove(MARK) {
        out.insert(MARK.into(), mark);
    }
    Value::Object(out)
}

/// The sharing key of a marked object: its text without its own annotations.
fn marked_key(map: &Map<String, Value>) -> String {
    key_text(map, None)
}

/// Counts the marked objects of `value` by [`marked_key`].
fn count_marked(value: &Value, counts: &mut HashMap<String, usize>) {
    let Value::Object(map) = value else {
        return;
    };
    if map.contains_key(MARK) {
        *counts.entry(marked_key(map)).or_default() += 1;
    }
    keywords::subschemas(map, |_, child| count_marked(child, counts));
}

/// Every definition name the document or the presentation uses.
fn taken_names(document: &Value, out: &Value) -> std::collections::HashSet<String> {
    [document, out]
        .iter()
        .flat_map(|d| ["$defs", "definitions"].map(|c| d.get(c)))
        .filter_map(|defs| defs.and_then(Value::as_object))
        .flat_map(|defs| defs.keys().cloned())
        .collect()
}

/// One hoisting pass's state.
struct Hoist {
    counts: HashMap<String, usize>,
    /// Key → the `$ref` of its definition.
    names: HashMap<String, String>,
    defs: Vec<(String, Value)>,
    taken: std::collections::HashSet<String>,
    container: &'static str,
    /// Group → the `$ref` its first hoisted object took.
    group_names: HashMap<usize, String>,
}

impl Hoist {
    /// Bottom-up: the children first, then this object when it is marked.
    fn rewrite(&mut self, value: &mut Value) {
        let Value::Object(map) = value else {
            return;
        };
        let key = map.contains_key(MARK).then(|| marked_key(map));
        keywords::subschemas_mut(map, |_, child| self.rewrite(child));
        let Some(key) = key else {
            return;
        };
        let group = map
            .shift_remove(MARK)
            .and_then(|g| g.as_u64())
            .and_then(|g| usize::try_from(g).ok());
        if self.counts.get(&key).copied().unwrap_or(0) < 2 {
            return;
        }
        let reference = match self.names.get(&key) {
            Some(reference) => reference.clone(),
            None => {
                let name = (1..)
                    .map(|n| format!("flatjoin_union_{n}"))
                    .find(|n| !self.taken.contains(n))
                    .expect("an unused name");
                self.taken.insert(name.clone());
                let body: Map<String, Value> = map
                    .iter()
                    .filter(|(k, _)| !is_site_annotation(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let reference =
                    pointer::to_ref(&pointer::push(&pointer::push("", self.container), &name));
                self.defs.push((name, Value::Object(body)));
                self.names.insert(key, reference.clone());
                reference
            }
        };
        if let Some(g) = group {
            self.group_names
                .entry(g)
                .or_insert_with(|| reference.clone());
        }
        let mut site = Map::new();
        site.insert("$ref".into(), Value::String(reference));
        for (k, v) in map.iter() {
            if is_site_annotation(k) {
                site.insert(k.clone(), v.clone());
            }
        }
        *map = site;
    }
}
