// The package as npm delivers it: the ES module and CommonJS entry points (the `exports` map), the
// async variants (the thread pool; same answers as the synchronous calls), stable error codes, and
// the loader's error on a machine with no prebuilt addon (it names the platform, never builds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as esm from 'flatjoin';
import esmDefault from 'flatjoin';

const require = createRequire(import.meta.url);
const cjs = require('flatjoin');
const here = path.dirname(fileURLToPath(import.meta.url));
const manifest = require('../package.json');

const union = {
  oneOf: [
    { type: 'object', properties: { kind: { const: 'a' }, x: { type: 'string' } }, required: ['kind'] },
    { type: 'object', properties: { kind: { const: 'b' }, x: { type: 'integer' } }, required: ['kind'] },
  ],
};

test('package: import and require reach the same functions', () => {
  for (const name of Object.keys(cjs)) {
    assert.equal(esm[name], cjs[name], `import { ${name} } differs from require`);
  }
  assert.equal(esmDefault, cjs);
  assert.equal(cjs.version, manifest.version);
  assert.deepEqual(
    Object.keys(cjs).sort(),
    ['FlatjoinError', 'Validator', 'exportTools', 'exportToolsAsync', 'flatten', 'flattenAsync', 'flattenManifest',
      'flattenManifestAsync', 'lint', 'validate', 'version'],
  );
});

test('package: a prebuilt package for every napi target, each holding the addon and the binary', () => {
  const { supported } = require('../platform.js');
  const dirs = readdirSync(path.join(here, '..', 'npm')).sort();
  assert.deepEqual(dirs, [...supported()].sort());
  for (const name of dirs) {
    const pkg = require(`../npm/${name}/package.json`);
    assert.equal(pkg.name, `flatjoin-${name}`);
    assert.equal(pkg.version, manifest.version);
    assert.equal(pkg.main, `flatjoin.${name}.node`);
    const exe = name.startsWith('win32') ? 'flatjoin.exe' : 'flatjoin';
    assert.deepEqual([...pkg.files].sort(), [exe, `flatjoin.${name}.node`].sort());
  }
});

test('package: the async variants answer as the synchronous calls do', async () => {
  const tools = { tools: [{ name: 't', inputSchema: union }] };
  const pending = cjs.flattenAsync(union);
  assert.ok(pending instanceof Promise);
  assert.deepEqual(await pending, cjs.flatten(union));
  assert.deepEqual(await cjs.flattenAsync(union, { scope: 'root' }), cjs.flatten(union, { scope: 'root' }));
  assert.deepEqual(
    await cjs.flattenManifestAsync(tools, { profile: 'openai-strict' }),
    cjs.flattenManifest(tools, { profile: 'openai-strict' }),
  );
  assert.deepEqual(
    await cjs.exportToolsAsync(union, 'openai', { strict: true }),
    cjs.exportTools(union, 'openai', { strict: true }),
  );
  // Errors reject the Promise with the same FlatjoinError, bad arguments included.
  await assert.rejects(cjs.flattenAsync({ $ref: '#/nope' }), (e) => e instanceof cjs.FlatjoinError && e.kind === 'unresolvable_ref');
  await assert.rejects(cjs.flattenAsync(union, { scope: 3 }), (e) => e.code === 'FLATJOIN_INVALID_OPTION');
  await assert.rejects(cjs.exportToolsAsync(union, 7), (e) => e.code === 'FLATJOIN_INVALID_OPTION');
});

test('package: the async variants leave the event loop free', async () => {
  // A union with many wide branches takes long enough that a timer set before the call fires
  // while the join runs (it could not if the call held the loop).
  const branches = Array.from({ length: 400 }, (_, i) => ({
    type: 'object',
    properties: Object.fromEntries([['kind', { const: `k${i}` }], ...Array.from({ length: 60 }, (_, j) => [`p${j}`, { type: j % 2 ? 'string' : 'integer' }])]),
    required: ['kind'],
  }));
  const big = { tools: Array.from({ length: 8 }, (_, t) => ({ name: `t${t}`, inputSchema: { oneOf: branches } })) };
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const started = Date.now();
  const out = await cjs.flattenManifestAsync(big);
  const took = Date.now() - started;
  clearInterval(timer);
  assert.equal(out.manifest.tools.length, 8);
  if (took >= 20) assert.ok(ticks > 0, `the loop did not turn in ${took} ms`);
});

