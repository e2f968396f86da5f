//! The one bottom-up projection pass (SPEC §2): children first, then each discriminated union is
//! joined from its already projected branches into one flat object.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::diagnostics::{Diagnostics, FlattenedSite, SkipReason, SkippedSite};
use crate::draft::Draft;
use crate::error::Error;
use crate::fasthash::{FastMap, FastSet};
use crate::identify::{self, Identified, Part, PartView, Union};
use crate::join::{self, Definition, JoinFaults, UnionContext};
use crate::keywords;
use crate::pointer;
use crate::polarity::{self, Frozen};
use crate::refs;
use crate::wellformed::{self, Facts};
use crate::{Flattened, OpenBranches, Options, Scope};

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
pub(crate) const SIBLING_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "patternProperties",
];

pub(crate) fn run(schema: &Value, options: &Options) -> Result<Flattened, Error> {
    let facts = wellformed::check(schema)?;
    if facts.union_sites.is_empty() {
        return Ok(Flattened {
            schema: schema.clone(),
            diagnostics: Diagnostics::default(),
        });
    }
    project_document(schema, options, facts)
}

pub(crate) fn run_owned(schema: Value, options: &Options) -> Result<Flattened, Error> {
    let facts = wellformed::check(&schema)?;
    if facts.union_sites.is_empty() {
        return Ok(Flattened {
            schema,
            diagnostics: Diagnostics::default(),
        });
    }
    if !facts.ref_targets.is_empty() {
        // References need the original beside the projection; take the borrowing path.
        return project_document(&schema, options, facts);
    }
    // The fast path: identify every union site on the original, then give it up and project in
    // place, moving instead of copying. Without `$ref`, kinds and drafts need only `$schema`.
    let mut sites = HashMap::new();
    for site in &facts.union_sites {
        if options.scope == Scope::Root && !site.is_empty() {
            continue;
        }
        if let Some(Value::Object(map)) = pointer::get(&schema, site) {
            sites.insert(site.clone(), identify::identify(map, site, &schema));
        }
    }
    let mut ptr = String::new();
    let context = match schema.get("$schema") {
        Some(s) => {
            let mut m = Map::new();
            m.insert("$schema".into(), s.clone());
            Value::Object(m)
        }
        None => Value::Null,
    };
    let frozen = freeze_owned(&schema, &facts, options, &mut sites);
    let mut projector = Projector {
        document: &context,
        options,
        faults: faults(options),
        facts,
        frozen,
        memo: HashMap::new(),
        in_progress: HashSet::new(),
        diagnostics: Diagnostics::default(),
        sites: Vec::new(),
    };
    let out = projector.project_owned(schema, &mut ptr, &mut sites)?;
    Ok(Flattened {
        schema: out,
        diagnostics: projector.diagnostics,
    })
}

fn project_document(schema: &Value, options: &Options, facts: Facts) -> Result<Flattened, Error> {
    let frozen = if options.scope == Scope::All {
        polarity::frozen(schema, facts.draft, &facts.union_sites, None)
    } else {
        Frozen::default()
    };
    let mut projector = Projector {
        document: schema,
        options,
        faults: faults(options),
        facts,
        frozen,
        memo: HashMap::new(),
        in_progress: HashSet::new(),
        diagnostics: Diagnostics::default(),
        sites: Vec::new(),
    };
    let mut ptr = String::new();
    let mut out = projector.project(schema, &mut ptr)?;
    refs::repair(&mut out, &mut projector)?;
    Ok(Flattened {
        schema: out,
        diagnostics: projector.diagnostics,
    })
}

