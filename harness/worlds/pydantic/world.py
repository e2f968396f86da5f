#!/usr/bin/env python3
"""A random Pydantic program world: real Pydantic v2 is the authority (SPEC §2.9, §4).

Each program is a random Pydantic v2 type built with `pydantic.create_model`, `Literal`,
`Annotated`, `Union`, `Optional`, `List`, `Field(discriminator=...)` and `Discriminator`/`Tag`,
drawn from one of the FORMS below. For each program:

1. the original is `TypeAdapter(root).json_schema()`;
2. values are drawn per leaf model from the program's structure (only the keys the leaf
   declares, plus sometimes a fresh key no model declares, which the `declared` reading of
   SPEC §2.8 still promises) and kept when Pydantic accepts them in strict JSON mode (no
   coercion) AND the original schema accepts them (`jsonschema.Draft202012Validator`). A value
   Pydantic takes but the original rejects is a Pydantic/schema mismatch, counted apart;
3. the original is flattened by the flatjoin CLI, `flatjoin flatten --diagnostics`, one process
   per program (`--batch`: many programs per process through `flatjoin manifest --diagnostics`,
   one tool per program);
4. the presentation is judged by `jsonschema.Draft202012Validator`: a kept value it rejects is
   UNSOUND (SPEC §4, soundness). The world also records whether the root became one object
   (`"type": "object"`, no root `oneOf`/`anyOf`: SPEC §4, object guarantee, amended for §2.9),
   and, for every union site of the original (a `oneOf`/`anyOf` with at least two members, in a
   position JSON Schema reads as a schema), whether the diagnostics list it as flattened, as
   skipped (with its `code`, else its `reason`), or not at all ("unnamed"; §2.9 promises none).

Usage:
    python3 harness/worlds/pydantic/world.py --seeds 1..4 --programs 400 --report reports/pydantic-world.md
    python3 harness/worlds/pydantic/world.py --replay 3:17

Only the standard library, pydantic and jsonschema.
"""

from __future__ import annotations

import argparse
import enum
import importlib.metadata
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Annotated, Any, List, Literal, Optional, Union

import jsonschema
import pydantic
from pydantic import ConfigDict, Discriminator, Field, Tag, TypeAdapter, ValidationError, create_model

FORMS = [
    "du",  # Annotated[Union[A, B, ...], Field(discriminator=d)], every tag required
    "du-default-tag",  # the same, some branches `d: Literal['a'] = 'a'` (not required: §2.9 rule 3 relaxed, decision 68)
    "nested-du",  # Pydantic's documented nested discriminated union (§2.9 rule 1 on projected branches)
    "union-no-discriminator",  # Union[A, B] of models, no discriminator (§2.9: joined at the root)
    "callable-du",  # Annotated[Union[Annotated[A, Tag('a')], ...], Discriminator(callable)]: oneOf, no `discriminator` keyword
    "mixed",  # Union[A, B, <scalar or None>]: a root union with a non-object branch (§2.9: named, left as it is)
]

# The forms whose root union has only object branches (after `$ref` and nested unions): §2.9 and
# the amended §4 promise that each such root becomes one object.
OBJECT_ROOT_FORMS = {"du", "du-default-tag", "nested-du", "union-no-discriminator", "callable-du"}

EXTRA_PREFIX = "zz_extra"  # no model declares a key with this prefix (SPEC §2.8 `declared`: still promised)

FIELD_NAMES = [
    "name", "label", "count", "size", "ratio", "flag", "note", "tags", "color", "width", "height",
    "depth", "title", "code", "level", "mode", "value", "unit", "target", "source", "weight", "items_",
    "path", "limit", "offset", "owner", "priority", "status", "text", "url",
]
TAG_NAMES = ["kind", "type", "tag", "op", "variant", "action"]
TAG_VALUES = [
    "circle", "square", "label", "polygon", "line", "point", "text", "image", "audio", "video",
    "create", "update", "delete", "move", "copy", "open", "close", "read", "write", "list",
]
MODEL_WORDS = [
    "Circle", "Square", "Label", "Polygon", "Create", "Update", "Delete", "Search", "Fetch", "Move",
    "Cat", "Dog", "Lizard", "Bird", "Email", "Sms", "Push", "Card", "Cash", "Wire",
]
STRINGS = ["", "a", "hello world", "ünïcode ✓", "42", "null", "kind"]
INTS = [0, 1, -7, 123456, 2**40, -(2**31)]
FLOATS = [0.5, -2.25, 1e10, 3.0, 7, -1, 1.5e-7]


# ---------------------------------------------------------------------------------------------
# Program structure: a small tree of type specs, rendered both as real Pydantic types and as
# Python source (for --replay), and walked to draw values.
# ---------------------------------------------------------------------------------------------

MISSING = object()


@dataclass(eq=False)
class Scalar:
    py: str  # "str" | "int" | "float" | "bool" | "None"


@dataclass(eq=False)
class Lit:
    values: tuple


@dataclass(eq=False)
class EnumT:
    name: str
    values: tuple
    built: Any = None


@dataclass(eq=False)
class Opt:
    inner: Any


@dataclass(eq=False)
class ListT:
    inner: Any


@dataclass(eq=False)
class FieldSpec:
    name: str
    type: Any
    default: Any = MISSING


@dataclass(eq=False)
class ModelT:
    name: str
    fields: list
    closed: bool = False
    built: Any = None


@dataclass(eq=False)
class UnionT:
    members: list
    discriminator: Optional[str] = None  # Field(discriminator=...)
    callable_tag: Optional[str] = None  # Discriminator(callable) reading this key; members carry Tag(...)


def tag_value_of(model: ModelT, tag: str):
    for f in model.fields:
        if f.name == tag and isinstance(f.type, Lit):
            return f.type.values[0]
    return None


