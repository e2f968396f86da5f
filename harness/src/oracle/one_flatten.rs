//! The oracles that judge one flatten of an input: soundness (dynamic and static), presentation
//! validity, the object guarantee, structure retained, dedup and no blow-up.

#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use flatjoin::{OpenBranches, Options};
use jsonschema::canonical::Containment;
use serde_json::{Value, json};

use super::reading::restrict_declared;
use super::{Judged, Measure, Oracle, Outcome, Subject, Violation, passed, walk_schemas};
use crate::drafts::{self, Draft};
use crate::identity::{Forget, canonical_text};
use crate::refs;

/// Whether a disagreement on `value` is draft-04's open question whether a number written with a
/// zero fraction (`1.0`) is an `integer`: the original is draft-04 (whose `integer` is "a JSON
/// number without a fraction or exponent part"; the Test Suite's `zeroTerminatedFloats` for it is
/// optional, and `jsonschema` and `boon` answer it differently), `value` holds such a number, and
/// with each one written as an integer the two validators agree.
fn integral_floats_explain(subject: &Subject, second: &super::Boon, value: &Value) -> bool {
    if drafts::declared(&subject.original) != Draft::Draft4 {
        return false;
    }
    let mut found = false;
    let integers = integral_floats_as_integers(value, &mut found);
    found && subject.original_judge.is_valid(&integers) == second.is_valid(&integers)
}

/// `value` with every number that is a float with a zero fraction (and fits an `i64`) written as
/// an integer; `found` says whether there was one. Recursion follows the value, which the
/// sampler drew from a schema no deeper than [`flatjoin::MAX_DEPTH`].
fn integral_floats_as_integers(value: &Value, found: &mut bool) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            #[allow(clippy::cast_possible_truncation, reason = "range checked first")]
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                *found = true;
                Value::from(f as i64)
            }
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| integral_floats_as_integers(v, found))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), integral_floats_as_integers(v, found)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

impl Subject {
    /// Soundness (SPEC I3), dynamic: every sampled branch value the original accepts is accepted
    /// by the presentation. Under `declared` the sampler only adds keys no branch declares, which
    /// is the promised set; another value the presentation rejects counts only when the original
    /// restricted to that set accepts it. Values where boon disagrees with jsonschema on the
    /// original are set aside as validator disagreements: counted as left open by the spec when
    /// the original holds a reference cycle without progress or draft-04's integral floats
    /// explain the disagreement (SPEC §6 decision 28), the rest listed with their original for
    /// triage.
    pub fn soundness(&self) -> Judged {
        let mut measure = Measure::default();
        let mut cyclic = None;
        let mut restricted = None;
        for branch in &self.samples {
            for value in &branch.values {
                let accepted = self.original_judge.is_valid(value);
                if let Some(second) = &self.second
                    && second.is_valid(value) != accepted
                {
                    if *cyclic
                        .get_or_insert_with(|| refs::has_cycle_without_progress(&self.original))
                        || integral_floats_explain(self, second, value)
                    {
                        measure.undefined_disagreements += 1;
                    } else {
                        measure
                            .disagreements
                            .push(json!({"original": self.original, "value": value}));
                    }
                    continue;
                }
                if !accepted {
                    continue;
                }
                if !self.presentation_judge.is_valid(value) {
                    if self.outside_declared_promise(value, &mut restricted) {
                        continue;
                    }
                    let why = self
                        .presentation_judge
                        .iter_errors(value)
                        .map(|e| format!("{} at {}", e, e.instance_path()))
                        .collect::<Vec<_>>()
                        .join("; ");
                    let mut v = self.violation(
                        Oracle::Soundness,
                        format!(
                            "a value of branch {} accepted by the original is rejected by the presentation ({why}); presentation: {}",
                            branch.branch, self.flattened.schema
                        ),
                    );
                    v.data = Some(value.clone());
                    return Err(v);
                }
                measure.checked += 1;
            }
        }
        Ok(Outcome::Passed(measure))
    }

