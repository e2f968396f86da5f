//! Assembling one flat object from a union's projected parts (SPEC §2.1–§2.8), for both
//! front-ends of the projection: fold each branch, count what every branch requires, index every
//! property definition once, join each property (`join`), then write the object's keywords in
//! their order.

use std::borrow::Cow;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::{Projected, Projector};
use crate::OpenBranches;
use crate::diagnostics::FlattenedSite;
use crate::draft::Draft;
use crate::fast_path::{self, FastPath};
use crate::fasthash::{FastMap, FastSet};
use crate::identify::{self, Part, PartView, Union};
use crate::join::{self, Definition, UnionContext};
use crate::keywords;

/// A union's projected pieces, from either front-end, for [`Projector::assemble`].
pub(super) struct UnionInput {
    pub keyword: &'static str,
    pub siblings: Map<String, Value>,
    /// Per branch, per part: the projected part (`None` for the siblings part).
    pub projected: Vec<Vec<Option<Projected>>>,
    /// The union node's keywords kept before `type` and after the object keywords.
    pub before: Vec<(String, Value)>,
    pub after: Vec<(String, Value)>,
    /// The union node's projected definitions containers.
    pub defs: Vec<(String, Map<String, Value>)>,
}

impl Projector<'_> {
    /// Builds the flat object from the projected parts of every branch (SPEC §2.1–§2.8).
    pub(super) fn assemble(&mut self, ptr: &str, union: Union, input: UnionInput) -> Value {
        let UnionInput {
            keyword,
            siblings,
            mut projected,
            before,
            after,
            defs,
        } = input;
        let n = union.branches.len();
        let d = union.discriminator.as_deref();
        let permissive = self.options.open_branches == OpenBranches::Permissive;
        let draft = Draft::of(self.document);
        let folded = &mut self.folded;
        let branches = fold_branches(&union, &projected, &siblings, (draft, permissive), folded);
        let sharing = self.sharing.as_ref();
        let bodies = move |c: usize| sharing?.groups.get(c)?.body.as_ref();
        let memo = &self.memo;
        let projection_of = move |at: &str| memo.get(at).map(|v| &**v);
        let ctx = UnionContext {
            discriminator: d,
            branches: &union.branches,
            document: self.document,
            draft,
            faults: self.faults,
            shared: Some(&bodies),
            joins: Some(&self.digests),
            projected: Some(&projection_of),
        };
        let required = count_required(&branches);
        let index = index_definitions(&branches, &mut projected, &siblings, d);
        let properties = join_properties(&ctx, &branches, index, &required, permissive);
        let required = self.required_keyword(d, &required, n);
        let closed = self.all_closed(&branches);
        let mut out = Map::new();
        out.extend(before);
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(properties));
        // Draft-04 has no empty `required`; an empty one says nothing in any draft.
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        if closed {
            out.insert("additionalProperties".into(), Value::Bool(false));
        } else if self.facts.uses_unevaluated {
            out.insert("additionalProperties".into(), Value::Bool(true));
        }
        if d.is_none() {
            let declared = out
                .get("properties")
                .and_then(Value::as_object)
                .map_or(0, Map::len);
            let flat_required = out
                .get("required")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            for (keyword, count) in property_counts(&branches, closed, flat_required, declared) {
                out.insert(keyword.into(), Value::from(count));
            }
        }
        out.extend(after);
        out.extend(
            defs.into_iter()
                .map(|(c, entries)| (c, Value::Object(entries))),
        );
        self.record(ptr, d, n, keyword);
        Value::Object(out)
    }

    /// The flat `required` (SPEC §2.4): the discriminator when every branch requires it (SPEC
    /// §2.9: a tag with a default is optional), then every name all branches require, in
    /// first-appearance order.
    fn required_keyword(&self, d: Option<&str>, required: &Required<'_>, n: usize) -> Vec<Value> {
        #[cfg(feature = "fault-injection")]
        let union_required = super::fault_is(self.options, crate::fault::Fault::RequiredUnion);
        #[cfg(not(feature = "fault-injection"))]
        let union_required = false;
        let mut out: Vec<Value> = Vec::new();
        if let Some(d) = d
            && (union_required || required.count.get(d) == Some(&n))
        {
            out.push(Value::String(d.to_owned()));
        }
        for name in &required.order {
            if Some(*name) != d && (union_required || required.count.get(name) == Some(&n)) {
                out.push(Value::String((*name).to_owned()));
            }
        }
        out
    }

    /// Whether the flat object is closed (SPEC §2.5): every branch is.
    fn all_closed(&self, branches: &[Rc<BranchFacts>]) -> bool {
        let all_closed = branches.iter().all(|f| f.closed);
        #[cfg(feature = "fault-injection")]
        let all_closed =
            all_closed || super::fault_is(self.options, crate::fault::Fault::AlwaysClosed);
        all_closed
    }

    /// Records a flattened site: in the diagnostics, and for the repair of references into it.
    fn record(&mut self, ptr: &str, d: Option<&str>, n: usize, keyword: &'static str) {
        self.diagnostics.record_flattened(FlattenedSite {
            pointer: ptr.to_owned(),
            discriminator: d.map(str::to_owned),
            branches: n,
            shared: None,
        });
        self.sites.push((ptr.to_owned(), keyword));
    }
}

