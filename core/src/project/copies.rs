//! Written alike, joined once (SPEC §6 decision 80): a union site written exactly like one
//! already joined in this projection — the same text ([`identify::site_key`]) and the same
//! annotations — whose subtree holds nothing that reads where it stands takes a copy of that
//! join, and the diagnostics and flattened sites the join recorded, moved under its own pointer.
//! The presentation is the one joining it again would make, byte for byte; the input wrote the
//! union out at every site, so the output does too (decision 73 shares only what the input
//! shared).
//!
//! A join depends on the site's subtree, the document-wide facts (draft, options, whether
//! `unevaluated*` is used) and the targets of the references it follows. Both sites share the
//! first two; the copy is taken only where the subtree has no `$ref` (nothing outside is read),
//! no `$id`, anchor, `$schema` or definitions (nothing is a place of its own), where no
//! reference leads into either site (`identify_all` keys no such site), where no union below
//! either site is frozen (a reference from a frozen place could freeze one site's and not the
//! other's), and where the site's own identification is the one its group shares (a union
//! joined as another's branch is identified by that union, and is in no group).
//!
//! [`identify::site_key`]: crate::identify::site_key
//! [`identify::reads_where_it_stands`]: crate::identify::reads_where_it_stands

use serde_json::{Map, Value};

use super::Projector;
use crate::diagnostics::{FlattenedSite, SkippedSite};
use crate::fasthash::{FastMap, FastSet};
use crate::keywords;
use crate::pointer;

/// The joins of one projection kept for the sites written like them.
#[derive(Default)]
pub(super) struct Copies {
    /// Sites written alike, by group ([`crate::polarity::Identifications::alike`]).
    alike: FastMap<String, usize>,
    /// Pointers with a frozen union site below them.
    frozen_below: FastSet<String>,
    /// Each group's join, once one of its sites is joined.
    made: FastMap<usize, Made>,
}

/// One site's join, kept for its group.
struct Made {
    /// The site it was made at.
    base: String,
    /// The site's annotations (a copy needs the same).
    annotations: Vec<(String, Value)>,
    value: Value,
    /// What its projection recorded, at or below `base`.
    flattened: Vec<FlattenedSite>,
    skipped: Vec<SkippedSite>,
    sites: Vec<(String, &'static str)>,
}

/// Where the records stood before a join, for [`Projector::keep_join`].
pub(super) struct Before {
    group: usize,
    annotations: Vec<(String, Value)>,
    flattened: usize,
    skipped: usize,
    sites: usize,
}

impl Copies {
    pub(super) fn new(alike: FastMap<String, usize>, frozen: &FastSet<String>) -> Copies {
        let mut frozen_below = FastSet::default();
        if !alike.is_empty() {
            for site in frozen {
                let mut end = site.len();
                while let Some(i) = site[..end].rfind('/') {
                    frozen_below.insert(site[..i].to_owned());
                    end = i;
                }
            }
        }
        Copies {
            alike,
            frozen_below,
            ..Copies::default()
        }
    }

