//! Pinned cases, each named for what it guards.

use flatjoin::{OpenBranches, Options, flatten};
use serde_json::json;

use crate::oracle::validator;

/// zod-to-json-schema's default `$refStrategy: "root"` points a reused schema at its first
/// occurrence, inside a union branch (`#/anyOf/0/properties/options`). Flattening moves that
/// place; the reference must still resolve, to a schema at least as loose.
#[test]
fn zod_to_json_schema_ref_into_union_branch() {
    let original = json!({
        "anyOf": [
            {"type": "object", "properties": {"op": {"const": "a"}, "options": {"type": "object", "properties": {"force": {"type": "boolean"}}, "additionalProperties": false}}, "required": ["op"], "additionalProperties": false},
            {"type": "object", "properties": {"op": {"const": "b"}, "options": {"$ref": "#/anyOf/0/properties/options"}, "n": {"type": "integer"}}, "required": ["op"], "additionalProperties": false}
        ],
        "$schema": "http://json-schema.org/draft-07/schema#"
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let text = flat.schema.to_string();
    assert!(!text.contains("#/anyOf/0"), "{text}");
    let judge = validator(&flat.schema);
    assert!(judge.is_valid(&json!({"op": "b", "options": {"force": true}, "n": 1})));
    assert!(!judge.is_valid(&json!({"op": "b", "options": {"force": 1}})));
}

/// Up to draft-07 a `$ref` makes its siblings ignored: a sibling `required` or bound must not
/// narrow the presentation.
#[test]
fn draft07_ref_siblings_are_ignored() {
    let original = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"A": {"type": "object", "properties": {"t": {"const": "a"}, "s": {"type": "string"}}, "required": ["t"]}},
        "oneOf": [
            {"$ref": "#/definitions/A", "required": ["s"]},
            {"type": "object", "properties": {"t": {"const": "b"}, "s": {"$ref": "#/definitions/S", "maxLength": 1}}, "required": ["t", "s"]}
        ]
    });
    let mut original = original;
    original["definitions"]["S"] = json!({"type": "string"});
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let judge_original = validator(&original);
    let judge = validator(&flat.schema);
    for v in [json!({"t": "a"}), json!({"t": "b", "s": "long string"})] {
        assert!(judge_original.is_valid(&v), "{v}");
        assert!(judge.is_valid(&v), "{v}: {:#}", flat.schema);
    }
}

/// Pydantic's branch definitions are no longer referenced once the root union is flattened: they
/// are pruned, while definitions still in use stay.
#[test]
fn pydantic_branch_defs_are_pruned() {
    let original =
        crate::oracle::read(&crate::oracle::corpus_dir().join("dialects/pydantic/shape.json"));
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let defs = flat.schema["$defs"].as_object().expect("defs stay");
    let mut names: Vec<&str> = defs.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["Point", "Primary"]);
}

/// `unevaluatedProperties` in an enclosing schema: the flat object must keep evaluating what the
/// branches evaluated (SPEC §2.5).
#[test]
fn unevaluated_properties_enclosing() {
    let original = json!({
        "allOf": [{"$ref": "#/$defs/U"}],
        "unevaluatedProperties": false,
        "$defs": {"U": {"oneOf": [
            {"type": "object", "properties": {"k": {"const": 1}}, "required": ["k"], "patternProperties": {"^x": {"type": "string"}}},
            {"type": "object", "properties": {"k": {"const": 2}, "y": {"type": "integer"}}, "required": ["k"]}
        ]}}
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    assert_eq!(flat.schema["$defs"]["U"]["additionalProperties"], true);
    let v = json!({"k": 1, "xa": "s"});
    assert!(validator(&original).is_valid(&v));
    assert!(validator(&flat.schema).is_valid(&v), "{:#}", flat.schema);
}

/// corpus/regressions/dialect-invariance-2dcb6409.json: Pydantic writes `discriminator` beside a
/// nested union; under scope `root` that union stays a `oneOf` wrapper, and the wrapper must still
/// be replaced by its members (SPEC §3.3) as the Zod rendering's is, since `discriminator`
/// asserts nothing.
#[test]
fn discriminator_beside_nested_wrapper_still_unwraps() {
    let member = |tag: &str| json!({"type": "object", "properties": {"kind": {"const": tag}}, "required": ["kind"], "additionalProperties": false});
    let zod = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "value": {"type": "string"}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"const": "b"}, "value": {"oneOf": [member("x"), member("y")]}}, "required": ["kind"]}
    ]});
    let mut pydantic = zod.clone();
    pydantic["oneOf"][1]["properties"]["value"]["discriminator"] = json!({"propertyName": "kind"});
    pydantic["oneOf"][1]["properties"]["value"]["title"] = json!("Value");
    let options = Options::default().with_scope(flatjoin::Scope::Root);
    let a = flatten(&zod, &options).expect("flattens").schema;
    let b = flatten(&pydantic, &options).expect("flattens").schema;
    assert_eq!(
        a["properties"]["value"]["anyOf"].as_array().map(Vec::len),
        Some(3),
        "{a:#}"
    );
    assert_eq!(
        a["properties"]["value"]["anyOf"],
        b["properties"]["value"]["anyOf"]
    );
}

