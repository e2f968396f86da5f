//! Fuzz regression files, `corpus/regressions/<name>.json`: a minimized crash or counterexample,
//! written by `fuzz-corpus save` and replayed by `cargo test` through the same checks as the targets.
//!
//! The format is one JSON object:
//!
//! ```json
//! {"description": "what failed", "target": "flatten_bytes", "input": {"oneOf": []}}
//! ```
//!
//! with the input in one of these forms:
//! - `"input"`: a JSON value, fed to the target as its compact serialization;
//! - `"input_text"`: the exact bytes, when they are UTF-8;
//! - `"input_base64"`: the exact bytes, in standard base64;
//! - `"original"` and `"value"` (`runtime_diff` only): the schema and the value the check runs
//!   on, independent of the order of the embedded corpus. (Not `"schema"`: a top-level `schema`
//!   makes the harness read the file as one of its join-test cases.)
//!
//! A `join_structured` input is always base64 (its bytes are `arbitrary`'s encoding of the
//! harness's model); such a file also holds `rendered_original`, the schema the case renders to,
//! for the reader. A change of the model's shape changes what old bytes decode to, so a fixed
//! structured crash is best also kept as a harness case (`{"description", "schema", "tests"}`).
//!
//! `"xfail": "why"` marks a known failure not yet fixed in the core (`fuzz-corpus save` writes it
//! when the stable replay fails; a crash the replay cannot reproduce is saved without it):
//! the replay expects that file to fail and fails once it passes, so whoever fixes the core deletes
//! the line and the file guards the fix from then on.
//!
//! Files without `target` are the harness's join-test cases (`{"description", "schema", "tests"}`)
//! and are left to the harness's replay.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::fuzz::verdict::TargetResult;
use crate::fuzz::{manifest, presentation, runtime, structured};

/// A fuzz target, by the name of its file in `fuzz/fuzz_targets/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `join_structured`: an `Arbitrary` case of the harness's model through every oracle.
    JoinStructured,
    /// `flatten_bytes`: bytes → parse → flatten.
    FlattenBytes,
    /// `manifest_bytes`: bytes → parse → the manifest path.
    ManifestBytes,
    /// `runtime_diff`: a corpus schema and a value → the runtime against plain validation.
    RuntimeDiff,
    /// `open_world`: bytes drive the open-world grammar → every schema-level harness oracle.
    OpenWorld,
}

impl Target {
    /// Every target, in the order `fuzz/overnight.sh` lists them.
    pub const ALL: [Target; 5] = [
        Target::JoinStructured,
        Target::FlattenBytes,
        Target::ManifestBytes,
        Target::RuntimeDiff,
        Target::OpenWorld,
    ];

    /// The target's name, as in `cargo fuzz list`.
    pub fn name(self) -> &'static str {
        match self {
            Target::JoinStructured => "join_structured",
            Target::FlattenBytes => "flatten_bytes",
            Target::ManifestBytes => "manifest_bytes",
            Target::RuntimeDiff => "runtime_diff",
            Target::OpenWorld => "open_world",
        }
    }

    /// The target called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|target| target.name() == name)
    }

    /// Runs the target's check on raw fuzzer bytes, exactly as its fuzz target does.
    pub fn check_bytes(self, data: &[u8]) -> TargetResult {
        match self {
            Target::JoinStructured => structured::check_structured_bytes(data),
            Target::FlattenBytes => presentation::check_flatten_bytes(data),
            Target::ManifestBytes => manifest::check_manifest_bytes(data),
            Target::RuntimeDiff => runtime::check_runtime_diff_bytes(data),
            Target::OpenWorld => crate::fuzz::open_grammar::check_open_world_bytes(data),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The input a regression replays.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Raw fuzzer bytes, given to [`Target::check_bytes`].
    Bytes(Vec<u8>),
    /// A `runtime_diff` pair, given to [`runtime::check_runtime_diff`].
    SchemaValue {
        /// The schema.
        schema: Value,
        /// The value validated against it.
        value: Value,
    },
}

/// One fuzz regression file.
#[derive(Debug, Clone, PartialEq)]
pub struct Regression {
    /// What failed, in words (the violation or the panic message).
    pub description: String,
    /// The target that found it.
    pub target: Target,
    /// What to replay.
    pub input: Input,
    /// `Some(why)` while the failure is known and not yet fixed in the core: the replay then
    /// expects the check to fail, and reports the file once it passes, so that the marker is
    /// removed and the regression guards the fix from then on.
    pub xfail: Option<String>,
}

impl Regression {
    /// Reads a regression from its JSON document. `Ok(None)` for a file without `target` (a
    /// harness case); `Err` for a fuzz regression this version cannot read, so that a typo fails
    /// the replay instead of silently skipping the file.
    pub fn from_json(document: &Value) -> Result<Option<Regression>, String> {
        let Some(object) = document.as_object() else {
            return Ok(None);
        };
        let Some(target) = object.get("target") else {
            return Ok(None);
        };
        let name = target.as_str().ok_or("`target` is not a string")?;
        let target = Target::from_name(name).ok_or_else(|| format!("unknown target {name:?}"))?;
        let description = object
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let input = read_input(object)?;
        if matches!(input, Input::SchemaValue { .. }) && target != Target::RuntimeDiff {
            return Err(format!("`original`/`value` input given to target {target}"));
        }
        let xfail = match object.get("xfail") {
            None => None,
            Some(Value::String(why)) => Some(why.clone()),
            Some(_) => return Err("`xfail` is not a string".into()),
        };
        Ok(Some(Regression {
            description: description.to_owned(),
            target,
            input,
            xfail,
        }))
    }

    /// The regression for a crash of `target` on `bytes`, described by `description`, marked
    /// [`xfail`](Regression::xfail) until the core is fixed. A
    /// `runtime_diff` input is stored as its decoded schema and value; other inputs as the JSON
    /// value when the bytes are exactly its compact serialization, else as text or base64.
    pub fn from_crash(target: Target, bytes: &[u8], description: &str) -> Regression {
        let input = match (target, runtime::runtime_diff_input(bytes)) {
            (Target::RuntimeDiff, Some((schema, value))) => Input::SchemaValue {
                schema: schema.schema.clone(),
                value,
            },
            _ => Input::Bytes(bytes.to_vec()),
        };
        Regression {
            description: description.to_owned(),
            target,
            input,
            xfail: Some("open: found by fuzzing, not fixed in the core yet".to_owned()),
        }
    }

    /// The regression's JSON document, in the format described at the top of this module.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("description".into(), self.description.clone().into());
        object.insert("target".into(), self.target.name().into());
        if let Some(why) = &self.xfail {
            object.insert("xfail".into(), why.clone().into());
        }
        match &self.input {
            Input::SchemaValue { schema, value } => {
                object.insert("original".into(), schema.clone());
                object.insert("value".into(), value.clone());
            }
            Input::Bytes(bytes) => {
                let (key, value) = encode_bytes(self.target, bytes);
                object.insert(key.into(), value);
                if let Some(rendered) = (self.target == Target::JoinStructured)
                    .then(|| structured::rendered(bytes))
                    .flatten()
                {
                    // For the reader only: the replay decodes the bytes again.
                    object.insert("rendered_original".into(), rendered);
                }
            }
        }
        Value::Object(object)
    }

    /// Replays the regression through its target's check.
    pub fn replay(&self) -> TargetResult {
        match &self.input {
            Input::Bytes(bytes) => self.target.check_bytes(bytes),
            Input::SchemaValue { schema, value } => runtime::check_runtime_diff(schema, value),
        }
    }
}

