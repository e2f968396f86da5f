//! What each draft means, in one place (SPEC §6 decisions 29–35): the join reads a document by
//! the draft its root `$schema` declares — draft-04, draft-06, draft-07, 2019-09 or 2020-12 —
//! and every rule that differs between drafts asks this module instead of testing `$schema`
//! itself.
//!
//! | rule | 04 | 06 | 07 | 2019-09 | 2020-12 |
//! | --- | --- | --- | --- | --- | --- |
//! | `const` is a keyword | no | yes | yes | yes | yes |
//! | `1.0` is an `integer` | no | yes | yes | yes | yes |
//! | boolean subschemas | no | yes | yes | yes | yes |
//! | a `$ref` overrides its siblings | yes | yes | yes | no | no |
//! | `unevaluatedProperties` is a keyword | no | no | no | yes | yes |
//! | base-URI keyword | `id` | `$id` | `$id` | `$id` | `$id` |
//! | definitions container | `definitions` | `definitions` | `definitions` | `$defs` | `$defs` |
//!
//! Draft-03 and older are refused ([`ErrorKind::UnsupportedDraft`]); a `$schema` that names no
//! draft (a custom meta-schema) is read as 2020-12, and [`Diagnostics::assumed_draft`] says so.
//!
//! [`ErrorKind::UnsupportedDraft`]: crate::ErrorKind::UnsupportedDraft
//! [`Diagnostics::assumed_draft`]: crate::Diagnostics::assumed_draft

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};

/// A JSON Schema draft the join reads, oldest first (the order is the drafts' history).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Draft {
    /// `http://json-schema.org/draft-04/schema#`.
    Draft4,
    /// `http://json-schema.org/draft-06/schema#`.
    Draft6,
    /// `http://json-schema.org/draft-07/schema#`.
    Draft7,
    /// `https://json-schema.org/draft/2019-09/schema`.
    Draft201909,
    /// `https://json-schema.org/draft/2020-12/schema` (also what an undeclared document is).
    #[default]
    Draft202012,
}

/// How a document's root `$schema` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Declared {
    /// A draft the join knows, or no `$schema` at all (2020-12).
    Known(Draft),
    /// A URI that names no draft: read as 2020-12, said in the diagnostics.
    Unknown(String),
}

impl Draft {
    /// Every draft, oldest first.
    pub const ALL: [Draft; 5] = [
        Draft::Draft4,
        Draft::Draft6,
        Draft::Draft7,
        Draft::Draft201909,
        Draft::Draft202012,
    ];

    /// The draft `document` is read by: its root `$schema`'s, 2020-12 when it declares none or
    /// one the join does not know (draft-03 and older are refused earlier, by `flatten`).
    pub fn of(document: &Value) -> Draft {
        // Read on every union joined: a scan of the root's keys, not a SipHash lookup.
        match crate::keywords::get_in(document, "$schema").and_then(Value::as_str) {
            Some(uri) => Draft::from_uri(uri).unwrap_or(Draft::Draft202012),
            None => Draft::Draft202012,
        }
    }

