//! `union-server`: a small MCP server (official Rust SDK, `rmcp`, stdio) whose tools take
//! union-typed arguments, as the upstream of the end-to-end tests.
//!
//! Without arguments it serves `draw_shape` and `send_message`, whose input schemas are the raw
//! schemars output of serde-tagged enums (a root `oneOf`, which MCP clients reject), and
//! `draw_shape_flat`, exposed through the flatjoin schemars helper. Calls are parsed with serde
//! into the enum: the server's own runtime. With `--manifest FILE` it serves the tools of a
//! captured `tools/list` result verbatim and echoes every call's arguments.

use std::sync::Arc;

mod tools;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tools::{Message, Shape};

struct UnionServer {
    tools: Vec<Tool>,
    echo: bool,
}

fn raw_schema<T: schemars::JsonSchema>() -> Result<Arc<rmcp::model::JsonObject>, String> {
    match serde_json::to_value(schemars::schema_for!(T)) {
        Ok(Value::Object(map)) => Ok(Arc::new(map)),
        Ok(other) => Err(format!("schemars gave a non-object schema: {other}")),
        Err(e) => Err(e.to_string()),
    }
}

impl UnionServer {
    fn builtin() -> Result<Self, String> {
        Ok(UnionServer {
            tools: vec![
                Tool::new(
                    "draw_shape",
                    "Draw a circle, a polygon or a label.",
                    raw_schema::<Shape>()?,
                ),
                Tool::new(
                    "send_message",
                    "Send an email or a text message.",
                    raw_schema::<Message>()?,
                ),
                flatjoin_cli::tool_schema::flat_tool::<Shape>(
                    "draw_shape_flat",
                    "Draw a shape (schema flattened by the flatjoin schemars helper).",
                )?,
            ],
            echo: false,
        })
    }

    fn replay(path: &str) -> Result<Self, String> {
        let text = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let manifest: Value = serde_json::from_slice(&text).map_err(|e| format!("{path}: {e}"))?;
        let tools = manifest
            .get("tools")
            .cloned()
            .ok_or_else(|| format!("{path}: no tools"))?;
        let tools: Vec<Tool> =
            serde_json::from_value(tools).map_err(|e| format!("{path}: tools: {e}"))?;
        Ok(UnionServer { tools, echo: true })
    }
}

fn text_result(text: String, error: bool) -> CallToolResponse {
    let content = vec![ContentBlock::text(text)];
    CallToolResponse::Complete(if error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    })
}

impl ServerHandler for UnionServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("union-server: test upstream with union-typed tools.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if self.echo {
            return Ok(text_result(format!("{}: {arguments}", request.name), false));
        }
        Ok(match request.name.as_ref() {
            "draw_shape" | "draw_shape_flat" => match serde_json::from_value::<Shape>(arguments) {
                Ok(shape) => text_result(format!("upstream drew {shape:?}"), false),
                Err(e) => text_result(format!("upstream rejected the arguments: {e}"), true),
            },
            "send_message" => match serde_json::from_value::<Message>(arguments) {
                Ok(message) => text_result(format!("upstream sent {message:?}"), false),
                Err(e) => text_result(format!("upstream rejected the arguments: {e}"), true),
            },
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {other}"),
                    None,
                ));
            }
        })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = match args.as_slice() {
        [] => UnionServer::builtin(),
        [flag, path] if flag == "--manifest" => UnionServer::replay(path),
        _ => Err("usage: union-server [--manifest FILE]".to_owned()),
    };
    let server = match server {
        Ok(s) => s,
        Err(e) => {
            eprintln!("union-server: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("union-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
