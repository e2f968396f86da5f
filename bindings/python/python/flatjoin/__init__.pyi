# Type stubs of the flatjoin Python package (flatjoin/__init__.py).
from typing import Any, Literal, Optional, TypedDict, Union

Json = Union[None, bool, int, float, str, list[Any], dict[str, Any]]
Scope = Literal["all", "root"]
OpenBranches = Literal["declared", "permissive"]
Profile = Literal["openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "mcp", "cursor"]
Provider = Literal["openai", "anthropic", "gemini"]

class FlattenedSite(TypedDict):
    pointer: str
    discriminator: str
    branches: int

class SkippedSite(TypedDict):
    pointer: str
    reason: str

class Diagnostics(TypedDict):
    flattened: list[FlattenedSite]
    skipped: list[SkippedSite]

class Flattened(TypedDict):
    schema: Union[dict[str, Any], bool]
    diagnostics: Diagnostics

class Narrowing(TypedDict):
    tool: str
    pointer: str
    rule: str
    detail: str

class FlattenedManifest(TypedDict):
    manifest: dict[str, Any]
    diagnostics: dict[str, list[dict[str, Any]]]
    narrowings: list[Narrowing]

class ValidationError(TypedDict):
    instancePath: str
    message: str

class Validation(TypedDict):
    valid: bool
    branch: Optional[str]
    errors: list[ValidationError]
    message: str

class Finding(TypedDict):
    tool: str
    pointer: str
    rule: str
    severity: Literal["error", "warning"]
    message: str
    fix: str

class LintReport(TypedDict):
    profile: Profile
    tools: int
    rejected_tools: list[str]
    findings: list[Finding]

class Exported(TypedDict):
    declarations: Json
    narrowings: list[Narrowing]
    residual: list[Finding]

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
def lint(schema_or_manifest: dict[str, Any], profile: Profile) -> LintReport: ...
def export_tools(
    schema_or_manifest: dict[str, Any],
    provider: Provider,
    *,
    strict: bool = False,
    gemini_field: Optional[Literal["parameters", "parametersJsonSchema"]] = None,
) -> Exported: ...
