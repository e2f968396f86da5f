#!/usr/bin/env python3
"""flatjoin implementation protocol, version 1 (docs/protocol.md): adapts one Python function to
the harness, so `flatjoin check --implementation 'python3 protocol/adapters/python/run.py MODULE:FUNCTION'`
judges it.

    python3 protocol/adapters/python/run.py my_package.module:function

MODULE is imported with the working directory first on `sys.path` (or, when it ends in `.py`,
loaded from that file); FUNCTION is called as
`function(schema, options)` with `options = {"open_branches", "scope"}` and may be a coroutine
function. A raised exception is answered `errored` (the input was refused: counted, not a
violation); returning `None` is answered `skipped`.

What the implementation says about itself comes from a module attribute `IMPLEMENTATION` (or the
function's own `implementation` attribute): {name, language, version, homepage, source, readings,
scopes}; missing members default to the module and function, "python", the declared reading and
both scopes. With `"returns": "flattened"` there, the function returns `{"schema", "diagnostics"}`
(what flatjoin's own `flatten` returns) and both are sent (SPEC §6 decision 75); `returns` itself
stays with the adapter. Standard library only.
"""

import asyncio
import importlib
import importlib.util
import inspect
import json
import os
import sys

VERSION = 1


def fail(message):
    sys.stderr.write(f"flatjoin python adapter: {message}\n")
    sys.exit(2)


def load(spec):
    module_name, _, function_name = spec.rpartition(":")
    if not module_name or not function_name:
        fail("usage: python3 run.py MODULE:FUNCTION")
    sys.path.insert(0, os.getcwd())
    try:
        if module_name.endswith(".py"):
            # A file path: loaded as a module of its own name.
            location = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(module_name))[0], module_name
            )
            module = importlib.util.module_from_spec(location)
            location.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any import failure ends the adapter with its reason
        fail(f"cannot import {module_name}: {e!r}")
    function = getattr(module, function_name, None)
    if not callable(function):
        fail(f"{module_name} has no function {function_name!r}")
    declared = getattr(module, "IMPLEMENTATION", None) or getattr(function, "implementation", None) or {}
    implementation = {
        "name": spec,
        "language": "python",
        "version": "",
        "homepage": "",
        "source": getattr(module, "__file__", "") or "",
        "readings": ["declared"],
        "scopes": ["all", "root"],
    }
    implementation.update(declared)
    if implementation.get("returns", "presentation") not in ("presentation", "flattened"):
        fail(f"implementation.returns must be \"presentation\" or \"flattened\", not {implementation['returns']!r}")
    return function, implementation


async def awaited(awaitable):
    return await awaitable


def main():
    if len(sys.argv) != 2:
        fail("usage: python3 run.py MODULE:FUNCTION")
    # stdout carries protocol lines only: whatever the flattener prints goes to stderr.
    out = sys.stdout
    sys.stdout = sys.stderr
    function, implementation = load(sys.argv[1])
    flattened = implementation.pop("returns", "presentation") == "flattened"

    def write(message):
        out.write(json.dumps(message) + "\n")
        out.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        cmd = request.get("cmd")
        if cmd == "start":
            if request.get("version") != VERSION:
                fail(f"the harness speaks version {request.get('version')}, this adapter {VERSION}")
            write({"ready": True, "version": VERSION, "implementation": implementation})
        elif cmd == "run":
            seq = request["seq"]
            try:
                result = function(request["schema"], request["options"])
                if inspect.isawaitable(result):
                    result = asyncio.run(awaited(result))
            except Exception as e:  # noqa: BLE001 - the function refused the input
                write({"seq": seq, "errored": {"message": f"{type(e).__name__}: {e}"}})
                continue
            if result is None:
                write({"seq": seq, "skipped": {"reason": "the function returned None"}})
            elif flattened:
                write({"seq": seq, "presentation": result["schema"], "diagnostics": result["diagnostics"]})
            else:
                write({"seq": seq, "presentation": result})
        elif cmd == "stop":
            return
        else:
            fail(f"unknown request {line.strip()}")


if __name__ == "__main__":
    main()
