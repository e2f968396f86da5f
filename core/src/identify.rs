//! Identification of discriminated unions (SPEC §1) and the folding of a branch's parts (local
//! `$ref`, object-only `allOf`, sibling keywords of the union) into one object view.

use std::collections::{HashMap, HashSet};

use crate::fasthash::{FastMap, FastSet};

use serde_json::{Map, Value};

use crate::canonical::literal_key;
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
    /// Its discriminator literals, in order, without repeats.
    pub literals: Vec<Value>,
}

/// An identified discriminated union.
#[derive(Debug, Clone)]
pub(crate) struct Union {
    /// The discriminator property name.
    pub discriminator: String,
    /// The branches, in order.
    pub branches: Vec<Branch>,
}

/// The outcome of identification.
pub(crate) enum Identified {
    /// A discriminated union.
    Union(Union),
    /// Not one; `Some(reason)` when it is a near miss worth reporting.
    NotUnion(Option<SkipReason>),
}

/// One part as a map, with whether it is the union node read for its siblings only.
#[derive(Clone, Copy)]
pub(crate) struct PartView<'a> {
    pub map: &'a Map<String, Value>,
    pub siblings: bool,
    /// Index of the part in its branch's part list.
    pub origin: usize,
}

/// A branch folded from its parts.
pub(crate) struct Folded<'a> {
    /// Property names in first-appearance order, each with its definitions (one per part) and
    /// the index of the part that holds each.
    pub properties: Vec<(&'a str, Vec<(usize, &'a Value)>)>,
    /// Required names, first-appearance order, no repeats.
    pub required: Vec<&'a str>,
    /// Whether the branch accepts no key beyond its folded `properties` (SPEC §2.5).
    pub closed: bool,
    /// Whether the intersection of the parts' `type` keywords is exactly `object`.
    pub object_only: bool,
}

