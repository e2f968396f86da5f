# Type stubs of the flatjoin Python package (flatjoin/__init__.py), checked against it by
# `python -m mypy.stubtest flatjoin` (tests/python.rs). The result types (TypedDicts) exist only
# for type checkers (`@type_check_only`: import them under `if TYPE_CHECKING:`); the aliases of
# the options exist at runtime too.
from typing import Any, Literal, NotRequired, Optional, TypedDict, Union, type_check_only

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

Json = Union[None, bool, int, float, str, list[Any], dict[str, Any]]
Scope = Literal["all", "root"]
OpenBranches = Literal["declared", "permissive"]
Profile = Literal["openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "mcp", "cursor"]
Provider = Literal["openai", "anthropic", "gemini"]

@type_check_only
class FlattenedSite(TypedDict):
    pointer: str
    # None for a root union of objects joined without one (SPEC §2.9).
    discriminator: Optional[str]
    branches: int
    # The $ref of the root definition holding the join of a union written at several sites
    # (SPEC §6 decision 73).
    shared: NotRequired[str]

@type_check_only
class SkippedSite(TypedDict):
    pointer: str
    # The reason's stable code (SPEC §6 decision 70).
    code: str
    reason: str

@type_check_only
class Diagnostics(TypedDict):
    flattened: list[FlattenedSite]
    skipped: list[SkippedSite]

@type_check_only
class Flattened(TypedDict):
    schema: Union[dict[str, Any], bool]
    diagnostics: Diagnostics

@type_check_only
class Narrowing(TypedDict):
    tool: str
    pointer: str
    rule: str
    detail: str

@type_check_only
class Inlined(TypedDict):
    tool: str
    definition: str
    rule: Literal["shared-union", "shared-definition"]
    sites: int
    copies: int
    bytes: int
    detail: str

@type_check_only
class FlattenedManifest(TypedDict):
    manifest: dict[str, Any]
    diagnostics: dict[str, list[dict[str, Any]]]
    narrowings: list[Narrowing]
    inlined: list[Inlined]

@type_check_only
class ValidationError(TypedDict):
    instancePath: str
    message: str

@type_check_only
class Validation(TypedDict):
    valid: bool
    branch: Optional[str]
    errors: list[ValidationError]
    message: str

@type_check_only
class Finding(TypedDict):
    tool: str
    pointer: str
    rule: str
    severity: Literal["error", "warning"]
    message: str
    fix: str

@type_check_only
class LintReport(TypedDict):
    profile: Profile
    tools: int
    rejected_tools: list[str]
    findings: list[Finding]

@type_check_only
class Exported(TypedDict):
    declarations: Json
    narrowings: list[Narrowing]
    inlined: list[Inlined]
    residual: list[Finding]

__version__: str

class FlatjoinError(ValueError):
    kind: str
    pointer: str
    def __init__(self, kind: str, pointer: str, message: str) -> None: ...

def flatten(
    schema: Union[dict[str, Any], bool],
    *,
    scope: Optional[Scope] = None,
    open_branches: Optional[OpenBranches] = None,
) -> Flattened: ...
def flatten_manifest(
    tools_list_result: dict[str, Any],
    *,
    scope: Optional[Scope] = None,
    open_branches: Optional[OpenBranches] = None,
    profile: Optional[Profile] = None,
) -> FlattenedManifest: ...
def validate(
    original_schema: Union[dict[str, Any], bool], value: Json, *, assert_formats: bool = False
) -> Validation: ...

class Validator:
    def __init__(self, original_schema: Union[dict[str, Any], bool], *, assert_formats: bool = False) -> None: ...
    def validate(self, value: Json) -> Validation: ...

def lint(schema_or_manifest: dict[str, Any], profile: Profile) -> LintReport: ...
def export_tools(
    schema_or_manifest: dict[str, Any],
    provider: Provider,
    *,
    strict: bool = False,
    gemini_field: Optional[Literal["parameters", "parametersJsonSchema"]] = None,
) -> Exported: ...
