//! Identification of discriminated unions (SPEC §1) and the folding of a branch's parts (local
//! `$ref`, object-only `allOf`, sibling keywords of the union) into one object view.

use std::rc::Rc;

use crate::fasthash::{FastMap, FastSet};
use serde_json::{Map, Value};
use smallvec::{SmallVec, smallvec};

use crate::canonical::{DataDigester, literal_key};
use crate::diagnostics::SkipReason;
use crate::draft::Draft;
use crate::keywords;
use crate::kinds::{Kind, Kinds};
use crate::pointer;

/// One part of a branch: a schema node whose object keywords all apply to the branch's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// The union node itself, read for its sibling object keywords only (schemars' flatten shape).
    Siblings,
    /// The schema at this pointer (the branch, an `allOf` member, or a `$ref` target).
    Node(String),
}

/// A branch of an identified union.
#[derive(Debug, Clone)]
pub(crate) struct Branch {
    /// Its parts, siblings first.
    pub parts: Vec<Part>,
    /// Its discriminator literals, in order, without repeats (empty without a discriminator);
    /// shared with the identifications of the sites written alike ([`Union::rebased`]).
    pub literals: Rc<[Value]>,
    /// Its name in hints when the union has no discriminator: the branch's `title`, else its
    /// position (SPEC §2.9); empty when it has one (hints then name the discriminator's values).
    pub label: Rc<str>,
}

/// An identified union of objects: a discriminated union, or (SPEC §2.9) a union of object
/// branches joined without a discriminator, at the root or as a branch of a joined union.
#[derive(Debug, Clone)]
pub(crate) struct Union {
    /// The discriminator property name (`None`: joined without one).
    pub discriminator: Option<String>,
    /// The branches, in order.
    pub branches: Vec<Branch>,
    /// The union sites among the branches' parts that become one object first (rule 1 on
    /// projected branches, SPEC §2.9), each with its own identification: pointer, union.
    pub nested: Vec<(String, Union)>,
}

impl Union {
    /// This identification of the union at `from`, for the same union written at `to`: every
    /// pointer at or under `from` moved under `to` (pointers elsewhere are the same for both).
    pub(crate) fn rebased(&self, from: &str, to: &str) -> Union {
        let moved = |p: &String| match p.strip_prefix(from) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => pointer::under(to, rest),
            _ => p.clone(),
        };
        Union {
            discriminator: self.discriminator.clone(),
            branches: self
                .branches
                .iter()
                .map(|b| Branch {
                    parts: b
                        .parts
                        .iter()
                        .map(|part| match part {
                            Part::Siblings => Part::Siblings,
                            Part::Node(p) => Part::Node(moved(p)),
                        })
                        .collect(),
                    literals: b.literals.clone(),
                    label: b.label.clone(),
                })
                .collect(),
            nested: self
                .nested
                .iter()
                .map(|(p, u)| (moved(p), u.rebased(from, to)))
                .collect(),
        }
    }

    /// Every union below this one that is joined because this one is (its `nested`, and
    /// theirs), by pointer.
    pub(crate) fn joined_below(&self, out: &mut Vec<(String, Union)>) {
        for (ptr, inner) in &self.nested {
            out.push((ptr.clone(), inner.clone()));
            inner.joined_below(out);
        }
    }
}

/// The outcome of identification.
#[derive(Debug)]
pub(crate) enum Identified {
    /// A union of objects the join makes one object.
    Union(Union),
    /// A union of objects written like the one identified at another site, with nothing nested:
    /// that site's pointer and identification, moved under this site only where it is read
    /// ([`Alike::at`]; a site whose group's join is shared or copied never reads it).
    Alike(Alike),
    /// Not one; `Some(reason)` for every union site (two or more members) left as it is.
    NotUnion(Option<SkipReason>),
}

/// Another site's identification, shared by the sites written like it ([`Identified::Alike`]).
pub(crate) type Alike = Rc<(String, Union)>;

/// A union, identified at its site or shared with a site written like it.
pub(crate) enum UnionHere {
    Own(Union),
    Alike(Alike),
}

impl UnionHere {
    /// The union, its pointers under `ptr`.
    pub(crate) fn at(self, ptr: &str) -> Union {
        match self {
            UnionHere::Own(union) => union,
            UnionHere::Alike(alike) => alike.1.rebased(&alike.0, ptr),
        }
    }
}

#[cfg(test)]
impl Identified {
    /// This identification read at `ptr`: a shared one moved under it.
    pub(crate) fn at(self, ptr: &str) -> Identified {
        match self {
            Identified::Alike(alike) => Identified::Union(alike.1.rebased(&alike.0, ptr)),
            other => other,
        }
    }
}

