//! `flatjoin mcp-proxy --profile openai-strict` in front of `union-server`, driven by the `rmcp`
//! client: the served schema requires every property (optional ones nullable), and a call shaped
//! the way a strict model sends it (`null` for every field it means to leave out) is normalized
//! back and accepted by the upstream's own serde parsing, while a wrong-branch mix is still
//! rejected by the original's runtime.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_calls_are_normalized_before_the_runtime_check() {
    let flatjoin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_flatjoin"));
    let mut command = tokio::process::Command::new(flatjoin);
    command
        .args(["mcp-proxy", "--profile", "openai-strict", "--"])
        .arg(env!("CARGO_BIN_EXE_union-server"));
    let client =
        ().serve(TokioChildProcess::new(command).expect("proxy starts"))
            .await
            .expect("handshake");
    let instructions = client.peer_info().and_then(|i| i.instructions.clone());
    assert_eq!(
        instructions.as_deref(),
        Some("union-server: test upstream with union-typed tools.")
    );
    let tools = client.list_all_tools().await.expect("tools/list");
    let shape = tools
        .iter()
        .find(|t| t.name == "draw_shape")
        .expect("draw_shape listed");
    let schema = Value::Object((*shape.input_schema).clone());
    assert_eq!(
        schema["required"],
        json!(["kind", "radius", "points", "text", "at"]),
        "{schema}"
    );
    assert_eq!(schema["additionalProperties"], json!(false));

    let call = |arguments: Value| {
        let mut params = CallToolRequestParams::new("draw_shape");
        params.arguments = arguments.as_object().cloned();
        params
    };
    let strict_call =
        json!({"kind": "circle", "radius": 2.0, "points": null, "text": null, "at": null});
    let ok = client
        .call_tool(call(strict_call))
        .await
        .expect("call answered");
    assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
    assert!(text(&ok).contains("upstream drew Circle"), "{}", text(&ok));

    let mix = json!({"kind": "circle", "radius": null, "points": [{"x": 0, "y": 0}], "text": null, "at": null});
    let bad = client.call_tool(call(mix)).await.expect("call answered");
    assert_eq!(bad.is_error, Some(true), "{}", text(&bad));
    assert!(
        text(&bad).starts_with("flatjoin: ") && text(&bad).contains("kind \"circle\""),
        "{}",
        text(&bad)
    );
    let _ = client.cancel().await;
}
