#!/usr/bin/env node
// A random Zod program world: real Zod 4 is the authority (SPEC §2.9, §4; the twin of
// harness/worlds/pydantic/world.py).
//
// Each program is a random Zod 4 schema built with z.object / z.strictObject / z.looseObject /
// .catchall(), z.discriminatedUnion, z.union, z.lazy, z.literal, z.enum, bounded numbers and
// strings, z.array, z.tuple, z.record, .optional() / .nullable() / .nullish() / .default(), drawn
// from one of the FORMS below. For each program:
//
// 1. the original is `z.toJSONSchema(Root, options)`; the options are the program's VARIANT:
//    target draft-2020-12 (Zod's default) or draft-7, `io: "input"` (what the MCP TypeScript SDK
//    and the AI SDK pass, and the reading that agrees with `safeParse`) or `io: "output"` (Zod's
//    default), and sometimes ids in a registry with `reused: "ref"` (`$defs`/`definitions` and
//    `$ref`);
// 2. values are drawn per leaf object from the program's structure (only the keys the leaf
//    declares, plus sometimes a fresh key no object declares, which the `declared` reading of
//    SPEC §2.8 still promises) and kept when `Root.safeParse(v).success` AND the original accepts
//    v (ajv 8, draft by `$schema`, with ajv-formats) AND the leaf object alone accepts v (its Zod
//    schema and its rendering): a value taken only through another branch is not promised under
//    `declared`. A value Zod takes but the original rejects is a Zod/schema mismatch, counted
//    apart, never a flatjoin failure. Deliberately invalid draws (a wrong tag, a missing required
//    key, a value of the wrong type) are counted apart too;
// 3. the original is flattened by the flatjoin CLI, `flatjoin flatten --diagnostics`, one process
//    per program (`--batch`: `flatjoin manifest --diagnostics`, one tool per program);
// 4. the presentation is judged by ajv: a kept value it rejects is UNSOUND (SPEC §4, soundness).
//    The world also records whether the root became one object (`"type": "object"`, no root
//    `oneOf`/`anyOf`: SPEC §4, object guarantee, amended for §2.9), and, for every union site of
//    the original (a `oneOf`/`anyOf` with at least two members, where JSON Schema reads a schema),
//    whether the diagnostics list it as flattened, as skipped (with its `code`), or not at all
//    ("unnamed"; §2.9 and §6 decision 70 promise none).
//
// Usage:
//   node harness/worlds/zod/world.mjs --seeds 1..4 --programs 400 --report reports/zod-world.md
//   node harness/worlds/zod/world.mjs --replay 3:17
//   node harness/worlds/zod/world.mjs --check ...   (exit 1 unless the promises hold)
//
// Zod, ajv and ajv-formats come from bindings/node/node_modules (`npm ci` there).

import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '..', '..', '..');
const NODE_PACKAGE = join(ROOT, 'bindings', 'node', 'package.json');
const require = createRequire(NODE_PACKAGE);
const { z } = require('zod');
const Ajv07 = require('ajv').default;
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default ?? require('ajv-formats');

export const ZOD_VERSION = require('zod/package.json').version;
export const AJV_VERSION = require('ajv/package.json').version;
export const AJV_FORMATS_VERSION = require('ajv-formats/package.json').version;

export const FORMS = [
  'du', // z.discriminatedUnion, every tag a required literal
  'du-optional-tag', // some branches' tag .optional() or .default(): z.discriminatedUnion or z.union (§2.9 rule 3 relaxed, decision 68)
  'nested-du', // a z.discriminatedUnion option that is a z.discriminatedUnion on another key (§2.9 rule 1 on projected branches, decision 70)
  'union', // z.union of z.objects with no literal field (§2.9: joined at the root with no discriminator, decision 70)
  'strict-vs-strip', // a tagged union whose branches mix z.strictObject, z.looseObject and z.object (§2.5, §2.8)
  'fields', // a z.object root whose fields are unions: bare, z.array(...), .nullable(), .optional(), .nullish() (§2, "A DU nested anywhere")
  'mixed', // z.union of objects plus one scalar, null or array branch (§2.9: named, left as it is)
  'recursive', // a z.discriminatedUnion one of whose options holds z.lazy(() => itself): `$ref: "#"` or a `$defs` entry (§1 Kinds: a cycle)
];

// The forms whose root union has only object branches (after `$ref` and nested unions): §2.9 and
// the amended §4 promise that each such root becomes one object. (`fields` has an object root, no
// root union; `mixed` has a non-object branch; `recursive` has either.)
export const OBJECT_ROOT_FORMS = new Set(['du', 'du-optional-tag', 'nested-du', 'union', 'strict-vs-strip', 'recursive']);

const EXTRA_PREFIX = 'zz_extra'; // no object declares a key with this prefix (SPEC §2.8 `declared`: still promised)

const FIELD_NAMES = [
  'name', 'label', 'count', 'size', 'ratio', 'flag', 'note', 'tags', 'color', 'width', 'height',
  'depth', 'title', 'code', 'level', 'mode', 'value', 'unit', 'target', 'source', 'weight', 'items',
  'path', 'limit', 'offset', 'owner', 'priority', 'status', 'text', 'url', 'email', 'id',
];
const TAG_NAMES = ['kind', 'type', 'tag', 'op', 'variant', 'action'];
const TAG_VALUES = [
  'circle', 'square', 'label', 'polygon', 'line', 'point', 'text', 'image', 'audio', 'video',
  'create', 'update', 'delete', 'move', 'copy', 'open', 'close', 'read', 'write', 'list',
];
const OBJECT_WORDS = [
  'Circle', 'Square', 'Label', 'Polygon', 'Create', 'Update', 'Delete', 'Search', 'Fetch', 'Move',
  'Cat', 'Dog', 'Lizard', 'Bird', 'Email', 'Sms', 'Push', 'Card', 'Cash', 'Wire',
];
const DESCRIPTIONS = ['What to draw.', 'The target.', 'Free text.', 'How many.', 'Optional note.', 'Shape kind.'];
// "😀" is one code point but two UTF-16 units: JSON Schema's minLength/maxLength count code
// points, and so do Zod 4.6's .min/.max (which count units only where that cannot matter).
const STRINGS = ['', 'a', 'ab', 'hello world', 'ünïcode ✓', '42', 'null', 'kind', '😀'];
const NUMBERS = [0, 1, -7, 2.5, 3, -0.5, 123456, 1e10, 1.5e-7, 2 ** 40];
const INTS = [0, 1, -7, 3, 10, 123456, 2 ** 40, -(2 ** 31)];
const EMAILS = ['a@b.co', 'first.last@example.com', 'x_y+z@mail.example.org'];
const UUIDS = ['123e4567-e89b-12d3-a456-426614174000', '00000000-0000-0000-0000-000000000000'];

// ---------------------------------------------------------------------------------------------
// A seeded generator (cyrb128 → sfc32): the same SEED:INDEX gives the same program anywhere.
// ---------------------------------------------------------------------------------------------

function cyrb128(str) {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

export class Rng {
  constructor(text) {
    let [a, b, c, d] = cyrb128(text);
    this.next = () => {
      a |= 0; b |= 0; c |= 0; d |= 0;
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      return (t >>> 0) / 4294967296;
    };
    for (let i = 0; i < 12; i++) this.next();
  }
  random() { return this.next(); }
  chance(p) { return this.next() < p; }
  int(lo, hi) { return lo + Math.floor(this.next() * (hi - lo + 1)); } // inclusive
  choice(xs) { return xs[Math.floor(this.next() * xs.length)]; }
  shuffle(xs) {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [xs[i], xs[j]] = [xs[j], xs[i]];
    }
    return xs;
  }
  sample(xs, k) { return this.shuffle([...xs]).slice(0, k); }
}

// ---------------------------------------------------------------------------------------------
// Program structure: a small tree of specs, built both as real Zod schemas and as Zod source (for
// --replay), and walked to draw values. Kinds:
//   {k:'str', min, max, fmt}  {k:'num', int, min, max, gt, lt}  {k:'bool'}  {k:'null'}
//   {k:'lit', values}  {k:'enum', values}  {k:'wrap', how: optional|nullable|nullish, inner}
//   {k:'default', inner, value}  {k:'arr', inner, min, max}  {k:'tuple', items}  {k:'record', of}
//   (str may carry `pattern`, a source string for .regex)
//   {k:'obj', name, fields:[{name, type}], mode: strip|strict|loose|catchall, catchall: number|string}
//   {k:'union', members, disc, name?}   (disc: the z.discriminatedUnion key, else null: z.union;
//                                        a named union is declared as a const, for z.lazy)
//   {k:'self', target}   (z.lazy(() => target): target is a named union)
// Any spec may carry `meta` ({id, title, description}), registered in the program's registry.
// ---------------------------------------------------------------------------------------------

const lit = (values) => ({ k: 'lit', values });

function buildZod(spec, ctx) {
  if (spec.k === 'obj' && ctx.memo.has(spec)) return ctx.memo.get(spec);
  let s;
  switch (spec.k) {
    case 'str':
      s = spec.fmt === 'email' ? z.email() : spec.fmt === 'uuid' ? z.uuid() : z.string();
      if (spec.min !== undefined) s = s.min(spec.min);
      if (spec.max !== undefined) s = s.max(spec.max);
      if (spec.pattern !== undefined) s = s.regex(new RegExp(spec.pattern));
      break;
    case 'num':
      s = spec.int ? z.int() : z.number();
      if (spec.min !== undefined) s = s.min(spec.min);
      if (spec.gt !== undefined) s = s.gt(spec.gt);
      if (spec.max !== undefined) s = s.max(spec.max);
      if (spec.lt !== undefined) s = s.lt(spec.lt);
      break;
    case 'bool': s = z.boolean(); break;
    case 'null': s = z.null(); break;
    case 'lit': s = spec.values.length === 1 ? z.literal(spec.values[0]) : z.literal(spec.values); break;
    case 'enum': s = z.enum(spec.values); break;
    case 'wrap': {
      const inner = buildZod(spec.inner, ctx);
      s = spec.how === 'optional' ? inner.optional() : spec.how === 'nullable' ? inner.nullable() : inner.nullish();
      break;
    }
    case 'default': s = buildZod(spec.inner, ctx).default(spec.value); break;
    case 'arr':
      s = z.array(buildZod(spec.inner, ctx));
      if (spec.min !== undefined) s = s.min(spec.min);
      if (spec.max !== undefined) s = s.max(spec.max);
      break;
    case 'tuple': s = z.tuple(spec.items.map((m) => buildZod(m, ctx))); break;
    case 'record': s = z.record(z.string(), buildZod(spec.of, ctx)); break;
    case 'obj': {
      const shape = {};
      for (const f of spec.fields) shape[f.name] = buildZod(f.type, ctx);
      s = spec.mode === 'strict' ? z.strictObject(shape) : spec.mode === 'loose' ? z.looseObject(shape) : z.object(shape);
      if (spec.mode === 'catchall') s = s.catchall(spec.catchall === 'string' ? z.string() : z.number());
      break;
    }
    case 'union': {
      if (spec.name && ctx.memo.has(spec)) return ctx.memo.get(spec);
      const ms = spec.members.map((m) => buildZod(m, ctx));
      s = spec.disc ? z.discriminatedUnion(spec.disc, ms) : z.union(ms);
      break;
    }
    case 'self': {
      const target = spec.target;
      s = z.lazy(() => ctx.memo.get(target));
      break;
    }
    default: throw new Error('unknown spec ' + spec.k);
  }
  if (spec.meta) s = s.register(ctx.registry, spec.meta);
  if (spec.k === 'obj' || (spec.k === 'union' && spec.name)) ctx.memo.set(spec, s);
  return s;
}

