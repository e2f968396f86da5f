//! One more real consumer path: an MCP tool list flattened by
//! `flatjoin manifest`, converted by the Vercel AI SDK's Google provider as an AI SDK app does
//! (`dynamicTool({inputSchema: jsonSchema(..)})`, `generateText` with a Gemini model; the request
//! body is captured by a local `fetch`, `cli/sdk/ai-sdk/convert.mjs`), then every function
//! declaration the provider built is judged by `google-genai`'s `types.FunctionDeclaration`
//! (`cli/sdk/check.py`, accepted and a fixpoint).
//!
//! Pinned: `ai` and `@ai-sdk/google` from `cli/sdk/ai-sdk/package-lock.json` (`npm ci` here when
//! `node_modules` was not installed from it), the Python SDKs from `cli/sdk/requirements.txt` (the
//! venv of `tests/support`, shared with the SDK acceptance test). Without Node.js, npm or a Python
//! that can make a venv the test fails under `CI` and is shown as ignored otherwise
//! (`flatjoin_test_support::runner`); a failed `npm ci` or `pip install` fails it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use flatjoin_cli::sdk::{Check, Item, Judge};
use serde_json::{Map, Value, json};

mod support;

use support::tools;

flatjoin_test_support::tests! {
    ai_sdk_google_provider_declarations_of_flattened_manifests_pass_google_genai needs NODE, NPM, PYTHON3_VENV;
}

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn ai_sdk_google_provider_declarations_of_flattened_manifests_pass_google_genai() {
    let dir = here().join("sdk/ai-sdk");
    tools::npm_ci(&dir);
    let python = support::install_sdk_venv()
        .unwrap_or_else(|why| panic!("the provider SDKs cannot be installed: {why}"));
    let flatjoin = PathBuf::from(env!("CARGO_BIN_EXE_flatjoin"));
    let manifests_dir = here().join("../corpus/manifests");
    let files = flatjoin_harness::corpus::files(&manifests_dir);
    let mut batch = Map::new();
    let mut tool_count = 0usize;
    for file in &files {
        let out = Command::new(&flatjoin)
            .arg("manifest")
            .arg(file)
            .output()
            .expect("flatjoin manifest runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifest: Value = serde_json::from_slice(&out.stdout).expect("manifest JSON");
        tool_count += manifest["tools"].as_array().map_or(0, Vec::len);
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        batch.insert(stem.to_owned(), manifest);
    }
    let mut node = Command::new("node")
        .arg(dir.join("convert.mjs"))
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let input = Value::Object(batch).to_string();
    let mut stdin = node.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(input.as_bytes())
    });
    let out = node.wait_with_output().expect("node ran");
    writer.join().expect("writer").expect("written");
    assert!(
        out.status.success(),
        "the AI SDK conversion failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let items: Vec<Item> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a JSON line");
            Item {
                id: v["id"].as_str().unwrap_or_default().to_owned(),
                check: Check::Gemini,
                payload: v["declaration"].clone(),
                clean: true,
            }
        })
        .collect();
    assert_eq!(items.len(), tool_count, "one declaration per tool");
    assert!(tool_count > 150, "only {tool_count} tools");
    // The provider sends JSON Schema in `parametersJsonSchema`: the field exists on every one.
    let with_schema = items
        .iter()
        .filter(|i| i.payload.get("parametersJsonSchema").is_some())
        .count();
    let judge = Judge {
        python,
        script: here().join("sdk/check.py"),
    };
    let canary = Item {
        id: "canary".into(),
        check: Check::Gemini,
        payload: json!({"name": "t", "parametersJsonSchema": {}, "unknownField": 1}),
        clean: true,
    };
    assert!(
        !judge.judge(&[canary]).expect("judge runs")[0].passes(),
        "google-genai must refuse an unknown field"
    );
    let verdicts = judge.judge(&items).expect("judge runs");
    let rejected: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.passes())
        .map(|v| format!("{}: {}", v.id, v.error.as_deref().unwrap_or("rejected")))
        .collect();
    println!(
        "{} manifests, {tool_count} tools: {} AI SDK declarations ({with_schema} with parametersJsonSchema), {} rejected by google-genai",
        files.len(),
        items.len(),
        rejected.len()
    );
    assert!(rejected.is_empty(), "{}", rejected.join("\n"));
}
