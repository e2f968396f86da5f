//! The one place that knows which keywords hold subschemas, and which are annotations.
//!
//! Every walk in the crate (well-formedness, projection, structural identity, reference
//! collection) goes through [`slot`], and so do the provider profiles in the CLI
//! (`bindings/surfaces/src/profiles`, through [`subschemas`] and [`ANNOTATIONS`]), so a new keyword is one edit
//! here.

use serde_json::{Map, Value};

use crate::pointer;

/// How a keyword holds its subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// One schema (`not`, `additionalProperties`).
    Single,
    /// An array of schemas (`anyOf`, `prefixItems`).
    Array,
    /// An object whose values are schemas and whose keys are names (data, not keywords).
    Map,
    /// `items`: one schema, or (draft-07 and earlier) an array of schemas.
    SingleOrArray,
    /// `dependencies` (draft-07): values are schemas or arrays of property names.
    MapOfSchemaOrNames,
}

/// Keywords whose values are (or contain) subschemas: the readable list that [`slot`]'s `match`
/// must agree with (checked by `slot_table_matches_match`).
#[cfg(test)]
const SUBSCHEMA_KEYWORDS: &[(&str, Slot)] = &[
    ("properties", Slot::Map),
    ("patternProperties", Slot::Map),
    ("additionalProperties", Slot::Single),
    ("unevaluatedProperties", Slot::Single),
    ("propertyNames", Slot::Single),
    ("dependentSchemas", Slot::Map),
    ("dependencies", Slot::MapOfSchemaOrNames),
    ("items", Slot::SingleOrArray),
    ("prefixItems", Slot::Array),
    ("additionalItems", Slot::Single),
    ("unevaluatedItems", Slot::Single),
    ("contains", Slot::Single),
    ("allOf", Slot::Array),
    ("anyOf", Slot::Array),
    ("oneOf", Slot::Array),
    ("not", Slot::Single),
    ("if", Slot::Single),
    ("then", Slot::Single),
    ("else", Slot::Single),
    ("$defs", Slot::Map),
    ("definitions", Slot::Map),
    ("contentSchema", Slot::Single),
];

/// Annotation keywords: they never change what a schema accepts (SPEC §1).
pub const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Whether `keyword` is an annotation keyword.
pub fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword)
}

/// The key that marks a shared join's flat object during one projection (SPEC §6 decision 73):
/// no JSON Schema keyword, ignored by structural identity, and removed before the presentation
/// is returned.
pub(crate) const SHARE_MARK: &str = "\u{0}flatjoin-shared";

/// The key of a shared join's placeholder during one projection (SPEC §6 decision 73): a later
/// reading of a shared site stands as its annotations, its `type` and this key, whose value names
/// the group's join; unlike the mark it counts in structural identity (two placeholders are the
/// same schema when they name the same join), and it is replaced before the presentation is
/// returned.
pub(crate) const SHARE_PLACE: &str = "\u{0}flatjoin-place";

/// Whether `keyword` asserts nothing about a value: an annotation, OpenAPI's and Pydantic's
/// `discriminator` (a hint for code generators, no JSON Schema keyword), or an `x-` extension.
pub fn is_non_asserting(keyword: &str) -> bool {
    is_annotation(keyword) || keyword == "discriminator" || keyword.starts_with("x-")
}

/// The members of a pure `anyOf`/`oneOf` wrapper: nothing beside the one union keyword but
/// keywords that assert nothing (annotations, `discriminator`, `x-` extensions); `None` for any
/// other schema object.
pub(crate) fn wrapper_members(map: &Map<String, Value>) -> Option<&Vec<Value>> {
    let mut members = None;
    for (k, v) in map {
        match (k.as_str(), v) {
            ("anyOf" | "oneOf", Value::Array(m)) if members.is_none() => members = Some(m),
            (k, _) if is_non_asserting(k) => {}
            _ => return None,
        }
    }
    members
}

