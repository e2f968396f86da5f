#!/usr/bin/env node
// flatjoin implementation protocol, version 1 (docs/protocol.md): adapts one JavaScript function
// to the harness, so `flatjoin check --implementation 'node protocol/adapters/node/run.mjs FILE#EXPORT'`
// judges it.
//
//   node protocol/adapters/node/run.mjs ./my-flatten.mjs#flattenUnion
//
// FILE is an ES module or a CommonJS file (resolved from the working directory); EXPORT names the
// function (`default` when omitted; a CommonJS `module.exports = fn` is `default` too). The
// function is called as `fn(schema, options)` with `options = {open_branches, scope}` and may
// return the presentation or a Promise of it. A thrown error is answered `errored` (the input was
// refused: counted, not a violation); returning `undefined` is answered `skipped`.
//
// What the implementation says about itself comes from an export named `implementation` (or the
// function's own `implementation` property): {name, language, version, homepage, source,
// readings, scopes}; missing members default to the file and export, "javascript", the declared
// reading and both scopes. With `returns: "flattened"` there, the function returns `{schema,
// diagnostics}` (what flatjoin's own `flatten` returns) and both are sent (SPEC §6 decision 75);
// `returns` itself stays with the adapter. No dependencies beyond Node.js itself.

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import path from "node:path";

const VERSION = 1;

// stdout carries protocol lines only: whatever the flattener logs goes to stderr.
const protocolOut = process.stdout;
console.log = console.info = console.debug = (...args) => console.error(...args);

function fail(message) {
  process.stderr.write(`flatjoin node adapter: ${message}\n`);
  process.exit(2);
}

const spec = process.argv[2];
if (!spec) fail("usage: node run.mjs FILE#EXPORT");
const hash = spec.lastIndexOf("#");
const file = hash >= 0 ? spec.slice(0, hash) : spec;
const exportName = hash >= 0 ? spec.slice(hash + 1) : "default";

let mod;
try {
  mod = await import(pathToFileURL(path.resolve(process.cwd(), file)).href);
} catch (e) {
  fail(`cannot import ${file}: ${e && e.stack ? e.stack : e}`);
}
const pick = (ns, name) => {
  if (ns == null) return undefined;
  if (name === "default") return typeof ns.default === "function" ? ns.default : ns.default?.default;
  return ns[name] ?? ns.default?.[name];
};
const fn = pick(mod, exportName);
if (typeof fn !== "function") fail(`${file} has no function export ${JSON.stringify(exportName)}`);
const declared = mod.implementation ?? mod.default?.implementation ?? fn.implementation ?? {};
const implementation = {
  name: `${path.basename(file)}#${exportName}`,
  language: "javascript",
  version: "",
  homepage: "",
  source: file,
  readings: ["declared"],
  scopes: ["all", "root"],
  ...declared,
};
const returns = implementation.returns ?? "presentation";
delete implementation.returns;
if (returns !== "presentation" && returns !== "flattened") {
  fail(`implementation.returns must be "presentation" or "flattened", not ${JSON.stringify(returns)}`);
}

const write = (message) => protocolOut.write(JSON.stringify(message) + "\n");

async function answer(request) {
  switch (request.cmd) {
    case "start":
      if (request.version !== VERSION) fail(`the harness speaks version ${request.version}, this adapter ${VERSION}`);
      write({ ready: true, version: VERSION, implementation });
      return;
    case "run": {
      const { seq } = request;
      let presentation;
      try {
        presentation = await fn(request.schema, request.options);
      } catch (e) {
        write({ seq, errored: { message: String(e && e.message ? e.message : e) } });
        return;
      }
      if (presentation === undefined) write({ seq, skipped: { reason: "the function returned undefined" } });
      else if (returns === "flattened") {
        write({ seq, presentation: presentation.schema, diagnostics: presentation.diagnostics });
      } else write({ seq, presentation });
      return;
    }
    case "stop":
      process.exit(0);
    default:
      fail(`unknown request ${JSON.stringify(request)}`);
  }
}

// Requests are answered strictly one after the other, in order.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  await answer(JSON.parse(line));
}