const js = (v) => JSON.stringify(v);

function metaSrc(spec, text) {
  return spec.meta ? `${text}.register(reg, ${srcObject(spec.meta)})` : text;
}

function srcObject(o) {
  return '{ ' + Object.entries(o).map(([k, v]) => `${k}: ${js(v)}`).join(', ') + ' }';
}

function toSrc(spec, declaring = false) {
  let t;
  switch (spec.k) {
    case 'str':
      t = spec.fmt === 'email' ? 'z.email()' : spec.fmt === 'uuid' ? 'z.uuid()' : 'z.string()';
      if (spec.min !== undefined) t += `.min(${spec.min})`;
      if (spec.max !== undefined) t += `.max(${spec.max})`;
      if (spec.pattern !== undefined) t += `.regex(/${spec.pattern}/)`;
      break;
    case 'num':
      t = spec.int ? 'z.int()' : 'z.number()';
      if (spec.min !== undefined) t += `.min(${spec.min})`;
      if (spec.gt !== undefined) t += `.gt(${spec.gt})`;
      if (spec.max !== undefined) t += `.max(${spec.max})`;
      if (spec.lt !== undefined) t += `.lt(${spec.lt})`;
      break;
    case 'bool': t = 'z.boolean()'; break;
    case 'null': t = 'z.null()'; break;
    case 'lit': t = spec.values.length === 1 ? `z.literal(${js(spec.values[0])})` : `z.literal(${js(spec.values)})`; break;
    case 'enum': t = `z.enum(${js(spec.values)})`; break;
    case 'wrap': t = `${toSrc(spec.inner)}.${spec.how}()`; break;
    case 'default': t = `${toSrc(spec.inner)}.default(${js(spec.value)})`; break;
    case 'arr':
      t = `z.array(${toSrc(spec.inner)})`;
      if (spec.min !== undefined) t += `.min(${spec.min})`;
      if (spec.max !== undefined) t += `.max(${spec.max})`;
      break;
    case 'tuple': t = `z.tuple([${spec.items.map((m) => toSrc(m)).join(', ')}])`; break;
    case 'record': t = `z.record(z.string(), ${toSrc(spec.of)})`; break;
    case 'obj': return spec.name; // declared as a const (see programSource)
    case 'union': {
      if (spec.name && !declaring) return spec.name; // declared as a const (see programSource)
      const ms = spec.members.map((m) => toSrc(m)).join(', ');
      t = spec.disc ? `z.discriminatedUnion(${js(spec.disc)}, [${ms}])` : `z.union([${ms}])`;
      break;
    }
    case 'self': return `z.lazy(() => ${spec.target.name})`;
    default: throw new Error('unknown spec ' + spec.k);
  }
  return metaSrc(spec, t);
}

function walkObjects(spec, seen = []) {
  if (!spec || typeof spec !== 'object') return seen;
  if (spec.k === 'obj') {
    if (seen.includes(spec)) return seen;
    for (const f of spec.fields) walkObjects(f.type, seen);
    seen.push(spec);
  } else if (spec.k === 'union') {
    if (seen.includes(spec)) return seen;
    for (const m of spec.members) walkObjects(m, seen);
    if (spec.name) seen.push(spec);
  } else if (spec.k === 'tuple') {
    for (const m of spec.items) walkObjects(m, seen);
  } else if (spec.k === 'record') {
    walkObjects(spec.of, seen);
  } else if (spec.inner) {
    walkObjects(spec.inner, seen);
  }
  return seen;
}