def to_type(spec):
    if isinstance(spec, Scalar):
        return {"str": str, "int": int, "float": float, "bool": bool, "None": type(None)}[spec.py]
    if isinstance(spec, Lit):
        return Literal.__getitem__(spec.values)
    if isinstance(spec, EnumT):
        if spec.built is None:
            spec.built = enum.Enum(spec.name, [(f"V{i}", v) for i, v in enumerate(spec.values)])
        return spec.built
    if isinstance(spec, Opt):
        return Optional[to_type(spec.inner)]
    if isinstance(spec, ListT):
        return List[to_type(spec.inner)]
    if isinstance(spec, ModelT):
        if spec.built is None:
            fields = {}
            for f in spec.fields:
                fields[f.name] = (to_type(f.type), ... if f.default is MISSING else f.default)
            kwargs = {"__config__": ConfigDict(extra="forbid")} if spec.closed else {}
            spec.built = create_model(spec.name, **kwargs, **fields)
        return spec.built
    if isinstance(spec, UnionT):
        if spec.callable_tag is not None:
            key = spec.callable_tag

            def pick(v, key=key):
                if isinstance(v, dict):
                    return v.get(key)
                return getattr(v, key, None)

            members = tuple(Annotated[to_type(m), Tag(str(tag_value_of(m, key)))] for m in spec.members)
            return Annotated[Union.__getitem__(members), Discriminator(pick)]
        members = tuple(to_type(m) for m in spec.members)
        if spec.discriminator is not None:
            return Annotated[Union.__getitem__(members), Field(discriminator=spec.discriminator)]
        return Union.__getitem__(members)
    raise TypeError(spec)


def to_src(spec) -> str:
    if isinstance(spec, Scalar):
        return spec.py
    if isinstance(spec, Lit):
        return "Literal[%s]" % ", ".join(repr(v) for v in spec.values)
    if isinstance(spec, (EnumT, ModelT)):
        return spec.name
    if isinstance(spec, Opt):
        return "Optional[%s]" % to_src(spec.inner)
    if isinstance(spec, ListT):
        return "List[%s]" % to_src(spec.inner)
    if isinstance(spec, UnionT):
        if spec.callable_tag is not None:
            inner = ", ".join(
                "Annotated[%s, Tag(%r)]" % (to_src(m), str(tag_value_of(m, spec.callable_tag))) for m in spec.members
            )
            return "Annotated[Union[%s], Discriminator(lambda v: v.get(%r) if isinstance(v, dict) else v.%s)]" % (
                inner, spec.callable_tag, spec.callable_tag)
        inner = "Union[%s]" % ", ".join(to_src(m) for m in spec.members)
        if spec.discriminator is not None:
            return "Annotated[%s, Field(discriminator=%r)]" % (inner, spec.discriminator)
        return inner
    raise TypeError(spec)


def walk_specs(spec, seen=None):
    """Every spec node reachable from spec, each once (models and enums in definition order)."""
    if seen is None:
        seen = []
    if any(s is spec for s in seen):
        return seen
    if isinstance(spec, (Opt, ListT)):
        walk_specs(spec.inner, seen)
    elif isinstance(spec, UnionT):
        for m in spec.members:
            walk_specs(m, seen)
    elif isinstance(spec, ModelT):
        for f in spec.fields:
            walk_specs(f.type, seen)
        seen.append(spec)
    elif isinstance(spec, EnumT):
        seen.append(spec)
    return seen


def program_source(root) -> str:
    lines = []
    for spec in walk_specs(root):
        if isinstance(spec, EnumT):
            lines.append("class %s(Enum):" % spec.name)
            for i, v in enumerate(spec.values):
                lines.append("    V%d = %r" % (i, v))
        else:
            lines.append("class %s(BaseModel):" % spec.name)
            if spec.closed:
                lines.append("    model_config = ConfigDict(extra='forbid')")
            if not spec.fields:
                lines.append("    pass")
            for f in spec.fields:
                if f.default is MISSING:
                    d = ""
                elif isinstance(f.default, enum.Enum):
                    d = " = %s.%s" % (type(f.default).__name__, f.default.name)
                else:
                    d = " = %r" % (f.default,)
                lines.append("    %s: %s%s" % (f.name, to_src(f.type), d))
        lines.append("")
    lines.append("Root = " + to_src(root))
    lines.append("schema = TypeAdapter(Root).json_schema()")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The generator.
# ---------------------------------------------------------------------------------------------


