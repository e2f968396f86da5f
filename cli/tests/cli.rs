//! The command-line contract of `flatten`, `manifest` and `validate`: outputs, exit codes, and
//! one-line errors naming the file and the JSON pointer. Scripts depend on these.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flatjoin"))
}

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(rel)
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn flatjoin");
    if let Some(bytes) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(bytes)
            .expect("write stdin");
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("wait")
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn tmp(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flatjoin-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write tmp");
    p
}

#[test]
fn every_sample_and_manifest_round_trips() {
    let mut count = 0;
    for sub in ["dialects", "manifests"] {
        for p in flatjoin_harness::corpus::files(&corpus(sub)) {
            let command = if sub == "manifests" {
                "manifest"
            } else {
                "flatten"
            };
            let out = run(&[command, p.to_str().expect("utf-8 path")], None);
            assert!(
                out.status.success(),
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let v = stdout_json(&out);
            if sub == "manifests" {
                assert!(v["tools"].is_array());
            }
            count += 1;
        }
    }
    assert!(count >= 50 + 13, "only {count} files");
}

#[test]
fn flatten_from_stdin_with_options_and_diagnostics() {
    let schema = std::fs::read(corpus(
        "dialects/zod4-draft2020-12/nested_union_in_variant.json",
    ))
    .expect("sample");
    let diag = std::env::temp_dir().join(format!("flatjoin-diag-{}.json", std::process::id()));
    let out = run(
        &[
            "flatten",
            "-",
            "--scope",
            "root",
            "--open-branches",
            "permissive",
            "--diagnostics",
            diag.to_str().expect("path"),
        ],
        Some(&schema),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_json(&out)["type"], "object");
    let d: Value =
        serde_json::from_str(&std::fs::read_to_string(&diag).expect("diagnostics written"))
            .expect("json");
    assert_eq!(
        d["flattened"],
        json!([{"pointer": "", "discriminator": "target", "branches": 2}])
    );
    assert_eq!(d["skipped"], json!([]));
    let out = run(
        &["flatten", "--diagnostics", diag.to_str().expect("path")],
        Some(&schema),
    );
    let d: Value =
        serde_json::from_str(&std::fs::read_to_string(&diag).expect("diagnostics")).expect("json");
    assert_eq!(
        d["flattened"].as_array().map(Vec::len),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A nested union left as it is is named with its code and rule (SPEC §6 decision 70); at the
/// root the same union of objects would be joined without a discriminator.
#[test]
fn near_misses_are_diagnosed() {
    let p = tmp(
        "near.json",
        r#"{"type": "object", "properties": {"p": {"oneOf": [
        {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
        {"type": "object", "properties": {"k": {"const": "a"}, "x": {"type": "string"}}, "required": ["k"]}
    ]}}}"#,
    );
    let diag = p.with_extension("diag.json");
    let out = run(
        &[
            "flatten",
            p.to_str().expect("path"),
            "--diagnostics",
            diag.to_str().expect("path"),
        ],
        None,
    );
    assert!(out.status.success());
    // Not flattened: passed through unchanged.
    assert!(stdout_json(&out)["properties"]["p"].get("oneOf").is_some());
    let d: Value =
        serde_json::from_str(&std::fs::read_to_string(&diag).expect("diag")).expect("json");
    assert_eq!(d["skipped"][0]["pointer"], "/properties/p");
    assert_eq!(d["skipped"][0]["code"], "overlapping-literals");
    assert!(
        d["skipped"][0]["reason"]
            .as_str()
            .expect("reason")
            .starts_with("rule 4"),
        "{d}"
    );
}

#[test]
fn bad_input_is_one_line_naming_file_and_pointer() {
    let cases = [
        (
            "wrong-type.json",
            r#"{"oneOf": [{"type": "object", "required": "k"}, {}]}"#,
            "/oneOf/0/required",
        ),
        (
            "bad-ref.json",
            r##"{"properties": {"a": {"$ref": "#/$defs/x"}}}"##,
            "/properties/a/$ref",
        ),
        ("not-json.json", "{\"a\": ", "line 1"),
        // SPEC §6 decision 34: never read by another draft's rules.
        (
            "draft-03.json",
            r#"{"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}"#,
            "/$schema: draft-03",
        ),
    ];
    for (name, text, needle) in cases {
        let p = tmp(name, text);
        let out = run(&["flatten", p.to_str().expect("path")], None);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(name) && err.contains(needle), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let out = run(&["flatten", "-"], Some(deep.as_bytes()));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("<stdin>") && err.contains("/0/0/0") && err.contains("nesting"),
        "{err}"
    );
    let out = run(&["manifest", "-"], Some(b"{\"tools\": {}}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/tools"));
}

#[test]
fn manifest_keeps_everything_but_input_schemas() {
    let path = corpus("manifests/desktop-commander.json");
    let original: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("manifest")).expect("json");
    let out = run(&["manifest", path.to_str().expect("path")], None);
    assert!(out.status.success());
    let flat = stdout_json(&out);
    assert_eq!(flat["server"], original["server"]);
    let tools = flat["tools"].as_array().expect("tools");
    let write_pdf = tools
        .iter()
        .find(|t| t["name"] == "write_pdf")
        .expect("write_pdf");
    let items = &write_pdf["inputSchema"]["properties"]["content"]["anyOf"][1]["items"];
    assert_eq!(items["type"], "object", "{items:#}");
    assert!(items.get("anyOf").is_none());
}

