//! Lint findings of every profile over the 13 real manifests in `corpus/manifests`, kept as insta
//! snapshots (one per manifest and profile, next to this file). Each snapshot's description names
//! the command that prints the same findings. Also what each profile serves, with its narrowings
//! and the definitions it copies in place of their references.

use std::path::Path;

use flatjoin_cli::profiles::{self, Profile, Severity};
use flatjoin_cli::surfaces;
use serde_json::Value;

#[test]
fn lint_findings_over_the_real_manifests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/manifests");
    let files = flatjoin_harness::corpus::files(&dir);
    assert_eq!(
        files.len(),
        13,
        "the 13 shared manifests are expected in corpus/manifests"
    );
    for file in &files {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("manifest")
            .to_owned();
        let input: Value =
            serde_json::from_slice(&std::fs::read(file).expect("readable")).expect("JSON");
        let tools = surfaces::tools_of(&input, Some(file)).expect("a manifest");
        let named: Vec<(String, Value)> = tools
            .iter()
            .map(|t| (t.name.clone(), t.schema.clone()))
            .collect();
        for profile in Profile::ALL {
            let findings = profiles::lint_tools(profile, &named);
            let mut text = String::new();
            for f in &findings {
                let severity = if f.severity == Severity::Error {
                    "error"
                } else {
                    "warning"
                };
                let pointer = if f.pointer.is_empty() {
                    "/"
                } else {
                    &f.pointer
                };
                text.push_str(&format!(
                    "{}: {pointer} {severity}[{}]: {}\n    fix: {}\n",
                    f.tool, f.rule, f.message, f.fix
                ));
            }
            let rejected = named
                .iter()
                .filter(|(n, _)| {
                    findings
                        .iter()
                        .any(|f| f.tool == *n && f.severity == Severity::Error)
                })
                .count();
            text.push_str(&format!(
                "{} of {} tools pass profile {}\n",
                named.len() - rejected,
                named.len(),
                profile.name()
            ));
            insta::with_settings!({
                description => format!("flatjoin lint --profile {} corpus/manifests/{stem}.json", profile.name()),
                omit_expression => true,
                prepend_module_to_snapshot => false,
            }, {
                insta::assert_snapshot!(format!("{stem}__{}", profile.name()), text);
            });
        }
    }
}

/// What each profile serves for two dialect samples (a root union with colliding structural
/// fields, and a union nested in a variant), with the narrowings and inlined definitions it lists:
/// the reviewable face of every lowering.
#[test]
fn lowered_presentations_of_two_samples() {
    for sample in [
        "zod4-draft2020-12/shape",
        "zod4-draft2020-12/nested_union_in_variant",
    ] {
        let file =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../corpus/dialects/{sample}.json"));
        let input: Value =
            serde_json::from_slice(&std::fs::read(&file).expect("readable")).expect("JSON");
        for profile in Profile::ALL {
            let lowered = surfaces::present(&input, Some(profile), &flatjoin::Options::default())
                .expect("present");
            let narrowings: Vec<Value> = lowered
                .narrowings
                .iter()
                .map(|n| serde_json::json!({"pointer": n.pointer, "rule": n.rule, "detail": n.detail}))
                .collect();
            let inlined: Vec<Value> = lowered
                .inlined
                .iter()
                .map(|i| serde_json::json!({"definition": i.definition, "rule": i.rule, "sites": i.sites, "copies": i.copies, "bytes": i.bytes, "detail": i.detail}))
                .collect();
            let name = format!("{}__{}", sample.replace('/', "__"), profile.name());
            insta::with_settings!({
                description => format!(
                    "flatjoin_cli::surfaces::present(corpus/dialects/{sample}.json, {}): the input schema `flatjoin mcp-proxy --profile {}` serves (and `flatjoin export` for a provider profile)",
                    profile.name(),
                    profile.name()
                ),
                omit_expression => true,
                prepend_module_to_snapshot => false,
            }, {
                insta::assert_json_snapshot!(name, serde_json::json!({"schema": lowered.schema, "narrowings": narrowings, "inlined": inlined}));
            });
        }
    }
}

