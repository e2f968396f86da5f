//! The coverage oracle (SPEC §2.9, §4 "Object guarantee" as amended): a root union whose members
//! all admit only objects yields one object, every union site of the original is named in the
//! diagnostics, and every reason given for a site left as it is holds by the harness's own
//! reading.
//!
//! Nothing here calls the core's identification, kinds or polarity code: the original is read
//! with the harness's own walkers ([`crate::keywords`], [`crate::refs`], [`crate::drafts`]) and
//! the provability, discriminated-union and polarity readings below. The diagnostics are read
//! as the CLI prints them (`Diagnostics::to_json`: `flattened[].pointer`,
//! `skipped[].pointer`/`code`), so the oracle judges what any consumer of them reads.
//!
//! What is judged:
//!
//! - (a) **Root object.** When the root is a union (`oneOf`, else `anyOf`, two members or more)
//!   and every member provably admits only objects (its `type`, intersected over its folded
//!   parts and the union node's sibling `type`, is exactly `object`; a member that is itself a
//!   union of such members counts too), the presentation's root is one object: `type: "object"`
//!   and no `oneOf`/`anyOf`. Under both scopes, with or without diagnostics.
//! - (b) **Every site named** (diagnostics present): every union site the declared draft reads
//!   (decision 35; up to draft-07 a `$ref`'s siblings are not read, decision 2) is flattened, or
//!   skipped with a code of the closed list ([`CODES`]); under `Scope::Root` only the root
//!   (decision 12).
//! - (c) **Every reason judged**: `frozen` by the polarity reading (decision 37);
//!   `no-discriminator`/`overlapping-literals` when the relaxed reading (decision 68) finds no
//!   discriminator and the site is not a root that (a) requires joined; `branch-not-object`/
//!   `branch-unresolvable` when some branch is not provably objects only;
//!   `branch-union-kept` when some branch is, or resolves to, a union site left as it is.
//! - (d) a nested site that reads as a discriminated union and is not flattened carries `frozen`.
//! - (e) **Nothing frozen flattened** (decision 37): no site the polarity reading freezes is
//!   among the flattened; the root is one when a `$ref` to it (`#`, or an anchor or `$id`
//!   naming it) is reached from a frozen place, and then the presentation's root still holds
//!   its `oneOf`/`anyOf` ((a) does not apply to it).
//!
//! Every doubt reads in the core's favour: a branch the reading cannot follow (a remote or
//! cyclic `$ref`, a boolean part) is not provably an object and has no literals.

#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use flatjoin::Scope;
use serde_json::Value;

use super::{Judged, Oracle, Outcome, Subject, passed};
use crate::drafts::{self, Draft};
use crate::identity::{canonical_data, sorted_text};
use crate::keywords::{self, Holds};
use crate::refs::{self, escape_token};

/// The closed list of reasons a union site is left as it is (SPEC §2.9).
pub const CODES: [&str; 6] = [
    "branch-not-object",
    "branch-unresolvable",
    "branch-union-kept",
    "no-discriminator",
    "overlapping-literals",
    "frozen",
];

/// Bound on nested reading (`$ref` hops, `allOf` and union nesting) in one judgement.
const MAX_DEPTH: usize = 32;

/// Bound on unions nested in branches when reading literal sets.
const MAX_NESTING: usize = 8;

impl Subject {
    /// Coverage (SPEC §2.9, §4 "Object guarantee"): the parts of [`judge_coverage`] the
    /// flattener's diagnostics allow — (a)–(d) with them (the core's own, or an implementation's
    /// sent with its answer, SPEC §6 decision 75), part (a) alone without (decision 40).
    pub fn coverage(&self) -> Judged {
        match judge_coverage(
            &self.original,
            self.options.scope,
            &self.flattened.schema,
            self.diagnostics.as_ref(),
        ) {
            Ok(0) => Ok(Outcome::Skipped(
                "nothing to judge: the root is no union of objects, and no union site in scope comes with diagnostics"
                    .into(),
            )),
            Ok(checked) => Ok(passed(checked)),
            Err(message) => Err(self.violation(Oracle::Coverage, message)),
        }
    }
}

/// Where the harness's polarity reading (SPEC §6 decision 37) freezes the root of `original`
/// flattened under `scope` (a `$ref` to it from a frozen place), or `None`: the object
/// guarantee does not ask such a root to be one object. `diagnostics` (the
/// `Diagnostics::to_json` shape) say which nested `oneOf` sites are flattened; without them
/// every nested one is read as staying.
pub fn root_frozen(original: &Value, scope: Scope, diagnostics: Option<&Value>) -> Option<String> {
    let named = diagnostics.map(Named::of);
    let doc = Original::new(original, named.as_ref().map(|n| &n.flattened), scope);
    doc.frozen().place("").map(str::to_owned)
}

/// Judges `presentation` (and `diagnostics`, the `Diagnostics::to_json` shape, when present) of
/// `original` flattened under `scope`: the number of judgements made, or what failed.
pub fn judge_coverage(
    original: &Value,
    scope: Scope,
    presentation: &Value,
    diagnostics: Option<&Value>,
) -> Result<usize, String> {
    let named = diagnostics.map(Named::of);
    let doc = Original::new(original, named.as_ref().map(|n| &n.flattened), scope);
    let frozen = doc.frozen();
    let root_objects = doc.root_only_objects();
    let root_frozen = frozen.holds("");
    let mut checked = 0;
    // (a) Root object, both scopes.
    if root_objects && !root_frozen {
        if !super::is_one_object(presentation) {
            return Err(format!(
                "the root is a union whose members all admit only objects (SPEC §2.9), but the presentation's root is not one object: {}",
                super::to_text(presentation)
            ));
        }
        checked += 1;
    }
    let Some(named) = named.as_ref() else {
        return Ok(checked);
    };
    let sites: Vec<&Node<'_>> = doc
        .sites()
        .filter(|n| scope == Scope::All || n.pointer.is_empty())
        .collect();
    judge_named(&sites, named)?;
    checked += judge_reasons(&doc, &sites, named, &frozen)?;
    judge_frozen(&sites, named, &frozen, presentation)?;
    Ok(checked)
}

