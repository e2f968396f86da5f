//! Where flattening would make the document stricter (SPEC §6 decision 37).
//!
//! Flattening a union makes its node accept more. That keeps the presentation at least as loose
//! as the original only where accepting more below a node makes the node accept more. Three
//! places turn that around:
//!
//! - under `not` (and `if`, whose subschema also chooses between `then` and `else`): accepting
//!   more there rejects more, or changes which branch applies;
//! - under a member of a `oneOf` that is not itself flattened: a looser member can match a value
//!   another member also matches, and `oneOf` then rejects it (a discriminated union's branches
//!   are told apart by their literals, and the flattened union replaces the `oneOf` anyway);
//! - under `contains` beside `maxContains`: more items may then match than allowed.
//!
//! A union site in such a place, or in a definition that such a place references, is *frozen*:
//! left as it is. The walk goes through the one subschema walker ([`keywords::subschemas`]) and
//! skips keywords the draft does not have; references are followed to their targets once each.

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::canonical::DataDigester;
use crate::diagnostics::SkipReason;
use crate::draft::Draft;
use crate::fasthash::{FastMap, FastSet};
use crate::identify::{self, Identified, Part, Union};
use crate::keywords::{self, Trail};
use crate::pointer;
use crate::wellformed::Facts;

/// The union sites that must not be flattened, and the identification of every union site (the
/// projection reuses it instead of identifying again).
#[derive(Default)]
pub(crate) struct Frozen {
    /// Pointers of union sites in a place where flattening would make the document stricter.
    pub sites: FastSet<String>,
    /// Union sites identified, by pointer (empty when the caller passed its own).
    pub identified: FastMap<String, Identified>,
    /// Sites written alike, by group ([`Identifications::alike`]; empty when the caller passed
    /// its own identifications).
    pub alike: FastMap<String, usize>,
}

/// Finds the frozen union sites of `document`. The sites in scope are the well-formedness pass's
/// (`facts.union_sites`), or the root's alone (`root_only`). The root is frozen only when a `$ref` reaches it
/// (`root_referenced`) from a frozen place: with the root the only site and no reference to it
/// there is nothing to freeze. A site missing from the identifications stays as it is, so the
/// members of its `oneOf` are frozen (under `Scope::Root` every nested site). `known` holds
/// identifications already made (the owning path identifies every site first with
/// [`identify_all`]); otherwise they are made here by [`identify_all`].
///
/// A union joined as a branch of another (SPEC §2.9, rule 1 on projected branches) is flattened
/// whatever it would be on its own, so its members are not frozen by it; and a union one of
/// whose nested unions is frozen cannot become one object: it is demoted
/// ([`SkipReason::BranchUnionKept`]) and the walk runs again, until nothing changes.
pub(crate) fn frozen(
    document: &Value,
    facts: &Facts,
    root_only: bool,
    root_referenced: bool,
    known: Option<&FastMap<String, Identified>>,
) -> Frozen {
    let mut out = Frozen::default();
    let sites = &facts.union_sites;
    if (root_only || sites.iter().all(String::is_empty)) && !root_referenced {
        return out;
    }
    if known.is_none() {
        let all = if root_only {
            identify_all(document, facts, sites.iter().position(String::is_empty))
        } else {
            identify_all(document, facts, 0..sites.len())
        };
        out.identified = all.identified;
        out.alike = all.alike;
    }
    loop {
        let identified = known.unwrap_or(&out.identified);
        out.sites = if may_freeze(facts, identified) {
            walk(document, facts, identified)
        } else {
            FastSet::default()
        };
        if known.is_some() || !demote(&mut out) {
            return out;
        }
    }
}

