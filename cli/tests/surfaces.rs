//! SPEC I8, one owning implementation: for every real manifest in `corpus/manifests` and every
//! profile, the manifest surface (`surfaces::apply_profile`, what `flatjoin manifest --profile`
//! prints), the MCP surface (`flatjoin mcp-proxy --profile P`, read back over MCP with the `rmcp`
//! client) and the agent surface (`flatjoin export --provider ...`) give byte-identical input
//! schemas for each tool.

use std::path::{Path, PathBuf};
use std::process::Command;

use flatjoin_cli::profiles::Profile;
use flatjoin_cli::surfaces;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

fn manifests() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/manifests");
    flatjoin_harness::corpus::files(&dir)
}

/// `(tool name, compact JSON of its input schema)` as the MCP proxy serves them.
async fn via_proxy(flatjoin: &Path, profile: Profile, manifest: &Path) -> Vec<(String, String)> {
    let mut command = tokio::process::Command::new(flatjoin);
    command
        .args(["mcp-proxy", "--profile", profile.name(), "--"])
        .arg(env!("CARGO_BIN_EXE_union-server"))
        .arg("--manifest")
        .arg(manifest);
    let transport = TokioChildProcess::new(command).expect("proxy starts");
    let client = ().serve(transport).await.expect("MCP handshake with the proxy");
    let tools = client
        .list_all_tools()
        .await
        .expect("tools/list through the proxy");
    let out = tools
        .iter()
        .map(|t| {
            let schema = serde_json::to_string(&*t.input_schema).expect("serializable");
            (t.name.to_string(), schema)
        })
        .collect();
    let _ = client.cancel().await;
    out
}

/// The same through `flatjoin export`, for the profiles a provider format exists for.
fn via_export(
    flatjoin: &Path,
    profile: Profile,
    manifest: &Path,
) -> Option<Vec<(String, Option<String>)>> {
    let (provider, strict) = match profile {
        Profile::Openai => ("openai", false),
        Profile::OpenaiStrict => ("openai", true),
        Profile::Anthropic => ("anthropic", false),
        Profile::AnthropicStrict => ("anthropic", true),
        Profile::Gemini => ("gemini", false),
        Profile::Mcp | Profile::Cursor => return None,
    };
    let mut command = Command::new(flatjoin);
    command.args(["export", "--provider", provider]);
    if strict {
        command.arg("--strict");
    }
    let out = command.arg(manifest).output().expect("export runs");
    let declarations: Value = serde_json::from_slice(&out.stdout).expect("export prints JSON");
    let list = match provider {
        "gemini" => declarations["functionDeclarations"].as_array().cloned(),
        _ => declarations.as_array().cloned(),
    }
    .expect("a list of declarations");
    Some(
        list.iter()
            .map(|d| {
                let (name, schema) = match provider {
                    "openai" => (&d["function"]["name"], d["function"].get("parameters")),
                    "anthropic" => (&d["name"], d.get("input_schema")),
                    _ => (&d["name"], d.get("parameters")),
                };
                let schema = schema.map(|s| serde_json::to_string(s).expect("serializable"));
                (name.as_str().unwrap_or_default().to_owned(), schema)
            })
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manifest_mcp_and_export_surfaces_are_byte_identical() {
    let flatjoin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_flatjoin"));
    let files = manifests();
    assert_eq!(
        files.len(),
        13,
        "the 13 shared manifests are expected in corpus/manifests"
    );
    let mut compared = 0usize;
    let mut mismatches = Vec::new();
    for file in &files {
        let input: Value =
            serde_json::from_slice(&std::fs::read(file).expect("readable")).expect("JSON");
        for profile in Profile::ALL {
            let applied =
                surfaces::apply_profile(&input, Some(profile), &flatjoin::Options::default())
                    .expect("apply_profile");
            let manifest_surface: Vec<(String, String)> = applied.output["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .map(|t| {
                    let schema = serde_json::to_string(&t["inputSchema"]).expect("serializable");
                    (t["name"].as_str().unwrap_or_default().to_owned(), schema)
                })
                .collect();
            let proxy_surface = via_proxy(&flatjoin, profile, file).await;
            if proxy_surface != manifest_surface {
                mismatches.push(format!(
                    "{} {}: mcp-proxy differs from manifest",
                    file.display(),
                    profile.name()
                ));
            }
            if let Some(export_surface) = via_export(&flatjoin, profile, file) {
                for ((name, exported), (m_name, m_schema)) in
                    export_surface.iter().zip(&manifest_surface)
                {
                    // Gemini omits `parameters` for a tool without any: nothing to compare there.
                    // Its export spells types as the API does (`profiles::gemini::to_wire`).
                    let expected = if profile == Profile::Gemini {
                        let mut wire: Value = serde_json::from_str(m_schema).expect("JSON");
                        flatjoin_cli::profiles::gemini::to_wire(&mut wire);
                        serde_json::to_string(&wire).expect("serializable")
                    } else {
                        m_schema.clone()
                    };
                    let same = name == m_name && exported.as_ref().is_none_or(|e| *e == expected);
                    if !same {
                        mismatches.push(format!(
                            "{} {} {name}: export differs from manifest",
                            file.display(),
                            profile.name()
                        ));
                    }
                }
                if export_surface.len() != manifest_surface.len() {
                    mismatches.push(format!(
                        "{} {}: export lists another number of tools",
                        file.display(),
                        profile.name()
                    ));
                }
            }
            compared += manifest_surface.len();
        }
    }
    println!("{compared} tool schemas compared across the surfaces");
    assert!(compared > 1000, "only {compared} schemas compared");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