/// The owning path's frozen sites (SPEC §6 decision 37), from the identifications it made
/// first: a frozen discriminated union becomes a near miss with [`SkipReason::Frozen`].
fn freeze_owned(
    schema: &Value,
    facts: &Facts,
    options: &Options,
    sites: &mut HashMap<String, Identified>,
) -> Frozen {
    if options.scope != Scope::All {
        return Frozen::default();
    }
    let frozen = polarity::frozen(schema, facts.draft, &facts.union_sites, Some(sites));
    for site in &frozen.sites {
        if let Some(id @ Identified::Union(_)) = sites.get_mut(site) {
            *id = Identified::NotUnion(Some(SkipReason::Frozen));
        }
    }
    frozen
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
pub(crate) struct Projector<'a> {
    pub document: &'a Value,
    options: &'a Options,
    faults: JoinFaults,
    pub facts: Facts,
    /// Union sites left as they are (SPEC §6 decision 37), and identifications made on the way.
    frozen: Frozen,
    /// Projections of `$ref` targets and branch parts, by pointer.
    memo: HashMap<String, Value>,
    /// Pointers whose projection is under way (a reference back to one gets the original).
    in_progress: HashSet<String>,
    pub diagnostics: Diagnostics,
    /// Flattened union sites: the union node's pointer and its union keyword.
    pub sites: Vec<(String, &'static str)>,
}

impl Projector<'_> {
    /// Projects `node`, found at the pointer held in `ptr`. `ptr` is one buffer reused for the
    /// whole walk (children append their tokens and truncate them afterwards), so the walk
    /// allocates no pointers except where a union site or a `$ref` target needs one.
    pub(crate) fn project(&mut self, node: &Value, ptr: &mut String) -> Result<Value, Error> {
        if self.facts.ref_targets.is_empty() || !self.facts.ref_targets.contains(ptr.as_str()) {
            return self.project_uncached(node, ptr);
        }
        if let Some(v) = self.memo.get(ptr.as_str()) {
            return Ok(v.clone());
        }
        if self.in_progress.contains(ptr.as_str()) {
            return Ok(node.clone());
        }
        let key = ptr.clone();
        self.in_progress.insert(key.clone());
        let result = self.project_uncached(node, ptr);
        self.in_progress.remove(&key);
        let v = result?;
        self.memo.insert(key, v.clone());
        Ok(v)
    }

    /// Projects the node found at `target` in the original document. `$ref` targets are
    /// memoized; a node whose projection is under way comes back as the original (sound: it is
    /// only less loose).
    pub(crate) fn project_at(&mut self, target: &str) -> Result<Value, Error> {
        let document = self.document;
        let Some(node) = pointer::get(document, target) else {
            return Ok(Value::Bool(true));
        };
        let mut buf = target.to_owned();
        if self.facts.ref_targets.contains(target) {
            return self.project(node, &mut buf);
        }
        if self.in_progress.contains(target) {
            return Ok(node.clone());
        }
        self.in_progress.insert(buf.clone());
        let result = self.project_uncached(node, &mut buf);
        self.in_progress.remove(target);
        result
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
                Identified::Union(_) if self.frozen.sites.contains(ptr.as_str()) => {
                    Identified::NotUnion(Some(SkipReason::Frozen))
                }
                other => other,
            };
            match identified {
                Identified::Union(union) => {
                    let here = ptr.clone();
                    return self.flatten_union(map, &here, union);
                }
                Identified::NotUnion(Some(reason)) => {
                    self.diagnostics.record_skipped(SkippedSite {
                        pointer: ptr.clone(),
                        reason,
                    });
                }
                Identified::NotUnion(None) => {}
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

    /// Joins an identified union into one flat object (SPEC §2), reading the original.
    fn flatten_union(
        &mut self,
        node: &Map<String, Value>,
        ptr: &str,
        union: Union,
    ) -> Result<Value, Error> {
        let keyword: &'static str = if node.contains_key("oneOf") {
            "oneOf"
        } else {
            "anyOf"
        };
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
        // Each branch's parts, projected (reverse order, so nested parts are memoized first).
        let mut projected: Vec<Vec<Option<Value>>> = Vec::with_capacity(union.branches.len());
        for branch in &union.branches {
            let mut values = vec![None; branch.parts.len()];
            for (i, part) in branch.parts.iter().enumerate().rev() {
                if let Part::Node(p) = part {
                    values[i] = Some(self.project_at(p)?);
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
                    let v = self.project(def, &mut buf)?;
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

    /// Joins an identified union that this pass owns: branches, siblings and definitions are
    /// projected in place and moved, never copied. Only for documents without `$ref` (every part
    /// of a branch is then inside it).
    fn flatten_union_owned(
        &mut self,
        mut node: Map<String, Value>,
        ptr: &str,
        union: Union,
        sites: &mut HashMap<String, Identified>,
    ) -> Result<Value, Error> {
        let keyword: &'static str = if node.contains_key("oneOf") {
            "oneOf"
        } else {
            "anyOf"
        };
        let mut buf = ptr.to_owned();
        let mut siblings = Map::new();
        for k in SIBLING_KEYWORDS {
            if let Some(v) = node.shift_remove(*k) {
                siblings.insert((*k).to_owned(), v);
            }
        }
        self.project_children_owned(&mut siblings, &mut buf, sites)?;
        let Some(Value::Array(raw)) = node.shift_remove(keyword) else {
            return Ok(Value::Object(node));
        };
        let union_ptr = pointer::push(ptr, keyword);
        let mut projected: Vec<Vec<Option<Value>>> = Vec::with_capacity(raw.len());
        for (i, (branch_value, branch)) in raw.into_iter().zip(&union.branches).enumerate() {
            let mut branch_ptr = pointer::push_index(&union_ptr, i);
            let mut whole = self.project_owned(branch_value, &mut branch_ptr, sites)?;
            let mut values = vec![None; branch.parts.len()];
            // Parts are the branch and its `allOf` members, in pre-order: take the deepest first.
            for (j, part) in branch.parts.iter().enumerate().rev() {
                let Part::Node(p) = part else { continue };
                if *p == branch_ptr {
                    values[j] = Some(std::mem::take(&mut whole));
                } else if let Some(suffix) = p.strip_prefix(branch_ptr.as_str()) {
                    values[j] = whole.pointer_mut(suffix).map(Value::take);
                }
            }
            projected.push(values);
        }
        let mut take = |keys: &[&str]| -> Vec<(String, Value)> {
            keys.iter()
                .filter_map(|k| node.shift_remove(*k).map(|v| ((*k).to_owned(), v)))
                .collect()
        };
        let (before, after) = (take(KEPT_BEFORE), take(KEPT_AFTER));
        let mut defs = Vec::new();
        for container in ["$defs", "definitions"] {
            if let Some(Value::Object(mut entries)) = node.shift_remove(container) {
                let mut buf = pointer::push(ptr, container);
                for (name, def) in entries.iter_mut() {
                    let len = buf.len();
                    pointer::push_into(&mut buf, name);
                    *def = self.project_owned(def.take(), &mut buf, sites)?;
                    buf.truncate(len);
                }
                defs.push((container.to_owned(), entries));
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

    /// Projects a node this pass owns, in place. `sites` holds the identification of every union
    /// site, made on the original before it was given up.
    fn project_owned(
        &mut self,
        node: Value,
        ptr: &mut String,
        sites: &mut HashMap<String, Identified>,
    ) -> Result<Value, Error> {
        let Value::Object(mut map) = node else {
            return Ok(node);
        };
        if !sites.is_empty() && (keywords::has(&map, "oneOf") || keywords::has(&map, "anyOf")) {
            match sites.remove(ptr.as_str()) {
                Some(Identified::Union(union)) => {
                    let here = ptr.clone();
                    return self.flatten_union_owned(map, &here, union, sites);
                }
                Some(Identified::NotUnion(Some(reason))) => {
                    self.diagnostics.record_skipped(SkippedSite {
                        pointer: ptr.clone(),
                        reason,
                    });
                }
                _ => {}
            }
        }
        self.project_children_owned(&mut map, ptr, sites)?;
        Ok(Value::Object(map))
    }

    fn project_children_owned(
        &mut self,
        map: &mut Map<String, Value>,
        ptr: &mut String,
        sites: &mut HashMap<String, Identified>,
    ) -> Result<(), Error> {
        let mut result = Ok(());
        let draft = self.facts.draft;
        keywords::subschemas_mut(map, |place, child| {
            if result.is_ok() && draft.knows(place.keyword()) {
                let len = ptr.len();
                place.push_onto(ptr);
                match self.project_owned(child.take(), ptr, sites) {
                    Ok(v) => *child = v,
                    Err(e) => result = Err(e),
                }
                ptr.truncate(len);
            }
        });
        result
    }

    /// Builds the flat object from the projected parts of every branch (SPEC §2.1–§2.8).
    fn assemble(&mut self, ptr: &str, union: Union, input: UnionInput) -> Value {
        let UnionInput {
            keyword,
            siblings,
            mut projected,
            before,
            after,
            defs,
        } = input;
        let n = union.branches.len();
        let d = union.discriminator.as_str();
        let permissive = self.options.open_branches == OpenBranches::Permissive;
        let draft = Draft::of(self.document);

        // Fold each projected branch, keeping only owned facts so the definitions can then be
        // moved out of the projected parts instead of copied.
        let mut branches: Vec<BranchFacts> = Vec::with_capacity(n);
        {
            let empty = Map::new();
            for (branch, values) in union.branches.iter().zip(&projected) {
                let views: Vec<PartView<'_>> = branch
                    .parts
                    .iter()
                    .zip(values)
                    .enumerate()
                    .filter_map(|(origin, (part, value))| match (part, value) {
                        (Part::Siblings, _) => Some(PartView {
                            map: &siblings,
                            siblings: true,
                            origin,
                        }),
                        (_, Some(Value::Object(m))) => Some(PartView {
                            map: m,
                            siblings: false,
                            origin,
                        }),
                        (_, Some(Value::Bool(false))) => Some(PartView {
                            map: &empty,
                            siblings: false,
                            origin,
                        }),
                        _ => None,
                    })
                    .collect();
                let folded = identify::fold(&views, draft);
                branches.push(BranchFacts {
                    properties: folded
                        .properties
                        .iter()
                        .map(|(name, defs)| {
                            ((*name).to_owned(), defs.iter().map(|(o, _)| *o).collect())
                        })
                        .collect(),
                    required_list: folded.required.iter().map(|r| (*r).to_owned()).collect(),
                    required: folded.required.iter().map(|r| (*r).to_owned()).collect(),
                    closed: folded.closed,
                    catch_all: if permissive && !folded.closed {
                        catch_all(&views)
                    } else {
                        Vec::new()
                    },
                    description: views.iter().filter(|v| !v.siblings).find_map(|v| {
                        keywords::get(v.map, "description")?
                            .as_str()
                            .map(str::to_owned)
                    }),
                });
            }
        }
        let literals: Vec<Vec<Value>> = union.branches.iter().map(|b| b.literals.clone()).collect();
        let ctx = UnionContext {
            discriminator: d,
            literals: &literals,
            document: self.document,
            draft,
            faults: self.faults,
        };

        // Index every definition once: name → [(branch, definitions)], first-appearance order.
        let mut order: Vec<String> = vec![d.to_owned()];
        let mut by_name: FastMap<String, Vec<Definition>> = FastMap::default();
        let mut required_count: FastMap<&str, usize> = FastMap::default();
        let mut required_order: Vec<&str> = Vec::new();
        for f in &branches {
            for name in &f.required_list {
                let c = required_count.entry(name.as_str()).or_insert(0);
                if *c == 0 {
                    required_order.push(name);
                }
                *c += 1;
            }
        }
        for (b, f) in branches.iter().enumerate() {
            for (name, origins) in &f.properties {
                let schemas: Vec<Value> = origins
                    .iter()
                    .map(|&o| match &mut projected[b][o] {
                        Some(Value::Object(part)) => take_property(part, name),
                        _ => sibling_property(&siblings, name),
                    })
                    .collect();
                let definition = Definition {
                    branch: b,
                    schema: merge_definitions(schemas),
                    required: f.required.contains(name),
                };
                match by_name.get_mut(name) {
                    Some(defs) => defs.push(definition),
                    None => {
                        if name != d {
                            order.push(name.clone());
                        }
                        by_name.insert(name.clone(), vec![definition]);
                    }
                }
            }
        }

        let open: Vec<usize> = (0..n).filter(|&i| !branches[i].closed).collect();
        let mut properties = Map::with_capacity(order.len());
        for name in &order {
            let definitions = by_name.remove(name).unwrap_or_default();
            let joined = if name == d {
                let texts = branches
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (i, b.description.clone()))
                    .collect();
                join::join_discriminator(&ctx, definitions, texts)
            } else {
                let mut extra = Vec::new();
                if permissive {
                    let declaring: FastSet<usize> = definitions.iter().map(|d| d.branch).collect();
                    for &b in &open {
                        if !declaring.contains(&b) {
                            extra.push(undeclared(&branches[b].catch_all, name));
                            if extra.last() == Some(&Value::Object(Map::new())) {
                                break;
                            }
                        }
                    }
                }
                let required_by_all = required_count.get(name.as_str()) == Some(&n);
                join::join_property(&ctx, definitions, extra, required_by_all, n)
            };
            properties.insert(name.clone(), joined);
        }

        #[cfg(feature = "fault-injection")]
        let union_required = fault_is(self.options, crate::fault::Fault::RequiredUnion);
        #[cfg(not(feature = "fault-injection"))]
        let union_required = false;
        let mut required: Vec<Value> = vec![Value::String(d.to_owned())];
        for name in &required_order {
            if *name != d && (union_required || required_count.get(name) == Some(&n)) {
                required.push(Value::String((*name).to_owned()));
            }
        }

        let all_closed = branches.iter().all(|f| f.closed);
        #[cfg(feature = "fault-injection")]
        let all_closed = all_closed || fault_is(self.options, crate::fault::Fault::AlwaysClosed);

        let mut out = Map::new();
        for (k, v) in before {
            out.insert(k, v);
        }
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(properties));
        out.insert("required".into(), Value::Array(required));
        if all_closed {
            out.insert("additionalProperties".into(), Value::Bool(false));
        } else if self.facts.uses_unevaluated {
            out.insert("additionalProperties".into(), Value::Bool(true));
        }
        for (k, v) in after {
            out.insert(k, v);
        }
        for (container, entries) in defs {
            out.insert(container, Value::Object(entries));
        }
        self.diagnostics.record_flattened(FlattenedSite {
            pointer: ptr.to_owned(),
            discriminator: d.to_owned(),
            branches: n,
        });
        self.sites.push((ptr.to_owned(), keyword));
        Value::Object(out)
    }
}

/// A union's projected pieces, from either front-end, for [`Projector::assemble`].
struct UnionInput {
    keyword: &'static str,
    siblings: Map<String, Value>,
    projected: Vec<Vec<Option<Value>>>,
    before: Vec<(String, Value)>,
    after: Vec<(String, Value)>,
    defs: Vec<(String, Map<String, Value>)>,
}

/// What the join needs of one folded branch, owned.
struct BranchFacts {
    /// Property names in order, with the parts that define each.
    properties: Vec<(String, Vec<usize>)>,
    /// Required names in order (the flat `required` keeps this order)…
    required_list: Vec<String>,
    /// …and as a set.
    required: FastSet<String>,
    closed: bool,
    /// Per part: its `patternProperties` and typed `additionalProperties` (permissive only).
    catch_all: Vec<CatchAll>,
    description: Option<String>,
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

/// Moves a property's schema out of a projected part (the part is not used again).
fn take_property(part: &mut Map<String, Value>, name: &str) -> Value {
    part.get_mut("properties")
        .and_then(|p| p.get_mut(name))
        .map_or(Value::Bool(true), Value::take)
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
fn merge_definitions(mut defs: Vec<Value>) -> Value {
    if defs.len() == 1 {
        return defs.pop().unwrap_or(Value::Bool(true));
    }
    let mut m = Map::new();
    m.insert("allOf".into(), Value::Array(defs));
    Value::Object(m)
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