/// Where a union site is identified (SPEC §2.9): at the root of a tool schema, or as a branch of
/// a union being joined, a union of object branches is joined even without a discriminator;
/// nested anywhere else it must be a discriminated union.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The discriminator may be absent.
    Joined,
    /// A discriminator is required.
    Nested,
}

/// One part as a map, with whether it is the union node read for its siblings only.
#[derive(Clone, Copy)]
pub(crate) struct PartView<'a> {
    pub map: &'a Map<String, Value>,
    pub siblings: bool,
    /// Index of the part in its branch's part list.
    pub origin: usize,
}

/// A property's definitions in one branch, one per part that declares it, each with the index
/// of its part: almost always one, held inline.
pub(crate) type Definitions<'a> = SmallVec<[(usize, &'a Value); 1]>;

/// A branch folded from its parts.
pub(crate) struct Folded<'a> {
    /// Property names in first-appearance order, each with its definitions (one per part) and
    /// the index of the part that holds each.
    pub properties: Vec<(&'a str, Definitions<'a>)>,
    /// Required names, first-appearance order, no repeats.
    pub required: Vec<&'a str>,
    /// Whether the branch accepts no key beyond its folded `properties` (SPEC §2.5).
    pub closed: bool,
    /// Whether the intersection of the parts' `type` keywords is exactly `object`.
    pub object_only: bool,
}

/// Folds parts into one object view.
pub(crate) fn fold<'a>(parts: &[PartView<'a>], draft: Draft) -> Folded<'a> {
    let mut properties: Vec<(&'a str, Definitions<'a>)> = Vec::new();
    // The names' positions, made when a second part declares properties (one object's names are
    // distinct: the first part's need no index).
    let mut index: Option<FastMap<&'a str, usize>> = None;
    let mut required: Vec<&'a str> = Vec::new();
    let mut required_seen: FastSet<&'a str> = FastSet::default();
    let mut types = Kinds::Unprovable;
    let mut closed_by_additional = false;
    let mut unevaluated_false = false;
    let mut evaluates_more = false;
    for part in parts {
        let map = part.map;
        if let Some(Value::Object(props)) = keywords::get(map, "properties") {
            if properties.is_empty() && index.is_none() {
                properties.reserve(props.len());
                for (name, schema) in props {
                    properties.push((name, smallvec![(part.origin, schema)]));
                }
                // An empty first `properties` still needs the index for what follows.
                if properties.is_empty() {
                    index = Some(FastMap::default());
                }
            } else {
                let index = index.get_or_insert_with(|| {
                    properties
                        .iter()
                        .enumerate()
                        .map(|(i, (name, _))| (*name, i))
                        .collect()
                });
                for (name, schema) in props {
                    match index.get(name.as_str()) {
                        Some(&i) => properties[i].1.push((part.origin, schema)),
                        None => {
                            index.insert(name, properties.len());
                            properties.push((name, smallvec![(part.origin, schema)]));
                        }
                    }
                }
            }
        }
        if let Some(Value::Array(names)) = keywords::get(map, "required") {
            for name in names.iter().filter_map(Value::as_str) {
                push_unique(&mut required, &mut required_seen, name);
            }
        }
        if let Some(t) = keywords::get(map, "type") {
            types = types.intersect(Kinds::of_type_keyword(t));
        }
        let has_patterns = keywords::has(map, "patternProperties");
        match keywords::get(map, "additionalProperties") {
            Some(Value::Bool(false)) if !has_patterns => closed_by_additional = true,
            Some(Value::Bool(false)) | None => {}
            Some(_) => evaluates_more = true,
        }
        // Before 2019-09 `unevaluatedProperties` is an unknown word: it closes nothing.
        match keywords::get(map, "unevaluatedProperties").filter(|_| draft.has_unevaluated()) {
            Some(Value::Bool(false)) => unevaluated_false = true,
            None => {}
            // `true` or a schema in another part (an `allOf` member, at any nesting) evaluates
            // every key it accepts, so the branch's `unevaluatedProperties: false` sees them
            // as evaluated: the branch is not closed.
            Some(_) => evaluates_more = true,
        }
        let extra = [
            "patternProperties",
            "dependentSchemas",
            "dependencies",
            "if",
            "then",
            "else",
        ];
        if extra.iter().any(|k| keywords::has(map, k)) {
            evaluates_more = true;
        }
        if !part.siblings && (keywords::has(map, "anyOf") || keywords::has(map, "oneOf")) {
            evaluates_more = true;
        }
    }
    let object_only = types == Kinds::of(&[Kind::Object]);
    Folded {
        properties,
        required,
        closed: closed_by_additional || (unevaluated_false && !evaluates_more),
        object_only,
    }
}