/// Whether the walk can find a frozen site, given every site's identification: only below a
/// place that freezes — a `not`, an `if`, a `contains` beside `maxContains`
/// ([`Facts::freezing_keyword`]), or a `oneOf` that is not flattened. The well-formedness pass
/// walked the same nodes; without such a place the walk starts unfrozen, never freezes, and
/// finds nothing (SPEC §6 decision 83).
fn may_freeze(facts: &Facts, identified: &FastMap<String, Identified>) -> bool {
    facts.freezing_keyword
        || facts
            .one_of_sites
            .iter()
            .any(|&i| !flattened(identified, &facts.union_sites[i]))
}

/// Whether the site at `ptr` is identified as a union to flatten.
fn flattened(identified: &FastMap<String, Identified>, ptr: &str) -> bool {
    matches!(
        identified.get(ptr),
        Some(Identified::Union(_) | Identified::Alike(_))
    )
}

/// Every union site identified, and the unions joined below each registered over their own
/// identification.
///
/// A small site written exactly like an earlier one ([`identify::site_key`]: Pydantic writes a
/// union field as the same `oneOf` of `$ref`s at every use, an optional one as the same `anyOf`
/// of that and `null`) is identified once: the others take a copy with the pointers under the
/// site moved to theirs ([`Union::rebased`]). Identification reads the site's subtree and follows
/// `#/…` pointers from the root only (references by URI are normalized before), so two such sites
/// differ only in their pointers and in whether a site is the root's target, which the key holds
/// too — unless a reference leads into one of them (`ref_targets`: a pointer read there through
/// a `$ref` would be the same for both sites, not moved), which is then identified on its own.
///
/// `sites` are indexes into `facts.union_sites`; each site's key is the well-formedness pass's
/// (`facts.site_keys`), so a site written like an earlier one is not looked up in the document.
pub(crate) fn identify_all(
    document: &Value,
    facts: &Facts,
    sites: impl IntoIterator<Item = usize>,
) -> Identifications {
    let ref_targets = &facts.ref_targets;
    // Sized for every site at once: their tables, keyed by pointer, would otherwise grow (and
    // hash every pointer again) a dozen times on a document of thousands of sites.
    let count = facts.union_sites.len();
    let mut identified: FastMap<String, Identified> =
        FastMap::with_capacity_and_hasher(count, Default::default());
    let mut first_of: FastMap<(u128, bool), &str> = FastMap::default();
    // The first site identified of each bag of members (SPEC §6 decision 81).
    let mut first_of_bag: FastMap<(u128, bool), Site<'_>> = FastMap::default();
    let mut alike: FastMap<String, usize> =
        FastMap::with_capacity_and_hasher(count, Default::default());
    // Each key's group; `None` for a union whose subtree reads where it stands.
    let mut group_of_key: FastMap<(u128, bool), Option<usize>> = FastMap::default();
    // Each key's identification, shared by its later sites ([`Identified::Alike`]).
    let mut shared_of: FastMap<(u128, bool), identify::Alike> = FastMap::default();
    let digester = &facts.keys;
    let targets = pointer::Enclosing::new(ref_targets.iter().map(String::as_str));
    let referenced_into = |site: &str| targets.any_at_or_under(site);
    let mut cursor = pointer::Cursor::new(document);
    for i in sites {
        let site = &facts.union_sites[i];
        let text = facts.site_keys[i];
        let key = text.filter(|_| !referenced_into(site)).map(|text| {
            (
                text,
                site.is_empty() || identify::is_root_target(document, site),
            )
        });
        let first = key.as_ref().and_then(|k| Some((k, *first_of.get(k)?)));
        let copied = first.and_then(|(key, first)| match identified.get(first)? {
            Identified::Union(union) => {
                // Discriminated unions written alike may share their join too.
                let next = group_of_key.len();
                let g = *group_of_key.entry(*key).or_insert_with(|| {
                    let reads = matches!(cursor.get(site), Some(Value::Object(map))
                        if identify::reads_where_it_stands(map));
                    (!reads).then_some(next)
                });
                if let Some(g) = g {
                    if !alike.contains_key(first) {
                        alike.insert(first.to_owned(), g);
                    }
                    alike.insert(site.clone(), g);
                }
                // With nothing nested (nothing below registered, nothing to demote) the
                // identification is moved under this site only where it is read.
                if !union.nested.is_empty() {
                    return Some(Identified::Union(union.rebased(first, site)));
                }
                let shared = shared_of
                    .entry(*key)
                    .or_insert_with(|| Rc::new((first.to_owned(), union.clone())));
                Some(Identified::Alike(Rc::clone(shared)))
            }
            Identified::Alike(shared) => Some(Identified::Alike(Rc::clone(shared))),
            Identified::NotUnion(reason) => Some(Identified::NotUnion(reason.clone())),
        });
        let id = match copied {
            Some(id) => id,
            None => {
                let Some(Value::Object(map)) = cursor.get(site) else {
                    continue;
                };
                if let Some(key) = key {
                    first_of.insert(key, site);
                }
                let bags = Bags {
                    digester,
                    first_of: &mut first_of_bag,
                    identified: &identified,
                };
                bags.identify(document, (site, map), key.map(|(_, root)| root))
            }
        };
        identified.insert(site.clone(), id);
    }
    for ptr in register_joined(&mut identified) {
        alike.remove(&ptr);
    }
    Identifications { identified, alike }
}