/// `validate` follows the declared draft (`format` is an annotation in 2020-12, as in plain
/// validation); `--assert-formats` asserts it.
#[test]
fn validate_formats_follow_the_draft_unless_asserted() {
    let schema = tmp(
        "format-email.json",
        r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "properties": {"to": {"type": "string", "format": "email"}}}"#,
    );
    let s = schema.to_str().expect("path");
    let value = br#"{"to": "not an email"}"#;
    let default = run(&["validate", "--schema", s], Some(value));
    assert_eq!(default.status.code(), Some(0), "{default:?}");
    let asserted = run(
        &["validate", "--schema", s, "--assert-formats"],
        Some(value),
    );
    assert_eq!(asserted.status.code(), Some(1), "{asserted:?}");
    let good = run(
        &["validate", "--schema", s, "--assert-formats"],
        Some(br#"{"to": "a@example.com"}"#),
    );
    assert_eq!(good.status.code(), Some(0), "{good:?}");
}

#[test]
fn validate_names_the_branch() {
    let schema = corpus("dialects/zod4-draft2020-12/shape.json");
    let s = schema.to_str().expect("path");
    let ok = run(
        &["validate", "--schema", s],
        Some(br#"{"kind": "circle", "radius": 2}"#),
    );
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&ok.stdout).trim(), "valid");
    let mix = run(
        &["validate", "--schema", s],
        Some(br#"{"kind": "label", "radius": 2}"#),
    );
    assert_eq!(mix.status.code(), Some(1));
    let text = String::from_utf8_lossy(&mix.stdout);
    assert!(text.starts_with("invalid\nkind \"label\": "), "{text}");
}

#[test]
fn manifest_profile_matches_export_surface() {
    let path = corpus("manifests/desktop-commander.json");
    let p = path.to_str().expect("path");
    let plain = run(&["manifest", p], None);
    let lowered = run(&["manifest", p, "--profile", "gemini"], None);
    assert!(
        lowered.status.success(),
        "{}",
        String::from_utf8_lossy(&lowered.stderr)
    );
    let plain = stdout_json(&plain);
    let lowered = stdout_json(&lowered);
    assert_ne!(plain, lowered, "gemini lowering changes the schemas");
    // Gemini's dialect has no `const` and no `additionalProperties`.
    let text = serde_json::to_string(&lowered["tools"]).expect("json");
    assert!(
        !text.contains("\"const\"") && !text.contains("additionalProperties"),
        "{text}"
    );
    let export = run(&["export", "--provider", "gemini", p], None);
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let export = stdout_json(&export);
    let declarations = export["functionDeclarations"]
        .as_array()
        .expect("declarations");
    for (tool, decl) in lowered["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .zip(declarations)
    {
        assert_eq!(tool["name"], decl["name"]);
        match decl.get("parameters") {
            // The export spells types as the Gemini API does (`"OBJECT"`); otherwise the same.
            Some(parameters) => {
                let mut wire = tool["inputSchema"].clone();
                flatjoin_cli::profiles::gemini::to_wire(&mut wire);
                assert_eq!(&wire, parameters, "{}", tool["name"]);
            }
            // Gemini declares a tool without parameters by leaving `parameters` out.
            None => assert_eq!(
                tool["inputSchema"]["properties"],
                json!({}),
                "{}",
                tool["name"]
            ),
        }
    }
}

/// A reader that stops early (`flatjoin export … | head`) closes stdout under the writer: every
/// printing subcommand then ends without a panic (SPEC §5), as other Unix filters do. The output
/// is made larger than a pipe's buffer, so the writes after the close really fail.
#[test]
fn a_closed_stdout_ends_the_run_without_a_panic() {
    use std::io::Read;
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(corpus("manifests/firecrawl.json")).expect("read"))
            .expect("JSON");
    let tools = manifest["tools"].as_array().expect("tools").clone();
    let many: Vec<Value> = (0..40)
        .flat_map(|i| {
            tools.iter().map(move |t| {
                let mut t = t.clone();
                t["name"] = json!(format!("{}_{i}", t["name"].as_str().unwrap_or("tool")));
                t
            })
        })
        .collect();
    let path = tmp("many-tools.json", &json!({"tools": many}).to_string());
    let path = path.to_str().expect("utf-8 path");
    for args in [
        vec!["manifest", path],
        vec!["export", "--provider", "openai", path],
        vec!["lint", "--profile", "openai", "--format", "json", path],
    ] {
        let mut child = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn flatjoin");
        let mut first = [0u8; 16];
        child
            .stdout
            .take()
            .expect("stdout")
            .read_exact(&mut first)
            .expect("the first bytes");
        // The read end is dropped here: the writer's next writes fail.
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked") && out.status.code() != Some(101),
            "flatjoin {}: {:?}\n{stderr}",
            args.join(" "),
            out.status
        );
    }
}
