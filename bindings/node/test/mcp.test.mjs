// The MCP TypeScript SDK (the version cli/client pins): a low-level `Server` registers a tool
// whose input is a Zod discriminated union; `tools/list` serves the flat presentation, and
// `tools/call` validates the arguments with the original (`validate`), naming the branch. Driven
// by the SDK's own `Client` over its in-memory transport. Serving the original union instead is
// what the SDK's client refuses (the bug users report: a union tool schema is dropped or refused).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const require = createRequire(import.meta.url);
const { flatten, validate } = require('flatjoin');

const Shape = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('circle'), radius: z.number().positive() }),
  z.object({ kind: z.literal('square'), side: z.number().positive() }),
  z.object({ kind: z.literal('label'), text: z.string() }),
]);
const original = z.toJSONSchema(Shape);

async function connect(inputSchema) {
  const server = new Server({ name: 'shapes', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'draw', description: 'Draws one shape.', inputSchema }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    const verdict = validate(original, args);
    if (!verdict.valid) {
      return { isError: true, content: [{ type: 'text', text: `invalid arguments: ${verdict.message}` }] };
    }
    return { content: [{ type: 'text', text: `drew a ${args.kind}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'flatjoin-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, server };
}

test('mcp: tools/list shows the flat schema, tools/call is validated by the original', async () => {
  const flat = flatten(original).schema;
  const { client, server } = await connect(flat);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 1);
    assert.deepEqual(tools[0].inputSchema, flat);
    assert.equal(tools[0].inputSchema.type, 'object');
    for (const args of [{ kind: 'circle', radius: 1 }, { kind: 'square', side: 2 }, { kind: 'label', text: 'x' }]) {
      const result = await client.callTool({ name: 'draw', arguments: args });
      assert.ok(!result.isError, JSON.stringify(result));
      assert.equal(result.content[0].text, `drew a ${args.kind}`);
    }
    // The flat schema admits this mix; the original refuses it and names the branch it checked.
    const mixed = await client.callTool({ name: 'draw', arguments: { kind: 'square', radius: 1 } });
    assert.equal(mixed.isError, true);
    assert.match(mixed.content[0].text, /kind "square"/);
  } finally {
    await client.close();
    await server.close();
  }
});

test('mcp: the SDK client refuses the original union as a tool input schema', async () => {
  const { client, server } = await connect(original);
  try {
    await assert.rejects(client.listTools());
  } finally {
    await client.close();
    await server.close();
  }
});
