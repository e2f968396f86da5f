"""A low-level MCP Python SDK server over stdio (run by test_mcp.py): `tools/list` returns the
flat presentation of a Pydantic tagged union (or, with `--original`, the union itself), and
`tools/call` validates the arguments with the original through `flatjoin.validate`."""

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

import flatjoin
from shapes import SHAPE

ORIGINAL = SHAPE.json_schema()
SERVED = ORIGINAL if "--original" in sys.argv else flatjoin.flatten(ORIGINAL)["schema"]


async def list_tools(ctx, params):
    return types.ListToolsResult(
        tools=[types.Tool(name="draw", description="Draws one shape.", input_schema=SERVED)]
    )


async def call_tool(ctx, params):
    arguments = params.arguments or {}
    verdict = flatjoin.validate(ORIGINAL, arguments)
    if not verdict["valid"]:
        return types.CallToolResult(
            is_error=True,
            content=[types.TextContent(text="invalid arguments: " + verdict["message"])],
        )
    return types.CallToolResult(content=[types.TextContent(text="drew a " + arguments["kind"])])


async def main():
    server = Server("shapes", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
