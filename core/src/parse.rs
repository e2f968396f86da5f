//! Depth-checked JSON parsing: nesting past [`MAX_DEPTH`] is an error with a JSON pointer, never a
//! stack overflow.

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::pointer;

/// The deepest nesting of arrays and objects accepted, counting the root container as 1.
///
/// `serde_json` refuses to parse deeper documents by default (its recursion limit), and every
/// recursive walk in this crate is bounded by this depth, so no input can overflow the stack.
pub const MAX_DEPTH: usize = 127;

/// Parses JSON text. Syntax errors report line and column; nesting deeper than [`MAX_DEPTH`]
/// reports the JSON pointer of the first container past the limit.
pub fn parse(bytes: &[u8]) -> Result<Value, Error> {
    // `serde_json`'s own recursion limit is the same depth: text it parses nests no deeper than
    // MAX_DEPTH, so a parsed value needs no depth check. Only text it refuses is scanned, the
    // cheap scan first (no allocation, no pointer), then the one that names the pointer. The
    // answers are those of scanning first: on text `serde_json` accepts, the scan finds nothing.
    //
    // Text that is valid UTF-8 as a whole (all but broken input) is read as a `str`: one pass
    // over the buffer instead of `serde_json`'s check of every string it reads (about 2 % of a
    // whole `flatjoin flatten` run); the two readers accept and refuse the same valid UTF-8, and
    // invalid UTF-8 goes to the byte reader, which reports where it is.
    let parsed = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    };
    parsed.map_err(|e| {
        if exceeds_max_depth(bytes)
            && let Some(pointer) = too_deep_in_text(bytes)
        {
            return Error::new(pointer, ErrorKind::TooDeep { limit: MAX_DEPTH });
        }
        Error::new(
            "",
            ErrorKind::NotJson {
                message: strip_position(&e.to_string()),
                line: e.line(),
                column: e.column(),
            },
        )
    })
}

