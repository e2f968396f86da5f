//! Installed, not built (SPEC §6 decision 72): this machine's artifacts packed the way the release
//! packs them, installed into a fresh project and a fresh venv with cargo and rustc off the `PATH`,
//! and used the way a TypeScript or Python engineer uses them.
//!
//! - npm: the `flatjoin` package and this platform's `flatjoin-<platform>` package (the addon and
//!   the `flatjoin` binary), staged as the release stages them and `npm pack`ed; `npm install`
//!   of both tarballs (install scripts allowed: none may need cargo) and the pinned Zod, ajv and
//!   MCP SDK; then the package's own Zod and MCP tests, importing `flatjoin` by name; then
//!   `npx flatjoin check --implementation 'node ./FILE#flatten'` against a wrong flattener (exit 1)
//!   and against the installed package itself (exit 0).
//! - PyPI: the wheel `bindings/python/pack.py` makes with maturin (the extension and the binary),
//!   installed with pip into a fresh venv with the pinned test dependencies and uv; the package's
//!   own Pydantic and MCP tests; then `uvx --from WHEEL flatjoin check --implementation 'python -m
//!   MODULE:flatten'` against a wrong flattener (exit 1) and against the installed package (0).
//!
//! The judged runs are small (`--cases 8 --open-world-cases 8`) on the corpus the binary carries
//! (there is no `corpus/` in the fresh project). Without Node.js, npm or a Python that makes venvs,
//! a test fails under `CI` and is shown as ignored otherwise (`flatjoin_test_support::runner`); a
//! failed install is a failure.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

use flatjoin_test_support::packages as support;
use flatjoin_test_support::tools;

flatjoin_test_support::tests! {
    the_npm_packages_install_and_run_without_rust needs NODE, NPM;
    the_wheel_installs_and_runs_without_rust needs PYTHON3_VENV;
}

/// The packages' libraries and the `flatjoin` binary, built with this test's own features (the
/// nested build replaces the binary the CLI's other tests run; see `support::build_with`).
fn build_packages() -> support::Built {
    if cfg!(feature = "fault-injection") {
        support::build_with(&["flatjoin-cli/fault-injection"])
    } else {
        support::build()
    }
}

/// A fresh directory under the test's target directory.
fn fresh(name: &str) -> PathBuf {
    let (target, _) = support::target_dir();
    let dir = target.join("installed").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a fresh directory");
    dir
}

/// `PATH` without every folder that holds `cargo` or `rustc`.
fn path_without_rust() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| {
            !["cargo", "rustc", "cargo.exe", "rustc.exe"]
                .iter()
                .any(|tool| dir.join(tool).exists())
        })
        .collect();
    std::env::join_paths(kept).expect("a PATH")
}

/// A command with no Rust toolchain in reach: `PATH` without cargo and rustc, and none of the
/// variables cargo sets for a test (`CARGO`, `RUSTC`, …) that could lead back to it.
fn without_rust(program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
    let mut command = Command::new(program);
    command.current_dir(dir).env("PATH", path_without_rust());
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("CARGO") || key.starts_with("RUSTC") || key.starts_with("RUSTUP") {
            command.env_remove(key);
        }
    }
    command
}

/// Runs `command` (at most `minutes`), prints its output, and checks its exit code.
fn expect(command: Command, what: &str, code: i32, minutes: u64) -> Output {
    let out = tools::run_with_deadline(command, Duration::from_secs(60 * minutes))
        .unwrap_or_else(|why| panic!("{what}: {why}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("--- {what}\n{stdout}");
    eprintln!("--- {what}\n{stderr}");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: exit {:?}, expected {code}\n{}\n{}",
        out.status.code(),
        stdout.lines().rev().take(30).collect::<Vec<_>>().join("\n"),
        stderr.lines().rev().take(30).collect::<Vec<_>>().join("\n"),
    );
    out
}

/// The check that the toolchain is really gone: `cargo --version` cannot start.
fn assert_no_rust(dir: &Path) {
    for tool in ["cargo", "rustc"] {
        let ran = without_rust(tool, dir).arg("--version").output();
        assert!(
            ran.is_err(),
            "{tool} is still reachable with the PATH the install uses"
        );
    }
}

/// A `flatjoin check --implementation` run of one flattener, small and on the bundled corpus: it
/// exits `code` (1: a guarantee broken; 0: every one held) and says so in its last line.
fn judged(mut judge: Command, what: &str, implementation: &str, code: i32) {
    judge
        .args([
            "check",
            "--cases",
            "8",
            "--open-world-cases",
            "8",
            "--timeout",
            "20",
        ])
        .arg("--implementation")
        .arg(implementation);
    let out = expect(judge, what, code, 10);
    let clean = if code == 0 { 1 } else { 0 };
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("1 implementations: {clean} held every guarantee")),
        "{what}: the verdict line is missing"
    );
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).expect("a folder");
    }
    std::fs::copy(from, to)
        .unwrap_or_else(|e| panic!("copy {} to {}: {e}", from.display(), to.display()));
}

