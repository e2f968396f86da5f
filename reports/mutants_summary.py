#!/usr/bin/env python3
"""Writes reports/mutants.md from the passes reports/mutants.sh ran (cargo-mutants outcomes).

    python3 reports/mutants_summary.py target/mutants > reports/mutants.md
    python3 reports/mutants_summary.py --not-caught|--missed target/mutants PASS...   (names, one a line)

Reads, under the given directory: `all.txt` (every mutant of the modules in .cargo/mutants.toml,
`cargo mutants --list`), and each pass's `<pass>/mutants.out/outcomes.json` that exists (`core`,
`harness`, `faults-core`, `faults-harness`). A mutant is caught when any pass caught it; unviable
when it does not build; missed when a pass judged it and none caught it; not judged when no pass
reached it. Paths in the output are relative to the repository.

Outcomes are matched to today's mutants by file, function and mutation, in line order, not by
line and column: a test or a line added above a function moves its mutants' positions without
changing them, and a pass need not run again for that. A mutant whose function changed (or that is
new) matches nothing and is not judged until a pass reaches it (`core-again` does).

`--not-caught` prints today's mutants that none of the named passes caught (missed, or not judged
by them): what `core-again` and the harness pass judge. `--missed` prints those the named passes
judged and none caught (what `faults-harness` judges of `faults-core`'s selection).
"""
import collections
import json
import os
import re
import shlex
import subprocess
import sys

# (pass, what it runs, its command as reports/mutants.sh writes it)
PASSES = [
    ("core", "the core's tests (every mutant, unless the command filters)",
     "cargo mutants --test-package flatjoin"),
    ("core-again", "the core's tests again, on what `core` did not catch (after tests were added, or code changed)",
     "cargo mutants --test-package flatjoin -F <each>"),
    ("harness", "the harness's tests (what the core's passes did not catch)",
     "cargo mutants --test-package flatjoin-harness --timeout 400 -F <each survivor>"),
    ("faults-core", "the fault switches, the core's tests with the faults compiled in",
     "cargo mutants --features fault-injection --test-package flatjoin -F <fault switches>"),
    ("faults-harness", "the fault switches faults-core missed, the harness's fault test",
     "cargo mutants --features fault-injection --test-package flatjoin-harness "
     "--cargo-arg=--test=faults -F <each survivor>"),
]

# Why a survivor survives: (file regex, name regex, class, note). First match wins.
NOTES = [
    (r"canonical", r"replace \| with \^ in Mix128::(finish128|write_u8)", "equivalent",
     "the two operands set disjoint bits, so `|` and `^` give the same value"),
    (r"kinds", r"replace \| with \^ in Kinds::of_type_keyword", "equivalent",
     "`Integer.bit() | Number.bit()`: disjoint bits"),
    (r"kinds", r"delete match arm Value::Bool\(true\) in kinds_inner", "equivalent",
     "`true` falls to the catch-all arm, which also answers unprovable"),
    (r"kinds", r"visiting\.insert.* with true in kinds_inner", "equivalent",
     "without the cycle guard a draft-07 `$ref` cycle runs to the step bound and is unprovable all the same (slower only)"),
    (r"canonical", r"(contains_key\(\"enum\"\).* with true|replace && with \|\|) in schema_key$", "equivalent",
     "the string key is reached only through `structural_key`, with the default draft (2020-12, which has `const`): `const` beside `enum` becomes a second `enum` entry, and no other schema yields those two entries, so equality is unchanged"),
    (r"canonical", r"replace \+= with \*= in Digester::(schema|map)", "equivalent in practice",
     "the entry count beside a wrapping 128-bit sum of keyed entry digests; a kill needs a sum collision"),
    (r"canonical", r"in (Digester::map|map_key)$", "fault switch",
     "the `annotation-names` fault's switch (`strip_annotation_names` is off unless a fault is injected)"),
    (r"project", r"(in (faults|fault_is|Projector<'_>::required_keyword|Projector<'_>::all_closed)|replace (faults|fault_is) -> .*)$", "fault switch",
     "fault switches, off unless built with `fault-injection` and a fault is injected"),
    (r"widen", r"faults\.drop_null", "fault switch", "the `drop-null` fault's switch"),
    (r"widen", r"replace > with >= in common_bound", "equivalent",
     "on a tie (`f == b`) the guard is true either way, so `>` and `>=` keep the same bound"),
    (r"project", r"in Projector<'_>::project$", "equivalent (performance)",
     "only decides whether a `$ref` target's projection is memoized; the result is the same"),
    (r"project", r"in run_owned$", "equivalent (performance)",
     "chooses the owned (moving) or the borrowing path; both give the same presentation (the one-implementation oracle and `flatten_owned` tests compare them)"),
    (r"project", r"&& with \|\| in Projector<'_>::project_owned$", "equivalent (performance)",
     "a union-site lookup on nodes without a union keyword finds nothing (sites are keyed by the pointers of union nodes)"),
    (r"project", r"&& with \|\| in branch_facts$", "equivalent (performance)",
     "computes the catch-alls of closed branches, or in the declared reading, where nothing reads them"),
    (r"project", r"delete match arm \(_, Some\(Value::Bool\(false\)\)\) in part_views", "equivalent (unreachable)",
     "a `false` part fails identification's object check (rule 1), so no flattened branch has one"),
    (r"project", r"delete match arm 1 in undeclared", "equivalent",
     "`allOf` of one schema instead of the schema itself"),
    (r"project", r"delete match arm 0 in undeclared$", "equivalent",
     "an empty `allOf` instead of `{}`: both are unprovable, and the join of a property with an unprovable alternative is `{}` (SPEC §3.5); only the early stop is lost"),
    (r"refs", r"in root_uri$", "equivalent",
     "`referencing` re-bases the root resource on its own `$id` (`in_subresource`), so the key the document is registered under changes no resolution"),
    (r"refs", r"NoFetch>::retrieve", "equivalent",
     "what the no-fetch retriever answers is never read: remote targets are told apart by the document's own resources before any lookup"),
    (r"identify", r"in collect_parts$", "test to add",
     "the part-collection step bound and the bare-`$ref` rule beside annotations"),
]


