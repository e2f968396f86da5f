#!/usr/bin/env bash
# rustc wrapper for the fuzz builds (SPEC §6 decision 55): keeps the judges out of libFuzzer's
# coverage map. cargo-fuzz asks rustc for SanitizerCoverage on every crate (`-Cpasses=sancov-module`
# in RUSTFLAGS); this wrapper drops that pass for every package but those named below, so the
# independent validators (`jsonschema`, `boon`, `fancy-regex`, their URL, IDNA and number crates)
# and every other dependency still run, AddressSanitizer included, without edges: libFuzzer
# neither counts them as features nor walks their counters after each execution.
#
# Instrumented: the fuzz targets, the core, the harness (the generators' decoding, and its oracles:
# one crate), the input decoders (`arbitrary`, `proptest`) and the crates the join itself calls
# (`serde_json`; `regex` with its engine crates; `referencing` with its URI parser). Generic code
# is instrumented where it is instantiated: a `serde_json` function monomorphized inside
# `jsonschema` stays out, one inside the core stays in.
#
# fuzz/overnight.sh (unless FUZZ_COVERAGE_SCOPE=0) and .clusterfuzzlite/build.sh build through it
# (reports/fuzz.md measures the gain against reports/unscoped/fuzz.md); by hand:
#   RUSTC_WRAPPER=$PWD/fuzz/coverage-scope.sh RUSTFLAGS=--cfg=flatjoin_coverage_scope \
#       cargo +nightly fuzz build -O -a
# The `--cfg` is the part cargo sees (it does not fingerprint the wrapper): a build without it
# rebuilds everything instead of mixing scoped and unscoped crates in fuzz/target.
# `fuzz/sancov-edges.sh` counts the edges per crate of a build.
set -euo pipefail
INSTRUMENTED=" flatjoin-fuzz flatjoin flatjoin-harness arbitrary proptest serde_json regex regex-automata regex-syntax aho-corasick memchr referencing fluent-uri "
rustc=$1
shift
case "$INSTRUMENTED" in
    *" ${CARGO_PKG_NAME:-} "*) exec "$rustc" "$@" ;;
esac
args=()
drop_next=0
for arg in "$@"; do
    if [ "$drop_next" = 1 ]; then
        drop_next=0
        [ "$arg" = "passes=sancov-module" ] && continue
        args+=("-C")
    fi
    case "$arg" in
        -Cpasses=sancov-module) continue ;;
        -C) drop_next=1; continue ;;
    esac
    args+=("$arg")
done
[ "$drop_next" = 1 ] && args+=("-C")
exec "$rustc" "${args[@]}"
