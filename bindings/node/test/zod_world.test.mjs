// The random Zod program world (`harness/worlds/zod/world.mjs`, SPEC §2.9, §4) on a small budget:
// real Zod 4 programs (z.discriminatedUnion, optional and defaulted tags, the nested
// z.discriminatedUnion, z.union of objects, strict / loose / strip / catch-all objects, unions as
// fields, unions with a non-object branch, recursive unions through z.lazy), their
// `z.toJSONSchema(...)` flattened by the flatjoin binary, judged by ajv on values `safeParse`
// accepts.
//
// The binary is $FLATJOIN_BIN; `cargo test -p flatjoin-node` (tests/node.rs) passes the CLI it
// built as $FLATJOIN_CLI, which is read when FLATJOIN_BIN is not set. With neither, every test here
// fails and says how to set it: this file never skips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, constants, statSync } from 'node:fs';
import * as world from '../../../harness/worlds/zod/world.mjs';

const SEEDS = [1, 2];
const PROGRAMS = 60;

function binary() {
  const path = process.env.FLATJOIN_BIN || process.env.FLATJOIN_CLI;
  if (!path) {
    return [null, 'no flatjoin binary: set FLATJOIN_BIN to the `flatjoin` CLI, e.g. ' +
      '`FLATJOIN_BIN=$PWD/target/release/flatjoin node --test bindings/node/test/zod_world.test.mjs` ' +
      '(`cargo build --release -p flatjoin-cli` builds it); `cargo test -p flatjoin-node` passes it as FLATJOIN_CLI'];
  }
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    accessSync(path, constants.X_OK);
  } catch {
    return [null, `FLATJOIN_BIN (or FLATJOIN_CLI) names ${path}, which is no executable file`];
  }
  return [path, null];
}

let cached = null;
function results() {
  if (cached === null) {
    const [path, why] = binary();
    cached = path ? world.runWorld(SEEDS, PROGRAMS, path) : why;
  }
  if (typeof cached === 'string') assert.fail(cached);
  return cached;
}

const total = (r, attr) => world.total(r, attr);

function cases(r, list, n = 8) {
  const out = [];
  for (const [form, s] of r.perForm) for (const c of s[list]) out.push(`${form} ${c.join(' ')}`);
  return out.slice(0, n).join('\n  ');
}

test('zod-world: every form is drawn, built by Zod and flattened', () => {
  const r = results();
  for (const [form, s] of r.perForm) {
    assert.ok(s.programs > 0, `form ${form} was never drawn`);
    assert.ok(s.valuesKept > 0, `form ${form} kept no value`);
  }
  assert.equal(total(r, 'notBuilt'), 0, `Zod refused programs:\n  ${cases(r, 'errors')}`);
  assert.equal(total(r, 'flatjoinErrors'), 0, `flatjoin refused programs:\n  ${cases(r, 'errors')}`);
  assert.equal(total(r, 'invalidPresentations'), 0, `presentations that are no valid schema:\n  ${cases(r, 'errors')}`);
  // The world's own drawing: a value drawn down one path of branches is one Zod accepts.
  assert.equal(total(r, 'zodRejected'), 0, `values drawn on their path that Zod rejects:\n  ${cases(r, 'zodRejectedCases')}`);
});

test('zod-world: no value Zod and the original accept is rejected by the presentation', () => {
  // SPEC §4 soundness under the default `declared` reading (§2.8).
  const r = results();
  const kept = total(r, 'valuesKept');
  const unsound = total(r, 'unsound');
  assert.ok(kept > 500, `only ${kept} values kept`);
  assert.equal(unsound, 0, `${unsound} of ${kept} kept values rejected by the presentation ` +
    `(replay: node harness/worlds/zod/world.mjs --replay SEED:INDEX):\n  ${cases(r, 'unsoundCases')}`);
});

test('zod-world: every root union of objects becomes one object', () => {
  // SPEC §2.9 and §4's object guarantee: a root union whose branches are all objects (nested unions
  // of objects opened first) becomes one object, with or without a discriminator.
  const r = results();
  const left = total(r, 'objectRootUnions') - total(r, 'objectRootsOneObject') -
    (total(r, 'objectRootsBehindRef') - total(r, 'objectRootsBehindRefOneObject'));
  const perForm = [...r.perForm].filter(([, s]) => s.objectRootUnions)
    .map(([f, s]) => `${f} ${s.objectRootsOneObject}/${s.objectRootUnions}`).join(', ');
  const first = cases(r, 'objectRootsLeft').split('\n  ').filter((c) => !c.includes('root behind $ref')).join('\n  ');
  assert.equal(left, 0, `${left} root unions of objects left as unions (one object / root unions: ${perForm}); first:\n  ${first}`);
});

// A root union of objects behind a root `$ref`: Zod writes the root so when the union has an id
// (`z.union([...]).meta({ id: "Root" })`). The root's `$ref` target is read as the root (SPEC §6
// decisions 23 and 70), so the union there is joined like one written at the root.
test('zod-world: a root union of objects behind a root $ref becomes one object', () => {
  const r = results();
  const behind = total(r, 'objectRootsBehindRef');
  const left = behind - total(r, 'objectRootsBehindRefOneObject');
  const first = cases(r, 'objectRootsLeft', 40).split('\n  ').filter((c) => c.includes('root behind $ref')).join('\n  ');
  assert.equal(left, 0, `${left} of ${behind} root unions of objects behind a root $ref left as unions; first:\n  ${first}`);
});

test('zod-world: every union site is flattened or named', () => {
  // SPEC §2.9 and §6 decision 70: every union site left as it is is named in the diagnostics.
  const r = results();
  const shapes = new Map();
  for (const s of r.perForm.values()) for (const [k, n] of s.unnamedShapes) shapes.set(k, (shapes.get(k) ?? 0) + n);
  const unnamed = total(r, 'unnamed');
  assert.equal(unnamed, 0, `${unnamed} of ${total(r, 'sites')} union sites neither flattened nor skipped ` +
    `(${[...shapes].map(([k, n]) => `${k.replace('\t', ' ')}: ${n}`).join(', ')}); first:\n  ${cases(r, 'unnamedCases')}`);
  assert.equal(total(r, 'unknownPointers'), 0, 'diagnostics pointers that name no union site of the original');
});

test('zod-world: the batch is what flatten prints per program', () => {
  // `world.mjs --batch` flattens many programs in one `flatjoin manifest` process; the manifest
  // surface calls the same projection as `flatten` (SPEC §4, I8): a sample, program by program.
  const r = results();
  const schemas = {};
  for (let i = 0; i < 12; i++) {
    const p = world.makeProgram(SEEDS[0], i);
    if (!p.buildError) schemas[`p${i}`] = p.schema;
  }
  const batch = world.flattenBatch(r.flatjoin, schemas);
  for (const [name, schema] of Object.entries(schemas)) {
    const one = world.flattenOne(r.flatjoin, schema);
    assert.deepEqual(batch[name].presentation, one.presentation, name);
    for (const part of ['flattened', 'skipped']) {
      assert.deepEqual(batch[name].diagnostics[part], one.diagnostics[part], `${name} ${part}`);
    }
  }
});

test('zod-world: a program is the same program every time (SEED:INDEX replays)', () => {
  for (const i of [0, 7, 33]) {
    const a = world.makeProgram(SEEDS[1], i);
    const b = world.makeProgram(SEEDS[1], i);
    assert.equal(a.source, b.source);
    assert.deepEqual(a.schema, b.schema);
    assert.deepEqual(a.values, b.values);
  }
});
