//! The owning front-end of the projection (`flatten_owned` on a document without `$ref`): every
//! union site is identified on the original first, then the original is given up and projected in
//! place; branches, siblings and definitions are moved into the flat object instead of copied.

use serde_json::{Map, Value};

use super::assemble::UnionInput;
use super::copies::{Copied, Copies};
use super::{
    KEPT_AFTER, KEPT_BEFORE, Projected, Projector, SIBLING_KEYWORDS, faults, project_document,
};
use crate::diagnostics::{Diagnostics, SkipReason, SkippedSite};
use crate::error::Error;
use crate::fast_path::{self, FastPath};
use crate::fasthash::FastMap;
use crate::identify::{Identified, Part, Union, UnionHere};
use crate::keywords;
use crate::pointer;
use crate::polarity::{self, Frozen, Identifications};
use crate::wellformed::{self, Facts};
use crate::{Flattened, Options, Scope};

/// Flattens a document this pass owns. A document with a local `$ref` needs the original beside
/// the projection and takes the borrowing path ([`project_document`]).
pub(crate) fn run_owned(schema: Value, options: &Options) -> Result<Flattened, Error> {
    let facts = wellformed::check(&schema)?;
    run_owned_checked(schema, facts, options, &mut drop::<Value>)
}

/// [`run_owned`] with the document's well-formedness pass done (`facts`).
pub(crate) fn run_owned_checked(
    schema: Value,
    facts: Facts,
    options: &Options,
    spent: &mut dyn FnMut(Value),
) -> Result<Flattened, Error> {
    if facts.union_sites.is_empty() {
        return Ok(Flattened {
            schema,
            diagnostics: Diagnostics::default(),
        });
    }
    if !facts.ref_targets.is_empty() {
        // References need the original beside the projection; take the borrowing path, then
        // hand the original to `spent`.
        let flat = project_document(&schema, options, facts);
        spent(schema);
        return flat;
    }
    // Identify every union site on the original, then give it up and project in place, moving
    // instead of copying. Without `$ref`, kinds and drafts need only `$schema`.
    let Identifications {
        identified: mut sites,
        alike,
        ..
    } = identify_sites(&schema, &facts, options);
    let context = draft_context(&schema);
    let frozen = freeze_owned(&schema, &facts, options, &mut sites);
    let copies = Copies::new(alike, &frozen.sites);
    let mut projector = Projector {
        document: &context,
        options,
        faults: faults(options),
        facts: &facts,
        site_index: fast_path::taken(FastPath::SiteIndex)
            .then(|| pointer::Enclosing::new(facts.union_sites.iter().map(String::as_str))),
        frozen,
        memo: Default::default(),
        deferred: Vec::new(),
        in_progress: Default::default(),
        diagnostics: Diagnostics::default(),
        sites: Vec::new(),
        sharing: None,
        copies,
        folded: Default::default(),
        digests: Default::default(),
    };
    let mut ptr = String::new();
    let out = projector.project_owned(schema, &mut ptr, &mut sites)?;
    Ok(Flattened {
        schema: out,
        diagnostics: projector.diagnostics,
    })
}

/// The identification of every union site in scope, made on the original before it is given up
/// (sites written alike identified once, [`polarity::identify_all`]).
fn identify_sites(schema: &Value, facts: &Facts, options: &Options) -> Identifications {
    let in_scope = facts
        .union_sites
        .iter()
        .enumerate()
        .filter(|(_, site)| options.scope == Scope::All || site.is_empty())
        .map(|(i, _)| i);
    polarity::identify_all(schema, facts, in_scope)
}

/// What the projection reads of the document once it is given up: its `$schema` only (without
/// `$ref`, kinds and the draft need nothing else).
fn draft_context(schema: &Value) -> Value {
    match schema.get("$schema") {
        Some(s) => {
            let mut m = Map::new();
            m.insert("$schema".into(), s.clone());
            Value::Object(m)
        }
        None => Value::Null,
    }
}

/// The owning path's frozen sites (SPEC §6 decision 37), from the identifications it made
/// first: a frozen discriminated union becomes a near miss with [`SkipReason::Frozen`].
fn freeze_owned(
    schema: &Value,
    facts: &Facts,
    options: &Options,
    sites: &mut FastMap<String, Identified>,
) -> Frozen {
    if options.scope != Scope::All {
        return Frozen::default();
    }
    // Without `$ref` nothing reaches the root from a frozen place.
    let frozen = polarity::frozen(schema, facts, false, false, Some(sites));
    for site in &frozen.sites {
        if let Some(id @ (Identified::Union(_) | Identified::Alike(_))) = sites.get_mut(site) {
            *id = Identified::NotUnion(Some(SkipReason::Frozen));
        }
    }
    // Without `$ref` a union joined as a branch of another is inside it, so it is frozen only
    // where the other is; the guard keeps the diagnostics right if that ever changes.
    for id in sites.values_mut() {
        if let Identified::Union(union) = id
            && let Some(branch) = polarity::kept_branch(union, &frozen.sites)
        {
            *id = Identified::NotUnion(Some(SkipReason::BranchUnionKept { branch }));
        }
    }
    frozen
}

