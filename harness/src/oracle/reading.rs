//! The harness's own reading of the spec, independent of the core's: which root is a
//! discriminated union (SPEC §1), and what the declared reading of open branches promises
//! (SPEC §2.8). Not an oracle: what the oracles and the samplers ask.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::drafts::{self, Draft};
use crate::identity::{canonical_data, sorted_text};
use crate::keywords;
use crate::refs::{self, escape_token, fragment_of};
use crate::sample;

/// The root discriminated union as the harness reads SPEC §1, independently of the core.
#[derive(Debug, Clone, PartialEq)]
pub struct RootUnion {
    /// The discriminator.
    pub tag: String,
    /// Each branch's literal set.
    pub literals: Vec<Vec<Value>>,
}

/// Identifies a root discriminated union by SPEC §1 (branches resolved and merged with siblings,
/// each `type: "object"`, one name with a scalar literal set in every branch, sets pairwise
/// disjoint by value; a name every branch requires before one some branch leaves optional —
/// rule 3, relaxed by §2.9 —, and within each an explicit `discriminator.propertyName` first,
/// then the first branch's order).
pub fn discriminated_root(root: &Value) -> Option<RootUnion> {
    let branches = sample::root_branches(root)?;
    if branches.len() < 2 {
        return None;
    }
    let folded: Vec<Value> = branches.iter().map(|b| fold_all_of(root, b)).collect();
    if !folded
        .iter()
        .all(|b| b.get("type") == Some(&json!("object")))
    {
        return None;
    }
    // Draft-04 has no `const` (SPEC §6 decision 29): there only `enum` gives a literal set.
    let has_const = drafts::declared(root) != Draft::Draft4;
    let literal_set = |branch: &Value, name: &str| -> Option<Vec<Value>> {
        let prop = branch.get("properties")?.get(name)?;
        let prop = refs::follow(root, prop);
        let set = match (prop.get("const").filter(|_| has_const), prop.get("enum")) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(Value::Array(e))) if !e.is_empty() => e.clone(),
            _ => return None,
        };
        set.iter()
            .all(|v| !v.is_array() && !v.is_object())
            .then_some(set)
    };
    // Rule 3 relaxed (SPEC §2.9): a name some branch does not require still qualifies; one every
    // branch requires wins over it.
    let qualifies = |name: &str| -> Option<(Vec<Vec<Value>>, bool)> {
        let mut seen = std::collections::HashSet::new();
        let mut sets = Vec::new();
        let mut required_everywhere = true;
        for b in &folded {
            required_everywhere &= b
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|n| n == name));
            let set = literal_set(b, name)?;
            if !set
                .iter()
                .all(|v| seen.insert(sorted_text(&canonical_data(v))))
            {
                return None;
            }
            sets.push(set);
        }
        Some((sets, required_everywhere))
    };
    let explicit = root
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str);
    let mut names: Vec<String> = explicit.map(str::to_owned).into_iter().collect();
    names.extend(sample::declared_names(&folded[0]));
    let found: Vec<(String, Vec<Vec<Value>>, bool)> = names
        .into_iter()
        .filter_map(|name| qualifies(&name).map(|(sets, req)| (name, sets, req)))
        .collect();
    let pick = found
        .iter()
        .position(|(_, _, required)| *required)
        .or((!found.is_empty()).then_some(0))?;
    let (tag, literals, _) = found.into_iter().nth(pick)?;
    Some(RootUnion { tag, literals })
}

/// Folds object-only `allOf` parts into the branch (properties and required merged).
fn fold_all_of(root: &Value, branch: &Value) -> Value {
    fold_all_of_within(root, branch, 0)
}

