# Type stubs of the native module (bindings/python/src/lib.rs): JSON text in, an envelope
# `{"ok": RESULT}` or `{"error": {"kind", "pointer", "message"}}` out. Use the functions of
# `flatjoin` instead.
from typing import Optional

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
