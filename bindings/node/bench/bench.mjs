// In-process cost of the Node.js package (run by bindings/bench.sh), in three modes; each prints
// one TSV line per input file.
//
// node bench.mjs PACKAGE_DIR CLI FILE...
//   The package's `flatten` (`flattenManifest` for a manifest) against this process's floor,
//   `structuredClone(document)`, alternated pairwise (the median of the per-pair ratios, so load
//   that comes and goes hits both sides alike); the same through the measured alternative to JSON
//   text, objects converted by napi (`benchFlattenObject`, built with feature
//   bench-object-conversion); and spawning the release CLI on the file.
//     file  bytes  flatten_ms  clone_ms  ratio  object_ratio  cli_ms  cli_ratio
//
// node bench.mjs --peers PACKAGE_DIR FILE...
//   Side by side in this one process on the same documents: the package, and each JavaScript peer
//   of peers.mjs, each against `structuredClone(document)` as above, with the size of what each
//   hands the provider (the presentation or manifest, minified; a peer that throws has none).
//     file  bytes  implementation  ms  clone_ms  ratio  output_bytes  error
//
// node bench.mjs --breakdown PACKAGE_DIR FILE...
//   Where one package call's time goes (medians): `JSON.stringify` of the document, napi's
//   conversion of that text into a Rust string, the Rust parse, the join, printing the answer,
//   freeing it, napi's conversion of the answer back, `JSON.parse` of it; the call as a whole and
//   `structuredClone` beside them (the `bench*` exports of feature bench-phases).
//     file  stringify  take  parse  join  print  free  give  json_parse  call  clone
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const mode = args[0]?.startsWith('--') ? args.shift() : '--main';
const dir = args.shift();
const require = createRequire(import.meta.url);
const pkg = require(resolve(join(dir, 'index.js')));
// The addon the package loads (`flatjoin.<platform>.node` beside index.js), for its bench exports.
const native = require(
  resolve(join(dir, `flatjoin.${require(resolve(join(dir, 'platform.js'))).platform()}.node`)),
);

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

const line = (fields) =>
  console.log(
    fields
      .map((x) => (typeof x === 'number' && !Number.isInteger(x) ? x.toFixed(4) : x))
      .join('\t'),
  );

function load(file) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const manifest = Array.isArray(doc.tools);
  const flatten = manifest ? () => pkg.flattenManifest(doc) : () => pkg.flatten(doc);
  return { doc, manifest, flatten, floor: () => structuredClone(doc) };
}

const minified = (value) => Buffer.byteLength(JSON.stringify(value));

async function main(files) {
  const [cli, ...inputs] = files;
  for (const file of inputs) {
    const { doc, manifest, flatten, floor } = load(file);
    const measured = pairs(flatten, floor, 1500);
    let object = { ratio: NaN };
    try {
      object = pairs(() => native.benchFlattenObject(doc), floor, 800);
    } catch (e) {
      // napi's serde-json conversion refuses large documents ("Exceeded maximum JSON value count").
      console.error(`${file}: objects instead of text failed: ${e.message}`);
    }
    const command = [manifest ? 'manifest' : 'flatten', file];
    const spawn = pairs(() => execFileSync(cli, command, { maxBuffer: 1 << 30 }), floor, 1500);
    line([
      file,
      statSync(file).size,
      measured.a,
      measured.b,
      measured.ratio,
      object.ratio,
      spawn.a,
      spawn.ratio,
    ]);
  }
}

async function peers(files) {
  const { loadPeers, overDocument } = await import('./peers.mjs');
  const implementations = { flatjoin: null, ...(await loadPeers()) };
  for (const file of files) {
    const { doc, manifest, flatten, floor } = load(file);
    const bytes = minified(doc);
    for (const [name, convert] of Object.entries(implementations)) {
      const run = convert
        ? () => overDocument(convert, doc)
        : () => {
            const out = flatten();
            return manifest ? out.manifest : out.schema;
          };
      let output;
      try {
        output = run();
      } catch (e) {
        line([file, bytes, name, NaN, NaN, NaN, NaN, String(e.message).replace(/\s+/g, ' ')]);
        continue;
      }
      const m = pairs(run, floor, 1500);
      line([file, bytes, name, m.a, m.b, m.ratio, output === undefined ? 0 : minified(output), '']);
    }
  }
}

async function breakdown(files) {
  for (const file of files) {
    const { doc, manifest, flatten, floor } = load(file);
    const call = manifest ? (t) => native.flattenManifest(t) : (t) => native.flatten(t);
    const parts = {};
    const add = (name, ms) => (parts[name] ??= []).push(ms);
    flatten();
    const n = Math.max(7, Math.min(101, Math.ceil(3000 / Math.max(time(flatten) + time(floor), 1e-3))));
    for (let i = 0; i < n; i++) {
      let text;
      add('stringify', time(() => (text = JSON.stringify(doc))));
      add('take', time(() => native.benchTake(text)));
      const [parse, join, print, free] = native.benchPhases(text, manifest);
      add('parse', parse);
      add('join', join);
      add('print', print);
      add('free', free);
      let envelope;
      time(() => (envelope = call(text)));
      const taken = time(() => native.benchTake(envelope));
      add('give', Math.max(0, time(() => native.benchGive(envelope)) - taken));
      add('json_parse', time(() => JSON.parse(envelope)));
      add('call', time(flatten));
      add('clone', time(floor));
    }
    const names = ['stringify', 'take', 'parse', 'join', 'print', 'free', 'give', 'json_parse', 'call', 'clone'];
    line([file, ...names.map((k) => median(parts[k]))]);
  }
}

await { '--main': main, '--peers': peers, '--breakdown': breakdown }[mode](args);