class Gen:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.n = 0

    def fresh(self, word: str) -> str:
        self.n += 1
        return "%s%d" % (word, self.n)

    def tag_values(self, k: int, strings_only=False) -> list:
        """k pairwise disjoint literal sets (SPEC §1 rule 4): mostly one string each, sometimes
        two strings, sometimes integers."""
        rng = self.rng
        if not strings_only and rng.random() < 0.12:
            start = rng.choice([0, 1, 10])
            return [(start + i,) for i in range(k)]
        pool = rng.sample(TAG_VALUES, k * 2)
        out = []
        for i in range(k):
            if not strings_only and rng.random() < 0.15:
                out.append((pool[2 * i], pool[2 * i + 1]))
            else:
                out.append((pool[2 * i],))
        return out

    def scalar(self) -> Any:
        return Scalar(self.rng.choice(["str", "int", "float", "bool"]))

    def default_for(self, spec):
        rng = self.rng
        if isinstance(spec, Scalar):
            return {"str": lambda: rng.choice(["", "x", "default"]), "int": lambda: rng.choice([0, 3, -1]),
                    "float": lambda: rng.choice([0.0, 1.5]), "bool": lambda: rng.choice([True, False])}[spec.py]()
        if isinstance(spec, Lit):
            return spec.values[0]
        if isinstance(spec, EnumT):
            return to_type(spec)(spec.values[0])
        if isinstance(spec, Opt):
            return None
        if isinstance(spec, ListT):
            return []
        return MISSING

    def field_type(self, depth: int):
        """A field's type. Unions as fields (a union-typed field, List[union], Optional[union])
        give the program nested union sites (SPEC §2, 'A DU nested anywhere')."""
        rng = self.rng
        r = rng.random()
        if r < 0.34:
            return self.scalar()
        if r < 0.46:
            return Opt(self.scalar())
        if r < 0.54:
            return ListT(self.scalar())
        if r < 0.61:
            k = rng.choice([1, 2, 3])
            if rng.random() < 0.7:
                return Lit(tuple(rng.sample(["on", "off", "auto", "low", "high"], k)))
            return Lit(tuple(rng.sample([1, 2, 3, 5, 8], k)))
        if r < 0.67:
            if rng.random() < 0.75:
                vals = tuple(rng.sample(["red", "green", "blue", "cyan", "none"], rng.choice([2, 3])))
            else:
                vals = tuple(rng.sample([1, 2, 4, 8], rng.choice([2, 3])))
            return EnumT(self.fresh("Choice"), vals)
        if r < 0.71:
            return UnionT([Scalar("int"), Scalar("str")])  # Union[int, str]: a union of scalars
        if depth >= 2:
            return self.scalar()
        if r < 0.80:
            m = self.plain_model(depth + 1)
            return Opt(m) if rng.random() < 0.3 else m
        # a union as a field: discriminated or not, bare, in a list, or optional
        u = self.union_site(depth + 1)
        w = rng.random()
        if w < 0.45:
            return u
        if w < 0.75:
            return ListT(u)
        return Opt(u)

    def fields(self, depth: int, reserved: set, lo=0, hi=4) -> list:
        rng = self.rng
        out = []
        names = [n for n in FIELD_NAMES if n not in reserved]
        for name in rng.sample(names, rng.randint(lo, hi)):
            t = self.field_type(depth)
            default = MISSING
            if rng.random() < 0.3:
                default = self.default_for(t)
            elif isinstance(t, Opt) and rng.random() < 0.6:
                default = None
            out.append(FieldSpec(name, t, default))
        return out

    def plain_model(self, depth: int) -> ModelT:
        return ModelT(self.fresh(self.rng.choice(MODEL_WORDS)), self.fields(depth, set(), 1, 3),
                      closed=self.rng.random() < 0.25)

    def branch(self, depth: int, tags: list, defaulted=False) -> ModelT:
        """A branch model: its tag fields first (`(name, values)` pairs), then random fields."""
        rng = self.rng
        fs = []
        for name, values in tags:
            default = values[0] if (defaulted and len(values) == 1) else MISSING
            fs.append(FieldSpec(name, Lit(values), default))
        reserved = {name for name, _ in tags}
        fs.extend(self.fields(depth, reserved, 0, 4))
        if rng.random() < 0.3:  # tag not first in the key order
            rng.shuffle(fs)
        return ModelT(self.fresh(rng.choice(MODEL_WORDS)), fs, closed=rng.random() < 0.25)

    def union_site(self, depth: int) -> UnionT:
        """A union used as a field: a DU (sometimes with a defaulted tag) or a plain Union."""
        rng = self.rng
        k = rng.choice([2, 2, 3])
        tag = rng.choice(TAG_NAMES)
        vals = self.tag_values(k)
        r = rng.random()
        if r < 0.55:
            ms = [self.branch(depth, [(tag, v)], defaulted=rng.random() < 0.2) for v in vals]
            return UnionT(ms, discriminator=tag)
        if r < 0.75:
            ms = [self.branch(depth, [(tag, v)]) for v in vals]
            return UnionT(ms)  # tagged models, no discriminator
        ms = [self.plain_model(depth) for _ in range(k)]
        return UnionT(ms)

    # --- the root forms ---

    def root(self, form: str):
        rng = self.rng
        k = rng.choice([2, 2, 3, 3, 4])
        tag = rng.choice(TAG_NAMES)
        if form == "du":
            return UnionT([self.branch(1, [(tag, v)]) for v in self.tag_values(k)], discriminator=tag)
        if form == "du-default-tag":
            vals = self.tag_values(k)
            defaulted = [rng.random() < 0.5 for _ in vals]
            if not any(defaulted):
                defaulted[rng.randrange(k)] = True
            vals = [v[:1] if d else v for v, d in zip(vals, defaulted)]  # a default needs one literal
            return UnionT([self.branch(1, [(tag, v)], defaulted=d) for v, d in zip(vals, defaulted)],
                          discriminator=tag)
        if form == "nested-du":
            # SPEC §2.9: Cat = Annotated[Union[BlackCat, WhiteCat], Field(discriminator='color')],
            # Pet = Annotated[Union[Cat, Dog], Field(discriminator='pet_type')].
            outer_vals = self.tag_values(k, strings_only=True)
            inner_tag = rng.choice([t for t in TAG_NAMES + ["color", "subtype"] if t != tag])
            n_nested = rng.choice([1, 1, 2]) if k > 2 else 1
            members = []
            for i, ov in enumerate(outer_vals):
                if i < n_nested:
                    inner = self.tag_values(rng.choice([2, 2, 3]), strings_only=True)
                    ms = [self.branch(2, [(tag, ov), (inner_tag, iv)]) for iv in inner]
                    if rng.random() < 0.25:
                        # three levels: the first inner branch is itself a union on a third tag
                        third = rng.choice(["shade", "grade"])
                        ms[0] = UnionT([self.branch(3, [(tag, ov), (inner_tag, inner[0]), (third, tv)])
                                        for tv in self.tag_values(2, strings_only=True)], discriminator=third)
                    members.append(UnionT(ms, discriminator=inner_tag))
                else:
                    members.append(self.branch(1, [(tag, ov)]))
            rng.shuffle(members)
            return UnionT(members, discriminator=tag)
        if form == "union-no-discriminator":
            if rng.random() < 0.5:
                ms = [self.branch(1, [(tag, v)], defaulted=rng.random() < 0.3) for v in self.tag_values(k)]
            else:
                ms = [ModelT(self.fresh(rng.choice(MODEL_WORDS)), self.fields(1, set(), 1, 4),
                             closed=rng.random() < 0.25) for _ in range(k)]
            return UnionT(ms)
        if form == "callable-du":
            vals = self.tag_values(k, strings_only=True)
            return UnionT([self.branch(1, [(tag, v)]) for v in vals], callable_tag=tag)
        if form == "mixed":
            ms = [self.branch(1, [(tag, v)]) for v in self.tag_values(max(2, k - 1))]
            other = rng.choice([Scalar("str"), Scalar("int"), Scalar("None"), ListT(Scalar("str"))])
            ms.insert(rng.randrange(len(ms) + 1), other)
            return UnionT(ms, discriminator=None)
        raise ValueError(form)


# ---------------------------------------------------------------------------------------------
# Values.
# ---------------------------------------------------------------------------------------------


def random_json(rng: random.Random, depth=0):
    r = rng.random()
    if depth < 1 and r < 0.15:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if depth < 1 and r < 0.3:
        return {"k%d" % i: random_json(rng, depth + 1) for i in range(rng.randint(0, 2))}
    return rng.choice([None, True, 0, -3, 2.5, "x", ""])


def union_tags(spec: UnionT) -> tuple:
    """The key a discriminated union reads its tag from (none for a plain `Union`)."""
    key = spec.discriminator or spec.callable_tag
    return (key,) if key else ()


def leaf_paths(spec, tags=()) -> list:
    """(leaf model, the tag keys the discriminated unions above it read) for every leaf."""
    if isinstance(spec, ModelT):
        return [(spec, tags)]
    if isinstance(spec, UnionT):
        out = []
        for m in spec.members:
            out.extend(leaf_paths(m, tags + union_tags(spec)))
        return out
    return []