/// A union site's pointer and node.
type Site<'d> = (&'d str, &'d Map<String, Value>);

/// The sites identified first of each bag of members (SPEC §6 decision 81), by
/// [`identify::members_key`] and the reading of whether the root leads there.
struct Bags<'b, 'd> {
    digester: &'b DataDigester,
    first_of: &'b mut FastMap<(u128, bool), Site<'d>>,
    identified: &'b FastMap<String, Identified>,
}

impl<'d> Bags<'_, 'd> {
    /// The identification of a site not written like an earlier one: the earlier one's with its
    /// branches in this site's order where it lists the same members (a key, `root`: the site
    /// has a text key, not referenced into), else its own.
    fn identify(self, document: &Value, (site, map): Site<'d>, root: Option<bool>) -> Identified {
        let bag = root.and_then(|root| Some((identify::members_key(self.digester, map)?, root)));
        let permuted = bag.and_then(|bag| {
            let (first, first_map) = *self.first_of.get(&bag)?;
            match self.identified.get(first)? {
                Identified::Union(union) => {
                    union.permuted(self.digester, (first, first_map), (site, map))
                }
                _ => None,
            }
        });
        match permuted {
            Some(union) => Identified::Union(union),
            None => {
                if let Some(bag) = bag {
                    self.first_of.entry(bag).or_insert((site, map));
                }
                identify::identify(map, site, document)
            }
        }
    }
}

/// What [`identify_all`] makes: every union site's identification, and the sites written alike.
#[derive(Default)]
pub(crate) struct Identifications {
    /// Union sites identified, by pointer.
    pub identified: FastMap<String, Identified>,
    /// Discriminated unions written alike ([`identify::site_key`], not referenced into, and
    /// with the same reading of whether the root leads there) whose subtree does not read where
    /// it stands ([`identify::reads_where_it_stands`]), by group: each group's sites read the
    /// same identification with their own pointers. A site whose identification an enclosing union's
    /// replaces ([`register_joined`]) is in no group.
    pub alike: FastMap<String, usize>,
}

/// Registers every union joined because an enclosing union is (SPEC §2.9) over its own
/// identification: as a branch of a joined union it is joined even without a discriminator.
/// Returns the pointers registered.
fn register_joined(identified: &mut FastMap<String, Identified>) -> Vec<String> {
    let mut below = Vec::new();
    for id in identified.values() {
        if let Identified::Union(union) = id {
            union.joined_below(&mut below);
        }
    }
    let mut registered = Vec::with_capacity(below.len());
    for (ptr, union) in below {
        registered.push(ptr.clone());
        identified.insert(ptr, Identified::Union(union));
    }
    registered
}

