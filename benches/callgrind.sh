#!/usr/bin/env bash
# Instruction counts of the join and the deep clone under callgrind, for the scaling slices.
#
# Wall-clock times on a shared 2-core machine move with its load; instruction counts do not (the
# same binary and input give the same count). This runs `join-instructions CASE OP` under
# `valgrind --tool=callgrind`, collecting only inside its `measured` function, for every case of
# the N and P slices up to --max-n branches (default 512; callgrind runs ~50x slower), and writes
# `group<TAB>op<TAB>instructions` lines to flatjoin-instructions.tsv in criterion's folder, where
# the report generator (`cargo run -r -p flatjoin-benches`) picks them up.
#
# Usage: bash benches/callgrind.sh [--max-n N]   (needs valgrind; honours CARGO_TARGET_DIR and
# CRITERION_HOME like the benchmark)
set -euo pipefail

max_n=512
if [[ "${1:-}" == "--max-n" ]]; then max_n="$2"; fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 2; }
target_dir="${CARGO_TARGET_DIR:-$root/target}"
criterion_home="${CRITERION_HOME:-$target_dir/criterion}"
mkdir -p "$criterion_home"
out="$criterion_home/flatjoin-instructions.tsv"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

cargo build --profile profiling -p flatjoin-benches --bin join-instructions
bin="$target_dir/profiling/join-instructions"

: > "$scratch/counts.tsv"
for id in $("$bin" --list | sort -u); do
    n="${id#*-n}"; n="${n%%-*}"
    if (( n > max_n )); then continue; fi
    line="$id"
    for op in clone join join_owned; do
        valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
            --callgrind-out-file="$scratch/cg.out" "$bin" "$id" "$op" 2>/dev/null
        count="$(awk '/^(summary|totals):/ {print $2; exit}' "$scratch/cg.out")"
        printf 'synthetic/%s\t%s\t%s\n' "$id" "$op" "$count" >> "$scratch/counts.tsv"
        line="$line $op=$count"
    done
    echo "$line"
done
mv "$scratch/counts.tsv" "$out"
echo "callgrind.sh: wrote $out"