class Drawer:
    """Draws a value down one path of branches: at every union, one member; for a model, only
    the keys it declares, plus sometimes a fresh key no model declares. Such a value is valid for
    the branch it was drawn from at every union site on its path, with keys that branch declares
    or no branch declares: what SPEC §4 promises under `declared` (§2.8).

    Sometimes a draw leaves its path on purpose (a fresh key on a closed model, a discriminated
    union's defaulted tag left out): `off` is then set. Pydantic rejects most of these; one it
    accepts went through another branch (a plain `Union`'s open member takes any keys), with keys
    that other branch may not declare, which `declared` does not promise: such values are counted
    apart and never judged unsound."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.off = False

    def value(self, spec, tags=()):
        rng = self.rng
        if isinstance(spec, Scalar):
            if spec.py == "str":
                return rng.choice(STRINGS)
            if spec.py == "int":
                return rng.choice(INTS)
            if spec.py == "float":
                return rng.choice(FLOATS)
            if spec.py == "bool":
                return rng.choice([True, False])
            return None
        if isinstance(spec, (Lit, EnumT)):
            return rng.choice(spec.values)
        if isinstance(spec, Opt):
            return None if rng.random() < 0.3 else self.value(spec.inner)
        if isinstance(spec, ListT):
            return [self.value(spec.inner) for _ in range(rng.choice([0, 1, 2, 3]))]
        if isinstance(spec, ModelT):
            return self.model(spec, tags)
        if isinstance(spec, UnionT):
            return self.value(rng.choice(spec.members), tags + union_tags(spec))
        raise TypeError(spec)

    def model(self, m: ModelT, tags=()):
        rng = self.rng
        out = {}
        for f in m.fields:
            if f.default is not MISSING and rng.random() < (0.3 if isinstance(f.type, Lit) else 0.4):
                if f.name not in tags:
                    continue
                if rng.random() < 0.5:
                    self.off = True  # a discriminated union needs its tag, default or not
                    continue
            out[f.name] = self.value(f.type)
        if rng.random() < 0.15:
            if m.closed:
                self.off = True
            out["%s%d" % (EXTRA_PREFIX, rng.randint(0, 9))] = random_json(rng)
        return out

    def draw(self, spec, tags=()):
        """(value, off its path?)"""
        self.off = False
        v = self.model(spec, tags) if isinstance(spec, ModelT) else self.value(spec, tags)
        return v, self.off


# ---------------------------------------------------------------------------------------------
# The original's union sites, and what a presentation's root is.
# ---------------------------------------------------------------------------------------------

SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_ONE = ("additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames",
              "unevaluatedProperties", "unevaluatedItems", "additionalItems")


def esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def union_sites(schema, pointer="", out=None):
    """Every `oneOf`/`anyOf` node with at least two members, by JSON pointer, in positions JSON
    Schema 2020-12 reads as schemas (not inside `discriminator`, `default`, `enum`, ...)."""
    if out is None:
        out = []
    if not isinstance(schema, dict):
        return out
    for kw in ("oneOf", "anyOf"):
        members = schema.get(kw)
        if isinstance(members, list) and len(members) >= 2:
            out.append((pointer, kw))
            break
    for kw in SCHEMA_MAPS:
        sub = schema.get(kw)
        if isinstance(sub, dict):
            for k, v in sub.items():
                union_sites(v, "%s/%s/%s" % (pointer, kw, esc(k)), out)
    for kw in SCHEMA_LISTS:
        sub = schema.get(kw)
        if isinstance(sub, list):
            for i, v in enumerate(sub):
                union_sites(v, "%s/%s/%d" % (pointer, kw, i), out)
    for kw in SCHEMA_ONE:
        if kw in schema:
            union_sites(schema[kw], "%s/%s" % (pointer, kw), out)
    return out


def at_pointer(doc, pointer: str):
    node = doc
    if pointer == "":
        return node
    for part in pointer[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def resolve(doc, node, hops=0):
    while isinstance(node, dict) and "$ref" in node and hops < 32 and node["$ref"].startswith("#"):
        node = at_pointer(doc, node["$ref"][1:])
        hops += 1
    return node


def members_of(node):
    for kw in ("oneOf", "anyOf"):
        if isinstance(node.get(kw), list) and len(node[kw]) >= 2:
            return node[kw]
    return None


def is_object_union(doc, node, depth=0) -> bool:
    """A union whose members are all object schemas, nested unions of objects opened (§2.9)."""
    node = resolve(doc, node)
    ms = members_of(node) if isinstance(node, dict) else None
    if ms is None or depth > 8:
        return False
    for m in ms:
        m = resolve(doc, m)
        if not isinstance(m, dict):
            return False
        if members_of(m) is not None:
            if not is_object_union(doc, m, depth + 1):
                return False
        elif m.get("type") != "object":
            return False
    return True


def kinds_of(doc, node, depth=0) -> set:
    node = resolve(doc, node)
    if not isinstance(node, dict) or depth > 8:
        return {"?"}
    ms = members_of(node)
    if ms is not None:
        out = set()
        for m in ms:
            out |= kinds_of(doc, m, depth + 1)
        return out
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return set(t)
    if "const" in node or "enum" in node:
        vals = [node["const"]] if "const" in node else node["enum"]
        return {"null" if v is None else "scalar" if not isinstance(v, (dict, list)) else "object" for v in vals}
    return {"?"}


def site_shape(doc, pointer: str) -> str:
    """A coarse shape of a union site, for the report's breakdown of unnamed sites."""
    node = at_pointer(doc, pointer)
    ms = members_of(node)
    kinds = [kinds_of(doc, m) for m in ms]
    null = [k == {"null"} for k in kinds]
    if is_object_union(doc, node):
        return "objects"
    if any(null) and len(ms) - sum(null) == 1:
        rest = [k for k, n in zip(kinds, null) if not n][0]
        if rest <= {"object"}:
            return "nullable object"
        if rest & {"object", "array", "?"}:
            return "nullable array/other"
        return "nullable scalar"
    if all(k and k <= {"string", "integer", "number", "boolean", "null", "scalar"} for k in kinds):
        return "scalars"
    return "mixed kinds"


def root_is_one_object(presentation) -> bool:
    return (isinstance(presentation, dict) and presentation.get("type") == "object"
            and "oneOf" not in presentation and "anyOf" not in presentation)


_INDEX = re.compile(r"\b(branch|branches|member|members|item|items|position) \d+")


