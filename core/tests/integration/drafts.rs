//! Each draft read by its own rules (SPEC §6 decisions 29–35). Every soundness claim is judged by
//! `jsonschema` under the document's declared draft, never by the core's code.

use flatjoin::{Draft, ErrorKind, Options, flatten, flatten_owned};
use serde_json::{Value, json};

use crate::oracle::validator;

const DRAFT4: &str = "http://json-schema.org/draft-04/schema#";

fn two_branches(schema: &str, tag_a: Value, tag_b: Value, a: Value, b: Value) -> Value {
    json!({
        "$schema": schema,
        "oneOf": [
            {"type": "object", "properties": {"kind": tag_a, "x": a}, "required": ["kind", "x"]},
            {"type": "object", "properties": {"kind": tag_b, "x": b}, "required": ["kind", "x"]}
        ]
    })
}

/// A discriminator literal as `draft` spells it: `const`, or a one-value `enum` in draft-04.
fn tag_in(draft: Draft, v: &str) -> Value {
    if draft.has_const() {
        json!({"const": v})
    } else {
        json!({"enum": [v]})
    }
}

/// Both paths (borrowing and owning) give the same presentation; it is returned.
fn flat(original: &Value) -> flatjoin::Flattened {
    let borrowed = flatten(original, &Options::default()).expect("flattens");
    let owned = flatten_owned(original.clone(), &Options::default()).expect("flattens owned");
    assert_eq!(borrowed, owned, "the two paths differ on {original}");
    borrowed
}

/// Every value the original accepts, the presentation accepts (both judged by `jsonschema`).
fn assert_sound(original: &Value, values: &[Value]) -> Value {
    let presentation = flat(original).schema;
    let (o, p) = (validator(original), validator(&presentation));
    let mut accepted = 0;
    for v in values {
        if o.is_valid(v) {
            accepted += 1;
            assert!(
                p.is_valid(v),
                "{v} accepted by the original, rejected by the presentation\n  original: {original}\n  presentation: {presentation}"
            );
        }
    }
    assert!(accepted > 0, "no value accepted by {original}");
    presentation
}

/// Draft-04's `integer` rejects `0.0`, which `enum: [0]` accepts: an integer literal colliding
/// with `type: integer` widens to `number` there (found by the suite phase: draft4/enum.json
/// "enum with 0 does not match false", wrapped as a payload).
#[test]
fn draft04_integer_literals_widen_to_number() {
    let original = two_branches(
        DRAFT4,
        json!({"enum": ["a"]}),
        json!({"enum": ["b"]}),
        json!({"enum": [0]}),
        json!({"type": "integer"}),
    );
    let p = assert_sound(
        &original,
        &[
            json!({"kind": "a", "x": 0.0}),
            json!({"kind": "a", "x": 0}),
            json!({"kind": "b", "x": 3}),
        ],
    );
    assert_eq!(p["properties"]["x"]["type"], "number", "{p}");
    // From draft-06 on `0.0` is an integer: the same union keeps `integer`.
    let mut later = original.clone();
    later["$schema"] = json!(Draft::Draft6.meta_schema());
    let p = assert_sound(&later, &[json!({"kind": "a", "x": 0.0})]);
    assert_eq!(p["properties"]["x"]["type"], "integer", "{p}");
}

/// Integer discriminator literals in draft-04: the joined discriminator accepts `1.0` for `1`,
/// as the original's `enum` does.
#[test]
fn draft04_integer_discriminators_accept_their_float_spelling() {
    let original = two_branches(
        DRAFT4,
        json!({"enum": [1]}),
        json!({"enum": [2]}),
        json!({"type": "string"}),
        json!({"type": "string"}),
    );
    assert_sound(
        &original,
        &[json!({"kind": 1.0, "x": "s"}), json!({"kind": 2, "x": "s"})],
    );
}

