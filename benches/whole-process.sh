#!/usr/bin/env bash
# Whole-process comparison: the `flatjoin` binary against the `floor` binary on the same inputs,
# CPU time and peak memory from getrusage, pairwise alternated, medians of the pairwise ratios.
# Writes flatjoin-whole-process.tsv into criterion's folder, where the report generator
# (`cargo run -r -p flatjoin-benches`) puts it into reports/join-cost.md.
#
# Usage: bash benches/whole-process.sh [--quick] [--runs K]   (honours CARGO_TARGET_DIR and
# CRITERION_HOME like the benchmark)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
criterion_home="${CRITERION_HOME:-$target_dir/criterion}"
mkdir -p "$criterion_home"

cli_package="$(cargo metadata --no-deps --format-version 1 \
    | python3 -c 'import json,sys; print(next(p["name"] for p in json.load(sys.stdin)["packages"] for t in p["targets"] if t["name"] == "flatjoin" and "bin" in t["kind"]))')"
cargo build -r -p "$cli_package" --bin flatjoin
cargo build -r -p flatjoin-benches --bin floor --bin whole-process
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$target_dir/release/whole-process" --out "$criterion_home/flatjoin-whole-process.tsv" "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$criterion_home/flatjoin-whole-process.tsv"
