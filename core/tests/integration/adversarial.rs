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

/// Text nested `depth` levels of `{"items": …}` around a string schema.
fn nested_text(depth: usize) -> String {
    let mut text = String::new();
    for _ in 0..depth - 1 {
        text.push_str("{\"items\": ");
    }
    text.push_str("{\"type\": \"string\"}");
    text.push_str(&"}".repeat(depth - 1));
    text
}

/// The text entry points (`flatten_text_with`, `flatten_manifest_text_with`) skip the second
/// depth scan: they must answer exactly as `parse` then the owned join do — the same
/// presentation and diagnostics, the same error with the same pointer — on every corpus
/// document and manifest, at the depth limit and one past it, and on text that is not JSON.
#[test]
fn the_text_entry_points_answer_as_parse_then_flatten() {
    use flatjoin::{
        flatten_manifest_owned_with, flatten_manifest_text_with, flatten_owned_with,
        flatten_text_with,
    };
    let options = Options::default();
    let keep = &mut drop::<Value>;
    let as_schema = |text: &[u8]| {
        let by_value = parse(text).and_then(|v| flatten_owned_with(v, &options, &mut drop));
        let by_text = flatten_text_with(text, &options, &mut drop);
        assert_eq!(by_text, by_value, "{}", String::from_utf8_lossy(text));
        by_text
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = 0;
    for dir in ["dialects", "manifests", "regressions"] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let entry = entry.expect("corpus entry");
            if entry.path().extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read(entry.path()).expect("corpus file");
            let _answer = as_schema(&text);
            let by_value =
                parse(&text).and_then(|v| flatten_manifest_owned_with(v, &options, keep));
            let by_text = flatten_manifest_text_with(&text, &options, keep);
            assert_eq!(by_text, by_value, "{}", entry.path().display());
            files += 1;
        }
    }
    assert!(files > 60, "the corpus was found ({files} files)");
    // At the limit: parsed and flattened; one past it: refused where `parse` refuses it.
    assert!(as_schema(nested_text(MAX_DEPTH).as_bytes()).is_ok());
    let err = as_schema(nested_text(MAX_DEPTH + 1).as_bytes()).expect_err("too deep");
    assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_DEPTH });
    let err = as_schema(b"{\"oneOf\": [").expect_err("not JSON");
    assert!(matches!(err.kind, ErrorKind::NotJson { .. }), "{err}");
    let err = as_schema(br#"{"oneOf": [{"required": "kind"}, {}]}"#).expect_err("malformed");
    assert_eq!(err.pointer, "/oneOf/0/required");
    // A manifest at the limit: its tools are inside it, checked once.
    let deep_tool = format!(
        "{{\"tools\": [{{\"name\": \"t\", \"inputSchema\": {}}}]}}",
        nested_text(MAX_DEPTH - 3)
    );
    let by_value = parse(deep_tool.as_bytes())
        .and_then(|v| flatten_manifest_owned_with(v, &options, &mut drop));
    let by_text = flatten_manifest_text_with(deep_tool.as_bytes(), &options, &mut drop);
    assert!(by_text.is_ok(), "{by_text:?}");
    assert_eq!(by_text, by_value);
}