/// [`fold_all_of`] through nested `allOf` members (and `$ref`s inside them), a bounded number of
/// levels deep.
fn fold_all_of_within(root: &Value, branch: &Value, depth: usize) -> Value {
    let Some(Value::Array(parts)) = branch.get("allOf").filter(|_| depth < 16) else {
        return branch.clone();
    };
    let mut out = branch.clone();
    if let Some(o) = out.as_object_mut() {
        o.remove("allOf");
    }
    for part in parts {
        let part = fold_all_of_within(root, refs::follow(root, part), depth + 1);
        let Some(p) = part.as_object() else { continue };
        for (k, v) in p {
            let Some(o) = out.as_object_mut() else { break };
            match (k.as_str(), o.get_mut(k)) {
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = v {
                        for (n, s) in more {
                            existing.entry(n.clone()).or_insert_with(|| s.clone());
                        }
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    if let Value::Array(more) = v {
                        existing.extend(more.iter().cloned());
                    }
                }
                _ => {
                    o.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    out
}

/// The original restricted to what the `declared` reading promises (SPEC §2.8, §6 decision 62):
/// in every `oneOf`/`anyOf` whose members declare properties, each member additionally forbids
/// the names its sibling members declare and neither it nor the union node declares. A member
/// declares the names of its projected object (§2.9): its own `properties` (with its `allOf`
/// parts folded in) and those of the members of a union inside it.
///
/// The result accepts a subset of what the original accepts, always (SPEC §6 decision 68):
///
/// - an `anyOf` is narrowed in place, and so is a `oneOf` whose members are pairwise disjoint
///   (a literal tag both members of a pair require, or a name one requires that the other,
///   closed, does not allow; one of the pair of type `object`): narrowing disjoint members keeps
///   them disjoint;
/// - any other `oneOf` keeps its members as written, and its narrowed members are added beside
///   it as an `anyOf` conjunct at the end of the node's `allOf` (narrowing one of two overlapping
///   members could make the `oneOf` accept a value both matched, which the original rejects;
///   decision 64), unless the narrowed members are the members as kept, references included
///   (decision 87);
/// - under `not`, `if` and a `contains` beside `maxContains`, where narrowing loosens, the
///   original text is kept, and what a `$ref` there reaches must keep its original meaning too:
///   the reference is pointed at a copy of the original (under the root's `$defs`/`definitions`,
///   without its resource names and anchors, every reference in it pointed within it), or, where
///   a kept place inside an embedded resource cannot name the root, its target keeps its text;
/// - a name is forbidden with `{"not": {}}`, not `false`: draft-04 has no boolean schemas
///   (decision 63).
///
/// Everything else keeps its JSON pointer: a narrowed member takes its forbidden names in its own
/// `allOf` (appended), or, where that would be ignored (a `$ref` before 2019-09, a boolean), is
/// wrapped in one. Where the harness cannot tell what a `$ref` from a kept place reaches (a
/// `$dynamicRef`, a relative URI without a base, a `$schema` below the root), the original is
/// returned as it is: accepting it all is the only restriction known to be a subset then. What a
/// keyword the document's draft does not have holds is data: no reference in it is followed
/// (decision 87).
pub fn restrict_declared(schema: &Value) -> Value {
    [true, false]
        .into_iter()
        .find_map(|copy| Restriction::of(schema, copy).and_then(|r| r.render()))
        .unwrap_or_else(|| schema.clone())
}

/// One [`restrict_declared`]: the document, what its references reach, and the places where
/// narrowing must not go.
struct Restriction<'a> {
    root: &'a Value,
    draft: Draft,
    resolver: Resolver<'a>,
    /// The `oneOf` nodes whose members are not known to be pairwise disjoint.
    overlapping: HashSet<*const Value>,
    /// Targets of references from kept places that keep their text where they are.
    frozen: HashSet<*const Value>,
    /// References in kept places pointed at the copy of the original, by the node holding them.
    to_copy: HashMap<*const Value, String>,
    /// Where the copy of the original goes: the definitions keyword and a name not taken.
    copy_at: (&'static str, String),
    /// A copy placed beside an overlapping `oneOf` could not be written.
    relocation_failed: Cell<bool>,
}

impl<'a> Restriction<'a> {
    /// The plan for `root`: which `oneOf`s overlap, which places are kept, and where their
    /// references go (to the copy of the original when `copy`, else their targets keep their
    /// text). `None` when a reference from a kept place reaches somewhere the harness cannot
    /// tell.
    fn of(root: &'a Value, copy: bool) -> Option<Restriction<'a>> {
        let draft = drafts::declared(root);
        let defs = if matches!(draft, Draft::Draft2019 | Draft::Draft2020) {
            "$defs"
        } else {
            "definitions"
        };
        let mut name = String::from("flatjoin_original");
        while root.get(defs).and_then(|d| d.get(&name)).is_some() {
            name.push('_');
        }
        let mut r = Restriction {
            root,
            draft,
            resolver: Resolver::of(root, draft),
            overlapping: HashSet::new(),
            frozen: HashSet::new(),
            to_copy: HashMap::new(),
            copy_at: (defs, name),
            relocation_failed: Cell::new(false),
        };
        // The places where narrowing loosens: their text is kept. Both walks go through the
        // keywords of the document's draft only: what another draft's keyword holds is data
        // here (draft-04's `then`), and a reference in it is never followed (SPEC §6
        // decision 87).
        let knows = |keyword: &str| draft.knows(keyword);
        let mut kept: Vec<&'a Value> = Vec::new();
        keywords::walk_keywords(root, &knows, &mut |node| {
            let Value::Object(map) = node else {
                return true;
            };
            kept.extend(map.get("not"));
            // `if` is a keyword from draft-07 on (before, data: nothing to keep).
            if !matches!(draft, Draft::Draft4 | Draft::Draft6) {
                kept.extend(map.get("if"));
            }
            if map.contains_key("maxContains") {
                kept.extend(map.get("contains"));
            }
            if let Some(Value::Array(members)) = map.get("oneOf")
                && !r.disjoint(node, members)
            {
                r.overlapping.insert(node);
                kept.extend(members);
            }
            true
        });
        // What references from kept places reach keeps its meaning: through the copy, or in
        // place (and then what the references there reach, transitively).
        let mut visited: HashSet<*const Value> = HashSet::new();
        let mut unknown = false;
        while let Some(place) = kept.pop() {
            keywords::walk_keywords(place, &knows, &mut |node| {
                if !visited.insert(node) {
                    return false;
                }
                unknown |= is_dynamic(node);
                if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
                    match r.resolver.resolve(node, reference) {
                        Target::Node(target) => {
                            match copy.then(|| r.reaching_copy(node, target)).flatten() {
                                Some(moved) => {
                                    r.to_copy.insert(node, moved);
                                }
                                None => {
                                    r.frozen.insert(target);
                                    kept.push(target);
                                }
                            }
                        }
                        Target::Elsewhere => {}
                        Target::Unknown => unknown = true,
                    }
                }
                true
            });
            if unknown {
                return None;
            }
        }
        Some(r)
    }

    /// The restricted document, with the copy of the original when a kept place refers to it.
    fn render(&self) -> Option<Value> {
        let mut out = self.node(self.root, false);
        if !self.to_copy.is_empty() {
            let copy = self.copied(self.root)?;
            let (defs, name) = &self.copy_at;
            let map = out.as_object_mut()?;
            match map.entry(*defs).or_insert_with(|| json!({})) {
                Value::Object(d) => d.insert(name.clone(), copy),
                _ => return None,
            };
        }
        Some(out)
    }

    /// The reference, written in `holder` (a kept place), that reaches `target` in the copy of
    /// the original: a fragment when `holder` is in the root resource, else the root's base URI
    /// with it (`None` without one).
    fn reaching_copy(&self, holder: &Value, target: &Value) -> Option<String> {
        let (defs, name) = &self.copy_at;
        let fragment = fragment_of(&format!(
            "/{defs}/{}{}",
            escape_token(name),
            self.resolver.pointer(target)?
        ));
        if self.resolver.resource(holder) == 0 {
            return Some(format!("#{fragment}"));
        }
        let base = self.resolver.resources[0].1.as_ref()?;
        Some(format!("{base}#{fragment}"))
    }

    /// `node` as the copy of the original holds it: without resource names and anchors, every
    /// reference pointed within the copy (or at the absolute URI of another document).
    fn copied(&self, node: &Value) -> Option<Value> {
        let Value::Object(map) = node else {
            return Some(node.clone());
        };
        let mut out = Map::new();
        for (key, value) in map {
            if self.names(key, value) || key == "$schema" {
                continue;
            }
            if is_dynamic(node) {
                return None;
            }
            let rewritten = match (key.as_str(), value) {
                ("$ref", Value::String(reference)) => {
                    Value::String(match self.resolver.resolve(node, reference) {
                        Target::Node(target) => {
                            let (defs, name) = &self.copy_at;
                            format!(
                                "#{}",
                                fragment_of(&format!(
                                    "/{defs}/{}{}",
                                    escape_token(name),
                                    self.resolver.pointer(target)?
                                ))
                            )
                        }
                        Target::Elsewhere => self.resolver.absolute_reference(node, reference)?,
                        Target::Unknown => return None,
                    })
                }
                // What a keyword the draft does not have holds is data (draft-04's `then`): no
                // reference in it is followed or rewritten (SPEC §6 decision 87).
                _ if !self.draft.knows(key) => value.clone(),
                _ => {
                    let mut failed = false;
                    let mapped = keywords::map_subschemas(key, value, &mut |sub| {
                        self.copied(sub).unwrap_or_else(|| {
                            failed = true;
                            Value::Null
                        })
                    });
                    if failed {
                        return None;
                    }
                    mapped.unwrap_or_else(|| value.clone())
                }
            };
            out.insert(key.clone(), rewritten);
        }
        Some(Value::Object(out))
    }

    /// Whether `key: value` names a resource or an anchor.
    fn names(&self, key: &str, value: &Value) -> bool {
        let id = if self.draft == Draft::Draft4 {
            "id"
        } else {
            "$id"
        };
        (key == id || ["$anchor", "$dynamicAnchor", "$recursiveAnchor"].contains(&key))
            && (value.is_string() || value.is_boolean())
    }

    /// `node` restricted, or with its original meaning when a reference from a kept place
    /// reaches it. `relocated`: written into a copy beside an overlapping `oneOf` (see
    /// [`Restriction::relocated_reference`]).
    fn node(&self, node: &Value, relocated: bool) -> Value {
        if self.frozen.contains(&std::ptr::from_ref(node)) {
            return self.kept(node, relocated);
        }
        self.rewrite(node, relocated)
    }

    /// `node` with its original meaning: its text, with the references that would reach a
    /// restricted place pointed at the copy of the original.
    fn kept(&self, node: &Value, relocated: bool) -> Value {
        if self.to_copy.is_empty() && !relocated {
            return node.clone();
        }
        let Value::Object(map) = node else {
            return node.clone();
        };
        let mut out = Map::new();
        for (key, value) in map {
            if relocated && self.names(key, value) {
                continue;
            }
            let rewritten = match (key.as_str(), self.to_copy.get(&std::ptr::from_ref(node))) {
                ("$ref", Some(moved)) => Value::String(moved.clone()),
                ("$ref", None) if relocated => self.relocated_reference(node, value),
                _ => keywords::map_subschemas(key, value, &mut |sub| self.kept(sub, relocated))
                    .unwrap_or_else(|| value.clone()),
            };
            out.insert(key.clone(), rewritten);
        }
        Value::Object(out)
    }

    /// `node` restricted (its own text, even when a reference reaches it: `rewrite` also writes
    /// the copies placed elsewhere).
    fn rewrite(&self, node: &Value, relocated: bool) -> Value {
        let Value::Object(map) = node else {
            return node.clone();
        };
        let mut out = Map::new();
        let mut conjunct = None;
        for (key, value) in map {
            if relocated && self.names(key, value) {
                continue;
            }
            let rewritten = match (key.as_str(), value) {
                ("$ref", _) if relocated => self.relocated_reference(node, value),
                // Narrowing under these loosens: kept as written.
                ("not" | "if", _) => self.kept(value, relocated),
                ("contains", _) if map.contains_key("maxContains") => self.kept(value, relocated),
                ("oneOf", Value::Array(members))
                    if self.overlapping.contains(&std::ptr::from_ref(node)) =>
                {
                    conjunct = self.beside(node, members, relocated);
                    Value::Array(members.iter().map(|m| self.kept(m, relocated)).collect())
                }
                ("anyOf" | "oneOf", Value::Array(members)) => {
                    Value::Array(self.narrowed(node, members, true, relocated))
                }
                _ => keywords::map_subschemas(key, value, &mut |sub| self.node(sub, relocated))
                    .unwrap_or_else(|| value.clone()),
            };
            out.insert(key.clone(), rewritten);
        }
        if let Some(conjunct) = conjunct {
            match out.get_mut("allOf") {
                None => {
                    out.insert("allOf".into(), json!([conjunct]));
                }
                Some(Value::Array(parts)) => parts.push(conjunct),
                // Not a schema the judge compiles: nothing to narrow.
                Some(_) => {}
            }
        }
        Value::Object(out)
    }

    /// The conjunct placed beside the overlapping `oneOf` of `node`: the `anyOf` of its members
    /// narrowed, or `None` when that would change nothing (the copies are the members as kept,
    /// references included), or when a member names a resource or
    /// an anchor and the copies cannot be written without (the copies must not declare a name
    /// twice; they are written without names when `node` is in the root resource and the
    /// document has no dynamic reference).
    fn beside(&self, node: &Value, members: &[Value], relocated: bool) -> Option<Value> {
        let named = members.iter().any(|m| {
            let mut named = false;
            keywords::walk(m, &mut |n| {
                if let Value::Object(map) = n {
                    named |= map.iter().any(|(k, v)| self.names(k, v));
                }
            });
            named
        });
        let relocate = named || relocated;
        if relocate && (self.resolver.resource(node) != 0 || self.resolver.dynamic) {
            return None;
        }
        let failed_before = self.relocation_failed.replace(false);
        let copies = self.narrowed(node, members, false, relocate);
        let failed = self.relocation_failed.replace(failed_before);
        // Compared with the members as the restricted document keeps them: their references
        // may lead to the copy of the original where the copies' lead to restricted targets,
        // and then the same text is not the same promise (SPEC §6 decision 87).
        let kept: Vec<Value> = members.iter().map(|m| self.kept(m, relocated)).collect();
        (!failed && copies != kept).then(|| json!({ "anyOf": copies }))
    }

    /// A reference inside a copy written beside an overlapping `oneOf` (in the root resource,
    /// without the names the copied member declares): unchanged when its holder is in the root
    /// resource (it resolves there as before; a name the member declares is still declared by
    /// the member kept as written); else its target's URI (its resource's base and a pointer),
    /// or a pointer from the root. What cannot be written marks the copy as failed.
    fn relocated_reference(&self, holder: &Value, value: &Value) -> Value {
        let Some(reference) = value.as_str() else {
            return value.clone();
        };
        if self.resolver.resource(holder) == 0 {
            return value.clone();
        }
        let moved = match self.resolver.resolve(holder, reference) {
            Target::Node(target) => self.resolver.locate(target),
            Target::Elsewhere => self.resolver.absolute_reference(holder, reference),
            Target::Unknown => None,
        };
        moved.map_or_else(
            || {
                self.relocation_failed.set(true);
                value.clone()
            },
            Value::String,
        )
    }

    /// The members of the union `node`, each restricted and forbidding the names other members
    /// declare and neither it nor the union node declares. In place, a member a reference from a
    /// kept place reaches keeps its meaning; otherwise (copies beside an overlapping `oneOf`)
    /// every member is narrowed.
    fn narrowed(
        &self,
        node: &Value,
        members: &[Value],
        in_place: bool,
        relocated: bool,
    ) -> Vec<Value> {
        let names: Vec<Vec<String>> = members.iter().map(|m| self.declared(m, &mut 64)).collect();
        let sibling = sample::declared_names(node);
        members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                if in_place && self.frozen.contains(&std::ptr::from_ref(m)) {
                    return self.kept(m, relocated);
                }
                let mut forbid = Map::new();
                for (j, list) in names.iter().enumerate() {
                    if j == i {
                        continue;
                    }
                    for n in list {
                        if !names[i].contains(n) && !sibling.contains(n) {
                            // `{"not": {}}`, not `false`: draft-04 has no boolean schemas
                            // (SPEC §6 decision 63).
                            forbid.insert(n.clone(), json!({"not": {}}));
                        }
                    }
                }
                let inner = if in_place {
                    self.node(m, relocated)
                } else {
                    self.rewrite(m, relocated)
                };
                self.forbidding(inner, forbid)
            })
            .collect()
    }

    /// The names a union member declares: those of its projected object (SPEC §2.9), its
    /// `properties` with its `allOf` parts folded in and those of the members of a union inside
    /// it (within a budget of members looked at).
    fn declared(&self, member: &Value, budget: &mut usize) -> Vec<String> {
        let folded = fold_all_of(self.root, self.follow(member));
        let mut names = sample::declared_names(&folded);
        *budget = budget.saturating_sub(1);
        if *budget > 0 {
            for keyword in ["anyOf", "oneOf"] {
                if let Some(Value::Array(inner)) = folded.get(keyword) {
                    for m in inner {
                        for n in self.declared(m, budget) {
                            if !names.contains(&n) {
                                names.push(n);
                            }
                        }
                    }
                }
            }
        }
        names
    }

    /// `member` with the names in `forbid` forbidden: appended to its own `allOf`, so that what
    /// is inside keeps its JSON pointer, or wrapped where siblings would be ignored (a `$ref`
    /// before 2019-09) or there is no object to append to.
    fn forbidding(&self, member: Value, forbid: Map<String, Value>) -> Value {
        if forbid.is_empty() {
            return member;
        }
        let part = json!({ "properties": forbid });
        match member {
            Value::Object(mut map) if !(self.ref_hides_siblings() && map.contains_key("$ref")) => {
                match map.get_mut("allOf") {
                    None => {
                        map.insert("allOf".into(), json!([part]));
                    }
                    Some(Value::Array(parts)) => parts.push(part),
                    Some(_) => return json!({ "allOf": [Value::Object(map), part] }),
                }
                Value::Object(map)
            }
            other => json!({ "allOf": [other, part] }),
        }
    }

    /// Whether a `$ref` makes its sibling keywords ignored (draft-07 and before).
    fn ref_hides_siblings(&self) -> bool {
        matches!(self.draft, Draft::Draft7 | Draft::Draft6 | Draft::Draft4)
    }

    /// Follows `$ref`s (at most a few hops) to a node that is not a reference the resolver
    /// places.
    fn follow<'b>(&'b self, mut node: &'b Value) -> &'b Value {
        for _ in 0..8 {
            match node
                .get("$ref")
                .and_then(Value::as_str)
                .map(|r| self.resolver.resolve(node, r))
            {
                Some(Target::Node(target)) => node = target,
                _ => break,
            }
        }
        node
    }

    /// Whether the members of the `oneOf` of `union` are known to be pairwise disjoint, so
    /// that narrowing them in place only narrows the `oneOf`.
    fn disjoint(&self, union: &'a Value, members: &'a [Value]) -> bool {
        // The union node's own `type` and `required` hold of every member's values.
        let shared = Facts {
            object: is_object_type(union.get("type")),
            required: union
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default(),
            ..Facts::default()
        };
        let facts: Vec<Facts<'a>> = members
            .iter()
            .map(|m| {
                let mut f = Facts {
                    object: shared.object,
                    required: shared.required.clone(),
                    ..Facts::default()
                };
                self.facts(m, &mut HashSet::new(), &mut f);
                f
            })
            .collect();
        (0..facts.len()).all(|i| (i + 1..facts.len()).all(|j| self.apart(&facts[i], &facts[j])))
    }

    /// Whether no value satisfies both `a` and `b`.
    fn apart(&self, a: &Facts<'a>, b: &Facts<'a>) -> bool {
        if a.empty || b.empty {
            return true;
        }
        // `required` and `properties` hold of any value that is not an object.
        if !(a.object || b.object) {
            return false;
        }
        let tagged = a.required.iter().any(|name| {
            b.required.contains(name)
                && match (self.literals(a, name), self.literals(b, name)) {
                    (Some(x), Some(y)) => x.iter().all(|v| !y.contains(v)),
                    _ => false,
                }
        });
        let excluded = |x: &Facts<'a>, y: &Facts<'a>| {
            y.allowed
                .as_ref()
                .is_some_and(|allowed| x.required.iter().any(|n| !allowed.contains(n)))
        };
        tagged || excluded(a, b) || excluded(b, a)
    }

    /// The values a member lets property `name` take, as canonical texts, when one of the
    /// `properties` entries that apply to it is a literal set.
    fn literals(&self, facts: &Facts<'a>, name: &str) -> Option<Vec<String>> {
        // Draft-04 has no `const` (SPEC §6 decision 29).
        let has_const = self.draft != Draft::Draft4;
        facts
            .properties
            .iter()
            .filter(|(n, _)| *n == name)
            .find_map(|(_, schema)| {
                let schema = self.follow(schema);
                let set = match (
                    schema.get("const").filter(|_| has_const),
                    schema.get("enum"),
                ) {
                    (Some(c), _) => vec![c.clone()],
                    (None, Some(Value::Array(e))) => e.clone(),
                    _ => return None,
                };
                Some(
                    set.iter()
                        .map(|v| sorted_text(&canonical_data(v)))
                        .collect(),
                )
            })
    }

    /// What `node` is known to require of every value it accepts (through `$ref` and `allOf`,
    /// each node once).
    fn facts(&self, node: &'a Value, seen: &mut HashSet<*const Value>, out: &mut Facts<'a>) {
        if !seen.insert(node) {
            return;
        }
        let map = match node {
            Value::Object(map) => map,
            Value::Bool(false) => {
                out.empty = true;
                return;
            }
            _ => return,
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Target::Node(target) = self.resolver.resolve(node, reference) {
                self.facts(target, seen, out);
            }
            if self.ref_hides_siblings() {
                return;
            }
        }
        out.object |= is_object_type(map.get("type"));
        if let Some(Value::Array(required)) = map.get("required") {
            out.required
                .extend(required.iter().filter_map(Value::as_str));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        if let Some(p) = properties {
            out.properties
                .extend(p.iter().map(|(name, schema)| (name.as_str(), schema)));
        }
        if map.get("additionalProperties") == Some(&Value::Bool(false))
            && !map.contains_key("patternProperties")
        {
            let here: Vec<&str> = properties
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            out.allowed = Some(match out.allowed.take() {
                Some(before) => before.into_iter().filter(|n| here.contains(n)).collect(),
                None => here,
            });
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            for part in parts {
                self.facts(part, seen, out);
            }
        }
    }
}

/// What a schema is known to require of every value it accepts (each an upper bound: every
/// entry applies).
#[derive(Default)]
struct Facts<'a> {
    /// It accepts nothing (`false`).
    empty: bool,
    /// It accepts objects only.
    object: bool,
    /// Names it requires.
    required: Vec<&'a str>,
    /// The `properties` entries that apply, by name (several for one name all apply).
    properties: Vec<(&'a str, &'a Value)>,
    /// The only names it allows, when a part is closed (`additionalProperties: false` without
    /// `patternProperties`).
    allowed: Option<Vec<&'a str>>,
}

/// Whether a `type` keyword admits objects only.
fn is_object_type(keyword: Option<&Value>) -> bool {
    match keyword {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.len() == 1 && ts[0] == "object",
        _ => false,
    }
}

/// Whether `node` holds a reference resolved by the dynamic scope (`$dynamicRef`,
/// `$recursiveRef`).
fn is_dynamic(node: &Value) -> bool {
    ["$dynamicRef", "$recursiveRef"]
        .iter()
        .any(|k| node.get(k).is_some())
}

/// Where a `$ref` leads.
enum Target<'a> {
    /// A schema node of the document.
    Node(&'a Value),
    /// Another document (the suite's remotes): its meaning is not restricted.
    Elsewhere,
    /// The harness cannot tell.
    Unknown,
}

/// The document's resources (the root and every subschema with its own non-fragment `$id`,
/// draft-04 `id`), against which a `$ref` resolves: a fragment against its own resource, a URI
/// against that resource's base.
struct Resolver<'a> {
    /// Each resource: its node and its absolute base URI when known.
    resources: Vec<(&'a Value, Option<String>)>,
    /// The resource of every schema node, and its JSON pointer from the root, by address.
    places: HashMap<*const Value, (usize, String)>,
    /// The nodes named by a plain-name fragment, by resource and name: `$anchor`,
    /// `$dynamicAnchor`, and an id that is only a fragment (`"$id": "#name"` before 2019-09,
    /// draft-04's `"id": "#name"`).
    anchors: HashMap<(usize, String), &'a Value>,
    /// Something this resolver does not model (a `$schema` below the root, an `$id` with both a
    /// URI and a fragment): every reference is then unknown.
    unmodelled: bool,
    /// The document holds a `$dynamicRef` or a `$recursiveRef`.
    dynamic: bool,
}

impl<'a> Resolver<'a> {
    fn of(root: &'a Value, draft: Draft) -> Resolver<'a> {
        let id_keyword = if draft == Draft::Draft4 { "id" } else { "$id" };
        let root_id = root.get(id_keyword).and_then(Value::as_str);
        let mut r = Resolver {
            resources: vec![(root, root_id.and_then(|id| absolute(split_fragment(id).0)))],
            places: HashMap::new(),
            anchors: HashMap::new(),
            unmodelled: root_id.is_some_and(|id| {
                let (uri, fragment) = split_fragment(id);
                !uri.is_empty() && !fragment.is_empty()
            }),
            dynamic: false,
        };
        r.index(root, 0, String::new(), id_keyword);
        r
    }

    fn index(&mut self, node: &'a Value, parent: usize, pointer: String, id_keyword: &str) {
        let Value::Object(map) = node else {
            self.places.insert(node, (parent, pointer));
            return;
        };
        self.dynamic |= is_dynamic(node);
        let mut resource = parent;
        if !std::ptr::eq(node, self.resources[0].0) {
            self.unmodelled |= map.contains_key("$schema");
            if let Some(id) = map.get(id_keyword).and_then(Value::as_str) {
                let (uri, fragment) = split_fragment(id);
                if !uri.is_empty() {
                    self.unmodelled |= !fragment.is_empty();
                    let base = match &self.resources[parent].1 {
                        Some(b) => join(b, uri),
                        None => absolute(uri),
                    };
                    self.resources.push((node, base));
                    resource = self.resources.len() - 1;
                }
            }
        }
        let own_id = map.get(id_keyword).and_then(Value::as_str);
        let names = [map.get("$anchor"), map.get("$dynamicAnchor")]
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .chain(own_id.and_then(|id| id.strip_prefix('#')));
        for name in names {
            if self
                .anchors
                .insert((resource, name.to_owned()), node)
                .is_some_and(|before| !std::ptr::eq(before, node))
            {
                // One name for two nodes: which one a reference means is not modelled.
                self.unmodelled = true;
            }
        }
        for (keyword, value) in map {
            let here = format!("{pointer}/{}", escape_token(keyword));
            match (keywords::holds(keyword), value) {
                (
                    Some(keywords::Holds::List | keywords::Holds::OneOrList),
                    Value::Array(members),
                ) => {
                    for (i, m) in members.iter().enumerate() {
                        self.index(m, resource, format!("{here}/{i}"), id_keyword);
                    }
                }
                (
                    Some(keywords::Holds::Map | keywords::Holds::MapOfSchemasOrNames),
                    Value::Object(entries),
                ) => {
                    for (name, sub) in entries {
                        if !sub.is_array() {
                            let at = format!("{here}/{}", escape_token(name));
                            self.index(sub, resource, at, id_keyword);
                        }
                    }
                }
                (Some(_), sub @ (Value::Object(_) | Value::Bool(_))) => {
                    self.index(sub, resource, here, id_keyword);
                }
                _ => {}
            }
        }
        self.places.insert(node, (resource, pointer));
    }

    /// The resource of a schema node (the root's when it is not one of the document's).
    fn resource(&self, node: &Value) -> usize {
        self.places
            .get(&std::ptr::from_ref(node))
            .map_or(0, |(r, _)| *r)
    }

    /// The JSON pointer of a schema node from the root.
    fn pointer(&self, node: &Value) -> Option<&str> {
        self.places
            .get(&std::ptr::from_ref(node))
            .map(|(_, p)| p.as_str())
    }

    /// A reference that reaches `target` from anywhere in the root resource: its resource's
    /// base URI with a pointer within it, or a pointer from the root.
    fn locate(&self, target: &Value) -> Option<String> {
        let (resource, pointer) = self.places.get(&std::ptr::from_ref(target))?;
        let (node, base) = &self.resources[*resource];
        match base {
            Some(base) => {
                let within = pointer.strip_prefix(self.pointer(node)?)?;
                Some(format!("{base}#{}", fragment_of(within)))
            }
            None => Some(format!("#{}", fragment_of(pointer))),
        }
    }

    /// `reference`, written in `holder`, as an absolute URI (with its fragment).
    fn absolute_reference(&self, holder: &Value, reference: &str) -> Option<String> {
        let (uri, fragment) = split_fragment(reference);
        let uri = match &self.resources[self.resource(holder)].1 {
            Some(base) => join(base, uri)?,
            None => absolute(uri)?,
        };
        Some(if reference.contains('#') {
            format!("{uri}#{fragment}")
        } else {
            uri
        })
    }

    /// Where `reference`, written in `holder`, leads.
    fn resolve(&self, holder: &Value, reference: &str) -> Target<'a> {
        if self.unmodelled {
            return Target::Unknown;
        }
        let own = self.resource(holder);
        let (uri, fragment) = split_fragment(reference);
        let resource = if uri.is_empty() {
            own
        } else {
            let target = match &self.resources[own].1 {
                Some(base) => join(base, uri),
                None => absolute(uri),
            };
            let Some(target) = target else {
                return Target::Unknown;
            };
            match self
                .resources
                .iter()
                .position(|(_, b)| b.as_deref() == Some(target.as_str()))
            {
                Some(i) => i,
                None => return Target::Elsewhere,
            }
        };
        let found = if fragment.is_empty() || fragment.starts_with('/') || fragment.starts_with('%')
        {
            refs::resolve(self.resources[resource].0, &format!("#{fragment}"))
        } else {
            self.anchors.get(&(resource, fragment.to_owned())).copied()
        };
        found.map_or(Target::Unknown, Target::Node)
    }
}

/// `(uri, fragment)` of a reference or an id.
fn split_fragment(text: &str) -> (&str, &str) {
    text.split_once('#').unwrap_or((text, ""))
}

/// `uri` when it is absolute (has a scheme).
fn absolute(uri: &str) -> Option<String> {
    let (scheme, _) = uri.split_once(':')?;
    let is_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    is_scheme.then(|| uri.to_owned())
}

/// `reference` resolved against the absolute `base` (RFC 3986 §5.2, for the hierarchical
/// `scheme://authority/path` form without a query; `None` otherwise).
fn join(base: &str, reference: &str) -> Option<String> {
    if let Some(abs) = absolute(reference) {
        return Some(abs);
    }
    if base.contains('?') || reference.contains('?') {
        return None;
    }
    let (scheme, rest) = base.split_once("://")?;
    if let Some(network) = reference.strip_prefix("//") {
        return Some(format!("{scheme}://{network}"));
    }
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let merged = if reference.starts_with('/') {
        reference.to_owned()
    } else if reference.is_empty() {
        path.to_owned()
    } else {
        let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
        format!("{dir}{reference}")
    };
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = merged.split('/').skip(1).collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        match *segment {
            "." => {
                if last {
                    segments.push("");
                }
            }
            ".." => {
                segments.pop();
                if last {
                    segments.push("");
                }
            }
            s => segments.push(s),
        }
    }
    Some(format!("{scheme}://{authority}/{}", segments.join("/")))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::restrict_declared;

    const DRAFT04: &str = "http://json-schema.org/draft-04/schema#";

    /// A small deterministic generator (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % (n as u64)).unwrap_or(0)
        }
    }

    /// The property names and scalar literals `schema` mentions, and a few more scalars.
    fn pool(schema: &Value) -> (Vec<String>, Vec<Value>) {
        let mut names: Vec<String> = vec!["extra".into()];
        let mut scalars = vec![
            json!(null),
            json!(true),
            json!(0),
            json!(2.5),
            json!(""),
            json!("s"),
        ];
        crate::keywords::walk(schema, &mut |node| {
            let listed = node.get("properties").and_then(Value::as_object);
            for n in listed.into_iter().flat_map(|p| p.keys()) {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            let literals = node.get("enum").and_then(Value::as_array);
            for v in literals.into_iter().flatten().chain(node.get("const")) {
                if !v.is_object() && !v.is_array() && !scalars.contains(v) {
                    scalars.push(v.clone());
                }
            }
        });
        (names, scalars)
    }

    /// A value made of the schema's names and literals: mostly objects, some arrays and scalars.
    fn draw(rng: &mut Rng, names: &[String], scalars: &[Value], depth: usize) -> Value {
        match rng.below(10) {
            0 | 1 => scalars[rng.below(scalars.len())].clone(),
            2 if depth < 2 => Value::Array(
                (0..rng.below(4))
                    .map(|_| draw(rng, names, scalars, depth + 1))
                    .collect(),
            ),
            _ if depth < 2 => {
                let mut object = serde_json::Map::new();
                for n in names {
                    if rng.below(3) == 0 {
                        object.insert(n.clone(), draw(rng, names, scalars, depth + 1));
                    }
                }
                Value::Object(object)
            }
            _ => scalars[rng.below(scalars.len())].clone(),
        }
    }

    /// Every sampled value the restriction accepts is accepted by the original (SPEC §6
    /// decision 68), judged by `jsonschema` under the document's draft. Returns how many the
    /// restriction accepted, and the restriction.
    fn assert_monotone(original: &Value, seed: u64) -> (usize, Value) {
        let restricted = restrict_declared(original);
        let judge = |s: &Value| jsonschema::validator_for(s).unwrap_or_else(|e| panic!("{e}: {s}"));
        let (o, r) = (judge(original), judge(&restricted));
        let (names, scalars) = pool(original);
        let mut rng = Rng(seed);
        let mut accepted = 0;
        for _ in 0..4000 {
            let value = draw(&mut rng, &names, &scalars, 0);
            if r.is_valid(&value) {
                accepted += 1;
                assert!(
                    o.is_valid(&value),
                    "the restriction accepts {value}, the original does not\n  original: {original}\n  restricted: {restricted}"
                );
            }
        }
        (accepted, restricted)
    }

    /// Hand-written schemas where narrowing in place loosens, each with a value the original
    /// accepts outside the declared promise (the restriction must reject it) and, where there
    /// is one, a promised value (the restriction must accept it).
    fn cases() -> Vec<(&'static str, Value, Vec<Value>, Vec<Value>)> {
        let open = |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}});
        // Two open members, the second requiring its name: `{"b": "x"}` matches both, so the
        // original rejects it; narrowing the first alone (forbidding `b`) would let the `oneOf`
        // accept it.
        let pair = json!([open("a"), {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}]);
        vec![
            (
                "overlapping oneOf",
                json!({"oneOf": pair}),
                vec![json!({"a": "x", "b": 1})],
                vec![json!({"a": "x", "c": 1})],
            ),
            (
                "nested overlapping oneOf under a tagged root",
                json!({"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "p"}, "inner": {"oneOf": pair}}, "required": ["kind"]},
                    {"type": "object", "properties": {"kind": {"const": "q"}, "c": {"type": "integer"}}, "required": ["kind"]}
                ]}),
                vec![
                    json!({"kind": "p", "c": "no"}),
                    json!({"kind": "p", "inner": {"a": "x", "b": 2}}),
                ],
                vec![json!({"kind": "q", "c": 1, "z": 0})],
            ),
            (
                "draft-04 enum tags (disjoint: narrowed in place)",
                json!({"$schema": DRAFT04, "oneOf": [
                    {"type": "object", "properties": {"kind": {"enum": ["a"]}, "x": {"type": "string"}}, "required": ["kind"]},
                    {"type": "object", "properties": {"kind": {"enum": ["b"]}, "y": {"type": "string"}}, "required": ["kind"]}
                ]}),
                vec![json!({"kind": "a", "y": 3})],
                vec![json!({"kind": "a", "x": "s"})],
            ),
            (
                // `const` is no keyword in draft-04: the members overlap.
                "draft-04 const tags (overlapping)",
                json!({"$schema": DRAFT04, "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind"]},
                    {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"], "additionalProperties": false}
                ]}),
                vec![json!({"kind": "a", "y": 3})],
                vec![json!({"kind": "a", "x": "s"})],
            ),
            (
                // Narrowing under `not` loosens: `{"a": "s", "b": "t"}` matches the first member,
                // so the original rejects it.
                "not",
                json!({"type": "object", "not": {"anyOf": [
                    {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "string"}}, "required": ["b"]}
                ]}}),
                vec![],
                vec![json!({"a": 1})],
            ),
            (
                "if",
                json!({"type": "object",
                    "if": {"anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]},
                    "then": {"required": ["z"]}}),
                vec![],
                vec![json!({"a": "s", "z": 1})],
            ),
            (
                "contains beside maxContains",
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                    "contains": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object", "properties": {"b": {"type": "string"}}}]},
                    "maxContains": 1}),
                vec![],
                vec![json!([{"a": "s"}, 1])],
            ),
            (
                // A definition used under `not` and as a property: the kept place refers to a
                // copy of the original, the property is narrowed.
                "a reference from a kept place",
                json!({"$defs": {"u": {"anyOf": [open("a"), open("b")]}},
                    "type": "object",
                    "properties": {"p": {"$ref": "#/$defs/u"}},
                    "not": {"properties": {"q": {"$ref": "#/$defs/u"}}, "required": ["q"]}}),
                vec![json!({"p": {"a": "x", "b": 1}})],
                vec![json!({"p": {"a": "x", "c": 1}})],
            ),
            (
                // The draft-04 suite wrapper of a recursive schema: the overlapping members refer
                // to the root, which is restricted.
                "members referring to the root",
                json!({"$schema": DRAFT04, "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "a"}, "foo": {"$ref": "#"}}, "required": ["kind"], "additionalProperties": false},
                    {"type": "object", "properties": {"kind": {"const": "b"}, "other": {"type": "string"}}, "required": ["kind"]}
                ]}),
                vec![json!({"kind": "a", "foo": false})],
                vec![json!({"kind": "b", "other": "s", "more": 1})],
            ),
            (
                // A member that is its own resource: copied beside the `oneOf` without its id.
                "named overlapping members",
                json!({"$schema": DRAFT04, "definitions": {"leaf": {"id": "http://example.com/leaf", "type": "object", "properties": {"up": {"$ref": "tree"}}}},
                "oneOf": [
                    {"id": "http://example.com/tree", "type": "object", "properties": {"kind": {"const": "a"}, "nodes": {"type": "array", "items": {"$ref": "leaf"}}}, "required": ["kind"]},
                    {"type": "object", "properties": {"kind": {"const": "b"}, "other": {"type": "string"}}, "required": ["kind", "other"]}
                ]}),
                vec![json!({"kind": "a", "nodes": 3, "other": "s"})],
                vec![json!({"kind": "a", "nodes": [{"up": {"kind": "a"}}]})],
            ),
            (
                // Draft-04 names a node by a fragment-only `id`; `const` is no keyword, so the
                // members overlap and keep their text, and the reference in one reaches the copy.
                "draft-04 plain-name id",
                json!({"$schema": DRAFT04,
                    "oneOf": [
                        {"type": "object", "properties": {"kind": {"const": "b0"}}, "required": ["kind"]},
                        {"type": "object", "properties": {"kind": {"enum": ["b1"]}, "p0": {"allOf": [{"$ref": "#here"}]}}, "required": ["kind"]}
                    ],
                    "definitions": {"anchored": {"type": "integer", "id": "#here"}}}),
                vec![json!({"kind": "b1", "p0": {}})],
                vec![json!({"kind": "b0", "z": {}})],
            ),
            (
                // The members of an overlapping `oneOf` keep their text and refer to the copy of
                // the original; the narrowed ones beside them refer to the restricted union, so
                // they go beside the members even when their text is the members' own (SPEC §6
                // decision 87; `corpus/regressions/declared-reading-overlapping-oneof-*.json`).
                "overlapping members reaching a union by reference",
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                "$defs": {"u": {"anyOf": [open("a"), open("b")]}},
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "p"}, "v": {"$ref": "#/$defs/u"}}, "required": ["kind"], "additionalProperties": false},
                    {"type": "object", "properties": {"kind": {"const": "q"}, "v": {"$ref": "#/$defs/u"}}, "additionalProperties": false}
                ]}),
                vec![json!({"kind": "p", "v": {"a": "x", "b": 1}})],
                vec![json!({"kind": "p", "v": {"a": "x", "c": 1}})],
            ),
            (
                // `then` is no keyword in draft-04: the reference in it is data, never followed
                // (it resolves nowhere), so the restriction is still made (SPEC §6 decision 87).
                "draft-04 then is data",
                json!({"$schema": DRAFT04, "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind"],
                        "additionalProperties": false, "then": {"$ref": "#/definitions/nowhere"}},
                    {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
                ]}),
                vec![json!({"kind": "a", "x": 1})],
                vec![json!({"kind": "b", "z": 1})],
            ),
            (
                // Anchors and an embedded resource: a kept place inside the resource cannot name
                // the root, so what it reaches keeps its text.
                "anchors and an embedded resource",
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                    "$defs": {
                        "anchored": {"$anchor": "here", "anyOf": [open("a"), open("b")]},
                        "res": {"$id": "https://example.com/res", "$defs": {"inner": {"anyOf": [open("c"), open("d")]}},
                            "not": {"$ref": "#/$defs/inner"}, "properties": {"r": {"$ref": "#/$defs/inner"}}}
                    },
                    "type": "object",
                    "properties": {"x": {"$ref": "#here"}, "y": {"$ref": "https://example.com/res"}},
                    "not": {"properties": {"n": {"$ref": "#here"}}, "required": ["n"]}}),
                vec![json!({"x": {"a": "s", "b": 1}})],
                vec![json!({"x": {"a": "s"}})],
            ),
            (
                // Draft-04, an overlapping `oneOf` whose member refers to the root (so the
                // references of the kept members go to a copy of the original) and a `then`,
                // data in draft-04, holding a `$ref` that resolves nowhere from the root: the
                // copy took it for a reference and gave up, and the restriction was the original
                // (`flatjoin check --seed 20261207`, open-world case 56300).
                "draft-04 data holding a reference, in a copy of the original",
                json!({"$schema": DRAFT04, "oneOf": [
                    {"type": "object", "properties": {"op": {"const": "b0"}}, "required": ["op"],
                        "additionalProperties": false,
                        "then": {"anyOf": [{"$ref": "#/definitions/Inner"}],
                            "definitions": {"Inner": {"type": "object"}}}},
                    {"type": "object", "properties": {"op": {"const": "b1"}}, "required": ["op"]},
                    {"type": "object", "properties": {"op": {"enum": ["b2"]},
                        "p0": {"type": "array", "items": [{}], "additionalItems": {"$ref": "#"},
                            "uniqueItems": true}},
                        "required": ["op", "p0"]}]}),
                vec![json!({"op": "b2", "p0": [1, "a", 1]})],
                vec![json!({"op": "b1", "q": 1})],
            ),
        ]
    }

    #[test]
    fn the_declared_restriction_only_narrows() {
        for (seed, (name, original, outside, promised)) in (1u64..).zip(cases()) {
            let (accepted, restricted) = assert_monotone(&original, seed * 7919);
            assert!(accepted > 0, "{name}: no sampled value was accepted");
            let (o, r) = (
                jsonschema::validator_for(&original).expect("the original compiles"),
                jsonschema::validator_for(&restricted).expect("the restriction compiles"),
            );
            for v in &outside {
                assert!(o.is_valid(v), "{name}: the original rejects {v}");
                assert!(
                    !r.is_valid(v),
                    "{name}: {v} is outside the declared promise\n  restricted: {restricted}"
                );
            }
            for v in &promised {
                assert!(
                    r.is_valid(v),
                    "{name}: {v} is promised\n  restricted: {restricted}"
                );
            }
        }
    }

    #[test]
    fn forbidden_names_are_not_false_and_pointers_stay() {
        // Draft-04 reads no boolean schema (SPEC §6 decision 63); a member takes its forbidden
        // names in its own `allOf`, so `#/oneOf/0/properties/x` still points where it did.
        let original = json!({"$schema": DRAFT04, "oneOf": [
            {"type": "object", "properties": {"kind": {"enum": ["a"]}, "x": {"type": "string"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"enum": ["b"]}, "y": {"type": "string"}}, "required": ["kind"]}
        ]});
        let restricted = restrict_declared(&original);
        assert_eq!(
            restricted.pointer("/oneOf/0/properties/x"),
            original.pointer("/oneOf/0/properties/x")
        );
        assert_eq!(
            restricted.pointer("/oneOf/0/allOf/0/properties/y"),
            Some(&json!({"not": {}}))
        );
        // An overlapping `oneOf` keeps its members as written; the narrowed ones go beside it.
        let overlapping = json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]});
        let restricted = restrict_declared(&overlapping);
        assert_eq!(restricted["oneOf"], overlapping["oneOf"]);
        assert_eq!(
            restricted.pointer("/allOf/0/anyOf/0/allOf/0/properties/b"),
            Some(&json!({"not": {}}))
        );
    }

    #[test]
    fn what_cannot_be_told_is_not_restricted() {
        // A `$dynamicRef` under `not`: where it lands depends on the dynamic scope.
        let original = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$dynamicAnchor": "node",
            "anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}},
                {"type": "object", "properties": {"b": {"type": "string"}}}
            ],
            "not": {"properties": {"n": {"$dynamicRef": "#node"}}, "required": ["n"]}});
        assert_eq!(restrict_declared(&original), original);
    }
}
