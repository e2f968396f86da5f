'use strict';
// flatjoin for Node.js: the flat presentation join of discriminated-union tool schemas, in-process.
// Every function prints its arguments with JSON.stringify, calls the native addon (flatjoin.node,
// napi-rs; the same Rust functions the `flatjoin` command-line tool calls) and parses its answer.
// Errors are FlatjoinError (an Error with `kind`, `code` and `pointer`); no input crashes the
// process. The `…Async` variants run the same call on libuv's thread pool and return a Promise.

const path = require('node:path');
const { platform, missing } = require('./platform.js');

let native;
/**
 * The addon: `flatjoin.<platform>.node` beside this file (what `npm run build` writes in a
 * checkout) or the prebuilt package `flatjoin-<platform>` (an optional dependency, napi-rs's
 * layout). Nothing is built on install; a machine with neither gets an error naming its platform
 * and what to do (`code` FLATJOIN_NATIVE_MISSING or FLATJOIN_UNSUPPORTED_PLATFORM).
 */
function addon() {
  if (native !== undefined) return native;
  const name = platform();
  const candidates = [
    path.join(__dirname, `flatjoin.${name}.node`),
    `flatjoin-${name}/flatjoin.${name}.node`,
  ];
  let cause;
  for (const candidate of candidates) {
    try {
      native = require(candidate);
      return native;
    } catch (e) {
      // Not there is expected for all but one candidate; anything else is the reason to show.
      if (e.code !== 'MODULE_NOT_FOUND') cause = e;
    }
  }
  throw missing('native addon', candidates, cause);
}

/**
 * A flatjoin error: `kind` is a stable name (`too_deep`, `unresolvable_ref`, ...), `code` the same
 * as Node.js error codes are written (`FLATJOIN_TOO_DEEP`), `pointer` a JSON pointer.
 */
class FlatjoinError extends Error {
  constructor(kind, pointer, message) {
    super(message);
    this.name = 'FlatjoinError';
    this.kind = kind;
    this.code = `FLATJOIN_${kind.toUpperCase()}`;
    this.pointer = pointer;
  }
}

function text(value, what) {
  let out;
  try {
    out = JSON.stringify(value);
  } catch (e) {
    // A cycle or a BigInt is a TypeError; nesting past V8's stack a RangeError.
    const kind = e instanceof RangeError ? 'too_deep' : 'not_json';
    throw new FlatjoinError(kind, '', `${what}: cannot be printed as JSON: ${e.message}`);
  }
  if (out === undefined) {
    throw new FlatjoinError('not_json', '', `${what}: ${typeof value} is not JSON`);
  }
  return out;
}

function option(options, name, type) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw new FlatjoinError('invalid_option', '', `options must be an object, not ${typeof options}`);
  }
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== type) {
    throw new FlatjoinError('invalid_option', '', `option ${name} must be a ${type}, not ${typeof value}`);
  }
  return value;
}

function unwrap(envelope) {
  const answer = JSON.parse(envelope);
  if (answer.error) {
    const { kind, pointer, message } = answer.error;
    throw new FlatjoinError(kind, pointer, message);
  }
  return answer.ok;
}

// Each call's arguments as the addon takes them: JSON text and plain options.
function flattenArgs(schema, options) {
  return [
    text(schema, 'schema'),
    option(options, 'scope', 'string'),
    option(options, 'openBranches', 'string'),
  ];
}

function manifestArgs(toolsListResult, options) {
  return [
    text(toolsListResult, 'manifest'),
    option(options, 'scope', 'string'),
    option(options, 'openBranches', 'string'),
    option(options, 'profile', 'string'),
  ];
}

function exportArgs(schema, provider, options) {
  if (typeof provider !== 'string') {
    throw new FlatjoinError('invalid_option', '', 'provider must be a string');
  }
  return [
    text(schema, 'schema'),
    provider,
    option(options, 'strict', 'boolean'),
    option(options, 'geminiField', 'string'),
  ];
}

function flatten(schema, options) {
  return unwrap(addon().flatten(...flattenArgs(schema, options)));
}

function flattenManifest(toolsListResult, options) {
  return unwrap(addon().flattenManifest(...manifestArgs(toolsListResult, options)));
}

function exportTools(schema, provider, options) {
  return unwrap(addon().exportTools(...exportArgs(schema, provider, options)));
}

// The async variants: the arguments are printed on the caller's thread (a bad one rejects the
// Promise, as any error does), the join runs on the thread pool.
async function flattenAsync(schema, options) {
  return unwrap(await addon().flattenAsync(...flattenArgs(schema, options)));
}

async function flattenManifestAsync(toolsListResult, options) {
  return unwrap(await addon().flattenManifestAsync(...manifestArgs(toolsListResult, options)));
}

async function exportToolsAsync(schema, provider, options) {
  return unwrap(await addon().exportToolsAsync(...exportArgs(schema, provider, options)));
}

function validate(originalSchema, value, options) {
  return unwrap(
    addon().validate(
      text(originalSchema, 'schema'),
      text(value, 'value'),
      option(options, 'assertFormats', 'boolean'),
    ),
  );
}

/**
 * The original schema compiled once, for many values: `validate(value)` answers as
 * `validate(originalSchema, value, options)` does, without compiling the schema again.
 */
class Validator {
  #native;

  constructor(originalSchema, options) {
    const compiled = addon().compileValidator(
      text(originalSchema, 'schema'),
      option(options, 'assertFormats', 'boolean'),
    );
    if (typeof compiled === 'string') unwrap(compiled); // the schema's error: throws
    this.#native = compiled;
  }

  validate(value) {
    return unwrap(this.#native.validate(text(value, 'value')));
  }
}

function lint(schema, profile) {
  if (typeof profile !== 'string') {
    throw new FlatjoinError('invalid_option', '', 'profile must be a string');
  }
  return unwrap(addon().lint(text(schema, 'schema'), profile));
}

exports.FlatjoinError = FlatjoinError;
exports.flatten = flatten;
exports.flattenManifest = flattenManifest;
exports.validate = validate;
exports.Validator = Validator;
exports.lint = lint;
exports.exportTools = exportTools;
exports.flattenAsync = flattenAsync;
exports.flattenManifestAsync = flattenManifestAsync;
exports.exportToolsAsync = exportToolsAsync;
exports.version = require('./package.json').version;
