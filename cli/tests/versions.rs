//! One version across the crates, the npm package and the PyPI package (what a release tags), and
//! `CHANGELOG.md`'s newest entry names it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The value of the first `key = "…"` line after the line `section`.
fn toml_string(text: &str, section: &str, key: &str) -> Option<String> {
    let start = text.lines().position(|l| l.trim() == section)?;
    text.lines()
        .skip(start + 1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
        })
}

#[test]
fn one_version_across_crates_npm_pypi_and_the_changelog() {
    let workspace = toml_string(&read("Cargo.toml"), "[workspace.package]", "version")
        .expect("[workspace.package] version");
    assert!(
        workspace.split('.').count() == 3,
        "not a version: {workspace}"
    );
    // Every crate of the workspace takes it.
    for krate in [
        "core",
        "harness",
        "cli",
        "benches",
        "bindings/surfaces",
        "bindings/edge",
        "bindings/node",
        "bindings/python",
    ] {
        let text = read(&format!("{krate}/Cargo.toml"));
        assert!(
            text.contains("version.workspace = true"),
            "{krate}/Cargo.toml does not take the workspace's version"
        );
    }
    // The npm package states it.
    let package: serde_json::Value =
        serde_json::from_str(&read("bindings/node/package.json")).expect("package.json");
    assert_eq!(
        package["version"],
        workspace.as_str(),
        "bindings/node/package.json"
    );
    // The PyPI package takes it from the crate (maturin), and states none of its own.
    let pyproject = read("bindings/python/pyproject.toml");
    assert_eq!(
        toml_string(&pyproject, "[project]", "version"),
        None,
        "bindings/python/pyproject.toml states a version of its own"
    );
    assert_eq!(
        toml_string(&pyproject, "[project]", "dynamic").as_deref(),
        Some("[\"version\"]"),
        "bindings/python/pyproject.toml: dynamic = [\"version\"]"
    );
    // The changelog's newest entry names it.
    let changelog = read("CHANGELOG.md");
    let newest = changelog
        .lines()
        .find(|l| l.starts_with("## "))
        .expect("an entry");
    assert!(
        newest[3..].starts_with(&workspace),
        "CHANGELOG.md's newest entry is {newest:?}, the version {workspace}"
    );
}
