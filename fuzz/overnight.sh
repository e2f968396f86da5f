#!/usr/bin/env bash
# Overnight fuzzing of flatjoin: builds the cargo-fuzz targets, runs every target in parallel for
# the given time, merges and minimizes the corpora, minimizes each crash into
# corpus/regressions/, and writes reports/fuzz.md.
#
#   fuzz/overnight.sh [HOURS] [--smoke] [--targets a,b] [--jobs N] [--report FILE]
#   fuzz/overnight.sh --notes [--report FILE]
#
#   HOURS        how long each target runs (default 8; fractions allowed: 0.17 is ten minutes)
#   --smoke      a few seconds per target, for CI: no corpus update, no report unless --report;
#                exits 1 on any crash; fuzzes the sanitizer build unless FUZZ_SANITIZER says otherwise
#   --targets    comma-separated subset of the targets (default: all of `cargo fuzz list`)
#   --jobs N     libFuzzer -fork jobs per target (default: cores / targets, at least 1)
#   --report F   where the report goes (default reports/fuzz.md; smoke mode: none)
#   --notes      no run: copies fuzz/report-notes.md into the report F in place of its hand-written
#                section (the notes written up after the run it reports), the measured part untouched
#
# Three builds, ClusterFuzzLite's split (fuzz/README.md):
# - the fuzzing build, fast by default: no sanitizer (`-s none`) and no comparison tracing
#   (`--no-trace-compares`), in fuzz/target/none-no-trace-compares/. FUZZ_SANITIZER=address and
#   FUZZ_TRACE_COMPARES=1 bring either back (fuzz/target/ holds the address build with tracing).
# - the sanitizer build: AddressSanitizer with comparison tracing, in fuzz/target/ (cargo-fuzz's
#   own place). It is what `--smoke` fuzzes by default (CI checks it on every change, where ten
#   seconds a target make its cost per execution irrelevant), and after a full run it replays
#   the minimized corpus once: every input the fast build kept runs under ASan.
# - the coverage measurement: that replay, with `-print_coverage=1` (a -s none build cannot
#   symbolize, so prints no functions): the report's coverage, features and join edges are the
#   sanitizer build's, the same edges the reports of ASan runs count, whatever the fuzzing build
#   was. FUZZ_COVERAGE_BUILD=0 skips the sanitizer build and the replay (no join edges then).
# Without `cargo +nightly` everything is stable with `-s none` (cargo-fuzz builds on stable
# without a sanitizer), and there is no sanitizer build.
# The build goes through fuzz/coverage-scope.sh, which keeps the judges (the independent
# validators and the crates only they use) out of the coverage map (SPEC §6 decision 55);
# FUZZ_COVERAGE_SCOPE=0 builds with every crate in the map, as before that decision.
# Inputs: the seeds `fuzz-corpus seeds` generates from corpus/ (deterministic, made afresh each
# run, never committed), the hand-picked seeds of fuzz/seeds/<target>/ and the working corpus
# fuzz/corpus/<target>/ (git-ignored; a full run leaves its -merge=1-minimized corpus there, the
# smoke leaves it alone). Crashes land in fuzz/artifacts/<target>/ and, minimized, in
# corpus/regressions/<target>-<hash>.json, which `cargo test` replays on stable.
# The report records the build time, each target's CPU time (getrusage of its process tree, via
# /usr/bin/time when present), and coverage and corpus over time (reports/fuzz/timeline.csv and
# reports/fuzz/<target>-{coverage,corpus}.svg, drawn by `flatjoin-benches`' fuzz-plot).
# AddressSanitizer runs with malloc_context_size=0 unless ASAN_OPTIONS says otherwise: recording
# a stack trace per allocation was a sixth of join_structured's time, and the targets' own code
# is safe Rust (a heap error in a dependency is still reported, without the allocation's stack).
set -euo pipefail
# The whole script is one block, read before it runs: bash reads a script as it goes, and an edit
# of this file during an overnight run would otherwise change (or break) the rest of that run.
{

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ="$ROOT/fuzz"
COMMAND_LINE="fuzz/overnight.sh${*:+ $*}"

HOURS=8
SMOKE=0
NOTES_ONLY=0
TARGETS=""
JOBS=""
REPORT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) SMOKE=1 ;;
        --notes) NOTES_ONLY=1 ;;
        --targets) TARGETS=${2//,/ }; shift ;;
        --jobs) JOBS=$2; shift ;;
        --report) REPORT=$2; shift ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        *[!0-9.]*|'') echo "overnight.sh: unknown argument '$1'" >&2; exit 2 ;;
        *) HOURS=$1 ;;
    esac
    shift