    /// Whether `value` lies outside what the `declared` reading promises (SPEC §4: a value whose
    /// keys are each declared by its branch or by no branch, at every union): the original
    /// restricted to that promise ([`restrict_declared`], compiled once, only when a value is
    /// rejected) rejects it. The sampler's own values never do; values added by hand or by the
    /// open-world generator can carry a key that another branch of a nested union declares.
    fn outside_declared_promise(
        &self,
        value: &Value,
        restricted: &mut Option<Option<jsonschema::Validator>>,
    ) -> bool {
        if !matches!(self.options.open_branches, OpenBranches::Declared) {
            return false;
        }
        restricted
            .get_or_insert_with(|| super::judge(&restrict_declared(&self.original)).ok())
            .as_ref()
            .is_some_and(|judge| !judge.is_valid(value))
    }

    /// Presentation validity: the presentation is a valid schema of its draft by the meta-schema
    /// (`jsonschema::meta`, bundled, nothing fetched), and `boon` compiles it whenever it compiles
    /// the original. (Checked once in [`Subject::prepare`], where a failure is the violation;
    /// here it is counted.)
    pub fn presentation_validity(&self) -> Judged {
        // A `Subject` exists only when `prepare` found the presentation valid: compiling it
        // again here would double the oracle's cost and could not answer differently.
        Ok(passed(1))
    }

    /// Soundness, static: for each root branch, `jsonschema`'s canonical `covers` must never say the
    /// presentation fails to contain it. Under `declared`, the branch is the original restricted
    /// to the keys the reading promises ([`restrict_declared`]: keys declared by other members of
    /// any union are forbidden), reduced to that branch (`declared_member`); the restriction
    /// only narrows, so that is a part of the original branch (SPEC §6 decisions 64 and 68).
    /// Yes and unknown answers are counted; unsupported schemas count as unknown.
    pub fn static_soundness(&self) -> Judged {
        let Some(map) = self.original.as_object() else {
            return Ok(Outcome::Skipped("the original is not an object".into()));
        };
        let keyword = if map.contains_key("oneOf") {
            "oneOf"
        } else if map.contains_key("anyOf") {
            "anyOf"
        } else {
            return Ok(Outcome::Skipped("the root is not a union".into()));
        };
        let Some(members) = map.get(keyword).and_then(Value::as_array) else {
            return Ok(Outcome::Skipped("the union keyword is not an array".into()));
        };
        // Only a flattened root is a join of its branches; a union that is not a DU passes
        // through, and with overlapping members (`{"oneOf": [{}, {}]}`) the original does not
        // contain its own members either (corpus/regressions/flatten_bytes-bcffec09.json).
        if !self.root_flattened() {
            return Ok(Outcome::Skipped("the root union was not flattened".into()));
        }
        // The branch documents below keep one member of the union; a reference into the
        // union's members (`#/oneOf/1/properties/x`) would then point elsewhere or nowhere.
        let into_members = format!("\"#/{keyword}/");
        if serde_json::to_string(&self.original).is_ok_and(|t| t.contains(&into_members)) {
            return Ok(Outcome::Skipped(
                "a reference points into the root union's members".into(),
            ));
        }
        let canon = |v: &Value| {
            on_a_large_stack(|| {
                jsonschema::canonical::options()
                    .should_validate_formats(true)
                    .canonicalize(v)
            })
        };
        let mut measure = Measure::default();
        let Ok(presentation) = canon(&self.flattened.schema) else {
            measure.static_unknown += members.len();
            return Ok(Outcome::Passed(measure));
        };
        let restricted = match self.options.open_branches {
            OpenBranches::Declared => Some(restrict_declared(&self.original)),
            OpenBranches::Permissive => None,
        };
        for i in 0..members.len() {
            let branch_doc = match &restricted {
                None => one_member(&self.original, keyword, i),
                Some(r) => declared_member(&self.original, r, keyword, i),
            };
            let answer = canon(&branch_doc)
                .ok()
                .and_then(|b| presentation.covers(&b).ok());
            match answer {
                Some(Containment::Yes) => measure.static_yes += 1,
                Some(Containment::No) => {
                    let mut v = self.violation(
                        Oracle::StaticSoundness,
                        format!(
                            "covers says the presentation does not contain branch {i}; presentation: {}",
                            self.flattened.schema
                        ),
                    );
                    v.variant = Some(("branch".into(), branch_doc));
                    return Err(v);
                }
                _ => measure.static_unknown += 1,
            }
        }
        measure.checked = members.len();
        Ok(Outcome::Passed(measure))
    }

