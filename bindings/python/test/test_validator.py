"""A compiled validator (``flatjoin.Validator``) answers as ``flatjoin.validate`` does, value by
value, raises ``FlatjoinError`` with kind and pointer for a schema that does not compile, and can
be shared by threads."""

import threading

import pytest

import flatjoin
from flatjoin import FlatjoinError

SHAPE = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "radius": {"type": "number", "exclusiveMinimum": 0}},
            "required": ["kind", "radius"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "kind": {"const": "polygon"},
                "points": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            },
            "required": ["kind", "points"],
            "additionalProperties": False,
        },
    ]
}

VALUES = [
    {"kind": "circle", "radius": 1},
    {"kind": "circle", "radius": 0},
    {"kind": "polygon", "points": [[0, 0], [1, 1]]},
    {"kind": "polygon", "points": [[0, "x"]]},
    {"kind": "polygon", "radius": 1},
    {"kind": "hexagon"},
    {},
    [],
    None,
    "circle",
]


def test_answers_as_validate_does_on_every_value():
    validator = flatjoin.Validator(SHAPE)
    verdicts = [validator.validate(value) for value in VALUES]
    assert verdicts == [flatjoin.validate(SHAPE, value) for value in VALUES]
    assert [v["valid"] for v in verdicts] == [True, False, True, False, False, False, False, False, False, False]
    assert verdicts[4]["branch"] == 'kind "polygon"'
    assert verdicts[3]["errors"][0]["instancePath"] == "/points/0/1"
    # Validating again gives the same answers: the compiled schema is not consumed.
    assert [validator.validate(value) for value in reversed(VALUES)] == verdicts[::-1]


def test_formats_are_asserted_only_when_asked():
    email = {"type": "string", "format": "email"}
    assert flatjoin.Validator(email).validate("nope")["valid"]
    asserting = flatjoin.Validator(email, assert_formats=True)
    assert asserting.validate("nope") == flatjoin.validate(email, "nope", assert_formats=True)
    assert not asserting.validate("nope")["valid"]
    assert asserting.validate("a@example.com")["valid"]


@pytest.mark.parametrize(
    "schema,kind,pointer",
    [
        ({"oneOf": [{"$ref": "#/$defs/missing"}]}, "unresolvable_ref", "/oneOf/0/$ref"),
        ({"type": "object", "required": "name"}, "wrong_type", "/required"),
        ({"type": "object", "minProperties": -1}, "invalid_schema", "/minProperties"),
        ({"x": float("nan")}, "not_json", ""),
    ],
)
def test_a_schema_that_does_not_compile_raises_as_validate_does(schema, kind, pointer):
    with pytest.raises(FlatjoinError) as compiled:
        flatjoin.Validator(schema)
    assert (compiled.value.kind, compiled.value.pointer) == (kind, pointer)
    with pytest.raises(FlatjoinError) as once:
        flatjoin.validate(schema, {})
    assert (once.value.kind, once.value.pointer, str(once.value)) == (kind, pointer, str(compiled.value))


def test_bad_values_and_options_raise():
    validator = flatjoin.Validator(SHAPE)
    deep: list = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(FlatjoinError) as caught:
        validator.validate(deep)
    assert caught.value.kind == "too_deep" and caught.value.pointer.startswith("/0/0")
    with pytest.raises(FlatjoinError) as caught:
        validator.validate({1, 2})
    assert caught.value.kind == "not_json"
    with pytest.raises(FlatjoinError) as caught:
        flatjoin.Validator(SHAPE, assert_formats="yes")  # type: ignore[arg-type]
    assert caught.value.kind == "invalid_option"
    with pytest.raises(TypeError):
        flatjoin.Validator(SHAPE, True)  # type: ignore[misc]


def test_threads_share_one_validator():
    validator = flatjoin.Validator(SHAPE)
    expected = [flatjoin.validate(SHAPE, value) for value in VALUES]
    results: list = []

    def work() -> None:
        results.append([validator.validate(value) for value in VALUES for _ in range(20)][::20])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


def test_the_native_class_is_made_only_by_compile_validator():
    from flatjoin import _native

    with pytest.raises(TypeError):
        _native.Validator()  # type: ignore[call-arg]
    assert isinstance(_native.compile_validator('{"type": "string"}'), _native.Validator)
    assert '"kind":"unresolvable_ref"' in _native.compile_validator('{"$ref": "#/nope"}')