POSITION = re.compile(r"^([^:]+):(\d+):(\d+): (.*)$")


def keyed(names):
    """Each name's position-free key: (file, mutation and function, its rank in line order)."""
    groups = collections.defaultdict(list)
    for n in names:
        m = POSITION.match(n)
        if not m:
            continue
        groups[(m[1], m[4])].append((int(m[2]), int(m[3]), n))
    out = {}
    for (f, desc), members in groups.items():
        for rank, (_, _, n) in enumerate(sorted(members)):
            out[n] = (f, desc, rank)
    return out


def aligned(outcomes, universe):
    """`outcomes` (name -> verdict) renamed to today's mutants; those that match none are dropped."""
    today = {k: n for n, k in keyed(universe).items()}
    old = keyed(outcomes)
    return {today[old[n]]: v for n, v in outcomes.items() if n in old and old[n] in today}


def load(path, universe):
    with open(path) as f:
        d = json.load(f)
    out = {}
    for o in d["outcomes"]:
        m = o["scenario"]
        if m == "Baseline" or "Mutant" not in m:
            continue
        out[m["Mutant"]["name"]] = o["summary"]
    return d, aligned(out, universe), len(out)


def command(path):
    """The pass's command as the script ran it, each run of `-F <exact mutant name>` shortened."""
    with open(path) as f:
        args = [a for a in f.read().split("\n") if a]
    out, exact = [], 0
    i = 0
    while i < len(args):
        if args[i] == "-F" and i + 1 < len(args) and args[i + 1].startswith("^core/"):
            exact += 1
            i += 2
            continue
        if exact:
            out.append(f"-F <{exact} mutants by name>")
            exact = 0
        a = args[i]
        out.append(shlex.quote(a))
        i += 1
    if exact:
        out.append(f"-F <{exact} mutants by name>")
    return " ".join(out)


def note(name):
    f, desc = name.split(":", 1)
    for fr, dr, cls, text in NOTES:
        if re.search(fr, f) and re.search(dr, desc):
            return cls, text
    return "test to add", ""


def read_universe(root):
    with open(os.path.join(root, "all.txt")) as f:
        return [line.strip() for line in f if line.strip()]


def select(root, passes, judged_only):
    """Today's mutants the passes did not catch (`judged_only`: of those they judged)."""
    universe = read_universe(root)
    caught, judged = set(), set()
    for name in passes:
        p = os.path.join(root, name, "mutants.out", "outcomes.json")
        if not os.path.exists(p):
            sys.exit(f"mutants_summary.py: run the {name} pass first ({p} missing)")
        _, outcomes, _ = load(p, universe)
        judged |= set(outcomes)
        caught |= {m for m, s in outcomes.items() if s in ("CaughtMutant", "Unviable")}
    for m in universe:
        if m not in caught and (m in judged or not judged_only):
            print(m)


