"""The package's API: results, options, and errors (FlatjoinError with kind and pointer; no input
crashes the interpreter)."""

import json
import re
import subprocess
import sys

import pytest

import flatjoin
from flatjoin import FlatjoinError

SHAPE = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}},
            "required": ["kind", "radius"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
            "required": ["kind", "side"],
            "additionalProperties": False,
        },
    ]
}


def test_flatten_joins_a_discriminated_union_into_one_object():
    before = json.dumps(SHAPE)
    out = flatjoin.flatten(SHAPE)
    schema = out["schema"]
    assert schema["type"] == "object"
    assert schema["properties"]["kind"]["enum"] == ["circle", "square"]
    assert schema["required"] == ["kind"]
    assert list(schema["properties"]) == ["kind", "radius", "side"]
    assert out["diagnostics"]["flattened"] == [{"pointer": "", "discriminator": "kind", "branches": 2}]
    assert json.dumps(SHAPE) == before, "the input is not modified"


def test_options_are_read_and_checked():
    nested = {"type": "object", "properties": {"shape": SHAPE}, "required": ["shape"]}
    assert flatjoin.flatten(nested)["schema"]["properties"]["shape"]["type"] == "object"
    assert "oneOf" in flatjoin.flatten(nested, scope="root")["schema"]["properties"]["shape"]
    open_union = {
        "anyOf": [
            {"type": "object", "properties": {"k": {"const": "a"}, "x": {"type": "number"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]},
        ]
    }
    assert flatjoin.flatten(open_union)["schema"]["properties"]["x"]["type"] == "number"
    permissive = flatjoin.flatten(open_union, open_branches="permissive")
    assert "type" not in permissive["schema"]["properties"]["x"]
    for bad in [{"scope": "everywhere"}, {"open_branches": "lax"}, {"scope": 3}]:
        with pytest.raises(FlatjoinError) as caught:
            flatjoin.flatten(SHAPE, **bad)
        assert caught.value.kind == "invalid_option"


@pytest.mark.parametrize(
    "schema,kind,pointer",
    [
        ({"oneOf": [{"$ref": "#/$defs/missing"}]}, "unresolvable_ref", "/oneOf/0/$ref"),
        ({"type": "object", "required": "name"}, "wrong_type", "/required"),
        ({"properties": {"a": 3}}, "not_a_schema", "/properties/a"),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}, "unsupported_draft", "/$schema"),
    ],
)
def test_errors_carry_kind_and_pointer(schema, kind, pointer):
    with pytest.raises(FlatjoinError) as caught:
        flatjoin.flatten(schema)
    assert isinstance(caught.value, ValueError)
    assert (caught.value.kind, caught.value.pointer) == (kind, pointer)


def test_bad_input_never_crashes_the_interpreter():
    deep = {}
    for _ in range(200):
        deep = {"properties": {"a": deep}}
    with pytest.raises(FlatjoinError) as caught:
        flatjoin.flatten(deep)
    assert caught.value.kind == "too_deep" and caught.value.pointer.startswith("/properties/a")
    deeper = {}
    for _ in range(100_000):
        deeper = {"x": deeper}
    with pytest.raises(FlatjoinError) as caught:
        flatjoin.flatten(deeper)
    assert caught.value.kind == "too_deep"
    cycle = {}
    cycle["self"] = cycle
    for bad, kind in [(cycle, "not_json"), ({1, 2}, "not_json"), ({"x": float("nan")}, "not_json")]:
        with pytest.raises(FlatjoinError) as caught:
            flatjoin.flatten(bad)
        assert caught.value.kind == kind
    with pytest.raises(FlatjoinError) as caught:
        flatjoin.flatten_manifest({"tools": 3})
    assert caught.value.kind == "not_a_manifest"
    code = (
        "import flatjoin\n"
        "for bad in [None, 1, 'x', [], {'oneOf': 5}, {'$ref': '#/nope'}, {'allOf': [{'$ref': '#'}]}]:\n"
        "    for call in (lambda: flatjoin.flatten(bad), lambda: flatjoin.lint(bad, 'openai'),\n"
        "                 lambda: flatjoin.export_tools(bad, 'anthropic'), lambda: flatjoin.validate(bad, {})):\n"
        "        try:\n"
        "            call()\n"
        "        except flatjoin.FlatjoinError:\n"
        "            pass\n"
        "print('survived')\n"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert child.returncode == 0, child.stderr
    assert "survived" in child.stdout


def test_validate_uses_the_original_and_names_the_selected_branch():
    ok = flatjoin.validate(SHAPE, {"kind": "circle", "radius": 1})
    assert ok == {"valid": True, "branch": None, "errors": [], "message": ""}
    verdict = flatjoin.validate(SHAPE, {"kind": "square", "radius": 1})
    assert not verdict["valid"]
    assert verdict["branch"] == 'kind "square"'
    assert verdict["message"].startswith('kind "square": ')
    email = {"type": "string", "format": "email"}
    assert flatjoin.validate(email, "nope")["valid"]
    assert not flatjoin.validate(email, "nope", assert_formats=True)["valid"]


# A union of two models used in two fields, as Pydantic writes it: the join writes its flat object
# once, as ``flatjoin_union_N`` (SPEC §6 decision 73).
MODELS = {
    "type": "object",
    "properties": {
        "a": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]},
        "b": {"type": "array", "items": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]}},
    },
    "required": ["a"],
    "$defs": {
        "Circle": {"type": "object", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}}, "required": ["kind", "radius"]},
        "Square": {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]},
    },
}


