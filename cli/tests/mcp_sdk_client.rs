//! End to end with real peers: the official MCP TypeScript SDK client (`cli/client/e2e.mjs`,
//! `@modelcontextprotocol/sdk` from the npm registry) connects to `flatjoin mcp-proxy` in front of
//! `union-server` (an `rmcp` server with union-typed tools), lists the tools (the SDK validates
//! them), makes valid calls (forwarded) and wrong-branch mixes (rejected, branch named); then lists
//! the tools of every real manifest in `corpus/manifests` through the proxy (union-server replays
//! them), so the SDK's validation sees all 182 real tools as the proxy serves them.
//!
//! Without `node` it skips with a visible message, except where the environment variable `CI` is
//! set (as `.ci/run` sets it): there a missing Node.js fails the test. Installs the client's packages with
//! `npm ci` (from the committed lock file) when `cli/client/node_modules` is missing.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn run_with_deadline(
    mut command: Command,
    deadline: Duration,
) -> Result<std::process::Output, String> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return child.wait_with_output().map_err(|e| e.to_string()),
            Ok(None) if started.elapsed() > deadline => {
                let _ = child.kill();
                let out = child.wait_with_output().map_err(|e| e.to_string())?;
                return Err(format!(
                    "timed out after {deadline:?}\nstdout:\n{}\nstderr:\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[test]
fn mcp_typescript_sdk_client_through_the_proxy() {
    if Command::new("node").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "node is not installed, and CI is set: the MCP TypeScript SDK end-to-end test must run in CI (install Node.js)"
        );
        println!("SKIP: node is not installed; the MCP TypeScript SDK end-to-end test did not run");
        eprintln!(
            "SKIP: node is not installed; the MCP TypeScript SDK end-to-end test did not run"
        );
        return;
    }
    let client_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("client");
    if !client_dir
        .join("node_modules/@modelcontextprotocol/sdk")
        .exists()
    {
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&client_dir);
        let out = run_with_deadline(npm, Duration::from_secs(300)).expect("npm ci ran");
        assert!(
            out.status.success(),
            "npm ci failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let flatjoin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_flatjoin"));
    let manifests_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/manifests");
    let mut manifests: Vec<_> = std::fs::read_dir(&manifests_dir)
        .expect("corpus/manifests")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    manifests.sort();
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