    /// Object guarantee: a root that is a discriminated union (by the harness's own reading of
    /// SPEC §1) yields `type: "object"` with no root `oneOf`/`anyOf`, unless a `$ref` from a
    /// frozen place reaches it (SPEC §6 decision 37; skipped).
    pub fn object_guarantee(&self) -> Judged {
        if self.du.is_none() {
            return Ok(Outcome::Skipped(
                "the root is not a discriminated union".into(),
            ));
        }
        let p = &self.flattened.schema;
        if !super::is_one_object(p) {
            if let Some(place) = super::coverage::root_frozen(
                &self.original,
                self.options.scope,
                self.diagnostics.as_ref(),
            ) {
                // A `$ref` to the root from a frozen place: the root stays (SPEC §6 decision 37);
                // the coverage oracle's part (e) judges that it does.
                return Ok(Outcome::Skipped(
                    format!("the root is frozen (SPEC §6 decision 37): {place}").into(),
                ));
            }
            return Err(self.violation(
                Oracle::ObjectGuarantee,
                format!("the root is a discriminated union but the presentation is not one flat object: {p}"),
            ));
        }
        Ok(passed(1))
    }

    /// Structure retained (ADR 0205): every node of the presentation that admits arrays keeps an
    /// `items`/`prefixItems`, and every node that admits objects keeps `properties` (or a key
    /// policy), unless the original itself has such a bare node.
    pub fn structure_retained(&self) -> Judged {
        let bare_in = |schema: &Value| {
            let mut bare = (false, false);
            walk_schemas(schema, &mut |node| {
                let (array, object) = bare_structure(node);
                bare.0 |= array;
                bare.1 |= object;
            });
            bare
        };
        let original = bare_in(&self.original);
        let mut found: Option<Value> = None;
        walk_schemas(&self.flattened.schema, &mut |node| {
            let (array, object) = bare_structure(node);
            if found.is_none() && ((array && !original.0) || (object && !original.1)) {
                found = Some(node.clone());
            }
        });
        match found {
            Some(node) => Err(self.violation(
                Oracle::StructureRetained,
                format!(
                    "the presentation has a bare array/object node {node} (no items/properties) where the original has none; presentation: {}",
                    self.flattened.schema
                ),
            )),
            None => Ok(passed(1)),
        }
    }

    /// Dedup: no `anyOf`/`oneOf` of the presentation holds two structurally identical members
    /// (unless the original already had such a node), and the core's `dedup` is idempotent, keeps
    /// one of each identity class and loses none, judged by the harness's own identity.
    pub fn dedup(&self) -> Judged {
        self.dedup_of_presentation()?;
        self.dedup_of_core()
    }

    /// The first half of [`Subject::dedup`], which judges the presentation alone (so any
    /// implementation's): no `anyOf`/`oneOf` holds two structurally identical members unless the
    /// original already had such a node.
    pub fn dedup_of_presentation(&self) -> Judged {
        let forget = Forget {
            draft04: drafts::declared(&self.original) == Draft::Draft4,
            ..Forget::default()
        };
        let duplicated = |schema: &Value| {
            let mut dup: Option<Value> = None;
            walk_schemas(schema, &mut |node| {
                for keyword in ["anyOf", "oneOf"] {
                    if let Some(Value::Array(members)) = node.get(keyword) {
                        let mut seen = std::collections::HashSet::new();
                        for m in members {
                            if !seen.insert(canonical_text(m, forget)) && dup.is_none() {
                                dup = Some(node.clone());
                            }
                        }
                    }
                }
            });
            dup
        };
        if duplicated(&self.original).is_none()
            && let Some(node) = duplicated(&self.flattened.schema)
        {
            return Err(self.violation(
                Oracle::Dedup,
                format!(
                    "structurally identical alternatives survive in {node}; presentation: {}",
                    self.flattened.schema
                ),
            ));
        }
        Ok(passed(1))
    }