/// `const` is no keyword in draft-04: a union tagged by it is no discriminated union (found by
/// the suite phase: every draft-04 group wrapped with `const` tags), and a `const`-only
/// alternative is not literal-restricted when scalars are widened.
#[test]
fn draft04_const_asserts_nothing() {
    let tagged = two_branches(
        DRAFT4,
        json!({"const": "a"}),
        json!({"const": "b"}),
        json!({"type": "number"}),
        json!({"type": "string"}),
    );
    // At the root a union of objects is joined all the same, without a discriminator (SPEC
    // §2.9); nested, it stays.
    let f = flat(&tagged);
    assert_eq!(f.diagnostics.flattened.len(), 1, "{:?}", f.diagnostics);
    assert_eq!(f.diagnostics.flattened[0].discriminator, None);
    assert_sound(&tagged, &[json!({"kind": "a", "x": "text"})]);
    let mut nested = json!({"$schema": DRAFT4, "type": "object", "properties": {"p": tagged}});
    nested["properties"]["p"]
        .as_object_mut()
        .map(|m| m.remove("$schema"));
    let f = flat(&nested);
    assert!(f.diagnostics.flattened.is_empty(), "{:?}", f.diagnostics);
    assert_eq!(f.diagnostics.skipped[0].reason.code(), "no-discriminator");

    let widened = two_branches(
        DRAFT4,
        json!({"enum": ["a"]}),
        json!({"enum": ["b"]}),
        json!({"type": "string", "const": "p"}),
        json!({"type": "string", "enum": ["q"]}),
    );
    let p = assert_sound(&widened, &[json!({"kind": "a", "x": "anything"})]);
    assert!(p["properties"]["x"].get("enum").is_none(), "{p}");
    // Two `const` alternatives are two alternatives in draft-04, not one literal set.
    let original = two_branches(
        DRAFT4,
        json!({"enum": ["a"]}),
        json!({"enum": ["b"]}),
        json!({"type": "object", "const": {"k": 1}}),
        json!({"type": "object", "enum": [{"k": 1}]}),
    );
    assert_sound(&original, &[json!({"kind": "a", "x": {"k": 2}})]);
}

/// A property that no branch lets through joins to what accepts nothing, spelled `{"not": {}}`
/// in draft-04, which has no boolean schemas (the presentation must be a draft-04 schema).
#[test]
fn draft04_presentations_hold_no_boolean_schemas() {
    let original = two_branches(
        DRAFT4,
        json!({"enum": ["a"]}),
        json!({"enum": ["b"]}),
        json!({"not": {}}),
        json!({"not": {}}),
    );
    let original = {
        let mut o = original;
        o["oneOf"][0]["required"] = json!(["kind"]);
        o["oneOf"][1]["required"] = json!(["kind"]);
        o
    };
    let p = assert_sound(&original, &[json!({"kind": "a"})]);
    assert_eq!(p["properties"]["x"], json!({"not": {}}), "{p}");
    assert!(jsonschema::draft4::meta::is_valid(&p), "{p}");
}

/// Draft-04's `id` sets the base URI, as `$id` does later: an embedded resource's references
/// resolve against it (found by the suite phase: draft4/ref.json "Recursive references between
/// schemas" wrapped into a union gave a presentation that does not compile).
#[test]
fn draft04_id_is_the_base_uri_keyword() {
    let original = json!({
        "$schema": DRAFT4,
        "oneOf": [
            {"type": "object", "properties": {"kind": {"enum": ["a"]}, "item": {
                "id": "http://example.invalid/node.json",
                "type": "object",
                "properties": {"next": {"$ref": "#/definitions/leaf"}},
                "definitions": {"leaf": {"type": "integer"}}
            }}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"enum": ["b"]}}, "required": ["kind"]}
        ]
    });
    let p = assert_sound(
        &original,
        &[
            json!({"kind": "a", "item": {"next": 3}}),
            json!({"kind": "b"}),
        ],
    );
    assert!(
        !validator(&p).is_valid(&json!({"kind": "a", "item": {"next": "no"}})),
        "{p}"
    );
}