done

if [ "$SMOKE" = 1 ]; then
    SECONDS_PER_TARGET=${FUZZ_SMOKE_SECONDS:-10}
else
    SECONDS_PER_TARGET=$(awk -v h="$HOURS" 'BEGIN { s = int(h * 3600); print (s < 1 ? 1 : s) }')
    REPORT=${REPORT:-$ROOT/reports/fuzz.md}
fi

log() { printf '[overnight %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# The report's hand-written section: fuzz/report-notes.md under its heading.
notes_section() {
    [ -f "$FUZZ/report-notes.md" ] || return 0
    echo "## Build and throughput: what holds the rate back"
    echo
    echo "*Hand-written, copied from \`fuzz/report-notes.md\`; the tables above are this run's measurements.*"
    echo
    grep -v '^<!--' "$FUZZ/report-notes.md"
    echo
}

# --notes: the notes written up after a run go into its report, the measured part untouched.
if [ "$NOTES_ONLY" = 1 ]; then
    REPORT=${REPORT:-$ROOT/reports/fuzz.md}
    grep -q '^## Crashes and counterexamples$' "$REPORT" || { echo "overnight.sh: $REPORT is not a report of this script" >&2; exit 2; }
    notes=$(mktemp)
    notes_section >"$notes"
    awk -v notes="$notes" '
        NR == 1 && /^<!-- Generated by / && !/--notes/ { sub(/; do not edit by hand/, "; notes copied by `fuzz/overnight.sh --notes`; do not edit by hand") }
        /^## Build and throughput: what holds the rate back$/ { skip = 1; next }
        /^## Crashes and counterexamples$/ { while ((getline line < notes) > 0) print line; skip = 0 }
        !skip
    ' "$REPORT" >"$notes.report"
    mv "$notes.report" "$REPORT"
    rm -f "$notes"
    log "copied fuzz/report-notes.md into $REPORT"
    exit 0
fi

# --- toolchain -------------------------------------------------------------------------------
# The fuzzing build: fast (no sanitizer, no comparison tracing) unless FUZZ_SANITIZER /
# FUZZ_TRACE_COMPARES say otherwise; the smoke fuzzes the sanitizer build (address, tracing).
if [ "$SMOKE" = 1 ]; then DEFAULT_SANITIZER=address; else DEFAULT_SANITIZER=none; fi
if cargo +nightly --version >/dev/null 2>&1; then
    TOOLCHAIN=(+nightly)
    SANITIZER=${FUZZ_SANITIZER:-$DEFAULT_SANITIZER}
    NIGHTLY=1
else
    TOOLCHAIN=()
    SANITIZER=none
    NIGHTLY=0
fi
if [ "$SANITIZER" = address ]; then TRACE_COMPARES=${FUZZ_TRACE_COMPARES:-1}; else TRACE_COMPARES=${FUZZ_TRACE_COMPARES:-0}; fi
# Each configuration builds in a target directory of its own, so switching costs no rebuild: the
# sanitizer build (address, tracing) in fuzz/target/ where a by-hand `cargo +nightly fuzz build`
# puts it, any other under fuzz/target/<sanitizer>[-no-trace-compares]/.
build_flags() { # SANITIZER TRACE_COMPARES: the `cargo fuzz build` flags of that configuration
    local dir=$1
    printf '%s\n' -O -a -s "$1"
    [ "$2" = 1 ] || { printf '%s\n' --no-trace-compares; dir="$dir-no-trace-compares"; }
    [ "$dir" = address ] || printf '%s\n' --target-dir "target/$dir"
}
mapfile -t BUILD_FLAGS < <(build_flags "$SANITIZER" "$TRACE_COMPARES")
mapfile -t SAN_BUILD_FLAGS < <(build_flags address 1)
if ! cargo fuzz --version >/dev/null 2>&1; then
    log "cargo-fuzz is missing: cargo install --locked cargo-fuzz"
    cargo install --locked cargo-fuzz
fi
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
# Where `cargo fuzz build FLAGS...` puts the binaries.
bin_dir() { # FLAGS...
    local dir=target
    while [ $# -gt 0 ]; do
        [ "$1" = --target-dir ] && dir=$2
        shift
    done
    echo "$FUZZ/$dir/$TRIPLE/release"
}
BIN_DIR=$(bin_dir "${BUILD_FLAGS[@]}")
# The sanitizer build replays the minimized corpus (coverage, join edges) after a full run on
# nightly unless FUZZ_COVERAGE_BUILD=0; when the fuzzing build is that build, it is not built twice.
SAN_BIN_DIR=""
if [ "$SMOKE" = 0 ] && [ "$NIGHTLY" = 1 ] && [ "${FUZZ_COVERAGE_BUILD:-1}" = 1 ]; then
    SAN_BIN_DIR=$(bin_dir "${SAN_BUILD_FLAGS[@]}")
fi

# Runs a command under /usr/bin/time when present, writing "user system" CPU seconds of its
# process tree (libFuzzer's fork jobs included: it waits for them) to CPU_FILE.
timed() { # CPU_FILE COMMAND...
    local cpu_file=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%U %S' -o "$cpu_file" "$@"
    else
        "$@"
    fi
}

# The CPU seconds (user + system) `timed` wrote to FILE, rounded; nothing when not measured.
cpu_total() { # FILE
    [ -s "$1" ] || return 0
    tail -n 1 "$1" | awk '{ printf "%.0f", $1 + $2 }'
}

# --- build -----------------------------------------------------------------------------------
cd "$FUZZ"
# -O -a: optimized with debug assertions and overflow checks, the same flags as .clusterfuzzlite/build.sh.
# Scoped unless FUZZ_COVERAGE_SCOPE=0 (reports/fuzz.md: 3.0x the executions per CPU-second on
# join_structured, the join's edge coverage kept):
# RUSTC_WRAPPER scopes the coverage map; the --cfg makes cargo rebuild rather than mix in crates
# built without the wrapper (cargo does not fingerprint the wrapper). Only this build sees them.
SCOPE=()
if [ "${FUZZ_COVERAGE_SCOPE:-1}" = 1 ]; then
    SCOPE=(env RUSTC_WRAPPER="$FUZZ/coverage-scope.sh" RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg=flatjoin_coverage_scope")
fi
log "building the targets: ${SCOPE[*]} cargo ${TOOLCHAIN[*]} fuzz build ${BUILD_FLAGS[*]}"
# The commit the binaries are built from (the report names it; HEAD may move while they run).
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "none")
git -C "$ROOT" diff --quiet HEAD -- core harness fuzz 2>/dev/null || commit="$commit (with uncommitted changes)"
# Builds with FLAGS, setting BUILT to "W s wall, C s CPU, incremental|cold (no DIR)".
build() { # FLAGS...
    local dir start cpu_file cpu kind
    dir=$(dirname "$(dirname "$(bin_dir "$@")")")
    if [ -d "$dir" ]; then kind=incremental; else kind="cold (no ${dir#"$ROOT/"})"; fi
    start=$SECONDS
    cpu_file=$(mktemp)
    timed "$cpu_file" ${SCOPE[@]+"${SCOPE[@]}"} cargo "${TOOLCHAIN[@]}" fuzz build "$@"
    cpu=$(cpu_total "$cpu_file")
    rm -f "$cpu_file"
    BUILT="$(( SECONDS - start )) s wall${cpu:+, $cpu s CPU}, $kind"
}
build "${BUILD_FLAGS[@]}"
BUILD_LINE=$BUILT
SAN_BUILD_LINE=""
if [ -n "$SAN_BIN_DIR" ] && [ "$SAN_BIN_DIR" != "$BIN_DIR" ]; then
    log "building the sanitizer build (coverage replay): cargo ${TOOLCHAIN[*]} fuzz build ${SAN_BUILD_FLAGS[*]}"
    build "${SAN_BUILD_FLAGS[@]}"
    SAN_BUILD_LINE=$BUILT
fi
[ -n "$TARGETS" ] || TARGETS=$(cargo "${TOOLCHAIN[@]}" fuzz list | tr '\n' ' ')
read -r -a TARGET_LIST <<<"$TARGETS"
CORES=$(nproc)
[ -n "$JOBS" ] || JOBS=$(( CORES / ${#TARGET_LIST[@]} ))
[ "$JOBS" -ge 1 ] || JOBS=1

# The stable helper that writes seeds and regression files (crate flatjoin-harness).
cd "$ROOT"
log "building the helper: cargo build -p flatjoin-harness --bin fuzz-corpus"
cargo build -q -p flatjoin-harness --bin fuzz-corpus
HELPER="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/debug/fuzz-corpus"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/flatjoin-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$HELPER" seeds "$WORK/generated" "${TARGET_LIST[@]}" >&2
touch "$WORK/start-stamp"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)

# Per-target libFuzzer flags: byte targets see whole schemas and manifests (a few KiB);
# join_structured reads at most 1 KiB of its input (harness: structured::MAX_INPUT_BYTES).
max_len() {
    case "$1" in
        flatten_bytes|manifest_bytes) echo 16384 ;;
        join_structured) echo 1024 ;;
        *) echo 4096 ;;
    esac
}

# --- run -------------------------------------------------------------------------------------
log "running ${TARGET_LIST[*]} for ${SECONDS_PER_TARGET}s each, $JOBS fork job(s) per target on $CORES cores"
for target in "${TARGET_LIST[@]}"; do
    mkdir -p "$FUZZ/corpus/$target" "$FUZZ/seeds/$target" "$FUZZ/artifacts/$target"
    # The smoke fuzzes from the generated and hand-picked seeds only, in a scratch corpus:
    # libFuzzer runs every input it is given before it fuzzes, and a grown working corpus of a
    # structured target at a few executions per second would take the CI smoke minutes.
    corpus_dir="$FUZZ/corpus/$target"
    [ "$SMOKE" = 1 ] && corpus_dir="$WORK/smoke-corpus/$target" && mkdir -p "$corpus_dir"
    timed "$WORK/$target.cpu" "$BIN_DIR/$target" "$corpus_dir" "$FUZZ/seeds/$target" "$WORK/generated/$target" \
        -dict="$FUZZ/dict" -max_len="$(max_len "$target")" -timeout=20 -rss_limit_mb=2048 \
        -max_total_time="$SECONDS_PER_TARGET" -fork="$JOBS" \
        -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -artifact_prefix="$FUZZ/artifacts/$target/" >"$WORK/$target.log" 2>&1 &
done
wait || true

# --- numbers ---------------------------------------------------------------------------------
# The last fork-mode status line: "#N: cov: C ft: F corp: K exec/s: E oom/timeout/crash: a/b/c time: Ts".
status_field() { # LOG FIELD
    { grep -E '^#[0-9]+: cov:' "$1" || true; } | tail -n 1 | awk -v f="$2" '{
        if (f == "execs") { gsub(/[#:]/, "", $1); print $1; exit }
        for (i = 1; i < NF; i++) if ($i == f ":") { print $(i + 1); exit }
    }'
}

# The coverage and corpus timeline: one row per fork-mode status line of each target.
timeline_rows() { # TARGET
    { grep -E '^#[0-9]+: cov:' "$WORK/$1.log" || true; } | awk -v t="$1" '{
        execs = $1; gsub(/[#:]/, "", execs)
        for (i = 1; i < NF; i++) {
            if ($i == "cov:") cov = $(i + 1)
            if ($i == "ft:") ft = $(i + 1)
            if ($i == "corp:") corp = $(i + 1)
            if ($i == "time:") { time = $(i + 1); gsub(/s/, "", time) }
        }
        print t "," time "," execs "," cov "," ft "," corp
    }'
}

# --- corpora: merge and minimize --------------------------------------------------------------
declare -A COVERAGE FEATURES JOIN_EDGES INSTRUMENTED CORPUS_FILES CORPUS_BYTES
for target in "${TARGET_LIST[@]}"; do
    if [ "$SMOKE" = 1 ]; then
        COVERAGE[$target]=$(status_field "$WORK/$target.log" cov)
        continue
    fi
    log "$target: merging and minimizing the corpus"
    minimized="$WORK/minimized/$target"
    mkdir -p "$minimized"
    "$BIN_DIR/$target" -merge=1 -timeout=20 -rss_limit_mb=2048 \
        "$minimized" "$FUZZ/corpus/$target" "$FUZZ/seeds/$target" "$WORK/generated/$target" \
        >"$WORK/$target.merge.log" 2>&1 || log "$target: merge failed, see the corpus as it is"
    if [ -n "$(ls -A "$minimized")" ]; then
        rm -rf "$FUZZ/corpus/$target"
        cp -r "$minimized" "$FUZZ/corpus/$target"
    fi
    # Coverage of the minimized corpus, as libFuzzer counts it when it loads the corpus, and the
    # part of it in the join (functions under core/src/, from -print_coverage=1), measured by the
    # sanitizer build: -print_coverage=1 symbolizes through a sanitizer runtime (a -s none build
    # prints no functions), and its edges are those the reports of ASan runs count. The replay is
    # also the corpus's AddressSanitizer check: a report stops it and leaves a crash artifact.
    # An input that fails there (a sanitizer report, or an oracle failure the fuzzing build did
    # not see) stops libFuzzer: it is left out of the corpus (its artifact is minimized into
    # corpus/regressions/ below) and the replay starts again, at most 4 times.
    cov_bin=${SAN_BIN_DIR:-$BIN_DIR}
    replay="$WORK/replay/$target"
    mkdir -p "$(dirname "$replay")"
    cp -r "$FUZZ/corpus/$target" "$replay"
    replay_rc=1
    left_out=0
    for attempt in 1 2 3 4 5; do
        log "$target: replaying the minimized corpus through ${cov_bin#"$FUZZ/"} (-print_coverage=1)"
        replay_rc=0
        "$cov_bin/$target" -runs=0 -print_coverage=1 -timeout=20 -rss_limit_mb=2048 \
            -artifact_prefix="$FUZZ/artifacts/$target/" "$replay" \
            >"$WORK/$target.cov.log" 2>&1 || replay_rc=$?
        [ "$replay_rc" != 0 ] && [ "$attempt" -lt 5 ] || break
        # The artifact is named by the SHA-1 of its bytes, like the minimized corpus's files.
        artifact=$(sed -n 's/.*Test unit written to //p' "$WORK/$target.cov.log" | tail -n 1)
        [ -n "$artifact" ] && [ -f "$artifact" ] || break
        failed=$(sha1sum "$artifact" | cut -d' ' -f1)
        [ -f "$replay/$failed" ] || break
        log "$target: $(basename "$artifact") failed in the replay; left out of the corpus"
        rm -f "$replay/$failed" "$FUZZ/corpus/$target/$failed"
        left_out=$(( left_out + 1 ))
    done
    inited=$(grep -E 'INITED cov:' "$WORK/$target.cov.log" | tail -n 1 || true)
    COVERAGE[$target]=$(awk '{ for (i = 1; i < NF; i++) if ($i == "cov:") print $(i + 1) }' <<<"$inited")
    FEATURES[$target]=$(awk '{ for (i = 1; i < NF; i++) if ($i == "ft:") print $(i + 1) }' <<<"$inited")
    JOIN_EDGES[$target]=$("$FUZZ/join-edges.sh" <"$WORK/$target.cov.log")
    if [ -z "${JOIN_EDGES[$target]}" ] && [ "$replay_rc" != 0 ]; then
        JOIN_EDGES[$target]="not measured (the replay stopped, exit $replay_rc)"
    elif [ -z "${JOIN_EDGES[$target]}" ]; then
        JOIN_EDGES[$target]="not measured (sanitizer: $SANITIZER, no sanitizer build)"
    elif [ "$replay_rc" != 0 ]; then
        JOIN_EDGES[$target]="${JOIN_EDGES[$target]} (partial: the replay stopped, exit $replay_rc)"
    elif [ "$left_out" -gt 0 ]; then
        JOIN_EDGES[$target]="${JOIN_EDGES[$target]} ($left_out input(s) failing in the replay left out)"
    fi
    CORPUS_FILES[$target]=$(find "$FUZZ/corpus/$target" -type f | wc -l)
    CORPUS_BYTES[$target]=$(du -sb "$FUZZ/corpus/$target" | cut -f1)
done

# --- crashes: minimize into corpus/regressions/ -------------------------------------------------
# Each artifact is described first (the stable helper replays it); only the first artifact of each
# distinct failure is minimized and saved, the others are counted against it.
mkdir -p "$ROOT/corpus/regressions"
declare -A NEW_CRASHES
CRASH_LINES=()
TOTAL_CRASHES=0
for target in "${TARGET_LIST[@]}"; do
    NEW_CRASHES[$target]=0
    declare -A saved=() count=() first_line=()
    order=()
    while IFS= read -r artifact; do
        [ -n "$artifact" ] || continue
        NEW_CRASHES[$target]=$(( ${NEW_CRASHES[$target]} + 1 ))
        TOTAL_CRASHES=$(( TOTAL_CRASHES + 1 ))
        kind=$(basename "$artifact" | cut -d- -f1)
        description=$(timeout 60 "$HELPER" describe "$target" "$artifact" 2>/dev/null | head -c 4000 || true)
        case "$description" in
            ''|passes*) description="$kind in $target (does not reproduce without libFuzzer: a stack overflow, timeout or out-of-memory)" ;;
        esac
        # The failure's class: its first line up to the first ';', without numbers.
        key=$(printf '%s\n' "$description" | head -n 1 | cut -d';' -f1 | tr -d '0-9' | cut -c1-100)
        if [ -n "${saved[$key]:-}" ]; then
            count[$key]=$(( ${count[$key]} + 1 ))
            continue
        fi
        minimized="$WORK/min-$(basename "$artifact")"
        cp "$artifact" "$minimized"
        if [ "$kind" = crash ] || [ "$kind" = timeout ]; then
            timeout 150 "$BIN_DIR/$target" -minimize_crash=1 -max_total_time=60 -timeout=20 \
                -exact_artifact_path="$minimized" "$artifact" >/dev/null 2>&1 || true
            after=$(timeout 60 "$HELPER" describe "$target" "$minimized" 2>/dev/null | head -c 4000 || true)
            case "$after" in ''|passes*) cp "$artifact" "$minimized" ;; *) description=$after ;; esac
        fi
        name="$target-$(sha1sum "$minimized" | cut -c1-8)"
        # Two artifacts that minimize to the same input are one failure, counted once.
        for other in "${order[@]}"; do
            if [ "${saved[$other]}" = "corpus/regressions/$name.json" ]; then
                count[$other]=$(( ${count[$other]} + 1 ))
                continue 2
            fi
        done
        "$HELPER" save "$target" "$minimized" "$ROOT/corpus/regressions/$name.json" "$description" >&2
        saved[$key]="corpus/regressions/$name.json"
        count[$key]=1
        first_line[$key]=$(printf '%s\n' "$description" | head -n 1 | cut -c1-300)
        order+=("$key")
    done < <(find "$FUZZ/artifacts/$target" -type f -newer "$WORK/start-stamp" \
        \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
    for key in "${order[@]}"; do
        CRASH_LINES+=("- \`$target\`, ${count[$key]} artifact(s) → \`${saved[$key]}\`: ${first_line[$key]}")
    done
    unset saved count first_line
done

# --- report ----------------------------------------------------------------------------------
# Each row names the build that fuzzed (execs, CPU) and the one that measured its coverage.
table() {
    local fuzzed_by coverage_by
    fuzzed_by="\`-s $SANITIZER\`, tracing $([ "$TRACE_COMPARES" = 1 ] && echo on || echo off)"
    if [ "$SMOKE" = 1 ]; then
        coverage_by="the fuzzing build's last status line"
    elif [ -n "$SAN_BIN_DIR" ]; then
        coverage_by="replay through \`-s address\`, tracing on"
    else
        coverage_by="replay through the fuzzing build"
    fi
    echo "| target | fuzzed by | execs | exec/s (mean) | exec/s (last job) | CPU (s) | execs per CPU-second | coverage measured by | coverage (edges) | join edges (core/src) | features | corpus (files) | corpus (bytes) | crashes |"
    echo "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
    for target in "${TARGET_LIST[@]}"; do
        log_file="$WORK/$target.log"
        execs=$(status_field "$log_file" execs)
        seconds=$(status_field "$log_file" time | tr -d 's')
        mean=$(awk -v n="${execs:-0}" -v s="${seconds:-0}" 'BEGIN { if (s > 0) printf "%.1f", n / s }')
        cpu=$(cpu_total "$WORK/$target.cpu")
        per_cpu=$(awk -v n="${execs:-0}" -v s="${cpu:-0}" 'BEGIN { if (s > 0) printf "%.1f", n / s }')
        printf '| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$target" "$fuzzed_by" \
            "$execs" "$mean" "$(status_field "$log_file" exec/s)" "$cpu" "$per_cpu" "$coverage_by" \
            "${COVERAGE[$target]:-}" "${JOIN_EDGES[$target]:-}" "${FEATURES[$target]:-$(status_field "$log_file" ft)}" \
            "${CORPUS_FILES[$target]:-$(status_field "$log_file" corp)}" "${CORPUS_BYTES[$target]:-}" \
            "${NEW_CRASHES[$target]}"
    done
}

# Writes reports/fuzz/timeline.csv and its plots next to the report (not in smoke mode).
PLOTS=()
plots() {
    local dir
    dir="$(dirname "$REPORT")/fuzz"
    mkdir -p "$dir"
    {
        echo "# Generated by \`$COMMAND_LINE\`; do not edit by hand, run it again."
        echo "target,seconds,execs,edges,features,corpus"
        for target in "${TARGET_LIST[@]}"; do timeline_rows "$target"; done
    } >"$dir/timeline.csv"
    log "drawing the plots: cargo run -q --release -p flatjoin-benches --bin fuzz-plot"
    if (cd "$ROOT" && cargo run -q --release -p flatjoin-benches --bin fuzz-plot -- \
        "$dir/timeline.csv" "$dir" "$COMMAND_LINE"); then
        for target in "${TARGET_LIST[@]}"; do PLOTS+=("$target"); done
    else
        log "the plots could not be drawn; the timeline is in $dir/timeline.csv"
    fi
}

if [ -n "$REPORT" ]; then
    [ "$SMOKE" = 1 ] || plots
    mkdir -p "$(dirname "$REPORT")"
    {
        echo "<!-- Generated by \`$COMMAND_LINE\`; do not edit by hand, run it again. -->"
        echo "# Fuzzing report"
        echo
        echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "- Commit: $commit"
        echo "- Toolchain: $(rustc "${TOOLCHAIN[@]}" --version), $(cargo fuzz --version), fuzzing build: sanitizer $SANITIZER, comparison tracing $([ "$TRACE_COMPARES" = 1 ] && echo on || echo off)"
        echo "- Machine: $CORES cores, shared; $JOBS libFuzzer fork job(s) per target, all targets at once"
        echo "- Time per target: ${SECONDS_PER_TARGET} s"
        echo "- Build (\`${SCOPE[*]:+RUSTC_WRAPPER=fuzz/coverage-scope.sh }cargo ${TOOLCHAIN[*]} fuzz build ${BUILD_FLAGS[*]}\`, all targets): $BUILD_LINE"
        if [ -n "$SAN_BUILD_LINE" ]; then
            echo "- Sanitizer build, for the coverage replay (\`${SCOPE[*]:+RUSTC_WRAPPER=fuzz/coverage-scope.sh }cargo ${TOOLCHAIN[*]} fuzz build ${SAN_BUILD_FLAGS[*]}\`, all targets): $SAN_BUILD_LINE"
        fi
        echo "- ASAN_OPTIONS: \`${ASAN_OPTIONS}\`; load average (1, 5, 15 min) when fuzzing started: ${LOAD_START:-?}, at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        echo
        echo "Execs are libFuzzer's last status line (all fork jobs of the target); exec/s (mean) is execs"
        echo "over the run's seconds, exec/s (last job) is libFuzzer's own figure for its latest job."
        echo "CPU is the user + system time of the target's process tree (\`/usr/bin/time\`), so execs per"
        echo "CPU-second is the rate per core, whatever else shared the machine."
        if [ "$SMOKE" = 1 ]; then
            echo "Smoke run: coverage, features and corpus are libFuzzer's last status line; no corpus was merged."
        else
            echo "Coverage (edges) and features are those of the minimized corpus (\`-merge=1\` of the working"
            echo "corpus, the hand-picked seeds and the seeds generated from \`corpus/\`), which is what"
            echo "\`fuzz/corpus/<target>/\` (git-ignored) now holds, replayed once (\`-runs=0 -print_coverage=1\`)"
            if [ -n "$SAN_BIN_DIR" ]; then
                echo "through the sanitizer build (\`-s address\`, comparison tracing): the edges the ASan runs' reports count,"
                echo "whatever the fuzzing build. Coverage counts instrumented edges only:"
            else
                echo "through the fuzzing build. Coverage counts instrumented edges only:"
            fi
            if [ ${#SCOPE[@]} -gt 0 ]; then
                echo "the judges are outside the map (\`fuzz/coverage-scope.sh\`). Join edges are the covered/instrumented"
            else
                echo "every crate is in the map, the judges too (\`FUZZ_COVERAGE_SCOPE=0\`). Join edges are the covered/instrumented"
            fi
            echo "edges of functions under \`core/src/\` (\`-print_coverage=1\`, \`fuzz/join-edges.sh\`)."
        fi
        echo "Crashes are the artifacts written during this run; one regression is saved per failure class."
        echo
        table
        echo
        if [ "${#PLOTS[@]}" -gt 0 ]; then
            echo "## Coverage and corpus over time"
            echo
            echo "From libFuzzer's fork-mode status lines (\`fuzz/timeline.csv\`), one point per finished job:"
            echo "the fuzzing build's own edge counts, whose map differs from the replay's when the builds differ."
            echo
            for target in "${PLOTS[@]}"; do
                echo "![$target: coverage (edges) over time](fuzz/$target-coverage.svg)"
                echo "![$target: corpus files over time](fuzz/$target-corpus.svg)"
                echo
            done
        fi
        notes_section
        echo "## Crashes and counterexamples"
        echo
        if [ "${#CRASH_LINES[@]}" -eq 0 ]; then
            echo "None in this run."
        else
            printf '%s\n' "${CRASH_LINES[@]}"
            echo
            echo "Each regression file is replayed by \`cargo test -p flatjoin-harness\`; reproduce one with"
            echo "\`cargo run -p flatjoin-harness --bin fuzz-corpus -- replay corpus/regressions/NAME.json\`."
        fi
    } >"$REPORT"
    log "wrote $REPORT"
fi

table >&2
if [ "$TOTAL_CRASHES" -gt 0 ]; then
    printf '%s\n' "${CRASH_LINES[@]}" >&2
    log "$TOTAL_CRASHES crash(es); minimized regressions are in corpus/regressions/"
    [ "$SMOKE" = 1 ] && exit 1
fi
log "done"
exit 0
}