/// The two npm packages as the release stages them (the release runs `napi pre-publish`, which
/// adds the `optionalDependencies`; here only this platform's), packed: the tarballs' paths.
fn npm_tarballs(built: &support::Built, stage: &Path) -> Vec<PathBuf> {
    let node = support::root().join("bindings/node");
    let platform = support::napi_platform();
    let main = stage.join("flatjoin");
    let mut manifest = json_file(&node.join("package.json"));
    for file in manifest["files"].as_array().expect("package.json files") {
        let file = file.as_str().expect("a file name");
        copy(&node.join(file), &main.join(file));
    }
    let version = manifest["version"].clone();
    manifest["optionalDependencies"] = json!({ format!("flatjoin-{platform}"): version });
    // What the release's package.json would not carry: the checkout's development tools.
    manifest
        .as_object_mut()
        .expect("an object")
        .remove("devDependencies");
    std::fs::write(
        main.join("package.json"),
        serde_json::to_string_pretty(&manifest).expect("printable"),
    )
    .expect("package.json");
    let native = stage.join(format!("flatjoin-{platform}"));
    for file in ["package.json", "README.md"] {
        copy(
            &node.join("npm").join(&platform).join(file),
            &native.join(file),
        );
    }
    copy(
        &built.node_addon,
        &native.join(format!("flatjoin.{platform}.node")),
    );
    let exe = if cfg!(windows) {
        "flatjoin.exe"
    } else {
        "flatjoin"
    };
    copy(&built.cli, &native.join(exe));
    let packs = stage.join("packs");
    std::fs::create_dir_all(&packs).expect("packs");
    [native, main]
        .iter()
        .map(|dir| {
            let mut pack = Command::new("npm");
            pack.current_dir(dir)
                .args(["pack", "--silent", "--pack-destination"])
                .arg(&packs);
            let out = expect(pack, "npm pack", 0, 5);
            let name = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            packs.join(name.lines().last().unwrap_or_default())
        })
        .collect()
}

fn the_npm_packages_install_and_run_without_rust() {
    let built = build_packages();
    let stage = fresh("npm-stage");
    let tarballs = npm_tarballs(&built, &stage);
    let project = fresh("npm-project");
    std::fs::write(
        project.join("package.json"),
        r#"{"name": "installed-test", "private": true, "type": "module"}"#,
    )
    .expect("package.json");
    let node = support::root().join("bindings/node");
    let dev = json_file(&node.join("package.json"))["devDependencies"].clone();
    let pinned: Vec<String> = ["zod", "ajv", "@modelcontextprotocol/sdk"]
        .iter()
        .map(|name| format!("{name}@{}", dev[name].as_str().expect("a pinned version")))
        .collect();
    assert_no_rust(&project);
    let mut install = without_rust("npm", &project);
    install
        .args(["install", "--no-audit", "--no-fund"])
        .args(&tarballs)
        .args(&pinned);
    expect(install, "npm install of the packed packages", 0, 10);
    let platform = support::napi_platform();
    assert!(
        project
            .join(format!(
                "node_modules/flatjoin-{platform}/flatjoin.{platform}.node"
            ))
            .is_file(),
        "the prebuilt addon did not come from its package"
    );
    // The package's own Zod and MCP tests, which import `flatjoin` by name.
    for test in ["zod.test.mjs", "mcp.test.mjs"] {
        copy(
            &node.join("test").join(test),
            &project.join("test").join(test),
        );
    }
    let mut tests = without_rust("node", &project);
    tests.args([
        "--test",
        "--test-reporter=spec",
        "test/zod.test.mjs",
        "test/mcp.test.mjs",
    ]);
    let out = expect(tests, "node --test on the installed package", 0, 10);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ℹ fail 0") && stdout.contains("ℹ skipped 0"));
    assert!(stdout.contains("zod:") && stdout.contains("mcp:"));
    let version = json_file(&node.join("package.json"))["version"]
        .as_str()
        .expect("a version")
        .to_owned();
    let mut npx = without_rust("npx", &project);
    npx.args(["--no-install", "flatjoin", "--version"]);
    let out = expect(npx, "npx flatjoin --version", 0, 2);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&version));
    // The harness against a flattener, from the binary npm installed.
    let fixtures = support::root().join("cli/tests/fixtures/flatteners");
    copy(&fixtures.join("first-wins.mjs"), &project.join("wrong.mjs"));
    std::fs::write(
        project.join("right.mjs"),
        "import { flatten as join } from 'flatjoin';\n\
         export function flatten(schema, options) {\n  \
           return join(schema, { openBranches: options.open_branches, scope: options.scope }).schema;\n\
         }\n",
    )
    .expect("right.mjs");
    for (file, code) in [("wrong.mjs", 1), ("right.mjs", 0)] {
        let mut npx = without_rust("npx", &project);
        npx.args(["--no-install", "flatjoin"]);
        let what = format!("npx flatjoin check ({file})");
        judged(npx, &what, &format!("node ./{file}#flatten"), code);
    }
}