/// Reads the input of a regression object (see the module documentation for the forms).
fn read_input(object: &Map<String, Value>) -> Result<Input, String> {
    if let (Some(schema), Some(value)) = (object.get("original"), object.get("value")) {
        return Ok(Input::SchemaValue {
            schema: schema.clone(),
            value: value.clone(),
        });
    }
    if let Some(input) = object.get("input") {
        return Ok(Input::Bytes(
            serde_json::to_vec(input).map_err(|e| e.to_string())?,
        ));
    }
    if let Some(text) = object.get("input_text") {
        let text = text.as_str().ok_or("`input_text` is not a string")?;
        return Ok(Input::Bytes(text.as_bytes().to_vec()));
    }
    if let Some(encoded) = object.get("input_base64") {
        let encoded = encoded.as_str().ok_or("`input_base64` is not a string")?;
        return STANDARD
            .decode(encoded)
            .map(Input::Bytes)
            .map_err(|e| format!("`input_base64`: {e}"));
    }
    Err("no input: expected `input`, `input_text`, `input_base64` or `original` and `value`".into())
}

/// The most readable key and value that give back exactly `bytes` for `target`.
fn encode_bytes(target: Target, bytes: &[u8]) -> (&'static str, Value) {
    if !matches!(target, Target::JoinStructured | Target::OpenWorld) {
        if let Ok(value) = serde_json::from_slice::<Value>(bytes)
            && serde_json::to_vec(&value).is_ok_and(|compact| compact == bytes)
        {
            return ("input", value);
        }
        if let Ok(text) = std::str::from_utf8(bytes) {
            return ("input_text", text.into());
        }
    }
    ("input_base64", STANDARD.encode(bytes).into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_harness_case_is_not_a_fuzz_regression() {
        let case = json!({"description": "d", "schema": {}, "tests": []});
        assert_eq!(Regression::from_json(&case), Ok(None));
    }

    #[test]
    fn an_unknown_target_is_an_error_not_a_skip() {
        let file = json!({"description": "d", "target": "flatten_byte", "input": {}});
        assert!(Regression::from_json(&file).is_err());
    }

    #[test]
    fn a_missing_input_is_an_error() {
        let file = json!({"description": "d", "target": "flatten_bytes"});
        assert!(Regression::from_json(&file).is_err());
    }

    #[test]
    fn bytes_round_trip_through_every_encoding() {
        for bytes in [
            &b"{\"a\":1}"[..],
            b"{ \"a\": 1 }",
            b"\xff\x00not utf-8",
            b"",
        ] {
            let regression = Regression::from_crash(Target::FlattenBytes, bytes, "round trip");
            let back = Regression::from_json(&regression.to_json());
            assert_eq!(back, Ok(Some(regression)), "bytes {bytes:?}");
        }
    }

    #[test]
    fn a_runtime_diff_crash_is_stored_as_its_schema_and_value() {
        let regression = Regression::from_crash(Target::RuntimeDiff, b"\x00\x00[1]", "pair");
        let document = regression.to_json();
        assert_eq!(document["value"], json!([1]));
        assert!(document["original"].is_object() && document.get("schema").is_none());
        assert_eq!(Regression::from_json(&document), Ok(Some(regression)));
    }

    #[test]
    fn compact_json_is_stored_as_json() {
        let regression = Regression::from_crash(Target::FlattenBytes, b"{\"a\":[1,2]}", "compact");
        assert_eq!(regression.to_json()["input"], json!({"a": [1, 2]}));
    }
}
