// What index.d.ts must refuse: each line is an error tsc has to report (`@ts-expect-error` fails
// the check when the line is accepted), so a declaration loosened to `any` is caught.
import { flatten, lint, exportTools, flattenAsync } from 'flatjoin';
import type { Flattened } from 'flatjoin';

// @ts-expect-error: scope is 'all' or 'root'
flatten({}, { scope: 'everything' });
// @ts-expect-error: no such profile
lint({}, 'openai-lax');
// @ts-expect-error: no such provider
exportTools({}, 'mistral');
// @ts-expect-error: the async variant returns a Promise, not the result
const now: Flattened = flattenAsync({});
// @ts-expect-error: a schema is an object or a boolean
flatten(42);
// @ts-expect-error: an inlined definition's rule is shared-union or shared-definition
const rule: 'narrowing' = exportTools({}, 'gemini').inlined[0].rule;
void [now, rule];
