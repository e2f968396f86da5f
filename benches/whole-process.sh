#!/usr/bin/env bash
# Whole-process comparison: the `flatjoin` binary against the `floor` binary on the same inputs
# (the benchmark's shapes and the shape sweep of benches/src/sweep.rs), CPU time and peak memory
# from getrusage (both built in the shipped `dist` profile), the binaries rotated run by run, medians of the per-run ratios; and the size of
# each input and of its presentation, both re-serialized minified, and their ratio. With
# `--before BIN --before-label TEXT`, an earlier `flatjoin` binary runs in the same rotation, so
# the report shows before and after from one run.
#
# Writes flatjoin-whole-process.tsv into criterion's folder and splices its section (with this
# command line, the run's times and load) into reports/join-cost.md, leaving the criterion-measured
# sections as they are; a later full report (`cargo run -r -p flatjoin-benches`) renders the same
# section from the same file.
#
# Usage: bash benches/whole-process.sh [--quick] [--runs K] [--only TEXT]
#                                      [--before BIN --before-label TEXT] [--no-report]
# (honours CARGO_TARGET_DIR and CRITERION_HOME like the benchmark)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
criterion_home="${CRITERION_HOME:-$target_dir/criterion}"
mkdir -p "$criterion_home"

report=yes
args=()
for arg in "$@"; do
    if [[ "$arg" == "--no-report" ]]; then report=no; else args+=("$arg"); fi
done

cli_package="$(cargo metadata --no-deps --format-version 1 \
    | python3 -c 'import json,sys; print(next(p["name"] for p in json.load(sys.stdin)["packages"] for t in p["targets"] if t["name"] == "flatjoin" and "bin" in t["kind"]))')"
# The measured binaries in the `dist` profile, the build the packages and release archives ship
# (fat LTO, one codegen unit): `release` cuts 16 codegen units whose inlining moves by about 2 %
# with unrelated changes, the ratios with it. The harness binaries stay in `release`.
cargo build --profile dist -p "$cli_package" --bin flatjoin
cargo build --profile dist -p flatjoin-benches --bin floor
cargo build -r -p flatjoin-benches --bin whole-process --bin join-report
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
FLATJOIN_WHOLE_PROCESS_COMMAND="bash benches/whole-process.sh $*" \
    "$target_dir/release/whole-process" --out "$criterion_home/flatjoin-whole-process.tsv" \
    --flatjoin "$target_dir/dist/flatjoin" --floor "$target_dir/dist/floor" \
    "${args[@]+"${args[@]}"}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$criterion_home/flatjoin-whole-process.tsv"
if [[ "$report" == yes ]]; then
    "$target_dir/release/join-report" --whole-process --criterion "$criterion_home"
fi
