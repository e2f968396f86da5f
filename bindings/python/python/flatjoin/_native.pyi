# Type stubs of the native module (bindings/python/src/lib.rs): JSON text in, an envelope
# `{"ok": RESULT}` or `{"error": {"kind", "pointer", "message"}}` out. Use the functions of
# `flatjoin` instead.
from typing import Optional, Union, final

__all__ = [
    "__version__",
    "Validator",
    "compile_validator",
    "flatten",
    "flatten_manifest",
    "validate",
    "lint",
    "export_tools",
]

__version__: str

@final
class Validator:
    def validate(self, value: str) -> str: ...

def compile_validator(original: str, assert_formats: bool = False) -> Union[Validator, str]: ...

def flatten(schema: str, scope: Optional[str] = None, open_branches: Optional[str] = None) -> str: ...
def flatten_manifest(
    manifest: str,
    scope: Optional[str] = None,
    open_branches: Optional[str] = None,
    profile: Optional[str] = None,
) -> str: ...
def validate(original: str, value: str, assert_formats: bool = False) -> str: ...
def lint(input: str, profile: str) -> str: ...
def export_tools(
    input: str, provider: str, strict: bool = False, gemini_field: Optional[str] = None
) -> str: ...