/// Whether the JSON text nests arrays and objects deeper than [`MAX_DEPTH`] anywhere, skipping
/// string contents. A byte loop with no allocation: it runs on the text `serde_json` refuses, to
/// tell nesting past the limit from other errors.
fn exceeds_max_depth(bytes: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                // To the closing quote, past escapes, a string body at a time (most of a
                // schema's bytes are in strings).
                // An unterminated string runs to the end: nothing after it nests.
                loop {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
                        return false;
                    };
                    i += at;
                    if bytes[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// Checks the nesting depth of a value without recursion.
pub(crate) fn check_depth(value: &Value) -> Result<(), Error> {
    // Fast pass without pointers; only a failing document pays for locating the failure.
    let mut stack: Vec<(&Value, usize)> = vec![(value, 1)];
    let mut too_deep = false;
    while let Some((v, depth)) = stack.pop() {
        let children: &mut dyn Iterator<Item = &Value> = match v {
            Value::Object(map) => &mut map.values(),
            Value::Array(items) => &mut items.iter(),
            _ => continue,
        };
        if depth > MAX_DEPTH {
            too_deep = true;
            break;
        }
        for c in children {
            if c.is_object() || c.is_array() {
                stack.push((c, depth + 1));
            }
        }
    }
    if too_deep {
        locate_depth(value)
    } else {
        Ok(())
    }
}

fn locate_depth(value: &Value) -> Result<(), Error> {
    // (value, depth, pointer) — pointers are built only for containers, lazily enough for the
    // common case of shallow schemas.
    let mut stack: Vec<(&Value, usize, String)> = vec![(value, 1, String::new())];
    while let Some((v, depth, ptr)) = stack.pop() {
        if !(v.is_object() || v.is_array()) {
            continue;
        }
        if depth > MAX_DEPTH {
            return Err(Error::new(ptr, ErrorKind::TooDeep { limit: MAX_DEPTH }));
        }
        match v {
            Value::Object(map) => {
                for (k, c) in map {
                    if c.is_object() || c.is_array() {
                        stack.push((c, depth + 1, pointer::push(&ptr, k)));
                    }
                }
            }
            Value::Array(items) => {
                for (i, c) in items.iter().enumerate() {
                    if c.is_object() || c.is_array() {
                        stack.push((c, depth + 1, pointer::push_index(&ptr, i)));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Scans JSON text for nesting past [`MAX_DEPTH`] and returns the pointer of the first container
/// past it. Malformed text is left for `serde_json` to report.
fn too_deep_in_text(bytes: &[u8]) -> Option<String> {
    enum Frame {
        Object { key: String, expect_key: bool },
        Array { index: usize },
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let (text, next) = read_string(bytes, i + 1);
                if let Some(Frame::Object { key, expect_key }) = stack.last_mut()
                    && *expect_key
                {
                    *key = text;
                    *expect_key = false;
                }
                i = next;
                continue;
            }
            open @ (b'{' | b'[') => {
                if stack.len() + 1 > MAX_DEPTH {
                    let mut ptr = String::new();
                    for frame in &stack {
                        ptr = match frame {
                            Frame::Object { key, .. } => pointer::push(&ptr, key),
                            Frame::Array { index } => pointer::push_index(&ptr, *index),
                        };
                    }
                    return Some(ptr);
                }
                stack.push(if open == b'{' {
                    Frame::Object {
                        key: String::new(),
                        expect_key: true,
                    }
                } else {
                    Frame::Array { index: 0 }
                });
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    None
}

/// Reads a JSON string body starting after its opening quote; returns the (approximately)
/// unescaped text and the index after the closing quote.
fn read_string(bytes: &[u8], mut i: usize) -> (String, usize) {
    let start = i;
    let mut escaped = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                escaped = true;
                i += 2;
                continue;
            }
            b'"' => break,
            _ => i += 1,
        }
    }
    let end = i.min(bytes.len());
    let raw = &bytes[start.min(end)..end];
    let text = if escaped {
        let quoted = [b"\"", raw, b"\""].concat();
        serde_json::from_slice::<String>(&quoted)
            .unwrap_or_else(|_| String::from_utf8_lossy(raw).into_owned())
    } else {
        String::from_utf8_lossy(raw).into_owned()
    };
    (text, end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_text_names_the_pointer() {
        let depth = MAX_DEPTH + 5;
        let text = format!("{{\"a\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
        let err = parse(text.as_bytes()).expect_err("too deep");
        assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_DEPTH });
        // The root object is level 1, the array at /a level 2: the first container past the limit
        // is array number MAX_DEPTH, at /a followed by MAX_DEPTH - 1 indexes.
        let expected = format!("/a{}", "/0".repeat(MAX_DEPTH - 1));
        assert_eq!(err.pointer, expected);
    }

    /// The byte-at-a-time scan the string skip replaced: the two must agree on every text,
    /// brackets in strings, escaped quotes and backslashes, and unterminated strings included.
    fn exceeds_byte_by_byte(bytes: &[u8]) -> bool {
        let (mut depth, mut i) = (0usize, 0);
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    i += 1;
                    while i < bytes.len() {
                        match bytes[i] {
                            b'\\' => i += 2,
                            b'"' => break,
                            _ => i += 1,
                        }
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return true;
                    }
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        false
    }

    #[test]
    fn string_skip_agrees_with_the_byte_scan() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let pieces = [
            "\"[[[\"",
            "\"a\\\"[\"",
            "\"a\\\\\"",
            "\"\\",
            "\"unterminated [",
            "\"x\\",
            "{\"k\":",
            "]",
            "[",
            "",
        ];
        for a in pieces {
            for b in pieces {
                for text in [
                    format!("{a}{deep}{b}"),
                    format!("{deep}{a}{b}"),
                    format!("{a}{b}{deep}"),
                    format!("{a}{b}"),
                ] {
                    assert_eq!(
                        exceeds_max_depth(text.as_bytes()),
                        exceeds_byte_by_byte(text.as_bytes()),
                        "{text:?}"
                    );
                }
            }
        }
    }

    /// Reading valid UTF-8 as a `str` changes nothing `parse` answers: the value, or the error
    /// and its position, is the byte reader's on every text, escapes, lone surrogates, bad syntax
    /// after multi-byte characters and invalid UTF-8 (which the `str` path never sees) included.
    #[test]
    fn the_str_reader_answers_as_the_byte_reader() {
        let texts: [&[u8]; 12] = [
            br#"{"a":"\u00e9\ud83d\ude00","b":[1,2.5,-3e2,true,null]}"#,
            "{\"é\":\"日本\",\"k\":{\"x\":[]}}".as_bytes(),
            br#"{"a":"\ud800"}"#,
            br#"{"a":"\udc00x"}"#,
            "{\"é\":1,}".as_bytes(),
            "[\"日本\" 1]".as_bytes(),
            b"{\"a\":\"\xff\"}",
            b"{\"a\":\"\xc3\"}",
            b"\xef\xbb\xbf{}",
            b"{\"a\":\"b\"}\xe2\x82",
            b"",
            b"  {\"a\": \"tab\tin\"}",
        ];
        for text in texts {
            let by_bytes = serde_json::from_slice::<Value>(text)
                .map_err(|e| (strip_position(&e.to_string()), e.line(), e.column()));
            let ours = parse(text).map_err(|e| match e.kind {
                ErrorKind::NotJson {
                    message,
                    line,
                    column,
                } => (message, line, column),
                other => panic!("{text:?}: {other:?}"),
            });
            assert_eq!(ours, by_bytes, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn at_the_limit_parses() {
        let text = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(text.as_bytes()).is_ok());
    }

    /// `parse` scans for depth only when `serde_json` refuses the text: that is sound only while
    /// its recursion limit is MAX_DEPTH, so one level more must be refused by `serde_json` itself.
    #[test]
    fn serde_json_refuses_one_level_past_the_limit() {
        let depth = MAX_DEPTH + 1;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(serde_json::from_slice::<Value>(text.as_bytes()).is_err());
        let err = parse(text.as_bytes()).expect_err("too deep");
        assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_DEPTH });
        assert_eq!(err.pointer, "/0".repeat(MAX_DEPTH));
    }

    #[test]
    fn million_deep_does_not_overflow() {
        let text = "[".repeat(1_000_000);
        assert!(matches!(
            parse(text.as_bytes()).map_err(|e| e.kind),
            Err(ErrorKind::TooDeep { .. })
        ));
    }

    #[test]
    fn syntax_error_has_position() {
        let err = parse(b"{\n  \"a\": }").expect_err("not json");
        assert!(
            matches!(err.kind, ErrorKind::NotJson { line: 2, .. }),
            "{err}"
        );
    }

    #[test]
    fn escaped_keys_in_pointer() {
        let depth = MAX_DEPTH;
        let text = format!("{{\"a\\\"/b\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
        let err = parse(text.as_bytes()).expect_err("too deep");
        assert!(err.pointer.starts_with("/a\"~1b/0"), "{}", err.pointer);
    }
}
