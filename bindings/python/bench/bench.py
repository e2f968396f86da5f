"""In-process cost of the Python package (run by bindings/bench.sh): for each input file, the
package's `flatten` (`flatten_manifest` for a manifest) against this process's floor,
`copy.deepcopy(document)`, alternated pairwise (the median of the per-pair ratios); the same
through the measured alternative to JSON text, objects converted by pythonize
(`_native.bench_flatten_object`, built with feature bench-object-conversion); and spawning the
release CLI on the file.

Usage: python bench.py PACKAGE_PARENT_DIR CLI FILE...   Prints one TSV line per file:
    file  bytes  flatten_ms  deepcopy_ms  ratio  object_ratio  cli_ms  cli_ratio
"""

import copy
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, sys.argv[1])
import flatjoin  # noqa: E402
from flatjoin import _native  # noqa: E402


def timed(f):
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000.0


def pairs(a, b, budget_ms):
    for _ in range(2):
        a()
        b()
    first = timed(a) + timed(b)
    n = max(7, min(301, int(budget_ms / max(first, 1e-3)) + 1))
    ta, tb, ratios = [], [], []
    for i in range(n):
        if i % 2:
            x = timed(a)
            y = timed(b)
        else:
            y = timed(b)
            x = timed(a)
        ta.append(x)
        tb.append(y)
        ratios.append(x / y)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def main():
    cli = sys.argv[2]
    for file in sys.argv[3:]:
        with open(file, encoding="utf-8") as f:
            doc = json.load(f)
        manifest = isinstance(doc, dict) and isinstance(doc.get("tools"), list)
        flatten = (lambda: flatjoin.flatten_manifest(doc)) if manifest else (lambda: flatjoin.flatten(doc))
        floor = lambda: copy.deepcopy(doc)  # noqa: E731
        a, b, ratio = pairs(flatten, floor, 1500)
        _, _, object_ratio = pairs(lambda: _native.bench_flatten_object(doc), floor, 800)
        command = [cli, "manifest" if manifest else "flatten", file]
        spawn, _, spawn_ratio = pairs(
            lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL), floor, 1500
        )
        row = [file, os.path.getsize(file), a, b, ratio, object_ratio, spawn, spawn_ratio]
        print("\t".join(f"{x:.4f}" if isinstance(x, float) else str(x) for x in row), flush=True)


if __name__ == "__main__":
    main()