/// corpus/regressions/runtime-boundary-unevaluated.json: a wrong-branch mix rejected only by the
/// union node's `unevaluatedProperties` still gets an error naming the selected branch.
#[test]
fn runtime_names_branch_when_only_the_union_node_rejects() {
    let original = json!({"unevaluatedProperties": false, "oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"]}
    ]});
    let runtime = flatjoin::Runtime::new(&original).expect("compiles");
    let mix = json!({"kind": "b", "x": 0});
    assert!(!validator(&original).is_valid(&mix));
    let flat = flatten(&original, &Options::default()).expect("flattens");
    assert!(
        validator(&flat.schema).is_valid(&mix),
        "the presentation accepts the mix"
    );
    let err = runtime.validate(&mix).expect_err("the runtime rejects it");
    assert_eq!(err.branch.as_deref(), Some("kind \"b\""));
    assert!(err.to_string().starts_with("kind \"b\": "), "{err}");
}

/// A definition the join hoists (`flatjoin_ref_N`) must not overwrite an author's `$defs` entry
/// of the same name: values that use the author's definition stay accepted (SPEC §6 decision 3).
#[test]
fn hoisted_name_does_not_overwrite_author_def() {
    let original = json!({
        "$defs": {"flatjoin_ref_1": {"type": "string"}},
        "type": "object",
        "properties": {
            "shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
            ]},
            "again": {"$ref": "#/properties/shape/oneOf/0/properties/n"},
            "label": {"$ref": "#/$defs/flatjoin_ref_1"}
        }
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let judge_original = validator(&original);
    let judge = validator(&flat.schema);
    for v in [
        json!({"label": "text", "again": 3}),
        json!({"shape": {"kind": "a", "n": 1}, "label": "x"}),
    ] {
        assert!(judge_original.is_valid(&v), "{v}");
        assert!(judge.is_valid(&v), "{v}: {:#}", flat.schema);
    }
    assert_eq!(
        flat.schema["$defs"]["flatjoin_ref_1"],
        json!({"type": "string"})
    );
}

/// A `#/…` reference inside an embedded resource (`$id`) resolves against that resource, and an
/// `$anchor` reference is followed: the schema is flattened, not refused (SPEC §6 decision 15).
#[test]
fn embedded_resource_and_anchor_refs_resolve() {
    let original = json!({
        "$id": "http://example.com/root.json",
        "type": "object",
        "properties": {
            "item": {
                "$id": "item.json",
                "$defs": {"n": {"type": "integer"}, "s": {"$anchor": "text", "type": "string"}},
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"$ref": "#/$defs/n"}}, "required": ["kind"]},
                    {"type": "object", "properties": {"kind": {"const": "b"}, "s": {"$ref": "#text"}}, "required": ["kind"]}
                ]
            }
        }
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    assert_eq!(
        flat.diagnostics.flattened.len(),
        1,
        "{:?}",
        flat.diagnostics
    );
    let judge_original = validator(&original);
    let judge = validator(&flat.schema);
    for v in [
        json!({"item": {"kind": "a", "n": 1}}),
        json!({"item": {"kind": "b", "s": "x"}}),
    ] {
        assert!(judge_original.is_valid(&v), "{v}");
        assert!(judge.is_valid(&v), "{v}: {:#}", flat.schema);
    }
    // The presentation keeps what the references mean: a string is not an `n`.
    assert!(!judge.is_valid(&json!({"item": {"kind": "a", "n": "x"}})));
    let runtime = flatjoin::Runtime::new(&original).expect("the runtime compiles it too");
    assert!(runtime.is_valid(&json!({"item": {"kind": "b", "s": "x"}})));
}

/// A `$dynamicRef` where a union would need it is refused with an error naming its pointer.
#[test]
fn dynamic_ref_is_refused_with_its_pointer() {
    let original = json!({
        "$id": "http://example.com/list.json",
        "$dynamicAnchor": "item",
        "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "items": {"type": "array", "items": {"$dynamicRef": "#item"}}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ]
    });
    let err = flatten(&original, &Options::default()).expect_err("refused");
    assert_eq!(err.pointer, "/oneOf/0/properties/items/items/$dynamicRef");
    assert!(
        matches!(err.kind, flatjoin::ErrorKind::UnsupportedRef { .. }),
        "{err}"
    );
}