def skip_key(entry) -> str:
    """The skip's code when the diagnostics carry one (SPEC §2.9's closed list), else its reason
    with branch indices folded (`branch 2` and `branch 0` are one reason)."""
    code = entry.get("code")
    if code:
        return str(code)
    return _INDEX.sub(lambda m: m.group(1) + " N", str(entry.get("reason", "?")))


# ---------------------------------------------------------------------------------------------
# One program.
# ---------------------------------------------------------------------------------------------


@dataclass
class Program:
    seed: int
    index: int
    form: str
    root: Any = None
    source: str = ""
    schema: Any = None
    build_error: Optional[str] = None
    values: list = field(default_factory=list)  # kept values, each drawn down one path of branches
    pydantic_rejected: int = 0  # drawn down a path, yet rejected by Pydantic (expected: 0)
    off_values: list = field(default_factory=list)  # off its path, accepted through another branch
    off_rejected: int = 0  # off its path, rejected by Pydantic
    mismatches: list = field(default_factory=list)  # Pydantic accepts, original rejects


def program_rng(seed: int, index: int) -> random.Random:
    return random.Random("pydantic-world:%d:%d" % (seed, index))


def make_program(seed: int, index: int, values_per_leaf=3) -> Program:
    rng = program_rng(seed, index)
    form = rng.choice(FORMS)
    p = Program(seed, index, form)
    g = Gen(rng)
    p.root = g.root(form)
    p.source = program_source(p.root)
    try:
        adapter = TypeAdapter(to_type(p.root))
        p.schema = adapter.json_schema()
    except Exception as e:  # Pydantic refused the program: recorded, not judged
        p.build_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
        return p
    try:
        original = jsonschema.Draft202012Validator(p.schema)
    except Exception as e:
        p.build_error = "original not compilable: %s" % e
        return p
    drawer = Drawer(rng)
    draws = []
    for leaf, tags in leaf_paths(p.root):
        for _ in range(values_per_leaf):
            draws.append(drawer.draw(leaf, tags))
    if isinstance(p.root, UnionT):  # the `mixed` form's non-object members
        for s in p.root.members:
            if not isinstance(s, (ModelT, UnionT)):
                for _ in range(2):
                    draws.append(drawer.draw(s))
    seen = set()
    for v, off in draws:
        text = json.dumps(v, sort_keys=True)
        if text in seen:
            continue
        seen.add(text)
        try:
            adapter.validate_json(json.dumps(v), strict=True)
        except ValidationError:
            if off:
                p.off_rejected += 1
            else:
                p.pydantic_rejected += 1
            continue
        if not original.is_valid(v):
            p.mismatches.append(v)
        elif off:
            p.off_values.append(v)
        else:
            p.values.append(v)
    return p


# ---------------------------------------------------------------------------------------------
# The flatjoin CLI.
# ---------------------------------------------------------------------------------------------


def default_flatjoin() -> str:
    return os.environ.get("FLATJOIN_BIN") or "target/release/flatjoin"


def flatten_one(flatjoin: str, schema) -> dict:
    """`flatjoin flatten --diagnostics`: {presentation, diagnostics} or {error}."""
    with tempfile.TemporaryDirectory(prefix="pydantic-world-") as d:
        src = os.path.join(d, "schema.json")
        diag = os.path.join(d, "diag.json")
        with open(src, "w", encoding="utf-8") as f:
            json.dump(schema, f)
        run = subprocess.run([flatjoin, "flatten", "--diagnostics", diag, src], capture_output=True, text=True)
        if run.returncode != 0:
            return {"error": "exit %d: %s" % (run.returncode, run.stderr.strip())}
        with open(diag, encoding="utf-8") as f:
            diagnostics = json.load(f)
        return {"presentation": json.loads(run.stdout), "diagnostics": diagnostics}


def flatten_batch(flatjoin: str, schemas: "OrderedDict[str, Any]") -> dict:
    """Many schemas in one process (`--batch`): `flatjoin manifest --diagnostics` over a
    `tools/list` result with one tool per program. The manifest surface calls the same projection
    as `flatten` (SPEC §4, I8; the test compares the two on a sample), but its diagnostics may
    carry fewer fields (a skip's `code`), so the default is one `flatten` per program. Falls back
    to one process per program when the batch fails."""
    if not schemas:
        return {}
    with tempfile.TemporaryDirectory(prefix="pydantic-world-") as d:
        src = os.path.join(d, "tools.json")
        diag = os.path.join(d, "diag.json")
        with open(src, "w", encoding="utf-8") as f:
            json.dump({"tools": [{"name": n, "inputSchema": s} for n, s in schemas.items()]}, f)
        run = subprocess.run([flatjoin, "manifest", "--diagnostics", diag, src], capture_output=True, text=True)
        if run.returncode == 0:
            out = json.loads(run.stdout)
            with open(diag, encoding="utf-8") as f:
                diagnostics = json.load(f)
            result = {}
            for tool in out["tools"]:
                result[tool["name"]] = {"presentation": tool["inputSchema"],
                                        "diagnostics": {"flattened": [], "skipped": []}}
            for part in ("flattened", "skipped"):
                for entry in diagnostics.get(part, []):
                    entry = dict(entry)
                    name = entry.pop("tool", None)
                    if name in result:
                        result[name]["diagnostics"][part].append(entry)
            for k, v in diagnostics.items():  # anything else the diagnostics say, per tool if keyed so
                if k not in ("flattened", "skipped"):
                    for r in result.values():
                        r["diagnostics"].setdefault(k, v)
            if set(result) == set(schemas):
                return result
    return {n: flatten_one(flatjoin, s) for n, s in schemas.items()}


# ---------------------------------------------------------------------------------------------
# Judging and counting.
# ---------------------------------------------------------------------------------------------

FIRST_FEW = 5


@dataclass
class FormStats:
    programs: int = 0
    not_built: int = 0
    flatjoin_errors: int = 0
    root_unions: int = 0
    object_root_unions: int = 0
    object_roots_one_object: int = 0
    roots_one_object: int = 0
    nested_sites: int = 0
    sites: int = 0
    flattened: int = 0
    flattened_root: int = 0
    flattened_nested: int = 0
    skipped: int = 0
    unnamed: int = 0
    unknown_pointers: int = 0
    values_kept: int = 0
    pydantic_rejected: int = 0
    off_rejected: int = 0
    off_kept: int = 0
    off_presentation_rejected: int = 0
    unsound: int = 0
    mismatches: int = 0
    invalid_presentations: int = 0
    skip_reasons: Counter = field(default_factory=Counter)  # (root|nested, key) -> n
    unnamed_shapes: Counter = field(default_factory=Counter)  # (root|nested, shape) -> n
    unsound_cases: list = field(default_factory=list)
    roots_left: list = field(default_factory=list)
    mismatch_cases: list = field(default_factory=list)
    off_cases: list = field(default_factory=list)
    unnamed_cases: list = field(default_factory=list)
    errors: list = field(default_factory=list)


