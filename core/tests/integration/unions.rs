//! Unions of objects that are not plain discriminated unions (SPEC §2.9, §6 decision 70): a branch
//! that is itself a union (Pydantic's nested discriminated union), a root union with no
//! discriminator (serde's externally tagged and untagged enums, Zod's `z.union`), and what stays.
//! Soundness is judged by `jsonschema`; each test also states what the presentation must say.

use flatjoin::{Options, SkipReason, flatten, flatten_owned};
use serde_json::{Value, json};

use crate::oracle::validator;

/// Flattens through both front-ends, asserts they agree and that the presentation accepts every
/// value of `values` (each accepted by the original first), and returns the borrowing result.
fn sound(original: &Value, values: &[Value]) -> flatjoin::Flattened {
    let a = flatten(original, &Options::default()).expect("flattens");
    let b = flatten_owned(original.clone(), &Options::default()).expect("flattens");
    assert_eq!(a.schema, b.schema, "the front-ends agree on {original:#}");
    assert_eq!(a.diagnostics, b.diagnostics, "{original:#}");
    let (o, p) = (validator(original), validator(&a.schema));
    for v in values {
        assert!(o.is_valid(v), "the original rejects {v}");
        assert!(
            p.is_valid(v),
            "the presentation rejects {v}: {:#}",
            a.schema
        );
    }
    a
}

/// The sites the diagnostics name as skipped, with their reasons.
fn skipped(flat: &flatjoin::Flattened) -> Vec<(&str, SkipReason)> {
    flat.diagnostics
        .skipped
        .iter()
        .map(|s| (s.pointer.as_str(), s.reason.clone()))
        .collect()
}

fn is_one_object(schema: &Value) -> bool {
    schema["type"] == "object" && schema.get("oneOf").is_none() && schema.get("anyOf").is_none()
}

fn string_const(name: &str, value: &str) -> Value {
    json!({name: {"const": value, "type": "string"}})
}