    /// The draft a meta-schema URI names (`http` or `https`, with or without the empty fragment),
    /// `None` for any other URI.
    pub fn from_uri(uri: &str) -> Option<Draft> {
        let uri = uri.trim_end_matches('#');
        let path = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))?;
        match path {
            "json-schema.org/draft-04/schema" => Some(Draft::Draft4),
            "json-schema.org/draft-06/schema" => Some(Draft::Draft6),
            "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
            "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft201909),
            "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
            _ => None,
        }
    }

    /// The canonical meta-schema URI, as a document of this draft declares it.
    pub fn meta_schema(self) -> &'static str {
        match self {
            Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
            Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
            Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
            Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Draft::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// A short name (`draft-04`, `2020-12`).
    pub fn name(self) -> &'static str {
        match self {
            Draft::Draft4 => "draft-04",
            Draft::Draft6 => "draft-06",
            Draft::Draft7 => "draft-07",
            Draft::Draft201909 => "2019-09",
            Draft::Draft202012 => "2020-12",
        }
    }

    /// Whether `const` is a keyword (draft-06 on); in draft-04 it is an unknown word that asserts
    /// nothing, so `{"const": 1}` accepts every value there.
    pub fn has_const(self) -> bool {
        self >= Draft::Draft6
    }

    /// Whether a number with a zero fractional part written as a float (`1.0`) is an `integer`
    /// (draft-06 on). In draft-04 `type: "integer"` rejects it, while `enum: [1]` accepts it
    /// (`enum` compares numbers by value in every draft).
    pub fn integral_float_is_integer(self) -> bool {
        self >= Draft::Draft6
    }

    /// Whether `true`/`false` are schemas (draft-06 on). Draft-04 allows booleans only as the
    /// value of `additionalProperties` and `additionalItems`.
    pub fn has_boolean_schemas(self) -> bool {
        self >= Draft::Draft6
    }

    /// Whether a `$ref` makes its sibling keywords ignored (up to draft-07).
    pub fn ref_overrides_siblings(self) -> bool {
        self <= Draft::Draft7
    }

    /// Whether `unevaluatedProperties`/`unevaluatedItems` are keywords (2019-09 on); before, they
    /// are unknown words that close nothing.
    pub fn has_unevaluated(self) -> bool {
        self >= Draft::Draft201909
    }

    /// Whether `keyword`, one that holds subschemas in some draft, is a keyword of this draft:
    /// `if`/`then`/`else` from draft-07, `contains`/`propertyNames` from draft-06,
    /// `dependentSchemas`, `unevaluated*` and `contentSchema` from 2019-09, `prefixItems` in
    /// 2020-12. Elsewhere its value is data that is never evaluated: the join neither walks nor
    /// flattens it, and a reference inside it need not resolve.
    pub fn knows(self, keyword: &str) -> bool {
        match keyword {
            "if" | "then" | "else" => self >= Draft::Draft7,
            "contains" | "propertyNames" => self >= Draft::Draft6,
            "dependentSchemas" | "unevaluatedProperties" | "unevaluatedItems" | "contentSchema" => {
                self >= Draft::Draft201909
            }
            "prefixItems" => self == Draft::Draft202012,
            _ => true,
        }
    }

    /// The keyword that sets a base URI (`id` in draft-04, `$id` after).
    pub fn id_keyword(self) -> &'static str {
        if self == Draft::Draft4 { "id" } else { "$id" }
    }

    /// The root definitions container this draft names (`definitions` up to draft-07).
    pub fn definitions_container(self) -> &'static str {
        if self <= Draft::Draft7 {
            "definitions"
        } else {
            "$defs"
        }
    }

    /// The schema that accepts nothing: `false`, or `{"not": {}}` where booleans are no schemas.
    pub fn false_schema(self) -> Value {
        if self.has_boolean_schemas() {
            Value::Bool(false)
        } else {
            let mut not = Map::new();
            not.insert("not".into(), Value::Object(Map::new()));
            Value::Object(not)
        }
    }

    /// The draft `jsonschema`'s resolver detected (in an embedded resource with its own
    /// `$schema`).
    pub(crate) fn from_referencing(draft: referencing::Draft) -> Draft {
        match draft {
            referencing::Draft::Draft4 => Draft::Draft4,
            referencing::Draft::Draft6 => Draft::Draft6,
            referencing::Draft::Draft7 => Draft::Draft7,
            referencing::Draft::Draft201909 => Draft::Draft201909,
            _ => Draft::Draft202012,
        }
    }

    /// The draft as `jsonschema`'s resolver names it.
    pub(crate) fn referencing(self) -> referencing::Draft {
        match self {
            Draft::Draft4 => referencing::Draft::Draft4,
            Draft::Draft6 => referencing::Draft::Draft6,
            Draft::Draft7 => referencing::Draft::Draft7,
            Draft::Draft201909 => referencing::Draft::Draft201909,
            Draft::Draft202012 => referencing::Draft::Draft202012,
        }
    }
}

