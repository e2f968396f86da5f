//! The one bottom-up projection pass (SPEC §2): children first, then each discriminated union is
//! joined from its already projected branches into one flat object. This module holds the
//! [`Projector`] and its borrowing front-end (`flatten`, and any document with a local `$ref`);
//! `owned` is the owning front-end, `assemble` builds the flat object for both, and `repair`
//! keeps references valid afterwards (it projects the targets it hoists through the
//! [`Projector`]).

mod assemble;
mod copies;
mod hoist;
mod owned;
mod repair;
mod share;

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::canonical::JoinDigests;
use crate::diagnostics::{Diagnostics, SkipReason, SkippedSite};
use crate::draft::Draft;
use crate::error::Error;
use crate::fasthash::{FastMap, FastSet};
use crate::identify::{self, Identified, Part, Union, UnionHere};
use crate::join::JoinFaults;
use crate::keywords;
use crate::pointer;
use crate::polarity::{self, Frozen};
use crate::wellformed::{self, Facts};
use crate::{Flattened, Options, Scope};
use assemble::UnionInput;
use copies::{Copied, Copies};
pub(crate) use owned::{run_owned, run_owned_checked};

/// Keywords of a union node that stay on its flat object, in this order, before `type`.
const KEPT_BEFORE: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$comment",
    "title",
    "description",
];
/// Annotations of a union node kept after the object keywords.
const KEPT_AFTER: &[&str] = &["examples", "default", "deprecated", "readOnly", "writeOnly"];
/// The sibling object keywords of a union that fold into every branch.
const SIBLING_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "patternProperties",
];

/// A projection as a union's join reads it: owned, or a `$ref` target's memoized projection,
/// shared with the memo (the join copies only what it writes out).
pub(super) enum Projected {
    Owned(Value),
    Shared(Rc<Value>),
}

impl Projected {
    /// The projection, owned: a shared one copied unless the memo gave it up.
    fn into_owned(self) -> Value {
        match self {
            Projected::Owned(value) => value,
            Projected::Shared(value) => Rc::unwrap_or_clone(value),
        }
    }
}

impl std::ops::Deref for Projected {
    type Target = Value;

    fn deref(&self) -> &Value {
        match self {
            Projected::Owned(value) => value,
            Projected::Shared(value) => value,
        }
    }
}

/// Flattens a borrowed document (`flatten`).
pub(crate) fn run(schema: &Value, options: &Options) -> Result<Flattened, Error> {
    run_checked(schema, wellformed::check(schema)?, options)
}

/// [`run`] with the document's well-formedness pass done (`facts`).
pub(crate) fn run_checked(
    schema: &Value,
    facts: Facts,
    options: &Options,
) -> Result<Flattened, Error> {
    if facts.union_sites.is_empty() {
        return Ok(Flattened {
            schema: schema.clone(),
            diagnostics: Diagnostics::default(),
        });
    }
    project_document(schema, options, facts)
}

/// The keyword that holds a union node's members: `oneOf` where it has one, else `anyOf`.
fn union_keyword(node: &Map<String, Value>) -> &'static str {
    if node.contains_key("oneOf") {
        "oneOf"
    } else {
        "anyOf"
    }
}

/// The root definitions container to hoist into: the one the document already has, else the
/// draft's own ([`Draft::definitions_container`]: `definitions` up to draft-07).
pub(super) fn container_name(document: &Value) -> &'static str {
    if document.get("$defs").is_some() {
        return "$defs";
    }
    if document.get("definitions").is_some() {
        return "definitions";
    }
    Draft::of(document).definitions_container()
}