/// Appends `name` to `list` unless it is there: a scan while the list is short, a set (filled on
/// the way) once it is not.
fn push_unique<'a>(list: &mut Vec<&'a str>, seen: &mut FastSet<&'a str>, name: &'a str) {
    const SCAN: usize = 16;
    if list.len() < SCAN {
        if !list.contains(&name) {
            list.push(name);
        }
        return;
    }
    if seen.is_empty() {
        seen.extend(list.iter().copied());
    }
    if seen.insert(name) {
        list.push(name);
    }
}

/// Bound on `$ref` hops and `allOf` nesting while collecting a branch's parts.
const MAX_PART_STEPS: usize = 64;

/// Collects the parts of the schema `node` found at `ptr`, in order: itself (unless it is a
/// `$ref` whose draft ignores its siblings, decision 2), its `allOf` members, and its local `$ref`
/// target, recursively; each part's node goes to `nodes`, beside it. `Err(())` when a reference
/// cannot be followed (remote, unresolvable, or a cycle).
pub(crate) fn collect_parts<'d>(
    document: &'d Value,
    (ptr, node): (&str, &'d Value),
    parts: &mut Vec<Part>,
    nodes: &mut Vec<Option<&'d Value>>,
    visiting: &mut Vec<String>,
) -> Result<(), ()> {
    if visiting.len() > MAX_PART_STEPS || visiting.iter().any(|p| p == ptr) {
        return Err(());
    }
    let Value::Object(map) = node else {
        parts.push(Part::Node(ptr.to_owned()));
        nodes.push(Some(node));
        return Ok(());
    };
    visiting.push(ptr.to_owned());
    let reference = keywords::get(map, "$ref").and_then(Value::as_str);
    // Up to draft-07 a `$ref` makes its siblings ignored: the node is only its target. From
    // 2019-09 on the node is a part beside its target, even with only annotations beside the
    // `$ref`: it folds to nothing, and its `description` describes the branch (decision 61).
    let ref_only = reference.is_some() && Draft::of(document).ref_overrides_siblings();
    if !ref_only {
        parts.push(Part::Node(ptr.to_owned()));
        nodes.push(Some(node));
    }
    if let Some(Value::Array(members)) = keywords::get(map, "allOf").filter(|_| !ref_only) {
        for (j, m) in members.iter().enumerate() {
            let member = pointer::push_index(&pointer::push(ptr, "allOf"), j);
            collect_parts(document, (&member, m), parts, nodes, visiting)?;
        }
    }
    if let Some(reference) = reference {
        let target = pointer::local_ref(reference).ok_or(())?;
        let node = pointer::get(document, &target).ok_or(())?;
        collect_parts(document, (&target, node), parts, nodes, visiting)?;
    }
    visiting.pop();
    Ok(())
}

/// The literal set of a property schema: `const` (draft-06 on; in draft-04 it asserts nothing),
/// or an `enum` of scalars; through a local `$ref` chain and the members of an `allOf` (the first
/// member with a literal set, a superset of the intersection).
pub(crate) fn literal_set(schema: &Value, document: &Value) -> Option<Vec<Value>> {
    let mut budget = MAX_PART_STEPS;
    literal_set_within(schema, document, Draft::of(document), &mut budget)
}

/// [`literal_set`] with one step budget shared by the `$ref` hops and the `allOf` descent, so
/// that a reference cycle through an `allOf` member
/// (`{"allOf": [{"$ref": "#/properties/p"}]}` at `/properties/p`) ends instead of recursing
/// until the stack overflows.
fn literal_set_within(
    schema: &Value,
    document: &Value,
    draft: Draft,
    budget: &mut usize,
) -> Option<Vec<Value>> {
    let mut current = schema;
    loop {
        *budget = budget.checked_sub(1)?;
        let map = current.as_object()?;
        if draft.ref_overrides_siblings() && keywords::has(map, "$ref") {
            let reference = keywords::get(map, "$ref")?.as_str()?;
            current = pointer::get(document, &pointer::local_ref(reference)?)?;
            continue;
        }
        if let Some(c) = keywords::get(map, "const").filter(|_| draft.has_const()) {
            return is_scalar(c).then(|| vec![c.clone()]);
        }
        if let Some(Value::Array(values)) = keywords::get(map, "enum") {
            if values.is_empty() || !values.iter().all(is_scalar) {
                return None;
            }
            let mut seen = FastSet::default();
            return Some(
                values
                    .iter()
                    .filter(|v| seen.insert(literal_key(v)))
                    .cloned()
                    .collect(),
            );
        }
        if let Some(Value::Array(members)) = keywords::get(map, "allOf") {
            return members
                .iter()
                .find_map(|m| literal_set_within(m, document, draft, budget));
        }
        let reference = keywords::get(map, "$ref")?.as_str()?;
        current = pointer::get(document, &pointer::local_ref(reference)?)?;
    }
}

