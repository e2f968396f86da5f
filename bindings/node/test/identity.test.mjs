// One implementation: the package's `flatten` prints, after canonical JSON printing (keys sorted,
// numbers as JavaScript prints them), byte for byte what `flatjoin flatten FILE` prints, on every
// file of the harness's corpus walk and a generated sample (the list is written by
// tests/node.rs: FLATJOIN_IDENTITY_FILES, and the binary is FLATJOIN_CLI). A file the CLI refuses
// the package refuses too, with the same message.
//
// The CLI reads the document as JavaScript hands it over (`JSON.stringify(JSON.parse(file))` on
// stdin): JavaScript has one number type, so a file's `2e16` reaches the package as the integer
// 20000000000000000, which the join reads as an integer (the CLI, given the file's own text, as
// a float). Both readings are sound; the identity is of the implementation on one document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { flatten, FlatjoinError } = require('flatjoin');

/** Canonical JSON: keys sorted at every level, compact. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const cli = process.env.FLATJOIN_CLI;
const list = process.env.FLATJOIN_IDENTITY_FILES;

test('identity: flatten equals the flatjoin binary on the corpus and a generated sample', { skip: !cli || !list ? 'FLATJOIN_CLI and FLATJOIN_IDENTITY_FILES are set by `cargo test -p flatjoin-node`' : false }, () => {
  const files = JSON.parse(readFileSync(list, 'utf8'));
  assert.ok(files.length > 150, `only ${files.length} files`);
  let same = 0;
  let refused = 0;
  let notJson = 0;
  for (const file of files) {
    let input;
    try {
      input = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // Not JSON text (a fuzz regression's raw bytes): nothing to hand the package; the CLI
      // must refuse it as well.
      const raw = spawnSync(cli, ['flatten', file], { encoding: 'utf8' });
      assert.equal(raw.status, 2, `${file}: JavaScript cannot parse it, the CLI flattened it`);
      notJson += 1;
      continue;
    }
    const run = spawnSync(cli, ['flatten', '-'], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 28 });
    if (run.status === 0) {
      const ours = flatten(input);
      assert.equal(canonical(ours.schema), canonical(JSON.parse(run.stdout)), file);
      same += 1;
    } else {
      assert.equal(run.status, 2, `${file}: ${run.stderr}`);
      assert.throws(() => flatten(input), (e) => e instanceof FlatjoinError, `${file}: the CLI refused it (${run.stderr.trim()})`);
      let message;
      try {
        flatten(input);
      } catch (e) {
        message = e.message;
      }
      assert.ok(run.stderr.includes(message.replace(/^schema: /, '')), `${file}: CLI says ${run.stderr.trim()}, package says ${message}`);
      refused += 1;
    }
  }
  console.log(`identity: ${same} files flattened identically, ${refused} refused by both, ${notJson} not JSON`);
  assert.ok(same > 100, `only ${same} files compared`);
});

test('identity: the diagnostics are the CLI --diagnostics file', { skip: !cli ? 'FLATJOIN_CLI is set by `cargo test -p flatjoin-node`' : false }, () => {
  const files = JSON.parse(readFileSync(list, 'utf8')).filter((f) => f.includes('dialects')).slice(0, 20);
  assert.ok(files.length > 0);
  for (const file of files) {
    const out = `${process.env.TMPDIR ?? '/tmp'}/flatjoin-identity-${process.pid}.json`;
    execFileSync(cli, ['flatten', file, '--diagnostics', out], { stdio: 'ignore' });
    const ours = flatten(JSON.parse(readFileSync(file, 'utf8')));
    assert.equal(canonical(ours.diagnostics), canonical(JSON.parse(readFileSync(out, 'utf8'))), file);
  }
});
