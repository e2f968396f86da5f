// In-process cost of the Node.js package (run by bindings/bench.sh): for each input file, the
// package's `flatten` (`flattenManifest` for a manifest) against this process's floor,
// `structuredClone(document)`, alternated pairwise (the median of the per-pair ratios, so load
// that comes and goes hits both sides alike); the same through the measured alternative to JSON
// text, objects converted by napi (`benchFlattenObject`, built with feature
// bench-object-conversion); and spawning the release CLI on the file.
// Usage: node bench.mjs PACKAGE_DIR CLI FILE...   Prints one TSV line per file:
//   file  bytes  flatten_ms  clone_ms  ratio  object_ratio  cli_ms  cli_ratio
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const [dir, cli, ...files] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const pkg = require(resolve(join(dir, 'index.js')));
const native = require(resolve(join(dir, 'flatjoin.node')));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function time(f) {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Median times of `a` and `b`, and the median of the ratios a/b, over alternated pairs. */
function pairs(a, b, budgetMs) {
  for (let i = 0; i < 3; i++) {
    a();
    b();
  }
  const first = time(a) + time(b);
  const n = Math.max(7, Math.min(301, Math.ceil(budgetMs / Math.max(first, 1e-3))));
  const ta = [];
  const tb = [];
  const ratios = [];
  for (let i = 0; i < n; i++) {
    let x;
    let y;
    if (i % 2) {
      x = time(a);
      y = time(b);
    } else {
      y = time(b);
      x = time(a);
    }
    ta.push(x);
    tb.push(y);
    ratios.push(x / y);
  }
  return { a: median(ta), b: median(tb), ratio: median(ratios) };
}

for (const file of files) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const manifest = Array.isArray(doc.tools);
  const flatten = manifest ? () => pkg.flattenManifest(doc) : () => pkg.flatten(doc);
  const floor = () => structuredClone(doc);
  const main = pairs(flatten, floor, 1500);
  let object = { ratio: NaN };
  try {
    object = pairs(() => native.benchFlattenObject(doc), floor, 800);
  } catch (e) {
    // napi's serde-json conversion refuses large documents ("Exceeded maximum JSON value count").
    console.error(`${file}: objects instead of text failed: ${e.message}`);
  }
  const command = [manifest ? 'manifest' : 'flatten', file];
  const spawn = pairs(() => execFileSync(cli, command, { maxBuffer: 1 << 30 }), floor, 1500);
  console.log(
    [file, statSync(file).size, main.a, main.b, main.ratio, object.ratio, spawn.a, spawn.ratio]
      .map((x) => (typeof x === 'number' && !Number.isInteger(x) ? x.toFixed(4) : x))
      .join('\t'),
  );
}
