//! Precision: the presentation is no looser than the rules make it, identification takes exactly
//! the unions SPEC §1 names, and the documented bounds hold where they stand. Soundness cannot see
//! looseness, so each test states what the presentation must *reject* (judged by `jsonschema`) or
//! the exact shape a rule prescribes. Written against the survivors of the mutation run
//! (`reports/mutants.md`); each test names the rule it pins.

use flatjoin::{OpenBranches, Options, SkipReason, flatten, flatten_owned};
use serde_json::{Map, Value, json};

use crate::oracle::validator;

/// A branch `{type: object, properties: {kind: {const: tag}, …extra}, required: [kind]}`.
fn branch(tag: &str, extra: Value) -> Value {
    let mut props = Map::new();
    props.insert("kind".into(), json!({"const": tag}));
    if let Value::Object(extra) = extra {
        props.extend(extra);
    }
    json!({"type": "object", "properties": props, "required": ["kind"]})
}

fn flat(original: &Value) -> flatjoin::Flattened {
    let a = flatten(original, &Options::default()).expect("flattens");
    let b = flatten_owned(original.clone(), &Options::default()).expect("flattens");
    assert_eq!(
        a.schema, b.schema,
        "the two front-ends agree on {original:#}"
    );
    a
}

fn permissive(original: &Value) -> Value {
    let options = Options::default().with_open_branches(OpenBranches::Permissive);
    flatten(original, &options).expect("flattens").schema
}

/// Asserts the presentation accepts what the original accepts among `values` (soundness, judged
/// by `jsonschema`), and returns it.
fn assert_sound(original: &Value, presentation: &Value, values: &[Value]) {
    let (o, p) = (validator(original), validator(presentation));
    for v in values {
        if o.is_valid(v) {
            assert!(p.is_valid(v), "{v} lost by {presentation:#}");
        }
    }
}