/// What the join needs of one folded branch, owned.
pub(super) struct BranchFacts {
    /// Property names in order, with the parts that define each.
    properties: Vec<(String, Vec<usize>)>,
    /// Required names in order (the flat `required` keeps this order)…
    required_list: Vec<String>,
    /// …and as a set, where the list is too long to scan.
    required: Option<FastSet<String>>,
    closed: bool,
    /// Per part: its `patternProperties` and typed `additionalProperties` (permissive only).
    catch_all: Vec<CatchAll>,
    description: Option<String>,
}

/// Up to this many required names, a branch's list is scanned rather than hashed.
const REQUIRED_SCAN: usize = 16;

impl BranchFacts {
    /// Whether the branch requires `name`.
    fn requires(&self, name: &str) -> bool {
        match &self.required {
            Some(set) => set.contains(name),
            None => self.required_list.iter().any(|r| r == name),
        }
    }
}

/// Folds each projected branch (`identify::fold`), keeping only owned facts so the definitions
/// can then be moved out of the projected parts instead of copied.
///
/// A branch whose parts are all memoized projections (a `$ref` target's, read where it stands),
/// beside no sibling keywords, folds the same in every union that reaches it: its facts are
/// folded once per projection and shared ([`Folded`]).
fn fold_branches(
    union: &Union,
    projected: &[Vec<Option<Projected>>],
    siblings: &Map<String, Value>,
    (draft, permissive): (Draft, bool),
    folded: &mut Folded,
) -> Vec<Rc<BranchFacts>> {
    let empty = Map::new();
    union
        .branches
        .iter()
        .zip(projected)
        .map(|(branch, values)| {
            let key = fast_path::taken(FastPath::FoldOnce)
                .then(|| shared_parts(&branch.parts, values, siblings))
                .flatten();
            if let Some((key, _)) = &key
                && let Some((_, facts)) = folded.get(key)
            {
                #[cfg(test)]
                tests::FOLDED_ONCE.set(tests::FOLDED_ONCE.get() + 1);
                return Rc::clone(facts);
            }
            let views = part_views(&branch.parts, values, siblings, &empty);
            let facts = Rc::new(branch_facts(&views, draft, permissive));
            if let Some((key, parts)) = key {
                folded.insert(key, (parts, Rc::clone(&facts)));
            }
            facts
        })
        .collect()
}

/// Branch facts folded once per projection, by the branch's parts ([`shared_parts`]); the
/// parts are held so that no address in a key is reused while the table stands.
pub(super) type Folded = FastMap<Vec<usize>, (Vec<Rc<Value>>, Rc<BranchFacts>)>;

/// The key of a branch whose every part is a memoized projection, a member that is only a
/// `$ref`, or the union node's siblings when it has none: per part, the projection's address
/// (1 for a `$ref`, 0 for the siblings); with the projections.
fn shared_parts(
    parts: &[Part],
    values: &[Option<Projected>],
    siblings: &Map<String, Value>,
) -> Option<(Vec<usize>, Vec<Rc<Value>>)> {
    let mut key = Vec::with_capacity(parts.len());
    let mut held = Vec::with_capacity(parts.len());
    for (part, value) in parts.iter().zip(values) {
        match (part, value) {
            (Part::Siblings, _) if siblings.is_empty() => key.push(0),
            // A member that is only its `$ref` (2019-09 on it is a part beside its target)
            // folds to nothing.
            (Part::Node(_), Some(Projected::Owned(Value::Object(m))))
                if m.len() == 1 && keywords::has(m, "$ref") =>
            {
                key.push(1);
            }
            (Part::Node(_), Some(Projected::Shared(v))) => {
                key.push(Rc::as_ptr(v) as usize);
                held.push(Rc::clone(v));
            }
            _ => return None,
        }
    }
    Some((key, held))
}