/// The borrowing projection of a document with at least one union site, then the repair of its
/// references.
fn project_document(schema: &Value, options: &Options, facts: Facts) -> Result<Flattened, Error> {
    // A `$ref` to the root from a frozen place freezes the root too, in either scope (SPEC §6
    // decision 37); under `Scope::Root` every nested site stays, so the members of its `oneOf`
    // are frozen places.
    let root_referenced = facts.ref_targets.contains("");
    let mut frozen = match options.scope {
        Scope::All => polarity::frozen(schema, &facts, false, root_referenced, None),
        Scope::Root if root_referenced && facts.union_sites.iter().any(String::is_empty) => {
            polarity::frozen(schema, &facts, true, true, None)
        }
        Scope::Root => Frozen::default(),
    };
    let sharing = share::Sharing::plan(schema, &facts, &frozen, options);
    let copies = Copies::new(std::mem::take(&mut frozen.alike), &frozen.sites);
    let mut projector = Projector {
        document: schema,
        options,
        faults: faults(options),
        facts: &facts,
        site_index: None,
        frozen,
        memo: FastMap::default(),
        deferred: Vec::new(),
        in_progress: FastSet::default(),
        diagnostics: Diagnostics::default(),
        sites: Vec::new(),
        sharing,
        copies,
        folded: Default::default(),
        digests: JoinDigests::default(),
    };
    let mut ptr = String::new();
    let mut out = projector.project(schema, &mut ptr)?;
    // The folded branches hold memoized projections: let go, so that a projection the memo
    // gives up moves instead of being copied ([`Projector::place_deferred`]).
    projector.folded = assemble::Folded::default();
    // Every flattened site recorded first: the deferred definitions move only where no
    // reference crosses one.
    let shared_sites = projector.record_shared_sites();
    let rewritten = projector.place_deferred(&mut out);
    repair::repair(&mut out, &mut projector, rewritten)?;
    projector.hoist_shared(&mut out, &shared_sites);
    Ok(Flattened {
        schema: out,
        diagnostics: projector.diagnostics,
    })
}

#[cfg(feature = "fault-injection")]
fn faults(options: &Options) -> JoinFaults {
    use crate::fault::Fault;
    let on = |f: Fault| options.fault == Some(f);
    JoinFaults {
        first_wins: on(Fault::FirstWins),
        legacy_widen: on(Fault::LegacyWiden),
        no_dedup: on(Fault::NoDedup),
        annotation_names: on(Fault::AnnotationNames),
        enum_first_branch: on(Fault::EnumFirstBranch),
        widen: crate::widen::WidenFaults {
            drop_null: on(Fault::DropNull),
            tightest_bound: on(Fault::TightestBound),
        },
    }
}

#[cfg(not(feature = "fault-injection"))]
fn faults(_: &Options) -> JoinFaults {
    JoinFaults::default()
}

#[cfg(feature = "fault-injection")]
fn fault_is(options: &Options, fault: crate::fault::Fault) -> bool {
    options.fault == Some(fault)
}

/// State of one projection.
struct Projector<'a> {
    document: &'a Value,
    options: &'a Options,
    faults: JoinFaults,
    facts: &'a Facts,
    /// The places at or above a union site, where the projection of an owned document asks: a
    /// node with no site at or under it projects to itself (SPEC §2: only a union site is
    /// rewritten) and is taken whole instead of walked. The borrowing projection does not ask:
    /// the nodes it visits are nearly all above a site, and a leaf's walk costs about its copy
    /// (one lookup per node cost more than it saved on `pydantic-models-200`, `reports/join-cost.md`).
    site_index: Option<pointer::Enclosing<'a>>,
    /// Union sites left as they are (SPEC §6 decision 37), and identifications made on the way.
    frozen: Frozen,
    /// Projections of `$ref` targets and branch parts, by pointer; a union's join reads them
    /// where they stand ([`Projected::Shared`]).
    memo: FastMap<String, Rc<Value>>,
    /// The root union's definitions left out of its join until the projection is done
    /// ([`Projector::place_deferred`]): container, name, and pointer (their memo key).
    deferred: Vec<(String, String, String)>,
    /// Pointers whose projection is under way (a reference back to one gets the original).
    in_progress: FastSet<String>,
    diagnostics: Diagnostics,
    /// Flattened union sites: the union node's pointer and its union keyword.
    sites: Vec<(String, &'static str)>,
    /// Repeated union sites joined once (SPEC §6 decision 73); `None` where nothing repeats.
    sharing: Option<share::Sharing>,
    /// Union sites written alike, joined once and copied (SPEC §6 decision 80).
    copies: Copies,
    /// Branches folded once for every union that reaches them (`assemble`).
    folded: assemble::Folded,
    /// The projection's digests for dedup: the shared joins' and the closed `$ref` targets'
    /// (SPEC §6 decisions 73, 88), under seeds drawn once for the projection.
    digests: JoinDigests,
}

