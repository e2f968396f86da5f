//! Reading schema files and stdin into JSON values, with errors that name the file.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// Where an input came from, for error messages: a path, or `-` for standard input.
pub fn input_name(path: Option<&Path>) -> String {
    match path {
        Some(p) if p.as_os_str() != "-" => p.display().to_string(),
        _ => "<stdin>".to_owned(),
    }
}

/// Reads a file (or standard input for `None` and `-`) and parses it with [`flatjoin::parse`], so
/// nesting past [`flatjoin::MAX_DEPTH`] is an error with a JSON pointer instead of a stack overflow.
pub fn read_json(path: Option<&Path>) -> Result<Value, String> {
    let name = input_name(path);
    flatjoin::parse(&read_bytes(path)?).map_err(|e| format!("{name}: {e}"))
}

/// Reads a file (or standard input for `None` and `-`) as it is, for a command that hands the
/// text to the core (`flatjoin::flatten_text_with`, which parses it as [`read_json`] does).
pub fn read_bytes(path: Option<&Path>) -> Result<Vec<u8>, String> {
    let name = input_name(path);
    let mut bytes = Vec::new();
    match path {
        Some(p) if p.as_os_str() != "-" => {
            bytes = std::fs::read(p).map_err(|e| format!("{name}: cannot read: {e}"))?;
        }
        _ => {
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("{name}: cannot read: {e}"))?;
        }
    }
    Ok(bytes)
}