fn is_scalar(v: &Value) -> bool {
    !(v.is_array() || v.is_object())
}

/// Identifies the union at `node` (pointer `ptr`) in `document`: at the root (or where the root's
/// `$ref` leads) a union of object branches is joined even without a discriminator (SPEC §2.9),
/// elsewhere it must be a discriminated union.
pub(crate) fn identify(node: &Map<String, Value>, ptr: &str, document: &Value) -> Identified {
    let mode = if ptr.is_empty() || is_root_target(document, ptr) {
        Mode::Joined
    } else {
        Mode::Nested
    };
    identify_in(node, ptr, document, mode, &mut Nesting::default()).0
}

/// The digest of a small union node as written, without its own annotations
/// ([`DataDigester::written`]: equal exactly when the texts are, but for negligible
/// probability), the key under which sites written alike share one identification (`None` for a
/// node that is not a union or holds more than [`SITE_KEY_NODES`] schema nodes): Pydantic
/// writes a union field as the same `oneOf` of `$ref`s with a `discriminator` at every use, and
/// an optional one as the same `anyOf` of that and `{"type": "null"}`. A `$ref` counts as one
/// node (its target is read through the same pointer from every site); the bound keeps the cost
/// of the key small.
pub(crate) fn site_key(digester: &DataDigester, node: &Map<String, Value>) -> Option<u128> {
    keywords::wrapper_members(node)?;
    let mut budget = SITE_KEY_NODES;
    if !small(node, &mut budget) {
        return None;
    }
    // The site's own annotations are left out: Pydantic titles every field, and identification
    // reads the members' titles (hint labels), never the site's.
    let asserting = node
        .iter()
        .filter(|(k, _)| !keywords::is_annotation(k))
        .map(|(k, v)| (k.as_str(), v));
    Some(digester.written(asserting))
}

/// The digest of a small union node with its members taken as a bag ([`site_key`]'s node, its
/// own annotations left out, the other keywords as written, each member as written, in any
/// order, repeats counted): equal for two nodes that list the same members in different orders,
/// different otherwise except with negligible probability. Under it a union's identification
/// serves the same members listed in another order ([`Union::permuted`], SPEC §6 decision 81).
pub(crate) fn members_key(digester: &DataDigester, node: &Map<String, Value>) -> Option<u128> {
    let (keyword, members) = wrapper_union(node)?;
    let mut digests: Vec<u128> = members.iter().map(|m| member_digest(digester, m)).collect();
    let members = digester.bag(&mut digests);
    let rest = digester.written(
        node.iter()
            .filter(|(k, _)| k.as_str() != keyword && !keywords::is_annotation(k))
            .map(|(k, v)| (k.as_str(), v)),
    );
    Some(digester.object([("members", members), ("rest", rest)].into_iter()))
}

/// A wrapper union node's union keyword and members ([`keywords::wrapper_members`]).
fn wrapper_union(node: &Map<String, Value>) -> Option<(&'static str, &Vec<Value>)> {
    let members = keywords::wrapper_members(node)?;
    let keyword = if keywords::get(node, "oneOf").is_some_and(Value::is_array) {
        "oneOf"
    } else {
        "anyOf"
    };
    Some((keyword, members))
}

/// A member's digest as written.
fn member_digest(digester: &DataDigester, member: &Value) -> u128 {
    digester.written(std::iter::once(("", member)))
}

