"""Judges flatjoin's exports with the providers' own SDK code (pinned in requirements.txt).

Reads JSON lines on standard input, one export per line:

    {"id": "...", "check": "gemini" | "openai-strict" | "mcp", "payload": {...}}

- "gemini": `payload` is one function declaration; `google.genai.types.FunctionDeclaration`
  must accept it (`model_validate`) and give it back unchanged
  (`model_dump(by_alias=True, exclude_none=True, mode="json")`, compared as JSON values).
- "openai-strict": `payload` is a strict function's `parameters`; the OpenAI Agents SDK's
  `ensure_strict_json_schema` (every strict function tool goes through it) must not raise and must
  leave it unchanged.
- "mcp": `payload` is one `tools/list` entry; `mcp.types.Tool.model_validate` must accept it.

Writes one JSON line per input line, in order:

    {"id": "...", "accepted": bool, "fixpoint": bool | null, "error": str | null}

`accepted` is false when the SDK raised; `fixpoint` is null when there is nothing to compare. One
process judges a whole batch. Exits 0 after judging every line (verdicts are data); 2 on bad input.
"""

import copy
import json
import sys

from agents.strict_schema import ensure_strict_json_schema
from google.genai import types as genai_types
from mcp import types as mcp_types


def numbers(a, b):
    """JSON has one number type: 1 and 1.0 are the same value (the SDKs' float fields print 1.0)."""
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))


def first_difference(a, b, pointer=""):
    """The JSON pointer of the first place where a and b differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a.keys()) + [k for k in b.keys() if k not in a]:
            if key not in a or key not in b:
                return f"{pointer}/{key}: {json.dumps(a.get(key))} became {json.dumps(b.get(key))}"
            found = first_difference(a[key], b[key], f"{pointer}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{pointer}/{i}")
            if found:
                return found
        return None
    if a == b and (type(a) is type(b) or numbers(a, b)):
        return None
    return f"{pointer or '/'}: {json.dumps(a)} became {json.dumps(b)}"


def judge(check, payload):
    if check == "gemini":
        model = genai_types.FunctionDeclaration.model_validate(payload)
        back = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        return first_difference(payload, back)
    if check == "openai-strict":
        back = ensure_strict_json_schema(copy.deepcopy(payload))
        return first_difference(payload, back)
    if check == "mcp":
        mcp_types.Tool.model_validate(payload)
        return None
    raise ValueError(f"unknown check {check!r}")


def main():
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            ident, check, payload = item["id"], item["check"], item["payload"]
        except (ValueError, KeyError) as e:
            print(f"check.py: line {number}: {e}", file=sys.stderr)
            sys.exit(2)
        verdict = {"id": ident, "accepted": True, "fixpoint": None, "error": None}
        try:
            difference = judge(check, payload)
            if check != "mcp":
                verdict["fixpoint"] = difference is None
                if difference is not None:
                    verdict["error"] = f"not a fixpoint: {difference}"
        except ValueError as e:
            if str(e).startswith("unknown check"):
                print(f"check.py: line {number}: {e}", file=sys.stderr)
                sys.exit(2)
            verdict.update(accepted=False, error=f"{type(e).__name__}: {e}")
        except Exception as e:  # noqa: BLE001 - every SDK refusal is a verdict
            verdict.update(accepted=False, error=f"{type(e).__name__}: {e}")
        print(json.dumps(verdict), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
