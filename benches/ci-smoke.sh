#!/usr/bin/env bash
# CI smoke run of the join benchmarks: keeps the bench code and the report generator from rotting.
#
# Runs every benchmark of the smoke profile (shapes up to N = 32, the whole corpus) with minimal
# measurement times, then generates the report from those results into a temporary folder and
# checks that it was written. Timing targets are never asserted here: the numbers of a smoke run on
# a busy machine mean nothing; the published report comes from the full profile
# (`cargo bench -p flatjoin-benches && cargo run -r -p flatjoin-benches`).
#
# Usage: bash benches/ci-smoke.sh   (from anywhere; honours CARGO_TARGET_DIR)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Criterion writes into its own folder; a scratch one keeps the smoke numbers away from a real run.
export CRITERION_HOME="$scratch/criterion"
export FLATJOIN_BENCH_PROFILE=smoke

echo "== flatjoin-benches: smoke benchmarks"
cargo bench -p flatjoin-benches > "$scratch/bench.log" 2>&1 || {
    tail -n 60 "$scratch/bench.log"
    echo "ci-smoke: cargo bench failed" >&2
    exit 1
}
grep -c 'time:' "$scratch/bench.log" | sed 's/^/benchmarks measured: /'

echo "== flatjoin-benches: report from the smoke results"
# `cargo bench` also built the report binary (cargo builds a package's binaries for its benches),
# with the same features; running it directly avoids a second release build.
report="$target_dir/release/join-report"
if [[ ! -x "$report" ]]; then
    cargo build -r -p flatjoin-benches --bin join-report
fi
"$report" --criterion "$CRITERION_HOME" --out "$scratch/report"

test -s "$scratch/report/join-cost.md" || { echo "ci-smoke: no report written" >&2; exit 1; }
for plot in time-vs-n-mixed time-vs-p-mixed clone-ratio compile-ratio memory-vs-n; do
    test -s "$scratch/report/join-cost/$plot.svg" || { echo "ci-smoke: plot $plot.svg missing" >&2; exit 1; }
done
echo "ci-smoke: ok"