test('package: a Validator compiles once and answers as validate does', () => {
  const strict = new cjs.Validator(union, { assertFormats: true });
  const values = [{ kind: 'a', x: 's' }, { kind: 'a', x: 1 }, { kind: 'b', x: 1 }, { kind: 'c' }, [], null, 'x'];
  for (const value of values) {
    assert.deepEqual(strict.validate(value), cjs.validate(union, value, { assertFormats: true }), JSON.stringify(value));
  }
  assert.equal(strict.validate({ kind: 'a', x: 1 }).valid, false);
  assert.equal(strict.validate({ kind: 'a', x: 1 }).branch, 'kind "a"');
  assert.throws(() => new cjs.Validator({ $ref: '#/nope' }), (e) => e instanceof cjs.FlatjoinError && e.kind === 'unresolvable_ref');
  assert.throws(() => new cjs.Validator(union, { assertFormats: 'yes' }), (e) => e.code === 'FLATJOIN_INVALID_OPTION');
  const cycle = {};
  cycle.self = cycle;
  assert.throws(() => strict.validate(cycle), (e) => e.code === 'FLATJOIN_NOT_JSON');
});

test('package: every error has a stable code', () => {
  const cases = [
    [() => cjs.flatten({ $ref: '#/nope' }), 'FLATJOIN_UNRESOLVABLE_REF'],
    [() => cjs.flatten(undefined), 'FLATJOIN_NOT_JSON'],
    [() => cjs.flattenManifest([]), 'FLATJOIN_NOT_A_MANIFEST'],
    [() => cjs.lint({}, 'nope'), 'FLATJOIN_INVALID_OPTION'],
  ];
  for (const [call, code] of cases) {
    assert.throws(call, (e) => e instanceof cjs.FlatjoinError && e.code === code && e.code === `FLATJOIN_${e.kind.toUpperCase()}`);
  }
});

test('package: with no addon for this platform the loader names it and builds nothing', () => {
  // A copy of the package's JavaScript with no addon beside it and no flatjoin-<platform> package.
  const dir = mkdtempSync(path.join(tmpdir(), 'flatjoin-loader-'));
  try {
    for (const file of ['index.js', 'platform.js', 'package.json', 'bin']) {
      cpSync(path.join(here, '..', file), path.join(dir, file), { recursive: true });
    }
    const platform = require('../platform.js').platform();
    const child = spawnSync(process.execPath, ['-e', `
      try { require(${JSON.stringify(dir)}).flatten({}); console.log('loaded'); }
      catch (e) { console.log(JSON.stringify({ code: e.code, platform: e.platform, message: e.message })); }
    `], { encoding: 'utf8', env: { ...process.env, PATH: '' } });
    assert.equal(child.status, 0, child.stderr);
    const e = JSON.parse(child.stdout);
    assert.equal(e.code, 'FLATJOIN_NATIVE_MISSING');
    assert.equal(e.platform, platform);
    assert.match(e.message, new RegExp(`flatjoin-${platform}`));
    assert.match(e.message, /optional/);
    // The command-line shim says the same and exits 2.
    const bin = spawnSync(process.execPath, [path.join(dir, 'bin', 'flatjoin.js'), '--version'], {
      encoding: 'utf8',
      env: { ...process.env, FLATJOIN_BINARY: '' },
    });
    assert.equal(bin.status, 2);
    assert.match(bin.stderr, new RegExp(`no flatjoin command-line binary for this platform \\(${platform}\\)`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('package: npx flatjoin runs the binary FLATJOIN_BINARY names, status and streams passed through', { skip: !process.env.FLATJOIN_CLI && 'FLATJOIN_CLI is not set (tests/node.rs sets it)' }, () => {
  const bin = path.join(here, '..', 'bin', 'flatjoin.js');
  const env = { ...process.env, FLATJOIN_BINARY: process.env.FLATJOIN_CLI };
  const version = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', env });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, new RegExp(manifest.version.replaceAll('.', '\\.')));
  const bad = spawnSync(process.execPath, [bin, 'flatten', '/nonexistent/schema.json'], { encoding: 'utf8', env });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /nonexistent/);
});
