//! What the Node.js and Python package tests share (`bindings/node/tests/node.rs`,
//! `bindings/python/tests/python.rs`): building the addon and the `flatjoin` binary into the
//! test's own target directory, the corpus list of the byte-identity test and the judging of a
//! package through the protocol.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::tools;

/// The repository root: the nearest folder above this crate that holds `Cargo.lock`.
pub fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The target directory this test was built into (`target/debug/deps/node-…` → `target`), and
/// whether it is the release profile.
pub fn target_dir() -> (PathBuf, bool) {
    let exe = std::env::current_exe().expect("the test knows its path");
    let profile_dir = exe.ancestors().nth(2).map(Path::to_path_buf);
    match profile_dir {
        Some(dir) if dir.parent().is_some() => {
            let release = dir.file_name().is_some_and(|n| n == "release");
            (dir.parent().map(Path::to_path_buf).unwrap_or(dir), release)
        }
        _ => (root().join("target"), false),
    }
}

/// This machine's platform as napi-rs names it (`linux-x64-gnu`, `darwin-arm64`, …): the suffix
/// of the addon file `flatjoin.<platform>.node` and of the package `flatjoin-<platform>`
/// (`bindings/node/platform.js` says the same at run time).
pub fn napi_platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    match std::env::consts::OS {
        "linux" if cfg!(target_env = "musl") => format!("linux-{arch}-musl"),
        "linux" => format!("linux-{arch}-gnu"),
        "windows" => format!("win32-{arch}-msvc"),
        "macos" => format!("darwin-{arch}"),
        other => format!("{other}-{arch}"),
    }
}

/// What [`build`] made: the Node.js addon, the Python extension and the `flatjoin` binary.
pub struct Built {
    /// `libflatjoin_node.so` (or `.dylib`, `.dll`).
    pub node_addon: PathBuf,
    /// `lib_native.so` (or `.dylib`, `.dll`).
    pub python_extension: PathBuf,
    /// The `flatjoin` binary.
    pub cli: PathBuf,
}

/// Builds both packages' libraries and the `flatjoin` binary into this test's target directory
/// (the same profile). A nested cargo: it waits for the build lock the outer `cargo test`
/// released when its build ended, and both package tests run the same command, so the second is
/// a no-op, as are both in the second CI invocation (`--all-features`).
pub fn build() -> Built {
    build_with(&[])
}

/// [`build`] with `features` turned on (`flatjoin-cli/fault-injection` from a CLI test built
/// with it): the nested build writes the `flatjoin` binary the outer `cargo test` built for the
/// CLI's other tests, so it must build the same one (a binary without faults made the
/// `--all-features` run's fault-injection test fail).
pub fn build_with(features: &[&str]) -> Built {
    let (target, release) = target_dir();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root())
        .args(["build", "--message-format", "json-render-diagnostics"])
        .args(["-p", "flatjoin-node", "-p", "flatjoin-python", "--lib"])
        .args(["-p", "flatjoin-cli", "--bin", "flatjoin"])
        .arg("--target-dir")
        .arg(&target)
        .stderr(Stdio::inherit());
    if !features.is_empty() {
        command.arg("--features").arg(features.join(","));
    }
    if release {
        command.arg("--release");
    }
    let out = command.output().expect("cargo runs");
    assert!(out.status.success(), "cargo build of the packages failed");
    let (mut node_addon, mut python_extension, mut cli) = (None, None, None);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        let library = message["filenames"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|f| f.ends_with(".so") || f.ends_with(".dylib") || f.ends_with(".dll"))
            .map(PathBuf::from);
        match message["target"]["name"].as_str() {
            Some("flatjoin_node") => node_addon = library,
            Some("_native") => python_extension = library,
            Some("flatjoin") if message["target"]["kind"][0] == "bin" => {
                cli = message["executable"].as_str().map(PathBuf::from);
            }
            _ => {}
        }
    }
    Built {
        node_addon: node_addon.expect("cargo built the Node.js addon"),
        python_extension: python_extension.expect("cargo built the Python extension"),
        cli: cli.expect("cargo built the flatjoin binary"),
    }
}

