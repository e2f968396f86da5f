//! The record a benchmark run leaves beside criterion's own output: where and on what it ran,
//! and the memory of every case (criterion measures time only).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

/// File name of the run record inside the criterion folder.
pub const RUN_FILE: &str = "flatjoin-run.json";

/// Where the run happened and what each case allocated.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunRecord {
    /// `full` or `smoke` (see [`crate::cases::Profile`]).
    pub profile: String,
    /// UTC time the run started.
    pub started: String,
    /// UTC time the run finished; empty while it runs (or if it was interrupted).
    pub finished: String,
    /// `git rev-parse` of the workspace, and which measured folders (`core/`, `benches/`) had
    /// uncommitted changes when the run started.
    pub commit: String,
    /// `rustc -V` of the compiler that built the benchmark.
    pub rustc: String,
    /// CPU model from `/proc/cpuinfo`.
    pub cpu: String,
    /// Cores the process may use.
    pub cores: usize,
    /// `/proc/loadavg` when the run started and when it finished (other work on the machine).
    pub load_start: String,
    /// See `load_start`.
    pub load_end: String,
    /// One entry per case, synthetic and corpus.
    pub cases: Vec<CaseRecord>,
    /// Cases not benchmarked, or not every operation of them: `path: reason`.
    #[serde(default)]
    pub skipped: Vec<String>,
}

/// Sizes and memory of one case.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CaseRecord {
    /// The criterion group of the case.
    pub group: String,
    /// Serialized size of the input, bytes.
    pub input_bytes: u64,
    /// JSON values in the input.
    pub input_nodes: u64,
    /// Schemas the case flattens: 1, or a manifest's tool count.
    pub schemas: u64,
    /// Serialized size of the presentation, bytes.
    pub output_bytes: u64,
    /// JSON values in the presentation.
    pub output_nodes: u64,
    /// Union sites the join flattened.
    pub flattened_sites: u64,
    /// Peak extra bytes and allocations of a deep clone of the input.
    pub clone: MemoryRecord,
    /// The same for `flatjoin::flatten` (borrowed input).
    pub join: MemoryRecord,
    /// The same for `flatjoin::flatten_owned` (input moved in; freeing it is credited).
    pub join_owned: MemoryRecord,
}

/// What one operation allocated.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct MemoryRecord {
    /// Peak bytes live above the level at the start.
    pub peak_bytes: u64,
    /// Number of allocations.
    pub allocations: u64,
}

impl From<crate::alloc::Usage> for MemoryRecord {
    fn from(usage: crate::alloc::Usage) -> Self {
        MemoryRecord {
            peak_bytes: usage.peak_bytes,
            allocations: usage.allocations,
        }
    }
}

impl RunRecord {
    /// A record of the machine, toolchain and commit now, with no cases yet.
    pub fn capture(profile: &str) -> RunRecord {
        RunRecord {
            profile: profile.to_owned(),
            started: utc_now(),
            commit: commit(),
            rustc: env!("FLATJOIN_BENCHES_RUSTC").to_owned(),
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            load_start: load_average(),
            ..RunRecord::default()
        }
    }

    /// Marks the run finished now.
    pub fn finish(&mut self) {
        self.finished = utc_now();
        self.load_end = load_average();
    }

    /// Writes the record to `dir/`[`RUN_FILE`].
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(RUN_FILE);
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads `dir/`[`RUN_FILE`].
    pub fn read(dir: &Path) -> Result<RunRecord, String> {
        let path = dir.join(RUN_FILE);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The folder criterion writes to, found the way criterion finds it: `$CRITERION_HOME`, else
/// `$CARGO_TARGET_DIR/criterion`, else the workspace's `target/criterion`.
pub fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(target) => PathBuf::from(target).join("criterion"),
        None => crate::workspace_root().join("target").join("criterion"),
    }
}

fn command_output(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(crate::workspace_root())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The UTC time now, `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    command_output("date", &["-u", "+%Y-%m-%d %H:%M:%S UTC"])
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The workspace's commit, naming `core/` or `benches/` when they have uncommitted changes.
pub fn commit() -> String {
    let Some(head) = command_output("git", &["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown (no git commit)".to_owned();
    };
    let dirty: Vec<&str> = ["core", "benches"]
        .into_iter()
        .filter(|folder| {
            command_output(
                "git",
                &[
                    "status",
                    "--porcelain",
                    "--untracked-files=no",
                    "--",
                    folder,
                ],
            )
            .is_some_and(|s| !s.is_empty())
        })
        .collect();
    if dirty.is_empty() {
        head
    } else {
        format!(
            "{head} (with uncommitted changes in {})",
            dirty.join("/, ") + "/"
        )
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// `/proc/loadavg`'s 1, 5 and 15-minute figures.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}
