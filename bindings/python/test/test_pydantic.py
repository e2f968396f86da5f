"""Pydantic v2: `TypeAdapter(Annotated[Union[...], Field(discriminator="kind")]).json_schema()`
flattened; every value Pydantic accepts is accepted by the flat schema (judged by `jsonschema`, an
independent validator) and by `flatjoin.validate` with the original."""

from typing import List, Optional

import jsonschema
from pydantic import BaseModel

import flatjoin
from shapes import SHAPE, VALUES, Shape


class Drawing(BaseModel):
    canvas: str
    shapes: List[Shape]
    primary: Optional[Shape] = None


def test_a_tagged_union_at_the_root_becomes_one_flat_object():
    original = SHAPE.json_schema()
    assert "oneOf" in original and "discriminator" in original
    out = flatjoin.flatten(original)
    flat = out["schema"]
    assert flat["type"] == "object"
    assert "oneOf" not in flat and "anyOf" not in flat
    assert sorted(flat["properties"]["kind"]["enum"]) == ["circle", "label", "polygon"]
    assert out["diagnostics"]["flattened"][0]["discriminator"] == "kind"
    check = jsonschema.Draft202012Validator(flat)
    for value in VALUES:
        SHAPE.validate_python(value)
        assert not list(check.iter_errors(value)), value
        assert flatjoin.validate(original, value)["valid"], value
    mix = {"kind": "circle", "text": "hi"}
    verdict = flatjoin.validate(original, mix)
    assert not verdict["valid"]
    assert verdict["branch"] == 'kind "circle"'


def test_unions_in_properties_arrays_and_optionals_are_flattened():
    original = Drawing.model_json_schema()
    out = flatjoin.flatten(original)
    assert len(out["diagnostics"]["flattened"]) >= 1, out["diagnostics"]
    flat = out["schema"]
    check = jsonschema.Draft202012Validator(flat)
    for a in VALUES:
        for b in [None, *VALUES]:
            value = {"canvas": "c", "shapes": [a, *VALUES], "primary": b}
            Drawing.model_validate(value)
            assert not list(check.iter_errors(value)), value
            assert flatjoin.validate(original, value)["valid"]
    assert '"oneOf"' not in __import__("json").dumps(flat)