/// A branch reached through a chain of `n` bare `$ref`s (`#/$defs/d1` → … → `#/$defs/dn`, the
/// last one the object branch `b`).
fn ref_chain(n: usize) -> Value {
    let mut defs = Map::new();
    for i in 1..n {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{n}"), branch("b", json!({})));
    json!({"oneOf": [branch("a", json!({})), {"$ref": "#/$defs/d1"}], "$defs": defs})
}

/// SPEC §6 decision 14: part collection follows 64 `$ref` steps and stops after; a branch beyond
/// the bound is unresolvable (rule 1), not followed (and not a cycle either).
#[test]
fn part_collection_follows_exactly_64_steps() {
    let within = flat(&ref_chain(64));
    assert_eq!(within.diagnostics.flattened.len(), 1, "{:#}", within.schema);
    assert_eq!(
        within.schema["properties"]["kind"]["enum"],
        json!(["a", "b"])
    );
    let beyond = flat(&ref_chain(65));
    assert!(
        beyond.diagnostics.flattened.is_empty(),
        "{:#}",
        beyond.schema
    );
    assert_eq!(
        beyond.diagnostics.skipped.first().map(|s| s.reason.clone()),
        Some(SkipReason::BranchUnresolvable { branch: 1 })
    );
}

/// SPEC §1 rule 2 over several definitions (a branch and its `allOf` member): an empty `enum` is
/// no literal set, so the other definition decides and the union is flattened.
#[test]
fn an_empty_enum_leaves_the_literal_set_to_the_other_definitions() {
    let mut b = branch("b", json!({}));
    b["allOf"] = json!([{"properties": {"kind": {"enum": []}}}]);
    let original = json!({"oneOf": [branch("a", json!({})), b]});
    let flat = flat(&original);
    assert_eq!(flat.diagnostics.flattened.len(), 1, "{:#}", flat.schema);
    assert_eq!(
        flat.diagnostics.flattened[0].discriminator.as_deref(),
        Some("kind")
    );
    assert_sound(
        &original,
        &flat.schema,
        &[json!({"kind": "a"}), json!({"kind": "b"})],
    );
}

/// SPEC §1 rule 2: every definition of the discriminator in a branch must hold the literal; two
/// that share none leave that branch without a literal set, so there is no discriminator.
#[test]
fn definitions_without_a_common_literal_are_no_discriminator() {
    let mut b = branch("b", json!({}));
    b["allOf"] = json!([{"properties": {"kind": {"const": "c"}}}]);
    // Nested: at the root a union of objects is joined without a discriminator (SPEC §2.9).
    let original = json!({"properties": {"p": {"oneOf": [branch("a", json!({})), b]}}});
    let flat = flat(&original);
    assert!(flat.diagnostics.flattened.is_empty(), "{:#}", flat.schema);
    assert_eq!(flat.schema, original);
    assert_eq!(
        flat.diagnostics.skipped.first().map(|s| s.reason.clone()),
        Some(SkipReason::NoDiscriminator)
    );
}

/// SPEC §2.9, §6 decision 68 (rule 3 relaxed): a candidate no branch requires still makes a DU,
/// the first in the first branch's property order, and stays out of `required`; a candidate
/// every branch requires wins over an earlier one some branch leaves optional.
#[test]
fn an_optional_tag_is_a_discriminator_and_a_required_one_wins() {
    let make = |op: &str, mode: &str, required: serde_json::Value| json!({"type": "object", "properties": {"op": {"const": op}, "mode": {"const": mode}}, "required": required});
    let original = json!({"oneOf": [make("a", "x", json!([])), make("b", "y", json!(["op"]))]});
    let first = flat(&original);
    assert_eq!(
        first
            .diagnostics
            .flattened
            .first()
            .map(|s| s.discriminator.as_deref().unwrap_or_default()),
        Some("op")
    );
    assert_eq!(first.schema.get("required"), None, "{:#}", first.schema);
    let original =
        json!({"oneOf": [make("a", "x", json!(["mode"])), make("b", "y", json!(["mode", "op"]))]});
    let second = flat(&original);
    assert_eq!(
        second
            .diagnostics
            .flattened
            .first()
            .map(|s| s.discriminator.as_deref().unwrap_or_default()),
        Some("mode")
    );
    assert_eq!(
        second.schema["required"],
        json!(["mode"]),
        "{:#}",
        second.schema
    );
}

/// SPEC §6 decision 7: the discriminator's joined `title` is kept only when every branch's
/// definition has the same one.
#[test]
fn the_discriminator_keeps_a_title_only_when_all_agree() {
    let titled = |tag: &str, title: &str| {
        let mut b = branch(tag, json!({}));
        b["properties"]["kind"]["title"] = json!(title);
        b
    };
    let differ = flat(&json!({"oneOf": [titled("a", "A"), titled("b", "B")]})).schema;
    assert_eq!(
        differ["properties"]["kind"].get("title"),
        None,
        "{differ:#}"
    );
    let agree = flat(&json!({"oneOf": [titled("a", "K"), titled("b", "K")]})).schema;
    assert_eq!(agree["properties"]["kind"]["title"], "K", "{agree:#}");
}

/// SPEC §3.3: only a *pure* wrapper is expanded. A schema holding both `oneOf` and `anyOf` asserts
/// both, so it is kept whole: the joined property still rejects what the `oneOf` rules out.
#[test]
fn a_schema_with_both_union_keywords_is_no_wrapper() {
    let both = json!({
        "oneOf": [{"type": "string"}, {"type": "integer"}],
        "anyOf": [{"type": "string"}, {"type": "null"}]
    });
    let original = json!({"oneOf": [
        branch("a", json!({"p": {"type": "string", "minLength": 2}})),
        branch("b", json!({"p": both}))
    ]});
    let flat = flat(&original);
    let values = [
        json!({"kind": "a", "p": "xy"}),
        json!({"kind": "b", "p": "x"}),
        json!({"kind": "b", "p": null}),
    ];
    assert_sound(&original, &flat.schema, &values);
    let judge = validator(&flat.schema);
    assert!(
        !judge.is_valid(&json!({"kind": "b", "p": null})),
        "{:#}",
        flat.schema
    );
}

/// How many `anyOf` wrappers of one member each stand around the innermost schema.
fn wrapper_depth(mut schema: &Value) -> usize {
    let mut n = 0;
    while let Some(Value::Array(members)) = schema.get("anyOf") {
        assert_eq!(members.len(), 1, "{schema:#}");
        schema = &members[0];
        n += 1;
    }
    n
}

/// SPEC §6 decision 14 (bounds): wrappers are expanded 32 levels deep and no deeper; what is left
/// stays as written.
#[test]
fn wrapper_expansion_stops_after_32_levels() {
    let mut p = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    for _ in 0..40 {
        p = json!({"anyOf": [p]});
    }
    assert_eq!(wrapper_depth(&p), 40);
    let original = json!({"oneOf": [branch("a", json!({"p": p})), branch("b", json!({}))]});
    let flat = flat(&original);
    assert_eq!(
        wrapper_depth(&flat.schema["properties"]["p"]),
        8,
        "{:#}",
        flat.schema["properties"]["p"]
    );
}

/// SPEC §2.8 (permissive): an open branch with no pattern and no typed catch-all accepts anything
/// under an undeclared key; its contribution is `{}` itself, not an empty `allOf`.
#[test]
fn an_open_branch_without_catch_all_contributes_the_empty_schema() {
    let original = json!({"oneOf": [
        branch("a", json!({"p": {"type": "string"}})),
        branch("b", json!({})),
        branch("c", json!({}))
    ]});
    let p = permissive(&original);
    let text = serde_json::to_string(&p["properties"]["p"]).expect("serializes");
    assert!(!text.contains("allOf"), "{p:#}");
    assert!(validator(&p).is_valid(&json!({"kind": "b", "p": 1})));
}

/// The document of the reference tests: an absolute root `$id` and `$anchor`, an embedded
/// resource (`$id`, `$anchor`) that a union branch and a plain property reference by relative URI,
/// and a remote reference that is never fetched.
fn with_resources() -> Value {
    let mut b = branch("b", json!({}));
    b["$id"] = json!("b.json");
    b["$anchor"] = json!("bee");
    json!({
        "$id": "https://example.com/schemas/root.json",
        "$anchor": "top",
        "type": "object",
        "properties": {
            "u": {"oneOf": [branch("a", json!({})), {"$ref": "b.json"}]},
            "r": {"$ref": "b.json"},
            "remote": {"$ref": "https://other.example/x.json"}
        },
        "$defs": {"b": b}
    })
}

/// SPEC §6 decision 15: references are resolved by URI (relative to the root's `$id`), rewritten
/// to pointers from the root; the identifiers that served only resolution are gone (the embedded
/// `$id` and every `$anchor`, the root's own anchor too) and the root's base URI stays; a remote
/// reference stays absolute and is never fetched.
#[test]
fn uri_references_become_root_pointers_and_identifiers_go() {
    let original = with_resources();
    let flat = flat(&original);
    let p = &flat.schema;
    assert_eq!(flat.diagnostics.flattened.len(), 1, "{p:#}");
    assert_eq!(p["$id"], original["$id"]);
    assert_eq!(p.get("$anchor"), None, "{p:#}");
    assert_eq!(p["$defs"]["b"].get("$id"), None, "{p:#}");
    assert_eq!(p["$defs"]["b"].get("$anchor"), None, "{p:#}");
    assert_eq!(p["properties"]["r"]["$ref"], "#/$defs/b");
    assert_eq!(
        p["properties"]["remote"]["$ref"],
        "https://other.example/x.json"
    );
    assert_eq!(
        p["properties"]["u"]["properties"]["kind"]["enum"],
        json!(["a", "b"])
    );
}

/// SPEC §6 decision 15: an anchor may stand inside an array (an `allOf` member); its reference
/// becomes the pointer through the array index.
#[test]
fn an_anchor_inside_an_array_is_found() {
    let mut b = branch("b", json!({}));
    b["$anchor"] = json!("bee");
    let original = json!({
        "$defs": {"wrap": {"allOf": [b]}},
        "oneOf": [branch("a", json!({})), {"$ref": "#bee"}]
    });
    let flat = flat(&original);
    assert_eq!(flat.diagnostics.flattened.len(), 1, "{:#}", flat.schema);
    assert_eq!(flat.schema["properties"]["kind"]["enum"], json!(["a", "b"]));
}

/// `normalize` rewrites only what needs URI resolution, and only when there is a union to
/// flatten: otherwise the presentation is the input itself, references spelled as written.
#[test]
fn references_are_rewritten_only_where_resolution_needs_it() {
    // No union: the document with its embedded resource comes back unchanged.
    let mut no_union = with_resources();
    no_union["properties"]["u"] = json!({"$ref": "b.json"});
    assert_eq!(flat(&no_union).schema, no_union);
    let union = json!({"oneOf": [branch("a", json!({})), branch("b", json!({}))]});
    // No root `$id`: a remote reference (dot segments and all) is not resolved, so not rewritten.
    let remote = json!({
        "type": "object",
        "properties": {"u": union, "r": {"$ref": "https://example.com/a/../b.json"}}
    });
    let p = flat(&remote).schema;
    assert_eq!(
        p["properties"]["r"]["$ref"],
        "https://example.com/a/../b.json"
    );
    // A root `$id` and only local pointers: nothing needs resolution; the percent-encoded
    // spelling stays.
    let local = json!({
        "$id": "https://example.com/root.json",
        "type": "object",
        "properties": {"u": union, "r": {"$ref": "#/%24defs/s"}},
        "$defs": {"s": {"type": "string"}}
    });
    let p = flat(&local).schema;
    assert_eq!(p["properties"]["r"]["$ref"], "#/%24defs/s", "{p:#}");
    assert_eq!(
        p["properties"]["u"]["properties"]["kind"]["enum"],
        json!(["a", "b"])
    );
}

/// SPEC §3.4: annotations are ignored at every depth, but a property *named* like an annotation
/// is data: two alternatives that differ only there stay two (the digest `dedup` uses, like the
/// structural key, strips annotation keywords only).
#[test]
fn properties_named_like_annotations_are_not_deduplicated() {
    let a = json!({"type": "object", "properties": {"title": {"type": "string"}}});
    let b = json!({"type": "object", "properties": {"title": {"type": "integer"}}});
    assert_eq!(flatjoin::dedup(vec![a.clone(), b.clone()]), vec![a, b]);
    let c = json!({"$defs": {"description": {"type": "string"}}, "type": "object"});
    let d = json!({"$defs": {"description": {"type": "null"}}, "type": "object"});
    assert_eq!(flatjoin::dedup(vec![c.clone(), d.clone()]), vec![c, d]);
}

/// SPEC §6 decision 61: a branch written as a bare `$ref` with a `description` beside it (what
/// Pydantic writes for `Field(description=…)`) is described by that text, not by the target's;
/// up to draft-07 the text beside a `$ref` is ignored (decision 2) and the target's describes it.
#[test]
fn a_bare_refs_own_description_describes_its_branch() {
    let document = |schema: &str| {
        let mut target = branch("b", json!({}));
        target["description"] = json!("The target's text.");
        json!({
            "$schema": schema,
            "oneOf": [
                branch("a", json!({})),
                {"$ref": "#/definitions/B", "description": "The use's text."}
            ],
            "definitions": {"B": target}
        })
    };
    let text = |schema: &str| {
        let flat = flat(&document(schema)).schema;
        flat["properties"]["kind"]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("the discriminator is described: {flat:#}"))
            .to_owned()
    };
    let newer = text("https://json-schema.org/draft/2020-12/schema");
    assert!(
        newer.contains("The use's text.") && !newer.contains("The target's text."),
        "2020-12: {newer}"
    );
    let older = text("http://json-schema.org/draft-07/schema#");
    assert!(
        older.contains("The target's text.") && !older.contains("The use's text."),
        "draft-07: {older}"
    );
}