/// Demotes each union with a frozen union below it (it cannot become one object); whether any
/// was.
fn demote(out: &mut Frozen) -> bool {
    let mut demoted = Vec::new();
    for (ptr, id) in &out.identified {
        if let Identified::Union(union) = id
            && let Some(branch) = kept_branch(union, &out.sites)
        {
            demoted.push((ptr.clone(), branch));
        }
    }
    for (ptr, branch) in &demoted {
        out.identified.insert(
            ptr.clone(),
            Identified::NotUnion(Some(SkipReason::BranchUnionKept { branch: *branch })),
        );
    }
    !demoted.is_empty()
}

/// The first branch of `union` holding a union, joined with it, that is frozen (at any depth).
pub(crate) fn kept_branch(union: &Union, frozen: &FastSet<String>) -> Option<usize> {
    union.nested.iter().find_map(|(ptr, inner)| {
        let kept = frozen.contains(ptr) || kept_branch(inner, frozen).is_some();
        kept.then(|| {
            union
                .branches
                .iter()
                .position(|b| b.parts.iter().any(|p| *p == Part::Node(ptr.clone())))
                .unwrap_or(0)
        })
    })
}

/// One walk from the root: the union sites in a place where flattening would make the document
/// stricter, given which `oneOf` sites are flattened. Recursion is bounded: the document passed
/// the depth check of the well-formedness pass, and every step descends one JSON level.
fn walk(
    document: &Value,
    facts: &Facts,
    identified: &FastMap<String, Identified>,
) -> FastSet<String> {
    let mut walk = Walk {
        draft: facts.draft,
        identified,
        sites: FastSet::default(),
        pending: Vec::new(),
        scratch: String::new(),
    };
    if facts.freezing_keyword {
        walk.node(document, &mut Trail::from(String::new()), false);
    } else {
        // The only places that freeze are the `oneOf`s left as they are: their members are
        // walked frozen, and nothing else can freeze (SPEC §6 decision 83).
        let mut cursor = pointer::Cursor::new(document);
        for &i in &facts.one_of_sites {
            let site = &facts.union_sites[i];
            if flattened(identified, site) {
                continue;
            }
            let Some(Value::Array(members)) = cursor.get(site).and_then(|n| n.get("oneOf")) else {
                continue;
            };
            for (j, member) in members.iter().enumerate() {
                let mut trail = Trail::from(site.clone());
                trail.push(keywords::Place::Index("oneOf", j));
                walk.node(member, &mut trail, true);
            }
        }
    }
    // Definitions a frozen place references are frozen too, wherever else they are used; each
    // is walked frozen once.
    let mut frozen_roots: FastSet<String> = FastSet::default();
    while let Some(target) = walk.pending.pop() {
        // Many frozen places refer to the same few definitions: each is looked up once.
        if frozen_roots.contains(&target) {
            continue;
        }
        frozen_roots.insert(target.clone());
        if let Some(node) = pointer::get(document, &target) {
            walk.node(node, &mut Trail::from(target), true);
        }
    }
    walk.sites
}

/// The state of one [`walk`].
struct Walk<'w> {
    draft: Draft,
    identified: &'w FastMap<String, Identified>,
    /// The frozen union sites found.
    sites: FastSet<String>,
    /// The targets of references met in a frozen place, to walk frozen.
    pending: Vec<String>,
    /// A buffer for a union site's pointer, to look its identification up.
    scratch: String,
}

