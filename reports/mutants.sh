#!/usr/bin/env bash
# The mutation score of the join (`.cargo/mutants.toml`), in passes, then reports/mutants.md.
#
#   reports/mutants.sh [PASS...] [-- CARGO_MUTANTS_ARGS...]
#   (no PASS: core, harness, faults-core, faults-harness, then the summary; core-again on demand)
#
# PASS is one of (each writes target/mutants/<pass>/mutants.out):
#   core            every mutant of the modules in .cargo/mutants.toml, judged by the core's tests
#   core-again      the mutants `core` did not catch (missed, or new or moved since it ran), judged
#                   by the core's tests again: after tests are added for survivors, or code changed,
#                   cheaper than the whole core pass (outcomes match mutants by file, function and
#                   mutation, not by line: reports/mutants_summary.py)
#   harness         the mutants the core's passes did not catch, but the fault switches, judged by
#                   the harness's tests (its oracles judge the core independently)
#   faults-core     the fault switches (code that acts only when a fault is injected), judged by the
#                   core's tests with the faults compiled in (`--features fault-injection`)
#   faults-harness  the fault switches `faults-core` missed, judged by the harness's fault test
#                   (every fault must be caught by an oracle)
#   summary         python3 reports/mutants_summary.py target/mutants > reports/mutants.md
#
# Arguments after `--` go to every pass's `cargo mutants` (e.g. `-F 'in expand_wrappers$'` to judge
# a few functions only; the summary then counts the others as not judged). JOBS sets `-j`
# (default: cargo-mutants' one job; the machine is often shared). On 2 idle cores with JOBS=2, `core` takes about 35
# minutes, `harness` about 80 s per survivor.
set -euo pipefail
cd "$(dirname "$0")/.."

out=target/mutants
jobs=()
[ -z "${JOBS:-}" ] || jobs=(-j "$JOBS")
# The fault switches: fault selection, and the code under `#[cfg(feature = "fault-injection")]`
# or behind a fault's flag.
fault_re="in (faults|fault_is|Projector<'_>::required_keyword|Projector<'_>::all_closed|Digester::map|map_key)\$|replace (faults|fault_is) -> |faults\\.drop_null"
passes=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do passes+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")
[ ${#passes[@]} -gt 0 ] || passes=(core harness faults-core faults-harness summary)

command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants
mkdir -p "$out"
cargo mutants --list > "$out/all.txt"

# -F arguments matching exactly today's mutants that the named passes did not catch
# (`--not-caught`) or judged and missed (`--missed`), leaving out names matching EXCLUDE.
selected() { # --not-caught|--missed EXCLUDE PASS...
  local mode=$1 exclude=$2
  shift 2
  python3 reports/mutants_summary.py "$mode" "$out" "$@" | python3 -c 'import re, sys
exclude = sys.argv[1]
for line in sys.stdin:
    name = line.strip()
    if name and not (exclude and re.search(exclude, name)):
        print("-F"); print("^" + re.escape(name) + "$")' "$exclude"
}

run() {
  local pass=$1; shift
  echo "=== $pass: cargo mutants $*" >&2
  # Exit code 2 (mutants missed) and 3 (timeouts) are outcomes the summary reports.
  local rc=0
  mkdir -p "$out/$pass"
  # The command, one argument a line, for the summary.
  printf '%s\n' cargo mutants "${jobs[@]}" --output "$out/$pass" "$@" "${extra[@]}" > "$out/$pass/command.txt"
  cargo mutants "${jobs[@]}" --output "$out/$pass" "$@" "${extra[@]}" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ]
}

for pass in "${passes[@]}"; do
  case $pass in
    core) run core --test-package flatjoin ;;
    core-again)
      mapfile -t sel < <(selected --not-caught "$fault_re" core)
      if [ ${#sel[@]} -gt 0 ]; then run core-again --test-package flatjoin "${sel[@]}"; fi ;;
    harness)
      core_passes=(core)
      [ -f "$out/core-again/mutants.out/outcomes.json" ] && core_passes+=(core-again)
      mapfile -t sel < <(selected --not-caught "$fault_re" "${core_passes[@]}")
      if [ ${#sel[@]} -gt 0 ]; then run harness --test-package flatjoin-harness --timeout 400 "${sel[@]}"; fi ;;
    faults-core) run faults-core --features fault-injection --test-package flatjoin -F "$fault_re" ;;
    faults-harness)
      mapfile -t sel < <(selected --missed "" faults-core)
      if [ ${#sel[@]} -gt 0 ]; then
        run faults-harness --features fault-injection --test-package flatjoin-harness \
          --cargo-arg=--test=faults --timeout 900 "${sel[@]}"
      fi ;;
    summary) python3 reports/mutants_summary.py "$out" > reports/mutants.md ;;
    *) echo "reports/mutants.sh: unknown pass $pass" >&2; exit 1 ;;
  esac
done