/// SPEC §3.4 (structural identity) reads `allOf` members in order: alternatives that differ only
/// inside an `allOf` are two alternatives, and the presentation keeps both.
#[test]
fn alternatives_differing_inside_all_of_are_both_kept() {
    let (s, i) = (
        json!({"allOf": [{"type": "string"}]}),
        json!({"allOf": [{"type": "integer"}]}),
    );
    assert!(!flatjoin::structurally_equal(&s, &i));
    assert_eq!(flatjoin::dedup(vec![s.clone(), i.clone()]).len(), 2);
    let original = json!({"oneOf": [branch("a", json!({"p": s})), branch("b", json!({"p": i}))]});
    let presentation = flat(&original).schema;
    assert_sound(
        &original,
        &presentation,
        &[json!({"kind": "a", "p": "x"}), json!({"kind": "b", "p": 1})],
    );
}

/// SPEC §6 decision 35 and §3.4: draft-04 has no `const`, so `{"const": "x"}` asserts nothing
/// there and is not the one-value `enum` it is from draft-06 on; deduplicating the two would
/// keep only the `enum` and lose every other value of branch `b`.
#[test]
fn draft_04_const_is_not_an_enum_in_dedup() {
    let branch04 = |tag: &str, p: Value| json!({"type": "object", "properties": {"kind": {"enum": [tag]}, "p": p}, "required": ["kind"]});
    let original = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "oneOf": [branch04("a", json!({"enum": ["x"]})), branch04("b", json!({"const": "x"}))]
    });
    let presentation = flat(&original).schema;
    assert_sound(
        &original,
        &presentation,
        &[json!({"kind": "b", "p": "y"}), json!({"kind": "b", "p": 7})],
    );
    assert!(
        validator(&original).is_valid(&json!({"kind": "b", "p": "y"})),
        "draft-04 reads `const` as no keyword"
    );
}

/// SPEC §6 decision 3: a hoisted copy is repaired too. `z` refers into the union's branch (`y`,
/// a recursive array that refers to itself there, so nothing can inline it): the copy hoisted
/// for `z` holds that self-reference, which must land on the hoisted definition as well, so
/// every `$ref` of the presentation resolves inside it.
#[test]
fn references_inside_hoisted_copies_are_repaired_too() {
    let nested = json!({"type": "array", "items": {"$ref": "#/oneOf/0/properties/y"}});
    let original = json!({
        "oneOf": [branch("a", json!({"y": nested})), branch("b", json!({}))],
        "properties": {"z": {"$ref": "#/oneOf/0/properties/y"}}
    });
    let presentation = flat(&original).schema;
    assert!(
        !presentation.to_string().contains("#/oneOf/"),
        "a reference still points into the flattened union: {presentation:#}"
    );
    assert_sound(
        &original,
        &presentation,
        &[
            json!({"kind": "a", "z": [[], [[]]], "y": [[]]}),
            json!({"kind": "b", "z": []}),
        ],
    );
    assert!(
        !validator(&presentation).is_valid(&json!({"kind": "b", "z": [1]})),
        "z holds arrays only: {presentation:#}"
    );
}