/// Looks a keyword up in a schema object. serde_json's ordered map hashes every key looked up
/// with SipHash; schema objects are small, and a scan of a few keys is several times cheaper, so
/// the hot paths (kinds, folding, widening, the walk) use this.
#[inline]
pub(crate) fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= 16 {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// Whether a schema object has `key` (see [`get`]).
#[inline]
pub(crate) fn has(map: &Map<String, Value>, key: &str) -> bool {
    get(map, key).is_some()
}

/// Looks a keyword up in a schema (`None` for boolean schemas), as [`get`].
#[inline]
pub(crate) fn get_in<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    match schema {
        Value::Object(map) => get(map, key),
        _ => None,
    }
}

/// The slot of `keyword`, if it holds subschemas.
pub fn slot(keyword: &str) -> Option<Slot> {
    // A `match` rather than a scan of `SUBSCHEMA_KEYWORDS`: this runs for every key of every
    // node. `slot_table_matches_match` keeps the two in step.
    Some(match keyword {
        "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
            Slot::Map
        }
        "additionalProperties"
        | "unevaluatedProperties"
        | "propertyNames"
        | "additionalItems"
        | "unevaluatedItems"
        | "contains"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contentSchema" => Slot::Single,
        "dependencies" => Slot::MapOfSchemaOrNames,
        "items" => Slot::SingleOrArray,
        "prefixItems" | "allOf" | "anyOf" | "oneOf" => Slot::Array,
        _ => return None,
    })
}

/// A subschema position relative to its parent: the keyword, and the name or index inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    /// `keyword` holds the schema directly.
    Direct(&'a str),
    /// `keyword[index]`.
    Index(&'a str, usize),
    /// `keyword[name]`.
    Name(&'a str, &'a str),
}

impl<'a> Place<'a> {
    /// The keyword holding the child.
    pub fn keyword(&self) -> &'a str {
        match self {
            Place::Direct(k) | Place::Index(k, _) | Place::Name(k, _) => k,
        }
    }

    /// The JSON pointer from the parent to the child (`/properties/name`).
    pub fn suffix(&self) -> String {
        let mut out = String::new();
        self.push_onto(&mut out);
        out
    }

    /// About the length of this place's tokens in a pointer (exact unless a token is escaped or
    /// an index has more than three digits).
    fn length_hint(&self) -> usize {
        match self {
            Place::Direct(k) => k.len() + 1,
            Place::Index(k, _) => k.len() + 5,
            Place::Name(k, n) => k.len() + n.len() + 2,
        }
    }

    /// Appends this place's tokens to the pointer in `buf`.
    pub(crate) fn push_onto(&self, buf: &mut String) {
        match self {
            Place::Direct(k) => pointer::push_into(buf, k),
            Place::Index(k, i) => {
                pointer::push_into(buf, k);
                pointer::push_index_into(buf, *i);
            }
            Place::Name(k, n) => {
                pointer::push_into(buf, k);
                pointer::push_into(buf, n);
            }
        }
    }
}

/// Where a walk stands: a base pointer and the places stepped through from it, written out as a
/// JSON pointer only when one is asked for (a union site, an error). A walk passes every node of
/// the document and needs its pointer at few of them: stepping costs a push, not a token
/// escaped into a buffer per node.
pub(crate) struct Trail<'a> {
    base: String,
    steps: Vec<Place<'a>>,
}

