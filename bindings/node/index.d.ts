// Type declarations of the flatjoin Node.js package (index.js).

/** JSON as `JSON.parse` returns it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema: an object or a boolean. */
export type Schema = { [key: string]: Json } | boolean;

/** Which union sites are flattened: every one (default) or only one at the root. */
export type Scope = 'all' | 'root';

/**
 * How an open branch takes part in the join of a property it does not declare (SPEC §2.8):
 * `declared` (default; the reading of Zod, Pydantic and serde runtimes) or `permissive`
 * (JSON Schema's literal reading).
 */
export type OpenBranches = 'declared' | 'permissive';

export type Profile =
  | 'openai'
  | 'openai-strict'
  | 'anthropic'
  | 'anthropic-strict'
  | 'gemini'
  | 'mcp'
  | 'cursor';

export type Provider = 'openai' | 'anthropic' | 'gemini';

export interface JoinOptions {
  scope?: Scope;
  openBranches?: OpenBranches;
}

export interface FlattenedSite {
  pointer: string;
  /** `null` for a root union of objects joined without one (SPEC §2.9). */
  discriminator: string | null;
  branches: number;
  /**
   * The `$ref` of the root definition holding this site's join, when one union written at
   * several sites is joined once (SPEC §6 decision 73).
   */
  shared?: string;
}

export interface SkippedSite {
  pointer: string;
  /** The reason's stable code, from the closed list of SPEC §6 decision 70. */
  code: string;
  /** Which identification rule of SPEC §1 failed, in words. */
  reason: string;
}

export interface Diagnostics {
  flattened: FlattenedSite[];
  skipped: SkippedSite[];
}

export interface Flattened {
  /** The presentation: one flat object every value of every original branch satisfies. */
  schema: Schema;
  diagnostics: Diagnostics;
}

export interface Narrowing {
  tool: string;
  pointer: string;
  rule: string;
  detail: string;
}

/**
 * A definition the profile's lowering copied into every place that refers to it, because the
 * profile takes no `$ref` (gemini, cursor): sound, but each copy is size the provider receives.
 */
export interface Inlined {
  tool: string;
  /** JSON pointer of the definition in the presentation, e.g. `/$defs/flatjoin_union_1`. */
  definition: string;
  /** `shared-union`: a union the flat join wrote once for its sites; `shared-definition`: any other definition copied into two or more places. */
  rule: 'shared-union' | 'shared-definition';
  /** How many `$ref`s to it the presentation has. */
  sites: number;
  /** How many copies of it the lowered schema holds. */
  copies: number;
  /** Its size in minified JSON bytes. */
  bytes: number;
  detail: string;
}

export interface FlattenedManifest {
  /** The `tools/list` result with every `inputSchema` flattened (and lowered, with `profile`). */
  manifest: { tools: Json[]; [key: string]: Json };
  /** Each site with the tool it is in. */
  diagnostics: {
    flattened: (FlattenedSite & { tool: string })[];
    skipped: (SkippedSite & { tool: string })[];
  };
  /** Where the profile's lowering accepts less than the presentation (none without a profile). */
  narrowings: Narrowing[];
  /** The definitions the profile's lowering copied in place of their references (none without a profile). */
  inlined: Inlined[];
}

export interface Validation {
  /** The original schema's verdict. */
  valid: boolean;
  /** The branch the discriminator selected (`kind "polygon"`), when the root is a discriminated union. */
  branch: string | null;
  errors: { instancePath: string; message: string }[];
  /** The errors as `flatjoin validate` prints them, one a line; `""` when valid. */
  message: string;
}

export interface Finding {
  tool: string;
  pointer: string;
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  fix: string;
}

export interface LintReport {
  profile: Profile;
  tools: number;
  rejected_tools: string[];
  findings: Finding[];
}

export interface Exported {
  /** The provider's tool declarations, as `flatjoin export` prints them. */
  declarations: Json;
  narrowings: Narrowing[];
  /** The definitions the lowering copied in place of their references. */
  inlined: Inlined[];
  /** What the provider would still reject after lowering. */
  residual: Finding[];
}

/** The stable names of flatjoin's errors. */
export type ErrorKind =
    | 'not_json'
    | 'too_deep'
    | 'wrong_type'
    | 'not_a_schema'
    | 'unresolvable_ref'
    | 'unsupported_ref'
    | 'ref_cycle'
    | 'invalid_schema'
    | 'unsupported_draft'
    | 'not_a_manifest'
    | 'invalid_option'
    | 'invalid_input'
    | 'internal';

/**
 * An error of flatjoin: `kind` is a stable name, `code` the same in the form of Node.js error
 * codes (`FLATJOIN_TOO_DEEP`), `pointer` a JSON pointer into the argument.
 */
export class FlatjoinError extends Error {
  kind: ErrorKind;
  code: `FLATJOIN_${Uppercase<ErrorKind>}`;
  pointer: string;
}

/** The package's version (the same as the `flatjoin` crate's and the PyPI package's). */
export const version: string;

/** The flat presentation of `schema` (what `flatjoin flatten` prints). The input is not modified. */
export function flatten(schema: Schema, options?: JoinOptions): Flattened;

/** Flattens every `inputSchema` of an MCP `tools/list` result (what `flatjoin manifest` prints). */
export function flattenManifest(
  toolsListResult: { tools: Json[]; [key: string]: Json },
  options?: JoinOptions & { profile?: Profile },
): FlattenedManifest;

/** Validates `value` with the original schema (not the presentation): the original decides. */
export function validate(
  originalSchema: Schema,
  value: Json,
  options?: { assertFormats?: boolean },
): Validation;

/**
 * The original schema compiled once, for many values: `validate(value)` answers as
 * `validate(originalSchema, value, options)` does. Throws `FlatjoinError` when the schema does not
 * compile.
 */
export class Validator {
  constructor(originalSchema: Schema, options?: { assertFormats?: boolean });
  validate(value: Json): Validation;
}

/** What `profile`'s provider would reject in a schema or manifest (`flatjoin lint --format json`). */
export function lint(schemaOrManifest: Json, profile: Profile): LintReport;

/** A provider's tool declarations, flattened and lowered (`flatjoin export`). */
export function exportTools(
  schemaOrManifest: Json,
  provider: Provider,
  options?: { strict?: boolean; geminiField?: 'parameters' | 'parametersJsonSchema' },
): Exported;

/** `flatten` on libuv's thread pool: a large schema does not block the event loop. */
export function flattenAsync(schema: Schema, options?: JoinOptions): Promise<Flattened>;

/** `flattenManifest` on libuv's thread pool: a large manifest does not block the event loop. */
export function flattenManifestAsync(
  toolsListResult: { tools: Json[]; [key: string]: Json },
  options?: JoinOptions & { profile?: Profile },
): Promise<FlattenedManifest>;

/** `exportTools` on libuv's thread pool. */
export function exportToolsAsync(
  schemaOrManifest: Json,
  provider: Provider,
  options?: { strict?: boolean; geminiField?: 'parameters' | 'parametersJsonSchema' },
): Promise<Exported>;