def main():
    if sys.argv[1] in ("--not-caught", "--missed"):
        select(sys.argv[2], sys.argv[3:], sys.argv[1] == "--missed")
        return
    root = sys.argv[1]
    universe = read_universe(root)
    runs = []
    stale = 0
    for name, what, cmd in PASSES:
        p = os.path.join(root, name, "mutants.out", "outcomes.json")
        if os.path.exists(p):
            meta, outcomes, ran = load(p, universe)
            stale += ran - len(outcomes)
            c = os.path.join(root, name, "command.txt")
            if os.path.exists(c):
                cmd = command(c)
            runs.append((name, what, cmd, meta, outcomes))
    verdict = {}
    judged_by = collections.defaultdict(list)
    for name, _, _, _, outcomes in runs:
        for m, s in outcomes.items():
            judged_by[m].append(name)
            old = verdict.get(m)
            if s == "CaughtMutant" or old is None:
                verdict[m] = s
            elif old != "CaughtMutant" and s == "Timeout":
                verdict[m] = s
    counts = collections.Counter(verdict.get(m, "NotJudged") for m in universe)
    total = len(universe)
    caught, missed = counts["CaughtMutant"], counts["MissedMutant"]
    timeout, unviable, unjudged = counts["Timeout"], counts["Unviable"], counts["NotJudged"]
    judged_viable = caught + missed + timeout
    version = runs[0][3].get("cargo_mutants_version", "?") if runs else "?"

    print("<!-- Generated by `reports/mutants.sh` (its last step: `python3 reports/mutants_summary.py "
          "target/mutants > reports/mutants.md`) from the cargo-mutants passes named below; do not edit by hand. -->")
    print("# Mutation score of the join\n")
    print("- Modules: the `examine_globs` of `.cargo/mutants.toml` (identify, project/, join, widen, canonical,")
    print("  kinds, refs under `core/src/`); profile `mutants` (the test profile without debug info).")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    print(f"- Summarized on commit {commit}{' (with uncommitted changes)' if dirty else ''}; each pass ran on the tree of its own day (`target/mutants/<pass>`).")
    print(f"- cargo-mutants {version}; {total} mutants (`cargo mutants --list`). Passes run:\n")
    print("| pass | what it judges | command | mutants | caught | missed | timeout | unviable |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for name, what, cmd, _, outcomes in runs:
        c = collections.Counter(outcomes.values())
        print(f"| {name} | {what} | `{cmd}` | {len(outcomes)} | {c['CaughtMutant']} | "
              f"{c['MissedMutant']} | {c['Timeout']} | {c['Unviable']} |")
    missing = [n for n, _, _ in PASSES if n not in {r[0] for r in runs}]
    print()
    if missing:
        print(f"Passes not run: {', '.join(missing)}.\n")
    print(f"**Now:** {total} mutants, {unviable} unviable, {unjudged} not judged by any pass; of the "
          f"{judged_viable} judged viable: **{caught} caught**, {timeout} timed out, **{missed} missed**.")
    if judged_viable:
        print(f"Score over the judged: {caught} / {judged_viable} = **{100 * caught / judged_viable:.1f} %** caught.")
    if unjudged == 0 and total > unviable:
        score = caught / (total - unviable)
        print(f"Score (raw, every viable mutant): {caught} / {total - unviable} = **{100 * score:.1f} %**. "
              f"Target 90 %: {'met' if score >= 0.9 else '**not met**'}.")
    else:
        print(f"The raw score over every viable mutant needs the {unjudged} unjudged ones: run "
              "`JOBS=2 reports/mutants.sh` (every pass; the core pass judges every mutant, the others "
              "what it leaves).")
    print("\n| file | mutants | judged | caught | missed | timeout | unviable |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    files = collections.defaultdict(collections.Counter)
    for m in universe:
        files[m.split(":", 1)[0]][verdict.get(m, "NotJudged")] += 1
    for f, c in sorted(files.items()):
        n = sum(c.values())
        print(f"| `{f}` | {n} | {n - c['NotJudged']} | {c['CaughtMutant']} | {c['MissedMutant']} | "
              f"{c['Timeout']} | {c['Unviable']} |")
    if stale:
        print(f"\n{stale} outcomes name mutants the code no longer has (their function changed after a "
              "pass ran); left out.")
    survivors = sorted((m for m in universe if verdict.get(m) == "MissedMutant"),
                       key=lambda m: (note(m)[0], m))
    if survivors:
        classes = collections.Counter(note(m)[0] for m in survivors)
        print("\nSurvivors by class: " + ", ".join(f"{c}: {n}" for c, n in sorted(classes.items())) + ".\n")
        print("## Survivors\n")
        print("| mutant | judged by | class | why it survives / what kills it |")
        print("|---|---|---|---|")
        for m in survivors:
            cls, text = note(m)
            cell = m.replace("|", "\\|")
            print(f"| `{cell}` | {', '.join(judged_by[m])} | {cls} | {text.replace('|', chr(92) + '|')} |")
    timeouts = sorted(m for m in universe if verdict.get(m) == "Timeout")
    if timeouts:
        print("\n## Timeouts (a mutant that makes the join loop; counted apart)\n")
        for m in timeouts:
            print(f"- `{m}`")


main()
