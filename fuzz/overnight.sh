#!/usr/bin/env bash
# Overnight fuzzing of flatjoin: builds the cargo-fuzz targets, runs every target in parallel for
# the given time, merges and minimizes the corpora, minimizes each crash into
# corpus/regressions/, and writes reports/fuzz.md.
#
#   fuzz/overnight.sh [HOURS] [--smoke] [--targets a,b] [--jobs N] [--report FILE]
#
#   HOURS        how long each target runs (default 8; fractions allowed: 0.17 is ten minutes)
#   --smoke      a few seconds per target, for CI: no corpus update, no report unless --report;
#                exits 1 on any crash
#   --targets    comma-separated subset of the targets (default: all of `cargo fuzz list`)
#   --jobs N     libFuzzer -fork jobs per target (default: cores / targets, at least 1)
#   --report F   where the report goes (default reports/fuzz.md; smoke mode: none)
#
# Toolchain: nightly with AddressSanitizer where `cargo +nightly` works, else stable with
# `-s none` (cargo-fuzz builds on stable without a sanitizer). Installs cargo-fuzz when missing.
# FUZZ_SANITIZER=none builds without AddressSanitizer on nightly too, and FUZZ_TRACE_COMPARES=0
# without cargo-fuzz's comparison tracing (`--no-trace-compares`): the two largest costs of a
# structured execution once the judges are out of the map (fuzz/report-notes.md).
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

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ="$ROOT/fuzz"
COMMAND_LINE="fuzz/overnight.sh${*:+ $*}"

HOURS=8
SMOKE=0
TARGETS=""
JOBS=""
REPORT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) SMOKE=1 ;;
        --targets) TARGETS=${2//,/ }; shift ;;
        --jobs) JOBS=$2; shift ;;
        --report) REPORT=$2; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
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

# --- toolchain -------------------------------------------------------------------------------
if cargo +nightly --version >/dev/null 2>&1; then
    TOOLCHAIN=(+nightly)
    SANITIZER=${FUZZ_SANITIZER:-address}
else
    TOOLCHAIN=()
    SANITIZER=none
fi
BUILD_FLAGS=(-O -a -s "$SANITIZER")
[ "${FUZZ_TRACE_COMPARES:-1}" = 1 ] || BUILD_FLAGS+=(--no-trace-compares)
if ! cargo fuzz --version >/dev/null 2>&1; then
    log "cargo-fuzz is missing: cargo install --locked cargo-fuzz"
    cargo install --locked cargo-fuzz
fi
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
BIN_DIR="$FUZZ/target/$TRIPLE/release"

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
if [ -d "$FUZZ/target" ]; then BUILD_KIND=incremental; else BUILD_KIND="cold (no fuzz/target)"; fi
BUILD_START=$SECONDS
build_cpu_file=$(mktemp)
timed "$build_cpu_file" ${SCOPE[@]+"${SCOPE[@]}"} cargo "${TOOLCHAIN[@]}" fuzz build "${BUILD_FLAGS[@]}"
BUILD_CPU=$(cpu_total "$build_cpu_file")
rm -f "$build_cpu_file"
BUILD_SECONDS=$(( SECONDS - BUILD_START ))
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
    grep -E '^#[0-9]+: cov:' "$1" | tail -n 1 | awk -v f="$2" '{
        if (f == "execs") { gsub(/[#:]/, "", $1); print $1; exit }
        for (i = 1; i < NF; i++) if ($i == f ":") { print $(i + 1); exit }
    }'
}

# The coverage and corpus timeline: one row per fork-mode status line of each target.
timeline_rows() { # TARGET
    grep -E '^#[0-9]+: cov:' "$WORK/$1.log" | awk -v t="$1" '{
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
    # part of it in the join (functions under core/src/, from -print_coverage=1).
    "$BIN_DIR/$target" -runs=0 -print_coverage=1 "$FUZZ/corpus/$target" \
        >"$WORK/$target.cov.log" 2>&1 || true
    inited=$(grep -E 'INITED cov:' "$WORK/$target.cov.log" | tail -n 1)
    COVERAGE[$target]=$(awk '{ for (i = 1; i < NF; i++) if ($i == "cov:") print $(i + 1) }' <<<"$inited")
    FEATURES[$target]=$(awk '{ for (i = 1; i < NF; i++) if ($i == "ft:") print $(i + 1) }' <<<"$inited")
    JOIN_EDGES[$target]=$("$FUZZ/join-edges.sh" <"$WORK/$target.cov.log")
    # -print_coverage=1 symbolizes through a sanitizer runtime: a -s none build prints nothing.
    [ -n "${JOIN_EDGES[$target]}" ] || JOIN_EDGES[$target]="not measured (sanitizer: $SANITIZER)"
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
table() {
    echo "| target | execs | exec/s (mean) | exec/s (last job) | CPU (s) | execs per CPU-second | coverage (edges) | join edges (core/src) | features | corpus (files) | corpus (bytes) | crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for target in "${TARGET_LIST[@]}"; do
        log_file="$WORK/$target.log"
        execs=$(status_field "$log_file" execs)
        seconds=$(status_field "$log_file" time | tr -d 's')
        mean=$(awk -v n="${execs:-0}" -v s="${seconds:-0}" 'BEGIN { if (s > 0) printf "%.1f", n / s }')
        cpu=$(cpu_total "$WORK/$target.cpu")
        per_cpu=$(awk -v n="${execs:-0}" -v s="${cpu:-0}" 'BEGIN { if (s > 0) printf "%.1f", n / s }')
        printf '| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$target" \
            "$execs" "$mean" "$(status_field "$log_file" exec/s)" "$cpu" "$per_cpu" \
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
        echo "- Toolchain: $(rustc "${TOOLCHAIN[@]}" --version), $(cargo fuzz --version), sanitizer: $SANITIZER"
        echo "- Machine: $CORES cores, shared; $JOBS libFuzzer fork job(s) per target, all targets at once"
        echo "- Time per target: ${SECONDS_PER_TARGET} s"
        echo "- Build (\`${SCOPE[*]:+RUSTC_WRAPPER=fuzz/coverage-scope.sh }cargo ${TOOLCHAIN[*]} fuzz build ${BUILD_FLAGS[*]}\`, all targets): ${BUILD_SECONDS} s wall${BUILD_CPU:+, $BUILD_CPU s CPU}, $BUILD_KIND"
        echo "- ASAN_OPTIONS: \`${ASAN_OPTIONS}\`; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
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
            echo "\`fuzz/corpus/<target>/\` (git-ignored) now holds. Coverage counts instrumented edges only:"
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
            echo "From libFuzzer's fork-mode status lines (\`fuzz/timeline.csv\`), one point per finished job."
            echo
            for target in "${PLOTS[@]}"; do
                echo "![$target: coverage (edges) over time](fuzz/$target-coverage.svg)"
                echo "![$target: corpus files over time](fuzz/$target-corpus.svg)"
                echo
            done
        fi
        if [ -f "$FUZZ/report-notes.md" ]; then
            echo "## Build and throughput: what holds the rate back"
            echo
            echo "*Hand-written, copied from \`fuzz/report-notes.md\`; the tables above are this run's measurements.*"
            echo
            grep -v '^<!--' "$FUZZ/report-notes.md"
            echo
        fi
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
