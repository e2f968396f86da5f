//! Where flattening would make the document stricter (SPEC §6 decision 37).
//!
//! Flattening a union makes its node accept more. That keeps the presentation at least as loose
//! as the original only where accepting more below a node makes the node accept more. Three
//! places turn that around:
//!
//! - under `not` (and `if`, whose subschema also chooses between `then` and `else`): accepting
//!   more there rejects more, or changes which branch applies;
//! - under a member of a `oneOf` that is not itself flattened: a looser member can match a value
//!   another member also matches, and `oneOf` then rejects it (a discriminated union's branches
//!   are told apart by their literals, and the flattened union replaces the `oneOf` anyway);
//! - under `contains` beside `maxContains`: more items may then match than allowed.
//!
//! A union site in such a place, or in a definition that such a place references, is *frozen*:
//! left as it is. The walk goes through the one subschema walker ([`keywords::subschemas`]) and
//! skips keywords the draft does not have; references are followed to their targets once each.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::draft::Draft;
use crate::identify::{self, Identified};
use crate::keywords;
use crate::pointer;

/// The union sites that must not be flattened, and the identification of every `oneOf` site the
/// walk needed (the projection reuses it instead of identifying again).
#[derive(Default)]
pub(crate) struct Frozen {
    /// Pointers of union sites in a place where flattening would make the document stricter.
    pub sites: HashSet<String>,
    /// `oneOf` sites identified on the way, by pointer.
    pub identified: HashMap<String, Identified>,
}

/// Finds the frozen union sites of `document`. `union_sites` are every site's pointer (from the
/// well-formedness pass); with fewer than two there is nothing nested to freeze. `known` holds
/// identifications already made (the owning path identifies every site first).
pub(crate) fn frozen(
    document: &Value,
    draft: Draft,
    union_sites: &[String],
    known: Option<&HashMap<String, Identified>>,
) -> Frozen {
    let mut out = Frozen::default();
    if union_sites.len() < 2 && !union_sites.iter().any(|s| !s.is_empty()) {
        return out;
    }
    // Pointers already walked frozen (roots of frozen subtrees reached through `$ref`).
    let mut frozen_roots: HashSet<String> = HashSet::new();
    let mut stack: Vec<(&Value, String, bool)> = vec![(document, String::new(), false)];
    let mut pending: Vec<String> = Vec::new();
    loop {
        while let Some((node, ptr, frozen)) = stack.pop() {
            let Value::Object(map) = node else { continue };
            let union_here = keywords::has(map, "oneOf") || keywords::has(map, "anyOf");
            if frozen && union_here {
                out.sites.insert(ptr.clone());
            }
            if frozen
                && let Some(target) = keywords::get(map, "$ref")
                    .and_then(Value::as_str)
                    .and_then(pointer::local_ref)
            {
                pending.push(target);
            }
            let exclusive = !frozen
                && keywords::has(map, "oneOf")
                && !is_flattened(map, &ptr, document, known, &mut out.identified);
            let max_contains = keywords::has(map, "maxContains");
            keywords::subschemas(map, |place, child| {
                let keyword = place.keyword();
                if !draft.knows(keyword) {
                    return;
                }
                let freezes = matches!(keyword, "not" | "if")
                    || (keyword == "oneOf" && exclusive)
                    || (keyword == "contains" && max_contains);
                let mut child_ptr = ptr.clone();
                place.push_onto(&mut child_ptr);
                stack.push((child, child_ptr, frozen || freezes));
            });
        }
        // Definitions a frozen place references are frozen too, wherever else they are used.
        let Some(target) = pending.pop() else { break };
        if frozen_roots.insert(target.clone())
            && let Some(node) = pointer::get(document, &target)
        {
            stack.push((node, target, true));
        }
    }
    out
}

/// Whether the `oneOf` node at `ptr` will be flattened as a discriminated union.
fn is_flattened(
    map: &Map<String, Value>,
    ptr: &str,
    document: &Value,
    known: Option<&HashMap<String, Identified>>,
    identified: &mut HashMap<String, Identified>,
) -> bool {
    if let Some(known) = known {
        return matches!(known.get(ptr), Some(Identified::Union(_)));
    }
    let id = identify::identify(map, ptr, document);
    let du = matches!(id, Identified::Union(_));
    identified.insert(ptr.to_owned(), id);
    du
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn du() -> Value {
        json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]})
    }

    fn sites_of(doc: &Value, sites: &[&str]) -> HashSet<String> {
        let sites: Vec<String> = sites.iter().map(|s| (*s).to_owned()).collect();
        frozen(doc, Draft::of(doc), &sites, None).sites
    }

    #[test]
    fn not_if_and_max_contains_freeze_what_they_hold() {
        let doc = json!({"properties": {
            "a": {"not": du()},
            "b": {"if": du(), "then": du()},
            "c": {"contains": du(), "maxContains": 1},
            "d": {"contains": du()},
            "e": du()
        }});
        let sites = [
            "/properties/a/not",
            "/properties/b/if",
            "/properties/b/then",
            "/properties/c/contains",
            "/properties/d/contains",
            "/properties/e",
        ];
        let frozen = sites_of(&doc, &sites);
        let expected: HashSet<String> = [
            "/properties/a/not",
            "/properties/b/if",
            "/properties/c/contains",
        ]
        .map(str::to_owned)
        .into();
        assert_eq!(frozen, expected);
    }

    #[test]
    fn members_of_a_one_of_that_stays_are_frozen_those_of_a_flattened_one_are_not() {
        let mut branch = du()["oneOf"][0].clone();
        branch["properties"]["v"] = du();
        let flattened = json!({"oneOf": [branch, du()["oneOf"][1].clone()]});
        let sites = ["", "/oneOf/0/properties/v"];
        assert!(sites_of(&flattened, &sites).is_empty());
        // Without literals the outer `oneOf` is no discriminated union: it stays, and a looser
        // member could match what the other matches.
        let kept =
            json!({"oneOf": [{"type": "object", "properties": {"v": du()}}, {"type": "object"}]});
        let frozen = sites_of(&kept, &["", "/oneOf/0/properties/v"]);
        assert_eq!(frozen, HashSet::from(["/oneOf/0/properties/v".to_owned()]));
    }

    #[test]
    fn a_definition_referenced_from_a_frozen_place_is_frozen() {
        let doc = json!({
            "$defs": {"U": du(), "W": {"$ref": "#/$defs/U"}},
            "properties": {"a": {"not": {"$ref": "#/$defs/W"}}, "b": {"$ref": "#/$defs/U"}}
        });
        // One site, not at the root: still walked.
        let frozen = sites_of(&doc, &["/$defs/U"]);
        assert_eq!(frozen, HashSet::from(["/$defs/U".to_owned()]));
    }
}