/// Part (b): every union site in scope is flattened or named with a code of the closed list.
fn judge_named(sites: &[&Node<'_>], named: &Named) -> Result<(), String> {
    for site in sites {
        if named.flattened.contains(&site.pointer) {
            continue;
        }
        match named.skipped.get(&site.pointer) {
            Some(Some(code)) if CODES.contains(&code.as_str()) => {}
            Some(Some(code)) => {
                return Err(format!(
                    "the union site at {} is skipped with code {code:?}, which is not in the closed list of SPEC §2.9 ({})",
                    at(&site.pointer),
                    CODES.join(", ")
                ));
            }
            Some(None) => {
                return Err(format!(
                    "the union site at {} is skipped without a code from the closed list of SPEC §2.9",
                    at(&site.pointer)
                ));
            }
            None => {
                return Err(format!(
                    "the union site at {} is neither flattened nor named among the skipped sites (SPEC §2.9, §4: every union site left as it is is named with its reason)",
                    at(&site.pointer)
                ));
            }
        }
    }
    Ok(())
}

/// Parts (c) and (d): every reason a site is left with is judged against the harness's own
/// reading; the number of sites judged.
fn judge_reasons(
    doc: &Original<'_>,
    sites: &[&Node<'_>],
    named: &Named,
    frozen: &Frozen,
) -> Result<usize, String> {
    let root_objects = doc.root_only_objects();
    let root_frozen = frozen.holds("");
    let mut checked = 0;
    for site in sites {
        if named.flattened.contains(&site.pointer) {
            checked += 1;
            continue;
        }
        let Some(Some(code)) = named.skipped.get(&site.pointer) else {
            continue;
        };
        let root = site.pointer.is_empty();
        let du = doc.reads_as_du(site.value, 0);
        if du && !root && code != "frozen" {
            return Err(format!(
                "the nested union at {} reads as a discriminated union (SPEC §1, rule 3 relaxed by §2.9) and is left as it is with code {code:?}: only frozen (SPEC §6 decision 37) may leave it",
                at(&site.pointer)
            ));
        }
        let fails = match code.as_str() {
            "frozen" => (!frozen.holds(&site.pointer)).then(|| {
                "the harness's polarity reading (SPEC §6 decision 37) finds it under no not, if, contains beside maxContains or member of a oneOf that stays, nor in a definition such a place references".to_owned()
            }),
            "no-discriminator" | "overlapping-literals" => {
                if root && root_objects && !root_frozen {
                    Some("every member of the root admits only objects, so the root must be joined without a discriminator (SPEC §2.9)".to_owned())
                } else if du {
                    Some("the harness's relaxed reading finds a discriminator (SPEC §1, rule 3 relaxed by §2.9)".to_owned())
                } else {
                    None
                }
            }
            "branch-not-object" | "branch-unresolvable" => doc
                .all_branches_only_objects(site.value)
                .then(|| "every branch provably admits only objects".to_owned()),
            "branch-union-kept" => (!doc.has_kept_union_branch(site.value)).then(|| {
                "no branch is, or resolves to, a union site that the presentation leaves as it is"
                    .to_owned()
            }),
            _ => None,
        };
        if let Some(why) = fails {
            return Err(format!(
                "the union site at {} is skipped as {code:?}, but {why}",
                at(&site.pointer)
            ));
        }
        checked += 1;
    }
    Ok(checked)
}

/// Part (e), nothing frozen is flattened (SPEC §6 decision 37): a site the polarity reading
/// freezes is left as it is, the root included when a `$ref` to it (`#`, or an anchor or `$id`
/// naming it) is reached from a frozen place; decision 37 wins over §2.9's root join and §4's
/// object guarantee there, since the join would loosen what `not` negates. A site that passes
/// was skipped, and is counted by (c) already.
fn judge_frozen(
    sites: &[&Node<'_>],
    named: &Named,
    frozen: &Frozen,
    presentation: &Value,
) -> Result<(), String> {
    for site in sites {
        let Some(place) = frozen.place(&site.pointer) else {
            continue;
        };
        if named.flattened.contains(&site.pointer) {
            return Err(format!(
                "the union site at {} is frozen (SPEC §6 decision 37: {place}), but the diagnostics say it was flattened",
                at(&site.pointer)
            ));
        }
        if site.pointer.is_empty()
            && let Some(keyword) = union_keyword(site.value)
            && !presentation.get(keyword).is_some_and(Value::is_array)
        {
            return Err(format!(
                "the root union is frozen (SPEC §6 decision 37: {place}), but the presentation's root no longer holds its `{keyword}`: {}",
                super::to_text(presentation)
            ));
        }
    }
    Ok(())
}

fn at(pointer: &str) -> String {
    if pointer.is_empty() {
        "the root".to_owned()
    } else {
        format!("{pointer:?}")
    }
}

/// The sites the diagnostics name: flattened pointers, and each skipped pointer with its code.
struct Named {
    flattened: HashSet<String>,
    skipped: HashMap<String, Option<String>>,
}

impl Named {
    fn of(diagnostics: &Value) -> Named {
        let entries = |key: &str| {
            diagnostics
                .get(key)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .to_vec()
        };
        let pointer = |e: &Value| e.get("pointer").and_then(Value::as_str).map(str::to_owned);
        Named {
            flattened: entries("flattened").iter().filter_map(pointer).collect(),
            skipped: entries("skipped")
                .iter()
                .filter_map(|e| {
                    let code = e.get("code").and_then(Value::as_str).map(str::to_owned);
                    pointer(e).map(|p| (p, code))
                })
                .collect(),
        }
    }
}

/// Whether `draft` reads `keyword` (SPEC §6 decision 35): the harness's own table.
fn knows(draft: Draft, keyword: &str) -> bool {
    let from_06 = draft != Draft::Draft4;
    let from_07 = from_06 && draft != Draft::Draft6;
    let from_2019 = matches!(draft, Draft::Draft2019 | Draft::Draft2020);
    match keyword {
        "if" | "then" | "else" => from_07,
        "contains" | "propertyNames" => from_06,
        "dependentSchemas" | "unevaluatedProperties" | "unevaluatedItems" | "contentSchema" => {
            from_2019
        }
        "prefixItems" => draft == Draft::Draft2020,
        _ => true,
    }
}

/// One schema node of the original, where the walk found it.
struct Node<'a> {
    pointer: String,
    value: &'a Value,
    /// Beside a `$ref` the draft reads alone (up to draft-07, SPEC §6 decision 2), or below such
    /// a sibling: no schema of the draft's reading.
    ignored: bool,
    /// The index of the embedded resource the node belongs to (the nearest enclosing node, itself
    /// included, with a non-fragment `$id`, draft-04 `id`; SPEC §6 decisions 15, 33), against
    /// which its `#…` references resolve; `None` for the root resource.
    resource: Option<usize>,
}

/// A view of one part of a folded branch: a schema object of the document.
#[derive(Clone, Copy)]
enum Part<'a> {
    /// Every keyword of the node.
    Whole(&'a Value),
    /// A union node's sibling `type`, `properties` and `required` only, folded into each member.
    Siblings(&'a Value),
}

impl<'a> Part<'a> {
    fn get(self, keyword: &str) -> Option<&'a Value> {
        match self {
            Part::Whole(node) => node.get(keyword),
            Part::Siblings(node) => matches!(keyword, "type" | "properties" | "required")
                .then(|| node.get(keyword))
                .flatten(),
        }
    }

    /// The node and its union's members, when it is a union node (not a sibling view).
    fn union(self) -> Option<(&'a Value, &'a [Value])> {
        match self {
            Part::Whole(node) => union_members(node).map(|m| (node, m)),
            Part::Siblings(_) => None,
        }
    }
}

/// The members of a union node: `oneOf` when it is an array of two or more, else `anyOf` when it
/// is (SPEC §6 decision 8: `oneOf` is the union).
fn union_members(node: &Value) -> Option<&[Value]> {
    union_keyword(node).and_then(|k| node.get(k)?.as_array().map(Vec::as_slice))
}

/// The keyword holding the members [`union_members`] reads.
fn union_keyword(node: &Value) -> Option<&'static str> {
    ["oneOf", "anyOf"].into_iter().find(|k| {
        node.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|m| m.len() >= 2)
    })
}

/// A branch's parts, and whether every reference in it could be followed.
struct Fold<'a> {
    parts: Vec<Part<'a>>,
    sound: bool,
}