/// The inputs of the byte-identity test, written as a JSON list of paths to
/// `target/bindings/identity-files.json`: every file of the harness's corpus walk
/// ([`flatjoin_harness::corpus::files`]) and a generated sample (the harness's generated
/// discriminated unions in every dialect), written under `target/bindings/generated/`.
pub fn identity_files() -> PathBuf {
    let (target, _) = target_dir();
    let dir = target.join("bindings");
    let generated = dir.join("generated");
    std::fs::create_dir_all(&generated).expect("target/bindings/generated");
    let mut files = flatjoin_harness::corpus::files(&root().join("corpus"));
    for (i, (label, schema)) in flatjoin_harness::generate::generated_schemas(19, 24)
        .into_iter()
        .enumerate()
    {
        let name: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = generated.join(format!("{i:03}-{name}.json"));
        let text = serde_json::to_string_pretty(&schema).expect("printable");
        std::fs::write(&path, text).expect("writable");
        files.push(path);
    }
    let list: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let path = dir.join("identity-files.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&list).expect("printable"),
    )
    .expect("writable");
    path
}

/// Judges a package through the line protocol (`docs/protocol.md`), as any other flattener is:
/// `flatjoin check --implementation IMPLEMENTATION` over the dialect samples and generated cases,
/// from the repository root with `envs` set, beside the core behind `flatjoin serve-protocol` on
/// the same inputs. Every oracle must find no violation, the package must never crash,
/// soundness must have judged more than a hundred values, and every oracle's counts must equal
/// the core's: the package's adapter sends its diagnostics (`returns: "flattened"`, SPEC §6
/// decision 75), so even static soundness and coverage judge it as they judge the core.
pub fn judge_through_protocol(
    cli: &Path,
    implementation: &str,
    name: &str,
    envs: &[(&str, &Path)],
) {
    let dir = std::env::temp_dir().join(format!(
        "flatjoin-package-protocol-{}-{}",
        std::process::id(),
        name.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let core = format!("{} serve-protocol", cli.display());
    let mut check = Command::new(cli);
    check
        .args(["check", "--corpus", "corpus/dialects", "--cases", "60"])
        .args(["--implementation", implementation])
        .args(["--implementation", &core, "--report"])
        .arg(dir.join("report.md"))
        .arg("--counterexamples")
        .arg(dir.join("counterexamples"))
        .current_dir(root());
    for (key, value) in envs {
        check.env(key, value);
    }
    let out =
        tools::run_with_deadline(check, Duration::from_secs(600)).expect("flatjoin check ran");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{name} through the protocol:\n{text}");
    let json = std::fs::read_to_string(dir.join("report.json")).expect("JSON results");
    let results: Value = serde_json::from_str(&json).expect("JSON results parse");
    let find = |wanted: &str| {
        results["implementations"]
            .as_array()
            .and_then(|l| l.iter().find(|i| i["implementation"]["name"] == wanted))
            .unwrap_or_else(|| panic!("no implementation {wanted:?} in {results}"))
    };
    let (imp, flatjoin) = (find(name), find("flatjoin"));
    assert_eq!(imp["crashed"], 0, "{imp}");
    let oracles = imp["oracles"].as_object().expect("per-oracle cells");
    for (oracle, cell) in oracles {
        assert_eq!(cell["violations"], 0, "{name}, {oracle}: {cell}");
        assert_eq!(
            *cell, flatjoin["oracles"][oracle],
            "{name}, {oracle}: the package's counts against the core's"
        );
    }
    assert!(
        imp["oracles"]["soundness"]["passed"].as_u64() > Some(100),
        "{name}: {}",
        imp["oracles"]["soundness"]
    );
}
