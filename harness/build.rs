//! Embeds the bundled corpus (`corpus/dialects`, `corpus/spec`, `corpus/manifests`) into the crate,
//! so the `runtime_diff` target and the seed generator carry their schemas with them (a fuzz binary
//! copied to a ClusterFuzzLite `$OUT` folder has no source tree beside it).
//!
//! The folders are read through the crate's own `corpus/` (symbolic links to the repository's
//! `corpus/<folder>`, which `cargo package` follows, so the published crate carries the files
//! themselves); where those links were checked out as plain files (Git on Windows without
//! symlinks), the repository's `../corpus` directly.

use std::collections::BTreeSet;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The harness's one corpus walk (`corpus::walk`), which depends on nothing but `std`.
#[path = "src/corpus/walk.rs"]
mod walk;

/// The corpus folders whose JSON files are embedded, relative to `corpus/`.
const FOLDERS: [&str; 3] = ["dialects", "spec", "manifests"];

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let own = manifest_dir.join("corpus");
    let corpus = if FOLDERS.iter().all(|f| own.join(f).is_dir()) {
        own
    } else {
        manifest_dir.join("../corpus")
    };
    if !FOLDERS.iter().all(|f| corpus.join(f).is_dir()) {
        panic!(
            "the bundled corpus is missing: no {FOLDERS:?} under {}",
            corpus.display()
        );
    }
    // (name below `corpus/`, the file's canonical path for `include_bytes!`)
    let mut files = Vec::new();
    for folder in FOLDERS {
        let dir = corpus.join(folder);
        // Watching the folders (not only their files) notices added and removed files.
        println!("cargo::rerun-if-changed={}", dir.display());
        let found = walk::json_files(&dir, &[]);
        let folders: BTreeSet<_> = found.iter().filter_map(|f| f.parent()).collect();
        for folder in folders {
            println!("cargo::rerun-if-changed={}", folder.display());
        }
        for file in found {
            let relative = file.strip_prefix(&corpus).unwrap_or(&file);
            let name = relative.to_string_lossy().replace('\\', "/");
            let path = file.canonicalize().unwrap_or_else(|_| file.clone());
            files.push((name, path));
        }
    }
    files.sort();

    let mut code = String::from(
        "/// Every embedded corpus file: its path below `corpus/` and its bytes.\n\
         pub(crate) const CORPUS_FILES: &[(&str, &[u8])] = &[\n",
    );
    for (name, file) in &files {
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            file.display().to_string()
        );
    }
    code.push_str("];\n");

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let out = out_dir.join("corpus_files.rs");
    if let Err(error) = fs::write(&out, code) {
        panic!("cannot write {}: {error}", out.display());
    }
    protocol_files(&manifest_dir, &out_dir);
}

/// The protocol's message schemas and the bundled adapters, found the way the corpus is (the
/// crate's `protocol/v1` and `protocol/adapters` links, else the repository's `protocol/v1` and
/// `protocol/adapters`), as `include_str!` paths in `OUT_DIR/protocol_files.rs`: `SCHEMA_FILES` (name,
/// text) and `ADAPTER_NODE`, `ADAPTER_PYTHON`.
fn protocol_files(manifest_dir: &Path, out_dir: &Path) {
    let pick = |own: &str, repository: &str| {
        let own = manifest_dir.join(own);
        let dir = if own.is_dir() {
            own
        } else {
            manifest_dir.join(repository)
        };
        println!("cargo::rerun-if-changed={}", dir.display());
        dir.canonicalize().unwrap_or(dir)
    };
    let schemas = pick("protocol/v1", "../protocol/v1");
    let adapters = pick("protocol/adapters", "../protocol/adapters");
    let mut names: Vec<String> = fs::read_dir(&schemas)
        .unwrap_or_else(|e| panic!("the protocol schemas {}: {e}", schemas.display()))
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".schema.json"))
        .collect();
    names.sort();
    let path = |p: PathBuf| p.display().to_string();
    let mut code = String::from(
        "/// The message schemas of `protocol/v1/`, by file name, sorted.\n\
         pub(crate) const SCHEMA_FILES: &[(&str, &str)] = &[\n",
    );
    for name in &names {
        let file = path(schemas.join(name));
        let _ = writeln!(code, "    ({name:?}, include_str!({file:?})),");
    }
    code.push_str("];\n");
    for (constant, file) in [
        ("ADAPTER_NODE", "node/run.mjs"),
        ("ADAPTER_PYTHON", "python/run.py"),
    ] {
        let file = adapters.join(file);
        assert!(file.is_file(), "the adapter {} is missing", file.display());
        let _ = writeln!(
            code,
            "/// `protocol/adapters/{}`.\npub(crate) const {constant}: &str = include_str!({:?});",
            file.strip_prefix(&adapters).unwrap_or(&file).display(),
            path(file.clone())
        );
    }
    let out = out_dir.join("protocol_files.rs");
    if let Err(error) = fs::write(&out, code) {
        panic!("cannot write {}: {error}", out.display());
    }
}
