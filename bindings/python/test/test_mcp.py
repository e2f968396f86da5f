"""The MCP Python SDK (the version cli/sdk/requirements.txt pins): a low-level server
(mcp_shape_server.py) lists a Pydantic tagged-union tool with its flat presentation and validates
calls with the original; the SDK's own client drives it over stdio."""

import os
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import flatjoin
from shapes import SHAPE, VALUES

HERE = Path(__file__).parent


def server(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + sys.path)
    return StdioServerParameters(
        command=sys.executable, args=[str(HERE / "mcp_shape_server.py"), *args], env=env
    )


async def session_run(params, body):
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def test_list_tools_shows_the_flat_schema_and_calls_are_validated_by_the_original():
    flat = flatjoin.flatten(SHAPE.json_schema())["schema"]

    async def body(session):
        listed = await session.list_tools()
        assert [t.name for t in listed.tools] == ["draw"]
        assert listed.tools[0].input_schema == flat
        assert listed.tools[0].input_schema["type"] == "object"
        for value in VALUES:
            result = await session.call_tool("draw", value)
            assert not result.is_error, result
            assert result.content[0].text == "drew a " + value["kind"]
        mixed = await session.call_tool("draw", {"kind": "circle", "text": "hi"})
        assert mixed.is_error
        assert 'kind "circle"' in mixed.content[0].text

    anyio.run(session_run, server(), body)
