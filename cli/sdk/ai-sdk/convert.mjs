// The Vercel AI SDK's Google provider converting MCP tools as an AI SDK app does: each tool of a
// `tools/list` result (what `flatjoin manifest` serves) becomes `dynamicTool({inputSchema:
// jsonSchema(tool.inputSchema)})`, `generateText` runs with a Gemini model, and the request body
// the provider would POST is captured by a `fetch` that answers locally (nothing leaves the
// machine). Prints one JSON line per function declaration the provider built:
//   {"id": "<file>#<tool>", "declaration": {...}}
// Input: JSON on stdin, {"<file>": <tools/list result>, ...}. Exit 0, or 1 with the error.
import { generateText, dynamicTool, jsonSchema } from "ai";
import { createGoogleGenerativeAI } from "@ai-sdk/google";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (c) => (text += c));
  process.stdin.on("end", () => resolve(text));
}));

let captured = null;
const google = createGoogleGenerativeAI({
  apiKey: "not-used",
  fetch: async (_url, init) => {
    captured = JSON.parse(init.body);
    const body = {
      candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  },
});

for (const [file, manifest] of Object.entries(input)) {
  const tools = {};
  for (const t of manifest.tools) {
    tools[t.name] = dynamicTool({
      description: t.description,
      inputSchema: jsonSchema(t.inputSchema),
      execute: async () => ({}),
    });
  }
  captured = null;
  await generateText({ model: google("gemini-2.5-flash"), tools, prompt: "list" });
  const declarations = captured?.tools?.flatMap((t) => t.functionDeclarations ?? []) ?? [];
  if (declarations.length !== manifest.tools.length) {
    console.error(`${file}: ${manifest.tools.length} tools but ${declarations.length} declarations`);
    process.exit(1);
  }
  for (const d of declarations) {
    console.log(JSON.stringify({ id: `${file}#${d.name}`, declaration: d }));
  }
}
