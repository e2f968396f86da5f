// End-to-end check of `flatjoin mcp-proxy` with the official MCP TypeScript SDK client.
// Usage: node e2e.mjs FLATJOIN_BINARY UNION_SERVER_BINARY [MANIFEST.json...]
// Run by cli/tests/mcp_sdk_client.rs. Prints one line per check and exits non-zero on the first
// failure.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [flatjoin, upstream, ...manifests] = process.argv.slice(2);
if (!flatjoin || !upstream) {
  console.error("usage: node e2e.mjs FLATJOIN_BINARY UNION_SERVER_BINARY");
  process.exit(2);
}

async function connect(command, args) {
  const client = new Client({ name: "flatjoin-e2e", version: "0.1.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
  return client;
}

function text(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

// Control: without the proxy the SDK's own schema validation refuses the upstream's tool list
// (a root `oneOf` is not `type: "object"`), so the checks below can fail.
{
  const direct = await connect(upstream, []);
  await assert.rejects(direct.listTools(), /inputSchema|object/i, "the SDK accepted a root oneOf");
  await direct.close();
  console.log("ok - control: the SDK rejects the upstream's raw union schemas");
}

const client = await connect(flatjoin, ["mcp-proxy", "--", upstream]);

// 1. tools/list through the proxy: the SDK validates every tool (ListToolsResultSchema).
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, ["draw_shape", "draw_shape_flat", "send_message"]);
for (const tool of tools) {
  assert.equal(tool.inputSchema.type, "object", `${tool.name}: root type`);
  assert.equal(tool.inputSchema.oneOf, undefined, `${tool.name}: root oneOf left`);
}
const shape = tools.find((t) => t.name === "draw_shape");
assert.deepEqual(shape.inputSchema.properties.kind.enum, ["circle", "polygon", "label"]);
console.log(`ok - tools/list: ${tools.length} tools accepted by the SDK, all flat objects`);

// 2. A valid call is forwarded unchanged and answered by the upstream.
const ok = await client.callTool({ name: "draw_shape", arguments: { kind: "circle", radius: 2 } });
assert.notEqual(ok.isError, true, `valid call failed: ${text(ok)}`);
assert.match(text(ok), /upstream drew Circle \{ radius: 2\.0 \}/);
console.log(`ok - valid call forwarded: ${text(ok)}`);

const sms = await client.callTool({ name: "send_message", arguments: { channel: "sms", to: "+100", body: "hi" } });
assert.notEqual(sms.isError, true, `valid call failed: ${text(sms)}`);
console.log(`ok - valid call forwarded: ${text(sms)}`);

// 3. A wrong-branch mix passes the flat presentation but is rejected by the original's runtime,
// with the selected branch and the failing field named, before it reaches the upstream.
const bad = await client.callTool({
  name: "draw_shape",
  arguments: { kind: "circle", points: [{ x: 0, y: 0 }] },
});
assert.equal(bad.isError, true, `wrong-branch mix was not rejected: ${text(bad)}`);
assert.match(text(bad), /^flatjoin: /, "the rejection came from the upstream, not the proxy");
assert.match(text(bad), /circle/, "the rejection does not name the selected branch");
assert.match(text(bad), /radius|points/, "the rejection does not name the failing field");
console.log(`ok - wrong-branch mix rejected: ${text(bad)}`);

const mixed = await client.callTool({
  name: "send_message",
  arguments: { channel: "sms", to: ["a@b.io"], body: "hi" },
});
assert.equal(mixed.isError, true, `wrong-branch mix was not rejected: ${text(mixed)}`);
assert.match(text(mixed), /sms/);
console.log(`ok - wrong-branch mix rejected: ${text(mixed)}`);

await client.close();

// 4. Every real manifest, replayed by union-server behind the proxy: the SDK accepts every tool.
let replayed = 0;
for (const manifest of manifests) {
  const replay = await connect(flatjoin, ["mcp-proxy", "--", upstream, "--manifest", manifest]);
  const listed = await replay.listTools();
  for (const tool of listed.tools) {
    assert.equal(tool.inputSchema.type, "object", `${manifest} ${tool.name}: root type`);
  }
  replayed += listed.tools.length;
  await replay.close();
}
console.log(`ok - ${manifests.length} real manifests: ${replayed} tools accepted by the SDK through the proxy`);
console.log("6 passed, 0 failed");