/// Folds parts into one object view.
pub(crate) fn fold<'a>(parts: &[PartView<'a>], draft: Draft) -> Folded<'a> {
    let mut properties: Vec<(&'a str, Vec<(usize, &'a Value)>)> = Vec::new();
    let mut index: FastMap<&'a str, usize> = FastMap::default();
    let mut required: Vec<&'a str> = Vec::new();
    let mut required_seen: FastSet<&'a str> = FastSet::default();
    let mut types = Kinds::Unprovable;
    let mut closed_by_additional = false;
    let mut unevaluated_false = false;
    let mut evaluates_more = false;
    for part in parts {
        let map = part.map;
        if let Some(Value::Object(props)) = keywords::get(map, "properties") {
            for (name, schema) in props {
                match index.get(name.as_str()) {
                    Some(&i) => properties[i].1.push((part.origin, schema)),
                    None => {
                        index.insert(name, properties.len());
                        properties.push((name, vec![(part.origin, schema)]));
                    }
                }
            }
        }
        if let Some(Value::Array(names)) = keywords::get(map, "required") {
            for name in names.iter().filter_map(Value::as_str) {
                if required_seen.insert(name) {
                    required.push(name);
                }
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
        if extra.iter().any(|k| map.contains_key(*k)) {
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

/// Bound on `$ref` hops and `allOf` nesting while collecting a branch's parts.
const MAX_PART_STEPS: usize = 64;

/// Collects the parts of the schema at `ptr`, in order: itself (unless it is a `$ref` whose draft
/// ignores its siblings, decision 2), its `allOf` members, and its local `$ref` target,
/// recursively. `Err(())` when a reference cannot be
/// followed (remote, or a cycle).
pub(crate) fn collect_parts(
    document: &Value,
    ptr: &str,
    parts: &mut Vec<Part>,
    visiting: &mut Vec<String>,
) -> Result<(), ()> {
    if visiting.len() > MAX_PART_STEPS || visiting.iter().any(|p| p == ptr) {
        return Err(());
    }
    let node = pointer::get(document, ptr).ok_or(())?;
    let Value::Object(map) = node else {
        parts.push(Part::Node(ptr.to_owned()));
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
    }
    if let Some(Value::Array(members)) = keywords::get(map, "allOf").filter(|_| !ref_only) {
        for j in 0..members.len() {
            let member = pointer::push_index(&pointer::push(ptr, "allOf"), j);
            collect_parts(document, &member, parts, visiting)?;
        }
    }
    if let Some(reference) = reference {
        let target = pointer::local_ref(reference).ok_or(())?;
        collect_parts(document, &target, parts, visiting)?;
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
            let mut seen = HashSet::new();
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

/// Identifies the union at `node` (pointer `ptr`) in `document`.
pub(crate) fn identify(node: &Map<String, Value>, ptr: &str, document: &Value) -> Identified {
    let (keyword, members) = match (node.get("oneOf"), node.get("anyOf")) {
        (Some(Value::Array(m)), _) => ("oneOf", m),
        (None, Some(Value::Array(m))) => ("anyOf", m),
        _ => return Identified::NotUnion(None),
    };
    let skip = |reason: SkipReason| {
        Identified::NotUnion(is_near_miss(members, document).then_some(reason))
    };
    if members.len() < 2 {
        return Identified::NotUnion(None);
    }
    let union_ptr = pointer::push(ptr, keyword);
    let mut branch_parts = Vec::with_capacity(members.len());
    for i in 0..members.len() {
        let mut parts = vec![Part::Siblings];
        let mut visiting = Vec::new();
        let branch_ptr = pointer::push_index(&union_ptr, i);
        if collect_parts(document, &branch_ptr, &mut parts, &mut visiting).is_err() {
            return skip(SkipReason::BranchUnresolvable { branch: i });
        }
        branch_parts.push(parts);
    }
    let folded: Vec<Folded<'_>> = branch_parts
        .iter()
        .map(|parts| fold(&views(parts, node, document), Draft::of(document)))
        .collect();
    if let Some(i) = folded.iter().position(|f| !f.object_only) {
        return skip(SkipReason::BranchNotObject { branch: i });
    }
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
        match check_candidate(name, &folded, document) {
            Ok((literals, true)) => {
                return union_of(name, branch_parts, literals);
            }
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
    if let Some((name, literals)) = optional {
        return union_of(name, branch_parts, literals);
    }
    skip(best.map_or(SkipReason::NoDiscriminator, |(_, r)| r))
}

/// The identified union on discriminator `name`.
fn union_of(name: &str, branch_parts: Vec<Vec<Part>>, literals: Vec<Vec<Value>>) -> Identified {
    let branches = branch_parts
        .into_iter()
        .zip(literals)
        .map(|(parts, literals)| Branch { parts, literals })
        .collect();
    Identified::Union(Union {
        discriminator: name.to_owned(),
        branches,
    })
}

/// Views of a branch's parts as maps (parts that are not objects are skipped: `true` adds
/// nothing; a non-object part leaves the type check to fail).
pub(crate) fn views<'a>(
    parts: &[Part],
    union_node: &'a Map<String, Value>,
    document: &'a Value,
) -> Vec<PartView<'a>> {
    parts
        .iter()
        .enumerate()
        .filter_map(|(origin, p)| match p {
            Part::Siblings => Some(PartView {
                map: union_node,
                siblings: true,
                origin,
            }),
            Part::Node(ptr) => match pointer::get(document, ptr) {
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
        // With several definitions (sibling and branch), every one must hold the literal.
        let mut set: Option<Vec<Value>> = None;
        for (_, d) in defs {
            if let Some(s) = literal_set(d, document) {
                set = Some(match set {
                    None => s,
                    Some(prev) => {
                        let keys: HashSet<String> = s.iter().map(literal_key).collect();
                        prev.into_iter()
                            .filter(|v| keys.contains(&literal_key(v)))
                            .collect()
                    }
                });
            }
        }
        match set {
            Some(s) if !s.is_empty() => all.push(s),
            _ => return Err((0, SkipReason::NoDiscriminator)),
        }
    }
    let required_everywhere = folded.iter().all(|f| f.required.contains(&name));
    let mut owner: HashMap<String, usize> = HashMap::new();
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

/// A near miss: two or more non-null members, one of which is an object with a literal property.
/// Nullable wrappers and unions of scalars are not near misses.
fn is_near_miss(members: &[Value], document: &Value) -> bool {
    let non_null = members.iter().filter(|m| !is_null_schema(m)).count();
    if non_null < 2 {
        return false;
    }
    members.iter().any(|m| {
        resolve(m, document)
            .and_then(|t| t.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|props| props.values().any(|p| literal_set(p, document).is_some()))
    })
}

fn resolve<'a>(mut schema: &'a Value, document: &'a Value) -> Option<&'a Value> {
    for _ in 0..MAX_PART_STEPS {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => schema = pointer::get(document, &pointer::local_ref(r)?)?,
            None => return Some(schema),
        }
    }
    None
}

fn is_null_schema(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => {
            m.get("type") == Some(&Value::String("null".into()))
                || m.get("const") == Some(&Value::Null)
                || m.get("enum") == Some(&Value::Array(vec![Value::Null]))
        }
        _ => false,
    }
}
