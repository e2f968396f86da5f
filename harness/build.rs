//! Embeds the bundled corpus (`corpus/dialects`, `corpus/spec`, `corpus/manifests`) into the crate,
//! so the `runtime_diff` target and the seed generator carry their schemas with them (a fuzz binary
//! copied to a ClusterFuzzLite `$OUT` folder has no source tree beside it).

use std::collections::BTreeSet;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

/// The harness's one corpus walk (`corpus::walk`), which depends on nothing but `std`.
#[path = "src/corpus/walk.rs"]
mod walk;

/// The corpus folders whose JSON files are embedded, relative to `corpus/`.
const FOLDERS: [&str; 3] = ["dialects", "spec", "manifests"];

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let corpus = manifest_dir.join("../corpus");
    let corpus = corpus.canonicalize().unwrap_or(corpus);
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
        files.extend(
            found
                .iter()
                .map(|f| f.canonicalize().unwrap_or_else(|_| f.clone())),
        );
    }
    files.sort();

    let mut code = String::from(
        "/// Every embedded corpus file: its path below `corpus/` and its bytes.\n\
         pub(crate) const CORPUS_FILES: &[(&str, &[u8])] = &[\n",
    );
    for file in &files {
        let relative = file.strip_prefix(&corpus).unwrap_or(file);
        let name = relative.to_string_lossy().replace('\\', "/");
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            file.display().to_string()
        );
    }
    code.push_str("];\n");

    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default()).join("corpus_files.rs");
    if let Err(error) = fs::write(&out, code) {
        panic!("cannot write {}: {error}", out.display());
    }
}
