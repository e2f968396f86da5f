#!/usr/bin/env node
'use strict';
// `npx flatjoin …`: runs the prebuilt `flatjoin` command-line tool of this platform's package
// (`flatjoin-<platform>`, an optional dependency), the way Biome's and esbuild's npm packages run
// theirs: arguments, standard streams and the exit status pass through unchanged. FLATJOIN_BINARY
// names another binary (a checkout's `target/release/flatjoin`).

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { platform, missing } = require('../platform.js');

function binary() {
  if (process.env.FLATJOIN_BINARY) return process.env.FLATJOIN_BINARY;
  const name = platform();
  const file = process.platform === 'win32' ? 'flatjoin.exe' : 'flatjoin';
  const tried = [];
  for (const candidate of [`flatjoin-${name}/${file}`, path.join(__dirname, '..', file)]) {
    tried.push(candidate);
    try {
      return require.resolve(candidate);
    } catch {
      // Try the next place.
    }
  }
  throw missing('flatjoin command-line binary', tried);
}

let exe;
try {
  exe = binary();
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(2);
}
const run = spawnSync(exe, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
if (run.error) {
  process.stderr.write(`flatjoin: cannot run ${exe}: ${run.error.message}\n`);
  process.exit(2);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