/// An object of string properties, with `consts` as `const` properties; all required.
fn model(title: &str, consts: &[(&str, &str)], fields: &[&str]) -> Value {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for (name, value) in consts {
        properties.extend(
            string_const(name, value)
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        required.push(json!(name));
    }
    for f in fields {
        properties.insert((*f).into(), json!({"type": "string"}));
        required.push(json!(f));
    }
    json!({"title": title, "type": "object", "properties": properties, "required": required})
}

/// Pydantic's documented nested discriminated union, as `TypeAdapter(Pet).json_schema()` renders
/// it (Pydantic 2.13): `Pet = Union[Cat, Dog]` on `pet_type`, `Cat = Union[BlackCat, WhiteCat]`
/// on `color`, the inner union inline and its branches behind `$ref`.
fn pydantic_pet() -> Value {
    let cat = json!({
        "discriminator": {"mapping": {"black": "#/$defs/BlackCat", "white": "#/$defs/WhiteCat"},
                          "propertyName": "color"},
        "oneOf": [{"$ref": "#/$defs/BlackCat"}, {"$ref": "#/$defs/WhiteCat"}]
    });
    json!({
        "$defs": {
            "BlackCat": model("BlackCat", &[("pet_type", "cat"), ("color", "black")], &["black_name"]),
            "WhiteCat": model("WhiteCat", &[("pet_type", "cat"), ("color", "white")], &["white_name"]),
            "Dog": model("Dog", &[("pet_type", "dog")], &["name"])
        },
        "discriminator": {"mapping": {"cat": cat.clone(), "dog": "#/$defs/Dog"},
                          "propertyName": "pet_type"},
        "oneOf": [cat, {"$ref": "#/$defs/Dog"}]
    })
}

fn pet_values() -> Vec<Value> {
    vec![
        json!({"pet_type": "cat", "color": "black", "black_name": "b"}),
        json!({"pet_type": "cat", "color": "white", "white_name": "w"}),
        json!({"pet_type": "dog", "name": "d"}),
    ]
}

/// Rule 1 on projected branches (SPEC §2.9): the inner union becomes one object first, then the
/// outer one sees object branches; both sites are flattened, inner first.
#[test]
fn pydantic_nested_discriminated_union_becomes_one_object() {
    let original = pydantic_pet();
    let flat = sound(&original, &pet_values());
    let p = &flat.schema;
    assert!(is_one_object(p), "{p:#}");
    assert_eq!(p["properties"]["pet_type"]["enum"], json!(["cat", "dog"]));
    assert_eq!(p["properties"]["color"]["enum"], json!(["black", "white"]));
    assert_eq!(p["required"], json!(["pet_type"]));
    let sites: Vec<(&str, Option<&str>)> = flat
        .diagnostics
        .flattened
        .iter()
        .map(|s| (s.pointer.as_str(), s.discriminator.as_deref()))
        .collect();
    assert_eq!(sites, [("/oneOf/0", Some("color")), ("", Some("pet_type"))]);
    assert!(
        flat.diagnostics.skipped.is_empty(),
        "{:?}",
        flat.diagnostics
    );
    // The presentation still tells the forms apart where a flat object can.
    let check = validator(p);
    assert!(!check.is_valid(&json!({"pet_type": "cow"})));
    assert!(!check.is_valid(&json!({"pet_type": "cat", "color": "red"})));
}

/// Nested as a field, with the inner union's branches inline (the owning front-end's path) or
/// behind a `$ref` to a definition used twice: the same presentation, and the definition's own
/// site is flattened too.
#[test]
fn a_nested_discriminated_union_in_a_field_is_flattened_inline_and_through_a_definition() {
    let black = model(
        "BlackCat",
        &[("pet_type", "cat"), ("color", "black")],
        &["black_name"],
    );
    let white = model(
        "WhiteCat",
        &[("pet_type", "cat"), ("color", "white")],
        &["white_name"],
    );
    let dog = model("Dog", &[("pet_type", "dog")], &["name"]);
    let inline = json!({"type": "object", "properties": {"pet": {"oneOf": [
        {"oneOf": [black, white]}, dog
    ]}}, "required": ["pet"]});
    let values: Vec<Value> = pet_values()
        .into_iter()
        .map(|v| json!({"pet": v}))
        .collect();
    let a = sound(&inline, &values);
    assert!(
        is_one_object(&a.schema["properties"]["pet"]),
        "{:#}",
        a.schema
    );
    let shared = json!({
        "type": "object",
        "properties": {"pet": {"oneOf": [{"$ref": "#/$defs/Cat"}, dog]},
                       "cat": {"$ref": "#/$defs/Cat"}},
        "$defs": {"Cat": {"oneOf": [black, white]}}
    });
    let b = sound(&shared, &values);
    assert!(
        is_one_object(&b.schema["properties"]["pet"]),
        "{:#}",
        b.schema
    );
    assert_eq!(
        a.schema["properties"]["pet"]["properties"],
        b.schema["properties"]["pet"]["properties"]
    );
    assert!(
        b.diagnostics
            .flattened
            .iter()
            .any(|s| s.pointer == "/$defs/Cat"),
        "{:?}",
        b.diagnostics
    );
}

/// A branch that is a union of objects with no discriminator of its own, whose members all carry
/// the outer tag's literal (Pydantic's `Union[BlackCat, WhiteCat]` without `discriminator` inside
/// a tagged union): joined as a branch of the outer union, which stays a DU on `pet_type`.
#[test]
fn an_untagged_union_as_a_branch_is_joined_with_its_union() {
    let black = model("BlackCat", &[("pet_type", "cat")], &["black_name"]);
    let white = model("WhiteCat", &[("pet_type", "cat")], &["white_name"]);
    let dog = model("Dog", &[("pet_type", "dog")], &["name"]);
    let original = json!({"type": "object", "properties": {"pet": {"anyOf": [
        {"anyOf": [black, white]}, dog
    ]}}});
    let values = [
        json!({"pet": {"pet_type": "cat", "black_name": "b"}}),
        json!({"pet": {"pet_type": "cat", "white_name": "w"}}),
        json!({"pet": {"pet_type": "dog", "name": "d"}}),
    ];
    let flat = sound(&original, &values);
    let pet = &flat.schema["properties"]["pet"];
    assert!(is_one_object(pet), "{pet:#}");
    assert_eq!(pet["properties"]["pet_type"]["enum"], json!(["cat", "dog"]));
    let discriminators: Vec<Option<&str>> = flat
        .diagnostics
        .flattened
        .iter()
        .map(|s| s.discriminator.as_deref())
        .collect();
    assert_eq!(discriminators, [None, Some("pet_type")]);
}

/// serde's default (externally tagged) enum as schemars renders it: each variant an object with
/// one required key named after it, closed. At the root it is joined without a discriminator,
/// keeping that a value has exactly one key (SPEC §2.9, §6 decision 70); hints name the branches
/// by title, else position.
#[test]
fn serde_externally_tagged_enum_at_the_root_becomes_one_object_with_one_key() {
    let original = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Command",
        "oneOf": [
            {"type": "object", "properties": {"Move": {"type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x", "y"]}}, "required": ["Move"], "additionalProperties": false},
            {"title": "Speak", "type": "object", "properties": {"Say": {"type": "string"}},
             "required": ["Say"], "additionalProperties": false}
        ]
    });
    let flat = sound(
        &original,
        &[json!({"Move": {"x": 1, "y": 2}}), json!({"Say": "hi"})],
    );
    let p = &flat.schema;
    assert!(is_one_object(p), "{p:#}");
    assert_eq!(p["minProperties"], 1, "{p:#}");
    assert_eq!(p["maxProperties"], 1, "{p:#}");
    assert_eq!(p["additionalProperties"], false);
    assert!(p.get("required").is_none(), "{p:#}");
    assert_eq!(
        p["properties"]["Say"]["description"],
        "Only used, and then required, when the value has the form \"Speak\"."
    );
    assert_eq!(
        p["properties"]["Move"]["description"],
        "Only used, and then required, when the value has the form 1."
    );
    let check = validator(p);
    assert!(!check.is_valid(&json!({})));
    assert!(!check.is_valid(&json!({"Say": "a", "Move": {"x": 1, "y": 1}})));
    assert_eq!(flat.diagnostics.flattened[0].discriminator, None);
}