@dataclass
class Results:
    seeds: list
    programs: int
    flatjoin: str
    per_form: "OrderedDict[str, FormStats]"
    outcomes: dict = field(default_factory=dict)  # "seed:index" -> per-program record (for tests)

    def total(self, attr: str) -> int:
        return sum(getattr(s, attr) for s in self.per_form.values())

    def __repr__(self):  # short, for pytest's tracebacks
        return "Results(seeds=%r, programs=%d, flatjoin=%r)" % (self.seeds, self.programs, self.flatjoin)


def judge(p: Program, flat: dict, stats: FormStats, record: dict):
    ref = "%d:%d" % (p.seed, p.index)
    if "error" in flat:
        stats.flatjoin_errors += 1
        if len(stats.errors) < FIRST_FEW:
            stats.errors.append((ref, flat["error"]))
        record["error"] = flat["error"]
        return
    pres = flat["presentation"]
    diag = flat["diagnostics"]
    sites = union_sites(p.schema)
    site_ptrs = [ptr for ptr, _ in sites]
    flattened = {e.get("pointer") for e in diag.get("flattened", [])}
    skipped = {}
    for e in diag.get("skipped", []):
        skipped.setdefault(e.get("pointer"), e)
    root_union = "" in site_ptrs
    object_root = root_union and is_object_union(p.schema, p.schema)
    one = root_is_one_object(pres)
    if root_union:
        stats.root_unions += 1
        stats.roots_one_object += one
        if object_root:
            stats.object_root_unions += 1
            stats.object_roots_one_object += one
        if not one and len(stats.roots_left) < FIRST_FEW:
            e = skipped.get("")
            why = skip_key(e) if e else ("flattened, yet not one object" if "" in flattened else "not named in the diagnostics")
            stats.roots_left.append((ref, why))
    record.update(root_union=root_union, object_root=object_root, root_one_object=one, unnamed=[])
    for ptr in site_ptrs:
        where = "root" if ptr == "" else "nested"
        stats.sites += 1
        if ptr != "":
            stats.nested_sites += 1
        if ptr in flattened:
            stats.flattened += 1
            if ptr == "":
                stats.flattened_root += 1
            else:
                stats.flattened_nested += 1
        elif ptr in skipped:
            stats.skipped += 1
            stats.skip_reasons[(where, skip_key(skipped[ptr]))] += 1
        else:
            stats.unnamed += 1
            shape = site_shape(p.schema, ptr)
            stats.unnamed_shapes[(where, shape)] += 1
            record["unnamed"].append(ptr)
            if len(stats.unnamed_cases) < FIRST_FEW:
                stats.unnamed_cases.append((ref, ptr or "(root)", shape))
    known = set(site_ptrs)
    stats.unknown_pointers += len([x for x in flattened | set(skipped) if x not in known])
    try:
        jsonschema.Draft202012Validator.check_schema(pres)
        check = jsonschema.Draft202012Validator(pres)
    except Exception as e:
        stats.invalid_presentations += 1
        if len(stats.errors) < FIRST_FEW:
            stats.errors.append((ref, "presentation not a valid schema: %s" % str(e).splitlines()[0]))
        record["error"] = "invalid presentation"
        return
    unsound = []
    for v in p.values:
        if not check.is_valid(v):
            unsound.append(v)
            if len(stats.unsound_cases) < FIRST_FEW:
                err = next(iter(check.iter_errors(v)))
                stats.unsound_cases.append((ref, json.dumps(v, ensure_ascii=False),
                                            "%s at %s" % (err.message, "/" + "/".join(map(str, err.absolute_path)))))
    stats.unsound += len(unsound)
    record["unsound"] = unsound
    # Off-path values (see Drawer): not promised under `declared`, counted for information only.
    for v in p.off_values:
        if not check.is_valid(v):
            stats.off_presentation_rejected += 1
            if len(stats.off_cases) < FIRST_FEW:
                stats.off_cases.append((ref, json.dumps(v, ensure_ascii=False)))


def parse_seeds(text: str) -> list:
    out = []
    for part in text.split(","):
        part = part.strip()
        if ".." in part:
            a, b = part.split("..", 1)
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def run_world(seeds, programs: int, flatjoin: str, batch=False, progress=None) -> Results:
    per_form = OrderedDict((f, FormStats()) for f in FORMS)
    results = Results(list(seeds), programs, flatjoin, per_form)
    for seed in seeds:
        progs = []
        for index in range(programs):
            p = make_program(seed, index)
            progs.append(p)
            st = per_form[p.form]
            st.programs += 1
            if p.build_error:
                st.not_built += 1
                if len(st.errors) < FIRST_FEW:
                    st.errors.append(("%d:%d" % (seed, index), "Pydantic: " + p.build_error))
                continue
            st.values_kept += len(p.values)
            st.pydantic_rejected += p.pydantic_rejected
            st.off_rejected += p.off_rejected
            st.off_kept += len(p.off_values)
            st.mismatches += len(p.mismatches)
            for v in p.mismatches[: max(0, FIRST_FEW - len(st.mismatch_cases))]:
                st.mismatch_cases.append(("%d:%d" % (seed, index), json.dumps(v, ensure_ascii=False)))
        built = [p for p in progs if not p.build_error]
        names = OrderedDict(("p%d" % p.index, p.schema) for p in built)
        if batch:
            flats = flatten_batch(flatjoin, names)
        else:
            flats = {n: flatten_one(flatjoin, s) for n, s in names.items()}
        for p in built:
            record = {"form": p.form, "kept": len(p.values)}
            judge(p, flats["p%d" % p.index], per_form[p.form], record)
            results.outcomes["%d:%d" % (p.seed, p.index)] = record
        if progress:
            progress("seed %d: %d programs" % (seed, programs))
    return results


# ---------------------------------------------------------------------------------------------
# The report.
# ---------------------------------------------------------------------------------------------


def pct(a: int, b: int) -> str:
    return "–" if b == 0 else "%.1f%%" % (100.0 * a / b)


def md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def flatjoin_version(flatjoin: str) -> str:
    try:
        run = subprocess.run([flatjoin, "--version"], capture_output=True, text=True, timeout=30)
        return run.stdout.strip() or run.stderr.strip()
    except Exception as e:
        return "unknown (%s)" % e