/// A branch's parts as maps: the union node's siblings, each projected object part, and a `false`
/// part as the empty map (it declares nothing; `fold` reads it as accepting nothing).
fn part_views<'v>(
    parts: &[Part],
    values: &'v [Option<Projected>],
    siblings: &'v Map<String, Value>,
    empty: &'v Map<String, Value>,
) -> Vec<PartView<'v>> {
    parts
        .iter()
        .zip(values)
        .enumerate()
        .filter_map(|(origin, (part, value))| match (part, value.as_deref()) {
            (Part::Siblings, _) => Some(PartView {
                map: siblings,
                siblings: true,
                origin,
            }),
            (_, Some(Value::Object(m))) => Some(PartView {
                map: m,
                siblings: false,
                origin,
            }),
            (_, Some(Value::Bool(false))) => Some(PartView {
                map: empty,
                siblings: false,
                origin,
            }),
            _ => None,
        })
        .collect()
}

/// Folds one branch's parts and keeps what the join needs of it.
fn branch_facts(views: &[PartView<'_>], draft: Draft, permissive: bool) -> BranchFacts {
    let folded = identify::fold(views, draft);
    BranchFacts {
        properties: folded
            .properties
            .iter()
            .map(|(name, defs)| ((*name).to_owned(), defs.iter().map(|(o, _)| *o).collect()))
            .collect(),
        required_list: folded.required.iter().map(|r| (*r).to_owned()).collect(),
        required: (folded.required.len() > REQUIRED_SCAN)
            .then(|| folded.required.iter().map(|r| (*r).to_owned()).collect()),
        closed: folded.closed,
        catch_all: if permissive && !folded.closed {
            catch_all(views)
        } else {
            Vec::new()
        },
        description: views.iter().filter(|v| !v.siblings).find_map(|v| {
            keywords::get(v.map, "description")?
                .as_str()
                .map(str::to_owned)
        }),
    }
}

/// What a union joined without a discriminator can still say of its values' size (SPEC §2.9,
/// §6 decision 70): every value has at least as many keys as the branch it matches requires, so
/// at least the fewest any branch requires (`minProperties`, when that says more than the flat
/// `required`); when every branch is closed, at most the most any branch declares
/// (`maxProperties`, when fewer than the flat object declares). serde's externally tagged enum
/// (one required key per variant, closed) gets exactly one key.
fn property_counts(
    branches: &[Rc<BranchFacts>],
    closed: bool,
    flat_required: usize,
    declared: usize,
) -> Vec<(&'static str, usize)> {
    let mut out = Vec::new();
    let fewest = branches
        .iter()
        .map(|b| b.required_list.len())
        .min()
        .unwrap_or(0);
    if fewest > flat_required {
        out.push(("minProperties", fewest));
    }
    let most = branches
        .iter()
        .map(|b| b.properties.len())
        .max()
        .unwrap_or(0);
    if closed && most < declared {
        out.push(("maxProperties", most));
    }
    out
}

/// How many branches require each name, and the names in first-appearance order.
struct Required<'b> {
    count: FastMap<&'b str, usize>,
    order: Vec<&'b str>,
}

fn count_required(branches: &[Rc<BranchFacts>]) -> Required<'_> {
    let mut required = Required {
        count: FastMap::default(),
        order: Vec::new(),
    };
    for f in branches {
        for name in &f.required_list {
            let c = required.count.entry(name.as_str()).or_insert(0);
            if *c == 0 {
                required.order.push(name);
            }
            *c += 1;
        }
    }
    required
}

/// Every property definition, indexed once by name: the names in first-appearance order, the
/// discriminator first (SPEC §2.2), each with its definitions in branch order.
struct Index<'n, 'p> {
    /// The names in order, each with its definitions.
    entries: Vec<(&'n str, Vec<Definition<'p>>)>,
    /// Each name's place in `entries`.
    at: FastMap<&'n str, usize>,
}

