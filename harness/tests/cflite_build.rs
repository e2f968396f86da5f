//! Runs `.clusterfuzzlite/build.sh` (SPEC §6 decision 56) with `$SRC` and `$OUT` in a temporary
//! folder and a stand-in for `cargo fuzz` on `PATH` (the real build takes minutes with nightly
//! and AddressSanitizer; `fuzz/overnight.sh --smoke` in `.ci/run` covers it): every target's binary
//! and dictionary reach `$OUT`, and its seed corpus zip holds exactly the seeds `fuzz-corpus`
//! generates plus the hand-picked ones of `fuzz/seeds/<target>/`. Needs `zip` (which the
//! ClusterFuzzLite builder installs) and `unzip`: without them the test fails under `CI` and
//! is shown as ignored otherwise (`flatjoin_test_support::runner`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

flatjoin_test_support::tests! {
    the_clusterfuzzlite_build_ships_each_target_with_generated_seeds needs ZIP;
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `[[bin]]` names of `fuzz/Cargo.toml`: the fuzz targets.
fn targets() -> Vec<String> {
    let manifest =
        std::fs::read_to_string(root().join("fuzz/Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_bin = line.trim() == "[[bin]]";
        } else if in_bin && let Some(value) = line.strip_prefix("name = ") {
            names.push(value.trim().trim_matches('"').to_owned());
        }
    }
    names
}

/// The file names in a zip archive.
fn zip_entries(zip: &Path) -> BTreeSet<String> {
    let out = Command::new("unzip")
        .arg("-Z1")
        .arg(zip)
        .output()
        .expect("unzip runs");
    assert!(out.status.success(), "unzip -Z1 {}", zip.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.ends_with('/'))
        .map(|l| l.trim_start_matches("./").to_owned())
        .collect()
}

fn file_names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn the_clusterfuzzlite_build_ships_each_target_with_generated_seeds() {
    let temp = std::env::temp_dir().join(format!("flatjoin-cflite-{}", std::process::id()));
    let (src, out, bin) = (temp.join("src"), temp.join("out"), temp.join("bin"));
    let project = src.join("flatjoin");
    for dir in [&out, &bin, &project.join("fuzz/seeds/join_structured")] {
        std::fs::create_dir_all(dir).expect("temp dirs");
    }
    for file in ["fuzz/Cargo.toml", "fuzz/dict"] {
        std::fs::copy(root().join(file), project.join(file)).expect("copy");
    }
    // One hand-picked seed, which must reach the zip beside the generated ones.
    std::fs::write(
        project.join("fuzz/seeds/join_structured/hand-picked"),
        b"\x01\x02",
    )
    .expect("seed");
    let targets = targets();
    assert!(
        targets.len() >= 5,
        "fuzz/Cargo.toml names the targets: {targets:?}"
    );
    // `cargo fuzz build` writes a stand-in binary per target; `cargo fuzz list` lists them;
    // any other cargo command is a failure (build.sh must use $FUZZ_CORPUS, given below).
    let triple = String::from_utf8(
        Command::new("rustc")
            .arg("-vV")
            .output()
            .expect("rustc")
            .stdout,
    )
    .expect("utf-8")
    .lines()
    .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
    .expect("host triple");
    let stub = format!(
        "#!/bin/bash\ncase \"$1 $2\" in\n  'fuzz build') echo \"$RUSTC_WRAPPER|$RUSTFLAGS\" > ../build-env && mkdir -p target/{triple}/release && for t in {names}; do echo \"stand-in $t\" > target/{triple}/release/$t; done ;;\n  'fuzz list') printf '%s\\n' {names} ;;\n  *) echo \"unexpected: cargo $*\" >&2; exit 3 ;;\nesac\n",
        names = targets.join(" ")
    );
    std::fs::write(bin.join("cargo"), stub).expect("stub");
    let chmod = Command::new("chmod")
        .arg("+x")
        .arg(bin.join("cargo"))
        .status()
        .expect("chmod");
    assert!(chmod.success());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("bash")
        .arg(root().join(".clusterfuzzlite/build.sh"))
        .env("SRC", &src)
        .env("OUT", &out)
        .env("PATH", path)
        .env("FUZZ_CORPUS", env!("CARGO_BIN_EXE_fuzz-corpus"))
        .env_remove("RUSTFLAGS")
        .env_remove("SANITIZER")
        .output()
        .expect("bash runs build.sh");
    assert!(
        run.status.success(),
        "build.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    // The fuzzing build is scoped (SPEC §6 decision 55): the wrapper is the repository's, and the
    // `--cfg` that makes cargo rebuild rather than mix scoped and unscoped crates is set.
    let build_env = std::fs::read_to_string(project.join("build-env")).expect("the stub ran");
    assert_eq!(
        build_env.trim_end(),
        format!(
            "{}|--cfg=flatjoin_coverage_scope",
            project.join("fuzz/coverage-scope.sh").display()
        ),
        "RUSTC_WRAPPER|RUSTFLAGS of `cargo fuzz build`"
    );
    // The seeds fuzz-corpus generates, written separately to compare with.
    let expected = temp.join("expected");
    let generated = Command::new(env!("CARGO_BIN_EXE_fuzz-corpus"))
        .arg("seeds")
        .arg(&expected)
        .output()
        .expect("fuzz-corpus runs");
    assert!(generated.status.success());
    let dict = std::fs::read(root().join("fuzz/dict")).expect("dict");
    for target in &targets {
        assert_eq!(
            std::fs::read_to_string(out.join(target)).ok().as_deref(),
            Some(format!("stand-in {target}\n").as_str()),
            "{target}: the built binary is copied to $OUT"
        );
        assert_eq!(
            std::fs::read(out.join(format!("{target}.dict"))).ok(),
            Some(dict.clone())
        );
        let mut want = file_names(&expected.join(target));
        assert!(!want.is_empty(), "{target}: fuzz-corpus generated no seeds");
        if target == "join_structured" {
            want.insert("hand-picked".to_owned());
        }
        let zip = out.join(format!("{target}_seed_corpus.zip"));
        assert_eq!(zip_entries(&zip), want, "{target}: the seed corpus zip");
    }
    std::fs::remove_dir_all(&temp).ok();
}