impl<'a> Trail<'a> {
    /// A trail from the node at `base`.
    pub(crate) fn from(base: String) -> Self {
        Trail {
            base,
            steps: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, place: Place<'a>) {
        self.steps.push(place);
    }

    pub(crate) fn pop(&mut self) {
        self.steps.pop();
    }

    /// Whether the trail stands at the document's root.
    pub(crate) fn at_root(&self) -> bool {
        self.base.is_empty() && self.steps.is_empty()
    }

    /// The pointer, written into `out` (cleared first).
    pub(crate) fn write_into(&self, out: &mut String) {
        out.clear();
        out.push_str(&self.base);
        for place in &self.steps {
            place.push_onto(out);
        }
    }

    /// The pointer, allocated once at about its length (a union site's pointer is written for
    /// every site of a document, and growing it step by step reallocated it several times).
    pub(crate) fn pointer(&self) -> String {
        let length = self.base.len() + self.steps.iter().map(Place::length_hint).sum::<usize>();
        let mut out = String::with_capacity(length);
        self.write_into(&mut out);
        out
    }
}

/// Calls `f` with every subschema of `node` (well-formed or not: values of the wrong JSON type are
/// skipped here and reported by `wellformed`).
pub fn subschemas<'a>(node: &'a Map<String, Value>, mut f: impl FnMut(Place<'a>, &'a Value)) {
    for (keyword, value) in node {
        let Some(slot) = slot(keyword) else { continue };
        match (slot, value) {
            (Slot::Single | Slot::SingleOrArray, v) if !v.is_array() => {
                f(Place::Direct(keyword), v)
            }
            (Slot::Array | Slot::SingleOrArray, Value::Array(items)) => {
                for (i, v) in items.iter().enumerate() {
                    f(Place::Index(keyword, i), v);
                }
            }
            (Slot::Map, Value::Object(map)) => {
                for (name, v) in map {
                    f(Place::Name(keyword, name), v);
                }
            }
            (Slot::MapOfSchemaOrNames, Value::Object(map)) => {
                for (name, v) in map {
                    if !v.is_array() {
                        f(Place::Name(keyword, name), v);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` with every subschema of `node`, mutably (for projecting in place).
pub fn subschemas_mut(node: &mut Map<String, Value>, mut f: impl FnMut(Place<'_>, &mut Value)) {
    for (keyword, value) in node.iter_mut() {
        let Some(slot) = slot(keyword) else { continue };
        match (slot, value) {
            (Slot::Single | Slot::SingleOrArray, v) if !v.is_array() => {
                f(Place::Direct(keyword), v)
            }
            (Slot::Array | Slot::SingleOrArray, Value::Array(items)) => {
                for (i, v) in items.iter_mut().enumerate() {
                    f(Place::Index(keyword, i), v);
                }
            }
            (Slot::Map, Value::Object(map)) => {
                for (name, v) in map.iter_mut() {
                    f(Place::Name(keyword, name), v);
                }
            }
            (Slot::MapOfSchemaOrNames, Value::Object(map)) => {
                for (name, v) in map.iter_mut() {
                    if !v.is_array() {
                        f(Place::Name(keyword, name), v);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Rebuilds `node` with every subschema replaced by `f(place, child)`; other keywords are copied.
pub(crate) fn map_subschemas<E>(
    node: &Map<String, Value>,
    mut f: impl FnMut(Place<'_>, &Value) -> Result<Value, E>,
) -> Result<Map<String, Value>, E> {
    let mut out = Map::with_capacity(node.len());
    for (keyword, value) in node {
        let mapped = match (slot(keyword), value) {
            (Some(Slot::Single | Slot::SingleOrArray), v) if !v.is_array() => {
                f(Place::Direct(keyword), v)?
            }
            (Some(Slot::Array | Slot::SingleOrArray), Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| f(Place::Index(keyword, i), v))
                    .collect::<Result<_, E>>()?,
            ),
            (Some(Slot::Map), Value::Object(map)) => {
                let mut m = Map::with_capacity(map.len());
                for (name, v) in map {
                    m.insert(name.clone(), f(Place::Name(keyword, name), v)?);
                }
                Value::Object(m)
            }
            (Some(Slot::MapOfSchemaOrNames), Value::Object(map)) => {
                let mut m = Map::with_capacity(map.len());
                for (name, v) in map {
                    let mapped = if v.is_array() {
                        v.clone()
                    } else {
                        f(Place::Name(keyword, name), v)?
                    };
                    m.insert(name.clone(), mapped);
                }
                Value::Object(m)
            }
            _ => value.clone(),
        };
        out.insert(keyword.clone(), mapped);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_table_matches_match() {
        for (keyword, expected) in SUBSCHEMA_KEYWORDS {
            assert_eq!(slot(keyword), Some(*expected), "{keyword}");
        }
        assert_eq!(slot("title"), None);
        assert_eq!(slot("required"), None);
    }
}