/// Indexes every branch's property definitions, moving each out of its projected part, or
/// reading it where it stands in a shared one (a sibling's is copied: the siblings are shared by
/// every branch).
fn index_definitions<'n, 'p>(
    branches: &'n [Rc<BranchFacts>],
    projected: &'p mut [Vec<Option<Projected>>],
    siblings: &Map<String, Value>,
    d: Option<&'n str>,
) -> Index<'n, 'p> {
    let mut index = Index {
        entries: d.map(|d| (d, Vec::new())).into_iter().collect(),
        at: d.map(|d| (d, 0)).into_iter().collect(),
    };
    for ((b, f), parts) in branches.iter().enumerate().zip(projected.iter_mut()) {
        let mut taken: Vec<Option<TakenProperties<'p>>> = parts
            .iter_mut()
            .map(|part| part.as_mut().and_then(TakenProperties::new))
            .collect();
        for (name, origins) in &f.properties {
            let schemas: Vec<Cow<'p, Value>> = origins
                .iter()
                .map(|&o| match &mut taken[o] {
                    Some(part) => part.take(name),
                    None => Cow::Owned(sibling_property(siblings, name)),
                })
                .collect();
            let definition = Definition {
                branch: b,
                schema: merge_definitions(schemas),
                required: f.requires(name),
            };
            match index.at.get(name.as_str()) {
                Some(&i) => index.entries[i].1.push(definition),
                None => {
                    index.at.insert(name, index.entries.len());
                    index.entries.push((name, vec![definition]));
                }
            }
        }
    }
    index
}

/// Joins every property of the flat object, in order: the discriminator (SPEC §2.3), then each
/// other name (§3), with what open branches that do not declare it accept under the permissive
/// reading (§2.8).
fn join_properties(
    ctx: &UnionContext<'_>,
    branches: &[Rc<BranchFacts>],
    index: Index<'_, '_>,
    required: &Required<'_>,
    permissive: bool,
) -> Map<String, Value> {
    let n = branches.len();
    let d = ctx.discriminator;
    let open: Vec<usize> = (0..n).filter(|&i| !branches[i].closed).collect();
    let mut properties = Map::with_capacity(index.entries.len());
    for (name, definitions) in index.entries {
        let joined = if Some(name) == d {
            let texts = branches
                .iter()
                .enumerate()
                .map(|(i, b)| (i, b.description.clone()))
                .collect();
            join::join_discriminator(ctx, definitions, texts)
        } else {
            let extra = if permissive {
                undeclared_in_open(branches, &open, &definitions, name)
            } else {
                Vec::new()
            };
            let required_by_all = required.count.get(name) == Some(&n);
            join::join_property(ctx, definitions, extra, required_by_all, n)
        };
        properties.insert(name.to_owned(), joined);
    }
    properties
}

/// What each open branch that does not declare `name` accepts under it (permissive reading),
/// stopping at the first that accepts anything (`{}`: nothing after it can loosen more).
fn undeclared_in_open(
    branches: &[Rc<BranchFacts>],
    open: &[usize],
    definitions: &[Definition],
    name: &str,
) -> Vec<Value> {
    let declaring: FastSet<usize> = definitions.iter().map(|d| d.branch).collect();
    let mut extra = Vec::new();
    for &b in open {
        if !declaring.contains(&b) {
            extra.push(undeclared(&branches[b].catch_all, name));
            if extra.last() == Some(&Value::Object(Map::new())) {
                break;
            }
        }
    }
    extra
}

/// What one part of an open branch says about undeclared keys.
struct CatchAll {
    patterns: Vec<(String, Value)>,
    additional: Option<Value>,
}

fn catch_all(views: &[PartView<'_>]) -> Vec<CatchAll> {
    views
        .iter()
        .map(|v| CatchAll {
            patterns: match keywords::get(v.map, "patternProperties") {
                Some(Value::Object(p)) => p.iter().map(|(k, s)| (k.clone(), s.clone())).collect(),
                _ => Vec::new(),
            },
            additional: keywords::get(v.map, "additionalProperties").cloned(),
        })
        .collect()
}

/// A projected part's `properties`: taken out of an owned part (the part is not used again) so
/// that each definition moves out once, read where they stand in a shared one. The branch's
/// folded names come in the part's own order when it is the only part that declares them (the
/// common case): each is then the next entry, found by one comparison, not by the map's lookup
/// (SipHash); an index is made the first time one is not.
struct TakenProperties<'p> {
    entries: Vec<(Cow<'p, str>, Option<Cow<'p, Value>>)>,
    next: usize,
    index: Option<FastMap<String, usize>>,
}

