//! Shared, not multiplied (SPEC §6 decision 73): a union whose branches reach definitions through
//! `$ref`, written the same at several sites (Pydantic writes a union field as a `oneOf` of
//! `$ref`s at every use), is joined once; where its flat object still stands at two or more
//! places of the finished presentation, it is hoisted into the root definitions as
//! `flatjoin_union_N` and each place refers to it, keeping its own annotations. The input shared
//! those definitions; the join would copy them into every site.
//!
//! The group's join is made once, at its first site; every site then stands in the projection
//! as a *placeholder*: the site's annotations, the join's `type`, and a key naming the join
//! (never in the output). The enclosing joins see an object of the same kind, that is the same
//! schema as another site's exactly when the two name the same join, so they dedup and classify
//! it as they would the flat object, without copying it into every site: the projection stays
//! the size of its input. The hoisting (`hoist`) is a pass over the finished presentation, after
//! the repair of references (which repairs each join once): it counts where each flat object
//! stands in the presentation (a placeholder as its join), writes those standing twice or more
//! once, and puts the others back in place. Only identical objects share.

use std::rc::Rc;

use serde_json::{Map, Value};

use super::{KEPT_AFTER, KEPT_BEFORE, Projected, Projector};
use crate::canonical::DataDigester;
use crate::diagnostics::{FlattenedSite, SkippedSite};
use crate::error::Error;
use crate::fast_path::{self, FastPath};
use crate::fasthash::{FastMap, FastSet};
use crate::identify::{Identified, UnionHere};
use crate::keywords;
use crate::pointer;
use crate::polarity::Frozen;
use crate::wellformed::Facts;
use crate::{Options, Scope};

/// The mark of a shared join's flat object during the projection: its group.
pub(super) const MARK: &str = keywords::SHARE_MARK;
/// The key of a placeholder: the canonical group of its join.
pub(super) const PLACE: &str = keywords::SHARE_PLACE;

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
    /// Each shared site's group, and whether the site stands where it is written ([`Standing`]),
    /// in one word (`group × 2 + standing`): with a pair the map's entries grow by a quarter,
    /// and with them its table, into the allocator's next size (+4 MB committed, +1.3 MB peak
    /// resident on `defs-unions-triples-3000`).
    group_of: FastMap<String, usize>,
    pub(super) groups: Vec<Group>,
    /// The root definitions container the shared joins go into.
    pub(super) container: &'static str,
    /// A finished join's key → the first group whose join it is (groups whose joins come out
    /// identical share one placeholder identity).
    by_key: FastMap<u128, usize>,
    /// The digester of the sharing keys ([`marked_key`]), its seeds drawn once per projection.
    pub(super) keys: DataDigester,
    /// Each placeholder identity referred to at once, with its definition's number, name and
    /// `$ref`, in the order named (a later standing site of a group whose first site stands too
    /// is written as its reference at once, SPEC §6 decision 86).
    pub(super) direct_names: Vec<(usize, DefinitionName)>,
    /// Identity → its entry in [`direct_names`](Sharing::direct_names).
    direct_at: FastMap<usize, usize>,
    /// The places where each identity's reference was written at once ([`direct_names`]).
    ///
    /// [`direct_names`]: Sharing::direct_names
    pub(super) direct_count: FastMap<usize, usize>,
    /// The numbering of the hoisted joins' definitions, which the hoisting pass goes on with.
    pub(super) numbering: Numbering,
}