/// Before 2019-09 `unevaluatedProperties` is an unknown word: a branch "closed" by it is open,
/// and the presentation must not close the object.
#[test]
fn unevaluated_properties_closes_nothing_before_2019_09() {
    for draft in [Draft::Draft4, Draft::Draft6, Draft::Draft7] {
        let tag = |v: &str| tag_in(draft, v);
        let mut original = two_branches(
            draft.meta_schema(),
            tag("a"),
            tag("b"),
            json!({"type": "string"}),
            json!({"type": "string"}),
        );
        for b in 0..2 {
            original["oneOf"][b]["unevaluatedProperties"] = json!(false);
        }
        let p = assert_sound(&original, &[json!({"kind": "a", "x": "s", "extra": 1})]);
        assert_ne!(p["additionalProperties"], json!(false), "{draft}: {p}");
    }
}

/// Hoisted definitions go to the draft's own container when the document has none. (`o` refers
/// to another property than itself: a reference to its own inline definition is that
/// definition, one alternative, and nothing is hoisted, SPEC §6 decision 88.)
#[test]
fn hoisted_definitions_go_to_the_drafts_container() {
    for draft in Draft::ALL {
        let tag = |v: &str| tag_in(draft, v);
        let original = json!({
            "$schema": draft.meta_schema(),
            "anyOf": [
                {"type": "object", "properties": {"kind": tag("a"), "o": {"type": "string"}, "p": {"type": "object", "properties": {"f": {"type": "boolean"}}}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": tag("b"), "o": {"$ref": "#/anyOf/0/properties/p"}}, "required": ["kind"]}
            ]
        });
        let p = flat(&original).schema;
        let container = draft.definitions_container();
        assert!(p.get(container).is_some(), "{draft}: {p}");
        let other = if container == "$defs" {
            "definitions"
        } else {
            "$defs"
        };
        assert!(p.get(other).is_none(), "{draft}: {p}");
        assert_sound(&original, &[json!({"kind": "b", "o": {"f": true}})]);
    }
}

/// 2019-09's `$recursiveRef` is refused with its pointer, as `$dynamicRef` is (decision 16).
#[test]
fn recursive_ref_is_refused_with_its_pointer() {
    let original = json!({
        "$schema": Draft::Draft201909.meta_schema(),
        "$recursiveAnchor": true,
        "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "child": {"$recursiveRef": "#"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ]
    });
    let e = flatten(&original, &Options::default()).expect_err("refused");
    assert_eq!(e.pointer, "/oneOf/0/properties/child/$recursiveRef", "{e}");
    assert!(matches!(e.kind, ErrorKind::UnsupportedRef { .. }), "{e}");
}

/// Draft-03 is refused, naming the draft; a custom meta-schema is read as 2020-12 and said so.
#[test]
fn draft03_is_refused_and_unknown_meta_schemas_are_named() {
    let union = |schema: &str| {
        json!({"$schema": schema, "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ]})
    };
    let e = flatten(
        &union("http://json-schema.org/draft-03/schema#"),
        &Options::default(),
    )
    .expect_err("draft-03 is refused");
    assert_eq!(e.pointer, "/$schema");
    assert!(matches!(e.kind, ErrorKind::UnsupportedDraft { .. }), "{e}");
    assert!(e.to_string().contains("draft-03"), "{e}");

    let custom = "https://spec.openapis.org/oas/3.1/dialect/base";
    let f = flat(&union(custom));
    assert_eq!(f.diagnostics.assumed_draft.as_deref(), Some(custom));
    assert_eq!(f.schema["$schema"], custom);
    assert_eq!(
        f.diagnostics.to_json()["assumed_draft"]["read_as"],
        "2020-12"
    );
    let known = flat(&union(Draft::Draft7.meta_schema()));
    assert_eq!(known.diagnostics.assumed_draft, None);
    assert!(known.diagnostics.to_json().get("assumed_draft").is_none());
}

/// The presentation keeps the document's `$schema`, and is a valid schema of that draft.
#[test]
fn presentations_keep_their_draft_and_its_meta_schema() {
    for draft in Draft::ALL {
        let tag = |v: &str| tag_in(draft, v);
        let original = two_branches(
            draft.meta_schema(),
            tag("a"),
            tag("b"),
            json!({"type": "integer", "minimum": 0}),
            json!({"type": ["string", "null"]}),
        );
        let p = flat(&original).schema;
        assert_eq!(p["$schema"], draft.meta_schema());
        assert!(jsonschema::meta::is_valid(&p), "{draft}: {p}");
    }
}