/// `Runtime` follows the declared draft: under 2020-12 `format` is an annotation (the verdict of
/// plain validation); asserting formats is an explicit option (SPEC §6 decision 13).
#[test]
fn runtime_format_follows_the_draft_unless_asserted() {
    let original = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "format": "email"});
    let plain = jsonschema::validator_for(&original).expect("compiles");
    let runtime = flatjoin::Runtime::new(&original).expect("compiles");
    let bad = json!("not an email");
    assert_eq!(runtime.is_valid(&bad), plain.is_valid(&bad));
    assert!(runtime.is_valid(&bad));
    let asserting = flatjoin::Runtime::with_options(
        &original,
        &flatjoin::RuntimeOptions {
            assert_formats: true,
            ..flatjoin::RuntimeOptions::default()
        },
    )
    .expect("compiles");
    assert!(!asserting.is_valid(&bad));
    assert!(asserting.is_valid(&json!("a@example.com")));
    // Draft-07 asserts formats by default (as jsonschema reads it).
    let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "email"});
    assert!(
        !flatjoin::Runtime::new(&draft7)
            .expect("compiles")
            .is_valid(&bad)
    );
}

/// corpus/regressions/closedness-beside-allof.json: a branch whose own `unevaluatedProperties:
/// false` sits beside an `allOf` member that evaluates more (`unevaluatedProperties: true`, a
/// typed one, or either in a nested `allOf`) is open; the flat object must stay open (SPEC §6
/// decision 25).
#[test]
fn closedness_beside_all_of_that_evaluates_more() {
    for member in [
        json!({"unevaluatedProperties": true}),
        json!({"unevaluatedProperties": {"type": ["integer", "string"]}}),
        json!({"allOf": [{"unevaluatedProperties": true}]}),
    ] {
        let original = json!({"anyOf": [
            {"type": "object", "properties": {"op": {"const": "a"}}, "required": ["op"], "unevaluatedProperties": false, "allOf": [member]},
            {"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"], "unevaluatedProperties": false}
        ]});
        let value = json!({"op": "a", "extra": 1});
        assert!(validator(&original).is_valid(&value), "{member}");
        for reading in [OpenBranches::Declared, OpenBranches::Permissive] {
            let options = Options::default().with_open_branches(reading);
            let flat = flatten(&original, &options).expect("flattens").schema;
            assert_ne!(
                flat.get("additionalProperties"),
                Some(&json!(false)),
                "{flat}"
            );
            assert!(validator(&flat).is_valid(&value), "{member}: {flat}");
        }
    }
    // Without the evaluating member the branches are closed, and so is the flat object.
    let closed = json!({"anyOf": [
        {"type": "object", "properties": {"op": {"const": "a"}}, "required": ["op"], "unevaluatedProperties": false, "allOf": [{"properties": {"q": {}}}]},
        {"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"], "unevaluatedProperties": false}
    ]});
    let flat = flatten(&closed, &Options::default())
        .expect("flattens")
        .schema;
    assert_eq!(flat["additionalProperties"], json!(false), "{flat}");
}

/// corpus/regressions/empty-kinds-allof-joins-to-valid-schema.json: a property definition that
/// accepts nothing (`allOf: [false]`, `[true, false]`, `[{}, false]`, contradictory members)
/// never joins to `"type": []`; it is removed like `false` (SPEC §6 decision 24).
#[test]
fn empty_kinds_alternatives_never_join_to_an_empty_type_list() {
    for nothing in [
        json!({"allOf": [false]}),
        json!({"allOf": [true, false]}),
        json!({"allOf": [{}, false]}),
        json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
    ] {
        for other in [None, Some(json!({"type": "string", "maxLength": 3}))] {
            let mut first = json!({"type": "object", "properties": {"kind": {"const": 0}}, "required": ["kind"]});
            if let Some(o) = &other {
                first["properties"]["p"] = o.clone();
            }
            let original = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "anyOf": [
                first,
                {"type": "object", "properties": {"kind": {"const": 1}, "p": nothing}, "required": ["kind"]}
            ]});
            let flat = flatten(&original, &Options::default())
                .expect("flattens")
                .schema;
            assert!(
                jsonschema::meta::is_valid(&flat),
                "{nothing} beside {other:?}: {flat}"
            );
            let p = &flat["properties"]["p"];
            match &other {
                // Only the definition that accepts something is left.
                Some(_) => {
                    assert_eq!(p["type"], json!("string"), "{flat}");
                    assert_eq!(p["maxLength"], json!(3), "{flat}");
                }
                None => assert_eq!(p, &json!(false), "{flat}"),
            }
            assert!(validator(&flat).is_valid(&json!({"kind": 1})));
        }
    }
}

/// corpus/regressions/literal-set-ref-cycle-through-allof.json: looking for a discriminator
/// follows a property through an `allOf` member that references the property itself; that
/// cycle must end (it overflowed the stack).
#[test]
fn literal_set_ends_on_a_reference_cycle_through_all_of() {
    let original = json!({"oneOf": [
        {"type": "object", "properties": {"op": {"const": "a"}, "p": {"allOf": [{"$ref": "#/oneOf/0/properties/p"}, {"type": "string"}]}}, "required": ["op"]},
        {"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"]}
    ]});
    let flat = flatten(&original, &Options::default())
        .expect("flattens")
        .schema;
    assert_eq!(
        flat["properties"]["op"]["enum"],
        json!(["a", "b"]),
        "{flat}"
    );
    assert!(validator(&flat).is_valid(&json!({"op": "a", "p": "s"})));
}

