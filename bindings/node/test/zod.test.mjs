// Zod v4: `z.toJSONSchema` of a `z.discriminatedUnion` flattened; every value Zod accepts is
// accepted by the flat schema (judged by ajv, an independent validator) and by `validate` with
// the original; a cross-branch mix that the flat schema lets through is rejected by the original,
// naming the branch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { z } from 'zod';
import Ajv2020 from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
const { flatten, validate } = require('flatjoin');

const Point = z.object({ x: z.number(), y: z.number() });
const Shape = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('circle'), center: Point, radius: z.number().positive() }),
  z.object({ kind: z.literal('polygon'), points: z.array(Point).min(3), closed: z.boolean().optional() }),
  z.object({ kind: z.literal('label'), text: z.string().min(1), tags: z.array(z.string()).optional() }),
]);
const Draw = z.object({
  canvas: z.string(),
  shapes: z.array(Shape),
  primary: Shape.nullable(),
});

const values = [
  { kind: 'circle', center: { x: 0, y: 1 }, radius: 2.5 },
  { kind: 'polygon', points: [{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 0, y: 1 }] },
  { kind: 'polygon', points: [{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 0, y: 1 }], closed: true },
  { kind: 'label', text: 'hi' },
  { kind: 'label', text: 'hi', tags: ['a', 'b'] },
];

function ajv() {
  return new Ajv2020({ strict: false, allErrors: true });
}

test('zod: a discriminatedUnion at the root becomes one flat object', () => {
  const original = z.toJSONSchema(Shape);
  assert.ok(original.oneOf || original.anyOf, 'Zod renders the union as a union');
  const { schema, diagnostics } = flatten(original);
  assert.equal(schema.type, 'object');
  assert.equal(schema.oneOf ?? schema.anyOf, undefined);
  assert.deepEqual([...schema.properties.kind.enum].sort(), ['circle', 'label', 'polygon']);
  assert.equal(diagnostics.flattened[0].discriminator, 'kind');
  const check = ajv().compile(schema);
  for (const value of values) {
    assert.ok(Shape.safeParse(value).success, `Zod accepts ${JSON.stringify(value)}`);
    assert.ok(check(value), `flat schema rejects ${JSON.stringify(value)}: ${JSON.stringify(check.errors)}`);
    assert.equal(validate(original, value).valid, true);
  }
  const mix = { kind: 'circle', text: 'hi' };
  assert.equal(Shape.safeParse(mix).success, false);
  const verdict = validate(original, mix);
  assert.equal(verdict.valid, false);
  assert.equal(verdict.branch, 'kind "circle"');
});

test('zod: unions nested in properties, arrays and nullable wrappers are flattened too', () => {
  const original = z.toJSONSchema(Draw);
  const { schema, diagnostics } = flatten(original);
  assert.ok(diagnostics.flattened.length >= 2, JSON.stringify(diagnostics));
  const text = JSON.stringify(schema);
  assert.ok(!/"oneOf"/.test(text), text);
  const check = ajv().compile(schema);
  for (const a of values) {
    for (const b of [null, ...values]) {
      const value = { canvas: 'c', shapes: [a, ...values], primary: b };
      assert.ok(Draw.safeParse(value).success);
      assert.ok(check(value), `flat schema rejects ${JSON.stringify(value)}: ${JSON.stringify(check.errors)}`);
      assert.equal(validate(original, value).valid, true);
    }
  }
  const bad = { canvas: 'c', shapes: [{ kind: 'label', radius: 1 }], primary: null };
  assert.equal(Draw.safeParse(bad).success, false);
  assert.equal(validate(original, bad).valid, false);
});
