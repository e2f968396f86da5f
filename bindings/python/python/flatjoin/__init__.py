"""flatjoin: the flat presentation join of discriminated-union tool schemas, in-process.

Every function prints its arguments with ``json.dumps``, calls the native module
(``flatjoin._native``, PyO3; the same Rust functions the ``flatjoin`` command-line tool calls, with
the GIL released) and parses its answer with ``json.loads``. Errors are :class:`FlatjoinError`
(a ``ValueError`` with ``kind`` and ``pointer``); no input crashes the interpreter.
:class:`Validator` compiles an original schema once for many :func:`validate` calls.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Literal, Optional, Union

from . import _native

# The option and JSON types of the annotations (`__init__.pyi`), usable at runtime too. Each
# option is a Union of one-value Literals, the form type checkers give `Literal["all", "root"]`,
# so stubtest compares like with like.
Json = Union[None, bool, int, float, str, List[Any], Dict[str, Any]]
Scope = Union[Literal["all"], Literal["root"]]
OpenBranches = Union[Literal["declared"], Literal["permissive"]]
Profile = Union[
    Literal["openai"],
    Literal["openai-strict"],
    Literal["anthropic"],
    Literal["anthropic-strict"],
    Literal["gemini"],
    Literal["mcp"],
    Literal["cursor"],
]
Provider = Union[Literal["openai"], Literal["anthropic"], Literal["gemini"]]

__version__: str = _native.__version__
"""The version of flatjoin (the Rust crates', which the wheel's metadata carries too)."""

__all__ = [
    "__version__",
    "FlatjoinError",
    "Validator",
    "flatten",
    "flatten_manifest",
    "validate",
    "lint",
    "export_tools",
]


class FlatjoinError(ValueError):
    """A flatjoin error: ``kind`` is a stable name (``too_deep``, ``unresolvable_ref``, ...),
    ``pointer`` a JSON pointer into the argument it is about."""

    def __init__(self, kind: str, pointer: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.pointer = pointer


def _text(value: Any, what: str) -> str:
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except RecursionError:
        raise FlatjoinError("too_deep", "", f"{what}: nested too deeply to print as JSON") from None
    except (TypeError, ValueError) as e:
        raise FlatjoinError("not_json", "", f"{what}: cannot be printed as JSON: {e}") from None


def _option(name: str, value: Any, kind: type) -> Any:
    if value is not None and not isinstance(value, kind):
        raise FlatjoinError(
            "invalid_option", "", f"option {name} must be a {kind.__name__}, not {type(value).__name__}"
        )
    return value


def _unwrap(envelope: str) -> Any:
    answer = json.loads(envelope)
    error = answer.get("error")
    if error is not None:
        raise FlatjoinError(error["kind"], error["pointer"], error["message"])
    return answer["ok"]


def flatten(schema: Any, *, scope: Optional[str] = None, open_branches: Optional[str] = None) -> dict:
    """The flat presentation of ``schema`` (what ``flatjoin flatten`` prints):
    ``{"schema": ..., "diagnostics": {"flattened": [...], "skipped": [...]}}``.

    ``scope``: ``"all"`` (default) or ``"root"``; ``open_branches``: ``"declared"`` (default, the
    reading of Pydantic, Zod and serde runtimes) or ``"permissive"`` (JSON Schema's literal one).
    """
    return _unwrap(
        _native.flatten(
            _text(schema, "schema"),
            _option("scope", scope, str),
            _option("open_branches", open_branches, str),
        )
    )


def flatten_manifest(
    tools_list_result: Any,
    *,
    scope: Optional[str] = None,
    open_branches: Optional[str] = None,
    profile: Optional[str] = None,
) -> dict:
    """Flattens every ``inputSchema`` of an MCP ``tools/list`` result (``flatjoin manifest``):
    ``{"manifest": ..., "diagnostics": ..., "narrowings": [...], "inlined": [...]}``; with
    ``profile``, each is also lowered to that provider's dialect (``inlined``: the definitions a
    profile that takes no ``$ref`` copied in place of their references)."""
    return _unwrap(
        _native.flatten_manifest(
            _text(tools_list_result, "manifest"),
            _option("scope", scope, str),
            _option("open_branches", open_branches, str),
            _option("profile", profile, str),
        )
    )


def validate(original_schema: Any, value: Any, *, assert_formats: bool = False) -> dict:
    """Validates ``value`` with the original schema (not the presentation): ``{"valid", "branch",
    "errors": [{"instancePath", "message"}], "message"}``; ``branch`` names the branch the
    discriminator selected (``kind "polygon"``)."""
    return _unwrap(
        _native.validate(
            _text(original_schema, "schema"),
            _text(value, "value"),
            bool(_option("assert_formats", assert_formats, bool)),
        )
    )


class Validator:
    """The original schema compiled once: ``Validator(original_schema).validate(value)`` returns
    what ``validate(original_schema, value)`` does, without compiling the schema again. A schema
    that does not compile raises :class:`FlatjoinError` here, as ``validate`` would. Thread-safe:
    ``validate`` releases the GIL, and threads may share one validator."""

    __slots__ = ("_compiled",)

    def __init__(self, original_schema: Any, *, assert_formats: bool = False) -> None:
        compiled = _native.compile_validator(
            _text(original_schema, "schema"),
            bool(_option("assert_formats", assert_formats, bool)),
        )
        if isinstance(compiled, str):
            _unwrap(compiled)
            raise FlatjoinError("internal", "", "the schema neither compiled nor failed")
        self._compiled = compiled

    def validate(self, value: Any) -> dict:
        """Validates ``value`` with the compiled original schema: ``{"valid", "branch",
        "errors": [{"instancePath", "message"}], "message"}``, as :func:`validate`."""
        return _unwrap(self._compiled.validate(_text(value, "value")))


def lint(schema_or_manifest: Any, profile: str) -> dict:
    """What ``profile``'s provider would reject (``flatjoin lint --format json``):
    ``{"profile", "tools", "rejected_tools", "findings"}``."""
    if not isinstance(profile, str):
        raise FlatjoinError("invalid_option", "", "profile must be a str")
    return _unwrap(_native.lint(_text(schema_or_manifest, "schema"), profile))


def export_tools(
    schema_or_manifest: Any,
    provider: str,
    *,
    strict: bool = False,
    gemini_field: Optional[str] = None,
) -> dict:
    """A provider's tool declarations, flattened and lowered (``flatjoin export``):
    ``{"declarations", "narrowings", "inlined", "residual"}``."""
    if not isinstance(provider, str):
        raise FlatjoinError("invalid_option", "", "provider must be a str")
    return _unwrap(
        _native.export_tools(
            _text(schema_or_manifest, "schema"),
            provider,
            bool(_option("strict", strict, bool)),
            _option("gemini_field", gemini_field, str),
        )
    )
