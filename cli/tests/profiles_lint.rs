//! Lint findings of every profile over the 13 real manifests in `corpus/manifests`, kept as insta
//! snapshots (one per manifest and profile, next to this file). Each snapshot's description names
//! the command that prints the same findings.

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
/// fields, and a union nested in a variant), with the narrowings it lists: the reviewable face of
/// every lowering.
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
                insta::assert_json_snapshot!(name, serde_json::json!({"schema": lowered.schema, "narrowings": narrowings}));
            });
        }
    }
}