export function programSource(root, variant) {
  const lines = ["import { z } from 'zod';", 'const reg = z.registry();'];
  for (const o of walkObjects(root)) {
    if (o.k === 'union') {
      lines.push(`const ${o.name} = ${toSrc(o, true)};`);
      continue;
    }
    const ctor = o.mode === 'strict' ? 'z.strictObject' : o.mode === 'loose' ? 'z.looseObject' : 'z.object';
    const body = o.fields.map((f) => `  ${/^[A-Za-z_$][\w$]*$/.test(f.name) ? f.name : js(f.name)}: ${toSrc(f.type)},`);
    const catchall = o.mode === 'catchall' ? `.catchall(z.${o.catchall ?? 'number'}())` : '';
    lines.push(metaSrc(o, `const ${o.name} = ${ctor}({\n${body.join('\n')}\n})${catchall}`) + ';');
  }
  lines.push(root.name ? `const Root = ${root.name};` : `const Root = ${toSrc(root)};`);
  const opts = Object.entries(variant.options).map(([k, v]) => (k === 'metadata' ? 'metadata: reg' : `${k}: ${js(v)}`));
  lines.push(`const schema = z.toJSONSchema(Root, { ${opts.join(', ')} });`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The generator.
// ---------------------------------------------------------------------------------------------

class Gen {
  constructor(rng, form) {
    this.rng = rng;
    this.form = form;
    this.n = 0;
    // `strict-vs-strip` mixes every object mode; the other forms draw z.object mostly.
    this.mixModes = form === 'strict-vs-strip';
  }

  fresh(word) {
    this.n += 1;
    return `${word}${this.n}`;
  }

  // z.object (strip: open under io "input", closed under "output"), z.strictObject (closed),
  // z.looseObject (`additionalProperties: {}`), .catchall(z.number()) (a typed catch-all, §2.5).
  mode() {
    const r = this.rng.random();
    if (this.mixModes) return r < 0.3 ? 'strict' : r < 0.55 ? 'loose' : r < 0.7 ? 'catchall' : 'strip';
    return r < 0.15 ? 'strict' : r < 0.22 ? 'loose' : r < 0.26 ? 'catchall' : 'strip';
  }

  object(name, fields) {
    const o = { k: 'obj', name, fields, mode: this.mode() };
    if (o.mode === 'catchall') o.catchall = this.rng.chance(0.7) ? 'number' : 'string';
    return o;
  }

  maybeDescribe(spec, p = 0.12) {
    if (this.rng.chance(p)) spec.meta = { ...(spec.meta ?? {}), description: this.rng.choice(DESCRIPTIONS) };
    return spec;
  }

  // k pairwise disjoint literal sets (SPEC §1 rule 4): mostly one string each, sometimes two
  // strings (z.literal([...]) or z.enum), sometimes integers, sometimes the two booleans.
  tagValues(k, stringsOnly = false) {
    const rng = this.rng;
    if (!stringsOnly && rng.chance(0.1)) {
      const start = rng.choice([0, 1, 10]);
      return Array.from({ length: k }, (_, i) => [start + i]);
    }
    if (!stringsOnly && k === 2 && rng.chance(0.05)) return [[true], [false]];
    if (!stringsOnly && rng.chance(0.05)) {
      // literal sets of several JSON types: z.literal(["a", 7]), z.literal(null), z.literal(true)
      const odd = rng.sample(TAG_VALUES, k);
      const out = odd.map((v) => [v]);
      out[0] = [odd[0], 7];
      if (k > 2) out[1] = [null];
      if (k > 3) out[2] = [true];
      return out;
    }
    const pool = rng.sample(TAG_VALUES, k * 2);
    return Array.from({ length: k }, (_, i) => (!stringsOnly && rng.chance(0.15) ? [pool[2 * i], pool[2 * i + 1]] : [pool[2 * i]]));
  }

  tagSpec(values) {
    if (values.length > 1 && values.every((v) => typeof v === 'string') && this.rng.chance(0.5)) {
      return { k: 'enum', values };
    }
    return lit(values);
  }

  scalar() {
    const rng = this.rng;
    const r = rng.random();
    if (r < 0.34) {
      const s = { k: 'str' };
      const b = rng.random();
      if (b < 0.12) s.min = rng.choice([1, 2]);
      else if (b < 0.22) s.max = rng.choice([1, 5, 20]);
      else if (b < 0.3) { s.min = 1; s.max = rng.choice([3, 12]); }
      else if (b < 0.35) s.fmt = rng.choice(['email', 'uuid']);
      else if (b < 0.4) s.pattern = rng.choice(['^[a-z]+$', '^[a-z ]*$']);
      return s;
    }
    if (r < 0.6) {
      const s = { k: 'num', int: rng.chance(0.45) };
      const b = rng.random();
      if (b < 0.15) s.min = rng.choice([-5, 0, 1]);
      else if (b < 0.25) s.max = rng.choice([5, 10, 100]);
      else if (b < 0.35) { s.min = rng.choice([-5, 0]); s.max = rng.choice([10, 100]); }
      else if (b < 0.43 && !s.int) { s.gt = rng.choice([-1, 0]); s.lt = rng.choice([10, 100]); }
      else if (b < 0.47 && !s.int) s.gt = 0;
      return s;
    }
    if (r < 0.85) return { k: 'bool' };
    if (r < 0.9) return { k: 'null' };
    return { k: 'str' };
  }

  defaultFor(spec) {
    const rng = this.rng;
    switch (spec.k) {
      case 'str':
        if (spec.fmt === 'email') return EMAILS[0];
        if (spec.fmt === 'uuid') return UUIDS[0];
        return 'x'.repeat(Math.max(spec.min ?? 0, Math.min(1, spec.max ?? 1)));
      case 'num': {
        const c = candidates(spec, spec.int ? INTS : NUMBERS);
        return c.length ? c[0] : midpoint(spec);
      }
      case 'bool': return rng.chance(0.5);
      case 'null': return null;
      case 'lit': return spec.values[0];
      case 'enum': return spec.values[0];
      case 'arr': return [];
      default: return undefined;
    }
  }

  // A field's type. Unions as fields (a union-typed field, z.array(union), .nullable() and
  // .optional() of a union) give the program nested union sites (SPEC §2, "A DU nested anywhere").
  fieldType(depth, noLiterals = false) {
    const rng = this.rng;
    const r = rng.random();
    if (r < 0.3) return this.maybeDescribe(this.scalar());
    if (r < 0.42) return { k: 'wrap', how: rng.choice(['optional', 'nullable', 'nullish']), inner: this.scalar() };
    if (r < 0.48) {
      const inner = this.scalar();
      const d = this.defaultFor(inner);
      return d === undefined ? inner : { k: 'default', inner, value: d };
    }
    if (r < 0.55) {
      const s = { k: 'arr', inner: this.scalar() };
      if (rng.chance(0.3)) s.min = 1;
      if (rng.chance(0.3)) s.max = rng.choice([3, 5]);
      return s;
    }
    if (r < 0.62 && !noLiterals) {
      const n = rng.choice([1, 2, 3]);
      if (rng.chance(0.7)) return lit(rng.sample(['on', 'off', 'auto', 'low', 'high'], n));
      return lit(rng.sample([1, 2, 3, 5, 8], n));
    }
    if (r < 0.68) return this.maybeDescribe({ k: 'enum', values: rng.sample(['red', 'green', 'blue', 'cyan', 'none'], rng.choice([2, 3])) });
    if (r < 0.75 && depth < 3) {
      const o = this.plainObject(depth + 1, 1, 3);
      return rng.chance(0.25) ? { k: 'wrap', how: rng.choice(['optional', 'nullable']), inner: o } : o;
    }
    if (r < 0.86 && depth < 3) return this.unionField(depth + 1);
    if (r < 0.89 && depth < 3) {
      // a union in a tuple position (`prefixItems` / draft-07 `items: [...]`) or a record's value
      // (`additionalProperties`)
      const u = this.unionField(depth + 1);
      return rng.chance(0.5) ? { k: 'tuple', items: [this.scalar(), u] } : { k: 'record', of: u };
    }
    if (r < 0.91) {
      const ms = rng.choice([[{ k: 'str' }, { k: 'num', int: false }], [{ k: 'str' }, { k: 'bool' }, { k: 'null' }], [{ k: 'num', int: true }, lit(['auto'])]]);
      return { k: 'union', members: ms.map((m) => ({ ...m })), disc: null };
    }
    return this.scalar();
  }

  fields(depth, reserved, lo, hi, noLiterals = false) {
    const names = this.rng.sample(FIELD_NAMES.filter((n) => !reserved.has(n)), this.rng.int(lo, hi));
    return names.map((name) => ({ name, type: this.fieldType(depth, noLiterals) }));
  }

  plainObject(depth, lo = 1, hi = 4, noLiterals = false) {
    const o = this.object(this.fresh(this.rng.choice(OBJECT_WORDS)), this.fields(depth, new Set(), lo, hi, noLiterals));
    if (this.rng.chance(0.08)) o.meta = { description: this.rng.choice(DESCRIPTIONS) };
    return o;
  }

  // An object branch carrying the literal tags [[name, values, how]]; how = 'required' |
  // 'optional' (.optional()) | 'default' (.default(values[0])).
  branch(depth, tags) {
    const rng = this.rng;
    const fs = tags.map(([name, values, how = 'required']) => {
      let t = this.tagSpec(values);
      if (how === 'optional') t = { k: 'wrap', how: 'optional', inner: t };
      else if (how === 'default') t = { k: 'default', inner: t, value: values[0] };
      if (rng.chance(0.08)) t.meta = { description: 'Which one.' };
      return { name, type: t };
    });
    const reserved = new Set(tags.map(([n]) => n));
    fs.push(...this.fields(depth, reserved, 0, 4));
    if (rng.chance(0.3)) rng.shuffle(fs); // the tag not first in the key order
    const o = this.object(this.fresh(rng.choice(OBJECT_WORDS)), fs);
    if (rng.chance(0.25)) o.meta = { title: o.name };
    return o;
  }

  // A union used as a field: a z.discriminatedUnion (sometimes with an optional or defaulted
  // tag), a z.union of tagged objects, or a z.union of plain objects; bare, in z.array, or behind
  // .nullable() / .optional() / .nullish().
  unionField(depth) {
    const rng = this.rng;
    const k = rng.choice([2, 2, 3]);
    const tag = rng.choice(TAG_NAMES);
    const vals = this.tagValues(k);
    const r = rng.random();
    let u;
    if (r < 0.5) {
      const hows = vals.map((v) => (v.length === 1 && rng.chance(0.12) ? rng.choice(['optional', 'default']) : 'required'));
      u = { k: 'union', members: vals.map((v, i) => this.branch(depth, [[tag, v, hows[i]]])), disc: tag };
    } else if (r < 0.72) {
      u = { k: 'union', members: vals.map((v) => this.branch(depth, [[tag, v]])), disc: null };
    } else {
      u = { k: 'union', members: Array.from({ length: k }, () => this.plainObject(depth, 1, 3)), disc: null };
    }
    this.maybeDescribe(u, 0.1);
    const w = rng.random();
    if (w < 0.4) return u;
    if (w < 0.6) return { k: 'arr', inner: u, ...(rng.chance(0.3) ? { min: 1 } : {}) };
    if (w < 0.8) return { k: 'wrap', how: 'nullable', inner: u };
    if (w < 0.93) return { k: 'wrap', how: 'optional', inner: u };
    return { k: 'wrap', how: 'nullish', inner: u };
  }

  nestedDu(depth, outerTag, ov) {
    const rng = this.rng;
    const innerTag = rng.choice([...TAG_NAMES, 'color', 'subtype'].filter((t) => t !== outerTag));
    const inner = this.tagValues(rng.choice([2, 2, 3]), true);
    // now and then one inner option leaves the outer or the inner tag .optional() / .default()
    // (Zod takes both; §2.9 rule 3 relaxed on a projected branch, decision 68)
    const loose = rng.chance(0.2) ? rng.int(0, inner.length - 1) : -1;
    const how = () => rng.choice(['optional', 'default']);
    const ms = inner.map((iv, i) => this.branch(depth, i === loose
      ? (rng.chance(0.5) ? [[outerTag, ov, how()], [innerTag, iv]] : [[outerTag, ov], [innerTag, iv, how()]])
      : [[outerTag, ov], [innerTag, iv]]));
    if (rng.chance(0.25)) {
      // three levels: the first inner option is itself a z.discriminatedUnion on a third key
      const third = rng.choice(['shade', 'grade']);
      ms[0] = { k: 'union', disc: third, members: this.tagValues(2, true).map((tv) => this.branch(depth + 1, [[outerTag, ov], [innerTag, inner[0]], [third, tv]])) };
    }
    return { k: 'union', members: ms, disc: innerTag };
  }

  root(form) {
    const rng = this.rng;
    const k = rng.choice([2, 2, 3, 3, 4]);
    const tag = rng.choice(TAG_NAMES);
    switch (form) {
      case 'du':
        return { k: 'union', members: this.tagValues(k).map((v) => this.branch(1, [[tag, v]])), disc: tag };
      case 'du-optional-tag': {
        // Zod's z.discriminatedUnion takes an .optional() or .default() tag; a value without
        // the tag is routed to the one option that admits undefined, and refused when two do.
        // z.union of the same objects takes it through whichever member matches first.
        const vals = this.tagValues(k).map((v) => v);
        const hows = vals.map(() => (rng.chance(0.5) ? rng.choice(['optional', 'default']) : 'required'));
        if (!hows.some((h) => h !== 'required')) hows[rng.int(0, k - 1)] = rng.choice(['optional', 'default']);
        const members = vals.map((v, i) => this.branch(1, [[tag, hows[i] === 'default' ? v.slice(0, 1) : v, hows[i]]]));
        return { k: 'union', members, disc: rng.chance(0.5) ? tag : null };
      }
      case 'nested-du': {
        // SPEC §2.9: a z.discriminatedUnion whose option is a z.discriminatedUnion on another key.
        const outer = this.tagValues(k, true);
        const nNested = k > 2 ? rng.choice([1, 1, 2]) : 1;
        const members = outer.map((ov, i) => (i < nNested ? this.nestedDu(2, tag, ov) : this.branch(1, [[tag, ov]])));
        rng.shuffle(members);
        return { k: 'union', members, disc: tag };
      }
      case 'union': {
        const members = Array.from({ length: k }, () => {
          const o = this.plainObject(1, 1, 4, true);
          if (rng.chance(0.3)) o.meta = { ...(o.meta ?? {}), title: o.name };
          return o;
        });
        if (rng.chance(0.2)) {
          // one member is itself a z.discriminatedUnion (on a key the others lack): the root has
          // no discriminator, and that member is read as the one object it becomes (decision 70)
          const inner = this.tagValues(2, true);
          members[rng.int(0, k - 1)] = { k: 'union', members: inner.map((v) => this.branch(2, [[tag, v]])), disc: tag };
        }
        return { k: 'union', members, disc: null };
      }
      case 'strict-vs-strip': {
        const vals = this.tagValues(k);
        const members = vals.map((v) => this.branch(1, [[tag, v]]));
        const modes = new Set(members.map((m) => m.mode));
        if (modes.size < 2) {
          members[0].mode = members[0].mode === 'strict' ? rng.choice(['strip', 'loose']) : 'strict';
          delete members[0].catchall;
        }
        return { k: 'union', members, disc: rng.chance(0.7) ? tag : null };
      }
      case 'fields': {
        const o = this.plainObject(1, 1, 3);
        const nUnions = rng.choice([1, 1, 2, 3]);
        const used = new Set(o.fields.map((f) => f.name));
        for (let i = 0; i < nUnions; i++) {
          const name = rng.choice(FIELD_NAMES.filter((n) => !used.has(n)));
          used.add(name);
          let t;
          if (rng.chance(0.15)) {
            const vals = this.tagValues(rng.choice([2, 3]), true);
            t = { k: 'union', members: vals.map((ov, j) => (j === 0 ? this.nestedDu(3, tag, ov) : this.branch(2, [[tag, ov]]))), disc: tag };
            const w = rng.random();
            if (w < 0.3) t = { k: 'arr', inner: t };
            else if (w < 0.5) t = { k: 'wrap', how: 'nullable', inner: t };
          } else {
            t = this.unionField(1);
          }
          o.fields.push({ name, type: t });
        }
        rng.shuffle(o.fields);
        return o;
      }
      case 'mixed': {
        let ms = this.tagValues(Math.max(2, k - 1)).map((v) => this.branch(1, [[tag, v]]));
        // sometimes the objects are a z.discriminatedUnion of their own: z.union([du, z.string()])
        if (rng.chance(0.3)) ms = [{ k: 'union', members: ms, disc: tag }];
        const other = rng.choice([{ k: 'str' }, { k: 'num', int: false }, { k: 'null' }, { k: 'arr', inner: { k: 'str' } }]);
        ms.splice(rng.int(0, ms.length), 0, other);
        if (ms.length < 2) ms.push({ k: 'bool' });
        return { k: 'union', members: ms, disc: null };
      }
      case 'recursive': {
        // A tree or an expression: z.discriminatedUnion (sometimes z.union) whose options hold
        // z.lazy(() => Tree) in a z.array, .optional() or .nullable(); at least one option holds
        // none, so every value ends. As the root (`$ref: "#"`) or as a field (`$defs/__schema0`).
        const vals = this.tagValues(k, true);
        const tree = { k: 'union', members: [], disc: rng.chance(0.8) ? tag : null, name: 'Tree' };
        tree.members = vals.map((v, i) => {
          const b = this.branch(1, [[tag, v]]);
          if (i > 0 && rng.chance(0.75)) {
            const selfField = rng.choice([
              () => ({ k: 'arr', inner: { k: 'self', target: tree }, ...(rng.chance(0.3) ? { max: 3 } : {}) }),
              () => ({ k: 'wrap', how: 'optional', inner: { k: 'self', target: tree } }),
              () => ({ k: 'wrap', how: 'nullable', inner: { k: 'self', target: tree } }),
            ])();
            const name = rng.choice(['children', 'next', 'left', 'operand', 'body'].filter((n) => !b.fields.some((f) => f.name === n)));
            b.fields.splice(rng.int(0, b.fields.length), 0, { name, type: selfField });
          }
          return b;
        });
        if (rng.chance(0.6)) return tree;
        const o = this.plainObject(1, 1, 3);
        const name = rng.choice(FIELD_NAMES.filter((n) => !o.fields.some((f) => f.name === n)));
        o.fields.push({ name, type: rng.chance(0.6) ? tree : { k: 'wrap', how: 'nullable', inner: tree } });
        return o;
      }
      default:
        throw new Error('unknown form ' + form);
    }
  }
}

// The rendering options: target (draft-2020-12 is Zod's default), io (input: what the MCP SDK and
// the AI SDK pass), and ids in the program's registry with `reused: "ref"` ($defs and $ref).
function drawVariant(rng) {
  const target = rng.chance(0.3) ? 'draft-7' : 'draft-2020-12';
  const io = rng.chance(0.2) ? 'output' : 'input';
  const refs = rng.chance(0.25);
  const options = {};
  if (target !== 'draft-2020-12') options.target = target;
  options.io = io;
  options.metadata = 'reg'; // the program's registry: titles, descriptions and (with refs) ids
  if (refs) options.reused = 'ref';
  const name = `${target} · io ${io}${refs ? ' · ids + reused: ref' : ''}`;
  return { target, io, refs, options, name };
}

// With `refs`, objects and named unions (and now and then the root union) get an `id` in the
// program's registry.
function assignIds(root, rng) {
  const objs = walkObjects(root);
  for (const o of objs) {
    if (rng.chance(0.6)) o.meta = { ...(o.meta ?? {}), id: o.name };
  }
  // a root union with an id: Zod writes the root as `{"$ref": "#/$defs/Root", "$defs": …}`
  if (root.k === 'union' && !root.name && rng.chance(0.25)) root.meta = { ...(root.meta ?? {}), id: 'Root' };
}

// Share one nested object between two branches now and then (the same Zod instance, like a
// `Point` used by `Circle` and `Polygon`): `reused: "ref"` turns it into a `$defs` entry.
function shareNested(root, rng) {
  if (root.k !== 'union' || !rng.chance(0.3)) return;
  const objs = root.members.filter((m) => m.k === 'obj');
  if (objs.length < 2) return;
  const [a, b] = rng.sample(objs, 2);
  const shared = a.fields.find((f) => f.type.k === 'obj');
  if (!shared || b.fields.some((f) => f.name === shared.name)) return;
  b.fields.push({ name: shared.name, type: shared.type });
}

// ---------------------------------------------------------------------------------------------
// Values.
// ---------------------------------------------------------------------------------------------

function codePoints(s) { return [...s].length; }

function holdsSelf(t) {
  return t.k === 'self' || (t.inner !== undefined && holdsSelf(t.inner));
}

function inBounds(spec, v) {
  if (spec.min !== undefined && !(v >= spec.min)) return false;
  if (spec.max !== undefined && !(v <= spec.max)) return false;
  if (spec.gt !== undefined && !(v > spec.gt)) return false;
  if (spec.lt !== undefined && !(v < spec.lt)) return false;
  if (spec.int && !Number.isInteger(v)) return false;
  return true;
}

function candidates(spec, pool) { return pool.filter((v) => inBounds(spec, v)); }

function midpoint(spec) {
  const lo = spec.min ?? spec.gt ?? 0;
  const hi = spec.max ?? spec.lt ?? lo + 10;
  const m = (lo + hi) / 2;
  return spec.int ? Math.ceil(m) : m;
}

function randomJson(rng, depth = 0) {
  const r = rng.random();
  if (depth < 1 && r < 0.15) return Array.from({ length: rng.int(0, 2) }, () => randomJson(rng, depth + 1));
  if (depth < 1 && r < 0.3) return Object.fromEntries(Array.from({ length: rng.int(0, 2) }, (_, i) => [`k${i}`, randomJson(rng, depth + 1)]));
  return rng.choice([null, true, 0, -3, 2.5, 'x', '']);
}

// Every leaf object under the root's unions, with the z.discriminatedUnion keys above it.
function leafPaths(spec, duTags = []) {
  if (spec.k === 'obj') return [[spec, duTags]];
  if (spec.k === 'union') return spec.members.flatMap((m) => leafPaths(m, spec.disc ? [...duTags, spec.disc] : duTags));
  return [];
}

// Draws a value down one path of branches: at every union, one member; for an object, only the
// keys it declares, plus sometimes a fresh key no object declares. Such a value is valid for the
// branch it was drawn from at every union site on its path, with keys that branch declares or no
// branch declares: what SPEC §4 promises under `declared` (§2.8).
//
// Sometimes a draw leaves its path on purpose (`off`): a fresh key on a z.strictObject (or on a
// z.object rendered with io "output", which closes it), a defaulted key left out under io
// "output" (which requires it). Zod or the schema rejects most of these; one both accept went
// through another branch, with keys that branch may not declare, which `declared` does not
// promise: such values are counted apart and never judged unsound (and so is a value drawn on
// its path that its own leaf object, checked alone, rejects: see makeProgram). A z.discriminatedUnion's
// optional tag left out (`duTagOmitted`) stays on its path: Zod may refuse it (two options admit
// no tag), which is Zod's choice, counted apart.
class Drawer {
  constructor(rng, variant, extraRate) {
    this.rng = rng;
    this.variant = variant;
    this.extraRate = extraRate;
  }

  draw(spec, duTags = []) {
    this.off = false;
    this.duTagOmitted = false;
    this.selfDepth = 0;
    const v = this.value(spec, duTags);
    return { value: v, off: this.off, duTagOmitted: this.duTagOmitted };
  }

  value(spec, duTags = []) {
    const rng = this.rng;
    switch (spec.k) {
      case 'str': {
        if (spec.fmt === 'email') return rng.choice(EMAILS);
        if (spec.fmt === 'uuid') return rng.choice(UUIDS);
        const c = STRINGS.filter((s) => (spec.min === undefined || codePoints(s) >= spec.min) && (spec.max === undefined || codePoints(s) <= spec.max) &&
          (spec.pattern === undefined || new RegExp(spec.pattern).test(s)));
        return c.length ? rng.choice(c) : 'x'.repeat(spec.min ?? 0);
      }
      case 'num': {
        const c = candidates(spec, spec.int ? INTS : NUMBERS);
        return c.length && rng.chance(0.85) ? rng.choice(c) : midpoint(spec);
      }
      case 'bool': return rng.chance(0.5);
      case 'null': return null;
      case 'lit':
      case 'enum': return rng.choice(spec.values);
      case 'wrap':
        if ((spec.how === 'nullable' || spec.how === 'nullish') && rng.chance(0.3)) return null;
        return this.value(spec.inner);
      case 'default': return this.value(spec.inner);
      case 'arr': {
        const lo = spec.min ?? 0;
        const hi = Math.min(spec.max ?? 3, 3);
        return Array.from({ length: rng.int(lo, Math.max(lo, hi)) }, () => this.value(spec.inner));
      }
      case 'tuple': return spec.items.map((m) => this.value(m));
      case 'record': return Object.fromEntries(Array.from({ length: rng.int(0, 2) }, (_, i) => [`r${i}`, this.value(spec.of)]));
      case 'obj': return this.object(spec, duTags);
      case 'self': {
        // z.lazy(() => Tree): two levels deep at most, then an option that holds no Tree.
        this.selfDepth = (this.selfDepth ?? 0) + 1;
        const ends = spec.target.members.filter((m) => !m.fields?.some((f) => holdsSelf(f.type)));
        const pool = this.selfDepth > 2 && ends.length ? ends : spec.target.members;
        const m = rng.choice(pool);
        const v = this.value(m, spec.target.disc ? [spec.target.disc] : []);
        this.selfDepth -= 1;
        return v;
      }
      case 'union': {
        const m = rng.choice(spec.members);
        return this.value(m, spec.disc ? [...duTags, spec.disc] : duTags);
      }
      default: throw new Error('unknown spec ' + spec.k);
    }
  }

  object(o, duTags) {
    const rng = this.rng;
    const out = {};
    for (const f of o.fields) {
      const t = f.type;
      const omittable = (t.k === 'wrap' && t.how !== 'nullable') || t.k === 'default';
      const deep = this.selfDepth > 2 && holdsSelf(t); // a tree ends here
      if (deep && t.k === 'arr') {
        out[f.name] = [];
        continue;
      }
      if (deep && t.k === 'wrap' && t.how === 'nullable') {
        out[f.name] = null;
        continue;
      }
      if (omittable && (deep || rng.chance(duTags.includes(f.name) ? 0.4 : 0.35))) {
        if (t.k === 'default' && this.variant.io === 'output') this.off = true; // io "output" requires it
        if (duTags.includes(f.name)) this.duTagOmitted = true;
        continue;
      }
      out[f.name] = this.value(t);
    }
    if (rng.chance(this.extraRate)) {
      if (o.mode === 'strict' || (o.mode === 'strip' && this.variant.io === 'output')) this.off = true;
      const extra = o.mode !== 'catchall' ? randomJson(rng) : o.catchall === 'string' ? rng.choice(STRINGS) : rng.choice(NUMBERS);
      out[`${EXTRA_PREFIX}${rng.int(0, 9)}`] = extra;
    }
    return out;
  }
}

// Deliberately invalid draws: a valid draw with one thing broken. Counted apart; never judged
// against flatjoin (the presentation may be looser than the original: SPEC §1 "Presentation").
function breakValue(rng, root, value) {
  const leafKeys = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const tag = root.k === 'union' ? root.disc ?? findTag(root) : null;
  const r = rng.random();
  if (r < 0.3 && tag && leafKeys.includes(tag)) return ['wrong tag', { ...value, [tag]: 'zz_no_such_tag' }];
  if (r < 0.6 && leafKeys.length) {
    const key = rng.choice(leafKeys);
    const v = value[key];
    const wrong = typeof v === 'string' ? 12345 : typeof v === 'number' ? 'not a number' : typeof v === 'boolean' ? 'true' : v === null ? 7 : Array.isArray(v) ? 'not an array' : 'not an object';
    return ['wrong type', { ...value, [key]: wrong }];
  }
  if (r < 0.9 && leafKeys.length) {
    const key = rng.choice(leafKeys);
    const copy = { ...value };
    delete copy[key];
    return ['key left out', copy];
  }
  return ['not an object', rng.choice(['text', 42, [], true])];
}

function findTag(u) {
  // a z.union of tagged objects: the first key that is a literal in every member
  const objs = u.members.filter((m) => m.k === 'obj');
  if (objs.length !== u.members.length || !objs.length) return null;
  for (const f of objs[0].fields) {
    if (objs.every((o) => o.fields.some((g) => g.name === f.name && (g.type.k === 'lit' || g.type.inner?.k === 'lit')))) return f.name;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The original's union sites, and what a presentation's root is.
// ---------------------------------------------------------------------------------------------

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_ONE = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'];

const esc = (k) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

// Every `oneOf`/`anyOf` node with at least two members, by JSON pointer, in positions JSON Schema
// (2020-12 or draft-07) reads as schemas (not inside `default`, `enum`, `const`, ...).
export function unionSites(schema, pointer = '', out = []) {
  if (!isObj(schema)) return out;
  for (const kw of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[kw]) && schema[kw].length >= 2) {
      out.push([pointer, kw]);
      break;
    }
  }
  for (const kw of SCHEMA_MAPS) {
    if (isObj(schema[kw])) for (const [k, v] of Object.entries(schema[kw])) unionSites(v, `${pointer}/${kw}/${esc(k)}`, out);
  }
  if (isObj(schema.dependencies)) {
    for (const [k, v] of Object.entries(schema.dependencies)) if (isObj(v)) unionSites(v, `${pointer}/dependencies/${esc(k)}`, out);
  }
  for (const kw of SCHEMA_LISTS) {
    if (Array.isArray(schema[kw])) schema[kw].forEach((v, i) => unionSites(v, `${pointer}/${kw}/${i}`, out));
  }
  if (Array.isArray(schema.items)) schema.items.forEach((v, i) => unionSites(v, `${pointer}/items/${i}`, out));
  else if (schema.items !== undefined) unionSites(schema.items, `${pointer}/items`, out);
  for (const kw of SCHEMA_ONE) if (schema[kw] !== undefined) unionSites(schema[kw], `${pointer}/${kw}`, out);
  return out;
}

export function atPointer(doc, pointer) {
  let node = doc;
  if (pointer === '') return node;
  for (let part of pointer.slice(1).split('/')) {
    part = part.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(part)] : node?.[part];
  }
  return node;
}

function resolveRef(doc, node) {
  for (let hops = 0; isObj(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#') && hops < 32; hops++) {
    node = atPointer(doc, decodeURIComponent(node.$ref.slice(1)));
  }
  return node;
}

function membersOf(node) {
  for (const kw of ['oneOf', 'anyOf']) if (Array.isArray(node?.[kw]) && node[kw].length >= 2) return node[kw];
  return null;
}

// A union whose members are all object schemas, nested unions of objects opened (§2.9).
export function isObjectUnion(doc, node, depth = 0) {
  node = resolveRef(doc, node);
  const ms = isObj(node) ? membersOf(node) : null;
  if (!ms || depth > 8) return false;
  for (let m of ms) {
    m = resolveRef(doc, m);
    if (!isObj(m)) return false;
    if (membersOf(m)) {
      if (!isObjectUnion(doc, m, depth + 1)) return false;
    } else if (m.type !== 'object') {
      return false;
    }
  }
  return true;
}

function kindsOf(doc, node, depth = 0) {
  node = resolveRef(doc, node);
  if (!isObj(node) || depth > 8) return new Set(['?']);
  const ms = membersOf(node);
  if (ms) {
    const out = new Set();
    for (const m of ms) for (const k of kindsOf(doc, m, depth + 1)) out.add(k);
    return out;
  }
  if (typeof node.type === 'string') return new Set([node.type]);
  if (Array.isArray(node.type)) return new Set(node.type);
  if ('const' in node || Array.isArray(node.enum)) {
    const vals = 'const' in node ? [node.const] : node.enum;
    return new Set(vals.map((v) => (v === null ? 'null' : typeof v === 'object' ? 'object' : 'scalar')));
  }
  return new Set(['?']);
}

const SCALARS = new Set(['string', 'integer', 'number', 'boolean', 'null', 'scalar']);

// A coarse shape of a union site, for the report's breakdown of unnamed sites.
export function siteShape(doc, pointer) {
  const node = atPointer(doc, pointer);
  const ms = membersOf(node);
  const kinds = ms.map((m) => kindsOf(doc, m));
  const isNull = kinds.map((k) => k.size === 1 && k.has('null'));
  const nNull = isNull.filter(Boolean).length;
  if (isObjectUnion(doc, node)) return 'objects';
  if (nNull && ms.length - nNull === 1) {
    const rest = kinds[isNull.indexOf(false)];
    if ([...rest].every((k) => k === 'object')) return 'nullable object';
    if (['object', 'array', '?'].some((k) => rest.has(k))) return 'nullable array/other';
    return 'nullable scalar';
  }
  if (kinds.every((k) => k.size && [...k].every((x) => SCALARS.has(x)))) return 'scalars';
  return 'mixed kinds';
}

// The pointer of the root's target when the root is a local `$ref` (one hop, as Zod writes it).
export function rootPointer(schema) {
  if (isObj(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) return decodeURIComponent(schema.$ref.slice(1));
  return '';
}

export function rootIsOneObject(p) {
  return isObj(p) && p.type === 'object' && p.oneOf === undefined && p.anyOf === undefined;
}

// The diagnostics' stable `code` (SPEC §6 decision 70's closed list), else the reason with
// branch indices folded (`branch 2` and `branch 0` are one reason).
export function skipKey(entry) {
  if (entry.code) return String(entry.code);
  return String(entry.reason ?? '?').replace(/\b(branch|branches|member|members|item|items|position) \d+/g, '$1 N');
}

// ---------------------------------------------------------------------------------------------
// Validators (ajv: independent of flatjoin's code).
// ---------------------------------------------------------------------------------------------

function isDraft7(schema) {
  return isObj(schema) && typeof schema.$schema === 'string' && /draft-0[467]/.test(schema.$schema);
}

export function compile(schema, fallbackDraft7 = false) {
  const draft7 = isObj(schema) && schema.$schema !== undefined ? isDraft7(schema) : fallbackDraft7;
  const Ajv = draft7 ? Ajv07 : Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

function firstError(check) {
  const e = check.errors?.[0];
  return e ? `${e.message} at ${e.instancePath || '/'} (${e.schemaPath})` : 'rejected';
}

// ---------------------------------------------------------------------------------------------
// One program.
// ---------------------------------------------------------------------------------------------

export function makeProgram(seed, index, valuesPerLeaf = 3) {
  const rng = new Rng(`zod-world:${seed}:${index}`);
  const form = rng.choice(FORMS);
  const p = {
    seed, index, form, ref: `${seed}:${index}`,
    values: [], // kept values, each drawn down one path of branches
    zodRejected: 0, // on its path, yet rejected by Zod (expected: 0)
    zodRejectedValues: [],
    duTagRefused: 0, // a z.discriminatedUnion's optional tag left out, refused by Zod
    duTagKept: 0, // ... and accepted by Zod and the original (kept, judged)
    notPromised: [], // [value, why]: accepted by Zod and the original, not promised (off its path, or only through another branch)
    offRejected: 0, // off its path, rejected by Zod
    mismatches: [], // Zod accepts, the original rejects
    invalid: [], // deliberately invalid draws: [what, value, zodAccepts, originalAccepts]
  };
  const g = new Gen(rng, form);
  p.root = g.root(form);
  if (p.root.k === 'union' && rng.chance(0.1)) p.root.meta = { ...(p.root.meta ?? {}), description: 'The arguments.' };
  p.variant = drawVariant(rng);
  if (p.variant.refs) {
    assignIds(p.root, rng);
    shareNested(p.root, rng);
  }
  p.source = programSource(p.root, p.variant);
  let Root, ctx, opts;
  try {
    ctx = { memo: new Map(), registry: z.registry() };
    Root = buildZod(p.root, ctx);
    opts = { ...p.variant.options, metadata: ctx.registry };
    p.schema = z.toJSONSchema(Root, opts);
  } catch (e) {
    p.buildError = `Zod: ${e.message.split('\n')[0]}`;
    return p;
  }
  let original;
  try {
    original = compile(p.schema);
  } catch (e) {
    p.buildError = `original not compilable by ajv: ${e.message.split('\n')[0]}`;
    return p;
  }
  const drawer = new Drawer(rng, p.variant, form === 'strict-vs-strip' ? 0.3 : 0.15);
  const draws = [];
  const leaves = leafPaths(p.root);
  const perLeaf = p.root.k === 'obj' ? valuesPerLeaf * 3 : valuesPerLeaf; // an object root is one leaf
  for (const [leaf, tags] of leaves) {
    for (let i = 0; i < perLeaf; i++) draws.push({ ...drawer.draw(leaf, tags), leaf });
  }
  if (p.root.k === 'union') { // the `mixed` form's non-object members
    for (const m of p.root.members) if (m.k !== 'obj' && m.k !== 'union') for (let i = 0; i < 2; i++) draws.push({ ...drawer.draw(m), leaf: m });
  }
  // The leaf the value was drawn from, alone: its Zod schema and its rendering with the same
  // options. A value Root and the original accept but its own leaf rejects went through another
  // branch, whose open object may take keys it does not declare: not promised under `declared`.
  const leafChecks = new Map();
  const leafCheck = (leaf) => {
    if (!leafChecks.has(leaf)) {
      const zl = ctx.memo.get(leaf) ?? buildZod(leaf, ctx);
      leafChecks.set(leaf, { zod: zl, schema: compile(z.toJSONSchema(zl, opts)) });
    }
    return leafChecks.get(leaf);
  };
  const seen = new Set();
  for (const d of draws) {
    const text = JSON.stringify(d.value);
    if (seen.has(text)) continue;
    seen.add(text);
    const parsed = Root.safeParse(d.value);
    if (!parsed.success) {
      if (d.off) p.offRejected += 1;
      else if (d.duTagOmitted) p.duTagRefused += 1;
      else {
        p.zodRejected += 1;
        p.zodRejectedValues.push([d.value, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')]);
      }
      continue;
    }
    if (!original(d.value)) {
      // Zod takes it, its own rendering does not: a Zod/schema mismatch, never flatjoin's (with
      // io "output" expected for a fresh key on a z.object and a defaulted key left out).
      p.mismatches.push(d.value);
      continue;
    }
    if (d.off) {
      p.notPromised.push([d.value, 'off its path']);
      continue;
    }
    const lc = leafCheck(d.leaf);
    if (!lc.zod.safeParse(d.value).success || !lc.schema(d.value)) {
      p.notPromised.push([d.value, 'only through another branch']);
      continue;
    }
    if (d.duTagOmitted) p.duTagKept += 1;
    p.values.push(d.value);
  }
  // Deliberately invalid draws, counted apart.
  for (let i = 0; i < 3 && p.values.length; i++) {
    const [what, v] = breakValue(rng, p.root, rng.choice(p.values));
    p.invalid.push([what, v, Root.safeParse(v).success, original(v)]);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// The flatjoin CLI.
// ---------------------------------------------------------------------------------------------

export function defaultFlatjoin() {
  return process.env.FLATJOIN_BIN || join(ROOT, 'target', 'release', 'flatjoin');
}

let scratch = null;
function scratchDir() {
  if (!scratch) {
    scratch = mkdtempSync(join(tmpdir(), 'zod-world-'));
    process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
  }
  return scratch;
}

// `flatjoin flatten --diagnostics`: {presentation, diagnostics} or {error}.
export function flattenOne(flatjoin, schema, openBranches = 'declared') {
  const diag = join(scratchDir(), 'diag.json');
  rmSync(diag, { force: true });
  const run = spawnSync(flatjoin, ['flatten', '--open-branches', openBranches, '--diagnostics', diag, '-'], { input: JSON.stringify(schema), encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.error) return { error: `spawn: ${run.error.message}` };
  if (run.status !== 0) return { error: `exit ${run.status}: ${run.stderr.trim()}` };
  return { presentation: JSON.parse(run.stdout), diagnostics: JSON.parse(readFileSync(diag, 'utf8')) };
}

// Many schemas in one process (`--batch`): `flatjoin manifest --diagnostics` over a tools/list
// result with one tool per program; the manifest surface calls the same projection as `flatten`
// (SPEC §4, I8) and names the tool first in each diagnostics entry. Falls back to one process per
// program when the batch fails.
export function flattenBatch(flatjoin, schemas, openBranches = 'declared') {
  const names = Object.keys(schemas);
  if (!names.length) return {};
  const dir = scratchDir();
  const src = join(dir, 'tools.json');
  const diag = join(dir, 'manifest-diag.json');
  writeFileSync(src, JSON.stringify({ tools: names.map((name) => ({ name, inputSchema: schemas[name] })) }));
  rmSync(diag, { force: true });
  const run = spawnSync(flatjoin, ['manifest', '--open-branches', openBranches, '--diagnostics', diag, src], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (!run.error && run.status === 0) {
    const out = JSON.parse(run.stdout);
    const diagnostics = JSON.parse(readFileSync(diag, 'utf8'));
    const result = {};
    for (const tool of out.tools) result[tool.name] = { presentation: tool.inputSchema, diagnostics: { flattened: [], skipped: [] } };
    for (const part of ['flattened', 'skipped']) {
      for (const entry of diagnostics[part] ?? []) {
        const { tool, ...rest } = entry;
        if (result[tool]) result[tool].diagnostics[part].push(rest);
      }
    }
    if (names.every((n) => result[n])) return result;
  }
  return Object.fromEntries(names.map((n) => [n, flattenOne(flatjoin, schemas[n], openBranches)]));
}

// ---------------------------------------------------------------------------------------------
// Judging and counting.
// ---------------------------------------------------------------------------------------------

export const FIRST_FEW = 5;

export function newStats() {
  return {
    programs: 0, notBuilt: 0, flatjoinErrors: 0, rootUnions: 0, objectRootUnions: 0, objectRootsOneObject: 0,
    rootsOneObject: 0, objectRootsBehindRef: 0, objectRootsBehindRefOneObject: 0, rootsBehindRef: 0, rootsBehindRefOneObject: 0, rootsBehindRefKept: 0, nestedSites: 0, sites: 0, flattened: 0, flattenedRoot: 0, flattenedNested: 0, skipped: 0,
    unnamed: 0, unknownPointers: 0, valuesKept: 0, zodRejected: 0, duTagRefused: 0, duTagKept: 0, offRejected: 0,
    notPromisedOff: 0, notPromisedOther: 0, notPromisedPresentationRejected: 0, unsound: 0, mismatches: 0, invalidPresentations: 0,
    invalidDrawn: 0, invalidZodAccepted: 0, invalidSchemaAccepted: 0, invalidDisagree: 0, invalidPresentationAccepted: 0,
    skipReasons: new Map(), unnamedShapes: new Map(), unsoundCases: [], rootsLeft: [], objectRootsLeft: [], mismatchCases: [], offCases: [],
    unnamedCases: [], errors: [], disagreeCases: [], zodRejectedCases: [],
  };
}

const bump = (m, k, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

function count(statsList, attr, n = 1) { for (const s of statsList) s[attr] += n; }

function note(statsList, list, item) { for (const s of statsList) if (s[list].length < FIRST_FEW) s[list].push(item); }

// `openBranches` is the reading flatjoin was asked for (SPEC §2.8): under `permissive` every value
// the original accepts is promised, so the values `declared` does not promise are judged too.
export function judge(p, flat, statsList, record, openBranches = 'declared') {
  const ref = p.ref;
  if (flat.error) {
    count(statsList, 'flatjoinErrors');
    note(statsList, 'errors', [ref, flat.error]);
    record.error = flat.error;
    return;
  }
  const pres = flat.presentation;
  const diag = flat.diagnostics;
  const sites = unionSites(p.schema);
  const sitePtrs = sites.map(([ptr]) => ptr);
  const flattened = new Set((diag.flattened ?? []).map((e) => e.pointer));
  const skipped = new Map();
  for (const e of diag.skipped ?? []) if (!skipped.has(e.pointer)) skipped.set(e.pointer, e);
  // The root, through a root `$ref` (Zod writes `{"$ref": "#/$defs/Tree", "$defs": …}` when the
  // root schema has an id): judged at its target, in the original and in the presentation. SPEC
  // §6 decision 23 leaves replacing a root `$ref` by its target to the profiles' lowering, so the
  // presentation may keep it; such roots are counted apart as well.
  const rootPtr = rootPointer(p.schema);
  const rootUnion = sitePtrs.includes(rootPtr);
  const objectRoot = rootUnion && isObjectUnion(p.schema, atPointer(p.schema, rootPtr));
  const one = rootIsOneObject(resolveRef(pres, pres));
  if (rootUnion) {
    count(statsList, 'rootUnions');
    if (rootPtr !== '') {
      count(statsList, 'rootsBehindRef');
      if (one) count(statsList, 'rootsBehindRefOneObject');
      if (isObj(pres) && pres.$ref !== undefined) count(statsList, 'rootsBehindRefKept');
    }
    if (one) count(statsList, 'rootsOneObject');
    if (objectRoot) {
      count(statsList, 'objectRootUnions');
      if (one) count(statsList, 'objectRootsOneObject');
      if (rootPtr !== '') {
        count(statsList, 'objectRootsBehindRef');
        if (one) count(statsList, 'objectRootsBehindRefOneObject');
      }
    }
    if (!one) {
      const e = skipped.get(rootPtr);
      const why = (rootPtr ? `(root behind $ref ${rootPtr}) ` : '') +
        (e ? skipKey(e) : flattened.has(rootPtr) ? 'flattened, yet not one object' : 'not named in the diagnostics');
      note(statsList, 'rootsLeft', [ref, why]);
      if (objectRoot) note(statsList, 'objectRootsLeft', [ref, why]);
    }
  }
  Object.assign(record, { rootUnion, objectRoot, rootOneObject: one, unnamed: [] });
  for (const ptr of sitePtrs) {
    const atRoot = ptr === rootPtr;
    const where = atRoot ? 'root' : 'nested';
    count(statsList, 'sites');
    if (!atRoot) count(statsList, 'nestedSites');
    if (flattened.has(ptr)) {
      count(statsList, 'flattened');
      count(statsList, atRoot ? 'flattenedRoot' : 'flattenedNested');
    } else if (skipped.has(ptr)) {
      count(statsList, 'skipped');
      for (const s of statsList) bump(s.skipReasons, `${where}\t${skipKey(skipped.get(ptr))}`);
    } else {
      count(statsList, 'unnamed');
      const shape = siteShape(p.schema, ptr);
      for (const s of statsList) bump(s.unnamedShapes, `${where}\t${shape}`);
      record.unnamed.push(ptr);
      note(statsList, 'unnamedCases', [ref, ptr || '(root)', shape]);
    }
  }
  const known = new Set(sitePtrs);
  count(statsList, 'unknownPointers', [...flattened, ...skipped.keys()].filter((x) => !known.has(x)).length);
  let check;
  try {
    check = compile(pres, isDraft7(p.schema));
  } catch (e) {
    count(statsList, 'invalidPresentations');
    note(statsList, 'errors', [ref, `presentation not a valid schema: ${e.message.split('\n')[0]}`]);
    record.error = 'invalid presentation';
    return;
  }
  const unsound = [];
  const judged = openBranches === 'permissive' ? [...p.values, ...p.notPromised.map(([v]) => v)] : p.values;
  for (const v of judged) {
    if (!check(v)) {
      unsound.push(v);
      note(statsList, 'unsoundCases', [ref, JSON.stringify(v), firstError(check)]);
    }
  }
  count(statsList, 'unsound', unsound.length);
  record.unsound = unsound;
  // Values not promised under `declared` (see Drawer and makeProgram), counted for information only.
  for (const [v, why] of openBranches === 'permissive' ? [] : p.notPromised) {
    if (!check(v)) {
      count(statsList, 'notPromisedPresentationRejected');
      note(statsList, 'offCases', [ref, JSON.stringify(v), why]);
    }
  }
  // Deliberately invalid draws: the presentation may accept them (it may be looser).
  for (const [, v] of p.invalid) if (check(v)) count(statsList, 'invalidPresentationAccepted');
}

export function parseSeeds(text) {
  const out = [];
  for (const part of String(text).split(',')) {
    const t = part.trim();
    if (t.includes('..')) {
      const [a, b] = t.split('..').map(Number);
      for (let i = a; i <= b; i++) out.push(i);
    } else if (t) {
      out.push(Number(t));
    }
  }
  return out;
}

export function runWorld(seeds, programs, flatjoin, { batch = false, progress = null, openBranches = 'declared' } = {}) {
  const perForm = new Map(FORMS.map((f) => [f, newStats()]));
  const perVariant = new Map();
  const results = { seeds: [...seeds], programs, flatjoin, openBranches, perForm, perVariant, outcomes: new Map() };
  for (const seed of seeds) {
    const progs = [];
    for (let index = 0; index < programs; index++) {
      const p = makeProgram(seed, index);
      progs.push(p);
      if (!perVariant.has(p.variant.name)) perVariant.set(p.variant.name, newStats());
      const st = [perForm.get(p.form), perVariant.get(p.variant.name)];
      count(st, 'programs');
      if (p.buildError) {
        count(st, 'notBuilt');
        note(st, 'errors', [p.ref, p.buildError]);
        continue;
      }
      count(st, 'valuesKept', p.values.length);
      count(st, 'zodRejected', p.zodRejected);
      for (const [v, why] of p.zodRejectedValues) note(st, 'zodRejectedCases', [p.ref, JSON.stringify(v), why]);
      count(st, 'duTagRefused', p.duTagRefused);
      count(st, 'duTagKept', p.duTagKept);
      count(st, 'offRejected', p.offRejected);
      count(st, 'notPromisedOff', p.notPromised.filter(([, why]) => why === 'off its path').length);
      count(st, 'notPromisedOther', p.notPromised.filter(([, why]) => why !== 'off its path').length);
      count(st, 'mismatches', p.mismatches.length);
      for (const v of p.mismatches) note(st, 'mismatchCases', [p.ref, JSON.stringify(v)]);
      for (const [what, v, zodOk, schemaOk] of p.invalid) {
        count(st, 'invalidDrawn');
        if (zodOk) count(st, 'invalidZodAccepted');
        if (schemaOk) count(st, 'invalidSchemaAccepted');
        if (zodOk !== schemaOk) {
          count(st, 'invalidDisagree');
          note(st, 'disagreeCases', [p.ref, what, JSON.stringify(v), zodOk ? 'Zod accepts, the original rejects' : 'the original accepts, Zod rejects']);
        }
      }
    }
    const built = progs.filter((p) => !p.buildError);
    const schemas = Object.fromEntries(built.map((p) => [`p${p.index}`, p.schema]));
    const flats = batch ? flattenBatch(flatjoin, schemas, openBranches)
      : Object.fromEntries(built.map((p) => [`p${p.index}`, flattenOne(flatjoin, p.schema, openBranches)]));
    for (const p of built) {
      const record = { form: p.form, variant: p.variant.name, kept: p.values.length };
      judge(p, flats[`p${p.index}`], [perForm.get(p.form), perVariant.get(p.variant.name)], record, openBranches);
      results.outcomes.set(p.ref, record);
    }
    if (progress) progress(`seed ${seed}: ${programs} programs`);
  }
  return results;
}

export function total(results, attr) {
  let n = 0;
  for (const s of results.perForm.values()) n += s[attr];
  return n;
}

// ---------------------------------------------------------------------------------------------
// The report.
// ---------------------------------------------------------------------------------------------

const pct = (a, b) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`);
const md = (t) => String(t).replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function flatjoinVersion(flatjoin) {
  const run = spawnSync(flatjoin, ['--version'], { encoding: 'utf8' });
  return (run.stdout || run.stderr || `unknown (${run.error?.message})`).trim();
}

function binaryNote(flatjoin) {
  try {
    const st = statSync(flatjoin);
    return `, built ${st.mtime.toISOString().replace(/\.\d+Z$/, 'Z')}`;
  } catch {
    return '';
  }
}

function statsRow(name, s) {
  return `| ${name} | ${s.programs} | ${s.rootUnions} | ${s.rootsOneObject} (${pct(s.rootsOneObject, s.rootUnions)}) | ` +
    `${s.objectRootsOneObject} / ${s.objectRootUnions} (${pct(s.objectRootsOneObject, s.objectRootUnions)}) | ${s.nestedSites} | ` +
    `${s.flattened} (${s.flattenedRoot} + ${s.flattenedNested}) | ${s.skipped} | ${s.unnamed} | ${s.valuesKept} | ${s.unsound} | ${s.mismatches} |`;
}

function sumStats(list) {
  const t = newStats();
  for (const s of list) for (const [k, v] of Object.entries(s)) if (typeof v === 'number') t[k] += v;
  return t;
}

function breakdown(L, maps, names, pick) {
  const keys = [...new Set(maps.flatMap((s) => [...pick(s).keys()]))].sort((a, b) => {
    const [wa, ka] = a.split('\t');
    const [wb, kb] = b.split('\t');
    return (wa !== 'root') - (wb !== 'root') || ka.localeCompare(kb);
  });
  if (!keys.length) {
    L.push('None.');
    return false;
  }
  L.push(`| where | reason | ${names.map((f) => `\`${f}\``).join(' | ')} |`);
  L.push(`| --- | --- | ${names.map(() => '---:').join(' | ')} |`);
  for (const k of keys) {
    const [where, what] = k.split('\t');
    L.push(`| ${where} | ${md(what)} | ${maps.map((s) => pick(s).get(k) ?? 0).join(' | ')} |`);
  }
  return true;
}

export function renderReport(results, command) {
  const pf = results.perForm;
  const forms = [...pf.keys()];
  const stats = [...pf.values()];
  const T = sumStats(stats);
  const L = [];
  L.push(`Made by \`${command}\` with Zod ${ZOD_VERSION}, ajv ${AJV_VERSION} (ajv-formats ${AJV_FORMATS_VERSION}), Node.js ${process.version}.`);
  L.push('');
  L.push('# The Zod program world');
  L.push('');
  L.push(`flatjoin binary: \`${results.flatjoin}\` (\`${flatjoinVersion(results.flatjoin)}\`${binaryNote(results.flatjoin)}). ` +
    `Seeds ${results.seeds.join(',')}, ${results.programs} programs each (${results.programs * results.seeds.length} in all), ` +
    `\`--open-branches ${results.openBranches}\`. ` +
    'The world: `harness/worlds/zod/world.mjs` (SPEC §2.9, §4); replay one program with ' +
    '`node harness/worlds/zod/world.mjs --replay SEED:INDEX`.');
  L.push('');
  L.push('Each program is a random Zod schema; the original is `z.toJSONSchema(Root, options)`, the options drawn per program ' +
    '(the variants below). Values are drawn down one path of branches (at each union one member; for each object only the ' +
    `keys it declares, sometimes a fresh \`${EXTRA_PREFIX}…\` key no object declares) and kept when \`Root.safeParse(v).success\` ` +
    'and the original accepts them (ajv, draft by `$schema`, with ajv-formats). **Unsound** = a kept value the presentation ' +
    'rejects. A root is **one object** when the presentation has `"type": "object"` and no root `oneOf`/`anyOf`. A **union ' +
    'site** is every `oneOf`/`anyOf` with at least two members in a schema position of the original (nullable wrappers and ' +
    'unions of scalars included); **unnamed** = neither in the diagnostics\' `flattened` nor in `skipped`.');
  L.push('');
  L.push('## Per form');
  L.push('');
  const head = '| %s | programs | root unions | roots → one object | object-branch root unions → one object | nested union sites ' +
    '| sites flattened (root + nested) | skipped | unnamed | values kept | unsound | Zod/schema mismatches |';
  L.push(head.replace('%s', 'form'));
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const f of forms) L.push(statsRow(`\`${f}\``, pf.get(f)));
  L.push(statsRow('**all**', T));
  L.push('');
  L.push('## Per variant (the `z.toJSONSchema` options)');
  L.push('');
  L.push(head.replace('%s', 'variant'));
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const variants = [...results.perVariant.keys()].sort();
  for (const v of variants) L.push(statsRow(md(v), results.perVariant.get(v)));
  L.push('');
  L.push(`Union sites in all: ${T.sites} (${T.sites - T.nestedSites} roots, ${T.nestedSites} nested). Programs Zod refused to ` +
    `build or render: ${T.notBuilt}; programs flatjoin refused: ${T.flatjoinErrors}; presentations that are no valid schema: ` +
    `${T.invalidPresentations}; diagnostics pointers that name no union site of the original: ${T.unknownPointers}; values ` +
    `drawn down one path of branches that Zod rejected (expected 0): ${T.zodRejected}${T.zodRejected ? ':' : '.'}`);
  for (const f of forms) for (const [ref, v, why] of pf.get(f).zodRejectedCases) L.push(`- \`${ref}\` (\`${f}\`): \`${md(v)}\` — ${md(why)}`);
  L.push('');
  L.push(`Root unions behind a root \`$ref\` (the root schema has an id: \`z.union([...]).meta({ id })\`): ${T.rootsBehindRef}, ` +
    `judged at the target (counted in the tables above); ${T.objectRootsBehindRef} of them have only object branches, and ` +
    `${T.objectRootsBehindRefOneObject} of those became one object there; the presentation keeps the root \`$ref\` in ` +
    `${T.rootsBehindRefKept} (SPEC §6 decision 23 leaves replacing a root \`$ref\` by its target to the profiles' lowering). ` +
    `Object-branch root unions left as unions: ${T.objectRootUnions - T.objectRootsOneObject - (T.objectRootsBehindRef - T.objectRootsBehindRefOneObject)} ` +
    `inline, ${T.objectRootsBehindRef - T.objectRootsBehindRefOneObject} behind a root \`$ref\`.`);
  L.push('');
  L.push(`A z.discriminatedUnion's optional or defaulted tag left out: Zod refused ${T.duTagRefused} such values (it routes a ` +
    'missing tag to the one option that admits it, and refuses it when two options do), and accepted ' +
    `${T.duTagKept}, which were kept and judged like every other value.`);
  L.push('');
  L.push(`Values not promised under the \`declared\` reading (SPEC §2.8, §4), so never judged: drawn off their path on ` +
    'purpose (a fresh key on a z.strictObject, or on a z.object rendered with io "output"; a defaulted key left out under io ' +
    `"output") and accepted by Zod and the original anyway: ${T.notPromisedOff}; drawn on their path, accepted by Zod and the ` +
    `original, yet rejected by their own leaf object alone (Zod or its rendering), so taken only through another branch whose ` +
    `open object takes keys it does not declare: ${T.notPromisedOther}. Off-path draws rejected by Zod: ` +
    `${T.offRejected}. The presentation rejects ${T.notPromisedPresentationRejected} of the values not promised` +
    `${T.notPromisedPresentationRejected ? ' (first few):' : '.'}`);
  for (const f of forms) for (const [ref, v, why] of pf.get(f).offCases) L.push(`- \`${ref}\` (\`${f}\`, ${why}): \`${md(v)}\``);
  L.push('');
  L.push(`Deliberately invalid draws (a kept value with a wrong tag, a wrong type, a key left out, or no object at all): ` +
    `${T.invalidDrawn}; Zod accepted ${T.invalidZodAccepted} (the break missed: an optional key, another member of a union), ` +
    `the original accepted ${T.invalidSchemaAccepted}; Zod and the original disagree on ${T.invalidDisagree}; the presentation ` +
    `accepts ${T.invalidPresentationAccepted} (allowed: the presentation may be looser than the original, SPEC §1).`);
  for (const f of forms) for (const [ref, what, v, why] of pf.get(f).disagreeCases.slice(0, 2)) L.push(`- \`${ref}\` (\`${f}\`, ${what}): \`${md(v)}\` — ${why}`);
  L.push('');
  const left = T.objectRootUnions - T.objectRootsOneObject;
  L.push('SPEC §2.9 / §4 promises judged here: 0 unsound; every object-branch root union one object; 0 unnamed. ' +
    `Status of this run: unsound ${T.unsound}, object-branch roots left as unions ${left}, unnamed ${T.unnamed}.`);
  L.push('');
  L.push('## Skipped union sites by reason');
  L.push('');
  L.push('The diagnostics\' `code` (SPEC §6 decision 70) where present, else the `reason` with branch indices folded to `N`.');
  L.push('');
  breakdown(L, stats, forms, (s) => s.skipReasons);
  L.push('');
  L.push('## Unnamed union sites by shape');
  L.push('');
  if (breakdown(L, stats, forms, (s) => s.unnamedShapes)) {
    L.push('');
    L.push('First unnamed sites per form (seed:index, pointer, shape):');
    L.push('');
    for (const f of forms) {
      const c = pf.get(f).unnamedCases;
      if (c.length) L.push(`- \`${f}\`: ${c.map(([r, p, s]) => `\`${r}\` \`${p}\` (${s})`).join('; ')}`);
    }
  }
  L.push('');
  L.push('## Unsound values');
  L.push('');
  if (T.unsound) {
    for (const f of forms) for (const [ref, v, why] of pf.get(f).unsoundCases) L.push(`- \`${ref}\` (\`${f}\`): \`${md(v)}\` — ${md(why)}`);
  } else {
    L.push('None: every kept value is accepted by its presentation.');
  }
  L.push('');
  L.push(`## Roots left as unions (first ${FIRST_FEW} per form, with the diagnostics' skip reason)`);
  L.push('');
  let anyLeft = false;
  for (const f of forms) {
    const c = pf.get(f).rootsLeft;
    if (c.length) {
      anyLeft = true;
      L.push(`- \`${f}\`${OBJECT_ROOT_FORMS.has(f) ? '' : ' (a root with a non-object branch: expected)'}:`);
      for (const [ref, why] of c) L.push(`  - \`${ref}\`: ${md(why)}`);
    }
  }
  if (!anyLeft) L.push('None.');
  const behindLeft = T.objectRootsBehindRef - T.objectRootsBehindRefOneObject;
  if (behindLeft) {
    L.push('');
    L.push(`The ${behindLeft} object-branch root unions left as unions all sit behind a root \`$ref\`: Zod writes ` +
      '`{"$ref": "#/$defs/Root", "$defs": {"Root": {"anyOf": [...]}}}` when the root schema has an id. The join reads a ' +
      'union of objects without a discriminator only at the root of the document (SPEC §6 decision 70), and a root `$ref` ' +
      'is its target only in the profiles\' lowering (decision 23), so the target is judged a nested union and kept ' +
      '(`no-discriminator`); the same union written inline at the root becomes one object. A root `$ref` to a ' +
      'discriminated union is flattened at its target (a nested DU), so it resolves to one object. Smallest case: ' +
      '`z.toJSONSchema(z.union([z.object({ query: z.string() }), z.object({ id: z.number() })]).meta({ id: "SearchArgs" }))`.');
  }
  L.push('');
  L.push('## Zod/schema mismatches');
  L.push('');
  L.push('Values that `safeParse` accepts and the original rejects (not flatjoin failures; never judged), per form: ' +
    forms.map((f) => `\`${f}\` ${pf.get(f).mismatches}`).join(', ') + '; per variant: ' +
    variants.map((v) => `${v} ${results.perVariant.get(v).mismatches}`).join(', ') + '. With io "output" Zod renders a ' +
    'z.object closed (`additionalProperties: false`) and a `.default()` key required, describing what `parse` returns, ' +
    'not what it takes: a fresh key on a z.object or a defaulted key left out is such a mismatch. First two per form:');
  L.push('');
  const cases = forms.flatMap((f) => pf.get(f).mismatchCases.slice(0, 2).map((c) => [f, c]));
  if (cases.length) for (const [f, [ref, v]] of cases) L.push(`- \`${ref}\` (\`${f}\`): \`${md(v)}\``);
  else L.push('None.');
  L.push('');
  const errs = forms.flatMap((f) => pf.get(f).errors.map((e) => [f, e]));
  if (errs.length) {
    L.push('## Errors');
    L.push('');
    for (const [f, [ref, e]] of errs) L.push(`- \`${ref}\` (\`${f}\`): ${md(e)}`);
    L.push('');
  }
  return L.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Replay.
// ---------------------------------------------------------------------------------------------

export function replay(ref, flatjoin, openBranches = 'declared') {
  const [seed, index] = ref.split(':').map(Number);
  const p = makeProgram(seed, index);
  const out = [];
  out.push(`// program ${ref}, form ${p.form}, variant ${p.variant.name}`);
  out.push(p.source);
  if (p.buildError) {
    out.push(`// Zod refused it: ${p.buildError}`);
    console.log(out.join('\n'));
    return 1;
  }
  out.push('\n// schema');
  out.push(JSON.stringify(p.schema, null, 2));
  const flat = flattenOne(flatjoin, p.schema, openBranches);
  if (flat.error) {
    out.push(`\n// flatjoin: ${flat.error}`);
    console.log(out.join('\n'));
    return 1;
  }
  out.push(`\n// presentation (${flatjoin} flatten)`);
  out.push(JSON.stringify(flat.presentation, null, 2));
  out.push('\n// diagnostics');
  out.push(JSON.stringify(flat.diagnostics, null, 2));
  const record = {};
  judge(p, flat, [newStats()], record, openBranches);
  out.push('\n// union sites of the original');
  const fl = new Set((flat.diagnostics.flattened ?? []).map((e) => e.pointer));
  const sk = new Map((flat.diagnostics.skipped ?? []).map((e) => [e.pointer, e]));
  for (const [ptr, kw] of unionSites(p.schema)) {
    const state = fl.has(ptr) ? 'flattened' : sk.has(ptr) ? `skipped: ${skipKey(sk.get(ptr))}` : 'UNNAMED';
    out.push(`//   ${(ptr || '(root)').padEnd(50)} ${kw.padEnd(6)} ${siteShape(p.schema, ptr).padEnd(20)} ${state}`);
  }
  out.push(`\n// root one object: ${record.rootOneObject}`);
  const check = compile(flat.presentation, isDraft7(p.schema));
  out.push(`// kept values (${p.values.length}), Zod/schema mismatches (${p.mismatches.length}), on-path values Zod rejected ` +
    `(${p.zodRejected}), optional DU tags Zod refused (${p.duTagRefused}), off-path values rejected (${p.offRejected})`);
  for (const v of p.values) out.push(`//   ${check(v) ? 'ok     ' : 'UNSOUND'} ${JSON.stringify(v)}${check(v) ? '' : '  ' + firstError(check)}`);
  for (const [v, why] of p.notPromised) {
    const verdict = check(v) ? 'accepted' : openBranches === 'permissive' ? 'UNSOUND (promised under permissive)' : 'rejected';
    out.push(`//   not promised under declared (${why}): ${verdict} ${JSON.stringify(v)}`);
  }
  for (const v of p.mismatches) out.push(`//   mismatch ${JSON.stringify(v)}`);
  for (const [v, why] of p.zodRejectedValues) out.push(`//   on its path, Zod rejects: ${JSON.stringify(v)} (${why})`);
  for (const [what, v, zodOk, schemaOk] of p.invalid) {
    out.push(`//   invalid (${what}): Zod ${zodOk ? 'accepts' : 'rejects'}, original ${schemaOk ? 'accepts' : 'rejects'}, presentation ${check(v) ? 'accepts' : 'rejects'} ${JSON.stringify(v)}`);
  }
  console.log(out.join('\n'));
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The command line.
// ---------------------------------------------------------------------------------------------

function usage() {
  return [
    'usage: node harness/worlds/zod/world.mjs [--seeds 1..4] [--programs 400] [--report FILE] [--flatjoin PATH] [--batch]',
    '                                          [--open-branches declared|permissive] [--check]',
    '       node harness/worlds/zod/world.mjs --replay SEED:INDEX [--flatjoin PATH]',
    '  --flatjoin  the flatjoin binary (default: $FLATJOIN_BIN, else target/release/flatjoin)',
    '  --batch     one `flatjoin manifest` process per seed instead of one `flatjoin flatten` per program',
    '  --open-branches declared|permissive   the reading flatjoin is asked for (SPEC §2.8; default declared);',
    '              under permissive every value the original accepts is judged',
    '  --check     exit 1 unless 0 unsound, every form drawn, every object-branch root union one object, 0 unnamed',
  ].join('\n');
}

export function main(argv) {
  const args = { seeds: '1..4', programs: 400, report: null, flatjoin: defaultFlatjoin(), batch: false, replay: null, check: false, openBranches: 'declared' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--seeds') args.seeds = val();
    else if (a === '--programs') args.programs = Number(val());
    else if (a === '--report') args.report = val();
    else if (a === '--flatjoin') args.flatjoin = val();
    else if (a === '--replay') args.replay = val();
    else if (a === '--batch') args.batch = true;
    else if (a === '--open-branches') args.openBranches = val();
    else if (a === '--check') args.check = true;
    else if (a === '-h' || a === '--help') { console.log(usage()); return 0; }
    else { console.error(`zod-world: unknown argument ${a}\n${usage()}`); return 2; }
  }
  if (!existsSync(args.flatjoin)) {
    console.error(`zod-world: no flatjoin binary at ${args.flatjoin} (set --flatjoin or FLATJOIN_BIN)`);
    return 2;
  }
  if (!['declared', 'permissive'].includes(args.openBranches)) {
    console.error(`zod-world: --open-branches is declared or permissive, not ${args.openBranches}`);
    return 2;
  }
  if (args.replay) return replay(args.replay, args.flatjoin, args.openBranches);
  const seeds = parseSeeds(args.seeds);
  const results = runWorld(seeds, args.programs, args.flatjoin, {
    batch: args.batch, openBranches: args.openBranches, progress: (m) => console.error(`zod-world: ${m}`),
  });
  const command = ['node', 'harness/worlds/zod/world.mjs', ...argv].map((x) => (/^[\w@%+=:,./-]+$/.test(x) ? x : `'${x.replace(/'/g, "'\\''")}'`)).join(' ');
  const text = renderReport(results, command);
  if (args.report) {
    writeFileSync(args.report, text + '\n');
    console.error(`zod-world: wrote ${args.report}`);
  } else {
    console.log(text);
  }
  const unsound = total(results, 'unsound');
  const left = total(results, 'objectRootUnions') - total(results, 'objectRootsOneObject');
  const unnamed = total(results, 'unnamed');
  const undrawn = FORMS.filter((f) => results.perForm.get(f).programs === 0);
  console.error(`zod-world: ${total(results, 'programs')} programs, ${total(results, 'valuesKept')} values kept, ${unsound} unsound, ` +
    `${left} object-branch root unions left as unions, ${unnamed} unnamed union sites` + (undrawn.length ? `, forms never drawn: ${undrawn.join(', ')}` : ''));
  if (args.check && (unsound || left || unnamed || undrawn.length)) return 1;
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