impl<'p> TakenProperties<'p> {
    /// The properties of an object part; `None` for any other part.
    fn new(part: &'p mut Projected) -> Option<TakenProperties<'p>> {
        let entries = match part {
            Projected::Owned(Value::Object(part)) => match keywords::has(part, "properties")
                .then(|| part.remove("properties"))
                .flatten()
            {
                Some(Value::Object(properties)) => properties
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k), Some(Cow::Owned(v))))
                    .collect(),
                _ => Vec::new(),
            },
            Projected::Shared(part) => {
                let part: &'p Value = part;
                let Value::Object(part) = part else {
                    return None;
                };
                match keywords::get(part, "properties") {
                    Some(Value::Object(properties)) => properties
                        .iter()
                        .map(|(k, v)| (Cow::Borrowed(k.as_str()), Some(Cow::Borrowed(v))))
                        .collect(),
                    _ => Vec::new(),
                }
            }
            Projected::Owned(_) => return None,
        };
        Some(TakenProperties {
            entries,
            next: 0,
            index: None,
        })
    }

    /// The schema of property `name`, moved out or read where it stands (`true` where the part
    /// does not declare it).
    fn take(&mut self, name: &str) -> Cow<'p, Value> {
        let at = match self.entries.get(self.next) {
            Some((next, _)) if *next == name => {
                self.next += 1;
                Some(self.next - 1)
            }
            _ => {
                let entries = &self.entries;
                self.index
                    .get_or_insert_with(|| {
                        entries
                            .iter()
                            .enumerate()
                            .map(|(i, (k, _))| ((**k).to_owned(), i))
                            .collect()
                    })
                    .get(name)
                    .copied()
            }
        };
        at.and_then(|i| self.entries[i].1.take())
            .unwrap_or(Cow::Owned(Value::Bool(true)))
    }
}

/// A copy of a sibling property (siblings are shared by every branch).
fn sibling_property(siblings: &Map<String, Value>, name: &str) -> Value {
    siblings
        .get("properties")
        .and_then(|p| p.get(name))
        .cloned()
        .unwrap_or(Value::Bool(true))
}

/// One branch's definition of a property: the single definition, or `allOf` of the parts'
/// definitions when several parts define it (a sibling and the branch).
fn merge_definitions(mut defs: Vec<Cow<'_, Value>>) -> Cow<'_, Value> {
    if defs.len() == 1 {
        return defs.pop().unwrap_or(Cow::Owned(Value::Bool(true)));
    }
    let mut m = Map::new();
    let defs = defs.into_iter().map(Cow::into_owned).collect();
    m.insert("allOf".into(), Value::Array(defs));
    Cow::Owned(Value::Object(m))
}

/// What an open branch accepts under the undeclared key `name` (SPEC §2.8, permissive): `{}`, or
/// the `allOf` of each part's constraint (matching `patternProperties`, else a typed
/// `additionalProperties`).
fn undeclared(parts: &[CatchAll], name: &str) -> Value {
    let mut constraints: Vec<Value> = Vec::new();
    for part in parts {
        let mut matched = false;
        for (pattern, schema) in &part.patterns {
            // A pattern the `regex` crate cannot compile is taken to match: adding an
            // alternative only loosens.
            if regex::Regex::new(pattern).map_or(true, |re| re.is_match(name)) {
                constraints.push(schema.clone());
                matched = true;
            }
        }
        if matched {
            continue;
        }
        match &part.additional {
            Some(Value::Object(schema)) => constraints.push(Value::Object(schema.clone())),
            Some(Value::Bool(false)) => return Value::Bool(false),
            _ => {}
        }
    }
    match constraints.len() {
        0 => Value::Object(Map::new()),
        1 => constraints.pop().unwrap_or(Value::Bool(true)),
        _ => {
            let mut m = Map::new();
            m.insert("allOf".into(), Value::Array(constraints));
            Value::Object(m)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use crate::fast_path::FastPath;

    thread_local! {
        /// Branches whose facts an earlier union folded, on this thread.
        pub(super) static FOLDED_ONCE: Cell<usize> = const { Cell::new(0) };
    }

    /// A branch folded once and shared by every union that reaches it gives the presentations
    /// and diagnostics of folding it in each union: on every schema of the
    /// JSON-Schema-Test-Suite, the corpus dialects and regressions, and the documents of shared
    /// sites (the same members in other orders, in draft-07 and 2020-12, beside annotations).
    #[test]
    fn branches_folded_once_fold_as_in_each_union() {
        let shared = super::super::share::tests::held_to_the_walk(FastPath::FoldOnce, &FOLDED_ONCE);
        eprintln!("{shared} branches folded by an earlier union");
        assert!(shared >= 12, "{shared} branches folded by an earlier union");
    }
}
