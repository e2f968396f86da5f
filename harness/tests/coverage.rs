//! The coverage oracle (SPEC §2.9, §4 "Object guarantee") on the in-process core and on a
//! presentation that comes without diagnostics (the implementation protocol, SPEC §6 decision 40).

use flatjoin::{OpenBranches, Options, Scope};
use flatjoin_harness::oracle::{Oracle, Outcome, Subject};
use serde_json::{Value, json};

fn object(tag: &str, value: &str, field: &str) -> Value {
    json!({"type": "object", "properties": {tag: {"const": value}, field: {"type": "string"}},
           "required": [tag]})
}

/// Originals whose every union site the core must name with a reason that holds.
fn originals() -> Vec<Value> {
    let du = json!({"oneOf": [object("kind", "a", "x"), object("kind", "b", "y")]});
    vec![
        // serde's untagged enum at the root: joined without a discriminator.
        json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]}),
        // A nested DU, a nullable wrapper and a nested union of objects without a discriminator.
        json!({"type": "object", "properties": {
            "d": du,
            "n": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "u": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                            {"type": "object", "properties": {"b": {"type": "string"}}}]}
        }}),
        // A DU under `not`, and the same definition referenced from there: frozen.
        json!({"$defs": {"U": du}, "type": "object", "properties": {
            "never": {"not": {"$ref": "#/$defs/U"}},
            "u": {"$ref": "#/$defs/U"},
            "inline": {"not": du}
        }}),
        // Pydantic's nested discriminated union at the root.
        json!({"$defs": {
            "Cat": {"oneOf": [object("pet", "cat", "black"), {
                "type": "object", "properties": {"pet": {"const": "cat"}, "color": {"const": "w"}},
                "required": ["pet"]}]},
            "Dog": object("pet", "dog", "bark")
        }, "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}),
        // Draft-04: `const` is no keyword, so the root is a union of objects without literals.
        json!({"$schema": "http://json-schema.org/draft-04/schema#",
               "oneOf": [object("kind", "a", "x"), object("kind", "b", "y")]}),
    ]
}

#[test]
fn the_core_names_every_site_with_a_reason_that_holds() {
    for original in originals() {
        for scope in [Scope::All, Scope::Root] {
            let options = Options::new(scope, OpenBranches::Declared);
            let subject = match Subject::new(&original, &options) {
                Ok(subject) => subject,
                Err(v) => panic!("{v}"),
            };
            let root_union = original.get("oneOf").or_else(|| original.get("anyOf"));
            match subject.coverage() {
                Ok(Outcome::Passed(measure)) => assert!(measure.checked > 0, "{original}"),
                // Under `Scope::Root` only the root is named (SPEC §6 decision 12).
                Ok(Outcome::Skipped(_)) if scope == Scope::Root && root_union.is_none() => {}
                Ok(other) => panic!("coverage did not judge {original}: {other:?}"),
                Err(v) => panic!("{v}"),
            }
            assert!(
                subject
                    .all()
                    .iter()
                    .any(|(oracle, _)| *oracle == Oracle::Coverage),
                "coverage is among the oracles a subject runs"
            );
        }
    }
}

#[test]
fn a_presentation_without_diagnostics_is_judged_on_its_root_only() {
    let options = Options::default();
    let untagged = &originals()[0];
    // An implementation that leaves a root union of objects as it is fails part (a).
    let kept = match Subject::presented(untagged, &options, untagged.clone(), None) {
        Ok(Ok(subject)) => subject,
        other => panic!("not judgeable: {:?}", other.err()),
    };
    match kept.coverage() {
        Err(v) => {
            assert_eq!(v.oracle, Oracle::Coverage);
            assert!(v.message.contains("not one object"), "{v}");
        }
        Ok(outcome) => panic!("a kept root union of objects passed: {outcome:?}"),
    }
    // Nested sites are not judged without diagnostics.
    let nested = &originals()[1];
    let as_is = match Subject::presented(nested, &options, nested.clone(), None) {
        Ok(Ok(subject)) => subject,
        other => panic!("not judgeable: {:?}", other.err()),
    };
    assert!(matches!(as_is.coverage(), Ok(Outcome::Skipped(_))));
    // With diagnostics sent over the protocol (SPEC §6 decision 75) they are judged as the
    // core's: a nested union left as it is and named nowhere fails part (b).
    let unnamed = json!({"flattened": [], "skipped": []});
    let named_nowhere = match Subject::presented(nested, &options, nested.clone(), Some(unnamed)) {
        Ok(Ok(subject)) => subject,
        other => panic!("not judgeable: {:?}", other.err()),
    };
    match named_nowhere.coverage() {
        Err(v) => assert_eq!(v.oracle, Oracle::Coverage),
        Ok(outcome) => panic!("an unnamed nested union passed: {outcome:?}"),
    }
}
