// The package's API: results, options in JS naming, and errors (FlatjoinError with kind and
// pointer; no input crashes the process).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const flatjoin = require('flatjoin');
const { flatten, flattenManifest, validate, lint, exportTools, FlatjoinError } = flatjoin;

const shape = {
  oneOf: [
    {
      type: 'object',
      properties: { kind: { const: 'circle' }, radius: { type: 'number' } },
      required: ['kind', 'radius'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { kind: { const: 'square' }, side: { type: 'number' } },
      required: ['kind', 'side'],
      additionalProperties: false,
    },
  ],
};

test('api: flatten joins a discriminated union into one object', () => {
  const before = JSON.stringify(shape);
  const { schema, diagnostics } = flatten(shape);
  assert.equal(schema.type, 'object');
  assert.deepEqual(schema.properties.kind.enum, ['circle', 'square']);
  assert.deepEqual(schema.required, ['kind']);
  assert.deepEqual(Object.keys(schema.properties), ['kind', 'radius', 'side']);
  assert.deepEqual(diagnostics.flattened, [{ pointer: '', discriminator: 'kind', branches: 2 }]);
  assert.equal(JSON.stringify(shape), before, 'the input is not modified');
});

test('api: options scope and openBranches are read, and checked', () => {
  const nested = { type: 'object', properties: { shape }, required: ['shape'] };
  assert.equal(flatten(nested).schema.properties.shape.type, 'object');
  assert.ok(flatten(nested, { scope: 'root' }).schema.properties.shape.oneOf, 'root scope leaves a nested union');
  const open = {
    anyOf: [
      { type: 'object', properties: { k: { const: 'a' }, x: { type: 'number' } }, required: ['k'] },
      { type: 'object', properties: { k: { const: 'b' } }, required: ['k'] },
    ],
  };
  // The permissive reading lets an open branch that does not declare `x` accept anything there.
  assert.equal(flatten(open).schema.properties.x.type, 'number');
  assert.equal(flatten(open, { openBranches: 'permissive' }).schema.properties.x.type, undefined);
  for (const bad of [{ scope: 'everywhere' }, { openBranches: 'lax' }, { scope: 3 }, 'declared']) {
    assert.throws(() => flatten(shape, bad), (e) => e instanceof FlatjoinError && e.kind === 'invalid_option');
  }
});

test('api: errors are Errors with kind and pointer', () => {
  const cases = [
    [{ oneOf: [{ $ref: '#/$defs/missing' }] }, 'unresolvable_ref', '/oneOf/0/$ref'],
    [{ type: 'object', required: 'name' }, 'wrong_type', '/required'],
    [{ properties: { a: 3 } }, 'not_a_schema', '/properties/a'],
    [{ $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' }, 'unsupported_draft', '/$schema'],
  ];
  for (const [schema, kind, pointer] of cases) {
    assert.throws(
      () => flatten(schema),
      (e) => e instanceof Error && e instanceof FlatjoinError && e.kind === kind && e.pointer === pointer,
      `${JSON.stringify(schema)} should fail with ${kind} at ${pointer}`,
    );
  }
});

test('api: bad input never crashes the process', () => {
  let deep = {};
  for (let i = 0; i < 200; i++) deep = { properties: { a: deep } };
  assert.throws(() => flatten(deep), (e) => e.kind === 'too_deep' && e.pointer.startsWith('/properties/a'));
  let deeper = {};
  for (let i = 0; i < 1_000_000; i++) deeper = { x: deeper };
  assert.throws(() => flatten(deeper), (e) => e.kind === 'too_deep');
  const cycle = {};
  cycle.self = cycle;
  assert.throws(() => flatten(cycle), (e) => e.kind === 'not_json');
  assert.throws(() => flatten(undefined), (e) => e.kind === 'not_json');
  assert.throws(() => flatten({ n: 1n }), (e) => e.kind === 'not_json');
  assert.throws(() => flattenManifest({ tools: 3 }), (e) => e.kind === 'not_a_manifest');
  assert.throws(() => flattenManifest([]), (e) => e.kind === 'not_a_manifest');
  // The same in a child process: it exits normally after every kind of bad input.
  const child = spawnSync(process.execPath, ['-e', `
    const f = require(${JSON.stringify(require.resolve('../index.js'))});
    for (const bad of [null, 1, 'x', [], {oneOf: 5}, {$ref: '#/nope'}, {allOf: [{$ref: '#'}]}]) {
      try { f.flatten(bad); f.lint(bad, 'openai'); f.exportTools(bad, 'anthropic'); f.validate(bad, {}); } catch (e) { if (!(e instanceof f.FlatjoinError)) throw e; }
    }
    console.log('survived');
  `], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /survived/);
});

test('api: validate uses the original and names the selected branch', () => {
  assert.deepEqual(validate(shape, { kind: 'circle', radius: 1 }), { valid: true, branch: null, errors: [], message: '' });
  const mixed = { kind: 'square', radius: 1 };
  // The flat presentation accepts the mix; the original does not, and says which branch it checked.
  const v = validate(shape, mixed);
  assert.equal(v.valid, false);
  assert.equal(v.branch, 'kind "square"');
  assert.ok(v.errors.length > 0);
  assert.match(v.message, /^kind "square": /);
  assert.equal(validate({ format: 'email', type: 'string' }, 'nope').valid, true);
  assert.equal(validate({ format: 'email', type: 'string' }, 'nope', { assertFormats: true }).valid, false);
});

test('api: flattenManifest flattens each inputSchema and leaves the rest', () => {
  const manifest = { tools: [{ name: 'draw', description: 'Draws.', inputSchema: shape }, { name: 'noop' }], nextCursor: 'c' };
  const out = flattenManifest(manifest);
  assert.equal(out.manifest.nextCursor, 'c');
  assert.equal(out.manifest.tools[0].description, 'Draws.');
  assert.equal(out.manifest.tools[0].inputSchema.type, 'object');
  assert.deepEqual(out.manifest.tools[1], { name: 'noop' });
  assert.deepEqual(out.diagnostics.flattened, [{ tool: 'draw', pointer: '', discriminator: 'kind', branches: 2 }]);
  const lowered = flattenManifest(manifest, { profile: 'openai-strict' });
  assert.ok(lowered.manifest.tools[0].inputSchema.required.includes('radius'), 'strict makes every property required');
  assert.ok(lowered.narrowings.length > 0);
});

// A union of two models used in two fields, as Pydantic writes it: the join writes its flat object
// once, as `flatjoin_union_N` (SPEC §6 decision 73).
const models = {
  type: 'object',
  properties: {
    a: { oneOf: [{ $ref: '#/$defs/Circle' }, { $ref: '#/$defs/Square' }] },
    b: { type: 'array', items: { oneOf: [{ $ref: '#/$defs/Circle' }, { $ref: '#/$defs/Square' }] } },
  },
  required: ['a'],
  $defs: {
    Circle: { type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number' } }, required: ['kind', 'radius'] },
    Square: { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
  },
};

test('api: a profile without references lists the shared unions it inlines', () => {
  const presentation = flatten(models).schema;
  const text = JSON.stringify(presentation);
  const shared = Object.keys(presentation.$defs ?? {}).filter((n) => /^flatjoin_union_[1-9][0-9]*$/.test(n));
  assert.ok(shared.length > 0, text);
  const gemini = exportTools(models, 'gemini');
  for (const name of shared) {
    const sites = text.split(`"$ref":"#/$defs/${name}"`).length - 1;
    const listed = gemini.inlined.find((i) => i.definition === `/$defs/${name}`);
    assert.ok(listed, JSON.stringify(gemini.inlined));
    assert.equal(listed.tool, 'tool');
    assert.equal(listed.rule, 'shared-union');
    assert.equal(listed.sites, sites);
    assert.ok(listed.copies >= sites && listed.bytes > 0 && listed.detail.length > 0);
  }
  const manifest = { tools: [{ name: 'draw', inputSchema: models }] };
  assert.ok(flattenManifest(manifest, { profile: 'cursor' }).inlined.some((i) => i.tool === 'draw' && i.rule === 'shared-union'));
  assert.deepEqual(exportTools(models, 'openai').inlined, []);
  assert.deepEqual(flattenManifest(manifest).inlined, []);
});

test('api: lint and exportTools are the CLI profiles', () => {
  const report = lint(shape, 'cursor');
  assert.deepEqual(report.rejected_tools, ['tool']);
  assert.ok(report.findings.some((f) => f.severity === 'error'));
  assert.deepEqual(lint(flatten(shape).schema, 'cursor').rejected_tools, []);
  const openai = exportTools(shape, 'openai');
  assert.equal(openai.declarations[0].type, 'function');
  assert.equal(openai.declarations[0].function.parameters.type, 'object');
  const gemini = exportTools({ tools: [{ name: 'draw', inputSchema: shape }] }, 'gemini');
  assert.equal(gemini.declarations.functionDeclarations[0].parameters.type, 'OBJECT');
  assert.throws(() => exportTools(shape, 'gemini', { strict: true }), (e) => e.kind === 'invalid_option');
  assert.throws(() => exportTools(shape, 'bard'), (e) => e.kind === 'invalid_option');
  assert.throws(() => lint(shape, 'bard'), (e) => e.kind === 'invalid_option');
});
