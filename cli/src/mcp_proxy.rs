//! The MCP surface: a stdio proxy in front of an upstream MCP server, built on the official Rust
//! MCP SDK (`rmcp`). `tools/list` is answered with each tool's presentation lowered to a profile
//! (through [`crate::surfaces::present`], the one owning implementation); every `tools/call` is
//! normalized for the profile, checked with the runtime of the tool's *original* schema, and
//! either forwarded or answered with a tool error that names the selected branch and the failing
//! field. Only tools are proxied: the proxy advertises the tools capability alone.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext, RoleClient, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::Mutex;

use crate::profiles::{self, Lowered, Profile};
use crate::surfaces;

/// What the proxy keeps per tool: the lowered presentation (for the normalizer) and the runtime
/// of the original schema (or why there is none).
struct Checked {
    lowered: Lowered,
    runtime: Result<flatjoin::Runtime, String>,
}

/// The proxy's server half; its client half is `upstream`.
pub struct Proxy {
    upstream: Peer<RoleClient>,
    profile: Profile,
    options: flatjoin::Options,
    tools: Mutex<HashMap<String, Arc<Checked>>>,
}

fn upstream_error(error: ServiceError) -> McpError {
    match error {
        ServiceError::McpError(e) => e,
        other => McpError::internal_error(format!("upstream: {other}"), None),
    }
}

impl Proxy {
    /// A proxy presenting `upstream`'s tools for `profile`.
    pub fn new(upstream: Peer<RoleClient>, profile: Profile, options: flatjoin::Options) -> Self {
        Proxy {
            upstream,
            profile,
            options,
            tools: Mutex::new(HashMap::new()),
        }
    }

    /// Replaces `tool.input_schema` by its presentation and remembers how to check its calls.
    async fn present(&self, tool: &mut Tool) {
        let original = Value::Object((*tool.input_schema).clone());
        let checked = match surfaces::present(&original, Some(self.profile), &self.options) {
            Ok(lowered) => {
                if let Value::Object(map) = &lowered.schema {
                    tool.input_schema = Arc::new(map.clone());
                }
                let runtime = flatjoin::Runtime::new(&original).map_err(|e| e.to_string());
                Checked { lowered, runtime }
            }
            Err(e) => {
                // The original is shown as it is; calls are refused, since nothing can check them.
                eprintln!(
                    "flatjoin mcp-proxy: tool {}: cannot flatten: {e}",
                    tool.name
                );
                Checked {
                    lowered: Lowered::sound(original),
                    runtime: Err(format!("the input schema is malformed: {e}")),
                }
            }
        };
        self.tools
            .lock()
            .await
            .insert(tool.name.to_string(), Arc::new(checked));
    }

    async fn checked(&self, name: &str) -> Result<Option<Arc<Checked>>, McpError> {
        if let Some(c) = self.tools.lock().await.get(name) {
            return Ok(Some(Arc::clone(c)));
        }
        // A client may call a tool without listing first: list upstream once.
        let mut tools = self
            .upstream
            .list_all_tools()
            .await
            .map_err(upstream_error)?;
        for tool in &mut tools {
            self.present(tool).await;
        }
        Ok(self.tools.lock().await.get(name).cloned())
    }
}

/// The tool error a rejected call gets.
fn rejection(text: String) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "flatjoin-mcp-proxy",
                env!("CARGO_PKG_VERSION"),
            ));
        // The upstream's instructions still describe its tools: pass them on.
        match self
            .upstream
            .peer_info()
            .and_then(|info| info.instructions.clone())
        {
            Some(instructions) => config.with_instructions(instructions),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut result = self
            .upstream
            .list_tools(request)
            .await
            .map_err(upstream_error)?;
        for tool in &mut result.tools {
            self.present(tool).await;
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Some(checked) = self.checked(&name).await? else {
            return Err(McpError::invalid_params(
                format!("unknown tool: {name}"),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let runtime = match &checked.runtime {
            Ok(runtime) => runtime,
            Err(e) => {
                return Ok(rejection(format!(
                    "flatjoin: tool '{name}' cannot be checked: {e}"
                )));
            }
        };
        let normalized =
            profiles::normalize_arguments_checked(&checked.lowered, &arguments, &|v| {
                runtime.is_valid(v)
            });
        if let Err(errors) = runtime.validate(&normalized) {
            return Ok(rejection(format!(
                "flatjoin: arguments of tool '{name}' rejected by its original schema: {errors}"
            )));
        }
        let mut forwarded = request;
        if normalized != arguments {
            forwarded.arguments = normalized.as_object().cloned();
        }
        self.upstream
            .call_tool_once(forwarded)
            .await
            .map_err(upstream_error)
    }
}

/// Runs the proxy on standard input/output until the client disconnects: starts `upstream` (a
/// command and its arguments) as a child process speaking MCP on its stdio.
pub async fn run(
    upstream: &[String],
    profile: Profile,
    options: flatjoin::Options,
) -> Result<(), String> {
    let (program, args) = upstream
        .split_first()
        .ok_or("mcp-proxy: no upstream command given")?;
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start upstream {program}: {e}"))?;
    let client = ().serve(transport).await.map_err(|e| format!("upstream {program}: {e}"))?;
    let proxy = Proxy::new(client.peer().clone(), profile, options);
    let server = proxy
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("client handshake: {e}"))?;
    let ended = server
        .waiting()
        .await
        .map_err(|e| format!("proxy task: {e}"));
    let _ = client.cancel().await;
    ended.map(|_| ())
}