/// The harness's reading of one original.
struct Original<'a> {
    root: &'a Value,
    draft: Draft,
    scope: Scope,
    /// The sites the diagnostics say were flattened (`None` without diagnostics).
    flattened: Option<&'a HashSet<String>>,
    nodes: Vec<Node<'a>>,
    index: HashMap<*const Value, usize>,
    du_memo: RefCell<HashMap<*const Value, bool>>,
    objects_memo: RefCell<HashMap<(*const Value, *const Value), bool>>,
}

impl<'a> Original<'a> {
    fn new(root: &'a Value, flattened: Option<&'a HashSet<String>>, scope: Scope) -> Original<'a> {
        let mut doc = Original {
            root,
            draft: drafts::declared(root),
            scope,
            flattened,
            nodes: Vec::new(),
            index: HashMap::new(),
            du_memo: RefCell::new(HashMap::new()),
            objects_memo: RefCell::new(HashMap::new()),
        };
        let mut nodes = Vec::new();
        doc.walk(root, String::new(), false, None, &mut nodes);
        doc.index = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (std::ptr::from_ref(n.value), i))
            .collect();
        doc.nodes = nodes;
        doc
    }

    /// Up to draft-07 a `$ref`'s siblings are ignored (SPEC §6 decision 2).
    fn ref_alone(&self) -> bool {
        matches!(self.draft, Draft::Draft4 | Draft::Draft6 | Draft::Draft7)
    }

    /// `const` is no keyword in draft-04 (SPEC §6 decision 29).
    fn has_const(&self) -> bool {
        self.draft != Draft::Draft4
    }

    /// Every schema node through the keywords the draft reads (decision 35).
    fn walk(
        &self,
        node: &'a Value,
        pointer: String,
        ignored: bool,
        resource: Option<usize>,
        out: &mut Vec<Node<'a>>,
    ) {
        let Value::Object(map) = node else {
            return;
        };
        let resource = if !pointer.is_empty() && self.resource_id(node).is_some() {
            Some(out.len())
        } else {
            resource
        };
        let ref_alone = self.ref_alone() && map.contains_key("$ref");
        out.push(Node {
            pointer: pointer.clone(),
            value: node,
            ignored,
            resource,
        });
        for (keyword, value) in map {
            if !knows(self.draft, keyword) {
                continue;
            }
            let Some(holds) = keywords::holds(keyword) else {
                continue;
            };
            // Definitions stay reachable by pointer beside a `$ref` the draft reads alone.
            let ignored =
                ignored || (ref_alone && !matches!(keyword.as_str(), "definitions" | "$defs"));
            let here = format!("{pointer}/{}", escape_token(keyword));
            match (holds, value) {
                (Holds::One | Holds::OneOrList, Value::Object(_) | Value::Bool(_)) => {
                    self.walk(value, here, ignored, resource, out);
                }
                (Holds::List | Holds::OneOrList, Value::Array(members)) => {
                    for (i, m) in members.iter().enumerate() {
                        self.walk(m, format!("{here}/{i}"), ignored, resource, out);
                    }
                }
                (Holds::Map | Holds::MapOfSchemasOrNames, Value::Object(entries)) => {
                    for (name, sub) in entries {
                        if !sub.is_array() {
                            let there = format!("{here}/{}", escape_token(name));
                            self.walk(sub, there, ignored, resource, out);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The union sites: nodes the draft reads holding `oneOf`/`anyOf` with two or more members,
    /// in walk order.
    fn sites(&self) -> impl Iterator<Item = &Node<'a>> {
        self.nodes.iter().filter(move |n| self.is_site(n))
    }

    fn is_site(&self, n: &Node<'a>) -> bool {
        let ref_alone = self.ref_alone() && n.value.get("$ref").is_some();
        !(n.ignored || ref_alone) && union_members(n.value).is_some()
    }

    fn pointer_of(&self, node: &Value) -> Option<&str> {
        self.index
            .get(&std::ptr::from_ref(node))
            .map(|&i| self.nodes[i].pointer.as_str())
    }

    /// Whether the diagnostics say `node` was flattened.
    fn is_flattened(&self, node: &Value) -> bool {
        self.flattened
            .zip(self.pointer_of(node))
            .is_some_and(|(f, p)| f.contains(p))
    }

    /// The base URI a schema object declares as a resource (`$id`, draft-04 `id`), when it is
    /// not a plain-name fragment (an anchor).
    fn resource_id(&self, node: &'a Value) -> Option<&'a str> {
        let keyword = if self.draft == Draft::Draft4 {
            "id"
        } else {
            "$id"
        };
        node.get(keyword)
            .and_then(Value::as_str)
            .filter(|id| !id.starts_with('#'))
    }

    /// The target of the `$ref` of `node`, when this reading can follow it: a fragment
    /// (`#/pointer`, `#anchor`) against the resource `node` belongs to, or a URI that some
    /// resource of the document declares, written as it declares it, with such a fragment.
    /// Anything else (a remote or relative URI) is not followed: the harness never fetches.
    fn target(&self, node: &'a Value, reference: &Value) -> Option<&'a Value> {
        let reference = reference.as_str()?;
        let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let resource: Option<usize> = if base.is_empty() {
            self.index
                .get(&std::ptr::from_ref(node))
                .and_then(|&i| self.nodes[i].resource)
        } else {
            let declares = |(i, n): &(usize, &Node<'a>)| {
                let own = n.pointer.is_empty() || n.resource == Some(*i);
                own && self
                    .resource_id(n.value)
                    .is_some_and(|id| id.trim_end_matches('#') == base)
            };
            let (i, n) = self.nodes.iter().enumerate().find(declares)?;
            if n.pointer.is_empty() { None } else { Some(i) }
        };
        if fragment.is_empty() || fragment.starts_with('/') || fragment.starts_with("%2F") {
            let within = resource.map_or(self.root, |r| self.nodes[r].value);
            return refs::resolve(within, &format!("#{fragment}"));
        }
        // A plain-name fragment: the node of that resource named by `$anchor`, or by a fragment
        // `$id` (draft-06, draft-07) or `id` (draft-04, SPEC §6 decision 33).
        let named = |n: &&Node<'a>| {
            n.resource == resource
                && (n.value.get("$anchor").and_then(Value::as_str) == Some(fragment)
                    || ["$id", "id"].into_iter().any(|k| {
                        n.value
                            .get(k)
                            .and_then(Value::as_str)
                            .and_then(|id| id.strip_prefix('#'))
                            == Some(fragment)
                    }))
        };
        self.nodes.iter().find(named).map(|n| n.value)
    }

    /// The parts of a branch: itself (unless a `$ref` the draft reads alone), its `allOf`
    /// members and its `$ref` target, recursively.
    fn fold(&self, node: &'a Value) -> Fold<'a> {
        let mut fold = Fold {
            parts: Vec::new(),
            sound: true,
        };
        let mut path = Vec::new();
        self.collect(node, &mut fold, &mut path);
        fold
    }

    fn collect(&self, node: &'a Value, fold: &mut Fold<'a>, path: &mut Vec<*const Value>) {
        let Value::Object(map) = node else {
            // A boolean part (or a malformed one) proves nothing (SPEC §2.9).
            fold.sound = false;
            return;
        };
        if path.len() > MAX_DEPTH {
            fold.sound = false;
            return;
        }
        if let Some(reference) = map.get("$ref") {
            match self.target(node, reference) {
                Some(t) if !path.contains(&std::ptr::from_ref(t)) => {
                    path.push(t);
                    self.collect(t, fold, path);
                    path.pop();
                }
                // Remote, unresolvable or cyclic.
                _ => fold.sound = false,
            }
            if self.ref_alone() {
                return;
            }
        }
        fold.parts.push(Part::Whole(node));
        if let Some(Value::Array(members)) = map.get("allOf") {
            for m in members {
                self.collect(m, fold, path);
            }
        }
    }

    /// Whether the root is a union every member of which provably admits only objects.
    fn root_only_objects(&self) -> bool {
        self.nodes
            .first()
            .is_some_and(|root| self.is_site(root) && self.all_branches_only_objects(root.value))
    }

    /// Whether every member of the union `site` provably admits only objects, the node's sibling
    /// `type`, `properties` and `required` folded into each.
    fn all_branches_only_objects(&self, site: &'a Value) -> bool {
        union_members(site)
            .is_some_and(|members| members.iter().all(|m| self.member_only_objects(m, site, 0)))
    }

    /// Whether `member` of the union node `site` provably admits only objects.
    fn member_only_objects(&self, member: &'a Value, site: &'a Value, depth: usize) -> bool {
        let key = (std::ptr::from_ref(member), std::ptr::from_ref(site));
        if let Some(&known) = self.objects_memo.borrow().get(&key) {
            return known;
        }
        // A cycle through unions reads as not provable.
        self.objects_memo.borrow_mut().insert(key, false);
        let proved = depth < MAX_DEPTH && {
            let fold = self.fold(member);
            let mut parts = vec![Part::Siblings(site)];
            parts.extend(fold.parts);
            fold.sound && self.parts_only_objects(&parts, depth)
        };
        self.objects_memo.borrow_mut().insert(key, proved);
        proved
    }

    /// Whether the intersection of the parts' `type` is exactly `object`; a part that is a union
    /// whose members all provably admit only objects counts as `type: "object"`.
    fn parts_only_objects(&self, parts: &[Part<'a>], depth: usize) -> bool {
        let mut kinds = ALL_KINDS;
        for part in parts {
            if let Some(t) = part.get("type") {
                match type_kinds(t) {
                    Some(k) => kinds &= k,
                    None => return false,
                }
            }
        }
        if kinds != OBJECT {
            let union_of_objects = parts.iter().any(|part| {
                part.union().is_some_and(|(node, members)| {
                    members
                        .iter()
                        .all(|m| self.member_only_objects(m, node, depth + 1))
                })
            });
            if union_of_objects {
                kinds &= OBJECT;
            }
        }
        kinds == OBJECT
    }

    /// The folded parts of each member of the union `site` (its sibling view first), or `None`
    /// when a member cannot be followed.
    fn branches(&self, site: &'a Value) -> Option<Vec<Vec<Part<'a>>>> {
        union_members(site)?
            .iter()
            .map(|m| {
                let fold = self.fold(m);
                fold.sound.then(|| {
                    let mut parts = vec![Part::Siblings(site)];
                    parts.extend(fold.parts);
                    parts
                })
            })
            .collect()
    }

    /// Whether the union `site` reads as a discriminated union: every branch provably an object
    /// (a branch that is itself a union reads as one and, with diagnostics, is flattened: SPEC
    /// §2.9, rule 1 on projected branches), and one property name with a scalar literal set in
    /// every branch, pairwise disjoint by value; rule 3 relaxed (§2.9, decision 68).
    fn reads_as_du(&self, site: &'a Value, depth: usize) -> bool {
        let key = std::ptr::from_ref(site);
        if let Some(&known) = self.du_memo.borrow().get(&key) {
            return known;
        }
        // A cycle through nested unions reads as no discriminated union.
        self.du_memo.borrow_mut().insert(key, false);
        let du = depth < MAX_DEPTH && self.read_du(site, depth);
        self.du_memo.borrow_mut().insert(key, du);
        du
    }

    fn read_du(&self, site: &'a Value, depth: usize) -> bool {
        let Some(branches) = self.branches(site) else {
            return false;
        };
        if !branches.iter().all(|b| self.object_branch(b, depth)) {
            return false;
        }
        let mut names = Vec::new();
        self.names(&branches[0], depth, &mut names);
        let mut tried = HashSet::new();
        names.retain(|name| tried.insert(*name));
        names.into_iter().any(|name| {
            let mut seen = HashSet::new();
            branches.iter().all(|b| {
                self.literals(b, name, depth)
                    .is_some_and(|set| set.into_iter().all(|v| seen.insert(v)))
            })
        })
    }

    /// Rule 1 on projected branches: provably only objects, and every union part of the branch
    /// a discriminated union that is flattened (with diagnostics; under `Scope::Root` nothing
    /// nested is).
    fn object_branch(&self, parts: &[Part<'a>], depth: usize) -> bool {
        self.parts_only_objects(parts, depth)
            && parts.iter().all(|part| {
                part.union().is_none_or(|(node, _)| {
                    self.reads_as_du(node, depth + 1)
                        && match self.flattened {
                            Some(_) => self.is_flattened(node),
                            None => self.scope == Scope::All,
                        }
                })
            })
    }

    /// The property names a branch declares, with those of the members of its union parts.
    fn names(&self, parts: &[Part<'a>], depth: usize, out: &mut Vec<&'a str>) {
        for part in parts {
            if let Some(Value::Object(props)) = part.get("properties") {
                out.extend(props.keys().map(String::as_str));
            }
            if depth < MAX_NESTING
                && let Some((_, members)) = part.union()
            {
                for m in members {
                    self.names(&self.fold(m).parts, depth + 1, out);
                }
            }
        }
    }

    /// The canonical literal set of property `name` in a branch: the intersection over its parts
    /// of each part's set (a union part's set is the union of its members', each of which must
    /// have one); `None` when no part gives one or the intersection is empty.
    fn literals(&self, parts: &[Part<'a>], name: &str, depth: usize) -> Option<HashSet<String>> {
        let mut acc: Option<HashSet<String>> = None;
        let mut meet = |set: HashSet<String>| {
            acc = Some(match acc.take() {
                None => set,
                Some(a) => a.into_iter().filter(|v| set.contains(v)).collect(),
            });
        };
        for part in parts {
            if let Some(prop) = part
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|p| p.get(name))
                && let Some(set) = self.literal_set(prop, 0)
            {
                meet(set);
            }
            if depth < MAX_NESTING
                && let Some((node, _)) = part.union()
                && let Some(members) = self.branches(node)
            {
                let mut union: HashSet<String> = HashSet::new();
                let every = members.iter().all(|member| {
                    self.literals(member, name, depth + 1).is_some_and(|set| {
                        union.extend(set);
                        true
                    })
                });
                if every {
                    meet(union);
                }
            }
        }
        acc.filter(|set| !set.is_empty())
    }

    /// The scalar literal set of one property schema: `const` (from draft-06 on) or a non-empty
    /// `enum` of scalars, through `$ref` (read alone up to draft-07); canonical texts, no
    /// repeats (numbers by value: `1` equals `1.0`).
    fn literal_set(&self, prop: &'a Value, depth: usize) -> Option<HashSet<String>> {
        let Value::Object(map) = prop else {
            return None;
        };
        let through_ref = || {
            let target = self.target(prop, map.get("$ref")?)?;
            if depth < MAX_DEPTH {
                self.literal_set(target, depth + 1)
            } else {
                None
            }
        };
        if self.ref_alone() && map.contains_key("$ref") {
            return through_ref();
        }
        let constant = map.get("const").filter(|_| self.has_const());
        let values: Vec<&Value> = match (constant, map.get("enum")) {
            (Some(c), _) => vec![c],
            (None, Some(Value::Array(e))) if !e.is_empty() => e.iter().collect(),
            _ => return through_ref(),
        };
        if values.iter().any(|v| v.is_array() || v.is_object()) {
            return None;
        }
        Some(
            values
                .into_iter()
                .map(|v| sorted_text(&canonical_data(v)))
                .collect(),
        )
    }

    /// Whether some member of the union `site` is, or resolves to (through `$ref` and `allOf`),
    /// a union node that the presentation leaves as it is.
    fn has_kept_union_branch(&self, site: &'a Value) -> bool {
        union_members(site).is_some_and(|members| {
            members.iter().any(|m| {
                self.fold(m).parts.iter().any(|part| {
                    part.union()
                        .is_some_and(|(node, _)| !self.is_flattened(node))
                })
            })
        })
    }

    /// The polarity reading (SPEC §6 decision 37): the pointers below which flattening would make
    /// the document stricter.
    fn frozen(&self) -> Frozen {
        let mut roots: HashMap<String, String> = HashMap::new();
        for n in &self.nodes {
            let Value::Object(map) = n.value else {
                continue;
            };
            for keyword in ["not", "if"] {
                if knows(self.draft, keyword) && map.contains_key(keyword) {
                    let place = format!("{}/{keyword}", n.pointer);
                    let why = format!("under `{keyword}` at {}", at(&place));
                    roots.entry(place).or_insert(why);
                }
            }
            if knows(self.draft, "contains")
                && map.contains_key("contains")
                && map.contains_key("maxContains")
            {
                let place = format!("{}/contains", n.pointer);
                let why = format!("under `contains` beside `maxContains` at {}", at(&place));
                roots.entry(place).or_insert(why);
            }
            if let Some(Value::Array(members)) = map.get("oneOf")
                && !self.flattened_for_polarity(n)
            {
                for i in 0..members.len() {
                    let place = format!("{}/oneOf/{i}", n.pointer);
                    let why = format!(
                        "in member {} of the `oneOf` at {}, which stays",
                        at(&place),
                        at(&n.pointer)
                    );
                    roots.entry(place).or_insert(why);
                }
            }
        }
        // References from a frozen place freeze their targets, transitively.
        let references: Vec<(&str, String)> = self
            .nodes
            .iter()
            .filter_map(|n| {
                let reference = n.value.get("$ref")?;
                let target = self.target(n.value, reference)?;
                let pointer = match self.pointer_of(target) {
                    Some(p) => p.to_owned(),
                    None => {
                        let fragment = reference.as_str()?.strip_prefix('#')?;
                        fragment.starts_with('/').then(|| fragment.to_owned())?
                    }
                };
                Some((n.pointer.as_str(), pointer))
            })
            .collect();
        let mut frozen = Frozen { roots };
        let mut done = vec![false; references.len()];
        loop {
            let mut grew = false;
            for (i, (from, to)) in references.iter().enumerate() {
                if !done[i]
                    && let Some(place) = frozen.place(from)
                {
                    done[i] = true;
                    if !frozen.roots.contains_key(to) {
                        let why =
                            format!("referenced by the `$ref` at {}, which is {place}", at(from));
                        frozen.roots.insert(to.clone(), why);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        frozen
    }

    /// Whether the `oneOf` of node `n` is taken as flattened by the polarity reading: the
    /// diagnostics say so, or the harness reads it as a site that must be joined (a nested
    /// discriminated union under `Scope::All`, or a root union of objects, SPEC §2.9). Taking the
    /// harness's reading, not only the diagnostics, keeps a union from freezing itself by staying.
    fn flattened_for_polarity(&self, n: &Node<'a>) -> bool {
        if self.flattened.is_some_and(|f| f.contains(&n.pointer)) {
            return true;
        }
        if !self.is_site(n) {
            return false;
        }
        if n.pointer.is_empty() {
            return self.all_branches_only_objects(n.value) || self.reads_as_du(n.value, 0);
        }
        self.scope == Scope::All && self.reads_as_du(n.value, 0)
    }
}

/// The frozen subtrees, by the pointer of their roots, each with the frozen place that makes it
/// one (SPEC §6 decision 37: under `not`, `if`, `contains` beside `maxContains`, a member of a
/// `oneOf` that stays, or the target of a `$ref` from such a place).
struct Frozen {
    roots: HashMap<String, String>,
}

impl Frozen {
    /// Whether `pointer` is a frozen root or below one.
    fn holds(&self, pointer: &str) -> bool {
        self.place(pointer).is_some()
    }

    /// The frozen place `pointer` is in (that of the nearest frozen root at or above it), or
    /// `None` when it is in none.
    fn place(&self, pointer: &str) -> Option<&str> {
        let mut ends: Vec<usize> = pointer.match_indices('/').map(|(i, _)| i).collect();
        ends.push(pointer.len());
        ends.into_iter()
            .rev()
            .find_map(|end| self.roots.get(&pointer[..end]))
            .map(String::as_str)
    }
}

/// The kinds as bits: null, boolean, integer, non-integer number, string, array, object.
const ALL_KINDS: u8 = 0x7f;
const OBJECT: u8 = 1 << 6;

/// The kinds a `type` keyword admits; `None` when it is malformed.
fn type_kinds(t: &Value) -> Option<u8> {
    let one = |name: &str| match name {
        "null" => 1,
        "boolean" => 1 << 1,
        "integer" => 1 << 2,
        "number" => (1 << 2) | (1 << 3),
        "string" => 1 << 4,
        "array" => 1 << 5,
        "object" => OBJECT,
        _ => 0,
    };
    match t {
        Value::String(name) => Some(one(name)),
        Value::Array(names) => names
            .iter()
            .try_fold(0, |acc, n| n.as_str().map(|n| acc | one(n))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn object(tag: &str, value: &str) -> Value {
        json!({"type": "object", "properties": {tag: {"const": value}, "x": {"type": "string"}},
               "required": [tag]})
    }

    fn du() -> Value {
        json!({"oneOf": [object("kind", "a"), object("kind", "b")]})
    }

    /// A union of objects with no discriminator (serde's untagged enum).
    fn untagged() -> Value {
        json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]})
    }

    fn flat() -> Value {
        json!({"type": "object", "properties": {"a": {"type": "string"}}})
    }

    fn diagnostics(flattened: &[&str], skipped: &[(&str, &str)]) -> Value {
        json!({
            "flattened": flattened.iter().map(|p| json!({"pointer": p})).collect::<Vec<_>>(),
            "skipped": skipped.iter().map(|(p, c)| json!({"pointer": p, "code": c})).collect::<Vec<_>>(),
        })
    }

    trait Failing {
        /// The violation's message; panics (failing the test) when the judgement passed.
        fn violation(self) -> String;
    }

    impl Failing for Result<usize, String> {
        fn violation(self) -> String {
            match self {
                Err(message) => message,
                Ok(checked) => panic!("expected a violation, the judgement passed ({checked})"),
            }
        }
    }

    fn judge(original: &Value, presentation: &Value, diagnostics: &Value) -> Result<usize, String> {
        judge_coverage(original, Scope::All, presentation, Some(diagnostics))
    }

    #[test]
    fn a_root_union_of_objects_left_a_union_is_a_violation() {
        let original = untagged();
        let kept = diagnostics(&[], &[("", "no-discriminator")]);
        let err = judge(&original, &original, &kept).violation();
        assert!(err.contains("not one object"), "{err}");
        // Through the protocol, without diagnostics: part (a) still judges it.
        let err = judge_coverage(&original, Scope::Root, &original, None).violation();
        assert!(err.contains("not one object"), "{err}");
        // Joined, it passes; a root object that still holds a union does not.
        assert_eq!(judge(&original, &flat(), &diagnostics(&[""], &[])), Ok(2));
        let mut half = flat();
        half["anyOf"] = original["anyOf"].clone();
        assert!(judge(&original, &half, &diagnostics(&[""], &[])).is_err());
        // The code alone is judged too, whatever the presentation: such a root is no
        // "no-discriminator" site.
        let err = judge(&original, &flat(), &kept).violation();
        assert!(err.contains("must be joined"), "{err}");
    }

    #[test]
    fn a_nested_du_skipped_as_no_discriminator_is_a_violation() {
        let original = json!({"type": "object", "properties": {"p": du()}});
        let err = judge(
            &original,
            &original,
            &diagnostics(&[], &[("/properties/p", "no-discriminator")]),
        )
        .violation();
        assert!(err.contains("reads as a discriminated union"), "{err}");
        // A tag one branch leaves optional still makes a DU (SPEC §2.9, decision 68).
        let mut defaulted = original.clone();
        defaulted["properties"]["p"]["oneOf"][1]["required"] = json!([]);
        assert!(
            judge(
                &defaulted,
                &defaulted,
                &diagnostics(&[], &[("/properties/p", "overlapping-literals")])
            )
            .is_err()
        );
        assert_eq!(
            judge(&original, &original, &diagnostics(&["/properties/p"], &[])),
            Ok(1)
        );
        // A nested union of objects without a discriminator stays, as no-discriminator.
        let nested = json!({"type": "object", "properties": {"p": untagged()}});
        let named = diagnostics(&[], &[("/properties/p", "no-discriminator")]);
        assert_eq!(judge(&nested, &nested, &named), Ok(1));
        // Overlapping literals are no discriminator either.
        let overlapping = json!({"properties": {"p": {"oneOf": [
            object("kind", "a"),
            {"type": "object", "properties": {"kind": {"enum": ["b", "a"]}}}
        ]}}});
        let named = diagnostics(&[], &[("/properties/p", "overlapping-literals")]);
        assert_eq!(judge(&overlapping, &overlapping, &named), Ok(1));
    }

    #[test]
    fn a_du_under_not_may_be_frozen_elsewhere_it_may_not() {
        let under_not = json!({"type": "object", "properties": {"p": {"not": du()}}});
        let named = diagnostics(&[], &[("/properties/p/not", "frozen")]);
        assert_eq!(judge(&under_not, &under_not, &named), Ok(1));
        let outside = json!({"type": "object", "properties": {"p": du()}});
        let named = diagnostics(&[], &[("/properties/p", "frozen")]);
        let err = judge(&outside, &outside, &named).violation();
        assert!(err.contains("polarity"), "{err}");
        // `if` freezes, `then` does not; `contains` only beside `maxContains`.
        let conditional = json!({"if": du(), "then": du()});
        let named = diagnostics(&[], &[("/if", "frozen"), ("/then", "frozen")]);
        let err = judge(&conditional, &conditional, &named).violation();
        assert!(err.contains("\"/then\""), "{err}");
        let contains = json!({"contains": du(), "maxContains": 1});
        let named = diagnostics(&[], &[("/contains", "frozen")]);
        assert_eq!(judge(&contains, &contains, &named), Ok(1));
        let mut unbounded = contains.clone();
        unbounded.as_object_mut().map(|o| o.remove("maxContains"));
        assert!(judge(&unbounded, &unbounded, &named).is_err());
    }

    #[test]
    fn frozen_reaches_referenced_definitions_and_members_of_a_one_of_that_stays() {
        let referenced = json!({
            "$defs": {"U": du(), "W": {"$ref": "#/$defs/U"}},
            "properties": {"a": {"not": {"$ref": "#/$defs/W"}}, "b": {"$ref": "#/$defs/U"}}
        });
        let named = diagnostics(&[], &[("/$defs/U", "frozen")]);
        assert_eq!(judge(&referenced, &referenced, &named), Ok(1));
        // A root `oneOf` that stays (a member admits strings) freezes what its members hold.
        let kept_root = json!({"oneOf": [
            {"type": "object", "properties": {"v": du()}},
            {"type": "string"}
        ]});
        let named = diagnostics(
            &[],
            &[
                ("", "branch-not-object"),
                ("/oneOf/0/properties/v", "frozen"),
            ],
        );
        assert_eq!(judge(&kept_root, &kept_root, &named), Ok(2));
        // A root union of objects must be joined, so it freezes nothing.
        let mut joined_root = kept_root.clone();
        joined_root["oneOf"][1] = json!({"type": "object"});
        let named = diagnostics(&[""], &[("/oneOf/0/properties/v", "frozen")]);
        assert!(judge(&joined_root, &flat(), &named).is_err());
        // An `anyOf` that stays freezes nothing either.
        let mut any_of = kept_root.clone();
        any_of["anyOf"] = any_of["oneOf"].take();
        any_of.as_object_mut().map(|o| o.remove("oneOf"));
        let named = diagnostics(
            &[],
            &[
                ("", "branch-not-object"),
                ("/anyOf/0/properties/v", "frozen"),
            ],
        );
        assert!(judge(&any_of, &any_of, &named).is_err());
    }

    #[test]
    fn frozen_follows_anchors_of_each_draft() {
        // Draft-04 names an anchor with `id: "#name"` (found by the open-world generator, seed 1,
        // case 632: the reference from under `not` reached the union through such an anchor).
        let mut original = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "definitions": {
                "anchored": {"$ref": "#/definitions/U", "id": "#here"},
                "U": {"anyOf": [object("kind", "a"), object("kind", "b")]}
            },
            "properties": {"a": {"not": {"$ref": "#here"}}, "b": {"$ref": "#/definitions/U"}}
        });
        let named = diagnostics(&[], &[("/definitions/U", "frozen")]);
        assert_eq!(judge(&original, &original, &named), Ok(1));
        original["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        original["definitions"]["anchored"] = json!({"$ref": "#/definitions/U", "$anchor": "here"});
        assert_eq!(judge(&original, &original, &named), Ok(1));
        original["properties"]["a"] = json!({"not": {"$ref": "#elsewhere"}});
        assert!(judge(&original, &original, &named).is_err());
    }

    #[test]
    fn an_unnamed_site_is_a_violation() {
        let nullable = json!({"type": "object", "properties": {
            "p": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        }});
        let err = judge(&nullable, &nullable, &diagnostics(&[], &[])).violation();
        assert!(
            err.contains("\"/properties/p\"") && err.contains("neither"),
            "{err}"
        );
        let named = diagnostics(&[], &[("/properties/p", "branch-not-object")]);
        assert_eq!(judge(&nullable, &nullable, &named), Ok(1));
        let named = diagnostics(&[], &[("/properties/p", "near-miss")]);
        assert!(
            judge(&nullable, &nullable, &named)
                .violation()
                .contains("closed list")
        );
        // A skipped site without a code (the diagnostics before SPEC §2.9's closed list).
        let named =
            json!({"flattened": [], "skipped": [{"pointer": "/properties/p", "reason": "rule 1"}]});
        assert!(
            judge(&nullable, &nullable, &named)
                .violation()
                .contains("without a code")
        );
        // The reason must hold: both members here admit only objects.
        let objects = json!({"properties": {"p": untagged()}});
        let named = diagnostics(&[], &[("/properties/p", "branch-not-object")]);
        assert!(
            judge(&objects, &objects, &named)
                .violation()
                .contains("provably")
        );
        // Under `Scope::Root` only the root is named (SPEC §6 decision 12).
        assert_eq!(
            judge_coverage(
                &nullable,
                Scope::Root,
                &nullable,
                Some(&diagnostics(&[], &[]))
            ),
            Ok(0)
        );
    }

    #[test]
    fn a_union_in_draft04_then_is_no_site() {
        let draft04 = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "then": du()
        });
        assert_eq!(judge(&draft04, &draft04, &diagnostics(&[], &[])), Ok(0));
        let mut draft07 = draft04.clone();
        draft07["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        assert!(judge(&draft07, &draft07, &diagnostics(&[], &[])).is_err());
        // Up to draft-07 a `$ref`'s siblings are not read (SPEC §6 decision 2): no site there,
        // but definitions beside it are.
        let beside_ref = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": "#/definitions/T",
            "anyOf": [{"type": "string"}, {"type": "null"}],
            "definitions": {"T": {"properties": {"p": du()}}}
        });
        let named = diagnostics(&["/definitions/T/properties/p"], &[]);
        assert_eq!(judge(&beside_ref, &beside_ref, &named), Ok(1));
        assert!(judge(&beside_ref, &beside_ref, &diagnostics(&[], &[])).is_err());
    }

    #[test]
    fn draft04_const_is_no_literal() {
        let mut original = json!({"properties": {"p": du()}});
        original["$schema"] = json!("http://json-schema.org/draft-04/schema#");
        let named = diagnostics(&[], &[("/properties/p", "no-discriminator")]);
        assert_eq!(judge(&original, &original, &named), Ok(1));
    }

    #[test]
    fn a_ref_to_a_union_of_objects_is_a_provable_branch() {
        let original = json!({
            "$defs": {
                "A": {"type": "object", "properties": {"a": {"type": "string"}}},
                "B": {"anyOf": [{"type": "object"}, {"$ref": "#/$defs/C"}]},
                "C": {"allOf": [{"type": ["object", "null"]}, {"type": "object"}]}
            },
            "oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]
        });
        let union_left = judge_coverage(&original, Scope::All, &original, None).violation();
        assert!(union_left.contains("not one object"), "{union_left}");
        assert_eq!(judge_coverage(&original, Scope::Root, &flat(), None), Ok(1));
        // Not provable: a remote reference, a cycle, a boolean member, a wider or missing type,
        // draft-07 siblings of a `$ref` (ignored there).
        for member in [
            json!({"$ref": "https://example.com/remote.json"}),
            json!({"$ref": "#/$defs/Loop"}),
            json!(true),
            json!({"type": ["object", "null"]}),
            json!({"properties": {"a": {"type": "string"}}}),
        ] {
            let mut original = original.clone();
            original["$defs"]["Loop"] = json!({"$ref": "#/$defs/Loop"});
            original["oneOf"][1] = member.clone();
            assert_eq!(
                judge_coverage(&original, Scope::All, &original, None),
                Ok(0),
                "{member}"
            );
            let named = diagnostics(&["/$defs/B"], &[("", "branch-unresolvable")]);
            assert!(judge(&original, &original, &named).is_ok(), "{member}");
        }
        // An embedded resource's `#…` references are its own (SPEC §6 decisions 15, 33).
        let embedded = json!({
            "$defs": {"inner": {"type": "string"}},
            "oneOf": [
                {"type": "object"},
                {"$id": "https://flatjoin.invalid/embedded/0",
                 "$defs": {"inner": {"type": "object"}},
                 "allOf": [{"$ref": "#/$defs/inner"}]},
                {"$ref": "https://flatjoin.invalid/embedded/0#/$defs/inner"}
            ]
        });
        assert!(judge_coverage(&embedded, Scope::All, &embedded, None).is_err());
        let mut remote = embedded.clone();
        remote["oneOf"][2] = json!({"$ref": "https://flatjoin.invalid/elsewhere#/$defs/inner"});
        assert_eq!(judge_coverage(&remote, Scope::All, &remote, None), Ok(0));
        let draft07 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"S": {"type": "string"}},
            "anyOf": [{"type": "object"}, {"$ref": "#/definitions/S", "type": "object"}]
        });
        assert_eq!(judge_coverage(&draft07, Scope::All, &draft07, None), Ok(0));
    }

    #[test]
    fn a_nested_du_behind_refs_is_a_branch_once_flattened() {
        // Pydantic's nested discriminated union: `Cat` is itself a union on another tag.
        let original = json!({
            "$defs": {
                "Cat": {"oneOf": [
                    {"type": "object", "properties": {"pet": {"const": "cat"}, "breed": {"const": "x"}}},
                    {"type": "object", "properties": {"pet": {"const": "cat"}, "breed": {"const": "y"}}}
                ]},
                "Dog": {"type": "object", "properties": {"pet": {"const": "dog"}}}
            },
            "type": "object",
            "properties": {"animal": {"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}}
        });
        let both = diagnostics(&["/$defs/Cat", "/properties/animal"], &[]);
        assert_eq!(judge(&original, &original, &both), Ok(2));
        // The outer union reads as a DU once its inner one is flattened.
        let outer_kept = diagnostics(
            &["/$defs/Cat"],
            &[("/properties/animal", "no-discriminator")],
        );
        assert!(judge(&original, &original, &outer_kept).is_err());
        // With the inner one left, the outer branch is a union kept.
        let inner_kept = diagnostics(
            &[],
            &[
                ("/$defs/Cat", "branch-union-kept"),
                ("/properties/animal", "branch-union-kept"),
            ],
        );
        let err = judge(&original, &original, &inner_kept).violation();
        assert!(err.contains("\"/$defs/Cat\""), "{err}");
        let frozen_inner = json!({
            "$defs": original["$defs"].clone(),
            "type": "object",
            "properties": {
                "animal": original["properties"]["animal"].clone(),
                "never": {"not": {"$ref": "#/$defs/Cat"}}
            }
        });
        let named = diagnostics(
            &[],
            &[
                ("/$defs/Cat", "frozen"),
                ("/properties/animal", "branch-union-kept"),
            ],
        );
        assert_eq!(judge(&frozen_inner, &frozen_inner, &named), Ok(2));
        // `branch-union-kept` where no branch is a union does not hold.
        let plain = json!({"properties": {"p": untagged()}});
        let named = diagnostics(&[], &[("/properties/p", "branch-union-kept")]);
        assert!(
            judge(&plain, &plain, &named)
                .violation()
                .contains("no branch")
        );
    }

    #[test]
    fn a_one_member_union_is_no_union_branch() {
        // SPEC §6 decision 70: a `oneOf` with one member is no union site, so a branch that is
        // one is no "union that must stay" (found by the open-world generator on the core that
        // gave this code, default seed, case 43).
        let original = json!({"type": "object", "properties": {"p": {"anyOf": [
            {"anyOf": [{"type": "string"}]},
            {"type": "null"}
        ]}}});
        let union_kept = diagnostics(&[], &[("/properties/p", "branch-union-kept")]);
        let err = judge(&original, &original, &union_kept).violation();
        assert!(err.contains("no branch"), "{err}");
        let not_object = diagnostics(&[], &[("/properties/p", "branch-not-object")]);
        assert_eq!(judge(&original, &original, &not_object), Ok(1));
    }

    #[test]
    fn a_root_referenced_from_under_not_is_not_required_joined() {
        // Decision 37 wins over §2.9's root join: flattening the root would loosen what `not`
        // negates.
        let original = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}, "n": {"not": {"$ref": "#"}}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]});
        assert_eq!(
            judge_coverage(&original, Scope::All, &original, None),
            Ok(0)
        );
        let named = diagnostics(&[], &[("", "frozen")]);
        assert_eq!(judge(&original, &original, &named), Ok(1));
        // Without the `not`, the root's own member referencing it freezes nothing.
        let mut tree = original.clone();
        tree["anyOf"][0]["properties"]["n"] = json!({"$ref": "#"});
        tree["oneOf"] = tree["anyOf"].take();
        tree.as_object_mut().map(|o| o.remove("anyOf"));
        assert!(judge(&tree, &tree, &named).is_err());
    }

    /// The root discriminated union that references itself from under a `not` in one of its
    /// branches (SPEC §6 decisions 37 and 70).
    fn root_under_not() -> Value {
        json!({"oneOf": [
            {"type": "object", "properties": {
                "k": {"const": "a"},
                "n": {"type": "object", "properties": {"m": {"not": {"$ref": "#"}}}}
            }, "required": ["k"], "additionalProperties": false},
            {"type": "object", "properties": {"k": {"const": "b"}},
             "required": ["k"], "additionalProperties": false}
        ]})
    }

    /// What the join makes of [`root_under_not`]: one object (and the `not` now negates it).
    fn root_under_not_joined() -> Value {
        json!({"type": "object", "properties": {
            "k": {"type": "string", "enum": ["a", "b"]},
            "n": {"type": "object", "properties": {"m": {"not": {"$ref": "#"}}}}
        }, "required": ["k"], "additionalProperties": false})
    }

    #[test]
    fn a_frozen_root_flattened_is_a_violation() {
        // Part (e): the root is referenced from under `not`, so it is frozen (SPEC §6 decision
        // 37); joined, `{"k": "a", "n": {"m": {"k": "b", "n": {}}}}` passes the original and
        // fails the presentation.
        let original = root_under_not();
        let joined = diagnostics(&[""], &[]);
        let err = judge(&original, &root_under_not_joined(), &joined).violation();
        assert!(
            err.contains("the root")
                && err.contains("frozen")
                && err.contains("`$ref` at \"/oneOf/0/properties/n/properties/m/not\"")
                && err.contains("under `not`")
                && err.contains("flattened"),
            "{err}"
        );
        // Left as it is, it passes: (a) does not ask a frozen root to be one object.
        let kept = diagnostics(&[], &[("", "frozen")]);
        assert_eq!(judge(&original, &original, &kept), Ok(1));
        // Named as kept while the presentation's root is joined anyway.
        let err = judge(&original, &root_under_not_joined(), &kept).violation();
        assert!(err.contains("no longer holds its `oneOf`"), "{err}");
        // The same through the `$anchor`, a fragment `$id` (draft-07) or the `$id` naming the
        // root.
        let named_root = [
            ("$anchor", "top", "#top"),
            ("$id", "#top", "#top"),
            (
                "$id",
                "https://flatjoin.invalid/root",
                "https://flatjoin.invalid/root",
            ),
            (
                "$id",
                "https://flatjoin.invalid/root",
                "https://flatjoin.invalid/root#",
            ),
        ];
        for (keyword, name, reference) in named_root {
            let mut named = original.clone();
            if name.starts_with('#') {
                named["$schema"] = json!("http://json-schema.org/draft-07/schema#");
            }
            named[keyword] = json!(name);
            named["oneOf"][0]["properties"]["n"]["properties"]["m"] =
                json!({"not": {"$ref": reference}});
            let mut presentation = root_under_not_joined();
            presentation[keyword] = json!(name);
            let err = judge(&named, &presentation, &joined).violation();
            assert!(err.contains("is frozen"), "{reference}: {err}");
            assert_eq!(judge(&named, &named, &kept), Ok(1), "{reference}");
        }
        // Everything below a frozen root is frozen: a nested discriminated union there too.
        let mut nested = original.clone();
        nested["oneOf"][1]["properties"]["p"] = du();
        let named = diagnostics(&["/oneOf/1/properties/p"], &[("", "frozen")]);
        let err = judge(&nested, &nested, &named).violation();
        assert!(
            err.contains("\"/oneOf/1/properties/p\" is frozen") && err.contains("`$ref`"),
            "{err}"
        );
        let named = diagnostics(&[], &[("", "frozen"), ("/oneOf/1/properties/p", "frozen")]);
        assert_eq!(judge(&nested, &nested, &named), Ok(2));
        // Without the `not` the root's self-reference freezes nothing: it must be joined.
        let mut tree = original.clone();
        tree["oneOf"][0]["properties"]["n"]["properties"]["m"] = json!({"$ref": "#"});
        let mut tree_joined = root_under_not_joined();
        tree_joined["properties"]["n"]["properties"]["m"] = json!({"$ref": "#"});
        assert_eq!(judge(&tree, &tree_joined, &joined), Ok(2));
        assert!(judge(&tree, &tree, &kept).is_err());
        // A `$ref` to `#` inside an embedded resource names that resource, not the root.
        let mut embedded = original.clone();
        embedded["oneOf"][0]["properties"]["n"]["properties"]["m"] = json!({
            "$id": "https://flatjoin.invalid/embedded/0",
            "not": {"$ref": "#"}
        });
        let mut presentation = root_under_not_joined();
        presentation["properties"]["n"]["properties"]["m"] =
            embedded["oneOf"][0]["properties"]["n"]["properties"]["m"].clone();
        assert_eq!(judge(&embedded, &presentation, &joined), Ok(2));
    }

    #[test]
    fn sibling_keywords_are_part_of_every_member() {
        // schemars' `#[serde(flatten)]` shape: `type` and the tag's property beside the union.
        let original = json!({
            "type": "object",
            "properties": {"common": {"type": "string"}},
            "oneOf": [
                {"properties": {"kind": {"enum": ["a"]}}},
                {"properties": {"kind": {"enum": ["b"]}}}
            ]
        });
        assert!(judge_coverage(&original, Scope::All, &original, None).is_err());
        let nested = json!({"properties": {"p": original.clone()}});
        let named = diagnostics(&[], &[("/properties/p", "no-discriminator")]);
        assert!(judge(&nested, &nested, &named).is_err());
    }
}
