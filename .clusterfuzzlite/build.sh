#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script for flatjoin, in the standard Rust layout: builds every
# cargo-fuzz target of fuzz/ and copies to $OUT each binary with its dictionary
# (<target>.dict) and its committed, minimized seed corpus (<target>_seed_corpus.zip, from
# fuzz/seeds/<target>/). Crashes found there replay on stable the way local ones do: save the
# input with `cargo run -p flatjoin-harness --bin fuzz-corpus -- save TARGET FILE OUT`.
#
# Tested without Docker: SRC=$(mktemp -d) OUT=$(mktemp -d); ln -s "$PWD" "$SRC/flatjoin";
# RUSTUP_TOOLCHAIN=nightly SRC=$SRC OUT=$OUT bash .clusterfuzzlite/build.sh

PROJECT_DIR=$SRC/flatjoin
cd "$PROJECT_DIR/fuzz"

# Optimized, with debug assertions and overflow checks (the flags fuzz/overnight.sh uses too).
cargo fuzz build -O --debug-assertions

TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
BUILD_DIR=$PROJECT_DIR/fuzz/target/$TRIPLE/release
for target in $(cargo fuzz list); do
    cp "$BUILD_DIR/$target" "$OUT/$target"
    cp "$PROJECT_DIR/fuzz/dict" "$OUT/$target.dict"
    if [ -d "$PROJECT_DIR/fuzz/seeds/$target" ] && [ -n "$(ls -A "$PROJECT_DIR/fuzz/seeds/$target")" ]; then
        rm -f "$OUT/${target}_seed_corpus.zip"
        (cd "$PROJECT_DIR/fuzz/seeds/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
done