/// Every union site left as it is is named with its reason (SPEC §2.9, §6 decision 70), not
/// only near misses: a union with a non-object member (directly or behind a `$ref`), a nullable
/// wrapper (`type: "null"`, `const: null` or `enum: [null]` beside one member) and a union of
/// scalars all carry `branch-not-object` with the first such member. A `oneOf` with one member
/// is no union site.
#[test]
fn every_union_site_left_is_named_with_its_reason() {
    let literal_object = json!({"type": "object", "properties": {"kind": {"const": "a"}},
                                "required": ["kind"]});
    let under_p = |union: serde_json::Value| {
        json!({"type": "object", "properties": {"p": union},
               "$defs": {"o": literal_object.clone()}})
    };
    for (union, branch) in [
        (
            json!({"anyOf": [literal_object.clone(), {"type": "string"}]}),
            Some(1),
        ),
        (
            json!({"anyOf": [{"$ref": "#/$defs/o"}, {"type": "string"}]}),
            Some(1),
        ),
        (
            json!({"anyOf": [literal_object.clone(), {"type": "null"}]}),
            Some(1),
        ),
        (
            json!({"anyOf": [literal_object.clone(), {"const": null}]}),
            Some(1),
        ),
        (
            json!({"anyOf": [{"enum": [null]}, literal_object.clone()]}),
            Some(0),
        ),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            Some(0),
        ),
        (json!({"anyOf": [literal_object.clone()]}), None),
    ] {
        let flat = flatten(&under_p(union.clone()), &Options::default()).expect("flattens");
        // The owned path (which moves instead of copying where there is no `$ref`) records the
        // same.
        let owned =
            flatjoin::flatten_owned(under_p(union.clone()), &Options::default()).expect("flattens");
        assert_eq!(owned.diagnostics, flat.diagnostics, "{union}");
        let skipped: Vec<(&str, flatjoin::SkipReason)> = flat
            .diagnostics
            .skipped
            .iter()
            .map(|s| (s.pointer.as_str(), s.reason.clone()))
            .collect();
        match branch {
            Some(branch) => {
                assert_eq!(
                    skipped,
                    [(
                        "/properties/p",
                        flatjoin::SkipReason::BranchNotObject { branch }
                    )],
                    "{union}"
                );
                assert_eq!(skipped[0].1.code(), "branch-not-object");
            }
            None => assert!(skipped.is_empty(), "{union}: {skipped:?}"),
        }
    }
}

/// A branch closed by `additionalProperties: false` or `unevaluatedProperties: false` stays open
/// for the keys another keyword of it evaluates: `patternProperties` beside
/// `additionalProperties`, an `anyOf`/`oneOf` inside an `allOf` member beside
/// `unevaluatedProperties`. The presentation must accept those values (judged by `jsonschema`).
#[test]
fn keys_other_keywords_evaluate_keep_a_closed_branch_open() {
    let other = json!({"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"],
                       "additionalProperties": false});
    for (branch, value) in [
        (
            json!({"type": "object", "properties": {"op": {"const": "a"}}, "required": ["op"],
                   "additionalProperties": false, "patternProperties": {"^x-": {"type": "integer"}}}),
            json!({"op": "a", "x-n": 1}),
        ),
        (
            json!({"type": "object", "properties": {"op": {"const": "a"}}, "required": ["op"],
                   "unevaluatedProperties": false,
                   "allOf": [{"anyOf": [{"properties": {"extra": {"type": "integer"}}}]}]}),
            json!({"op": "a", "extra": 1}),
        ),
        (
            json!({"type": "object", "properties": {"op": {"const": "a"}}, "required": ["op"],
                   "unevaluatedProperties": false,
                   "allOf": [{"oneOf": [{"properties": {"extra": {"type": "integer"}}}]}]}),
            json!({"op": "a", "extra": 1}),
        ),
    ] {
        let original = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                              "oneOf": [branch, other]});
        assert!(
            validator(&original).is_valid(&value),
            "{original} accepts {value}"
        );
        for open_branches in [OpenBranches::Declared, OpenBranches::Permissive] {
            let options = Options::default().with_open_branches(open_branches);
            let flat = flatten(&original, &options).expect("flattens");
            assert!(
                validator(&flat.schema).is_valid(&value),
                "{original} → {} must accept {value}",
                flat.schema
            );
        }
    }
}