impl Union {
    /// This identification of the union node `from_node` at `from`, for the node `to_node` at `to`
    /// that lists the same members in another order ([`members_key`]; neither site referenced
    /// into, the same reading of whether the root leads there): each branch is the branch of
    /// the same member, its parts under that member moved under the member's place at `to`,
    /// its label its new position where it has no title (SPEC §6 decision 81).
    ///
    /// `None` unless identification cannot depend on the order: nothing nested, and the
    /// discriminator the node's explicit `discriminator.propertyName` (the first candidate, so
    /// chosen in every order: it wins when every branch requires it, and otherwise no candidate
    /// is required by every branch, in any order, and it is the first optional one). A branch's
    /// literals and parts are its member's alone, and the literal sets' disjointness is
    /// pairwise.
    pub(crate) fn permuted(
        &self,
        digester: &DataDigester,
        (from, from_node): (&str, &Map<String, Value>),
        (to, to_node): (&str, &Map<String, Value>),
    ) -> Option<Union> {
        let explicit = keywords::get(to_node, "discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str);
        if !self.nested.is_empty()
            || explicit.is_none()
            || self.discriminator.as_deref() != explicit
        {
            return None;
        }
        let (keyword, from_members) = wrapper_union(from_node)?;
        let (_, to_members) = wrapper_union(to_node)?;
        let n = self.branches.len();
        if from_members.len() != n || to_members.len() != n {
            return None;
        }
        let mut unused: Vec<Option<u128>> = from_members
            .iter()
            .map(|m| Some(member_digest(digester, m)))
            .collect();
        let (from_union, to_union) = (pointer::push(from, keyword), pointer::push(to, keyword));
        let mut branches = Vec::with_capacity(n);
        for (i, member) in to_members.iter().enumerate() {
            let digest = member_digest(digester, member);
            let j = unused.iter().position(|d| *d == Some(digest))?;
            unused[j] = None;
            let branch = &self.branches[j];
            let (from_member, to_member) = (
                pointer::push_index(&from_union, j),
                pointer::push_index(&to_union, i),
            );
            let mut parts = Vec::with_capacity(branch.parts.len());
            for part in &branch.parts {
                parts.push(match part {
                    Part::Siblings => Part::Siblings,
                    Part::Node(p) => match below(p, &from_member) {
                        Some(rest) => Part::Node(pointer::under(&to_member, rest)),
                        // Only a reference could lead elsewhere into the site, and none does.
                        None if below(p, from).is_some() => return None,
                        None => Part::Node(p.clone()),
                    },
                });
            }
            // A title travels with its branch, a position is this site's; with a discriminator
            // there is no label.
            let label = if self.discriminator.is_some() || branch.label.starts_with('"') {
                Rc::clone(&branch.label)
            } else {
                (i + 1).to_string().into()
            };
            branches.push(Branch {
                parts,
                literals: Rc::clone(&branch.literals),
                label,
            });
        }
        Some(Union {
            discriminator: self.discriminator.clone(),
            branches,
            nested: Vec::new(),
        })
    }
}

/// The rest of `p` after `base` when `p` is `base` or under it.
fn below<'p>(p: &'p str, base: &str) -> Option<&'p str> {
    p.strip_prefix(base)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Keywords that make a node read where it stands, or a place of its own.
const LOCATED: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$schema",
    "$defs",
    "definitions",
];

/// Whether any schema object of `node`'s subtree (itself included) reads where it stands or is a
/// place of its own: a reference, a resource, an anchor, definitions ([`LOCATED`]). Two sites
/// written alike without one join alike (SPEC §6 decision 80).
pub(crate) fn reads_where_it_stands(node: &Map<String, Value>) -> bool {
    if LOCATED.iter().any(|k| keywords::has(node, k)) {
        return true;
    }
    let mut found = false;
    keywords::subschemas(node, |_, child| {
        if !found && let Value::Object(child) = child {
            found = reads_where_it_stands(child);
        }
    });
    found
}

/// How many schema nodes a union site may hold for [`site_key`] to key it.
const SITE_KEY_NODES: usize = 64;

/// Whether `node`'s subschemas, counted through the one walker ([`keywords::subschemas`]) and not
/// into `$ref` targets, fit in `budget`.
fn small(node: &Map<String, Value>, budget: &mut usize) -> bool {
    let mut fits = true;
    keywords::subschemas(node, |_, child| {
        if !fits {
            return;
        }
        match budget.checked_sub(1) {
            None => fits = false,
            Some(left) => {
                *budget = left;
                if let Value::Object(child) = child {
                    fits = small(child, budget);
                }
            }
        }
    });
    fits
}

/// Whether `ptr` is where the root's own local `$ref` leads (through a chain of them): the root of
/// the tool schema is its target (SPEC §6 decisions 23 and 70; Zod writes a root with an `id` as
/// `{"$ref": "#/$defs/Name", "$defs": {…}}`).
pub(crate) fn is_root_target(document: &Value, ptr: &str) -> bool {
    let mut node = document;
    for _ in 0..MAX_PART_STEPS {
        let Some(target) = keywords::get_in(node, "$ref")
            .and_then(Value::as_str)
            .and_then(pointer::local_ref)
        else {
            return false;
        };
        if target == ptr {
            return true;
        }
        match pointer::get(document, &target) {
            Some(next) => node = next,
            None => return false,
        }
    }
    false
}

/// The unions nested in branches that one identification has read: each once (a union reached
/// through many branches is identified once, so shared definitions cost no more than their
/// count), and those under way (a union that is its own branch, through references, is not one
/// object).
#[derive(Default)]
struct Nesting {
    /// Identified nested unions by pointer: the union and its projected view, or `None`.
    done: FastMap<String, Option<Projected>>,
    /// Pointers of the unions being identified, outermost first.
    stack: Vec<String>,
}

/// A union nested in a branch, and the projected view of the object it becomes.
type Projected = (Union, Map<String, Value>);