#[derive(Default)]
pub(super) struct Group {
    /// The first site's pointer and its flat object without the site's annotations, unmarked:
    /// `type` first, as the join writes it.
    first: Option<String>,
    pub(super) body: Option<Map<String, Value>>,
    /// The body's sharing key ([`marked_key`]), once the body is done.
    pub(super) key: u128,
    /// The group whose placeholder this group's sites take (itself, or an earlier group whose
    /// join came out identical).
    canonical: usize,
    /// The number of flattened sites the body's references were last repaired against.
    pub(super) repaired_at: Option<usize>,
    /// What the first site's projection recorded: (flattened, skipped, sites) before and after.
    marks: Option<(Marks, Marks)>,
    discriminator: Option<String>,
    branches: usize,
    later: Vec<(String, &'static str)>,
    /// Whether the first site (in the document, and the first the projection reaches) and at
    /// least one other stand where they are written: the join then stands at two or more places
    /// whatever the rest of the projection does, so it is hoisted, and a later standing site
    /// refers to it at once (SPEC §6 decision 86).
    direct: bool,
}

/// What [`Projector::record_shared_sites`] reads of a group.
struct Recorded {
    first: Option<String>,
    marks: Option<(Marks, Marks)>,
    discriminator: Option<String>,
    branches: usize,
    later: Vec<(String, &'static str)>,
}

/// What a group's first site recorded below it: flattened and skipped sites, and flattened
/// union places.
type Below = (
    Vec<FlattenedSite>,
    Vec<SkippedSite>,
    Vec<(String, &'static str)>,
);

#[derive(Clone, Copy)]
struct Marks {
    flattened: usize,
    skipped: usize,
    sites: usize,
}

impl Sharing {
    /// Groups the sites that will be shared: union sites in scope, with no frozen union at or
    /// below them, whose union has a branch behind `$ref`, written the same (annotations aside,
    /// branches in any order) at two or more sites.
    pub(super) fn plan(
        document: &Value,
        facts: &Facts,
        frozen: &Frozen,
        options: &Options,
    ) -> Option<Sharing> {
        if options.scope != Scope::All || facts.ref_targets.is_empty() {
            return None;
        }
        let digester = DataDigester::new();
        let mut by_key: FastMap<u128, Vec<(&str, usize)>> = FastMap::default();
        let mut order: Vec<u128> = Vec::new();
        let mut cursor = pointer::Cursor::new(document);
        // Sites written alike (the same text key) have the same sharing key: it is made once.
        let mut known: FastMap<u128, Option<u128>> = FastMap::default();
        // A site with a frozen union below it is joined on its own: another site written the
        // same may have none there (the freezing reached one copy through a reference), and its
        // join would keep that union as it is for nothing.
        let frozen_at = pointer::Enclosing::new(frozen.sites.iter().map(String::as_str));
        for (i, site) in facts.union_sites.iter().enumerate() {
            if frozen_at.any_at_or_under(site) || !shares_from(site) {
                continue;
            }
            let text = facts.site_keys[i];
            let key = match text.and_then(|t| known.get(&t).copied()) {
                Some(key) => key,
                None => {
                    let key = cursor.get(site).and_then(|n| share_key(&digester, n));
                    if let Some(t) = text {
                        known.insert(t, key);
                    }
                    key
                }
            };
            let Some(key) = key else {
                continue;
            };
            let entry = by_key.entry(key).or_default();
            if entry.is_empty() {
                order.push(key);
            }
            entry.push((site, i));
        }
        let standing = if fast_path::taken(FastPath::DirectShare) {
            Standing::find(facts, frozen)
        } else {
            Vec::new()
        };
        let stands = |i: usize| standing.get(i).copied().unwrap_or(false);
        let mut sharing = Sharing {
            container: super::container_name(document),
            keys: digester,
            numbering: Numbering::new(definition_names(document), super::container_name(document)),
            ..Sharing::default()
        };
        // Sized at once (the pointers are hashed again each time a table grows).
        let shared: usize = by_key.values().map(Vec::len).filter(|&n| n >= 2).sum();
        sharing.group_of.reserve(shared);
        for key in order {
            let sites = &by_key[&key];
            if sites.len() < 2 {
                continue;
            }
            let g = sharing.groups.len();
            let standing_sites = sites.iter().filter(|(_, i)| stands(*i)).count();
            sharing.groups.push(Group {
                direct: stands(sites[0].1) && standing_sites >= 2,
                ..Group::default()
            });
            for (site, i) in sites {
                sharing
                    .group_of
                    .insert((*site).to_owned(), g * 2 + usize::from(stands(*i)));
            }
        }
        (!sharing.groups.is_empty()).then_some(sharing)
    }
}

impl Sharing {
    /// The `$ref` of placeholder identity `c`'s definition, named the first time it is asked
    /// for: the lowest `flatjoin_union_N` the document does not use and no identity took.
    fn name(&mut self, c: usize) -> &str {
        let at = match self.direct_at.get(&c) {
            Some(&at) => at,
            None => {
                let defined = self.numbering.fresh();
                self.direct_names.push((c, defined));
                self.direct_at.insert(c, self.direct_names.len() - 1);
                self.direct_names.len() - 1
            }
        };
        &self.direct_names[at].1.reference
    }

    /// A later standing site of identity `c`, written as the hoisting pass writes a site whose
    /// join is defined (`Hoist::hoisted`): the reference, then the site's own annotations in
    /// the order its placeholder holds them.
    fn direct_site(&mut self, node: &Map<String, Value>, c: usize) -> Map<String, Value> {
        #[cfg(test)]
        tests::DIRECT_SITES.set(tests::DIRECT_SITES.get() + 1);
        let reference = self.name(c).to_owned();
        // Most sites carry none of the annotations kept (as in `placeholder`).
        let kept = node
            .keys()
            .filter(|k| KEPT_BEFORE.contains(&k.as_str()) || KEPT_AFTER.contains(&k.as_str()))
            .count();
        let mut site = Map::with_capacity(1 + kept);
        site.insert("$ref".into(), Value::String(reference));
        if kept > 0 {
            for k in KEPT_BEFORE.iter().chain(KEPT_AFTER) {
                if is_site_annotation(k)
                    && let Some(v) = keywords::get(node, k)
                {
                    site.insert((*k).to_owned(), v.clone());
                }
            }
        }
        site
    }
}

/// A hoisted join's definition: its number, its name (`flatjoin_union_N`) and the `$ref` to it.
pub(super) struct DefinitionName {
    pub n: usize,
    pub name: String,
    pub reference: String,
}

/// The numbering of the hoisted joins' definitions (SPEC §6 decisions 73, 86): each takes the
/// lowest `flatjoin_union_N` no definition uses. Names are only ever taken, so the search goes
/// on from the last number found.
#[derive(Default)]
pub(super) struct Numbering {
    taken: FastSet<String>,
    next: usize,
    container: &'static str,
}

impl Numbering {
    fn new(taken: FastSet<String>, container: &'static str) -> Self {
        Numbering {
            taken,
            next: 1,
            container,
        }
    }

    /// Marks `names` as used.
    pub(super) fn taken(&mut self, names: impl IntoIterator<Item = String>) {
        self.taken.extend(names);
    }

    /// The next definition.
    pub(super) fn fresh(&mut self) -> DefinitionName {
        let (n, name) = (self.next..)
            .map(|n| (n, format!("flatjoin_union_{n}")))
            .find(|(_, name)| !self.taken.contains(name))
            .expect("an unused name");
        self.next = n + 1;
        self.taken.insert(name.clone());
        let reference = pointer::to_ref(&pointer::push(&pointer::push("", self.container), &name));
        DefinitionName { n, name, reference }
    }
}

/// Every root definition name of `document`, in either container.
pub(super) fn definition_names(document: &Value) -> FastSet<String> {
    ["$defs", "definitions"]
        .iter()
        .filter_map(|c| document.get(c).and_then(Value::as_object))
        .flat_map(|defs| defs.keys().cloned())
        .collect()
}

/// Whether a union site at `site` may be shared for where it stands: not the root, not a
/// definitions entry (already shared).
fn shares_from(site: &str) -> bool {
    site.rfind('/').is_some_and(|i| {
        let parent = &site[..i];
        !(parent.ends_with("/$defs") || parent.ends_with("/definitions"))
    })
}

/// The union sites that stand in the presentation where they are written (SPEC §6 decision 86):
/// not in a definitions container (a definition is reached through `$ref`, may be copied or
/// pruned), below no union site that is joined or not identified yet (only sites identified as
/// left as they are, whose members the projection keeps in place), and with no reference
/// leading to the site, into it or to a node above it (a reference's target may be projected
/// again elsewhere, or copied by the repair). Conservative: a site not found standing is shared
/// through its placeholder, as every site was.
struct Standing;

impl Standing {
    /// Whether each of `facts.union_sites` stands where it is written.
    fn find(facts: &Facts, frozen: &Frozen) -> Vec<bool> {
        let mut standing = Vec::with_capacity(facts.union_sites.len());
        if facts.ref_targets.contains("") {
            return standing;
        }
        let targets = pointer::Enclosing::new(facts.ref_targets.iter().map(String::as_str));
        // The union sites above the current one (the sites come in document order, each after
        // the sites above it), and whether what is below each may stand.
        let mut above: Vec<(&str, bool)> = Vec::new();
        for site in &facts.union_sites {
            while above
                .last()
                .is_some_and(|(p, _)| !pointer::is_at_or_under(site, p))
            {
                above.pop();
            }
            if !above.last().is_none_or(|(_, clear)| *clear) {
                // Below a union that is joined or frozen: neither this site nor any below it.
                standing.push(false);
                above.push((site.as_str(), false));
                continue;
            }
            let kept_as_written = matches!(
                frozen.identified.get(site.as_str()),
                Some(Identified::NotUnion(_))
            ) && !frozen.sites.contains(site.as_str());
            standing.push(
                !site.is_empty()
                    && !site
                        .as_bytes()
                        .split(|b| *b == b'/')
                        .any(|t| t == b"$defs" || t == b"definitions")
                    && !targets.any_at_or_under(site)
                    && !pointer::ancestors(site).any(|a| facts.ref_targets.contains(a)),
            );
            above.push((site.as_str(), kept_as_written));
        }
        standing
    }
}

/// The sharing key of a union node (at a place [`shares_from`]): the digest of its keywords
/// without the annotations a site keeps, the union's members in any order (a bag: a member
/// written twice counts twice), everything else as data; `None` where the site is not shared (a
/// place of its own, no branch behind `$ref`). Equal for sites written the same, different
/// otherwise except with negligible probability (the digest dedup relies on, SPEC §3.4). A
/// function of the node's text without its annotations, which [`identify::site_key`] keys.
///
/// [`identify::site_key`]: crate::identify::site_key
fn share_key(digester: &DataDigester, node: &Value) -> Option<u128> {
    let Value::Object(map) = node else {
        return None;
    };
    if OWN_PLACE.iter().any(|k| keywords::has(map, k)) {
        return None;
    }
    let keyword = super::union_keyword(map);
    let Some(Value::Array(members)) = keywords::get(map, keyword) else {
        return None;
    };
    let behind_ref = |m: &Value| {
        keywords::get_in(m, "$ref").is_some()
            || keywords::get_in(m, "allOf")
                .and_then(Value::as_array)
                .is_some_and(|parts| parts.iter().any(|p| keywords::get_in(p, "$ref").is_some()))
    };
    if !members.iter().any(behind_ref) {
        return None;
    }
    let mut digests: Vec<u128> = members.iter().map(|m| digester.data(m)).collect();
    let members = digester.bag(&mut digests);
    let entries = map
        .iter()
        .filter(|(k, _)| !is_site_annotation(k) && *k != MARK)
        .map(|(k, v)| {
            let digest = if k == keyword {
                members
            } else {
                digester.data(v)
            };
            (k.as_str(), digest)
        });
    Some(digester.object(entries))
}

/// Whether `keyword` is one of the union node's annotations that stay at its site.
pub(super) fn is_site_annotation(keyword: &str) -> bool {
    (KEPT_BEFORE.contains(&keyword) || KEPT_AFTER.contains(&keyword))
        && !OWN_PLACE.contains(&keyword)
}

impl Projector<'_> {
    /// The group of the union site at `ptr`, when it is shared, and whether the site stands
    /// where it is written ([`Standing`]).
    pub(super) fn shared_group(&self, ptr: &str) -> Option<(usize, bool)> {
        self.sharing
            .as_ref()?
            .group_of
            .get(ptr)
            .map(|v| (v / 2, v % 2 == 1))
    }

    /// Joins the shared union site at `ptr` (the group's first site reached) or takes the join
    /// of its group (a later site): the site's placeholder, once the group's join is done; a
    /// later site that stands where it is written (`standing`), of a group whose join is sure to
    /// be hoisted, is written as its reference at once (SPEC §6 decision 86). A site reached
    /// while its group's first join is under way (a recursive definition) is joined in full and
    /// marked.
    pub(super) fn flatten_shared(
        &mut self,
        node: &Map<String, Value>,
        ptr: &str,
        union: UnionHere,
        (g, standing): (usize, bool),
    ) -> Result<Value, Error> {
        let sharing = self.sharing.as_mut().expect("a shared group has a plan");
        let group = &mut sharing.groups[g];
        if let Some(body) = &group.body {
            if group.first.as_deref() != Some(ptr) {
                let keyword = super::union_keyword(node);
                group.later.push((ptr.to_owned(), keyword));
                if group.direct && standing {
                    let c = group.canonical;
                    *sharing.direct_count.entry(c).or_default() += 1;
                    return Ok(Value::Object(sharing.direct_site(node, c)));
                }
            }
            return Ok(placeholder(node, body, g, group.canonical));
        }
        let union = union.at(ptr);
        let first_time = group.first.is_none();
        if first_time {
            group.first = Some(ptr.to_owned());
            group.discriminator.clone_from(&union.discriminator);
            group.branches = union.branches.len();
            // The first site the projection reaches holds the join's first place: it must stand
            // (a site reached first through a reference may be pruned with its definition).
            group.direct &= standing;
        }
        let before = self.marks();
        let Value::Object(mut flat) = self.flatten_union(node, ptr, union)? else {
            unreachable!("a flattened union is an object")
        };
        if !first_time {
            flat.insert(MARK.into(), Value::from(g));
            return Ok(Value::Object(flat));
        }
        let after = self.marks();
        flat.retain(|k, _| !(is_site_annotation(k) && keywords::has(node, k)));
        let sharing = self.sharing.as_mut().expect("planned");
        let key = marked_key(&sharing.keys, &flat);
        let canonical = *sharing.by_key.entry(key).or_insert(g);
        let group = &mut sharing.groups[g];
        group.marks = Some((before, after));
        group.canonical = canonical;
        group.key = key;
        let direct = group.direct;
        let out = placeholder(node, &flat, g, canonical);
        group.body = Some(flat);
        if direct {
            sharing.name(canonical);
        }
        Ok(out)
    }

    /// `value` with a placeholder at its top replaced by its join (marked), for a reader of the
    /// join's keywords (a branch part folded into its branch).
    pub(super) fn materialized(&self, value: Value) -> Value {
        let Value::Object(map) = &value else {
            return value;
        };
        let Some((body, g)) = self.placeholder_body(map) else {
            return value;
        };
        let mut out = with_body(map, body.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.insert(MARK.into(), Value::from(g));
        Value::Object(out)
    }

    /// [`Projector::materialized`] for a projected part: a shared projection is copied only
    /// where it is a placeholder.
    pub(super) fn materialized_part(&self, part: Projected) -> Projected {
        match part {
            Projected::Shared(value)
                if value
                    .as_object()
                    .is_some_and(|map| self.placeholder_body(map).is_some()) =>
            {
                Projected::Owned(self.materialized(Rc::unwrap_or_clone(value)))
            }
            Projected::Owned(value) => Projected::Owned(self.materialized(value)),
            shared => shared,
        }
    }

    /// The join a placeholder stands for, and its group.
    fn placeholder_body(&self, map: &Map<String, Value>) -> Option<(&Map<String, Value>, usize)> {
        let c = place_of(map)?;
        let g = keywords::get(map, MARK).and_then(Value::as_u64)?;
        let body = self.sharing.as_ref()?.groups.get(c)?.body.as_ref()?;
        Some((body, usize::try_from(g).ok()?))
    }

    fn marks(&self) -> Marks {
        Marks {
            flattened: self.diagnostics.flattened.len(),
            skipped: self.diagnostics.skipped.len(),
            sites: self.sites.len(),
        }
    }

    /// What the first site at `first` recorded below it between `before` and `after`.
    fn below(&self, first: &str, before: Marks, after: Marks) -> Below {
        let inner = format!("{first}/");
        let flattened = self.diagnostics.flattened[before.flattened..after.flattened]
            .iter()
            .filter(|s| s.pointer.starts_with(&inner))
            .cloned()
            .collect();
        let skipped = self.diagnostics.skipped[before.skipped..after.skipped]
            .iter()
            .filter(|s| s.pointer.starts_with(&inner))
            .cloned()
            .collect();
        let sites = self.sites[before.sites..after.sites]
            .iter()
            .filter(|(p, _)| p.starts_with(&inner))
            .cloned()
            .collect();
        (flattened, skipped, sites)
    }

    /// After the projection: records every later site as its group's first site was recorded
    /// (flattened, with what was flattened or left below it), so the diagnostics and the repair
    /// of references see each site. Returns the sites of each group, for [`hoist_shared`].
    pub(super) fn record_shared_sites(&mut self) -> Vec<Vec<String>> {
        let Some(sharing) = &mut self.sharing else {
            return Vec::new();
        };
        // Read, not taken: the repair may still reach a shared site through a hoisted copy. Only
        // the later sites are taken (nothing reads them after this).
        let groups: Vec<Recorded> = sharing
            .groups
            .iter_mut()
            .map(|g| Recorded {
                first: g.first.clone(),
                marks: g.marks,
                discriminator: g.discriminator.clone(),
                branches: g.branches,
                later: std::mem::take(&mut g.later),
            })
            .collect();
        let later: usize = groups.iter().map(|g| g.later.len()).sum();
        self.diagnostics.reserve_flattened(later);
        self.sites.reserve(later);
        let mut sites_of = Vec::with_capacity(groups.len());
        for group in groups {
            let Some(first) = group.first else {
                sites_of.push(Vec::new());
                continue;
            };
            let mut sites = Vec::with_capacity(1 + group.later.len());
            sites.push(first.clone());
            let Some((before, after)) = group.marks else {
                sites.extend(group.later.into_iter().map(|(p, _)| p));
                sites_of.push(sites);
                continue;
            };
            let (flattened, skipped, inner_sites) = self.below(&first, before, after);
            for (later, keyword) in group.later {
                self.diagnostics.record_flattened(FlattenedSite {
                    pointer: later.clone(),
                    discriminator: group.discriminator.clone(),
                    branches: group.branches,
                    shared: None,
                });
                self.sites.push((later.clone(), keyword));
                let rebase = |p: &str| pointer::under(&later, &p[first.len()..]);
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
                for (p, k) in &inner_sites {
                    self.sites.push((rebase(p), k));
                }
                sites.push(later);
            }
            sites_of.push(sites);
        }
        sites_of
    }
}

/// The placeholder of the shared site `node` of group `g`, whose join is `body` and whose
/// placeholder identity is group `canonical`: the site's annotations where the join puts them
/// (the kept ones before `type`, the others after), the join's `type`, and the place and mark.
fn placeholder(
    node: &Map<String, Value>,
    body: &Map<String, Value>,
    g: usize,
    canonical: usize,
) -> Value {
    // Most sites carry none of the annotations kept: one pass over their few keys says so,
    // instead of a lookup of each annotation.
    let kept = node
        .keys()
        .filter(|k| KEPT_BEFORE.contains(&k.as_str()) || KEPT_AFTER.contains(&k.as_str()))
        .count();
    let (before, after): (&[&str], &[&str]) = if kept > 0 {
        (KEPT_BEFORE, KEPT_AFTER)
    } else {
        (&[], &[])
    };
    let mut out = Map::with_capacity(3 + kept);
    for k in before {
        if let Some(v) = keywords::get(node, k)
            && is_site_annotation(k)
        {
            out.insert((*k).to_owned(), v.clone());
        }
    }
    if let Some(t) = keywords::get(body, "type") {
        out.insert("type".into(), t.clone());
    }
    out.insert(PLACE.into(), Value::from(canonical));
    for k in after {
        if let Some(v) = keywords::get(node, k) {
            out.insert((*k).to_owned(), v.clone());
        }
    }
    out.insert(MARK.into(), Value::from(g));
    Value::Object(out)
}

/// The canonical group a placeholder names.
pub(super) fn place_of(map: &Map<String, Value>) -> Option<usize> {
    usize::try_from(keywords::get(map, PLACE)?.as_u64()?).ok()
}

/// The placeholder `map` with its join `body` in place: the join's keywords where the place
/// stands (after `type`), the placeholder's own keywords (its annotations, as the enclosing
/// joins left them) where they are; place and mark dropped. `body` is taken by its entries, so
/// an owned join moves in without a copy.
pub(super) fn with_body(
    map: &Map<String, Value>,
    body: impl IntoIterator<Item = (String, Value)>,
) -> Map<String, Value> {
    let mut out = Map::with_capacity(map.len());
    let mut body = Some(body);
    for (k, v) in map {
        match k.as_str() {
            PLACE => {
                if let Some(body) = body.take() {
                    out.extend(
                        body.into_iter()
                            .filter(|(k, _)| k.as_str() != "type" || !keywords::has(map, "type")),
                    );
                }
            }
            MARK => {}
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

/// The sharing key of a marked object: the digest of `map` without its own annotations and
/// mark, as data ([`DataDigester::data`]: keywords and every object below in any order, numbers
/// by value; an enclosing join may move keywords, and the same schema written in another order
/// is the same schema). Equal exactly when the two objects are the same data, except with
/// negligible probability (the digest dedup relies on, SPEC §3.4). Marks below stay in: they
/// name the groups, and two groups' identical objects share one definition.
pub(super) fn marked_key(digester: &DataDigester, map: &Map<String, Value>) -> u128 {
    digester.object(
        map.iter()
            .filter(|(k, _)| !is_site_annotation(k) && *k != MARK)
            .map(|(k, v)| (k.as_str(), digester.data(v))),
    )
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::Cell;
    use std::thread::LocalKey;

    use serde_json::{Value, json};

    use crate::fast_path::{self, FastPath};
    use crate::fasthash::FastMap;

    thread_local! {
        /// Sites written as their reference at once, on this thread.
        pub(super) static DIRECT_SITES: Cell<usize> = const { Cell::new(0) };
        /// Shared joins the hoisting pass did not walk for its rewrite, on this thread.
        pub(in crate::project) static BODIES_NOT_WALKED: Cell<usize> = const { Cell::new(0) };
    }

    /// The hoisted definition a string refers to, when it is a `$ref` to one.
    fn hoisted(s: &str) -> Option<&str> {
        let name = s
            .strip_prefix("#/$defs/")
            .or_else(|| s.strip_prefix("#/definitions/"))?;
        name.strip_prefix("flatjoin_union_")?
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then_some(name)
    }

    /// Whether two presentations (or diagnostics) are the same but for the numbers of their
    /// hoisted definitions: equal values, object keys in the same order, every reference to a
    /// hoisted definition paired one to one with a reference in the other, and the definitions
    /// so paired the same in turn.
    struct Renaming<'v> {
        a_to_b: FastMap<&'v str, &'v str>,
        b_to_a: FastMap<&'v str, &'v str>,
    }

    impl<'v> Renaming<'v> {
        fn pair(&mut self, x: &'v str, y: &'v str) -> bool {
            *self.a_to_b.entry(x).or_insert(y) == y && *self.b_to_a.entry(y).or_insert(x) == x
        }

        fn same(&mut self, a: &'v Value, b: &'v Value, root: bool) -> bool {
            match (a, b) {
                (Value::String(x), Value::String(y)) => match (hoisted(x), hoisted(y)) {
                    (Some(x), Some(y)) => self.pair(x, y),
                    _ => x == y,
                },
                (Value::Array(x), Value::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(x, y)| self.same(x, y, false))
                }
                (Value::Object(x), Value::Object(y)) => {
                    x.keys().eq(y.keys())
                        && x.iter().zip(y).all(|((k, x), (_, y))| {
                            if root && (k == "$defs" || k == "definitions") {
                                self.same_definitions(x, y)
                            } else {
                                self.same(x, y, false)
                            }
                        })
                }
                _ => a == b,
            }
        }

        /// The root definitions but the hoisted joins, which are compared once paired.
        fn same_definitions(&mut self, a: &'v Value, b: &'v Value) -> bool {
            let (Value::Object(x), Value::Object(y)) = (a, b) else {
                return self.same(a, b, false);
            };
            let own = |m: &'v serde_json::Map<String, Value>| {
                m.iter()
                    .filter(|(k, _)| hoisted(&format!("#/$defs/{k}")).is_none())
                    .collect::<Vec<_>>()
            };
            let (ox, oy) = (own(x), own(y));
            ox.len() == oy.len()
                && x.len() == y.len()
                && ox
                    .iter()
                    .zip(&oy)
                    .all(|((k, x), (l, y))| k == l && self.same(x, y, false))
        }

        /// Compares the hoisted definitions paired so far (and those they pair in turn).
        fn same_paired(&mut self, a: &'v Value, b: &'v Value) -> bool {
            let mut done = 0;
            loop {
                let mut pairs: Vec<(&str, &str)> =
                    self.a_to_b.iter().map(|(x, y)| (*x, *y)).collect();
                if pairs.len() == done {
                    return true;
                }
                pairs.sort_unstable();
                done = pairs.len();
                for (x, y) in pairs {
                    let defs = |v: &'v Value, n: &str| {
                        ["$defs", "definitions"]
                            .iter()
                            .find_map(|c| v.get(c).and_then(|d| d.get(n)))
                    };
                    match (defs(a, x), defs(b, y)) {
                        (Some(dx), Some(dy)) if self.same(dx, dy, false) => {}
                        _ => return false,
                    }
                }
            }
        }
    }

    fn documents() -> Vec<Value> {
        let mut docs = crate::test_corpus::schemas();
        let regressions =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
        let mut files: Vec<_> = std::fs::read_dir(regressions)
            .expect("corpus/regressions")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a regression");
            let case: Value = serde_json::from_str(&text).expect("JSON");
            docs.extend(case.get("schema").cloned());
        }
        let model = |kind: &str, field: &str| {
            json!({"type": "object", "title": kind.to_uppercase(), "properties": {
                "kind": {"const": kind}, field: {"type": "string"}, "n": {"type": "integer"}},
                "required": ["kind"], "additionalProperties": false})
        };
        let defs = json!({"A": model("a", "x"), "B": model("b", "y"), "C": model("c", "z")});
        let union = |refs: &[&str]| {
            let members: Vec<Value> = refs
                .iter()
                .map(|r| json!({"$ref": format!("#/$defs/{r}")}))
                .collect();
            json!({"oneOf": members, "discriminator": {"propertyName": "kind"}})
        };
        let titled = |refs: &[&str], title: &str| {
            let mut u = union(refs);
            u["title"] = json!(title);
            u["default"] = json!(null);
            u
        };
        // Sites standing where they are written, in every wrapper a model writes, the same
        // members in another order, with and without annotations.
        docs.push(json!({"$defs": defs, "type": "object", "properties": {
            "s0": union(&["A", "B"]), "s1": union(&["B", "A"]), "s2": titled(&["A", "B"], "S2"),
            "s3": {"anyOf": [union(&["A", "B"]), {"type": "null"}], "default": null},
            "s4": {"type": "array", "items": union(&["A", "B"])},
            "t0": union(&["A", "C"]), "t1": union(&["C", "A"]), "t2": union(&["B", "C"])}}));
        // A group whose first site is in a definition (not standing) before a standing group:
        // the hoisting names the first, the projection the second.
        docs.push(json!({"$defs": {"X": {"type": "object", "properties": {
                "u": union(&["A", "C"]), "v": union(&["A", "C"])}},
                "A": model("a", "x"), "B": model("b", "y"), "C": model("c", "z")},
            "type": "object", "properties": {
            "x": {"$ref": "#/$defs/X"}, "s0": union(&["A", "B"]), "s1": union(&["A", "B"]),
            "t0": union(&["A", "C"]), "t1": union(&["A", "C"])}}));
        // References to a site, into one, and to a node above sites.
        for target in [
            "#/properties/s0",
            "#/properties/s0/oneOf/0",
            "#/properties/o",
        ] {
            docs.push(json!({"$defs": defs, "type": "object", "properties": {
                "o": {"type": "object", "properties": {"s": union(&["A", "B"])}},
                "s0": union(&["A", "B"]), "s1": union(&["A", "B"]), "s2": union(&["A", "B"]),
                "r": {"$ref": target}}}));
        }
        // Sites inside a joined root union (Pydantic's command union), and below a site that
        // is joined: none stands.
        docs.push(json!({"$defs": {"A": model("a", "x"), "B": model("b", "y"),
                "P": {"type": "object", "properties": {"kind": {"const": "p"},
                    "f": union(&["A", "B"]), "g": union(&["B", "A"])}, "required": ["kind"]},
                "Q": {"type": "object", "properties": {"kind": {"const": "q"},
                    "f": union(&["A", "B"]), "h": titled(&["A", "B"], "H")}, "required": ["kind"]}},
            "oneOf": [{"$ref": "#/$defs/P"}, {"$ref": "#/$defs/Q"}],
            "discriminator": {"propertyName": "kind"}}));
        // Draft-07: `definitions`, and a `$ref` hides its siblings.
        let defs07 = json!({"A": model("a", "x"), "B": model("b", "y")});
        let union07 = |refs: &[&str]| {
            let members: Vec<Value> = refs
                .iter()
                .map(|r| json!({"$ref": format!("#/definitions/{r}")}))
                .collect();
            json!({"anyOf": members, "description": "one of"})
        };
        docs.push(json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": defs07, "type": "object", "properties": {
            "s0": union07(&["A", "B"]), "s1": union07(&["B", "A"]),
            "s2": {"type": "array", "items": union07(&["A", "B"])}}}));
        // Sites under map and array keywords, and a site that is its own place (`$anchor`).
        docs.push(json!({"$defs": defs, "type": "object",
            "additionalProperties": union(&["A", "B"]),
            "patternProperties": {"^p": union(&["B", "A"])},
            "properties": {"l": {"type": "array", "prefixItems": [union(&["A", "B"])],
                "items": union(&["A", "B"])},
                "own": {"$anchor": "own", "oneOf": [
                    {"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}}}));
        // A shared join holding another group's sites: its rewrite has a placeholder to find.
        docs.push(json!({"$defs": {"A": {"type": "object", "properties": {
                "kind": {"const": "a"}, "i": union(&["B", "C"]), "j": union(&["B", "C"])},
                "required": ["kind"]},
                "D": {"type": "object", "properties": {"kind": {"const": "d"},
                "i": union(&["C", "B"])}, "required": ["kind"]},
                "B": model("b", "y"), "C": model("c", "z")},
            "type": "object", "properties": {"s0": union(&["A", "D"]), "s1": union(&["A", "D"]),
            "s2": {"type": "array", "items": union(&["D", "A"])}}}));
        // Distinct unions over the same definitions (each branch folds alike in every union
        // that reaches it), a member with a description beside its `$ref`, and a union with
        // sibling keywords beside its members.
        let mut described = union(&["A", "B"]);
        described["oneOf"][1]["description"] = json!("The b one");
        let mut with_siblings = union(&["B", "C"]);
        with_siblings["properties"] = json!({"n": {"type": "number"}, "w": {"type": "string"}});
        with_siblings["required"] = json!(["n"]);
        docs.push(json!({"$defs": defs, "type": "object", "properties": {
            "ab": union(&["A", "B"]), "ac": union(&["A", "C"]), "bc": union(&["B", "C"]),
            "abc": union(&["A", "B", "C"]), "ca": union(&["C", "A"]), "d": described,
            "s": with_siblings, "l": {"type": "array", "items": union(&["C", "B", "A"])}}}));
        // A definition named like a hoisted join already: the numbers skip it.
        docs.push(json!({"$defs": {"flatjoin_union_1": {"type": "string"},
                "A": model("a", "x"), "B": model("b", "y")},
            "type": "object", "properties": {"n": {"$ref": "#/$defs/flatjoin_union_1"},
            "s0": union(&["A", "B"]), "s1": union(&["A", "B"])}}));
        docs
    }

    /// A document's presentation and diagnostics as text (`Value`'s equality does not see the
    /// order of an object's keys), or its error.
    fn presented(doc: &Value) -> Result<(String, String), String> {
        crate::flatten(doc, &crate::Options::default())
            .map(|f| (f.schema.to_string(), f.diagnostics.to_json().to_string()))
            .map_err(|e| e.to_string())
    }

    /// Holds fast path `path` to the walk it stands in for on every document of [`documents`]:
    /// the same presentation and diagnostics, as text, with the path taken and not. Returns how
    /// often `taken` (the path's own counter) counted it taken.
    pub(in crate::project) fn held_to_the_walk(
        path: FastPath,
        taken: &'static LocalKey<Cell<usize>>,
    ) -> usize {
        let mut count = 0;
        for doc in &documents() {
            let before = taken.get();
            let fast = presented(doc);
            count += taken.get() - before;
            let whole = fast_path::without(path, || presented(doc));
            assert_eq!(fast, whole, "{doc}");
        }
        count
    }

    /// The hoisting pass leaves a shared join unwalked for its rewrite where counting found
    /// nothing inside it to rewrite: the presentations and diagnostics are those of the walk, on
    /// every schema of the JSON-Schema-Test-Suite, the corpus dialects and regressions, and on
    /// documents with shared joins inside shared joins.
    #[test]
    fn joins_with_nothing_inside_need_no_rewrite() {
        let skipped = held_to_the_walk(FastPath::HoistSkip, &BODIES_NOT_WALKED);
        eprintln!("{skipped} joins not walked");
        assert!(skipped >= 10, "{skipped} joins not walked");
    }

    /// A join is counted at the places it stands in the presentation (SPEC §6 decision 73): an
    /// object written the same as a shared join (a union written inline once, flattened on its
    /// own) is one of them and refers to the definition; a group whose join stands only inside
    /// another hoisted join stands once, and stays in place there.
    #[test]
    fn a_join_is_counted_where_it_stands_in_the_presentation() {
        let model = |kind: &str, field: &str| {
            json!({"type": "object", "properties": {"kind": {"const": kind},
                field: {"type": "string"}}, "required": ["kind"], "additionalProperties": false})
        };
        let union = |refs: &[&str]| {
            let members: Vec<Value> = refs
                .iter()
                .map(|r| json!({"$ref": format!("#/$defs/{r}")}))
                .collect();
            json!({"oneOf": members})
        };
        let added = |out: &Value| -> Vec<String> {
            out["$defs"]
                .as_object()
                .map(|d| {
                    d.keys()
                        .filter(|k| k.starts_with("flatjoin_union_"))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        };
        let flat = |doc: &Value| {
            crate::flatten(doc, &crate::Options::default())
                .expect("flattens")
                .schema
        };
        // Two places behind references and one written inline.
        let doc = json!({"$defs": {"A": model("a", "x"), "B": model("b", "y")},
            "type": "object", "properties": {"s0": union(&["A", "B"]), "s1": union(&["B", "A"]),
            "inline": {"oneOf": [model("a", "x"), model("b", "y")]}}});
        let out = flat(&doc);
        assert_eq!(added(&out), ["flatjoin_union_1"], "{out}");
        let reference = json!({"$ref": "#/$defs/flatjoin_union_1"});
        for site in ["s0", "s1", "inline"] {
            assert_eq!(out["properties"][site], reference, "{site}: {out}");
        }
        // Without a copy standing where it is not a site, a document with references into a
        // definition's inside keeps the copy as it is (the reference would lose its target).
        let mut into = doc.clone();
        into["properties"]["r"] = json!({"$ref": "#/$defs/A/properties/x"});
        let out = flat(&into);
        assert_eq!(added(&out), ["flatjoin_union_1"], "{out}");
        assert!(
            out["properties"]["inline"].get("properties").is_some(),
            "{out}"
        );
        // A group (`f`) whose sites are only inside the branches of another group's join: its
        // join stands once, inside the hoisted outer join.
        let doc = json!({"$defs": {"B": model("b", "y"), "C": model("c", "z"),
            "P": {"type": "object", "properties": {"kind": {"const": "p"},
                "f": union(&["B", "C"])}, "required": ["kind"]},
            "Q": {"type": "object", "properties": {"kind": {"const": "q"},
                "f": union(&["C", "B"])}, "required": ["kind"]}},
            "type": "object", "properties": {"s0": union(&["P", "Q"]), "s1": union(&["Q", "P"])}});
        let out = flat(&doc);
        assert_eq!(added(&out), ["flatjoin_union_1"], "{out}");
        let inner = &out["$defs"]["flatjoin_union_1"]["properties"]["f"];
        assert!(
            inner.get("$ref").is_none() && inner.get("properties").is_some(),
            "{out}"
        );
    }

    /// Writing a later standing site as its reference at once (SPEC §6 decision 86) gives the
    /// presentation and diagnostics the placeholders and the hoisting pass give, but for the
    /// numbers of the hoisted definitions (a join named at the projection takes its number
    /// before a join the pass names): on every schema of the JSON-Schema-Test-Suite, the corpus
    /// dialects and regressions, and on documents made to stand or not.
    #[test]
    fn standing_sites_written_at_once_change_nothing_but_numbers() {
        let present = |doc: &Value| {
            crate::flatten(doc, &crate::Options::default())
                .map(|f| (f.schema, f.diagnostics.to_json()))
                .map_err(|e| e.to_string())
        };
        let owned = |doc: &Value| {
            crate::flatten_owned(doc.clone(), &crate::Options::default())
                .map(|f| (f.schema, f.diagnostics.to_json()))
                .map_err(|e| e.to_string())
        };
        let (mut direct, mut renumbered) = (0, 0);
        for doc in &documents() {
            let before = DIRECT_SITES.get();
            let fast = present(doc);
            let taken = DIRECT_SITES.get() > before;
            let fast_owned = owned(doc);
            let whole = fast_path::without(FastPath::DirectShare, || present(doc));
            let whole_owned = fast_path::without(FastPath::DirectShare, || owned(doc));
            // As text: `Value`'s equality does not see the order of an object's keys.
            let text = |r: &Result<(Value, Value), String>| {
                r.as_ref().map(|(p, d)| (p.to_string(), d.to_string())).ok()
            };
            assert_eq!(text(&fast), text(&fast_owned), "{doc}");
            assert_eq!(text(&whole), text(&whole_owned), "{doc}");
            assert_eq!(fast.is_ok(), fast_owned.is_ok(), "{doc}");
            direct += usize::from(taken);
            match (&fast, &whole) {
                (Ok(_), Ok(_)) if text(&fast) == text(&whole) => {}
                (Ok((a, da)), Ok((b, db))) => {
                    renumbered += 1;
                    let mut renaming = Renaming {
                        a_to_b: FastMap::default(),
                        b_to_a: FastMap::default(),
                    };
                    assert!(
                        renaming.same(a, b, true)
                            && renaming.same(da, db, false)
                            && renaming.same_paired(a, b),
                        "{doc}\n{a}\n{b}"
                    );
                }
                _ => assert_eq!(fast, whole, "{doc}"),
            }
        }
        eprintln!("{direct} documents wrote sites at once, {renumbered} renumbered");
        assert!(direct >= 7, "{direct} documents wrote a site at once");
        assert!(
            renumbered >= 1,
            "{renumbered} documents numbered differently"
        );
    }
}
