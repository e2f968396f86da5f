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
//! the repair of references (which repairs each join once): it counts the flat objects as if
//! every placeholder were its join, writes those standing twice or more once, and puts the
//! others back in place. Only identical objects share.

use std::rc::Rc;

use serde_json::{Map, Value};

use super::{KEPT_AFTER, KEPT_BEFORE, Projected, Projector};
use crate::canonical::{DataDigester, JoinDigests};
use crate::diagnostics::{FlattenedSite, SkippedSite};
use crate::error::Error;
use crate::fasthash::FastMap;
use crate::identify::UnionHere;
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
    group_of: FastMap<String, usize>,
    pub(super) groups: Vec<Group>,
    /// The root definitions container the shared joins go into.
    pub(super) container: &'static str,
    /// A finished join's key → the first group whose join it is (groups whose joins come out
    /// identical share one placeholder identity).
    by_key: FastMap<u128, usize>,
    /// The joins' digests for dedup, kept for the projection.
    pub(super) digests: JoinDigests,
    /// The digester of the sharing keys ([`marked_key`]), its seeds drawn once per projection.
    pub(super) keys: DataDigester,
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
}

impl Group {
    /// What [`Projector::record_shared_sites`] reads of the group (the body left out).
    fn recorded(&self) -> Group {
        Group {
            first: self.first.clone(),
            body: None,
            key: 0,
            canonical: self.canonical,
            repaired_at: None,
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
        let digester = DataDigester::new();
        let mut by_key: FastMap<u128, Vec<&str>> = FastMap::default();
        let mut order: Vec<u128> = Vec::new();
        let mut cursor = pointer::Cursor::new(document);
        // Sites written alike (the same text key) have the same sharing key: it is made once.
        let written = (frozen.written.len() == facts.union_sites.len()).then_some(&frozen.written);
        let mut known: FastMap<u128, Option<u128>> = FastMap::default();
        for (i, site) in facts.union_sites.iter().enumerate() {
            if frozen.sites.contains(site.as_str()) || !shares_from(site) {
                continue;
            }
            let text = written.and_then(|w| w[i]);
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
            entry.push(site);
        }
        let mut sharing = Sharing {
            container: super::container_name(document),
            keys: digester,
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

/// Whether a union site at `site` may be shared for where it stands: not the root, not a
/// definitions entry (already shared).
fn shares_from(site: &str) -> bool {
    site.rfind('/').is_some_and(|i| {
        let parent = &site[..i];
        !(parent.ends_with("/$defs") || parent.ends_with("/definitions"))
    })
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
    /// The group of the union site at `ptr`, when it is shared.
    pub(super) fn shared_group(&self, ptr: &str) -> Option<usize> {
        self.sharing.as_ref()?.group_of.get(ptr).copied()
    }

    /// Joins the shared union site at `ptr` (the group's first site reached) or takes the join
    /// of its group (a later site): the site's placeholder, once the group's join is done. A
    /// site reached while its group's first join is under way (a recursive definition) is
    /// joined in full and marked.
    pub(super) fn flatten_shared(
        &mut self,
        node: &Map<String, Value>,
        ptr: &str,
        union: UnionHere,
        g: usize,
    ) -> Result<Value, Error> {
        let sharing = self.sharing.as_mut().expect("a shared group has a plan");
        let group = &mut sharing.groups[g];
        if let Some(body) = &group.body {
            if group.first.as_deref() != Some(ptr) {
                let keyword = super::union_keyword(node);
                group.later.push((ptr.to_owned(), keyword));
            }
            return Ok(placeholder(node, body, g, group.canonical));
        }
        let union = union.at(ptr);
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
        let out = placeholder(node, &flat, g, canonical);
        group.body = Some(flat);
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
                let rebase = |p: &str| pointer::under(&later, &p[first.len()..]);
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