/// A union nested in a branch, identified in [`Mode::Joined`] with its projected view, once.
fn nested_union(
    inner: &Map<String, Value>,
    ptr: &str,
    document: &Value,
    nesting: &mut Nesting,
) -> Option<Projected> {
    if let Some(found) = nesting.done.get(ptr) {
        return found.clone();
    }
    if nesting.stack.len() > MAX_NESTED_UNIONS || nesting.stack.iter().any(|p| p == ptr) {
        return None;
    }
    let found = match identify_in(inner, ptr, document, Mode::Joined, nesting) {
        (Identified::Union(u), Some(view)) => Some((u, view)),
        _ => None,
    };
    nesting.done.insert(ptr.to_owned(), found.clone());
    found
}

/// How deep unions nested in branches are identified (each level is a union whose branch is a
/// union); deeper, a branch that is a union counts as not one object.
const MAX_NESTED_UNIONS: usize = 8;

/// [`identify`] in `mode`, below the unions on `nesting`'s stack; with the projected view of the
/// union (what its flat object will declare, SPEC §2.9) when it is one and nested in a branch.
fn identify_in<'d>(
    node: &'d Map<String, Value>,
    ptr: &str,
    document: &'d Value,
    mode: Mode,
    nesting: &mut Nesting,
) -> (Identified, Option<Map<String, Value>>) {
    if !is_union_site(node) {
        return (Identified::NotUnion(None), None);
    }
    let (keyword, members) = match (keywords::get(node, "oneOf"), keywords::get(node, "anyOf")) {
        (Some(Value::Array(m)), _) => ("oneOf", m),
        (_, Some(Value::Array(m))) => ("anyOf", m),
        _ => return (Identified::NotUnion(None), None),
    };
    let skip = |reason: SkipReason| (Identified::NotUnion(Some(reason)), None);
    let union_ptr = pointer::push(ptr, keyword);
    let mut branch_parts = Vec::with_capacity(members.len());
    // Each part's node, beside it: resolved once, where the parts are collected.
    let mut part_nodes: Vec<Vec<Option<&Value>>> = Vec::with_capacity(members.len());
    for (i, member) in members.iter().enumerate() {
        let mut parts = vec![Part::Siblings];
        let mut nodes = vec![None];
        let mut visiting = Vec::new();
        let branch_ptr = pointer::push_index(&union_ptr, i);
        let collected = collect_parts(
            document,
            (&branch_ptr, member),
            &mut parts,
            &mut nodes,
            &mut visiting,
        );
        if collected.is_err() {
            return skip(SkipReason::BranchUnresolvable { branch: i });
        }
        branch_parts.push(parts);
        part_nodes.push(nodes);
    }
    // Rule 1 on projected branches (SPEC §2.9): a part that is itself a union of objects is read
    // as the one object it becomes, joined because this union is.
    let mut nested: Vec<(String, Union)> = Vec::new();
    let mut projected_views: Vec<Vec<Option<Map<String, Value>>>> = Vec::new();
    let mut kept_union: Option<usize> = None;
    for (i, (parts, nodes)) in branch_parts.iter().zip(&part_nodes).enumerate() {
        let mut views = vec![None; parts.len()];
        for (j, (part, node)) in parts.iter().zip(nodes).enumerate() {
            let (Part::Node(p), Some(Value::Object(inner))) = (part, node) else {
                continue;
            };
            // A union site has two or more members (SPEC §6 decision 70); a one-member
            // `oneOf`/`anyOf` is no union, and a branch holding one is judged by rule 1 as it
            // is.
            if !is_union_site(inner) {
                continue;
            }
            nesting.stack.push(ptr.to_owned());
            let found = nested_union(inner, p, document, nesting);
            nesting.stack.pop();
            match found {
                Some((u, view)) => {
                    nested.push((p.clone(), u));
                    views[j] = Some(view);
                }
                _ => {
                    kept_union.get_or_insert(i);
                }
            }
        }
        projected_views.push(views);
    }
    let draft = Draft::of(document);
    let folded: Vec<Folded<'_>> = branch_parts
        .iter()
        .zip(&part_nodes)
        .zip(&projected_views)
        .map(|((parts, nodes), projected)| {
            fold(&branch_views(parts, nodes, projected, node), draft)
        })
        .collect();
    if let Some(i) = folded.iter().position(|f| !f.object_only) {
        return match kept_union.filter(|&k| k == i) {
            Some(k) => skip(SkipReason::BranchUnionKept { branch: k }),
            None => skip(SkipReason::BranchNotObject { branch: i }),
        };
    }
    let choice = match choose_discriminator(node, &folded, document) {
        Ok(choice) => Some(choice),
        Err(_) if mode == Mode::Joined => None,
        Err(reason) => return skip(reason),
    };
    let view = (!nesting.stack.is_empty()).then(|| projected_view(&folded, document));
    let (discriminator, literals) = match choice {
        Some((name, literals)) => (Some(name.to_owned()), literals),
        None => (None, vec![Vec::new(); branch_parts.len()]),
    };
    let branches = branch_parts
        .into_iter()
        .zip(literals)
        .zip(members)
        .enumerate()
        .map(|(i, ((parts, literals), member))| Branch {
            parts,
            literals: literals.into(),
            // Hints name a branch by its label only without a discriminator.
            label: if discriminator.is_none() {
                label(member, document, i).into()
            } else {
                Rc::from("")
            },
        })
        .collect();
    let union = Union {
        discriminator,
        branches,
        nested,
    };
    (Identified::Union(union), view)
}