fn the_wheel_installs_and_runs_without_rust() {
    let built = build_packages();
    let (target, release) = support::target_dir();
    let dist = fresh("dist");
    // Building the wheel needs cargo (maturin compiles the extension); installing it must not.
    let mut pack = Command::new("python3");
    pack.current_dir(support::root())
        .arg("bindings/python/pack.py")
        .arg("--cli")
        .arg(&built.cli)
        .arg("--out")
        .arg(&dist)
        .arg("--target-dir")
        .arg(&target);
    if release {
        pack.arg("--release");
    }
    expect(pack, "bindings/python/pack.py", 0, 20);
    let wheel = std::fs::read_dir(&dist)
        .expect("dist")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("pack.py made a wheel");
    let project = fresh("py-project");
    assert_no_rust(&project);
    let venv = project.join("venv");
    let mut make = without_rust("python3", &project);
    make.args(["-m", "venv"]).arg(&venv);
    expect(make, "python3 -m venv", 0, 5);
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let python = bin.join("python");
    let mut install = without_rust(&python, &project);
    install
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(&wheel)
        .arg("-r")
        .arg(support::root().join("bindings/python/requirements.txt"))
        .arg("uv==0.13.9");
    expect(install, "pip install of the wheel", 0, 15);
    // The package's own Pydantic and MCP tests, against the installed package (no PYTHONPATH).
    let tests = support::root().join("bindings/python/test");
    for file in [
        "test_pydantic.py",
        "test_mcp.py",
        "shapes.py",
        "mcp_shape_server.py",
    ] {
        copy(&tests.join(file), &project.join("test").join(file));
    }
    let mut pytest = without_rust(&python, &project);
    pytest.args(["-m", "pytest", "-v", "-p", "no:cacheprovider", "test"]);
    let out = expect(pytest, "pytest on the installed package", 0, 10);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("test/test_pydantic.py::") && stdout.contains("test/test_mcp.py::"));
    assert!(!stdout.contains(" SKIPPED"), "a test was skipped");
    // The command-line tool the wheel put beside python.
    let mut version = without_rust(bin.join("flatjoin"), &project);
    version.arg("--version");
    expect(version, "flatjoin --version from the wheel", 0, 2);
    // The harness against a flattener, through uvx from the wheel.
    let fixtures = support::root().join("cli/tests/fixtures/flatteners");
    copy(&fixtures.join("identity.py"), &project.join("wrong.py"));
    copy(
        &fixtures.join("flatjoin_package.py"),
        &project.join("right.py"),
    );
    for (module, code) in [("wrong", 1), ("right", 0)] {
        let mut uvx = without_rust(bin.join("uvx"), &project);
        uvx.env("UV_CACHE_DIR", project.join("uv-cache"))
            .env("UV_NO_CONFIG", "1")
            .arg("--python")
            .arg(&python)
            .arg("--from")
            .arg(&wheel)
            .arg("flatjoin");
        let what = format!("uvx flatjoin check ({module})");
        let implementation = format!("{} -m {module}:flatten", python.display());
        judged(uvx, &what, &implementation, code);
    }
}
