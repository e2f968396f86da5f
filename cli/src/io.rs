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

/// A comma, a newline and indentation at once: two spaces a level, for up to [`INDENT_LEVELS`]
/// levels (deeper levels write the rest two spaces at a time). Without its comma, what ends an
/// array or object and starts its first item.
const INDENT: &[u8; 2 + 2 * INDENT_LEVELS] = &{
    let mut line = [b' '; 2 + 2 * INDENT_LEVELS];
    line[0] = b',';
    line[1] = b'\n';
    line
};
const INDENT_LEVELS: usize = 64;

/// `serde_json`'s [`PrettyFormatter`](serde_json::ser::PrettyFormatter) with two-space indents,
/// byte for byte, writing each newline and its indentation in one write instead of one write a
/// level (a presentation is mostly short lines several levels deep).
#[derive(Default)]
pub struct Pretty {
    level: usize,
    has_value: bool,
}

impl Pretty {
    /// A newline and this level's indentation, after a comma unless `first`.
    fn newline<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        let levels = self.level.min(INDENT_LEVELS);
        w.write_all(&INDENT[usize::from(first)..2 + 2 * levels])?;
        for _ in levels..self.level {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// An array or object opened one level deeper.
    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// An array or object closed, on a line of its own unless it is empty.
    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.newline(w, true)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Pretty-prints `value` into `w` exactly as [`serde_json::to_writer_pretty`] does, with
/// [`Pretty`].
pub fn write_pretty<W: std::io::Write>(w: W, value: &Value) -> serde_json::Result<()> {
    use serde::Serialize;
    value.serialize(&mut serde_json::Serializer::with_formatter(
        w,
        Pretty::default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(value: &Value) -> String {
        let mut out = Vec::new();
        write_pretty(&mut out, value).expect("a Vec takes every write");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// Every JSON file under `corpus/` (schemas, manifests, the JSON-Schema-Test-Suite's cases,
    /// regressions), printed by [`write_pretty`] and by `serde_json::to_string_pretty`.
    #[test]
    fn prints_the_corpus_as_serde_json_does() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
        let files = flatjoin_harness::corpus::walk::json_files(&root, &[]);
        assert!(files.len() > 100, "only {} corpus files found", files.len());
        for path in &files {
            let text = std::fs::read(path).expect("a corpus file");
            let value: Value =
                serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let expected = serde_json::to_string_pretty(&value).expect("printable");
            assert!(
                pretty(&value) == expected,
                "{} prints otherwise",
                path.display()
            );
        }
    }

    /// Empty and nested empty containers, scalars at the top, and nesting past the levels
    /// written at once ([`INDENT_LEVELS`]).
    #[test]
    fn prints_edge_shapes_as_serde_json_does() {
        let mut deep = serde_json::json!([{}, [], {"a": []}, [[]], "x"]);
        for i in 0..(INDENT_LEVELS + 9) {
            deep = if i % 2 == 0 {
                serde_json::json!({ "k": deep, "e": {}, "n": [1, null, true] })
            } else {
                serde_json::json!([deep, [], 2.5])
            };
        }
        let values = [
            serde_json::json!(null),
            serde_json::json!("a\"b\n"),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!([[], {}]),
            serde_json::json!({"a": {}, "b": [], "c": [{}], "d": {"e": []}}),
            deep,
        ];
        for value in &values {
            assert_eq!(
                pretty(value),
                serde_json::to_string_pretty(value).expect("printable")
            );
        }
    }
}