def test_a_profile_without_references_lists_the_shared_unions_it_inlines():
    presentation = flatjoin.flatten(MODELS)["schema"]
    text = json.dumps(presentation, separators=(",", ":"))
    shared = [n for n in presentation.get("$defs", {}) if re.fullmatch(r"flatjoin_union_[1-9][0-9]*", n)]
    assert shared, text
    gemini = flatjoin.export_tools(MODELS, "gemini")
    for name in shared:
        sites = text.count(f'"$ref":"#/$defs/{name}"')
        listed = next(i for i in gemini["inlined"] if i["definition"] == f"/$defs/{name}")
        assert (listed["tool"], listed["rule"], listed["sites"]) == ("tool", "shared-union", sites)
        assert listed["copies"] >= sites and listed["bytes"] > 0 and listed["detail"]
    manifest = {"tools": [{"name": "draw", "inputSchema": MODELS}]}
    cursor = flatjoin.flatten_manifest(manifest, profile="cursor")
    assert any(i["tool"] == "draw" and i["rule"] == "shared-union" for i in cursor["inlined"])
    assert flatjoin.export_tools(MODELS, "openai")["inlined"] == []
    assert flatjoin.flatten_manifest(manifest)["inlined"] == []


def test_flatten_manifest_lint_and_export():
    manifest = {"tools": [{"name": "draw", "description": "Draws.", "inputSchema": SHAPE}, {"name": "noop"}], "nextCursor": "c"}
    out = flatjoin.flatten_manifest(manifest)
    assert out["manifest"]["nextCursor"] == "c"
    assert out["manifest"]["tools"][0]["inputSchema"]["type"] == "object"
    assert out["manifest"]["tools"][1] == {"name": "noop"}
    assert out["diagnostics"]["flattened"] == [{"tool": "draw", "pointer": "", "discriminator": "kind", "branches": 2}]
    strict = flatjoin.flatten_manifest(manifest, profile="openai-strict")
    assert "radius" in strict["manifest"]["tools"][0]["inputSchema"]["required"]
    assert strict["narrowings"]
    assert flatjoin.lint(SHAPE, "cursor")["rejected_tools"] == ["tool"]
    assert flatjoin.lint(flatjoin.flatten(SHAPE)["schema"], "cursor")["rejected_tools"] == []
    openai = flatjoin.export_tools(SHAPE, "openai")
    assert openai["declarations"][0]["function"]["parameters"]["type"] == "object"
    for call in (lambda: flatjoin.export_tools(SHAPE, "gemini", strict=True), lambda: flatjoin.export_tools(SHAPE, "bard"), lambda: flatjoin.lint(SHAPE, "bard")):
        with pytest.raises(FlatjoinError) as caught:
            call()
        assert caught.value.kind == "invalid_option"
