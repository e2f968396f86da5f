#!/usr/bin/env bash
# In-process cost of the Node.js and Python packages: each package's flatten against its own
# process's floor (structuredClone in Node.js, copy.deepcopy in Python) and against spawning the
# `flatjoin` binary, on every corpus dialect sample and manifest and on the whole-process
# benchmark's synthetic inputs (`whole-process --write`: the 500-tool manifest and two shapes of
# its sweep among them, the goal's three inputs); on the synthetic inputs also the JavaScript peers
# of bindings/node/bench/peers.mjs side by side with the Node.js package in one process (installed
# by `npm ci` from bindings/node/bench/package-lock.json), and where a Node.js call's time goes.
# Writes the "In process" section of reports/join-cost.md (between its markers; the join-report
# generator keeps that section when it rewrites the rest).
#
# Usage: bash bindings/bench.sh   (honours CARGO_TARGET_DIR)
#
# Everything measured is built in the `dist` profile, the build the npm and PyPI packages and the
# release archives ship (fat LTO, one codegen unit); the addons with the bench-only exports on.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
work="$target_dir/bindings/bench"
rm -rf "$work"
mkdir -p "$work/inputs" "$work/node" "$work/python/flatjoin"

cargo build --profile dist -p flatjoin-cli --bin flatjoin
cargo build -r -p flatjoin-benches --bin whole-process
cargo build --profile dist -p flatjoin-node -p flatjoin-python \
    --features flatjoin-node/bench-object-conversion,flatjoin-node/bench-phases,flatjoin-python/bench-object-conversion
(cd bindings/node/bench && npm ci --ignore-scripts --no-audit --no-fund)

"$target_dir/release/whole-process" --write "$work/inputs" > "$work/inputs/labels.tsv"
# The package as index.js loads it: beside it the addon under its napi-rs platform name.
cp bindings/node/index.js bindings/node/platform.js bindings/node/package.json "$work/node/"
addon="flatjoin.$(node -p "require('./bindings/node/platform.js').platform()").node"
cp "$target_dir/dist/libflatjoin_node.so" "$work/node/$addon"
cp bindings/python/python/flatjoin/__init__.py "$work/python/flatjoin/"
cp "$target_dir/dist/lib_native.so" "$work/python/flatjoin/_native.abi3.so"

mapfile -t corpus < <(find corpus/dialects corpus/manifests -name '*.json' | sort)
# The inputs up to the 500-tool manifest's size class; the 7-35 MB single schemas of the
# whole-process benchmark would take minutes per row here (a Python deepcopy of 35 MB alone). Of
# the sweep, two shapes of moderate size that stand for what users send: one union of models used
# in 200 fields as Pydantic v2 writes it (0.9 MB), and a manifest of 200 differently shaped tools
# (1.3 MB). The goal's rows (bench_report.py's GOAL_INPUTS) must be among these.
mapfile -t synthetic < <(grep -E \
    $'\t(1 KB schema|32 branches|1001 nested|4001 nested|manifest of 500|`pydantic-models-200`|`manifest-varied-200`)' \
    "$work/inputs/labels.tsv" | cut -f1)
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
node bindings/node/bench/bench.mjs "$work/node" "$target_dir/dist/flatjoin" \
    "${synthetic[@]}" "${corpus[@]}" | tee "$work/node.tsv"
node bindings/node/bench/bench.mjs --peers "$work/node" "${synthetic[@]}" | tee "$work/node-peers.tsv"
node bindings/node/bench/bench.mjs --breakdown "$work/node" "${synthetic[@]}" | tee "$work/node-breakdown.tsv"
python3 bindings/python/bench/bench.py "$work/python" "$target_dir/dist/flatjoin" \
    "${synthetic[@]}" "${corpus[@]}" | tee "$work/python.tsv"
finished="$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 bindings/bench_report.py "$work" "$root/reports/join-cost.md" \
    "commit=$(git rev-parse --short=12 HEAD)" "node=$(node --version)" \
    "python=$(python3 --version | cut -d' ' -f2)" "run=$started → $finished" \
    "load=$load_before → $load_after" "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) ($(nproc) cores available)"
