//! The implementation protocol (version 1; `docs/protocol.md`, one JSON Schema per message under
//! `protocol/v1/`): the harness judges any flattener, in any language, that reads one JSON object
//! per line on stdin and answers one per line on stdout.
//!
//! - `{"cmd": "start", "version": 1}` → `{"ready": true, "version": 1, "implementation": {name,
//!   language, version, homepage, source, readings, scopes}}`;
//! - `{"cmd": "run", "seq", "schema", "options"}` → `{"seq", "presentation", "diagnostics"?}` |
//!   `{"seq", "errored": {"message"}}` | `{"seq", "skipped": {"reason"}}`;
//! - `{"cmd": "stop"}` (no answer; the process exits).
//!
//! Every answer is validated against its message's schema with `jsonschema`; an answer that does
//! not match is a protocol error quoting the line. [`client`] runs one implementation process
//! (a reader thread and a channel with a per-request timeout; a crash or a hang is recorded and
//! the process restarted), [`run`] sends the harness's inputs through it and judges the answers
//! with the oracles of [`crate::oracle`], [`report`] writes `reports/implementations.md` and its
//! JSON, and [`serve`] is the implementation side (what `flatjoin serve-protocol` runs over the
//! in-process core).

pub mod adapters;
pub mod client;
pub mod report;
pub mod run;
pub mod serve;

use std::sync::OnceLock;

use flatjoin::{OpenBranches, Options, Scope};
use serde_json::{Value, json};

/// The protocol version this harness speaks.
pub const VERSION: u64 = 1;

include!(concat!(env!("OUT_DIR"), "/protocol_files.rs"));

/// The message schemas, by file name under `protocol/v1/`, sorted. Embedded by the build script
/// through the crate's `protocol/v1` (a symbolic link to the repository's, which `cargo package`
/// follows, so the published crate carries them; `tests/packaged.rs` checks the links).
pub const SCHEMAS: &[(&str, &str)] = SCHEMA_FILES;

/// What goes wrong with a protocol message, on either side: the one error type of the protocol
/// layer (the client turns it into the text of a crash or a start error).
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// No message schema of this name.
    #[error("no protocol message schema {0}")]
    NoSchema(String),
    /// A bundled message schema that does not compile (a harness bug).
    #[error("protocol/v1/{file} does not compile: {why}")]
    SchemaInvalid {
        /// The schema's file name.
        file: String,
        /// `jsonschema`'s error.
        why: String,
    },
    /// A message that does not match its schema: the first error and its pointer.
    #[error("does not match protocol/v1/{file}: {error} at {pointer:?}")]
    Mismatch {
        /// The schema's file name.
        file: String,
        /// The validator's first error.
        error: String,
        /// Where in the message.
        pointer: String,
    },
    /// A request line that is not JSON.
    #[error("a request is not JSON ({error}): {line}")]
    NotJson {
        /// The parser's error.
        error: String,
        /// The line.
        line: String,
    },
    /// A request of no known `cmd`.
    #[error("unknown request: {0}")]
    UnknownRequest(String),
    /// A request (without a `seq` to answer) that does not match its schema.
    #[error("the request {0}")]
    Request(Box<ProtocolError>),
    /// Reading requests or writing answers failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The compiled validator of one message schema (`name` as in [`SCHEMAS`]).
pub fn validator(name: &str) -> Result<&'static jsonschema::Validator, ProtocolError> {
    static COMPILED: OnceLock<Vec<(&'static str, Result<jsonschema::Validator, String>)>> =
        OnceLock::new();
    let all = COMPILED.get_or_init(|| {
        SCHEMAS
            .iter()
            .map(|(file, text)| {
                let compiled = serde_json::from_str::<Value>(text)
                    .map_err(|e| e.to_string())
                    .and_then(|s| jsonschema::validator_for(&s).map_err(|e| e.to_string()));
                (*file, compiled)
            })
            .collect()
    });
    match all.iter().find(|(file, _)| *file == name) {
        Some((_, Ok(v))) => Ok(v),
        Some((_, Err(e))) => Err(ProtocolError::SchemaInvalid {
            file: name.to_owned(),
            why: e.clone(),
        }),
        None => Err(ProtocolError::NoSchema(name.to_owned())),
    }
}

/// Validates `message` against the schema `name`; `Err` names the first error and its pointer.
pub fn check_message(name: &str, message: &Value) -> Result<(), ProtocolError> {
    let validator = validator(name)?;
    match validator.iter_errors(message).next() {
        None => Ok(()),
        Some(e) => Err(ProtocolError::Mismatch {
            file: name.to_owned(),
            error: e.to_string(),
            pointer: e.instance_path().to_string(),
        }),
    }
}

/// The `start` request.
pub fn start_request() -> Value {
    json!({"cmd": "start", "version": VERSION})
}