/// An untagged union of objects (`#[serde(untagged)]`, `z.union`): joined at the root; nested,
/// it stays for precision and is named with `no-discriminator`.
#[test]
fn an_untagged_union_is_joined_at_the_root_and_named_where_it_stays() {
    let union = json!({"anyOf": [
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        {"type": "object", "properties": {"url": {"type": "string", "format": "uri"},
                                          "path": {"type": "integer"}}, "required": ["url"]}
    ]});
    let values = [json!({"path": "a"}), json!({"url": "https://x", "path": 3})];
    let root = sound(&union, &values);
    assert!(is_one_object(&root.schema), "{:#}", root.schema);
    // Every branch requires one name, none that all require: at least one key. Open branches
    // bound nothing above.
    assert!(root.schema.get("required").is_none(), "{:#}", root.schema);
    assert_eq!(root.schema["minProperties"], 1, "{:#}", root.schema);
    assert!(
        root.schema.get("maxProperties").is_none(),
        "{:#}",
        root.schema
    );
    assert!(!validator(&root.schema).is_valid(&json!({})));
    let nested = json!({"type": "object", "properties": {"source": union}});
    let wrapped: Vec<Value> = values.iter().map(|v| json!({"source": v})).collect();
    let flat = sound(&nested, &wrapped);
    assert_eq!(flat.schema, nested);
    assert_eq!(
        flat.diagnostics
            .skipped
            .first()
            .map(|s| (s.pointer.as_str(), s.reason.code())),
        Some(("/properties/source", "no-discriminator"))
    );
}

/// A union one of whose branches is a union that must stay (frozen: its definition is also used
/// under `not`) cannot become one object: it stays, named `branch-union-kept`, and so its own
/// members are judged by the polarity rules (SPEC §6 decision 37).
#[test]
fn a_branch_union_that_must_stay_keeps_its_union() {
    let black = model(
        "BlackCat",
        &[("pet_type", "cat"), ("color", "black")],
        &["black_name"],
    );
    let white = model(
        "WhiteCat",
        &[("pet_type", "cat"), ("color", "white")],
        &["white_name"],
    );
    let dog = model("Dog", &[("pet_type", "dog")], &["name"]);
    let original = json!({
        "type": "object",
        "properties": {"pet": {"oneOf": [{"$ref": "#/$defs/Cat"}, dog]},
                       "not_a_cat": {"not": {"$ref": "#/$defs/Cat"}}},
        "$defs": {"Cat": {"oneOf": [black, white]}}
    });
    let values: Vec<Value> = pet_values()
        .into_iter()
        .map(|v| json!({"pet": v}))
        .collect();
    let flat = sound(&original, &values);
    assert!(
        flat.diagnostics.flattened.is_empty(),
        "{:?}",
        flat.diagnostics
    );
    let reasons = skipped(&flat);
    assert!(
        reasons.contains(&("/properties/pet", SkipReason::BranchUnionKept { branch: 0 })),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("/$defs/Cat", SkipReason::Frozen)),
        "{reasons:?}"
    );
}

