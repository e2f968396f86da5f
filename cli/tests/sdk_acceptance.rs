//! The providers' own SDK code judges what flatjoin serves: `google-genai`'s
//! `types.FunctionDeclaration` for every Gemini export (both `--gemini-field` modes; accepted and a
//! fixpoint of `model_validate` → `model_dump(by_alias=True, exclude_none=True)`), the OpenAI Agents
//! SDK's `ensure_strict_json_schema` for every `openai-strict` export (no error, and a fixpoint),
//! and the MCP Python SDK's `types.Tool` for every `manifest --profile mcp` entry, over all of
//! `corpus/` (dialects, manifests, spec cases, regressions) and a generated sample.
//!
//! An SDK rejection of an export that flatjoin called clean (`export`/`lint` would exit 0) fails
//! the test. The SDKs are installed here from exact pins (`cli/sdk/requirements.txt`) into a venv
//! under the target directory (`target/sdk-venv`, reused while the pins are unchanged). Without a
//! Python that can make a venv the tests fail under `CI` and are shown as ignored otherwise
//! (`flatjoin_test_support::runner`); a failed install fails them. `reports/profiles.md` is checked to be what
//! `flatjoin lint-report --sdk-python ...` prints with the same SDKs.

use std::path::{Path, PathBuf};
use std::process::Command;

use flatjoin_cli::profiles::Profile;
use flatjoin_cli::sdk::{self, Check, Item, Judge};
use flatjoin_cli::surfaces::ToolInput;
use serde_json::{Value, json};

mod support;

flatjoin_test_support::tests! {
    the_providers_sdks_accept_every_clean_export needs PYTHON3_VENV;
    the_profiles_report_is_current_with_the_sdk_column needs PYTHON3_VENV;
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn sdk_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sdk")
}

/// The venv's Python, created and filled from the pinned requirements when missing or stale;
/// once per test binary (the tests run in parallel and share it); a failed install fails the
/// test.
fn sdk_python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    match PYTHON.get_or_init(support::install_sdk_venv) {
        Ok(python) => python.clone(),
        Err(why) => panic!("the provider SDKs cannot be installed: {why}"),
    }
}

/// Every corpus input as (label, tool): manifest tools one by one, spec and regression cases by
/// their `schema`, dialect samples as they are.
fn corpus_tools() -> Vec<(String, ToolInput)> {
    let corpus = root().join("corpus");
    let mut files: Vec<PathBuf> = ["dialects", "manifests", "spec", "regressions"]
        .into_iter()
        .flat_map(|dir| flatjoin_harness::corpus::files(&corpus.join(dir)))
        .collect();
    files.sort();
    let tool = |name: &str, schema: &Value| ToolInput {
        name: name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect(),
        description: None,
        schema: schema.clone(),
    };
    let mut out = Vec::new();
    for f in files {
        let label = f.strip_prefix(&corpus).unwrap_or(&f).display().to_string();
        // A regression may be a fuzz input that is not JSON at all: nothing to export.
        let Ok(value) = serde_json::from_slice::<Value>(&std::fs::read(&f).expect("readable"))
        else {
            continue;
        };
        match &value {
            Value::Array(cases) => {
                for (i, c) in cases.iter().enumerate() {
                    if let Some(s) = c.get("schema") {
                        out.push((format!("{label}[{i}]"), tool(&format!("case_{i}"), s)));
                    }
                }
            }
            v if v.get("tools").is_some_and(Value::is_array) => {
                for t in v["tools"].as_array().into_iter().flatten() {
                    let name = t["name"].as_str().unwrap_or("tool");
                    let mut input = tool(name, t.get("inputSchema").unwrap_or(&json!({})));
                    input.name = name.to_owned();
                    input.description = t["description"].as_str().map(str::to_owned);
                    out.push((format!("{label}#{name}"), input));
                }
            }
            v if label.starts_with("regressions") || label.starts_with("spec") => {
                if let Some(s) = v.get("schema") {
                    out.push((label.clone(), tool("regression", s)));
                }
            }
            v => out.push((label.clone(), tool("tool", v))),
        }
    }
    out
}

/// Payloads each SDK must refuse: the judge has teeth.
fn canaries() -> Vec<Item> {
    let item = |id: &str, check, payload| Item {
        id: id.to_owned(),
        check,
        payload,
        clean: false,
    };
    vec![
        item(
            "canary gemini integer enum",
            Check::Gemini,
            json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"v": {"enum": [1, 2]}}}}),
        ),
        item(
            "canary gemini lower-case type (not a fixpoint)",
            Check::Gemini,
            json!({"name": "t", "parameters": {"type": "object", "properties": {"v": {"type": "STRING"}}}}),
        ),
        item(
            "canary openai-strict false in anyOf",
            Check::OpenaiStrict,
            json!({"type": "object", "properties": {"v": {"anyOf": [false, {"type": "string"}]}}, "required": ["v"], "additionalProperties": false}),
        ),
        item(
            "canary openai-strict missing required (not a fixpoint)",
            Check::OpenaiStrict,
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        ),
        item(
            "canary mcp tool without inputSchema",
            Check::Mcp,
            json!({"name": "t"}),
        ),
    ]
}

