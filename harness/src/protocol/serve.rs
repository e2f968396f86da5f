//! The implementation side of the protocol over a flatten function: what `flatjoin
//! serve-protocol` runs over `flatjoin::flatten`, so the harness judges the core through the same
//! pipe as any other flattener.

use std::io::{BufRead, Write};

use flatjoin::Options;
use serde_json::{Value, json};

use super::{ProtocolError, VERSION, check_message};
use crate::oracle::Flatten;

/// Answers protocol requests read from `input` on `output` until `stop` or the end of input.
/// `describe` is the start response's `implementation`; `flatten` gives the presentation (with
/// its diagnostics, if any: SPEC §6 decision 75) or the message of an `errored` answer. A request that does not match its schema is answered
/// `errored` when it carries a `seq`, and ends the loop with `Err` otherwise.
pub fn serve(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    describe: &Value,
    flatten: Flatten<'_>,
) -> Result<(), ProtocolError> {
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = serde_json::from_str(&line).map_err(|e| ProtocolError::NotJson {
            error: e.to_string(),
            line: line.trim_end().to_owned(),
        })?;
        let answer = match request.get("cmd").and_then(Value::as_str) {
            Some("stop") => return Ok(()),
            Some("start") => {
                check_message("start.schema.json", &request)?;
                json!({"ready": true, "version": VERSION, "implementation": describe})
            }
            Some("run") => {
                let seq = request.get("seq").cloned().unwrap_or(Value::Null);
                match check_message("run.schema.json", &request) {
                    Err(why) if seq.is_u64() => {
                        json!({"seq": seq, "errored": {"message": format!("the request {why}")}})
                    }
                    Err(why) => return Err(ProtocolError::Request(Box::new(why))),
                    Ok(()) => match Options::from_json(&request["options"]) {
                        Ok(options) => match flatten(&request["schema"], &options) {
                            Ok((p, None)) => json!({"seq": seq, "presentation": p}),
                            Ok((p, Some(d))) => {
                                json!({"seq": seq, "presentation": p, "diagnostics": d})
                            }
                            Err(message) => json!({"seq": seq, "errored": {"message": message}}),
                        },
                        Err(e) => {
                            json!({"seq": seq, "errored": {"message": format!("the request's options {e}")}})
                        }
                    },
                }
            }
            _ => return Err(ProtocolError::UnknownRequest(line.trim_end().to_owned())),
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
}