    /// The group of the site at `ptr`, when it may share a join.
    fn group(&self, ptr: &str) -> Option<usize> {
        #[cfg(test)]
        if tests::ALONE.get() {
            return None;
        }
        if self.alike.is_empty() {
            return None;
        }
        let g = *self.alike.get(ptr)?;
        (!self.frozen_below.contains(ptr)).then_some(g)
    }
}

/// The annotations of a union node, in its order.
fn annotations(node: &Map<String, Value>) -> Vec<(String, Value)> {
    node.iter()
        .filter(|(k, _)| keywords::is_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// What a union site does about its group's join ([`Projector::copied_join`]).
pub(super) enum Copied {
    /// The group's join, copied.
    Join(Value),
    /// None yet: join the site and keep the join ([`Projector::keep_join`]).
    Keep(Before),
    /// Join the site on its own.
    Alone,
}

impl Projector<'_> {
    /// The join of the union site `node` at `ptr` copied from its group's, with what that join
    /// recorded recorded again under `ptr`; else whether the site's own join is kept.
    pub(super) fn copied_join(&mut self, node: &Map<String, Value>, ptr: &str) -> Copied {
        let Some(g) = self.copies.group(ptr) else {
            return Copied::Alone;
        };
        let Some(made) = self.copies.made.get(&g) else {
            return Copied::Keep(Before {
                group: g,
                annotations: annotations(node),
                flattened: self.diagnostics.flattened.len(),
                skipped: self.diagnostics.skipped.len(),
                sites: self.sites.len(),
            });
        };
        let mut own = node.iter().filter(|(k, _)| keywords::is_annotation(k));
        let same = made.annotations.len() == own.clone().count()
            && made
                .annotations
                .iter()
                .all(|(k, v)| own.next().is_some_and(|(k2, v2)| k == k2 && v == v2));
        if !same {
            return Copied::Alone;
        }
        #[cfg(test)]
        tests::COPIED.set(tests::COPIED.get() + 1);
        let rebase = |p: &str| pointer::under(ptr, &p[made.base.len()..]);
        for s in &made.flattened {
            self.diagnostics.record_flattened(FlattenedSite {
                pointer: rebase(&s.pointer),
                ..s.clone()
            });
        }
        for s in &made.skipped {
            self.diagnostics.record_skipped(SkippedSite {
                pointer: rebase(&s.pointer),
                reason: s.reason.clone(),
            });
        }
        for (p, k) in &made.sites {
            self.sites.push((rebase(p), k));
        }
        Copied::Join(made.value.clone())
    }

    /// Keeps the join `value` just made at `ptr` for the other sites of its group.
    pub(super) fn keep_join(&mut self, ptr: &str, before: Before, value: &Value) {
        let made = Made {
            base: ptr.to_owned(),
            annotations: before.annotations,
            value: value.clone(),
            flattened: self.diagnostics.flattened[before.flattened..].to_vec(),
            skipped: self.diagnostics.skipped[before.skipped..].to_vec(),
            sites: self.sites[before.sites..].to_vec(),
        };
        self.copies.made.insert(before.group, made);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde_json::{Value, json};

    use crate::{Options, flatten, flatten_owned};

    thread_local! {
        /// Every site joined on its own (the projection without copies).
        pub(super) static ALONE: Cell<bool> = const { Cell::new(false) };
        /// Joins copied so far on this thread.
        pub(super) static COPIED: Cell<usize> = const { Cell::new(0) };
    }

    /// A discriminated union with a union nested in a branch, a union left as it is (no
    /// discriminator) and one frozen under `not`.
    fn site(title: &str) -> Value {
        json!({"title": title, "oneOf": [
            {"type": "object", "required": ["k"], "properties": {
                "k": {"const": "a"},
                "inner": {"oneOf": [
                    {"type": "object", "properties": {"t": {"const": 1}, "x": {"type": "string"}}},
                    {"type": "object", "properties": {"t": {"const": 2}, "x": {"type": "integer"}}}
                ]},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
            {"type": "object", "required": ["k"], "properties": {
                "k": {"const": "b"},
                "not_this": {"not": {"oneOf": [
                    {"type": "object", "properties": {"t": {"const": 1}}},
                    {"type": "object", "properties": {"t": {"const": 2}}}
                ]}}}}
        ]})
    }

    /// A discriminated union with nothing nested.
    fn plain() -> Value {
        json!({"oneOf": [
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "a"}}},
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "b"},
                "v": {"type": "string"}}}
        ]})
    }

    /// Flattens `doc` both ways (borrowed and owned), with copies and every site alone: the
    /// presentations and diagnostics must be the same. Returns the joins copied.
    fn same_as_alone(doc: &Value) -> usize {
        let options = Options::default();
        let mut copied = 0;
        for owned in [false, true] {
            let run = |alone: bool| {
                ALONE.set(alone);
                let before = COPIED.get();
                let out = if owned {
                    flatten_owned(doc.clone(), &options)
                } else {
                    flatten(doc, &options)
                }
                .expect("flattens");
                ALONE.set(false);
                (out, COPIED.get() - before)
            };
            let ((with, n), (alone, none)) = (run(false), run(true));
            assert_eq!(none, 0);
            assert_eq!(with.schema, alone.schema, "owned: {owned}");
            assert_eq!(
                serde_json::to_string(&with.schema).ok(),
                serde_json::to_string(&alone.schema).ok()
            );
            assert_eq!(with.diagnostics, alone.diagnostics, "owned: {owned}");
            copied += n;
        }
        copied
    }

    #[test]
    fn sites_written_alike_take_the_join_they_would_make() {
        let doc = json!({"type": "object", "properties": {
            "a": site("S"), "b": site("S"), "c": {"type": "array", "items": site("S")},
            // Another title: joined on its own.
            "d": site("T"),
            // Frozen itself: left as it is.
            "e": {"not": site("S")},
            // Written alike inside sites written alike.
            "f": {"type": "object", "properties": {"g": site("S"), "h": site("S")}},
            "i": {"type": "object", "properties": {"g": site("S"), "h": site("S")}}
        }});
        // b, c's items, f/g, f/h, i/g, i/h (and the nested sites of each: copied with them),
        // and i as a whole is no union.
        assert!(same_as_alone(&doc) >= 2 * 6, "copies were taken");
    }

    #[test]
    fn sites_that_read_where_they_stand_are_joined_alone() {
        // A reference below a branch (a member that is one is shared instead, decision 73).
        let with_ref = json!({"oneOf": [
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "a"},
                "v": {"$ref": "#/$defs/V"}}},
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "b"}}}
        ]});
        let doc = json!({"$defs": {"V": {"type": "string"}},
        "type": "object", "properties": {
            "a": with_ref.clone(), "b": with_ref.clone(), "c": with_ref,
            // A reference into one site of a group.
            "d": plain(), "e": plain(), "f": {"$ref": "#/properties/d/oneOf/0"},
            // A reference from a frozen place into one site of a group.
            "g": plain(), "g2": plain(),
            "h": {"not": {"$ref": "#/properties/g/oneOf/1"}}
        }});
        // Only `e` and `g2`, each written like a site referenced into and not referenced into
        // themselves, form a group: one copy in each of the two runs.
        assert_eq!(same_as_alone(&doc), 2);
    }

    #[test]
    fn a_union_joined_as_a_branch_is_not_copied_from_one_standing_alone() {
        // `nested` stands alone at `a` and `z`, and as a branch's part at `b`, where the union
        // around it identifies it (and is no group's).
        let nested = json!({"oneOf": [
            {"type": "object", "properties": {"t": {"const": 1}, "x": {"type": "string"}}},
            {"type": "object", "properties": {"t": {"const": 2}, "y": {"type": "integer"}}}
        ]});
        let doc = json!({"type": "object", "properties": {
        "a": nested.clone(),
        "z": nested.clone(),
        "b": {"oneOf": [
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "p"}},
             "allOf": [nested]},
            {"type": "object", "required": ["k"], "properties": {"k": {"const": "q"}}}
        ]}}});
        // `z` from `a`, in each run; not the part of `b`.
        assert_eq!(same_as_alone(&doc), 2);
    }
}
