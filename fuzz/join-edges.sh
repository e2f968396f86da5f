#!/usr/bin/env bash
# The join's edge coverage in a libFuzzer `-print_coverage=1` log read on stdin: the edges
# covered and instrumented in functions whose source is under core/src/ (crate `flatjoin`; the
# standard library's own core/src/ under /rustc/ and registry crates excluded), printed as
# "COVERED/INSTRUMENTED". Needs llvm-symbolizer on PATH when the log was made.
#
#   fuzz/target/<triple>/release/join_structured -runs=0 -print_coverage=1 DIR 2>&1 | fuzz/join-edges.sh
set -euo pipefail
awk '
    /^(COVERED|UNCOVERED)_FUNC: / && $NF ~ /\/core\/src\// && $NF !~ /^\/rustc\// && $NF !~ /\/registry\/src\// {
        for (i = 1; i < NF; i++) if ($i == "edges:") { split($(i + 1), e, "/"); covered += e[1]; total += e[2] }
    }
    END { if (total > 0) printf "%d/%d\n", covered, total }
'
