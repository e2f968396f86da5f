// Builds the native addon from this checkout: `cargo build --release -p flatjoin-node`, then copies
// the library to flatjoin.node beside index.js. `npm run build` (and `npm install` of this folder)
// run it. `--debug` builds the debug profile; `--if-missing` does nothing when flatjoin.node exists.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'flatjoin.node');
if (process.argv.includes('--if-missing') && existsSync(out)) process.exit(0);
const debug = process.argv.includes('--debug');
const args = ['build', '-p', 'flatjoin-node', '--message-format', 'json-render-diagnostics'];
if (!debug) args.push('--release');
const messages = execFileSync('cargo', args, {
  cwd: here,
  encoding: 'utf8',
  maxBuffer: 1 << 30,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const library = messages
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .filter((m) => m.reason === 'compiler-artifact' && m.target?.name === 'flatjoin_node')
  .flatMap((m) => m.filenames)
  .find((f) => /\.(so|dylib|dll)$/.test(f));
if (!library) throw new Error('cargo built no flatjoin_node library');
copyFileSync(library, out);
console.log(`flatjoin: built ${out}`);
