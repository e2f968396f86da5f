//! Adversarial inputs: clear errors with JSON pointers, never a panic, a hang or a stack overflow.

use flatjoin::{ErrorKind, MAX_DEPTH, Options, flatten, parse};
use serde_json::{Value, json};

use crate::oracle::validator;

#[test]
fn malformed_inputs_are_located() {
    let cases = [
        (
            json!({"oneOf": [{"type": "object", "required": "kind"}, {}]}),
            "/oneOf/0/required",
        ),
        (
            json!({"properties": {"a": {"$ref": "#/$defs/nope"}}}),
            "/properties/a/$ref",
        ),
        (
            json!({"properties": {"a": {"type": 7}}}),
            "/properties/a/type",
        ),
        (
            json!({"anyOf": [{"properties": []}]}),
            "/anyOf/0/properties",
        ),
        (json!({"items": [1]}), "/items/0"),
    ];
    for (schema, pointer) in cases {
        let err = flatten(&schema, &Options::default()).expect_err("malformed");
        assert_eq!(err.pointer, pointer, "{err}");
        assert!(err.to_string().contains(pointer), "{err}");
    }
    assert!(matches!(
        parse(b"{\"a\": tru}").map_err(|e| e.kind),
        Err(ErrorKind::NotJson { .. })
    ));
}

#[test]
fn deep_values_are_refused_not_overflowed() {
    // Build a value deeper than serde_json would parse, without recursion.
    let mut v = json!({"type": "string"});
    for _ in 0..(MAX_DEPTH * 4) {
        v = json!({"items": v});
    }
    let err = flatten(&v, &Options::default()).expect_err("too deep");
    assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_DEPTH });
    assert!(err.pointer.starts_with("/items/items"));
    // Dropping it must not overflow either: unwind it iteratively.
    let mut cur = v;
    while let Some(inner) = cur.get_mut("items").map(Value::take) {
        cur = inner;
    }
}

fn branch(tag: usize, extra: &str) -> Value {
    json!({"type": "object", "properties": {"t": {"const": tag}, extra: {"type": "string"}, "shared": {"type": "array", "items": {"const": tag}}},
           "required": ["t"], "additionalProperties": false})
}

#[test]
fn ten_thousand_branches() {
    let n = 10_000;
    let schema =
        json!({"oneOf": (0..n).map(|i| branch(i, &format!("p{}", i % 50))).collect::<Vec<_>>()});
    let flat = flatten(&schema, &Options::default()).expect("flattens");
    assert_eq!(flat.diagnostics.flattened[0].branches, n);
    assert_eq!(
        flat.schema["properties"]["t"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(n)
    );
    assert_eq!(
        flat.schema["properties"]["shared"]["anyOf"]
            .as_array()
            .map(Vec::len),
        Some(n)
    );
    let judge = validator(&flat.schema);
    assert!(judge.is_valid(&json!({"t": 9_999, "p49": "x", "shared": [9_999]})));
}

#[test]
fn huge_enum_discriminator() {
    let big: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
    let schema = json!({"anyOf": [
        {"type": "object", "properties": {"k": {"enum": big}}, "required": ["k"]},
        {"type": "object", "properties": {"k": {"const": "other"}}, "required": ["k"]}
    ]});
    let flat = flatten(&schema, &Options::default()).expect("flattens");
    assert_eq!(
        flat.schema["properties"]["k"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(100_001)
    );
}

#[test]
fn reference_cycles_terminate() {
    let cases = [
        json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}),
        json!({"type": "object", "oneOf": [{"$ref": "#"}, {"$ref": "#"}]}),
        json!({"$defs": {"N": {"type": "object", "properties": {"k": {"const": "n"}, "c": {"oneOf": [{"$ref": "#/$defs/N"}, {"$ref": "#/$defs/L"}]}}, "required": ["k"]},
                         "L": {"type": "object", "properties": {"k": {"const": "l"}}, "required": ["k"]}},
               "oneOf": [{"$ref": "#/$defs/N"}, {"$ref": "#/$defs/L"}]}),
    ];
    for schema in cases {
        let flat = flatten(&schema, &Options::default()).expect("terminates without error");
        validator(&flat.schema);
    }
}

#[test]
fn deeply_nested_unions() {
    let mut inner = json!({"type": "string"});
    // 25 levels × 4 JSON levels each stays under MAX_DEPTH.
    for i in 0..25 {
        inner = json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}, "v": inner}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}, "v": {"type": "integer"}}, "required": ["k"]}
        ]});
        let _ = i;
    }
    let flat = flatten(&inner, &Options::default()).expect("flattens");
    assert_eq!(flat.diagnostics.flattened.len(), 25);
    validator(&flat.schema);
}