impl Walk<'_> {
    /// Walks `node`, where `trail` stands (written out only at union sites).
    fn node<'d>(&mut self, node: &'d Value, trail: &mut Trail<'d>, frozen: bool) {
        let Value::Object(map) = node else { return };
        let union_here = keywords::has(map, "oneOf") || keywords::has(map, "anyOf");
        if frozen && union_here {
            self.sites.insert(trail.pointer());
        }
        if frozen
            && let Some(target) = keywords::get(map, "$ref")
                .and_then(Value::as_str)
                .and_then(pointer::local_ref)
        {
            self.pending.push(target);
        }
        let exclusive = !frozen
            && keywords::has(map, "oneOf")
            && !{
                trail.write_into(&mut self.scratch);
                flattened(self.identified, &self.scratch)
            };
        let max_contains = keywords::has(map, "maxContains");
        let draft = self.draft;
        keywords::subschemas(map, |place, child| {
            let keyword = place.keyword();
            if !draft.knows(keyword) {
                return;
            }
            let freezes = matches!(keyword, "not" | "if")
                || (keyword == "oneOf" && exclusive)
                || (keyword == "contains" && max_contains);
            trail.push(place);
            self.node(child, trail, frozen || freezes);
            trail.pop();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn du() -> Value {
        json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]})
    }

    /// What the well-formedness pass finds.
    fn facts_of(doc: &Value) -> Facts {
        crate::wellformed::check(doc).expect("well-formed")
    }

    /// The frozen sites of `doc`, whose union sites are `sites` (in any order).
    fn sites_of(doc: &Value, sites: &[&str]) -> FastSet<String> {
        let facts = facts_of(doc);
        let mut found: Vec<&str> = facts.union_sites.iter().map(String::as_str).collect();
        let mut given = sites.to_vec();
        found.sort_unstable();
        given.sort_unstable();
        assert_eq!(found, given, "the document's union sites");
        frozen(doc, &facts, false, false, None).sites
    }

    #[test]
    fn not_if_and_max_contains_freeze_what_they_hold() {
        let doc = json!({"properties": {
            "a": {"not": du()},
            "b": {"if": du(), "then": du()},
            "c": {"contains": du(), "maxContains": 1},
            "d": {"contains": du()},
            "e": du()
        }});
        let sites = [
            "/properties/a/not",
            "/properties/b/if",
            "/properties/b/then",
            "/properties/c/contains",
            "/properties/d/contains",
            "/properties/e",
        ];
        let frozen = sites_of(&doc, &sites);
        let expected: FastSet<String> = [
            "/properties/a/not",
            "/properties/b/if",
            "/properties/c/contains",
        ]
        .map(str::to_owned)
        .into_iter()
        .collect();
        assert_eq!(frozen, expected);
    }

    #[test]
    fn members_of_a_one_of_that_stays_are_frozen_those_of_a_flattened_one_are_not() {
        let mut branch = du()["oneOf"][0].clone();
        branch["properties"]["v"] = du();
        let flattened = json!({"oneOf": [branch, du()["oneOf"][1].clone()]});
        let sites = ["", "/oneOf/0/properties/v"];
        assert!(sites_of(&flattened, &sites).is_empty());
        // Without literals a nested `oneOf` is no discriminated union: it stays, and a looser
        // member could match what the other matches. (At the root it is joined, SPEC §2.9.)
        let members = json!([{"type": "object", "properties": {"v": du()}}, {"type": "object"}]);
        let kept = json!({"properties": {"p": {"oneOf": members}}});
        let frozen = sites_of(
            &kept,
            &["/properties/p", "/properties/p/oneOf/0/properties/v"],
        );
        assert_eq!(
            frozen,
            FastSet::from_iter(["/properties/p/oneOf/0/properties/v".to_owned()])
        );
        let joined = json!({"oneOf": members});
        assert!(sites_of(&joined, &["", "/oneOf/0/properties/v"]).is_empty());
    }

    #[test]
    fn a_union_joined_as_a_branch_does_not_freeze_its_members_and_one_frozen_elsewhere_demotes_it()
    {
        // A nested `oneOf` with no discriminator of its own, a branch of a DU: joined with it
        // (SPEC §2.9), so the DU in its member is not frozen.
        let mut leaf = du()["oneOf"][0].clone();
        leaf["properties"]["v"] = du();
        let inner =
            json!({"oneOf": [leaf, {"type": "object", "properties": {"k": {"const": "a"}}}]});
        let dog = json!({"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]});
        let doc = json!({"properties": {"p": {"oneOf": [{"$ref": "#/$defs/Cat"}, dog]}},
                         "$defs": {"Cat": inner}});
        let sites = [
            "/properties/p",
            "/$defs/Cat",
            "/$defs/Cat/oneOf/0/properties/v",
        ];
        assert!(sites_of(&doc, &sites).is_empty());
        // The same definition under `not` elsewhere is frozen: the DU that holds it as a branch
        // cannot become one object and stays, so what its members hold is frozen too.
        let mut held = doc.clone();
        held["properties"]["q"] = json!({"not": {"$ref": "#/$defs/Cat"}});
        let frozen = frozen(&held, &facts_of(&held), false, false, None);
        assert!(frozen.sites.contains("/$defs/Cat"));
        assert!(matches!(
            frozen.identified.get("/properties/p"),
            Some(Identified::NotUnion(Some(SkipReason::BranchUnionKept {
                branch: 0
            })))
        ));
    }

    #[test]
    fn a_definition_referenced_from_a_frozen_place_is_frozen() {
        let doc = json!({
            "$defs": {"U": du(), "W": {"$ref": "#/$defs/U"}},
            "properties": {"a": {"not": {"$ref": "#/$defs/W"}}, "b": {"$ref": "#/$defs/U"}}
        });
        // One site, not at the root: still walked.
        let frozen = sites_of(&doc, &["/$defs/U"]);
        assert_eq!(frozen, FastSet::from_iter(["/$defs/U".to_owned()]));
    }

    /// What [`identify_all`] makes without sharing: every site identified on its own.
    fn each_alone(doc: &Value, sites: &[String]) -> FastMap<String, Identified> {
        let mut alone: FastMap<String, Identified> = sites
            .iter()
            .filter_map(|site| match pointer::get(doc, site)? {
                Value::Object(map) => Some((site.clone(), identify::identify(map, site, doc))),
                _ => None,
            })
            .collect();
        let _ = register_joined(&mut alone);
        alone
    }

    /// Sites written alike share one identification (SPEC §6 decision 73); each must read as it
    /// does identified on its own. Returns how many sites `identify_all` identified.
    fn assert_shared_reads_alone(doc: &Value) -> usize {
        let facts = crate::wellformed::check(doc).expect("well-formed");
        let all: FastMap<String, Identified> =
            identify_all(doc, &facts, 0..facts.union_sites.len())
                .identified
                .into_iter()
                .map(|(site, id)| {
                    let id = id.at(&site);
                    (site, id)
                })
                .collect();
        let alone = each_alone(doc, &facts.union_sites);
        let mut sites: Vec<&String> = alone.keys().collect();
        sites.sort();
        assert_eq!(all.len(), alone.len());
        for site in sites {
            assert_eq!(
                format!("{:?}", all.get(site)),
                format!("{:?}", alone.get(site)),
                "site {site:?}"
            );
        }
        all.len()
    }

    /// Pydantic's forms: a union field, an optional one (`anyOf` of the union and `null`), a list
    /// of it, each written alike at several places, and the root's union of commands.
    #[test]
    fn sites_written_alike_read_as_each_alone() {
        let field = json!({"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
            "discriminator": {"propertyName": "kind",
                "mapping": {"a": "#/$defs/A", "b": "#/$defs/B"}}, "title": "Part"});
        let optional = json!({"anyOf": [field.clone(), {"type": "null"}], "default": null});
        // Pydantic titles each field: sites differ in their own annotations only.
        let titled = |site: &Value, title: &str| {
            let mut site = site.clone();
            site["title"] = json!(title);
            site["description"] = json!(format!("The {title}."));
            site
        };
        let command = |name: &str| {
            json!({"type": "object", "required": ["action", "p"], "properties": {
                "action": {"const": name},
                "p": titled(&field, name), "q": optional.clone(), "r": titled(&optional, "R"),
                "list": {"type": "array", "items": field.clone()}}})
        };
        let doc = json!({"oneOf": [command("x"), command("y")], "$defs": {
            "A": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"const": "a"}, "v": {"type": "string"}}},
            "B": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"const": "b"}, "w": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}}}});
        // The root; per command p, q and r (each with its oneOf), the list's items; B's w.
        assert_eq!(assert_shared_reads_alone(&doc), 1 + 2 * 6 + 1);
    }

    /// A reference into a site: the part it leads to is the first site's for every site written
    /// like it, so a copy with the pointer moved under another site would read the wrong node.
    #[test]
    fn a_site_referenced_into_is_identified_on_its_own() {
        let site = json!({"oneOf": [
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "a"}},
             "allOf": [{"$ref": "#/properties/s1/oneOf/1/properties/x"}]},
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "b"},
             "x": {"type": "object", "properties": {"z": {"type": "string"}}}}}
        ]});
        let doc = json!({"type": "object", "properties": {
            "s1": site.clone(), "s2": site.clone(), "s3": site}});
        assert_eq!(assert_shared_reads_alone(&doc), 3);
        let facts = crate::wellformed::check(&doc).expect("well-formed");
        let mut all = identify_all(&doc, &facts, 0..facts.union_sites.len()).identified;
        let s3 = all
            .remove("/properties/s3")
            .map(|id| id.at("/properties/s3"));
        let Some(Identified::Union(s3)) = s3 else {
            panic!("s3 is a discriminated union: {s3:?}");
        };
        assert!(
            s3.branches[0].parts.contains(&Part::Node(
                "/properties/s1/oneOf/1/properties/x".to_owned()
            )),
            "{:?}",
            s3.branches[0].parts
        );
    }

    /// The same members listed in other orders (SPEC §6 decision 81): inline members (parts
    /// under the member), references, an `allOf`, members without a title (labelled by
    /// position), a member listed twice, an explicit discriminator every branch requires, one
    /// some branch leaves optional, and one no branch has. Each site reads as identified on its own, and the
    /// permutation is what serves them.
    #[test]
    fn members_in_another_order_read_as_each_alone() {
        let a = json!({"$ref": "#/$defs/A"});
        let b = json!({"title": "Bee", "allOf": [{"$ref": "#/$defs/B"}],
            "properties": {"n": {"type": "integer"}}});
        let c = json!({"type": "object", "required": ["kind"],
            "properties": {"kind": {"enum": ["c", "cc"]}, "s": {"type": "string"}}});
        let d = json!({"type": "object", "properties": {"kind": {"const": "d"}}});
        let site = |members: Vec<&Value>, name: &str| json!({"oneOf": members, "discriminator": {"propertyName": name}});
        let orders = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0]];
        let mut properties = Map::new();
        for (n, order) in orders.iter().enumerate() {
            let required: Vec<&Value> = order.iter().map(|&i| [&a, &b, &c][i]).collect();
            properties.insert(format!("r{n}"), site(required, "kind"));
            // `d` leaves `kind` optional: no candidate is required by every branch.
            let optional: Vec<&Value> = order.iter().map(|&i| [&a, &d, &c][i]).collect();
            properties.insert(format!("o{n}"), site(optional, "kind"));
            let other: Vec<&Value> = order.iter().map(|&i| [&a, &b, &c][i]).collect();
            properties.insert(format!("t{n}"), site(other, "other"));
            // Listed twice, `c` overlaps itself: no discriminated union, in any order.
            let twice: Vec<&Value> = order.iter().map(|&i| [&a, &c, &c][i]).collect();
            properties.insert(format!("d{n}"), site(twice, "kind"));
        }
        let doc = json!({"type": "object", "properties": properties, "$defs": {
            "A": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"const": "a"}, "v": {"type": "string"}}},
            "B": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"const": "b"}}}}});
        assert_eq!(assert_shared_reads_alone(&doc), orders.len() * 4);
        let digester = DataDigester::new();
        let at = |p: &str| -> (String, &Map<String, Value>) {
            let ptr = format!("/properties/{p}");
            let Some(Value::Object(map)) = pointer::get(&doc, &ptr) else {
                panic!("{ptr}")
            };
            (ptr, map)
        };
        for family in ["r", "o"] {
            let (first, first_map) = at(&format!("{family}0"));
            let Identified::Union(union) = identify::identify(first_map, &first, &doc) else {
                panic!("{first} is a discriminated union");
            };
            for n in 1..orders.len() {
                let (to, to_map) = at(&format!("{family}{n}"));
                let permuted = union.permuted(&digester, (&first, first_map), (&to, to_map));
                let alone = identify::identify(to_map, &to, &doc);
                assert_eq!(
                    format!("{:?}", permuted.map(Identified::Union)),
                    format!("{:?}", Some(alone)),
                    "{to}"
                );
            }
        }
        // `other` names no property: identification falls back to `kind`, and the permutation
        // does not serve.
        let (first, first_map) = at("t0");
        let (to, to_map) = at("t1");
        let Identified::Union(union) = identify::identify(first_map, &first, &doc) else {
            panic!("{first} is a discriminated union");
        };
        assert!(
            union
                .permuted(&digester, (&first, first_map), (&to, to_map))
                .is_none()
        );
    }

    /// Where [`may_freeze`] says no, the walk finds nothing, and where no keyword freezes, the
    /// walk from the `oneOf`s left as they are finds what the whole walk finds: on every
    /// well-formed schema of the JSON-Schema-Test-Suite and the corpus dialects, and on the
    /// documents of the tests above (frozen sites under `not`, `if`, `contains` beside
    /// `maxContains`, a `oneOf` left as it is, a reference from a frozen place).
    #[test]
    fn without_a_place_that_freezes_the_walk_finds_nothing() {
        let mut docs = crate::test_corpus::schemas();
        for (site, doc) in [
            (
                "/properties/a/not",
                json!({"properties": {"a": {"not": du()}}}),
            ),
            ("/if", json!({"if": du(), "then": du()})),
            ("/contains", json!({"contains": du(), "maxContains": 1})),
            ("/oneOf/1", json!({"oneOf": [{"type": "string"}, du()]})),
            (
                "/$defs/U",
                json!({"properties": {"a": {"not": {"$ref": "#/$defs/U"}}}, "$defs": {"U": du()}}),
            ),
        ] {
            let facts = facts_of(&doc);
            let all = identify_all(&doc, &facts, 0..facts.union_sites.len());
            assert!(may_freeze(&facts, &all.identified), "{doc}");
            let found = walk(&doc, &facts, &all.identified);
            assert!(found.contains(site), "{site} in {found:?}");
            docs.push(doc);
        }
        let (mut quiet, mut freezing, mut narrowed) = (0, 0, 0);
        for doc in &docs {
            let Ok(mut facts) = crate::wellformed::check(doc) else {
                continue;
            };
            let all = identify_all(doc, &facts, 0..facts.union_sites.len());
            let found = walk(doc, &facts, &all.identified);
            if !facts.freezing_keyword {
                // Walked from the `oneOf`s left as they are only: what the whole walk finds.
                facts.freezing_keyword = true;
                let whole = walk(doc, &facts, &all.identified);
                facts.freezing_keyword = false;
                assert_eq!(found, whole, "{doc}");
                narrowed += usize::from(!found.is_empty());
            }
            if may_freeze(&facts, &all.identified) {
                freezing += usize::from(!found.is_empty());
            } else {
                assert!(found.is_empty(), "{doc}: {found:?}");
                quiet += 1;
            }
        }
        assert!(
            quiet > 1000 && freezing > 5 && narrowed > 2,
            "{quiet} {freezing} {narrowed}"
        );
    }
}