    /// The second half of [`Subject::dedup`]: the core's `dedup` is idempotent, keeps one of
    /// each identity class and loses none.
    fn dedup_of_core(&self) -> Judged {
        // The core's dedup on every property schema of both documents.
        let mut alternatives = Vec::new();
        for doc in [&self.original, &self.flattened.schema] {
            walk_schemas(doc, &mut |node| {
                if let Some(Value::Object(props)) = node.get("properties") {
                    alternatives.extend(props.values().take(8).cloned());
                }
            });
        }
        alternatives.truncate(64);
        let once = flatjoin::dedup(alternatives.clone());
        let twice = flatjoin::dedup(once.clone());
        if once != twice {
            return Err(self.violation(
                Oracle::Dedup,
                "dedup(dedup(x)) differs from dedup(x)".into(),
            ));
        }
        let keys: Vec<String> = once
            .iter()
            .map(|a| canonical_text(a, Forget::default()))
            .collect();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        if unique.len() != keys.len() {
            return Err(self.violation(
                Oracle::Dedup,
                "dedup kept two structurally identical alternatives".into(),
            ));
        }
        for a in &alternatives {
            if !keys.contains(&canonical_text(a, Forget::default())) {
                return Err(self.violation(
                    Oracle::Dedup,
                    format!("dedup lost an alternative with no identical copy kept: {a}"),
                ));
            }
        }
        Ok(passed(alternatives.len()))
    }

    /// No blow-up (SPEC §4, §6 decision 73): the presentation has at most as many JSON nodes as
    /// the original *with its definitions shared* plus a small constant per property. A union's
    /// branches behind `$ref` may be copied into its join, so the bound adds, once per distinct
    /// union (written the same, annotations and member order aside), the size of its resolved
    /// members; a union repeated at many sites is paid for once, as the original paid for its
    /// definitions once. The slack is per property of the *original*, so copies in the
    /// presentation never widen it.
    pub fn no_blow_up(&self) -> Judged {
        match blow_up(&self.original, &self.options, &self.flattened.schema) {
            Some(message) => Err(self.violation(Oracle::NoBlowUp, message)),
            None => Ok(passed(1)),
        }
    }
}

/// No blow-up ([`Subject::no_blow_up`]) on `presentation` of `original`: `None` within the bound
/// and shared once ([`unshared`]), else what breaks it.
pub fn blow_up(original: &Value, options: &Options, presentation: &Value) -> Option<String> {
    let input = node_count(original);
    let permissive = options.open_branches == OpenBranches::Permissive;
    let (unions, joined) = distinct_unions(original, permissive);
    let output = node_count(presentation);
    let bound = input + unions + 4 * joined + 32;
    if output > bound {
        return Some(format!(
            "the presentation has {output} nodes, more than the bound {bound} (input {input}, \
             members of its distinct unions {unions}, {joined} properties they join)"
        ));
    }
    unshared(original, presentation).or_else(|| unreached(original, presentation))
}