/// A union of objects with a non-object branch stays, even at the root (no object keeps a
/// string), named `branch-not-object` with the branch.
#[test]
fn a_union_with_a_non_object_branch_stays_even_at_the_root() {
    let original = json!({"oneOf": [
        {"type": "object", "properties": {"Move": {"type": "integer"}}, "required": ["Move"]},
        {"type": "string", "enum": ["Stop"]}
    ]});
    let flat = sound(&original, &[json!({"Move": 1}), json!("Stop")]);
    assert_eq!(flat.schema, original);
    assert_eq!(
        flat.diagnostics.skipped.first().map(|s| s.reason.clone()),
        Some(SkipReason::BranchNotObject { branch: 1 })
    );
}

/// A one-member `oneOf`/`anyOf` is no union site (SPEC §6 decision 70): a union whose branch is
/// one is named `branch-not-object` when that member is not an object, not `branch-union-kept`.
/// Found by the coverage oracle on the open-world generator (default seed, case 43).
#[test]
fn a_one_member_union_as_a_branch_is_no_union_kept() {
    let original = json!({"type": "object", "properties": {"p": {"anyOf": [
        {"anyOf": [{"type": "string"}]}, {"type": "null"}
    ]}}});
    let flat = sound(&original, &[json!({"p": "s"}), json!({"p": null})]);
    let reasons = skipped(&flat);
    assert_eq!(
        reasons,
        [("/properties/p", SkipReason::BranchNotObject { branch: 0 })]
    );
}

/// Zod writes a root union with an id as a root `$ref` into `$defs` (`z.union([...]).meta({id})`):
/// the target of the root's `$ref` is the root of the tool schema, and a union of objects there is
/// joined without a discriminator like one written at the root (SPEC §6 decisions 23 and 70).
/// Found by the Zod world (`harness/worlds/zod/world.mjs`, seed 1, program 262).
#[test]
fn a_union_of_objects_behind_the_roots_ref_is_joined() {
    let union = json!({"anyOf": [
        {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"],
         "additionalProperties": false},
        {"type": "object", "properties": {"id": {"type": "number"}}, "required": ["id"],
         "additionalProperties": false}
    ]});
    let original = json!({"$ref": "#/$defs/SearchArgs", "$defs": {"SearchArgs": union.clone()}});
    let flat = sound(&original, &[json!({"query": "q"}), json!({"id": 3})]);
    let target = &flat.schema["$defs"]["SearchArgs"];
    assert!(is_one_object(target), "{:#}", flat.schema);
    assert_eq!(target["maxProperties"], 1);
    // Used anywhere else, the same union stays (nested, it needs a discriminator).
    let elsewhere = json!({"type": "object", "properties": {"args": {"$ref": "#/$defs/SearchArgs"}},
                           "$defs": {"SearchArgs": union}});
    let kept = sound(&elsewhere, &[json!({"args": {"query": "q"}})]);
    assert!(
        kept.diagnostics.flattened.is_empty(),
        "{:?}",
        kept.diagnostics
    );
}