/// The `run` request for `schema` under `options`.
pub fn run_request(seq: u64, schema: &Value, options: &Options) -> Value {
    json!({"cmd": "run", "seq": seq, "schema": schema, "options": options_value(options)})
}

/// The `stop` request.
pub fn stop_request() -> Value {
    json!({"cmd": "stop"})
}

/// Options as the protocol writes them ([`Options::to_json`], `{"open_branches", "scope"}`; never
/// a fault).
pub fn options_value(options: &Options) -> Value {
    let mut value = options.to_json();
    if let Some(o) = value.as_object_mut() {
        o.remove("fault");
    }
    value
}

/// What an implementation says about itself in its start response.
#[derive(Debug, Clone, PartialEq)]
pub struct ImplementationInfo {
    /// Its name.
    pub name: String,
    /// Its language.
    pub language: String,
    /// Its version (empty when it did not say).
    pub version: String,
    /// Its homepage (empty when it did not say).
    pub homepage: String,
    /// Where its source lives (empty when it did not say).
    pub source: String,
    /// The readings of open branches it claims soundness under.
    pub readings: Vec<OpenBranches>,
    /// The scopes it supports.
    pub scopes: Vec<Scope>,
}

impl ImplementationInfo {
    /// Reads the `implementation` member of a start response already validated against
    /// `start-response.schema.json`.
    pub fn from_start_response(response: &Value) -> ImplementationInfo {
        let imp = &response["implementation"];
        let text = |k: &str| imp[k].as_str().unwrap_or_default().to_owned();
        let list = |k: &str| -> Vec<String> {
            imp[k]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        ImplementationInfo {
            name: text("name"),
            language: text("language"),
            version: text("version"),
            homepage: text("homepage"),
            source: text("source"),
            // The schema allows only the names `FromStr` reads.
            readings: list("readings")
                .iter()
                .filter_map(|r| r.parse().ok())
                .collect(),
            scopes: list("scopes")
                .iter()
                .filter_map(|s| s.parse().ok())
                .collect(),
        }
    }

    /// The option set of the `i`-th generated case: like [`crate::check::options_for`] (readings
    /// alternate, one case in five root-only), restricted to what the implementation declares.
    pub fn options_for(&self, i: u32) -> Options {
        let readings = if self.readings.is_empty() {
            vec![OpenBranches::Declared]
        } else {
            self.readings.clone()
        };
        let reading = readings[i as usize % readings.len()];
        let root = i % 5 == 4 && self.scopes.contains(&Scope::Root);
        let scope = if root || !self.scopes.contains(&Scope::All) {
            Scope::Root
        } else {
            Scope::All
        };
        Options::default()
            .with_open_branches(reading)
            .with_scope(scope)
    }

    /// Whether the implementation declares the reading and scope of `options`.
    pub fn supports(&self, options: &Options) -> bool {
        self.readings.contains(&options.open_branches) && self.scopes.contains(&options.scope)
    }
}

/// One answer to a `run` request, or what happened instead.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The presentation, with the implementation's diagnostics when it sent them (SPEC §6
    /// decision 75).
    Presentation {
        /// The flattened schema.
        schema: Value,
        /// The diagnostics in the CLI's `--diagnostics` form, when sent.
        diagnostics: Option<Value>,
    },
    /// The implementation refused the input (counted, not a violation).
    Errored(String),
    /// The implementation does not handle the input.
    Skipped(String),
    /// The process exited, or did not answer within the timeout (then it was killed); it is
    /// restarted for the next request.
    Crashed(String),
    /// An answer that does not match the protocol (the line quoted); the process is restarted.
    ProtocolError(String),
}

impl Answer {
    /// Reads one answer line to request `seq`.
    pub fn from_line(line: &str, seq: u64) -> Answer {
        let quoted = || {
            let mut q: String = line.chars().take(400).collect();
            if q.len() < line.len() {
                q.push('…');
            }
            q
        };
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return Answer::ProtocolError(format!("not JSON ({e}): {}", quoted())),
        };
        if let Err(why) = check_message("run-response.schema.json", &value) {
            return Answer::ProtocolError(format!("the answer {why}: {}", quoted()));
        }
        if value["seq"].as_u64() != Some(seq) {
            return Answer::ProtocolError(format!(
                "the answer's seq is {}, the request's {seq}: {}",
                value["seq"],
                quoted()
            ));
        }
        if let Some(p) = value.get("presentation") {
            return Answer::Presentation {
                schema: p.clone(),
                diagnostics: value.get("diagnostics").cloned(),
            };
        }
        if let Some(e) = value.get("errored") {
            return Answer::Errored(e["message"].as_str().unwrap_or_default().to_owned());
        }
        Answer::Skipped(
            value["skipped"]["reason"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    }
}
