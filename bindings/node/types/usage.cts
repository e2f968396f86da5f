// What a CommonJS user writes (index.d.ts must accept all of it; `npm run typecheck`).
import flatjoin = require('flatjoin');

const out: flatjoin.Flattened = flatjoin.flatten({ type: 'object' });
const report: Promise<flatjoin.Exported> = flatjoin.exportToolsAsync(true, 'anthropic', { strict: true });
const kind: flatjoin.ErrorKind = 'unresolvable_ref';
void [out, report, kind];
