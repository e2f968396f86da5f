// The Vercel AI SDK (the version cli/sdk/ai-sdk pins): `tool({ inputSchema: jsonSchema(flat,
// { validate }) })` where `validate` is the package's runtime check with the original. The model
// (the SDK's own test model, answering with fixed tool calls) is shown the flat schema; the SDK
// runs `execute` for valid arguments and turns a cross-branch mix into a tool error naming the
// branch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { generateText, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const require = createRequire(import.meta.url);
const { flatten, validate } = require('flatjoin');

const Shape = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('circle'), radius: z.number().positive() }),
  z.object({ kind: z.literal('square'), side: z.number().positive() }),
]);
const original = z.toJSONSchema(Shape);

function shapeTool(executed) {
  return tool({
    description: 'Draws one shape.',
    inputSchema: jsonSchema(flatten(original).schema, {
      validate: (value) => {
        const verdict = validate(original, value);
        return verdict.valid ? { success: true, value } : { success: false, error: new Error(verdict.message) };
      },
    }),
    execute: async (args) => {
      executed.push(args);
      return `drew a ${args.kind}`;
    },
  });
}

function modelCalling(args) {
  return new MockLanguageModelV4({
    doGenerate: {
      content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'draw', input: JSON.stringify(args) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    },
  });
}

test('ai-sdk: the model sees the flat schema, valid calls execute', async () => {
  const executed = [];
  const model = modelCalling({ kind: 'circle', radius: 2 });
  const result = await generateText({ model, tools: { draw: shapeTool(executed) }, prompt: 'draw' });
  const shown = model.doGenerateCalls[0].tools.find((t) => t.name === 'draw');
  assert.deepEqual(shown.inputSchema, flatten(original).schema);
  assert.deepEqual(executed, [{ kind: 'circle', radius: 2 }]);
  assert.equal(result.toolResults[0].output, 'drew a circle');
});

test('ai-sdk: a cross-branch mix is refused by the original, naming the branch', async () => {
  const executed = [];
  const model = modelCalling({ kind: 'square', radius: 2 });
  const result = await generateText({ model, tools: { draw: shapeTool(executed) }, prompt: 'draw' });
  assert.deepEqual(executed, []);
  const error = result.content.find((part) => part.type === 'tool-error');
  assert.ok(error, JSON.stringify(result.content));
  assert.match(String(error.error?.message ?? error.error), /kind "square"/);
});
