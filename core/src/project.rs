//! The one bottom-up projection pass (SPEC §2): children first, then each discriminated union is
//! joined from its already projected branches into one flat object.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::diagnostics::{Diagnostics, FlattenedSite, SkippedSite};
use crate::error::Error;
use crate::identify::{self, Identified, Part, PartView, Union};
use crate::join::{self, Definition, JoinFaults, UnionContext};
use crate::keywords;
use crate::pointer;
use crate::refs;
use crate::wellformed::{self, Facts};
use crate::{Flattened, OpenBranches, Options, Scope};

/// Keywords of a union node that stay on its flat object, in this order, before `type`.
const KEPT_BEFORE: &[&str] = &[
    "$schema",
    "$id",
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

pub(crate) fn run(schema: &Value, options: &Options) -> Result<Flattened, Error> {
    let facts = wellformed::check(schema)?;
    if !facts.has_unions {
        return Ok(Flattened {
            schema: schema.clone(),
            diagnostics: Diagnostics::default(),
        });
    }
    project_document(schema, options, facts)
}

pub(crate) fn run_owned(schema: Value, options: &Options) -> Result<Flattened, Error> {
    let facts = wellformed::check(&schema)?;
    if !facts.has_unions {
        return Ok(Flattened {
            schema,
            diagnostics: Diagnostics::default(),
        });
    }
    project_document(&schema, options, facts)
}

fn project_document(schema: &Value, options: &Options, facts: Facts) -> Result<Flattened, Error> {
    let mut projector = Projector {
        document: schema,
        options,
        faults: faults(options),
        facts,
        memo: HashMap::new(),
        in_progress: HashSet::new(),
        diagnostics: Diagnostics::default(),
        sites: Vec::new(),
    };
    let mut out = projector.project(schema, "")?;
    refs::repair(&mut out, &mut projector)?;
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
pub(crate) struct Projector<'a> {
    pub document: &'a Value,
    options: &'a Options,
    faults: JoinFaults,
    pub facts: Facts,
    /// Projections of `$ref` targets and branch parts, by pointer.
    memo: HashMap<String, Value>,
    /// Pointers whose projection is under way (a reference back to one gets the original).
    in_progress: HashSet<String>,
    pub diagnostics: Diagnostics,
    /// Flattened union sites: the union node's pointer and its union keyword.
    pub sites: Vec<(String, &'static str)>,
}

impl Projector<'_> {
    /// Projects the node at `ptr` (its value is `node`).
    pub(crate) fn project(&mut self, node: &Value, ptr: &str) -> Result<Value, Error> {
        if !self.facts.ref_targets.contains(ptr) {
            return self.project_uncached(node, ptr);
        }
        if let Some(v) = self.memo.get(ptr) {
            return Ok(v.clone());
        }
        if self.in_progress.contains(ptr) {
            return Ok(node.clone());
        }
        self.in_progress.insert(ptr.to_owned());
        let result = self.project_uncached(node, ptr);
        self.in_progress.remove(ptr);
        let v = result?;
        self.memo.insert(ptr.to_owned(), v.clone());
        Ok(v)
    }

    /// Projects the node found at `ptr` in the original document (memoized; a node whose
    /// projection is under way comes back as the original, which is sound: it only loosens less).
    pub(crate) fn project_at(&mut self, ptr: &str) -> Result<Value, Error> {
        if let Some(v) = self.memo.get(ptr) {
            return Ok(v.clone());
        }
        let document = self.document;
        let Some(node) = pointer::get(document, ptr) else {
            return Ok(Value::Bool(true));
        };
        if self.in_progress.contains(ptr) {
            return Ok(node.clone());
        }
        self.in_progress.insert(ptr.to_owned());
        let result = self.project_uncached(node, ptr);
        self.in_progress.remove(ptr);
        let v = result?;
        self.memo.insert(ptr.to_owned(), v.clone());
        Ok(v)
    }

    fn project_uncached(&mut self, node: &Value, ptr: &str) -> Result<Value, Error> {
        let Value::Object(map) = node else {
            return Ok(node.clone());
        };
        let in_scope = self.options.scope == Scope::All || ptr.is_empty();
        if in_scope && (map.contains_key("oneOf") || map.contains_key("anyOf")) {
            match identify::identify(map, ptr, self.document) {
                Identified::Union(union) => return self.flatten_union(map, ptr, union),
                Identified::NotUnion(Some(reason)) => {
                    self.diagnostics.record_skipped(SkippedSite {
                        pointer: ptr.to_owned(),
                        reason,
                    });
                }
                Identified::NotUnion(None) => {}
            }
        }
        let mapped =
            keywords::map_subschemas(map, |place, child| self.project(child, &place.pointer(ptr)))?;
        Ok(Value::Object(mapped))
    }

    /// Joins an identified union into one flat object (SPEC §2).
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
        let siblings = keywords::map_subschemas(&sibling_source, |place, child| {
            self.project(child, &place.pointer(ptr))
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
        let empty = Map::new();
        let views: Vec<Vec<PartView<'_>>> = union
            .branches
            .iter()
            .zip(&projected)
            .map(|(branch, values)| {
                branch
                    .parts
                    .iter()
                    .zip(values)
                    .filter_map(|(part, value)| match (part, value) {
                        (Part::Siblings, _) => Some(PartView {
                            map: &siblings,
                            siblings: true,
                        }),
                        (_, Some(Value::Object(m))) => Some(PartView {
                            map: m,
                            siblings: false,
                        }),
                        (_, Some(Value::Bool(false))) => Some(PartView {
                            map: &empty,
                            siblings: false,
                        }),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let folded: Vec<identify::Folded<'_>> = views.iter().map(|v| identify::fold(v)).collect();
        let literals: Vec<Vec<Value>> = union.branches.iter().map(|b| b.literals.clone()).collect();
        let n = folded.len();
        let d = union.discriminator.as_str();
        let ctx = UnionContext {
            discriminator: d,
            literals: &literals,
            document: self.document,
            faults: self.faults,
        };

        // Index every definition once: name → [(branch, definitions)], first-appearance order.
        let mut order: Vec<&str> = vec![d];
        let mut by_name: HashMap<&str, Vec<(usize, &Vec<&Value>)>> = HashMap::new();
        let mut required_count: HashMap<&str, usize> = HashMap::new();
        let mut required_order: Vec<&str> = Vec::new();
        for (i, f) in folded.iter().enumerate() {
            for (name, defs) in &f.properties {
                let entry = by_name.entry(name).or_default();
                if entry.is_empty() && *name != d {
                    order.push(name);
                }
                entry.push((i, defs));
            }
            for name in &f.required {
                let c = required_count.entry(name).or_insert(0);
                if *c == 0 {
                    required_order.push(name);
                }
                *c += 1;
            }
        }
        let required_in = |name: &str, branch: usize| folded[branch].required.contains(&name);

        // Open branches, for the permissive reading.
        let permissive = self.options.open_branches == OpenBranches::Permissive;
        let open: Vec<usize> = (0..n).filter(|&i| !folded[i].closed).collect();

        let mut properties = Map::with_capacity(order.len());
        for name in &order {
            let entries = by_name.get(name).map_or(&[][..], Vec::as_slice);
            let definitions: Vec<Definition> = entries
                .iter()
                .map(|(branch, defs)| Definition {
                    branch: *branch,
                    schema: merge_definitions(defs),
                    required: required_in(name, *branch),
                })
                .collect();
            let joined = if *name == d {
                let texts = union
                    .branches
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (i, branch_description(b, &projected[i])))
                    .collect();
                join::join_discriminator(&ctx, definitions, texts)
            } else {
                let mut extra = Vec::new();
                if permissive {
                    let declaring: HashSet<usize> = entries.iter().map(|(b, _)| *b).collect();
                    for &b in &open {
                        if !declaring.contains(&b) {
                            extra.push(undeclared(&views[b], name));
                            if extra.last() == Some(&Value::Object(Map::new())) {
                                break;
                            }
                        }
                    }
                }
                let required_by_all = required_count.get(name) == Some(&n);
                join::join_property(&ctx, definitions, extra, required_by_all, n)
            };
            properties.insert((*name).to_owned(), joined);
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

        let all_closed = folded.iter().all(|f| f.closed);
        #[cfg(feature = "fault-injection")]
        let all_closed = all_closed || fault_is(self.options, crate::fault::Fault::AlwaysClosed);

        let mut out = Map::new();
        for k in KEPT_BEFORE {
            if let Some(v) = node.get(*k) {
                out.insert((*k).to_owned(), v.clone());
            }
        }
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(properties));
        out.insert("required".into(), Value::Array(required));
        if all_closed {
            out.insert("additionalProperties".into(), Value::Bool(false));
        } else if self.facts.uses_unevaluated {
            out.insert("additionalProperties".into(), Value::Bool(true));
        }
        for k in KEPT_AFTER {
            if let Some(v) = node.get(*k) {
                out.insert((*k).to_owned(), v.clone());
            }
        }
        for container in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = node.get(container) {
                let base = pointer::push(ptr, container);
                let mut projected_defs = Map::with_capacity(defs.len());
                for (name, def) in defs {
                    let v = self.project(def, &pointer::push(&base, name))?;
                    projected_defs.insert(name.clone(), v);
                }
                out.insert(container.to_owned(), Value::Object(projected_defs));
            }
        }
        self.diagnostics.record_flattened(FlattenedSite {
            pointer: ptr.to_owned(),
            discriminator: d.to_owned(),
            branches: n,
        });
        self.sites.push((ptr.to_owned(), keyword));
        Ok(Value::Object(out))
    }
}

/// One branch's definition of a property: the single definition, or `allOf` of the parts'
/// definitions when several parts define it (a sibling and the branch).
fn merge_definitions(defs: &[&Value]) -> Value {
    match defs {
        [one] => (*one).clone(),
        many => {
            let mut m = Map::new();
            m.insert(
                "allOf".into(),
                Value::Array(many.iter().map(|v| (*v).clone()).collect()),
            );
            Value::Object(m)
        }
    }
}

/// The first description found on a branch's own parts (not the union's siblings).
fn branch_description(branch: &identify::Branch, values: &[Option<Value>]) -> Option<String> {
    branch
        .parts
        .iter()
        .zip(values)
        .filter(|(p, _)| matches!(p, Part::Node(_)))
        .find_map(|(_, v)| v.as_ref()?.get("description")?.as_str().map(str::to_owned))
}

/// What an open branch accepts under the undeclared key `name` (SPEC §2.8, permissive): `{}`, or
/// the `allOf` of each part's constraint (matching `patternProperties`, else a typed
/// `additionalProperties`).
fn undeclared(parts: &[PartView<'_>], name: &str) -> Value {
    let mut constraints: Vec<Value> = Vec::new();
    for part in parts {
        let mut matched: Vec<Value> = Vec::new();
        if let Some(Value::Object(patterns)) = part.map.get("patternProperties") {
            for (pattern, schema) in patterns {
                // A pattern the `regex` crate cannot compile is taken to match: adding an
                // alternative only loosens.
                let matches = regex::Regex::new(pattern).map_or(true, |re| re.is_match(name));
                if matches {
                    matched.push(schema.clone());
                }
            }
        }
        if !matched.is_empty() {
            constraints.extend(matched);
            continue;
        }
        match part.map.get("additionalProperties") {
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
