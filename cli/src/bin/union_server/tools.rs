//! flatjoin-e2e: the union-typed tools of the test upstream server (`union-server`), shared with
//! the tests that drive `flatjoin mcp-proxy` in front of it.

use schemars::JsonSchema;
use serde::Deserialize;

/// A point on the canvas.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Horizontal position.
    pub x: f64,
    /// Vertical position.
    pub y: f64,
}

/// What `draw_shape` draws: a serde internally tagged enum, which schemars renders as a root
/// `oneOf` of closed objects discriminated by `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// A circle around the origin.
    Circle {
        /// Radius, at least 0.
        radius: f64,
    },
    /// A closed polygon.
    Polygon {
        /// The corners, in order.
        points: Vec<Point>,
    },
    /// A text label.
    Label {
        /// The text.
        text: String,
        /// Where it goes.
        at: Point,
    },
}

/// What `send_message` sends: a union whose `to` field collides (a list in one branch, a string
/// in the other), discriminated by `channel`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "channel", rename_all = "snake_case")]
pub enum Message {
    /// An email.
    Email {
        /// Recipients.
        to: Vec<String>,
        /// Subject line.
        subject: String,
    },
    /// A text message.
    Sms {
        /// The phone number.
        to: String,
        /// The text.
        body: String,
    },
}

/// Where the workspace's target directory is, seen from a test binary (`<target>/debug/deps/x`).
pub fn target_dir() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.to_path_buf())
}

/// The newest modification time of the files below `dir`.
fn newest(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let time = if path.is_dir() {
            newest(&path)
        } else {
            entry.metadata().and_then(|m| m.modified()).ok()
        };
        best = best.max(time);
    }
    best
}

/// The `flatjoin` binary of this workspace. A test of this crate cannot name another package's
/// binary with `CARGO_BIN_EXE_*`, so: the one `cargo test --workspace` already built next to this
/// test when it is newer than every source file of `core/` and `harness/` (rebuilding it here with
/// other features would only waste time), else one built now with the workspace's own cargo into
/// the same target directory.
pub fn flatjoin_binary() -> Result<std::path::PathBuf, String> {
    let target = target_dir().ok_or("cannot locate the target directory")?;
    let profile = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent()?.parent()?.file_name().map(|n| n.to_os_string()))
        .ok_or("cannot tell the build profile")?;
    let bin = target
        .join(profile)
        .join(format!("flatjoin{}", std::env::consts::EXE_SUFFIX));
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let sources = [
        workspace.join("core"),
        workspace.join("harness/src"),
        workspace.join("Cargo.toml"),
    ];
    let newest_source = sources
        .iter()
        .filter_map(|p| {
            if p.is_dir() {
                newest(p)
            } else {
                p.metadata().and_then(|m| m.modified()).ok()
            }
        })
        .max();
    let built = bin.metadata().and_then(|m| m.modified()).ok();
    if built.is_some() && built >= newest_source {
        return Ok(bin);
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = std::process::Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "flatjoin-harness",
            "--bin",
            "flatjoin",
            "--target-dir",
        ])
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build of flatjoin failed: {status}"));
    }
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!("{} was not built", bin.display()))
    }
}