/// Nothing added unused (SPEC §6 decision 85): every root definition the presentation adds (a
/// name the original's `$defs`/`definitions` do not have: a shared join, a copy the reference
/// repair hoisted) is reached by a `$ref` from the rest of the presentation, through keywords
/// its draft has ([`Draft::knows`]: a `$ref` under draft-04's `if` is data and reaches
/// nothing), directly or through another added definition that is reached. A reference is
/// recognized by its text, percent-decoded (`…/$defs/<name>` to the end or a `/`, so an absolute
/// URI's fragment counts too); an added definition with an `$id` or `$anchor` of its own could be
/// reached otherwise and counts as reached. `None` when
/// that holds, else the first added definition nothing reaches.
fn unreached(original: &Value, presentation: &Value) -> Option<String> {
    let draft = drafts::declared(presentation);
    let mut added: Vec<(&str, &str, &Value)> = Vec::new();
    for container in ["$defs", "definitions"] {
        let Some(Value::Object(defs)) = presentation.get(container) else {
            continue;
        };
        let before = original.get(container).and_then(Value::as_object);
        for (name, def) in defs {
            if before.is_none_or(|b| !b.contains_key(name)) {
                added.push((container, name, def));
            }
        }
    }
    if added.is_empty() {
        return None;
    }
    let collect = |node: &Value, refs: &mut Vec<String>| {
        crate::keywords::walk_keywords(node, &|k| draft.knows(k), &mut |n| {
            if let Some(r) = n.get("$ref").and_then(Value::as_str) {
                refs.push(refs::percent_decode(r));
            }
            true
        });
    };
    let mut refs: Vec<String> = Vec::new();
    let mut rest = presentation.clone();
    for (container, name, _) in &added {
        if let Some(Value::Object(defs)) = rest.get_mut(*container) {
            defs.remove(*name);
        }
    }
    collect(&rest, &mut refs);
    let named = |container: &str, name: &str, r: &str| {
        let name = name.replace('~', "~0").replace('/', "~1");
        let at = format!("/{container}/{name}");
        r.match_indices(&at)
            .any(|(i, _)| matches!(r.as_bytes().get(i + at.len()), None | Some(b'/')))
    };
    let mut reached = vec![false; added.len()];
    loop {
        let mut more = false;
        for (i, (container, name, def)) in added.iter().enumerate() {
            let own_id = ["$id", "id", "$anchor", "$dynamicAnchor"]
                .iter()
                .any(|k| def.get(*k).is_some());
            if !reached[i] && (own_id || refs.iter().any(|r| named(container, name, r))) {
                reached[i] = true;
                more = true;
                collect(def, &mut refs);
            }
        }
        if !more {
            break;
        }
    }
    let (container, name, _) = added.iter().zip(&reached).find(|(_, r)| !**r)?.0;
    Some(format!(
        "the presentation adds the definition #/{container}/{name}, which no reference reaches \
         (SPEC §6 decision 85): a copy nothing uses only costs the model's context"
    ))
}

/// Shared once (SPEC §6 decision 73): a shared join the presentation adds to its root
/// definitions (`flatjoin_union_N`, a name the original's do not have) stands for a flat object
/// written the same at several places, so nothing else in the presentation may be that object
/// again, its site's own annotations (`title`, `description`, …) aside: neither a second added
/// definition nor a copy left inline. The copies of reference targets the repair adds
/// (`flatjoin_ref_N`, SPEC §6 decision 3) are copies by design and not judged here. `None` when
/// that holds (and when no shared join was added), else what breaks it.
fn unshared(original: &Value, presentation: &Value) -> Option<String> {
    let key = |node: &serde_json::Map<String, Value>| {
        let mut body = node.clone();
        body.retain(|k, _| !crate::identity::ANNOTATIONS.contains(&k.as_str()));
        crate::identity::sorted_text(&Value::Object(body))
    };
    let mut added: Vec<(String, String)> = Vec::new();
    for container in ["$defs", "definitions"] {
        let Some(Value::Object(defs)) = presentation.get(container) else {
            continue;
        };
        let before = original.get(container).and_then(Value::as_object);
        for (name, def) in defs {
            if let Value::Object(def) = def
                && name.starts_with("flatjoin_union_")
                && before.is_none_or(|b| !b.contains_key(name))
            {
                added.push((format!("#/{container}/{name}"), key(def)));
            }
        }
    }
    if added.is_empty() {
        return None;
    }
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    walk_schemas(presentation, &mut |node| {
        if let Value::Object(map) = node {
            *counts.entry(key(map)).or_default() += 1;
        }
    });
    added.iter().find_map(|(name, text)| {
        let n = counts.get(text).copied().unwrap_or(0);
        (n > 1).then(|| {
            format!(
                "the added definition {name} stands {n} times in the presentation (annotations \
                 of the site aside): a flat object written the same at several places is \
                 written once (SPEC §6 decision 73)"
            )
        })
    })
}