#[test]
fn a_root_union_referenced_from_a_frozen_place_stays_in_either_scope() {
    // SPEC §6 decisions 37 and 70: the root reached by `$ref: "#"` from under `not` is frozen.
    // Joined, the root would accept `{"k": "b", "n": {}}` (the flat object declares `n`), so the
    // `not` below would reject the value that the original accepts.
    let branch_b = json!({"type": "object", "properties": {"k": {"const": "b"}},
                          "required": ["k"], "additionalProperties": false});
    let root = json!({"oneOf": [
        {"type": "object", "properties": {
            "k": {"const": "a"},
            "n": {"type": "object", "properties": {"m": {"not": {"$ref": "#"}}}}
        }, "required": ["k"], "additionalProperties": false},
        branch_b
    ]});
    let value = json!({"k": "a", "n": {"m": {"k": "b", "n": {}}}});
    for scope in [flatjoin::Scope::All, flatjoin::Scope::Root] {
        let options = Options::default().with_scope(scope);
        let out = flatten(&root, &options).expect("flattens");
        assert!(validator(&root).is_valid(&value));
        assert!(
            validator(&out.schema).is_valid(&value),
            "{scope:?}: {:#}",
            out.schema
        );
        assert!(out.schema.get("oneOf").is_some(), "{scope:?}");
        assert!(out.diagnostics.flattened.is_empty(), "{scope:?}");
        let reasons = skipped(&out);
        assert!(
            reasons.contains(&("", SkipReason::Frozen)),
            "{scope:?}: {reasons:?}"
        );
    }
    // Under a `oneOf` that stays (a nested one with no discriminator), the same; with the
    // reference in a place that is not frozen the root is joined.
    let mut kept = root.clone();
    kept["oneOf"][0]["properties"]["n"]["properties"]["m"] =
        json!({"oneOf": [{"$ref": "#"}, {"type": "string"}]});
    let out = flatten(&kept, &Options::default()).expect("flattens");
    assert!(out.schema.get("oneOf").is_some(), "{:#}", out.schema);
    let mut free = root.clone();
    free["oneOf"][0]["properties"]["n"]["properties"]["m"] = json!({"$ref": "#"});
    let out = flatten(&free, &Options::default()).expect("flattens");
    assert!(is_one_object(&out.schema), "{:#}", out.schema);
}

/// The root union's definitions are projected once for its branches and placed after the
/// projection (moved where no reference crosses a flattened union, copied where the repair may
/// read them again): either way each stands in the presentation projected, and each site is
/// recorded once.
#[test]
fn a_root_unions_definitions_stand_projected_whether_moved_or_copied() {
    let pet = |kind: &str| json!({"type": "object", "required": ["kind"], "properties": {"kind": {"const": kind}}});
    let command = |action: &str| {
        json!({"type": "object", "required": ["action"], "properties": {
            "action": {"const": action}, "next": {"$ref": "#/$defs/Go"}}})
    };
    // One site of the pet union (two would share one join, SPEC §6 decision 73).
    let mut go = command("go");
    go["properties"]["pet"] = json!({"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]});
    let moved = json!({
        "$defs": {"Go": go, "Stop": command("stop"), "Cat": pet("cat"), "Dog": pet("dog")},
        "oneOf": [{"$ref": "#/$defs/Go"}, {"$ref": "#/$defs/Stop"}]
    });
    // A reference into the root's `properties`, which the root's join rewrites: the repair
    // projects a copy of its target, so the definitions are copied, not moved.
    let mut copied = moved.clone();
    copied["properties"] = json!({"note": {"type": "string"}});
    copied["$defs"]["Stop"]["properties"]["note"] = json!({"$ref": "#/properties/note"});
    let values = [
        json!({"action": "go", "pet": {"kind": "cat"}, "next": {"action": "go"}}),
        json!({"action": "stop", "next": {"action": "go", "pet": {"kind": "dog"}}}),
    ];
    for doc in [&moved, &copied] {
        let flat = sound(doc, &values);
        let go = &flat.schema["$defs"]["Go"];
        assert!(is_one_object(go), "{:#}", flat.schema);
        assert!(
            is_one_object(&go["properties"]["pet"]),
            "the definition stands projected: {:#}",
            flat.schema
        );
        let mut pointers: Vec<&str> = flat
            .diagnostics
            .flattened
            .iter()
            .map(|s| s.pointer.as_str())
            .collect();
        let recorded = pointers.len();
        pointers.sort_unstable();
        pointers.dedup();
        assert_eq!(pointers.len(), recorded, "{:?}", flat.diagnostics.flattened);
        assert!(
            pointers.contains(&"/$defs/Go/properties/pet"),
            "{pointers:?}"
        );
    }
}
