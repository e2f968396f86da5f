//! The providers' own SDK code as a judge of what `export`/`manifest` serve (SPEC §6 decision 18).
//!
//! The judging is done by pinned Python packages (`cli/sdk/requirements.txt`: `google-genai`,
//! `openai-agents`, `mcp`) through `cli/sdk/check.py`, one process per batch, never by flatjoin
//! code. This module builds the batch (what each profile's consumer receives), runs the script and
//! reads its verdicts. The caller provides the interpreter (the e2e test creates a venv under
//! `target/`; `flatjoin lint-report --sdk-python` takes one).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::profiles::Profile;
use crate::surfaces::{self, GeminiField, Provider, ToolInput};

/// Which SDK check an export goes through (the `check` field of `check.py`'s input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// `google.genai.types.FunctionDeclaration`: accepted and a fixpoint of
    /// `model_validate` → `model_dump(by_alias=True, exclude_none=True)`.
    Gemini,
    /// The OpenAI Agents SDK's `ensure_strict_json_schema`: no error and a fixpoint.
    OpenaiStrict,
    /// The MCP Python SDK's `mcp.types.Tool`: accepted.
    Mcp,
}

impl Check {
    /// The name `check.py` knows.
    pub fn name(self) -> &'static str {
        match self {
            Check::Gemini => "gemini",
            Check::OpenaiStrict => "openai-strict",
            Check::Mcp => "mcp",
        }
    }

    /// The SDK and its check, for reports.
    pub fn sdk(self) -> &'static str {
        match self {
            Check::Gemini => "google-genai `types.FunctionDeclaration` (validate + dump fixpoint)",
            Check::OpenaiStrict => {
                "openai-agents `ensure_strict_json_schema` (no error + fixpoint)"
            }
            Check::Mcp => "mcp `types.Tool`",
        }
    }
}

/// The SDK check that judges a profile's output, if the provider's SDK has one. OpenAI
/// (non-strict) and Anthropic SDKs pass the schema through unchecked; Cursor has no SDK.
pub fn check_of(profile: Profile) -> Option<Check> {
    match profile {
        Profile::OpenaiStrict => Some(Check::OpenaiStrict),
        Profile::Gemini => Some(Check::Gemini),
        Profile::Mcp => Some(Check::Mcp),
        Profile::Openai | Profile::Anthropic | Profile::AnthropicStrict | Profile::Cursor => None,
    }
}

/// One export to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Where it came from (file, tool, mode), for messages.
    pub id: String,
    /// Which SDK check.
    pub check: Check,
    /// What the SDK gets: a Gemini function declaration, a strict function's `parameters`, or an
    /// MCP `tools/list` entry.
    pub payload: Value,
    /// Whether flatjoin called it clean (`export` would exit 0: no residual lint error).
    pub clean: bool,
}

/// What the SDK said about one item.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The item's id.
    pub id: String,
    /// Whether the SDK accepted it.
    pub accepted: bool,
    /// Whether the SDK gave it back unchanged (`None` where there is nothing to compare).
    pub fixpoint: Option<bool>,
    /// The SDK's error, or the first difference of a non-fixpoint.
    pub error: Option<String>,
}

impl Verdict {
    /// Accepted and (where compared) unchanged.
    pub fn passes(&self) -> bool {
        self.accepted && self.fixpoint != Some(false)
    }
}

/// The items for one tool under `profile`: what `export` writes for it (both Gemini fields), or
/// for `mcp` the `tools/list` entry `manifest --profile mcp` serves. Empty when the profile has no
/// SDK check. An error of the flat join is returned as is.
pub fn items(tool: &ToolInput, profile: Profile, label: &str) -> Result<Vec<Item>, String> {
    let options = flatjoin::Options::default();
    let one = std::slice::from_ref(tool);
    let clean = |e: &surfaces::Exported| {
        !e.residual
            .iter()
            .any(|f| f.severity == crate::profiles::Severity::Error)
    };
    let mut out = Vec::new();
    match profile {
        Profile::OpenaiStrict => {
            let e = surfaces::export(one, Provider::Openai, true, &options)?;
            out.push(Item {
                id: format!("{label} openai-strict"),
                check: Check::OpenaiStrict,
                payload: e.declarations[0]["function"]["parameters"].clone(),
                clean: clean(&e),
            });
        }
        Profile::Gemini => {
            for (field, mode) in [
                (GeminiField::Parameters, "parameters"),
                (GeminiField::ParametersJsonSchema, "parametersJsonSchema"),
            ] {
                let e = surfaces::export_with(one, Provider::Gemini, false, field, &options)?;
                out.push(Item {
                    id: format!("{label} gemini {mode}"),
                    check: Check::Gemini,
                    payload: e.declarations["functionDeclarations"][0].clone(),
                    clean: clean(&e),
                });
            }
        }
        Profile::Mcp => {
            let lowered = surfaces::present(&tool.schema, Some(Profile::Mcp), &options)?;
            let named = [(tool.name.clone(), lowered.schema.clone())];
            let clean = !crate::profiles::lint_tools(Profile::Mcp, &named)
                .iter()
                .any(|f| f.severity == crate::profiles::Severity::Error);
            let mut entry = json!({"name": tool.name, "inputSchema": lowered.schema});
            if let Some(d) = &tool.description {
                entry["description"] = json!(d);
            }
            out.push(Item {
                id: format!("{label} mcp"),
                check: Check::Mcp,
                payload: entry,
                clean,
            });
        }
        _ => {}
    }
    Ok(out)
}

/// The interpreter and script that judge.
#[derive(Debug, Clone)]
pub struct Judge {
    /// A Python with the pinned SDKs installed.
    pub python: PathBuf,
    /// `cli/sdk/check.py`.
    pub script: PathBuf,
}

impl Judge {
    /// Runs one batch through the SDKs (one process) and returns a verdict per item, in order.
    pub fn judge(&self, items: &[Item]) -> Result<Vec<Verdict>, String> {
        let mut input = String::new();
        for item in items {
            let line = json!({"id": item.id, "check": item.check.name(), "payload": item.payload});
            input.push_str(&line.to_string());
            input.push('\n');
        }
        let mut child = Command::new(&self.python)
            .arg(&self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.python.display()))?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        writer
            .join()
            .map_err(|_| "writer thread panicked".to_owned())?
            .map_err(|e| format!("cannot write to {}: {e}", self.script.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} failed ({}): {}",
                self.script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let verdicts: Vec<Verdict> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|line| {
                let v: Value = serde_json::from_str(line)
                    .map_err(|e| format!("bad verdict line {line:?}: {e}"))?;
                Ok(Verdict {
                    id: v["id"].as_str().unwrap_or_default().to_owned(),
                    accepted: v["accepted"].as_bool().ok_or("verdict without accepted")?,
                    fixpoint: v["fixpoint"].as_bool(),
                    error: v["error"].as_str().map(str::to_owned),
                })
            })
            .collect::<Result<_, String>>()?;
        if verdicts.len() != items.len() || verdicts.iter().zip(items).any(|(v, i)| v.id != i.id) {
            return Err(format!(
                "{} answered {} verdicts for {} items, or out of order",
                self.script.display(),
                verdicts.len(),
                items.len()
            ));
        }
        Ok(verdicts)
    }
}