/// A reference into a flattened branch is hoisted into the document's definitions container:
/// the one it already has, else `definitions` up to draft-07 and `$defs` from 2019-09 on, under
/// a fresh `flatjoin_ref_N` name (SPEC §6). (Mutants of `container_name` and `Names::fresh`
/// survived every test before this one.) `options` refers to another property than itself: a
/// reference to its own inline definition is that definition, one alternative, and nothing is
/// hoisted (SPEC §6 decision 88).
#[test]
fn hoisted_definitions_go_where_the_draft_keeps_them() {
    let branches = json!([
        {"type": "object", "properties": {"op": {"const": "a"}, "options": {"type": "string"},
         "settings": {"type": "object", "properties": {"force": {"type": "boolean"}},
         "additionalProperties": false}},
         "required": ["op"], "additionalProperties": false},
        {"type": "object", "properties": {"op": {"const": "b"},
         "options": {"$ref": "#/anyOf/0/properties/settings"}}, "required": ["op"],
         "additionalProperties": false}
    ]);
    for (schema, existing, container) in [
        (
            "http://json-schema.org/draft-07/schema#",
            None,
            "definitions",
        ),
        (
            "https://json-schema.org/draft/2020-12/schema",
            None,
            "$defs",
        ),
        (
            "http://json-schema.org/draft-07/schema#",
            Some("$defs"),
            "$defs",
        ),
        (
            "https://json-schema.org/draft/2020-12/schema",
            Some("definitions"),
            "definitions",
        ),
    ] {
        let mut original = json!({"$schema": schema, "anyOf": branches});
        if let Some(name) = existing {
            original[name] = json!({"Mine": {"type": "string"}});
        }
        let flat = flatten(&original, &Options::default()).expect("flattens");
        let hoisted = &flat.schema[container]["flatjoin_ref_1"];
        assert!(
            hoisted.is_object(),
            "{schema} {existing:?}: {}",
            flat.schema
        );
        assert_eq!(
            flat.schema["properties"]["options"]["anyOf"]
                .as_array()
                .map(|alts| alts
                    .iter()
                    .any(|a| a["$ref"] == format!("#/{container}/flatjoin_ref_1"))),
            Some(true),
            "{}",
            flat.schema
        );
        let judge = validator(&flat.schema);
        assert!(judge.is_valid(&json!({"op": "b", "options": {"force": true}})));
        assert!(!judge.is_valid(&json!({"op": "b", "options": {"force": 1}})));
    }
}

/// Up to draft-07 a bound beside `$ref` is ignored, so it must not survive scalar widening either:
/// every alternative here has a `maxLength`, but the one beside `$ref` does not bind, and the
/// original accepts any string for that branch. (A mutant that kept it survived every test before
/// this one.)
#[test]
fn draft07_ref_sibling_bounds_do_not_survive_widening() {
    let original = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"S": {"type": "string"}},
        "oneOf": [
            {"type": "object", "properties": {"t": {"const": "a"},
             "s": {"$ref": "#/definitions/S", "maxLength": 1}}, "required": ["t"]},
            {"type": "object", "properties": {"t": {"const": "b"},
             "s": {"type": "string", "maxLength": 2}}, "required": ["t"]}
        ]
    });
    let value = json!({"t": "a", "s": "longer than both"});
    assert!(validator(&original).is_valid(&value));
    let flat = flatten(&original, &Options::default()).expect("flattens");
    assert!(validator(&flat.schema).is_valid(&value), "{}", flat.schema);
}

/// Under the permissive reading, a key one branch declares is, in every other open branch, what
/// that branch's catch-all says (SPEC §2.8): its typed `additionalProperties`, nothing where a
/// `patternProperties`-only branch forbids it, anything where nothing constrains it. (Mutants of
/// `undeclared` in `project.rs` survived every test before this one.)
#[test]
fn permissive_reading_takes_each_branchs_catch_all() {
    let declares_x = json!({"type": "object", "properties": {"op": {"const": "a"},
                            "x": {"type": "string"}}, "required": ["op"]});
    let typed = json!({"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"],
                       "additionalProperties": {"type": "integer"}});
    let patterned = json!({"type": "object", "properties": {"op": {"const": "b"}},
                           "required": ["op"], "additionalProperties": false,
                           "patternProperties": {"^y": {}}});
    let open = json!({"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"]});
    let permissive = Options::default().with_open_branches(OpenBranches::Permissive);
    for (other, accepted, rejected) in [
        (typed, vec![json!("s"), json!(1)], vec![json!(true)]),
        (patterned, vec![json!("s")], vec![json!(1)]),
        (open, vec![json!("s"), json!(1), json!(true)], vec![]),
    ] {
        let original = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                              "oneOf": [declares_x.clone(), other]});
        let flat = flatten(&original, &permissive).expect("flattens");
        assert!(
            jsonschema::meta::is_valid(&flat.schema),
            "not a valid schema: {}",
            flat.schema
        );
        let judge = validator(&flat.schema);
        for x in accepted {
            let value = json!({"op": "b", "x": x});
            assert!(
                judge.is_valid(&value),
                "{} must accept {value}",
                flat.schema
            );
        }
        for x in rejected {
            let value = json!({"op": "b", "x": x});
            assert!(
                !judge.is_valid(&value),
                "{} must reject {value}",
                flat.schema
            );
        }
    }
}

