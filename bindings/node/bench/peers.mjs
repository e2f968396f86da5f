// The JavaScript peers bench.mjs runs beside the flatjoin package, in the same process on the same
// documents: published code that users run today to make tool schemas with unions acceptable to a
// provider. Each peer is a function of one input schema, applied to every tool's `inputSchema` of
// a manifest as its project applies it to each tool (the rest of the manifest kept as it is).
// Versions are pinned by package.json and package-lock.json (`npm ci` in this directory).
//
// - `openclaw`: OpenClaw's `normalizeToolParameterSchema` (@openclaw/ai 2026.9.6, exported as
//   `@openclaw/ai/internal/tool-schema`; OpenClaw's agent runs it on every tool before any
//   provider sees it), called with no provider options: local `$ref`s inlined (`$defs` dropped, a
//   recursive reference becomes `{}`), OpenAPI keywords normalized, and a root `anyOf`/`oneOf`
//   merged into one object — properties first-wins (a later branch's schema for a name already
//   seen is dropped, except `const`/`enum` values, which are merged into one enum), `required`
//   the names every branch requires, `additionalProperties: true`; unions below the root stay.
//   It caches by the schema object's identity, so each call gets a fresh shallow copy of the root
//   (the first conversion of a tool, not a cache hit).
// - `ai-sdk-google`: the AI SDK's Google provider's `convertJSONSchemaToOpenAPISchema`
//   (@ai-sdk/google 3.0.141, the AI SDK 6 line; not exported, vendored in vendor/ with its
//   license and source), as its `prepareTools` calls it: `$ref`s to root `$defs`/`definitions`
//   inlined, a recursive one making it send the schema unchanged; `anyOf`/`oneOf`/`allOf` kept
//   as they are (no union is flattened); every keyword but type, description, required,
//   properties, items, the three applicators, format, enum/const and minLength dropped.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const here = new URL('.', import.meta.url);

/** The vendored AI SDK file, checked against its upstream digest, its types stripped. */
function aiSdkGoogle() {
  const vendored = readFileSync(
    new URL('vendor/ai-sdk-google-convert-json-schema-to-openapi-schema.ts', here),
    'utf8',
  );
  const marker = '// ---- upstream file below ----\n';
  const upstream = vendored.slice(vendored.indexOf(marker) + marker.length);
  const digest = createHash('sha256').update(upstream).digest('hex');
  if (digest !== '640300d9272d3fa545d583245a484e7aa0c5ca16581f77c65089576a6ba36f32') {
    throw new Error(`the vendored AI SDK file is not @ai-sdk/google 3.0.141's (sha256 ${digest})`);
  }
  const ts = require('typescript');
  const { outputText } = ts.transpileModule(upstream, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const module = { exports: {} };
  new Function('exports', 'require', 'module', outputText)(module.exports, require, module);
  const { convertJSONSchemaToOpenAPISchema, isRecursiveJSONSchemaReferenceError } = module.exports;
  // What @ai-sdk/google 3.0.141's prepareFunctionDeclaration does with a tool's inputSchema.
  return (schema) => {
    try {
      return convertJSONSchemaToOpenAPISchema(schema);
    } catch (error) {
      if (!isRecursiveJSONSchemaReferenceError(error)) throw error;
      return schema;
    }
  };
}

/** The peers, by name: each maps one input schema to what its project sends. */
export async function loadPeers() {
  const { normalizeToolParameterSchema } = await import('@openclaw/ai/internal/tool-schema');
  return {
    openclaw: (schema) =>
      normalizeToolParameterSchema(
        schema && typeof schema === 'object' && !Array.isArray(schema) ? { ...schema } : schema,
      ),
    'ai-sdk-google': aiSdkGoogle(),
  };
}

/** `convert` over a document: one schema, or every tool's `inputSchema` of a manifest. */
export function overDocument(convert, doc) {
  if (!Array.isArray(doc?.tools)) return convert(doc);
  return {
    ...doc,
    tools: doc.tools.map((tool) =>
      tool && typeof tool === 'object' && 'inputSchema' in tool
        ? { ...tool, inputSchema: convert(tool.inputSchema) }
        : tool,
    ),
  };
}