impl std::fmt::Display for Draft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Reads the root `$schema` of `document`: a known draft, an unknown URI (read as 2020-12), or
/// an error for draft-03 and older (`UnsupportedDraft` at `/$schema`), which the join never reads
/// by another draft's rules.
pub(crate) fn declared(document: &Value) -> Result<Declared, Error> {
    let Some(uri) = document.get("$schema").and_then(Value::as_str) else {
        return Ok(Declared::Known(Draft::Draft202012));
    };
    if let Some(draft) = Draft::from_uri(uri) {
        return Ok(Declared::Known(draft));
    }
    let trimmed = uri.trim_end_matches('#');
    let path = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .unwrap_or(trimmed);
    if ["00", "01", "02", "03"]
        .iter()
        .any(|n| path == format!("json-schema.org/draft-{n}/schema"))
    {
        return Err(Error::new(
            "/$schema",
            ErrorKind::UnsupportedDraft {
                declared: uri.to_owned(),
            },
        ));
    }
    Ok(Declared::Unknown(uri.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn uris_name_their_drafts_with_or_without_fragment_and_scheme() {
        for (uri, draft) in [
            ("http://json-schema.org/draft-04/schema#", Draft::Draft4),
            ("http://json-schema.org/draft-04/schema", Draft::Draft4),
            ("https://json-schema.org/draft-06/schema#", Draft::Draft6),
            ("http://json-schema.org/draft-07/schema#", Draft::Draft7),
            (
                "https://json-schema.org/draft/2019-09/schema",
                Draft::Draft201909,
            ),
            (
                "https://json-schema.org/draft/2020-12/schema#",
                Draft::Draft202012,
            ),
        ] {
            assert_eq!(Draft::from_uri(uri), Some(draft), "{uri}");
            assert_eq!(Draft::of(&json!({"$schema": uri})), draft, "{uri}");
            assert_eq!(Draft::from_uri(draft.meta_schema()), Some(draft));
        }
        assert_eq!(Draft::from_uri("https://example.com/my-meta"), None);
        assert_eq!(Draft::of(&json!({})), Draft::Draft202012);
    }

    #[test]
    fn draft_03_is_refused_at_the_schema_keyword_and_custom_uris_are_named() {
        for uri in [
            "http://json-schema.org/draft-03/schema#",
            "http://json-schema.org/draft-03/schema",
        ] {
            let e = declared(&json!({"$schema": uri})).expect_err(uri);
            assert_eq!(e.pointer, "/$schema");
            assert!(e.to_string().contains("draft-03"), "{e}");
        }
        assert_eq!(
            declared(&json!({"$schema": "https://spec.openapis.org/oas/3.1/dialect/base"})),
            Ok(Declared::Unknown(
                "https://spec.openapis.org/oas/3.1/dialect/base".into()
            ))
        );
        assert_eq!(
            declared(&json!({})),
            Ok(Declared::Known(Draft::Draft202012))
        );
    }

    #[test]
    fn the_rules_change_where_the_drafts_do() {
        let by = |rule: fn(Draft) -> bool| -> Vec<bool> { Draft::ALL.map(rule).to_vec() };
        assert_eq!(by(Draft::has_const), [false, true, true, true, true]);
        assert_eq!(
            by(Draft::integral_float_is_integer),
            [false, true, true, true, true]
        );
        assert_eq!(
            by(Draft::has_boolean_schemas),
            [false, true, true, true, true]
        );
        assert_eq!(
            by(Draft::ref_overrides_siblings),
            [true, true, true, false, false]
        );
        assert_eq!(
            by(Draft::has_unevaluated),
            [false, false, false, true, true]
        );
        assert_eq!(
            Draft::ALL.map(Draft::id_keyword),
            ["id", "$id", "$id", "$id", "$id"]
        );
        assert_eq!(
            Draft::ALL.map(Draft::definitions_container),
            [
                "definitions",
                "definitions",
                "definitions",
                "$defs",
                "$defs"
            ]
        );
        assert_eq!(Draft::Draft4.false_schema(), json!({"not": {}}));
        let knows = |k: &'static str| Draft::ALL.map(|d| d.knows(k)).to_vec();
        assert_eq!(knows("then"), [false, false, true, true, true]);
        assert_eq!(knows("propertyNames"), [false, true, true, true, true]);
        assert_eq!(knows("unevaluatedItems"), [false, false, false, true, true]);
        assert_eq!(knows("prefixItems"), [false, false, false, false, true]);
        assert_eq!(knows("allOf"), [true; 5]);
        assert_eq!(Draft::Draft6.false_schema(), json!(false));
    }
}