/// Only a pure `anyOf`/`oneOf` wrapper is replaced by its members (SPEC §3.3): beside an
/// assertion (`minLength`) the wrapper is one alternative, and its bound binds the widened
/// property. (A mutant that expanded it anyway survived every test before this one.)
#[test]
fn a_wrapper_beside_an_assertion_is_not_expanded() {
    let original = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "oneOf": [
            {"type": "object", "properties": {"op": {"const": "a"},
             "p": {"anyOf": [{"type": "string"}, {"type": "integer"}], "minLength": 3}},
             "required": ["op"]},
            {"type": "object", "properties": {"op": {"const": "b"}, "p": {"type": "boolean"}},
             "required": ["op"]}
        ]
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let judge = validator(&flat.schema);
    for p in [json!("abc"), json!(7), json!(true)] {
        assert!(
            judge.is_valid(&json!({"op": "a", "p": p})),
            "{}",
            flat.schema
        );
    }
    assert!(
        !judge.is_valid(&json!({"op": "a", "p": "ab"})),
        "minLength binds every string alternative: {}",
        flat.schema
    );
}

/// What a union that is not a discriminated union reports (SPEC §1), for the rules surviving
/// mutants of `identify.rs` showed untested: a branch that is `false` through `allOf` is not an
/// object schema; object or array literals are no discriminator; among several failing
/// candidates the one that got furthest through the rules is the reason given.
#[test]
fn skip_reasons_name_the_rule_that_failed() {
    use flatjoin::SkipReason;
    // Nested, where a union of objects must be a DU to be flattened (SPEC §2.9).
    let skipped = |union: serde_json::Value| {
        let original = json!({"type": "object", "properties": {"p": union}});
        let flat = flatten(&original, &Options::default()).expect("flattens");
        assert!(
            flat.diagnostics.flattened.is_empty(),
            "{original} was flattened"
        );
        flat.diagnostics.skipped.first().map(|s| s.reason.clone())
    };
    let branch = |op: serde_json::Value| json!({"type": "object", "properties": {"op": {"const": op}}, "required": ["op"]});
    // A branch that accepts nothing: its `false` part fails the object check.
    let mut nothing = branch(json!("b"));
    nothing["allOf"] = json!([false]);
    assert!(matches!(
        skipped(json!({"oneOf": [branch(json!("a")), nothing]})),
        Some(SkipReason::BranchNotObject { branch: 1 })
    ));
    // Object and array literals are not a discriminator's literal set: not flattened.
    for (a, b) in [(json!({"k": 1}), json!({"k": 2})), (json!([1]), json!([2]))] {
        assert_eq!(
            skipped(json!({"oneOf": [branch(a.clone()), branch(b.clone())]})),
            Some(SkipReason::NoDiscriminator)
        );
    }
    // `op` is not required in branch 1 (rule 3 relaxed, SPEC §2.9), `mode` fails rule 4
    // (overlapping literals): the union is a DU on `op`, whichever candidate comes first, and
    // `op` is not required by the flat object.
    for (first, second) in [("op", "mode"), ("mode", "op")] {
        let make = |op: &str, mode: &str, required: serde_json::Value| {
            let mut props = serde_json::Map::new();
            props.insert(first.to_owned(), json!({}));
            props.insert(second.to_owned(), json!({}));
            props.insert("op".into(), json!({"const": op}));
            props.insert("mode".into(), json!({"const": mode}));
            json!({"type": "object", "properties": props, "required": required})
        };
        let flat = flatten(
            &json!({"oneOf": [
                make("a", "m", json!(["op", "mode"])),
                make("b", "m", json!(["mode"]))
            ]}),
            &Options::default(),
        )
        .expect("flattens");
        assert_eq!(
            flat.diagnostics
                .flattened
                .first()
                .map(|s| s.discriminator.as_deref().unwrap_or_default()),
            Some("op"),
            "{first} first"
        );
        assert_eq!(flat.schema["required"], json!(["mode"]), "{first} first");
    }
}

/// A `$ref` into a union node's sibling `properties` must not dangle: the flat object rebuilds
/// `properties` (here `p0` joins to `false`, losing its `$defs`), so the target is hoisted as
/// targets inside the branches are (SPEC §6 decision 3). Found by the open-world generator
/// (`corpus/regressions/ref-into-union-sibling-properties.json`).
#[test]
fn ref_into_union_sibling_properties_is_hoisted() {
    let original = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "p1": {"type": "array", "contains": {"allOf": [{"$ref": "#/properties/p0/$defs/inner"}]}}}, "required": ["kind"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"], "additionalProperties": false}
        ],
        "properties": {"p0": {"$defs": {"inner": {"type": "string"}}, "allOf": [false]}}
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let judge = validator(&flat.schema);
    assert!(judge.is_valid(&json!({"kind": "a", "p1": ["s", 1]})));
    assert!(!judge.is_valid(&json!({"kind": "a", "p1": [1]})));
}

