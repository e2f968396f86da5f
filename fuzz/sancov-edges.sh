#!/usr/bin/env bash
# The SanitizerCoverage edges (inline 8-bit counters) of a cargo-fuzz build, per crate and in one
# target binary: which crates feed libFuzzer's coverage map (SPEC §6 decision 55).
#
#   fuzz/sancov-edges.sh [TARGET]      (default join_structured; after `cargo +nightly fuzz build -O -a`)
#   FUZZ_DIR=other/fuzz fuzz/sancov-edges.sh   (the build of another checkout)
#
# Per crate: the sizes of the `__sancov_cntrs` sections of the objects in its rlib (one byte per
# edge, before the linker drops unused functions). The binary: the size of its `__sancov_cntrs`
# section, which is libFuzzer's "inline 8-bit counters" count.
set -euo pipefail
FUZZ=${FUZZ_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
TARGET=${1:-join_structured}
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
RELEASE="$FUZZ/target/$TRIPLE/release"
counters() { # FILE: the summed size of its __sancov_cntrs sections
    local sum=0 size
    while read -r size; do sum=$(( sum + 16#$size )); done \
        < <(objdump -h "$1" 2>/dev/null | awk '$2 == "__sancov_cntrs" { print $3 }')
    echo "$sum"
}
echo "crate,edges"
# The newest rlib of each crate (an older build of it may still lie beside it).
declare -A seen=()
while IFS= read -r rlib; do
    crate=$(basename "$rlib" .rlib | sed 's/^lib//; s/-[0-9a-f]*$//')
    [ -z "${seen[$crate]:-}" ] || continue
    seen[$crate]=1
    echo "$crate,$(counters "$rlib")"
done < <(ls -t "$RELEASE"/deps/lib*.rlib) | sort -t, -k2,2nr
echo "binary $TARGET,$(counters "$RELEASE/$TARGET")"