impl Projector<'_> {
    /// Joins an identified union that this pass owns: branches, siblings and definitions are
    /// projected in place and moved, never copied. Only for documents without `$ref` (every part
    /// of a branch is then inside it).
    fn flatten_union_owned(
        &mut self,
        mut node: Map<String, Value>,
        ptr: &str,
        union: Union,
        sites: &mut FastMap<String, Identified>,
    ) -> Result<Value, Error> {
        let keyword = super::union_keyword(&node);
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
        let mut projected: Vec<Vec<Option<Projected>>> = Vec::with_capacity(raw.len());
        for (i, (branch_value, branch)) in raw.into_iter().zip(&union.branches).enumerate() {
            let mut branch_ptr = pointer::push_index(&union_ptr, i);
            let mut whole = self.project_owned(branch_value, &mut branch_ptr, sites)?;
            let mut values: Vec<Option<Projected>> = Vec::with_capacity(branch.parts.len());
            values.resize_with(branch.parts.len(), || None);
            // Parts are the branch and its `allOf` members, in pre-order: take the deepest first.
            for (j, part) in branch.parts.iter().enumerate().rev() {
                let Part::Node(p) = part else { continue };
                if *p == branch_ptr {
                    values[j] = Some(Projected::Owned(std::mem::take(&mut whole)));
                } else if let Some(suffix) = p.strip_prefix(branch_ptr.as_str()) {
                    values[j] = whole
                        .pointer_mut(suffix)
                        .map(|v| Projected::Owned(v.take()));
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
        sites: &mut FastMap<String, Identified>,
    ) -> Result<Value, Error> {
        let Value::Object(mut map) = node else {
            return Ok(node);
        };
        if self
            .site_index
            .as_ref()
            .is_some_and(|index| !index.any_at_or_under(ptr))
        {
            return Ok(Value::Object(map));
        }
        if !sites.is_empty() && (keywords::has(&map, "oneOf") || keywords::has(&map, "anyOf")) {
            let union = match sites.remove(ptr.as_str()) {
                Some(Identified::Union(union)) => Some(UnionHere::Own(union)),
                Some(Identified::Alike(alike)) => Some(UnionHere::Alike(alike)),
                Some(Identified::NotUnion(Some(reason))) => {
                    self.diagnostics.record_skipped(SkippedSite {
                        pointer: ptr.clone(),
                        reason,
                    });
                    None
                }
                _ => None,
            };
            if let Some(union) = union {
                let here = ptr.clone();
                return match self.copied_join(&map, &here) {
                    Copied::Join(copy) => Ok(copy),
                    Copied::Keep(before) => {
                        let union = union.at(&here);
                        let join = self.flatten_union_owned(map, &here, union, sites)?;
                        self.keep_join(&here, before, &join);
                        Ok(join)
                    }
                    Copied::Alone => {
                        let union = union.at(&here);
                        self.flatten_union_owned(map, &here, union, sites)
                    }
                };
            }
        }
        self.project_children_owned(&mut map, ptr, sites)?;
        Ok(Value::Object(map))
    }

    fn project_children_owned(
        &mut self,
        map: &mut Map<String, Value>,
        ptr: &mut String,
        sites: &mut FastMap<String, Identified>,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Taking whole the nodes with no union site at or under them changes nothing: the owned
    /// projection with the index makes what it makes walking every node, on every schema of the
    /// JSON-Schema-Test-Suite and the corpus dialects, in both scopes.
    #[test]
    fn nodes_with_no_site_below_are_taken_as_the_walk_would_make_them() {
        let docs = crate::test_corpus::schemas();
        let mut flattened = 0;
        for scope in [Scope::All, Scope::Root] {
            let options = Options {
                scope,
                ..Options::default()
            };
            for doc in &docs {
                let indexed = crate::flatten_owned(doc.clone(), &options)
                    .map(|f| (f.schema, format!("{:?}", f.diagnostics)))
                    .map_err(|e| e.to_string());
                let walked = fast_path::without(FastPath::SiteIndex, || {
                    crate::flatten_owned(doc.clone(), &options)
                        .map(|f| (f.schema, format!("{:?}", f.diagnostics)))
                        .map_err(|e| e.to_string())
                });
                // Compared as text: the same keys in the same order.
                let text = |r: &Result<(Value, String), String>| {
                    r.as_ref()
                        .map(|(v, d)| (v.to_string(), d.clone()))
                        .map_err(Clone::clone)
                };
                assert_eq!(text(&indexed), text(&walked), "{doc}");
                flattened += usize::from(indexed.as_ref().is_ok_and(|(v, _)| v != doc));
            }
        }
        assert!(
            flattened > 100,
            "{flattened} presentations differ from their input"
        );
    }

    /// `flatten_owned_with` makes what `flatten` makes, byte for byte, and hands `spent` the
    /// input, unchanged, exactly where the join only read it (a local `$ref`, or a document
    /// normalized first) and nothing where it took the input apart.
    #[test]
    fn the_input_handed_back_is_the_input_and_changes_nothing() {
        let mut handed = 0;
        for doc in crate::test_corpus::schemas() {
            let options = Options::default();
            let mut spent = Vec::new();
            let with = crate::flatten_owned_with(doc.clone(), &options, &mut |v| spent.push(v));
            let borrowed = crate::flatten(&doc, &options);
            let text = |r: &Result<Flattened, Error>| {
                r.as_ref()
                    .map(|f| (f.schema.to_string(), format!("{:?}", f.diagnostics)))
                    .map_err(ToString::to_string)
            };
            assert_eq!(text(&with), text(&borrowed), "{doc}");
            let Ok(facts) = wellformed::check(&doc) else {
                continue;
            };
            let read_only = with.is_ok()
                && !facts.union_sites.is_empty()
                && (!facts.ref_targets.is_empty() || facts.needs_normalizing(&doc));
            assert_eq!(spent.len(), usize::from(read_only), "{doc}");
            assert!(spent.iter().all(|v| *v == doc), "{doc}");
            handed += spent.len();
        }
        assert!(handed > 10, "only {handed} inputs handed back");
    }
}