def render_report(results: Results, command: str) -> str:
    import pydantic_core

    pf = results.per_form
    L = []
    L.append("Made by `%s` with Pydantic %s (pydantic-core %s), jsonschema %s, Python %s." % (
        command, pydantic.VERSION, pydantic_core.__version__, importlib.metadata.version("jsonschema"), sys.version.split()[0]))
    L.append("")
    L.append("# The Pydantic program world")
    L.append("")
    L.append("flatjoin binary: `%s` (`%s`). Seeds %s, %d programs each (%d in all). "
             "The world: `harness/worlds/pydantic/world.py` (SPEC §2.9, §4); replay one program "
             "with `python3 harness/worlds/pydantic/world.py --replay SEED:INDEX`." % (
                 results.flatjoin, flatjoin_version(results.flatjoin),
                 ",".join(map(str, results.seeds)), results.programs, results.programs * len(results.seeds)))
    L.append("")
    L.append("Values are drawn down one path of branches (at each union one member; for each model only "
             "the keys it declares, sometimes a fresh `%s…` key no model declares) and "
             "kept when Pydantic accepts them in strict JSON mode and the original schema accepts them "
             "(`jsonschema.Draft202012Validator`). **Unsound** = a kept value the presentation rejects. "
             "A root is **one object** when the presentation has `\"type\": \"object\"` and no root "
             "`oneOf`/`anyOf`. A **union site** is every `oneOf`/`anyOf` with at least two members in a "
             "schema position of the original (nullable wrappers and unions of scalars included); "
             "**unnamed** = neither in the diagnostics' `flattened` nor in `skipped`." % EXTRA_PREFIX)
    L.append("")
    L.append("## Per form")
    L.append("")
    L.append("| form | programs | root unions | roots → one object | object-branch root unions → one object "
             "| nested union sites | sites flattened (root + nested) | skipped | unnamed | values kept "
             "| unsound | Pydantic/schema mismatches |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tot = FormStats()
    for form, s in pf.items():
        L.append("| `%s` | %d | %d | %d (%s) | %d / %d (%s) | %d | %d (%d + %d) | %d | %d | %d | %d | %d |" % (
            form, s.programs, s.root_unions, s.roots_one_object, pct(s.roots_one_object, s.root_unions),
            s.object_roots_one_object, s.object_root_unions, pct(s.object_roots_one_object, s.object_root_unions),
            s.nested_sites, s.flattened, s.flattened_root, s.flattened_nested, s.skipped, s.unnamed,
            s.values_kept, s.unsound, s.mismatches))
    T = {a: results.total(a) for a in ("programs", "root_unions", "roots_one_object", "object_root_unions",
                                        "object_roots_one_object", "nested_sites", "flattened", "flattened_root",
                                        "flattened_nested", "skipped", "unnamed", "values_kept", "unsound",
                                        "mismatches", "not_built", "flatjoin_errors", "invalid_presentations",
                                        "unknown_pointers", "pydantic_rejected", "sites", "off_rejected", "off_kept",
                                        "off_presentation_rejected")}
    L.append("| **all** | %d | %d | %d (%s) | %d / %d (%s) | %d | %d (%d + %d) | %d | %d | %d | %d | %d |" % (
        T["programs"], T["root_unions"], T["roots_one_object"], pct(T["roots_one_object"], T["root_unions"]),
        T["object_roots_one_object"], T["object_root_unions"], pct(T["object_roots_one_object"], T["object_root_unions"]),
        T["nested_sites"], T["flattened"], T["flattened_root"], T["flattened_nested"], T["skipped"], T["unnamed"],
        T["values_kept"], T["unsound"], T["mismatches"]))
    L.append("")
    L.append("Union sites in all: %d (%d roots, %d nested). Programs Pydantic refused to build: %d; "
             "programs flatjoin refused: %d; presentations that are no valid schema: %d; diagnostics "
             "pointers that name no union site of the original: %d; values drawn down one path of "
             "branches that Pydantic rejected (expected 0): %d." % (
                 T["sites"], T["sites"] - T["nested_sites"], T["nested_sites"], T["not_built"],
                 T["flatjoin_errors"], T["invalid_presentations"], T["unknown_pointers"], T["pydantic_rejected"]))
    L.append("")
    L.append("Values drawn off their path on purpose (a fresh key on an `extra='forbid'` model, a "
             "discriminated union's defaulted tag left out): %d rejected by Pydantic; %d accepted "
             "anyway, through another branch of a plain `Union` whose open model takes the keys as "
             "extras. Such a value may carry keys the accepting branch does not declare, which the "
             "`declared` reading (SPEC §2.8, §4) does not promise, so they are not judged: the "
             "presentation rejects %d of them%s" % (T["off_rejected"], T["off_kept"], T["off_presentation_rejected"],
                                                   ":" if T["off_presentation_rejected"] else "."))
    for form, s in pf.items():
        for ref, v in s.off_cases:
            L.append("- `%s` (`%s`): `%s`" % (ref, form, md(v)))
    L.append("")
    L.append("SPEC §2.9 / §4 promises judged here: 0 unsound; every object-branch root union one object; "
             "0 unnamed. Status of this run: unsound %d, object-branch roots left as unions %d, unnamed %d." % (
                 T["unsound"], T["object_root_unions"] - T["object_roots_one_object"], T["unnamed"]))
    L.append("")
    L.append("## Skipped union sites by reason")
    L.append("")
    L.append("The diagnostics' `code` where present, else the `reason` with branch indices folded to `N`.")
    L.append("")
    keys = sorted({k for s in pf.values() for k in s.skip_reasons}, key=lambda k: (k[0] != "root", k[1]))
    if keys:
        L.append("| where | reason | " + " | ".join("`%s`" % f for f in pf) + " |")
        L.append("| --- | --- | " + " | ".join("---:" for _ in pf) + " |")
        for k in keys:
            L.append("| %s | %s | %s |" % (k[0], md(k[1]), " | ".join(str(s.skip_reasons.get(k, 0)) for s in pf.values())))
    else:
        L.append("None.")
    L.append("")
    L.append("## Unnamed union sites by shape")
    L.append("")
    keys = sorted({k for s in pf.values() for k in s.unnamed_shapes}, key=lambda k: (k[0] != "root", k[1]))
    if keys:
        L.append("| where | shape | " + " | ".join("`%s`" % f for f in pf) + " |")
        L.append("| --- | --- | " + " | ".join("---:" for _ in pf) + " |")
        for k in keys:
            L.append("| %s | %s | %s |" % (k[0], k[1], " | ".join(str(s.unnamed_shapes.get(k, 0)) for s in pf.values())))
        L.append("")
        L.append("First unnamed sites per form (seed:index, pointer, shape):")
        L.append("")
        for form, s in pf.items():
            if s.unnamed_cases:
                L.append("- `%s`: %s" % (form, "; ".join("`%s` `%s` (%s)" % c for c in s.unnamed_cases)))
    else:
        L.append("None.")
    L.append("")
    L.append("## Unsound values")
    L.append("")
    if T["unsound"]:
        for form, s in pf.items():
            for ref, v, why in s.unsound_cases:
                L.append("- `%s` (`%s`): `%s` — %s" % (ref, form, md(v), md(why)))
    else:
        L.append("None: every kept value is accepted by its presentation.")
    L.append("")
    L.append("## Roots left as unions (first %d per form, with the diagnostics' skip reason)" % FIRST_FEW)
    L.append("")
    any_left = False
    for form, s in pf.items():
        if s.roots_left:
            any_left = True
            L.append("- `%s`:" % form)
            for ref, why in s.roots_left:
                L.append("  - `%s`: %s" % (ref, md(why)))
    if not any_left:
        L.append("None.")
    L.append("")
    L.append("## Pydantic/schema mismatches")
    L.append("")
    L.append("Values Pydantic accepts in strict JSON mode that its own schema rejects (not flatjoin failures).")
    L.append("")
    cases = [(f, c) for f, s in pf.items() for c in s.mismatch_cases]
    if cases:
        for form, (ref, v) in cases:
            L.append("- `%s` (`%s`): `%s`" % (ref, form, md(v)))
    else:
        L.append("None.")
    L.append("")
    errs = [(f, e) for f, s in pf.items() for e in s.errors]
    if errs:
        L.append("## Errors")
        L.append("")
        for form, (ref, e) in errs:
            L.append("- `%s` (`%s`): %s" % (ref, form, md(e)))
        L.append("")
    return "\n".join(L)


# ---------------------------------------------------------------------------------------------
# Replay.
# ---------------------------------------------------------------------------------------------


def replay(ref: str, flatjoin: str) -> int:
    seed, index = (int(x) for x in ref.split(":"))
    p = make_program(seed, index)
    print("# program %s, form %s" % (ref, p.form))
    print(p.source)
    if p.build_error:
        print("# Pydantic refused it: %s" % p.build_error)
        return 1
    print("\n# schema (TypeAdapter(Root).json_schema())")
    print(json.dumps(p.schema, indent=2, ensure_ascii=False))
    flat = flatten_one(flatjoin, p.schema)
    if "error" in flat:
        print("\n# flatjoin: %s" % flat["error"])
        return 1
    print("\n# presentation (%s flatten)" % flatjoin)
    print(json.dumps(flat["presentation"], indent=2, ensure_ascii=False))
    print("\n# diagnostics")
    print(json.dumps(flat["diagnostics"], indent=2, ensure_ascii=False))
    st = FormStats()
    record = {}
    judge(p, flat, st, record)
    print("\n# union sites of the original")
    fl = {e.get("pointer") for e in flat["diagnostics"].get("flattened", [])}
    sk = {e.get("pointer"): e for e in flat["diagnostics"].get("skipped", [])}
    for ptr, kw in union_sites(p.schema):
        state = "flattened" if ptr in fl else ("skipped: " + skip_key(sk[ptr])) if ptr in sk else "UNNAMED"
        print("  %-50s %-6s %-20s %s" % (ptr or "(root)", kw, site_shape(p.schema, ptr), state))
    print("\n# root one object: %s" % record.get("root_one_object"))
    check = jsonschema.Draft202012Validator(flat["presentation"])
    print("# kept values (%d), Pydantic/schema mismatches (%d), on-path values Pydantic rejected (%d), "
          "off-path values Pydantic rejected (%d)" % (len(p.values), len(p.mismatches), p.pydantic_rejected,
                                                      p.off_rejected))
    for v in p.values:
        print("  %s %s" % ("ok     " if check.is_valid(v) else "UNSOUND", json.dumps(v, ensure_ascii=False)))
    for v in p.off_values:
        print("  off-path, not promised: %s %s" % (
            "accepted" if check.is_valid(v) else "rejected", json.dumps(v, ensure_ascii=False)))
    for v in p.mismatches:
        print("  mismatch %s" % json.dumps(v, ensure_ascii=False))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1..4", help="e.g. 1..4 or 1,3,7 (default 1..4)")
    ap.add_argument("--programs", type=int, default=400, help="programs per seed (default 400)")
    ap.add_argument("--report", help="write the Markdown report here (default: print it)")
    ap.add_argument("--flatjoin", default=default_flatjoin(),
                    help="the flatjoin binary (default: $FLATJOIN_BIN, else target/release/flatjoin)")
    ap.add_argument("--batch", action="store_true",
                    help="one `flatjoin manifest` process per seed instead of one `flatjoin flatten` per program")
    ap.add_argument("--replay", metavar="SEED:INDEX", help="print one program's schema, presentation and diagnostics")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless 0 unsound, every object-branch root union one object and 0 unnamed")
    args = ap.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--replay … | head` ends quietly
    if args.replay:
        return replay(args.replay, args.flatjoin)
    if not os.path.exists(args.flatjoin):
        print("pydantic-world: no flatjoin binary at %s (set --flatjoin or FLATJOIN_BIN)" % args.flatjoin, file=sys.stderr)
        return 2
    seeds = parse_seeds(args.seeds)
    results = run_world(seeds, args.programs, args.flatjoin, batch=args.batch,
                        progress=lambda m: print("pydantic-world: " + m, file=sys.stderr))
    command = shlex.join(["python3"] + (argv if argv is not None else [sys.argv[0]] + sys.argv[1:]))
    text = render_report(results, command)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        print("pydantic-world: wrote %s" % args.report, file=sys.stderr)
    else:
        print(text)
    unsound = results.total("unsound")
    left = results.total("object_root_unions") - results.total("object_roots_one_object")
    unnamed = results.total("unnamed")
    print("pydantic-world: %d programs, %d values kept, %d unsound, %d object-branch root unions left as unions, "
          "%d unnamed union sites" % (results.total("programs"), results.total("values_kept"), unsound, left, unnamed),
          file=sys.stderr)
    if args.check and (unsound or left or unnamed):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
