"""The random Pydantic program world (`harness/worlds/pydantic/world.py`, SPEC §2.9, §4) on a small
budget: real Pydantic v2 programs (discriminated unions, defaulted tags, the nested discriminated
union, plain `Union`s of models, callable discriminators, unions with a non-object branch, and unions
as fields), their `TypeAdapter(...).json_schema()` flattened by the flatjoin binary, judged by
`jsonschema` on values Pydantic accepts in strict JSON mode.

The binary is $FLATJOIN_BIN; `cargo test -p flatjoin-python` (tests/python.rs) passes the CLI it
built as $FLATJOIN_CLI, which is read when FLATJOIN_BIN is not set. With neither, every test here
fails and says how to set it: this file never skips.
"""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
WORLD_PATH = ROOT / "harness" / "worlds" / "pydantic" / "world.py"
SEEDS = [1, 2]
PROGRAMS = 60


def load_world():
    spec = importlib.util.spec_from_file_location("pydantic_world", WORLD_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


world = load_world()


def binary():
    path = os.environ.get("FLATJOIN_BIN") or os.environ.get("FLATJOIN_CLI")
    if not path:
        return None, (
            "no flatjoin binary: set FLATJOIN_BIN to the `flatjoin` CLI, e.g. "
            "`FLATJOIN_BIN=$PWD/target/release/flatjoin python -m pytest test/test_pydantic_world.py` "
            "(`cargo build --release -p flatjoin-cli` builds it); `cargo test -p flatjoin-python` "
            "passes it as FLATJOIN_CLI"
        )
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        return None, "FLATJOIN_BIN (or FLATJOIN_CLI) names %s, which is no executable file" % path
    return path, None


@pytest.fixture(scope="module")
def results():
    path, why = binary()
    if path is None:
        return why
    return world.run_world(SEEDS, PROGRAMS, path)


def need(results):
    if isinstance(results, str):
        pytest.fail(results)
    return results


def cases(r, attr, n=8):
    out = []
    for form, s in r.per_form.items():
        for c in getattr(s, attr):
            out.append("%s %s" % (form, " ".join(map(str, c))))
    return "\n  ".join(out[:n])


def test_every_form_is_drawn_and_built_and_flattened(results):
    r = need(results)
    for form, s in r.per_form.items():
        assert s.programs > 0, "form %s was never drawn" % form
        assert s.values_kept > 0, "form %s kept no value" % form
    not_built, refused = r.total("not_built"), r.total("flatjoin_errors")
    invalid, mismatches = r.total("invalid_presentations"), r.total("mismatches")
    assert not_built == 0, "Pydantic refused programs:\n  " + cases(r, "errors")
    assert refused == 0, "flatjoin refused programs:\n  " + cases(r, "errors")
    assert invalid == 0, "presentations that are no valid schema:\n  " + cases(r, "errors")
    assert mismatches == 0, "Pydantic/schema mismatches (not flatjoin's):\n  " + cases(r, "mismatch_cases")


def test_no_value_pydantic_accepts_is_rejected_by_the_presentation(results):
    """SPEC §4 soundness under the default `declared` reading (§2.8)."""
    r = need(results)
    kept, unsound = r.total("values_kept"), r.total("unsound")
    assert kept > 500
    assert unsound == 0, (
        "%d of %d kept values rejected by the presentation (replay: world.py --replay SEED:INDEX):\n  %s"
        % (unsound, kept, cases(r, "unsound_cases"))
    )


def test_every_root_union_of_objects_becomes_one_object(results):
    """SPEC §2.9 and §4's object guarantee: a root union whose branches are all objects (nested
    unions of objects opened first) becomes one object, with or without a discriminator."""
    r = need(results)
    left = r.total("object_root_unions") - r.total("object_roots_one_object")
    per_form = ", ".join(
        "%s %d/%d" % (f, s.object_roots_one_object, s.object_root_unions)
        for f, s in r.per_form.items() if s.object_root_unions
    )
    assert left == 0, "%d root unions of objects left as unions (one object / root unions: %s); first:\n  %s" % (
        left, per_form, cases(r, "roots_left"))


def test_every_union_site_is_flattened_or_named(results):
    """SPEC §2.9: every union site left as it is is named in the diagnostics with its reason."""
    r = need(results)
    shapes = {}
    for s in r.per_form.values():
        for (where, shape), n in s.unnamed_shapes.items():
            shapes["%s %s" % (where, shape)] = shapes.get("%s %s" % (where, shape), 0) + n
    unnamed = r.total("unnamed")
    assert unnamed == 0, "%d of %d union sites neither flattened nor skipped (%s); first:\n  %s" % (
        unnamed, r.total("sites"), ", ".join("%s: %d" % kv for kv in sorted(shapes.items())),
        cases(r, "unnamed_cases"))
    assert r.total("unknown_pointers") == 0


def test_the_batch_is_what_flatten_prints_per_program(results):
    """`world.py --batch` flattens many programs in one `flatjoin manifest` process; the manifest
    surface calls the same projection as `flatten` (SPEC §4, I8): a sample is compared program by
    program: the same presentation, the same union sites flattened and skipped, and the same value
    for every field the two diagnostics both carry."""
    r = need(results)
    path = r.flatjoin
    from collections import OrderedDict

    progs = [world.make_program(SEEDS[0], i) for i in range(15)]
    schemas = OrderedDict(("p%d" % p.index, p.schema) for p in progs if not p.build_error)
    batch = world.flatten_batch(path, schemas)
    for name, schema in schemas.items():
        one = world.flatten_one(path, schema)
        assert batch[name]["presentation"] == one["presentation"], name
        for part in ("flattened", "skipped"):
            mine, theirs = batch[name]["diagnostics"][part], one["diagnostics"][part]
            assert [e.get("pointer") for e in mine] == [e.get("pointer") for e in theirs], (name, part)
            for a, b in zip(mine, theirs):
                shared = set(a) & set(b)
                assert {k: a[k] for k in shared} == {k: b[k] for k in shared}, (name, part, a, b)
