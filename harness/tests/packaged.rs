//! What the published crate carries from outside its folder (a packaged crate cannot reach past
//! its own directory): the crate's `protocol/v1`, `protocol/adapters` and `corpus/<folder>` are
//! symbolic links to the repository's `protocol/v1`, `adapters` and `corpus/<folder>`, which
//! `cargo package` follows; the build script embeds through them (or, where Git checked a link
//! out as a file, from the repository's folder directly) every protocol schema, both adapters and
//! exactly the JSON files of the corpus folders.
//!
//! `cargo publish --dry-run` (the `.ci/run` step) checks that the packaged crate builds.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn root() -> PathBuf {
    crate_dir().join("..")
}

/// Panics unless the crate's `link` points at `target` (relative to the link's folder): a
/// symbolic link, or where Git had none, a file holding the target.
fn assert_link(link: &str, target: &str) {
    let path = crate_dir().join(link);
    let metadata =
        std::fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let found = if metadata.file_type().is_symlink() {
        std::fs::read_link(&path).expect("a link")
    } else {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        PathBuf::from(text.trim())
    };
    assert_eq!(found, Path::new(target), "{}", path.display());
}

#[test]
fn the_crates_links_reach_the_repositorys_folders() {
    assert_link("protocol/v1", "../../protocol/v1");
    assert_link("protocol/adapters", "../../protocol/adapters");
    for folder in FOLDERS {
        assert_link(
            &format!("corpus/{folder}"),
            &format!("../../corpus/{folder}"),
        );
    }
}

#[test]
fn every_protocol_schema_and_both_adapters_are_embedded() {
    let dir = root().join("protocol/v1");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("protocol/v1")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".schema.json"))
        .collect();
    names.sort();
    let embedded: Vec<&str> = flatjoin_harness::protocol::SCHEMAS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(embedded, names);
    for (name, text) in flatjoin_harness::protocol::SCHEMAS {
        let original = std::fs::read_to_string(dir.join(name)).expect("readable");
        assert_eq!(*text, original, "{name} embedded stale");
    }
    use flatjoin_harness::protocol::adapters;
    for (text, file) in [
        (adapters::NODE, "node/run.mjs"),
        (adapters::PYTHON, "python/run.py"),
    ] {
        let original =
            std::fs::read_to_string(root().join("protocol/adapters").join(file)).expect("readable");
        assert_eq!(text, original, "{file} embedded stale");
    }
}

/// The folders `build.rs` embeds (its `FOLDERS`).
const FOLDERS: [&str; 3] = ["dialects", "spec", "manifests"];

#[cfg(feature = "arbitrary")]
#[test]
fn the_build_script_embedded_every_file_of_the_corpus_folders() {
    let corpus = root().join("corpus");
    let mut expected = Vec::new();
    for folder in FOLDERS {
        for file in flatjoin_harness::corpus::walk::json_files(&corpus.join(folder), &[]) {
            let relative = file.strip_prefix(&corpus).expect("below corpus/");
            expected.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    expected.sort();
    let embedded: Vec<String> = flatjoin_harness::fuzz::embedded::files()
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    assert_eq!(embedded, expected);
    for (name, bytes) in flatjoin_harness::fuzz::embedded::files() {
        let original = std::fs::read(corpus.join(name)).expect("readable");
        assert!(*bytes == original.as_slice(), "{name} embedded stale");
    }
}
