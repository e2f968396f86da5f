//! Every bundled dialect sample and manifest: snapshots of the presentation, the object
//! guarantee, and soundness on hand-written instances judged by `jsonschema`.

use flatjoin::{OpenBranches, Options, Runtime, flatten, flatten_manifest};
use serde_json::Value;

use crate::oracle::{files, read, validator};

fn case_name(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One snapshot per dialect sample, through insta's `glob!`: every mismatching file is reported
/// (not only the first), and a glob that matches nothing fails.
#[test]
fn dialect_snapshots() {
    // Snapshots are reviewed by hand before acceptance; CI runs with INSTA_UPDATE=no.
    // Canonical, as `glob!` hands out canonical paths: the description names the file relative
    // to the repository, never the machine's checkout path.
    let dialects = crate::oracle::corpus_dir()
        .join("dialects")
        .canonicalize()
        .expect("corpus/dialects exists");
    insta::glob!("../../../corpus/dialects", "**/*.json", |path| {
        let original = read(path);
        let flat = flatten(&original, &Options::default()).expect("sample flattens");
        let rel = path
            .strip_prefix(&dialects)
            .unwrap_or(path)
            .display()
            .to_string();
        insta::with_settings!({description => format!("flatten corpus/dialects/{rel}"), omit_expression => true}, {
            insta::assert_json_snapshot!("dialect", serde_json::json!({
                "presentation": flat.schema,
                "diagnostics": flat.diagnostics.to_json(),
            }));
        });
    });
}

#[test]
fn union_roots_become_objects() {
    let mut roots = 0;
    for path in files("dialects") {
        let original = read(&path);
        let flat = flatten(&original, &Options::default()).expect("sample flattens");
        if flat
            .diagnostics
            .flattened
            .iter()
            .any(|s| s.pointer.is_empty())
        {
            roots += 1;
            assert_eq!(flat.schema["type"], "object", "{}", path.display());
            assert!(flat.schema.get("oneOf").is_none() && flat.schema.get("anyOf").is_none());
        }
    }
    // Zod family: 5 emitters × 6 root unions (steps and query nest theirs), Zod 4's
    // nested_discriminated_union and union_of_objects (SPEC §2.9), and zod-to-json-schema's
    // reused_model and reused_union (SPEC §6 decision 88); Pydantic: shape, multi_literal,
    // nested_discriminated_union, union_of_models and many_fields_union; schemars: all but
    // external_not_discriminated (a unit variant is a string, not an object).
    assert_eq!(roots, 5 * 6 + 2 + 2 + 5 + 7);
}

/// For every sample: each instance the original accepts is accepted by the presentation under
/// both readings of open branches; each wrong-branch mix the presentation accepts but the
/// original rejects is rejected by the runtime, naming a branch.
#[test]
fn soundness_on_instances() {
    let instances_dir = crate::oracle::corpus_dir().join("instances");
    let mut checked = 0;
    let mut mixes_named = 0;
    for path in files("dialects") {
        let name = case_name(&path);
        let instances = read(&instances_dir.join(format!("{name}.json")));
        let original = read(&path);
        // Known: originals the validator refuses for their own declared draft (named, not hidden).
        if let Some(reason) = crate::oracle::invalid_original(&path) {
            assert!(
                jsonschema::options().build(&original).is_err(),
                "{}: {reason}",
                path.display()
            );
            continue;
        }
        let judge_original = validator(&original);
        let values = instances["values"].as_array().expect("values");
        let accepted: Vec<&Value> = values
            .iter()
            .filter(|v| judge_original.is_valid(v))
            .collect();
        assert!(
            !accepted.is_empty(),
            "{}: no instance is accepted by the original",
            path.display()
        );
        for reading in [OpenBranches::Declared, OpenBranches::Permissive] {
            let options = Options::default().with_open_branches(reading);
            let flat = flatten(&original, &options).expect("flattens");
            let judge = validator(&flat.schema);
            for v in &accepted {
                assert!(
                    judge.is_valid(v),
                    "{} ({reading:?}): presentation rejects {v}\npresentation: {:#}",
                    path.display(),
                    flat.schema
                );
                checked += 1;
            }
        }
        let runtime = Runtime::new(&original).expect("runtime compiles");
        let flat = flatten(&original, &Options::default()).expect("flattens");
        let judge = validator(&flat.schema);
        for mix in instances["mixes"].as_array().expect("mixes") {
            assert_eq!(
                runtime.is_valid(mix),
                judge_original.is_valid(mix),
                "{}",
                path.display()
            );
            if !judge_original.is_valid(mix) {
                let err = runtime.validate(mix).expect_err("runtime rejects");
                if judge.is_valid(mix)
                    && flat
                        .diagnostics
                        .flattened
                        .iter()
                        .any(|s| s.pointer.is_empty() && s.discriminator.is_some())
                {
                    // A root joined without a discriminator selects no branch by a tag (SPEC
                    // §6 decision 70): its errors are the original's.
                    let branch = err.branch.clone().expect("error names the branch");
                    let d = runtime.discriminator().expect("root discriminator");
                    assert!(branch.starts_with(d), "{branch}");
                    assert!(err.to_string().starts_with(&branch));
                    mixes_named += 1;
                }
            }
        }
    }
    assert!(checked > 300, "only {checked} instance checks");
    assert!(
        mixes_named > 20,
        "only {mixes_named} wrong-branch mixes reached the runtime"
    );
}

#[test]
fn manifests_round_trip() {
    for path in files("manifests") {
        let manifest = read(&path);
        let flat = flatten_manifest(&manifest, &Options::default()).expect("manifest flattens");
        let before = manifest["tools"].as_array().expect("tools");
        let after = flat.manifest["tools"].as_array().expect("tools");
        assert_eq!(before.len(), after.len());
        // Everything but inputSchema is untouched; tools without a union site are untouched.
        for (i, (b, a)) in before.iter().zip(after).enumerate() {
            let mut b2 = b.clone();
            let mut a2 = a.clone();
            b2.as_object_mut().map(|m| m.remove("inputSchema"));
            a2.as_object_mut().map(|m| m.remove("inputSchema"));
            assert_eq!(a2, b2);
            if flat.tools[i].1.flattened.is_empty() {
                assert_eq!(
                    a["inputSchema"],
                    b["inputSchema"],
                    "{} tool {i}",
                    path.display()
                );
            } else {
                assert_eq!(a["inputSchema"]["type"], "object");
                validator(&a["inputSchema"]);
            }
        }
        let mut top_b = manifest.clone();
        let mut top_a = flat.manifest.clone();
        top_b.as_object_mut().map(|m| m.remove("tools"));
        top_a.as_object_mut().map(|m| m.remove("tools"));
        assert_eq!(top_a, top_b);
    }
}

/// SPEC §6 decision 73 on real Pydantic output: one union of models used in eleven fields
/// (as it is, in lists, optional, in a nested model) is presented no larger than twice its
/// input (minified bytes; the join before the decision wrote one flattened copy per field), and
/// its sites name the shared definition in the diagnostics.
#[test]
fn a_pydantic_union_in_many_fields_is_not_multiplied() {
    let path = crate::oracle::corpus_dir().join("dialects/pydantic/many_fields_union.json");
    let original = read(&path);
    let flat = flatten(&original, &Options::default()).expect("flattens");
    let size = |v: &Value| serde_json::to_vec(v).expect("serializes").len();
    let (input, output) = (size(&original), size(&flat.schema));
    assert!(
        output <= 2 * input,
        "presentation {output} B for an input of {input} B:\n{:#}",
        flat.schema
    );
    let shared = flat
        .diagnostics
        .flattened
        .iter()
        .filter(|s| s.shared.is_some())
        .count();
    assert!(
        shared >= 11,
        "{shared} shared sites: {:#?}",
        flat.diagnostics.flattened
    );
}
