#!/usr/bin/env python3
"""The main job's two gates, as `.ci/run` applies them after `cargo run --release -p flatjoin-cli
-- check` (the README's main job, every default):

1. its output ends `N passed, 0 failed` (`--log FILE`, the run's stdout);
2. the report it rewrote states the same results as the committed one: every line of
   `reports/conformance.md` but the timings (seconds, cases per second, the generators' time
   column) equals the committed file's, so a change that alters the findings updates the report
   in the same commit.

    python3 reports/fresh.py [--log FILE] [--committed FILE] [--new FILE]

`--committed` defaults to `git show HEAD:reports/conformance.md`, `--new` to the working copy.
Exit 0 when both gates pass, 1 with the differing lines otherwise, 2 on bad usage.
"""

import argparse
import difflib
import re
import subprocess
import sys

REPORT = "reports/conformance.md"
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed$")


def without_timings(text):
    """The report's lines with every timing replaced by a placeholder."""
    out = []
    time_column = None
    for line in text.splitlines():
        line = re.sub(r"\b\d+(\.\d+)? cases/s\b", "<rate> cases/s", line)
        line = re.sub(r"\b\d+(\.\d+)? s\b", "<t> s", line)
        if line.startswith("|"):
            cells = line.strip("|").split("|")
            names = [c.strip() for c in cells]
            if "time (s)" in names:
                time_column = names.index("time (s)")
            elif time_column is not None and time_column < len(cells) and not set(names[0]) <= set("-: "):
                cells[time_column] = " <t> "
                line = "|" + "|".join(cells) + "|"
        else:
            time_column = None
        out.append(line)
    return out


def closing_gate(log_path):
    lines = [l.strip() for l in open(log_path, encoding="utf-8").read().splitlines()]
    closing = [m for m in (CLOSING.match(l) for l in lines) if m]
    if not closing:
        return f"{log_path}: the main job printed no `N passed, N failed` line"
    passed, failed = closing[-1].groups()
    if failed != "0":
        return f"the main job ended `{passed} passed, {failed} failed`"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", help="the main job's output, whose closing line must say 0 failed")
    ap.add_argument("--committed", help=f"the committed report (default: git show HEAD:{REPORT})")
    ap.add_argument("--new", default=REPORT, help=f"the report the run wrote (default {REPORT})")
    args = ap.parse_args()
    problems = []
    if args.log:
        problem = closing_gate(args.log)
        if problem:
            problems.append(problem)
    if args.committed:
        committed = open(args.committed, encoding="utf-8").read()
    else:
        committed = subprocess.run(
            ["git", "show", f"HEAD:{REPORT}"], check=True, capture_output=True, text=True
        ).stdout
    new = open(args.new, encoding="utf-8").read()
    a, b = without_timings(committed), without_timings(new)
    if a != b:
        diff = list(difflib.unified_diff(a, b, "committed", "this run", lineterm="", n=0))
        problems.append(
            f"{args.new} states other results than the committed report (timings aside); "
            "commit the regenerated report with the change that altered the findings:\n"
            + "\n".join(diff[:80])
        )
    for p in problems:
        print(f"fresh.py: {p}", file=sys.stderr)
    if not problems:
        print("fresh.py: the main job ended 0 failed and the report states the committed results"
              if args.log else "fresh.py: the report states the committed results")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
