//! SPEC §4 guarantees that can be checked by example: determinism, dedup idempotence, dialect
//! invariance, scope, the two readings of open branches, and the runtime boundary.

use flatjoin::{OpenBranches, Options, Runtime, Scope, dedup, flatten, flatten_owned};
use serde_json::{Value, json};

use crate::oracle::{corpus_dir, files, read, validator};

#[test]
fn deterministic_and_owned_equals_borrowed() {
    for path in files("dialects") {
        let original = read(&path);
        let a = flatten(&original, &Options::default()).expect("flattens");
        let b = flatten(&original, &Options::default()).expect("flattens");
        let c = flatten_owned(original.clone(), &Options::default()).expect("flattens");
        let text = |v: &Value| serde_json::to_string(v).expect("serializes");
        assert_eq!(text(&a.schema), text(&b.schema), "{}", path.display());
        assert_eq!(text(&a.schema), text(&c.schema), "{}", path.display());
    }
}

#[test]
fn dedup_is_idempotent_on_joined_alternatives() {
    for path in files("dialects") {
        let flat = flatten(&read(&path), &Options::default()).expect("flattens");
        let mut stack = vec![&flat.schema];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Array(alts)) = m.get("anyOf") {
                        let once = dedup(alts.clone());
                        assert_eq!(dedup(once.clone()), once);
                    }
                    stack.extend(m.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
    }
}

/// The same union rendered by different emitters gives equal presentations (key order and
/// `$schema` aside) whenever the originals say the same thing up to `oneOf`/`anyOf`, key order and
/// `$schema`.
#[test]
fn dialect_invariance_zod_family() {
    fn normalize(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(k, _)| k.as_str() != "$schema")
                    .map(|(k, v)| {
                        (
                            if k == "anyOf" {
                                "oneOf".to_owned()
                            } else {
                                k.clone()
                            },
                            normalize(v),
                        )
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
            other => other.clone(),
        }
    }
    let dialects = [
        "zod4-draft2020-12",
        "zod4-draft-7",
        "zod-to-json-schema",
        "ai-sdk",
    ];
    let mut compared = 0;
    for case in [
        "shape",
        "payment",
        "steps",
        "query",
        "file_op",
        "meta_dedup",
        "multi_literal",
        "nested_union_in_variant",
    ] {
        let load = |d: &str| read(&corpus_dir().join(format!("dialects/{d}/{case}.json")));
        let present = |v: &Value| {
            let mut p = flatten(v, &Options::default()).expect("flattens").schema;
            p.as_object_mut().map(|m| m.remove("$schema"));
            p
        };
        let base = load(dialects[0]);
        for d in &dialects[1..] {
            let other = load(d);
            if normalize(&other) == normalize(&base) {
                assert_eq!(
                    present(&other),
                    present(&base),
                    "{case}: {d} differs from {}",
                    dialects[0]
                );
                compared += 1;
            }
        }
    }
    assert!(
        compared >= 12,
        "only {compared} equal-meaning pairs compared"
    );
}

fn shape_like(open: bool) -> Value {
    let close = |mut v: Value| {
        if !open {
            v["additionalProperties"] = json!(false);
        }
        v
    };
    json!({"oneOf": [
        close(json!({"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind", "x"]})),
        close(json!({"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind"]}))
    ]})
}

#[test]
fn open_branch_readings() {
    let original = shape_like(true);
    let declared = flatten(&original, &Options::default())
        .expect("flattens")
        .schema;
    // Declared: x is joined from branch a alone.
    assert_eq!(declared["properties"]["x"]["type"], "string");
    assert!(declared.get("additionalProperties").is_none());
    let permissive = Options::default().with_open_branches(OpenBranches::Permissive);
    let p = flatten(&original, &permissive).expect("flattens").schema;
    // Permissive: branch b accepts x with any value, so x is unconstrained.
    let judge = validator(&p);
    let value = json!({"kind": "b", "x": 42});
    assert!(validator(&original).is_valid(&value));
    assert!(judge.is_valid(&value));
    assert!(
        !validator(&declared).is_valid(&value),
        "declared keeps x a string"
    );
    // Closed branches: the flat object is closed and both readings agree.
    let closed = shape_like(false);
    let a = flatten(&closed, &Options::default())
        .expect("flattens")
        .schema;
    let b = flatten(&closed, &permissive).expect("flattens").schema;
    assert_eq!(a, b);
    assert_eq!(a["additionalProperties"], false);
}