/// The discriminator of folded object branches (SPEC §1, rule 3 relaxed by §2.9 and §6 decision
/// 68), with each branch's literal set; else the reason none qualifies.
fn choose_discriminator<'f>(
    node: &'f Map<String, Value>,
    folded: &[Folded<'f>],
    document: &Value,
) -> Result<(&'f str, Vec<Vec<Value>>), SkipReason> {
    // Candidates: an explicit discriminator.propertyName first, then the first branch's order.
    let mut candidates: Vec<&str> = Vec::new();
    if let Some(name) = node
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str)
    {
        candidates.push(name);
    }
    candidates.extend(folded[0].properties.iter().map(|(n, _)| *n));
    // A candidate every branch requires wins over one some branch leaves optional (SPEC §2.9,
    // §6 decision 68: rule 3 relaxed), so a union that was a DU keeps its discriminator; within
    // each group an explicit `discriminator.propertyName` comes first. An explicit name that is
    // optional does not beat a required one: the Zod rendering of the same union has no explicit
    // name, and both must choose alike (dialect invariance, §4).
    let mut best: Option<(u8, SkipReason)> = None;
    let mut optional: Option<(&str, Vec<Vec<Value>>)> = None;
    for name in candidates {
        match check_candidate(name, folded, document) {
            Ok((literals, true)) => return Ok((name, literals)),
            Ok((literals, _)) => {
                optional.get_or_insert((name, literals));
            }
            Err((stage, reason)) => {
                if best.as_ref().is_none_or(|(s, _)| stage > *s) {
                    best = Some((stage, reason));
                }
            }
        }
    }
    optional.ok_or_else(|| best.map_or(SkipReason::NoDiscriminator, |(_, r)| r))
}

/// What the flat object of a union will declare, read from its folded branches before it is
/// built (SPEC §2.9, rule 1 on projected branches): `type: "object"`; every property, as the
/// `enum` of its literals where every branch defines it with a literal set (the join keeps that
/// set, §3.5), else as `true`; what every branch requires; closed when every branch is.
fn projected_view(folded: &[Folded<'_>], document: &Value) -> Map<String, Value> {
    let mut names: Vec<&str> = Vec::new();
    let mut seen: FastSet<&str> = FastSet::default();
    for f in folded {
        for (name, _) in &f.properties {
            if seen.insert(name) {
                names.push(name);
            }
        }
    }
    let mut properties = Map::with_capacity(names.len());
    for name in names {
        let mut values: Vec<Value> = Vec::new();
        let mut keys: FastSet<String> = FastSet::default();
        let mut literal = true;
        for f in folded {
            match f
                .properties
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, defs)| branch_literals(defs, document))
            {
                Some(set) => values.extend(set.into_iter().filter(|v| keys.insert(literal_key(v)))),
                None => {
                    literal = false;
                    break;
                }
            }
        }
        let schema = if literal {
            let mut m = Map::new();
            m.insert("enum".into(), Value::Array(values));
            Value::Object(m)
        } else {
            Value::Bool(true)
        };
        properties.insert(name.to_owned(), schema);
    }
    let required: Vec<Value> = folded[0]
        .required
        .iter()
        .filter(|r| folded.iter().all(|f| f.required.contains(r)))
        .map(|r| Value::String((*r).to_owned()))
        .collect();
    let mut view = Map::new();
    view.insert("type".into(), Value::String("object".into()));
    view.insert("properties".into(), Value::Object(properties));
    view.insert("required".into(), Value::Array(required));
    if folded.iter().all(|f| f.closed) {
        view.insert("additionalProperties".into(), Value::Bool(false));
    }
    view
}

/// A branch's name in hints when its union has no discriminator (SPEC §2.9): its `title` (through
/// a `$ref`) in quotes, else its position counted from 1: hints read `the value has the form
/// "Circle"`, `the value has the form 1 or 2`.
fn label(member: &Value, document: &Value, index: usize) -> String {
    keywords::get_in(member, "title")
        .or_else(|| resolve(member, document).and_then(|m| keywords::get_in(m, "title")))
        .and_then(Value::as_str)
        .map_or_else(|| (index + 1).to_string(), |t| format!("\"{t}\""))
}