/// What a join may add to `original`: the node count of each reference target but a whole root
/// definition (a reference into a union's branches keeps a copy of it, SPEC §6 decision 3); and
/// of every distinct union (`oneOf`, `anyOf`, and `allOf`, whose parts fold into a branch; written
/// the same at many sites, annotations and member order aside, it counts once) the node count of
/// its members behind a `$ref` that something else refers to as well (a join
/// may copy such a target while it stays for the other; a target only the union refers to moves
/// into the join, and a member written inline is moved, not copied); and the property names
/// its resolved members declare (a member that is a union: its members' too), each of which a
/// join may write once with a hint (SPEC §4: a
/// small constant per joined property), and under the permissive reading may join a copy of each
/// member's catch-all.
fn distinct_unions(original: &Value, permissive: bool) -> (usize, usize) {
    let mut references: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    walk_schemas(original, &mut |node| {
        if let Some(Value::String(r)) = node.get("$ref") {
            *references.entry(r.clone()).or_default() += 1;
        }
    });
    // A reference into a union's branches keeps a copy of its target (SPEC §6 decision 3), and
    // the join of a property may resolve one: every target but a whole root definition (which
    // the members below count) may be copied once.
    let whole_definition = |r: &str| {
        ["#/$defs/", "#/definitions/"]
            .iter()
            .any(|c| r.strip_prefix(c).is_some_and(|name| !name.contains('/')))
    };
    let mut members_total: usize = references
        .keys()
        .filter(|r| !whole_definition(r))
        .filter_map(|r| refs::resolve(original, r))
        .map(node_count)
        .sum();
    let mut seen = std::collections::HashSet::new();
    let mut joined = 0usize;
    let forget = Forget {
        alternative_order: true,
        ..Forget::default()
    };
    walk_schemas(original, &mut |node| {
        for keyword in ["oneOf", "anyOf", "allOf"] {
            let Some(Value::Array(members)) = node.get(keyword) else {
                continue;
            };
            if !seen.insert(format!("{keyword}:{}", canonical_text(node, forget))) {
                continue;
            }
            let mut names = std::collections::HashSet::new();
            let mut leaves = Vec::new();
            for member in members {
                let resolved = refs::follow(original, member);
                let shared = member
                    .get("$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|r| references.get(r).copied().unwrap_or(0) > 1);
                if shared {
                    members_total += node_count(resolved);
                }
                union_leaves(original, resolved, 0, &mut leaves);
            }
            for leaf in &leaves {
                if let Some(Value::Object(p)) = leaf.get("properties") {
                    names.extend(p.keys());
                }
            }
            if let Some(Value::Object(p)) = node.get("properties") {
                names.extend(p.keys());
            }
            joined += names.len();
            // Under the permissive reading an open member's catch-all joins every name it does
            // not declare (SPEC §2.8): a copy per name.
            if permissive {
                let catch_alls: usize = leaves
                    .iter()
                    .map(|m| {
                        m.get("additionalProperties").map_or(0, node_count)
                            + m.get("patternProperties").map_or(0, node_count)
                    })
                    .sum();
                members_total += catch_alls * names.len();
            }
        }
    });
    (members_total, joined)
}

/// The members a union's join reads through `member` (references followed): the member, and
/// the members of a union it holds, which the join flattens with it (SPEC §2.9), their property
/// names and catch-alls joining the outer union's; eight levels at most (a reference cycle).
fn union_leaves<'a>(
    original: &'a Value,
    member: &'a Value,
    depth: usize,
    out: &mut Vec<&'a Value>,
) {
    out.push(member);
    if depth >= 8 {
        return;
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(inner)) = member.get(keyword) {
            for m in inner {
                union_leaves(original, refs::follow(original, m), depth + 1, out);
            }
        }
    }
}

/// Whether `presentation` is a valid schema of its declared draft (meta-schema validation, when
/// `meta_too`: the original is one) and, when `boon_too` (boon compiles the original), whether
/// boon compiles it.
pub fn presentation_validity_of(
    presentation: &Value,
    meta_too: bool,
    boon_too: bool,
) -> Result<(), String> {
    if meta_too && let Err(e) = jsonschema::meta::validate(presentation) {
        return Err(format!(
            "the presentation is not a valid schema of its draft: {e} at {}",
            e.instance_path()
        ));
    }
    if boon_too {
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        let url = "http://flatjoin.invalid/presentation.json";
        let compiled = compiler
            .add_resource(url, presentation.clone())
            .map_err(|e| e.to_string())
            .and_then(|()| {
                compiler
                    .compile(url, &mut boon::Schemas::new())
                    .map(|_| ())
                    .map_err(|e| format!("{e:#}"))
            });
        if let Err(e) = compiled {
            return Err(format!(
                "boon compiles the original but not the presentation: {e}"
            ));
        }
    }
    Ok(())
}