#[test]
fn permissive_uses_typed_catch_all_and_patterns() {
    let original = json!({"oneOf": [
        {"type": "object", "properties": {"k": {"const": 1}, "n_count": {"type": "string"}}, "required": ["k"], "additionalProperties": false},
        {"type": "object", "properties": {"k": {"const": 2}}, "required": ["k"],
         "patternProperties": {"^n_": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}}
    ]});
    let options = Options::default().with_open_branches(OpenBranches::Permissive);
    let p = flatten(&original, &options).expect("flattens").schema;
    let judge = validator(&p);
    assert!(judge.is_valid(&json!({"k": 2, "n_count": 3})));
    assert!(judge.is_valid(&json!({"k": 1, "n_count": "x"})));
    assert!(!judge.is_valid(&json!({"k": 1, "n_count": true})), "{p:#}");
}

#[test]
fn scope_root_leaves_nested_unions() {
    let path = corpus_dir().join("dialects/zod4-draft2020-12/nested_union_in_variant.json");
    let original = read(&path);
    let all = flatten(&original, &Options::default()).expect("flattens");
    let root = flatten(&original, &Options::default().with_scope(Scope::Root)).expect("flattens");
    assert_eq!(all.diagnostics.flattened.len(), 2);
    assert_eq!(root.diagnostics.flattened.len(), 1);
    assert_eq!(root.schema["type"], "object");
    // Unflattened, the nested union is a pure `oneOf` wrapper: the join keeps its two members
    // beside the sms string (SPEC §3.3); flattened, one object beside the string.
    let body = root.schema["properties"]["body"]["anyOf"]
        .as_array()
        .expect("anyOf");
    assert_eq!(body.len(), 3, "{body:#?}");
    assert!(body[0]["properties"]["format"].get("const").is_some());
    let body_all = all.schema["properties"]["body"]["anyOf"]
        .as_array()
        .expect("anyOf");
    assert_eq!(body_all.len(), 2);
    assert_eq!(
        body_all[0]["properties"]["format"]["enum"],
        json!(["text", "html"])
    );
}

#[test]
fn runtime_verdict_equals_plain_validation() {
    for path in files("dialects") {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let original = read(&path);
        if crate::oracle::invalid_original(&path).is_some() {
            let err = Runtime::new(&original)
                .err()
                .expect("refused like jsonschema refuses it");
            assert!(err.pointer.ends_with("/exclusiveMinimum"), "{err}");
            continue;
        }
        let runtime = Runtime::new(&original).expect("compiles");
        let judge = validator(&original);
        let instances = read(&corpus_dir().join(format!("instances/{name}.json")));
        let all = instances["values"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(instances["mixes"].as_array().into_iter().flatten());
        for v in all.chain([json!(null), json!({}), json!([1]), json!("x")].iter()) {
            assert_eq!(
                runtime.is_valid(v),
                judge.is_valid(v),
                "{}: {v}",
                path.display()
            );
            assert_eq!(runtime.validate(v).is_ok(), judge.is_valid(v));
        }
    }
}

#[test]
fn runtime_names_branch_and_field() {
    let original = read(&corpus_dir().join("dialects/zod4-draft2020-12/shape.json"));
    let runtime = Runtime::new(&original).expect("compiles");
    let err = runtime
        .validate(&json!({"kind": "polygon", "points": [{"x": 0, "y": 0}], "tags": null}))
        .expect_err("too few points");
    let text = err.to_string();
    assert!(text.starts_with("kind \"polygon\": /points: "), "{text}");
    let err = runtime
        .validate(&json!({"kind": "hexagon"}))
        .expect_err("unknown kind");
    assert!(
        err.to_string()
            .contains("\"circle\", \"polygon\", \"label\""),
        "{err}"
    );
}

#[test]
fn hints_and_descriptions() {
    let original = read(&corpus_dir().join("dialects/zod4-draft2020-12/meta_dedup.json"));
    let p = flatten(&original, &Options::default())
        .expect("flattens")
        .schema;
    let meta = &p["properties"]["meta"];
    // Three structurally identical definitions differing in descriptions: one alternative.
    assert_eq!(meta["type"], "object");
    let d = meta["description"].as_str().expect("description");
    assert!(
        d.contains("When op is \"get\": Request metadata for get."),
        "{d}"
    );
    assert!(
        d.contains("When op is \"put\": Request metadata for put."),
        "{d}"
    );
    // key is required by get and put but not scan.
    assert_eq!(p["required"], json!(["op", "meta"]));
    let key = p["properties"]["key"]["description"]
        .as_str()
        .expect("hint");
    assert_eq!(
        key,
        "Only used, and then required, when op is \"get\" or \"put\"."
    );
}