/// Definitions the original never referenced stay (SPEC §6 decision 4), so what they reference
/// stays too, even when nothing else reaches it any more.
#[test]
fn kept_definitions_keep_what_they_reference() {
    let original = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"$ref": "#/$defs/used"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "x": {"type": "integer"}}, "required": ["kind"]}
        ],
        "$defs": {
            "kept": {"$ref": "#/$defs/used"},
            "used": {"type": "string"}
        }
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let defs = &flat.schema["$defs"];
    assert!(defs.get("kept").is_some(), "{}", flat.schema);
    assert!(defs.get("used").is_some(), "{}", flat.schema);
    validator(&flat.schema);
}

/// A discriminated union under `not`, or under a member of a `oneOf` that stays, is left as it
/// is: flattening it would make the document stricter (SPEC §6 decision 37). Found by the
/// `draft-forms` oracle (`corpus/regressions/frozen-nested-union-under-one-of-that-stays.json`).
#[test]
fn unions_where_looser_is_stricter_are_left_as_they_are() {
    let du = json!({"oneOf": [
        {"type": "object", "properties": {"k": {"const": "a"}, "s": {"type": "string"}}, "required": ["k", "s"]},
        {"type": "object", "properties": {"k": {"const": "b"}, "s": {"type": "integer"}}, "required": ["k", "s"]}
    ]});
    let value = json!({"k": "a", "s": 1});
    let under_not = json!({"type": "object", "properties": {"x": {"not": du.clone()}}});
    // Nested: a root union of objects is joined (SPEC §2.9), so its members are not frozen.
    let under_one_of = json!({"type": "object", "properties": {"y": {"oneOf": [
        {"type": "object", "properties": {"x": du}},
        {"type": "object", "properties": {"x": {"type": "object", "properties": {"s": {"type": "integer"}}}}}
    ]}}});
    for (original, v) in [
        (under_not, json!({"x": value.clone()})),
        (under_one_of, json!({"y": {"x": value.clone()}})),
    ] {
        assert!(validator(&original).is_valid(&v), "{original}");
        let flat = flatten(&original, &Options::default()).expect("flattens");
        assert!(validator(&flat.schema).is_valid(&v), "{}", flat.schema);
        assert!(
            flat.diagnostics.flattened.is_empty(),
            "{:?}",
            flat.diagnostics
        );
        assert!(
            flat.diagnostics
                .skipped
                .iter()
                .any(|s| s.reason == flatjoin::SkipReason::Frozen),
            "{:?}",
            flat.diagnostics
        );
    }
}

/// Two different schema resources under one `$id` (SPEC §6 decision 67): which one a reference
/// means is undefined (`referencing` and boon picked differently; found by `reports/soak.sh`,
/// seeds 7 and 8), so the document is refused at one of the two declarations, and a copy of the same
/// resource is not refused. Draft-04's `then` is data there: an `id` inside it declares nothing
/// (decision 66), and a reference to that URI means the resource in a schema position.
#[test]
fn two_different_resources_under_one_uri_are_refused() {
    let resource = |inner: serde_json::Value| json!({"$id": "https://example.invalid/r", "$defs": {"inner": inner}, "allOf": [{"$ref": "#/$defs/inner"}]});
    let document = |second: serde_json::Value| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "p": resource(json!({"type": "string"}))}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}, "q": second}, "required": ["kind"]}
            ]
        })
    };
    let err = flatten(&document(resource(json!(false))), &Options::default())
        .expect_err("two different resources under one URI");
    assert!(
        ["/oneOf/0/properties/p/$id", "/oneOf/1/properties/q/$id"].contains(&err.pointer.as_str()),
        "{err}"
    );
    assert!(
        err.to_string().contains("https://example.invalid/r"),
        "{err}"
    );
    flatten(
        &document(resource(json!({"type": "string"}))),
        &Options::default(),
    )
    .expect("the same resource twice is no ambiguity");
    let draft04 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "oneOf": [
            {"type": "object", "properties": {"kind": {"enum": ["a"]}, "p": {"$ref": "https://example.invalid/r#/definitions/inner"}, "r": {"id": "https://example.invalid/r", "definitions": {"inner": {"type": "string"}}}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"enum": ["b"]}}, "required": ["kind"], "then": {"id": "https://example.invalid/r", "definitions": {"inner": {"type": "integer"}}}}
        ]
    });
    let flat = flatten(&draft04, &Options::default()).expect("then is data in draft-04");
    let judge = validator(&flat.schema);
    assert!(
        judge.is_valid(&json!({"kind": "a", "p": "text"})),
        "{}",
        flat.schema
    );
    assert!(
        !judge.is_valid(&json!({"kind": "a", "p": 1})),
        "{}",
        flat.schema
    );
}

