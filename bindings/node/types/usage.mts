// What an ES module user writes (index.d.ts must accept all of it; `npm run typecheck`).
import { Validator, flatten, flattenAsync, flattenManifestAsync, exportTools, lint, validate, FlatjoinError, version } from 'flatjoin';
import type { Flattened, FlattenedManifest, Inlined, Schema } from 'flatjoin';
import flatjoin from 'flatjoin';

const schema: Schema = {
  oneOf: [
    { type: 'object', properties: { kind: { const: 'a' } }, required: ['kind'] },
    { type: 'object', properties: { kind: { const: 'b' } }, required: ['kind'] },
  ],
};
const flat: Flattened = flatten(schema, { scope: 'all', openBranches: 'declared' });
const skipped: string[] = flat.diagnostics.skipped.map((s) => s.reason);
const later: Promise<Flattened> = flattenAsync(schema);
const manifest: Promise<FlattenedManifest> = flattenManifestAsync({ tools: [] }, { profile: 'openai-strict' });
const verdict: boolean = validate(schema, { kind: 'a' }, { assertFormats: true }).valid;
const rejected: string[] = lint(schema, 'cursor').rejected_tools;
const declarations = exportTools(schema, 'gemini', { geminiField: 'parametersJsonSchema' }).declarations;
const copies: number[] = exportTools(schema, 'gemini').inlined.map((i: Inlined) => i.copies);
const v: string = version + flatjoin.version;
const again: boolean = new Validator(schema, { assertFormats: false }).validate({ kind: 'b' }).valid;
void again;
try {
  flatten(schema);
} catch (e) {
  if (e instanceof FlatjoinError) {
    const code: `FLATJOIN_${string}` = e.code;
    const where: string = e.pointer;
    void [code, where, e.kind === 'too_deep'];
  }
}
void [skipped, later, manifest, verdict, rejected, declarations, copies, v];