/// [`Subject::presentation_validity`] on one input: prepared (a presentation the meta-schema
/// or `boon` rejects is the violation), or skipped when the judge cannot compile the original.
pub fn presentation_validity(original: &Value, options: &Options) -> Result<Outcome, Violation> {
    match Subject::prepare(original, options)? {
        Ok(subject) => subject.presentation_validity(),
        Err(reason) => Ok(Outcome::Skipped(reason.into())),
    }
}

/// Whether a node admits arrays without `items`/`prefixItems`, and objects without any object
/// vocabulary.
fn bare_structure(node: &Value) -> (bool, bool) {
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let has = |k: &str| node.get(k).is_some();
    let array = types.contains(&"array") && !has("items") && !has("prefixItems");
    let object = types.contains(&"object")
        && !has("properties")
        && !has("additionalProperties")
        && !has("patternProperties")
        && !has("$ref")
        && !has("allOf");
    (array, object)
}

fn node_count(value: &Value) -> usize {
    match value {
        Value::Object(m) => 1 + m.values().map(node_count).sum::<usize>(),
        Value::Array(a) => 1 + a.iter().map(node_count).sum::<usize>(),
        _ => 1,
    }
}

/// The document with its root union (`keyword`) reduced to member `i`, its `discriminator` gone.
fn one_member(doc: &Value, keyword: &str, i: usize) -> Value {
    let mut doc = doc.clone();
    if let Some(Value::Array(ms)) = doc.get_mut(keyword)
        && let Some(member) = ms.get(i).cloned()
    {
        *ms = vec![member];
    }
    if let Some(obj) = doc.as_object_mut() {
        obj.remove("discriminator");
    }
    doc
}

/// What the `declared` reading promises of branch `i` as one document: the restricted document
/// ([`restrict_declared`]) with its root union reduced to member `i`. Where the root `oneOf`'s
/// members overlap, the restriction keeps them as written and adds the narrowed ones as an `anyOf`
/// at the end of the root `allOf`; that conjunct is reduced to member `i` too. The restriction
/// only ever narrows (SPEC §6 decision 68), so this is a part of the original branch `i`: the
/// intersection with it that decision 64 built is no longer needed.
fn declared_member(original: &Value, restricted: &Value, keyword: &str, i: usize) -> Value {
    let mut doc = one_member(restricted, keyword, i);
    let parts = |d: &Value| d.get("allOf").and_then(Value::as_array).map_or(0, Vec::len);
    if keyword == "oneOf"
        && parts(restricted) == parts(original) + 1
        && let Some(Value::Array(narrowed)) = doc
            .get_mut("allOf")
            .and_then(Value::as_array_mut)
            .and_then(|a| a.last_mut())
            .and_then(|c| c.get_mut("anyOf"))
        && let Some(member) = narrowed.get(i).cloned()
    {
        *narrowed = vec![member];
    }
    doc
}

/// The stack `jsonschema`'s canonical form is computed on: its parser recurses through every
/// `$ref` it folds, finitely but past the 2 MiB of a worker thread and the 8 MiB of a main
/// thread on some recursive schemas (`flatjoin check --seed 20261209`, open-world case 27515:
/// a `then` referring to the root under `unevaluatedProperties`, which needed more than 8 and
/// less than 64 MiB). Reserved, not committed: only the pages the recursion touches are used.
const CANONICAL_STACK: usize = 512 << 20;