/// SPEC §6 decision 73: Pydantic writes one union field as the same `oneOf` of `$ref`s at every
/// use. The join is written once, as `flatjoin_union_1`, and each use refers to it with its own
/// title; before the decision every use held its own copy of the join (the no-blow-up oracle's
/// Pydantic form of a repeated union found it). Each use still accepts what its original
/// accepted (judged by `jsonschema`), the models' definitions are pruned, the diagnostics name
/// the definition at every site, and the member order of a site does not matter.
#[test]
fn repeated_pydantic_union_is_joined_once() {
    let union = |order: [&str; 2]| {
        json!({"oneOf": [{"$ref": format!("#/$defs/{}", order[0])}, {"$ref": format!("#/$defs/{}", order[1])}],
               "discriminator": {"propertyName": "pet_type",
                                 "mapping": {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}}})
    };
    let mut with_title = union(["Cat", "Dog"]);
    with_title["title"] = json!("A");
    let original = json!({
        "$defs": {
            "Cat": {"type": "object", "title": "Cat", "properties": {
                "pet_type": {"const": "cat", "type": "string"}, "meows": {"type": "integer"},
                "name": {"type": "string"}}, "required": ["pet_type", "meows"]},
            "Dog": {"type": "object", "title": "Dog", "properties": {
                "pet_type": {"const": "dog", "type": "string"}, "barks": {"type": "number"},
                "name": {"type": "string", "maxLength": 9}}, "required": ["pet_type", "barks"]}
        },
        "type": "object",
        "properties": {
            "a": with_title,
            "b": union(["Cat", "Dog"]),
            "c": {"type": "array", "items": union(["Dog", "Cat"])},
            "d": {"anyOf": [union(["Cat", "Dog"]), {"type": "null"}], "default": null}
        },
        "required": ["a"]
    });
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let schema = &flat.schema;
    let reference = json!("#/$defs/flatjoin_union_1");
    assert_eq!(schema["properties"]["a"]["$ref"], reference, "{schema:#}");
    assert_eq!(schema["properties"]["a"]["title"], "A");
    assert_eq!(schema["properties"]["b"]["$ref"], reference);
    assert_eq!(schema["properties"]["c"]["items"]["$ref"], reference);
    assert_eq!(schema["properties"]["d"]["anyOf"][0]["$ref"], reference);
    let defs = schema["$defs"].as_object().expect("the shared join");
    assert_eq!(defs.keys().collect::<Vec<_>>(), ["flatjoin_union_1"]);
    assert_eq!(defs["flatjoin_union_1"]["type"], "object");
    assert!(!schema.to_string().contains("flatjoin-shared"), "{schema}");
    let shared: Vec<Option<&str>> = flat
        .diagnostics
        .flattened
        .iter()
        .map(|s| s.shared.as_deref())
        .collect();
    assert_eq!(shared, vec![Some("#/$defs/flatjoin_union_1"); 4]);
    let judge_original = validator(&original);
    let judge = validator(schema);
    let cat = json!({"pet_type": "cat", "meows": 3, "name": "Tom"});
    let dog = json!({"pet_type": "dog", "barks": 1.5});
    for v in [
        json!({"a": cat, "b": dog, "c": [cat, dog], "d": null}),
        json!({"a": dog, "c": [], "d": cat}),
    ] {
        assert!(judge_original.is_valid(&v), "{v}");
        assert!(judge.is_valid(&v), "{v}: {schema:#}");
    }
    assert!(!judge.is_valid(&json!({"a": {"pet_type": "cat", "meows": "x"}})));
}

/// SPEC §6 decision 73: a union written inline (no `$ref` branch) at two sites is not shared:
/// its sites cost the input what their joins cost the presentation.
#[test]
fn repeated_inline_union_is_not_shared() {
    let union = json!({"oneOf": [
        {"type": "object", "properties": {"k": {"const": "a"}, "x": {"type": "string"}}, "required": ["k"]},
        {"type": "object", "properties": {"k": {"const": "b"}, "y": {"type": "integer"}}, "required": ["k"]}
    ]});
    let original = json!({"$defs": {"N": {"type": "null"}}, "type": "object",
                          "properties": {"a": union, "b": union, "n": {"$ref": "#/$defs/N"}}});
    let flat = flatten(&original, &Options::default()).expect("flattens");
    assert_eq!(
        flat.schema["properties"]["a"]["type"], "object",
        "{:#}",
        flat.schema
    );
    assert_eq!(
        flat.schema["properties"]["a"],
        flat.schema["properties"]["b"]
    );
    assert!(
        flat.diagnostics
            .flattened
            .iter()
            .all(|s| s.shared.is_none())
    );
}
