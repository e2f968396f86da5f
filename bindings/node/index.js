'use strict';
// flatjoin for Node.js: the flat presentation join of discriminated-union tool schemas, in-process.
// Every function prints its arguments with JSON.stringify, calls the native addon (flatjoin.node,
// napi-rs; the same Rust functions the `flatjoin` command-line tool calls) and parses its answer.
// Errors are FlatjoinError (an Error with `kind` and `pointer`); no input crashes the process.

const path = require('node:path');

let native;
function addon() {
  if (native === undefined) {
    const file = path.join(__dirname, 'flatjoin.node');
    try {
      native = require(file);
    } catch (e) {
      throw new Error(
        `flatjoin: the native addon ${file} is missing or cannot load (${e.message}); ` +
          'build it from a checkout with `npm run build` in bindings/node (needs cargo)',
      );
    }
  }
  return native;
}

/** A flatjoin error: `kind` is a stable name (`too_deep`, `unresolvable_ref`, ...), `pointer` a JSON pointer. */
class FlatjoinError extends Error {
  constructor(kind, pointer, message) {
    super(message);
    this.name = 'FlatjoinError';
    this.kind = kind;
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

function flatten(schema, options) {
  return unwrap(
    addon().flatten(
      text(schema, 'schema'),
      option(options, 'scope', 'string'),
      option(options, 'openBranches', 'string'),
    ),
  );
}

function flattenManifest(toolsListResult, options) {
  return unwrap(
    addon().flattenManifest(
      text(toolsListResult, 'manifest'),
      option(options, 'scope', 'string'),
      option(options, 'openBranches', 'string'),
      option(options, 'profile', 'string'),
    ),
  );
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

function lint(schema, profile) {
  if (typeof profile !== 'string') {
    throw new FlatjoinError('invalid_option', '', 'profile must be a string');
  }
  return unwrap(addon().lint(text(schema, 'schema'), profile));
}

function exportTools(schema, provider, options) {
  if (typeof provider !== 'string') {
    throw new FlatjoinError('invalid_option', '', 'provider must be a string');
  }
  return unwrap(
    addon().exportTools(
      text(schema, 'schema'),
      provider,
      option(options, 'strict', 'boolean'),
      option(options, 'geminiField', 'string'),
    ),
  );
}

exports.FlatjoinError = FlatjoinError;
exports.flatten = flatten;
exports.flattenManifest = flattenManifest;
exports.validate = validate;
exports.lint = lint;
exports.exportTools = exportTools;