/// Every `$ref` of `node` with the JSON pointer of the object that holds it (the test's own walk,
/// over every object and array).
fn refs_in(node: &Value, pointer: &str, out: &mut Vec<(String, String)>) {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push((pointer.to_owned(), r.clone()));
            }
            for (k, v) in map {
                let token = k.replace('~', "~0").replace('/', "~1");
                refs_in(v, &format!("{pointer}/{token}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                refs_in(v, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// How many copies of `/$defs/NAME` a lowering that inlines every reference makes: one for each
/// reference outside the definitions, and as many for a reference inside another definition as
/// that definition gets.
fn expected_copies(refs: &[(String, String)], name: &str) -> usize {
    refs.iter()
        .filter(|(_, r)| *r == format!("#/$defs/{name}"))
        .map(|(at, _)| match at.strip_prefix("/$defs/") {
            Some(rest) => expected_copies(refs, rest.split('/').next().unwrap_or_default()),
            None => 1,
        })
        .sum()
}

/// SPEC §6 decision 73: the join writes a union used at many sites once, as `flatjoin_union_N`;
/// a profile that takes no `$ref` copies it back into every site, and says so. On real Pydantic
/// output (one union of models in eleven fields of a root union's commands), gemini and cursor list
/// every shared union with the `$ref`s to it in the presentation, counted here, and the copies
/// they made; the profiles that keep references list nothing.
#[test]
fn inlined_shared_unions_are_listed_with_their_sites() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/dialects/pydantic/many_fields_union.json");
    let input: Value =
        serde_json::from_slice(&std::fs::read(&file).expect("readable")).expect("JSON");
    let options = flatjoin::Options::default();
    let presentation = flatjoin::flatten(&input, &options)
        .expect("flattens")
        .schema;
    let mut refs = Vec::new();
    refs_in(&presentation, "", &mut refs);
    let defs = presentation["$defs"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let shared: Vec<&String> = defs
        .keys()
        .filter(|n| {
            n.strip_prefix("flatjoin_union_")
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    assert!(
        !shared.is_empty(),
        "the presentation shares a union: {presentation}"
    );
    for profile in Profile::ALL {
        let lowered = surfaces::present(&input, Some(profile), &options).expect("present");
        let text = serde_json::to_string(&lowered.schema).expect("JSON");
        let keeps_refs = text.contains("\"$ref\"");
        let inlines = matches!(profile, Profile::Gemini | Profile::Cursor);
        assert_eq!(keeps_refs, !inlines, "{}: {text}", profile.name());
        if !inlines {
            assert!(
                lowered.inlined.is_empty(),
                "{}: {:?}",
                profile.name(),
                lowered.inlined
            );
            continue;
        }
        for name in &shared {
            let sites = refs
                .iter()
                .filter(|(_, r)| *r == format!("#/$defs/{name}"))
                .count();
            assert!(sites >= 2, "{name} is shared by {sites} sites");
            let listed = lowered
                .inlined
                .iter()
                .find(|i| i.definition == format!("/$defs/{name}"))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: {name} not listed: {:?}",
                        profile.name(),
                        lowered.inlined
                    )
                });
            assert_eq!(listed.rule, "shared-union", "{listed:?}");
            assert_eq!(listed.sites, sites, "{}: {listed:?}", profile.name());
            assert_eq!(
                listed.copies,
                expected_copies(&refs, name),
                "{}: {listed:?}",
                profile.name()
            );
            assert!(
                listed.bytes > 0 && listed.detail.contains(&format!("{sites} sites")),
                "{listed:?}"
            );
            if profile == Profile::Cursor {
                // Cursor inlines first: the copy is the presentation's definition, byte for byte.
                let minified = serde_json::to_string(&defs[name.as_str()]).expect("JSON");
                assert_eq!(listed.bytes, minified.len(), "{listed:?}");
            }
        }
        // Every other entry is a definition of the input copied into two or more places.
        for other in lowered.inlined.iter().filter(|i| i.rule != "shared-union") {
            assert_eq!(other.rule, "shared-definition", "{other:?}");
            assert!(other.copies >= 2, "{other:?}");
        }
    }
}