/// `f` on a thread of its own with [`CANONICAL_STACK`] (the calling thread waits), so the static
/// oracle's depth does not depend on which thread judges: a worker, the main thread shrinking a
/// counterexample, or a test thread replaying the corpus. Without a thread it runs here.
fn on_a_large_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let work = std::sync::Mutex::new(Some(f));
    let take = || work.lock().ok().and_then(|mut w| w.take());
    let spawned = std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("canonical".into())
            .stack_size(CANONICAL_STACK)
            .spawn_scoped(scope, || take().map(|f| f()))
            .ok()?;
        Some(
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    match spawned.flatten() {
        Some(r) => r,
        // No thread (the system refused one): the work was not taken, it runs here.
        None => take().map(|f| f()).expect("the work runs once"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn original() -> Value {
        json!({"$schema": "http://json-schema.org/draft-07/schema#",
               "definitions": {"Author": {"type": "string"}}})
    }

    /// A presentation of [`original`] holding `body` at its root, beside the author's definition
    /// and `added` definitions.
    fn presented(body: Value, added: Value) -> Value {
        let mut defs = json!({"Author": {"type": "string"}});
        for (k, v) in added.as_object().into_iter().flatten() {
            defs[k] = v.clone();
        }
        let mut p = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                           "type": "object", "definitions": defs});
        for (k, v) in body.as_object().into_iter().flatten() {
            p[k] = v.clone();
        }
        p
    }

    #[test]
    fn an_added_definition_nothing_reaches_is_named() {
        let p = presented(json!({}), json!({"flatjoin_ref_1": {"type": "string"}}));
        let found = unreached(&original(), &p).expect("an unreferenced copy is a violation");
        assert!(found.contains("#/definitions/flatjoin_ref_1"), "{found}");
        // A reference from itself reaches nothing new.
        let own = json!({"flatjoin_ref_1": {"items": {"$ref": "#/definitions/flatjoin_ref_1"}}});
        assert!(unreached(&original(), &presented(json!({}), own)).is_some());
        // The author's own unreferenced definition is not the presentation's addition.
        assert_eq!(
            unreached(&original(), &presented(json!({}), json!({}))),
            None
        );
    }

    #[test]
    fn references_reach_directly_through_other_copies_and_into_them() {
        let body = json!({"properties": {"a": {"$ref": "#/definitions/flatjoin_ref_1"}}});
        let added = json!({"flatjoin_ref_1": {"items": {"$ref": "#/definitions/flatjoin_ref_2/items"}},
                           "flatjoin_ref_2": {"items": {"type": "string"}}});
        assert_eq!(
            unreached(&original(), &presented(body, added.clone())),
            None
        );
        // Percent-encoded, or after an absolute URI, a reference reaches it too.
        let encoded = json!({"properties": {"a": {"$ref": "#/%24defs/flatjoin_ref_1"}},
                             "$defs": {"flatjoin_ref_1": {"type": "string"}}});
        assert_eq!(unreached(&original(), &presented(encoded, json!({}))), None);
        let absolute = json!({"properties": {"a": {
            "$ref": "https://example.com/s#/definitions/flatjoin%5Fref%5F1"}}});
        let lone = json!({"flatjoin_ref_1": {"type": "string"}});
        assert_eq!(unreached(&original(), &presented(absolute, lone)), None);
        // A name that only begins like the copy's does not reach it.
        let near = json!({"properties": {"a": {"$ref": "#/definitions/flatjoin_ref_10"}}});
        let found = unreached(&original(), &presented(near, added)).expect("a violation");
        assert!(found.contains("flatjoin_ref_1,"), "{found}");
    }

    #[test]
    fn a_ref_under_a_keyword_the_draft_lacks_is_data() {
        let added = json!({"flatjoin_ref_1": {"type": "string"}});
        let under_if =
            json!({"properties": {"y": {"if": {"$ref": "#/definitions/flatjoin_ref_1"}}}});
        let mut p = presented(under_if.clone(), added.clone());
        assert_eq!(unreached(&original(), &p), None, "draft-07 has `if`");
        p["$schema"] = json!("http://json-schema.org/draft-04/schema#");
        assert!(unreached(&original(), &p).is_some(), "draft-04 has no `if`");
        // A copy with an `$id` of its own may be reached by it.
        let with_id = json!({"flatjoin_ref_1": {"$id": "#copy", "type": "string"}});
        assert_eq!(unreached(&original(), &presented(json!({}), with_id)), None);
    }
}