fn the_providers_sdks_accept_every_clean_export() {
    let python = sdk_python();
    let judge = Judge {
        python: python.clone(),
        script: sdk_dir().join("check.py"),
    };

    // The judge can fail.
    let canaries = canaries();
    let verdicts = judge.judge(&canaries).expect("the SDK judge runs");
    for v in &verdicts {
        assert!(!v.passes(), "{}: the SDK check let it pass", v.id);
    }

    let mut inputs = corpus_tools();
    let corpus_count = inputs.len();
    for (label, schema) in flatjoin_harness::generate::generated_schemas(12, 60) {
        inputs.push((
            label,
            ToolInput {
                name: "generated".into(),
                description: None,
                schema,
            },
        ));
    }
    let mut items = Vec::new();
    let mut join_errors = 0usize;
    for (label, tool) in &inputs {
        for profile in [Profile::Gemini, Profile::OpenaiStrict, Profile::Mcp] {
            match sdk::items(tool, profile, label) {
                Ok(these) => items.extend(these),
                Err(_) => join_errors += 1,
            }
        }
    }
    let verdicts = judge.judge(&items).expect("the SDK judge runs");
    let mut failures = Vec::new();
    let mut per_check: Vec<(Check, usize, usize, usize)> = Vec::new();
    for check in [Check::Gemini, Check::OpenaiStrict, Check::Mcp] {
        let mine: Vec<(&Item, &sdk::Verdict)> = items
            .iter()
            .zip(&verdicts)
            .filter(|(i, _)| i.check == check)
            .collect();
        let clean = mine.iter().filter(|(i, _)| i.clean).count();
        let rejected = mine.iter().filter(|(i, v)| i.clean && !v.passes()).count();
        per_check.push((check, mine.len(), clean, rejected));
        for (item, v) in mine {
            if item.clean && !v.passes() {
                failures.push(format!(
                    "{}: {}\n    payload: {}",
                    item.id,
                    v.error.as_deref().unwrap_or("rejected"),
                    item.payload
                ));
            }
        }
    }
    println!(
        "{} inputs ({corpus_count} from corpus/, the rest generated), {join_errors} join errors",
        inputs.len()
    );
    for (check, total, clean, rejected) in &per_check {
        println!(
            "{}: {total} exports, {clean} clean, {rejected} of the clean ones rejected or rewritten by {}",
            check.name(),
            check.sdk()
        );
    }
    assert!(corpus_count > 280, "corpus missing: {corpus_count} inputs");
    for (check, total, clean, _) in &per_check {
        assert!(
            *clean * 10 >= *total * 9 && *total > 500,
            "{}: only {clean} of {total} exports clean",
            check.name()
        );
    }
    assert!(
        failures.is_empty(),
        "{} clean exports rejected by the SDKs:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// `reports/profiles.md` is what `flatjoin lint-report --sdk-python ...` prints now, with these
/// SDKs: the "accepted by the official SDK" column comes from the same judge.
fn the_profiles_report_is_current_with_the_sdk_column() {
    let python = sdk_python();
    let flatjoin = PathBuf::from(env!("CARGO_BIN_EXE_flatjoin"));
    let report = root().join("reports/profiles.md");
    let committed = std::fs::read_to_string(&report).expect("reports/profiles.md");
    // The command is the report's first line: rerun it from the root, with this venv's Python.
    let first = committed.lines().next().unwrap_or_default();
    let command = first
        .split('`')
        .nth(1)
        .expect("the report names its command");
    let args: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect();
    let at = args
        .iter()
        .position(|a| a == "--sdk-python")
        .expect("the report was made with --sdk-python");
    let venv_python = python.display().to_string();
    let out = {
        let mut run = args.clone();
        run[at + 1] = venv_python;
        Command::new(&flatjoin)
            .args(&run)
            .current_dir(root())
            .output()
            .expect("lint-report runs")
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        fresh.lines().skip(1).collect::<Vec<_>>(),
        committed.lines().skip(1).collect::<Vec<_>>(),
        "reports/profiles.md is stale: regenerate it with `{command}` (after `cargo test -p flatjoin-cli --test sdk_acceptance` made the venv)"
    );
    for profile in Profile::ALL {
        if sdk::check_of(profile).is_some() {
            let row = committed
                .lines()
                .find(|l| l.starts_with(&format!("| {} |", profile.name())))
                .expect("a row per profile");
            assert!(!row.ends_with("| not run (needs --sdk-python) |"), "{row}");
        }
    }
}
