//! End to end with real peers: the official MCP TypeScript SDK client (`cli/client/e2e.mjs`,
//! `@modelcontextprotocol/sdk` from the npm registry) connects to `flatjoin mcp-proxy` in front of
//! `union-server` (an `rmcp` server with union-typed tools), lists the tools (the SDK validates
//! them), makes valid calls (forwarded) and wrong-branch mixes (rejected, branch named); then lists
//! the tools of every real manifest in `corpus/manifests` through the proxy (union-server replays
//! them), so the SDK's validation sees all 182 real tools as the proxy serves them.
//!
//! Without Node.js or npm the test fails under `CI` (as `.ci/run` sets it) and is shown as
//! ignored otherwise (`flatjoin_test_support::runner`). Installs the client's packages with `npm ci` from the
//! committed lock file when `cli/client/node_modules` was not installed from it; a failed install
//! fails the test.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

mod support;

use support::tools::{self, run_with_deadline};

flatjoin_test_support::tests! {
    mcp_typescript_sdk_client_through_the_proxy needs NODE, NPM;
}

fn mcp_typescript_sdk_client_through_the_proxy() {
    let client_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("client");
    tools::npm_ci(&client_dir);
    let flatjoin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_flatjoin"));
    let manifests_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/manifests");
    let manifests = flatjoin_harness::corpus::files(&manifests_dir);
    let mut node = Command::new("node");
    node.arg(client_dir.join("e2e.mjs"))
        .arg(&flatjoin)
        .arg(env!("CARGO_BIN_EXE_union-server"))
        .args(&manifests)
        .current_dir(&client_dir);
    let out = run_with_deadline(node, Duration::from_secs(120)).expect("node ran");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the SDK client failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("13 real manifests: 182 tools accepted"),
        "missing checks:\n{stdout}"
    );
    assert!(
        stdout.contains("wrong-branch mix rejected"),
        "missing checks:\n{stdout}"
    );
}