/// Views of a branch's parts as maps (parts that are not objects are skipped: `true` adds
/// nothing; a non-object part leaves the type check to fail). A part with a projected view (a
/// nested union, SPEC §2.9) is read as that view.
fn branch_views<'a>(
    parts: &[Part],
    nodes: &[Option<&'a Value>],
    projected: &'a [Option<Map<String, Value>>],
    union_node: &'a Map<String, Value>,
) -> Vec<PartView<'a>> {
    parts
        .iter()
        .enumerate()
        .filter_map(|(origin, p)| match (p, &projected[origin]) {
            (_, Some(view)) => Some(PartView {
                map: view,
                siblings: false,
                origin,
            }),
            (Part::Siblings, None) => Some(PartView {
                map: union_node,
                siblings: true,
                origin,
            }),
            (Part::Node(_), None) => match nodes[origin] {
                Some(Value::Object(map)) => Some(PartView {
                    map,
                    siblings: false,
                    origin,
                }),
                // `false` as a part: the branch accepts no object; a view whose type is empty
                // makes the type check fail.
                Some(Value::Bool(false)) => Some(PartView {
                    map: &EMPTY_TYPE,
                    siblings: false,
                    origin,
                }),
                _ => None,
            },
        })
        .collect()
}

static EMPTY_TYPE: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(|| {
    let mut m = Map::new();
    m.insert("type".to_owned(), Value::Array(Vec::new()));
    m
});

/// A qualifying candidate: each branch's literal set, and whether every branch requires it.
type Candidate = (Vec<Vec<Value>>, bool);

/// Checks one candidate discriminator: rule 2 (literal set in every branch), rule 4 (pairwise
/// disjoint). Rule 3 is relaxed (SPEC §2.9, §6 decision 68): a candidate some branch does not
/// require still qualifies, and the answer says whether every branch requires it. On failure,
/// the stage reached and the reason.
fn check_candidate(
    name: &str,
    folded: &[Folded<'_>],
    document: &Value,
) -> Result<Candidate, (u8, SkipReason)> {
    let mut all = Vec::with_capacity(folded.len());
    for f in folded {
        let defs = f
            .properties
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| d)
            .ok_or((0, SkipReason::NoDiscriminator))?;
        match branch_literals(defs, document) {
            Some(s) => all.push(s),
            None => return Err((0, SkipReason::NoDiscriminator)),
        }
    }
    let required_everywhere = folded.iter().all(|f| f.required.contains(&name));
    let mut owner: FastMap<String, usize> = FastMap::default();
    for (i, set) in all.iter().enumerate() {
        for v in set {
            if let Some(&j) = owner.get(&literal_key(v))
                && j != i
            {
                return Err((
                    2,
                    SkipReason::OverlappingLiterals {
                        property: name.to_owned(),
                        value: v.to_string(),
                    },
                ));
            }
            owner.insert(literal_key(v), i);
        }
    }
    Ok((all, required_everywhere))
}

/// Whether a node is a union site: a `oneOf` (else `anyOf`) array of two or more members.
fn is_union_site(node: &Map<String, Value>) -> bool {
    match (keywords::get(node, "oneOf"), keywords::get(node, "anyOf")) {
        (Some(Value::Array(m)), _) | (None, Some(Value::Array(m))) => m.len() >= 2,
        _ => false,
    }
}

/// The literal set one branch gives a property from its definitions (one per part): with several
/// (sibling and branch), every one must hold the literal, so the set is their intersection;
/// `None` when no definition has one or the intersection is empty.
fn branch_literals(defs: &[(usize, &Value)], document: &Value) -> Option<Vec<Value>> {
    let mut set: Option<Vec<Value>> = None;
    for (_, d) in defs {
        if let Some(s) = literal_set(d, document) {
            set = Some(match set {
                None => s,
                Some(prev) => {
                    let keys: FastSet<String> = s.iter().map(literal_key).collect();
                    prev.into_iter()
                        .filter(|v| keys.contains(&literal_key(v)))
                        .collect()
                }
            });
        }
    }
    set.filter(|s| !s.is_empty())
}

fn resolve<'a>(mut schema: &'a Value, document: &'a Value) -> Option<&'a Value> {
    for _ in 0..MAX_PART_STEPS {
        match keywords::get_in(schema, "$ref").and_then(Value::as_str) {
            Some(r) => schema = pointer::get(document, &pointer::local_ref(r)?)?,
            None => return Some(schema),
        }
    }
    None
}