impl Projector<'_> {
    /// Projects `node`, found at the pointer held in `ptr`. `ptr` is one buffer reused for the
    /// whole walk (children append their tokens and truncate them afterwards), so the walk
    /// allocates no pointers except where a union site or a `$ref` target needs one.
    pub(crate) fn project(&mut self, node: &Value, ptr: &mut String) -> Result<Value, Error> {
        self.project_shared(node, ptr).map(Projected::into_owned)
    }

    /// [`Projector::project`], with a `$ref` target's memoized projection shared instead of
    /// copied.
    fn project_shared(&mut self, node: &Value, ptr: &mut String) -> Result<Projected, Error> {
        if let Some(index) = &self.site_index
            && !index.any_at_or_under(ptr)
        {
            return Ok(Projected::Owned(node.clone()));
        }
        if self.facts.ref_targets.is_empty() || !self.facts.ref_targets.contains(ptr.as_str()) {
            return self.project_uncached(node, ptr).map(Projected::Owned);
        }
        if let Some(v) = self.memo.get(ptr.as_str()) {
            return Ok(Projected::Shared(Rc::clone(v)));
        }
        if self.in_progress.contains(ptr.as_str()) {
            return Ok(Projected::Owned(node.clone()));
        }
        self.memoize(node, ptr)?;
        Ok(self.memo.get(ptr.as_str()).map_or_else(
            || Projected::Owned(Value::Bool(true)),
            |v| Projected::Shared(Rc::clone(v)),
        ))
    }

    /// Whether the definition at `def`, of the union at `site`, is placed after the projection
    /// ([`Projector::place_deferred`]): a definition of the root union (the whole document: no
    /// projection reads the join after it) that a `$ref` targets, with the root itself not a
    /// target (its join would be memoized with the definition left out) and the definition's
    /// own projection not under way.
    fn defers(&self, site: &str, def: &str) -> bool {
        site.is_empty()
            && self.facts.ref_targets.contains(def)
            && !self.facts.ref_targets.contains("")
            && !self.in_progress.contains(def)
    }

    /// Makes sure the projection of `node`, a `$ref` target at the pointer in `ptr`, is memoized,
    /// without a copy of it.
    fn memoize(&mut self, node: &Value, ptr: &mut String) -> Result<(), Error> {
        if self.memo.contains_key(ptr.as_str()) {
            return Ok(());
        }
        let key = ptr.clone();
        self.in_progress.insert(key.clone());
        let result = self.project_uncached(node, ptr);
        self.in_progress.remove(&key);
        self.memo.insert(key, Rc::new(result?));
        Ok(())
    }

    /// Puts the root union's deferred definitions in place in `out`. They are memoized
    /// projections, the branches' parts copied from them: where no later projection can read the
    /// memo they move in instead of being copied once more. The only later reader is the repair
    /// of references, which projects a copy only for a `$ref` whose target crosses a flattened
    /// union ([`repair::redirects_any`]); where one does, they are copied. Returns the places
    /// the flattened unions rewrite where it had to find them, for the repair.
    fn place_deferred(&mut self, out: &mut Value) -> repair::Rewritten {
        if self.deferred.is_empty() {
            return repair::Rewritten::default();
        }
        let (redirects, rewritten) = repair::redirects_any(self);
        let moves = !redirects;
        for (container, name, key) in std::mem::take(&mut self.deferred) {
            let value = if moves {
                self.memo.remove(&key).map(Projected::Shared)
            } else {
                self.memo.get(&key).map(|v| Projected::Shared(Rc::clone(v)))
            }
            .map(Projected::into_owned);
            if let Some(slot) = out
                .get_mut(container.as_str())
                .and_then(|defs| defs.get_mut(name.as_str()))
            {
                *slot = value.unwrap_or(Value::Bool(true));
            }
        }
        rewritten
    }

    /// Projects the node found at `target` in the original document. `$ref` targets are
    /// memoized; a node whose projection is under way comes back as the original (sound: it is
    /// only less loose).
    pub(crate) fn project_at(&mut self, target: &str) -> Result<Value, Error> {
        self.project_part(target).map(Projected::into_owned)
    }

    /// [`Projector::project_at`], with a `$ref` target's memoized projection shared instead of
    /// copied: a branch part the join reads.
    fn project_part(&mut self, target: &str) -> Result<Projected, Error> {
        let document = self.document;
        let Some(node) = pointer::get(document, target) else {
            return Ok(Projected::Owned(Value::Bool(true)));
        };
        let mut buf = target.to_owned();
        if self.facts.ref_targets.contains(target) {
            return self.project_shared(node, &mut buf);
        }
        if self.in_progress.contains(target) {
            return Ok(Projected::Owned(node.clone()));
        }
        self.in_progress.insert(buf.clone());
        let result = self.project_uncached(node, &mut buf);
        self.in_progress.remove(target);
        result.map(Projected::Owned)
    }

    fn project_uncached(&mut self, node: &Value, ptr: &mut String) -> Result<Value, Error> {
        let Value::Object(map) = node else {
            return Ok(node.clone());
        };
        let in_scope = self.options.scope == Scope::All || ptr.is_empty();
        if in_scope && (keywords::has(map, "oneOf") || keywords::has(map, "anyOf")) {
            let identified = self
                .frozen
                .identified
                .remove(ptr.as_str())
                .unwrap_or_else(|| identify::identify(map, ptr, self.document));
            let identified = match identified {
                Identified::Union(_) | Identified::Alike(_)
                    if self.frozen.sites.contains(ptr.as_str()) =>
                {
                    Identified::NotUnion(Some(SkipReason::Frozen))
                }
                // A union below it that must stay: this one cannot become one object (SPEC
                // §2.9; `polarity::frozen` demotes such unions already, this is the projection's
                // own guard).
                Identified::Union(union) => match polarity::kept_branch(&union, &self.frozen.sites)
                {
                    Some(branch) => {
                        Identified::NotUnion(Some(SkipReason::BranchUnionKept { branch }))
                    }
                    None => Identified::Union(union),
                },
                other => other,
            };
            let union = match identified {
                Identified::Union(union) => Some(UnionHere::Own(union)),
                // Nothing nested: nothing below to keep it from becoming one object.
                Identified::Alike(alike) => Some(UnionHere::Alike(alike)),
                Identified::NotUnion(Some(reason)) => {
                    self.diagnostics.record_skipped(SkippedSite {
                        pointer: ptr.clone(),
                        reason,
                    });
                    None
                }
                Identified::NotUnion(None) => None,
            };
            if let Some(union) = union {
                let here: &str = ptr;
                if let Some((group, standing)) = self.shared_group(here) {
                    return self.flatten_shared(map, here, union, (group, standing));
                }
                return match self.copied_join(map, here) {
                    Copied::Join(copy) => Ok(copy),
                    Copied::Keep(before) => {
                        let join = self.flatten_union(map, here, union.at(here))?;
                        self.keep_join(here, before, &join);
                        Ok(join)
                    }
                    Copied::Alone => self.flatten_union(map, here, union.at(here)),
                };
            }
        }
        let draft = self.facts.draft;
        let mapped = keywords::map_subschemas(map, |place, child| {
            if !draft.knows(place.keyword()) {
                return Ok(child.clone());
            }
            let len = ptr.len();
            place.push_onto(ptr);
            let result = self.project(child, ptr);
            ptr.truncate(len);
            result
        })?;
        Ok(Value::Object(mapped))
    }

    /// Joins the union at `target`, a part of a branch of a union being joined (SPEC §2.9), into
    /// one flat object.
    fn join_nested(&mut self, target: &str, union: Union) -> Result<Value, Error> {
        let document = self.document;
        match pointer::get(document, target) {
            Some(Value::Object(map)) => self.flatten_union(map, target, union),
            _ => self.project_at(target),
        }
    }

    /// Joins an identified union into one flat object (SPEC §2), reading the original.
    fn flatten_union(
        &mut self,
        node: &Map<String, Value>,
        ptr: &str,
        union: Union,
    ) -> Result<Value, Error> {
        let keyword = union_keyword(node);
        // The union node's sibling object keywords, projected where they hold schemas.
        let sibling_source: Map<String, Value> = node
            .iter()
            .filter(|(k, _)| SIBLING_KEYWORDS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut buf = ptr.to_owned();
        let siblings = keywords::map_subschemas(&sibling_source, |place, child| {
            let len = buf.len();
            place.push_onto(&mut buf);
            let result = self.project(child, &mut buf);
            buf.truncate(len);
            result
        })?;
        // Each branch's parts, projected (reverse order, so nested parts are memoized first). A
        // part that is a union joined with this one (SPEC §2.9) is joined here, whatever a
        // projection of it elsewhere (memoized, as a `$ref` target) made of it.
        let mut projected: Vec<Vec<Option<Projected>>> = Vec::with_capacity(union.branches.len());
        for branch in &union.branches {
            let mut values: Vec<Option<Projected>> = Vec::with_capacity(branch.parts.len());
            values.resize_with(branch.parts.len(), || None);
            for (i, part) in branch.parts.iter().enumerate().rev() {
                if let Part::Node(p) = part {
                    // A part folds into its branch keyword by keyword: a shared join's
                    // placeholder is read as the join (SPEC §6 decision 73).
                    let value = match union.nested.iter().find(|(n, _)| n == p) {
                        Some((_, inner)) => Projected::Owned(self.join_nested(p, inner.clone())?),
                        None => self.project_part(p)?,
                    };
                    values[i] = Some(self.materialized_part(value));
                }
            }
            projected.push(values);
        }
        let kept = |keys: &[&str]| -> Vec<(String, Value)> {
            keys.iter()
                .filter_map(|k| node.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                .collect()
        };
        let (before, after) = (kept(KEPT_BEFORE), kept(KEPT_AFTER));
        let mut defs = Vec::new();
        for container in ["$defs", "definitions"] {
            if let Some(Value::Object(entries)) = node.get(container) {
                let mut buf = pointer::push(ptr, container);
                let mut projected_defs = Map::with_capacity(entries.len());
                for (name, def) in entries {
                    let len = buf.len();
                    pointer::push_into(&mut buf, name);
                    let v = if self.defers(ptr, &buf) {
                        self.memoize(def, &mut buf)?;
                        let entry = (container.to_owned(), name.clone(), buf.clone());
                        self.deferred.push(entry);
                        Value::Null
                    } else {
                        self.project(def, &mut buf)?
                    };
                    buf.truncate(len);
                    projected_defs.insert(name.clone(), v);
                }
                defs.push((container.to_owned(), projected_defs));
            }
        }
        let input = UnionInput {
            keyword,
            siblings,
            projected,
            before,
            after,
            defs,
        };
        Ok(self.assemble(ptr, union, input))
    }
}
