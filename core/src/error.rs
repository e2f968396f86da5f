//! Typed errors for malformed input, each carrying the JSON pointer where it was found.

use std::fmt;

/// A malformed input: what is wrong ([`ErrorKind`]) and where (`pointer`, a JSON pointer into the
/// input document; `""` is the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// JSON pointer (RFC 6901) of the offending value; `""` for the document root.
    pub pointer: String,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// The ways an input can be malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes are not JSON. `line` and `column` are 1-based, as `serde_json` reports them.
    NotJson {
        /// The parser's message.
        message: String,
        /// Line of the syntax error.
        line: usize,
        /// Column of the syntax error.
        column: usize,
    },
    /// Arrays and objects nest deeper than the documented limit ([`crate::MAX_DEPTH`]).
    TooDeep {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A keyword holds a value of the wrong JSON type (`"required": "name"`).
    WrongType {
        /// The keyword.
        keyword: String,
        /// What it must hold, in words.
        expected: &'static str,
    },
    /// A place that must hold a schema holds something else (a schema is an object or a boolean).
    NotASchema,
    /// A local `$ref` (`#...`) does not resolve inside the document.
    UnresolvableRef {
        /// The reference as written.
        reference: String,
    },
    /// A reference the join cannot follow statically (`$dynamicRef`, `$recursiveRef`): refused
    /// where a union would need it.
    UnsupportedRef {
        /// The keyword (`$dynamicRef`).
        keyword: String,
        /// The reference as written.
        reference: String,
    },
    /// A chain of `$ref`s leads back to itself without reaching a schema.
    RefCycle {
        /// The reference that closes the cycle.
        reference: String,
    },
    /// The validator refuses the schema (it breaks its declared draft's meta-schema).
    InvalidSchema {
        /// The validator's message.
        message: String,
    },
    /// The document declares a draft the join does not read (draft-03 and older; SPEC §6
    /// decision 34): refused at `/$schema` rather than read by another draft's rules.
    UnsupportedDraft {
        /// The `$schema` as written.
        declared: String,
    },
    /// A manifest is not an MCP `tools/list` result.
    NotAManifest {
        /// What was expected, in words.
        expected: &'static str,
    },
}

impl Error {
    pub(crate) fn new(pointer: impl Into<String>, kind: ErrorKind) -> Self {
        Error {
            pointer: pointer.into(),
            kind,
        }
    }

    /// The same error, located inside a larger document at `prefix` (a JSON pointer).
    pub fn within(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

impl ErrorKind {
    /// A stable snake_case name of the kind (`"too_deep"`, `"unresolvable_ref"`, ...): what the
    /// Node.js and Python packages put in their errors' `kind`, so callers can branch on it.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::NotJson { .. } => "not_json",
            ErrorKind::TooDeep { .. } => "too_deep",
            ErrorKind::WrongType { .. } => "wrong_type",
            ErrorKind::NotASchema => "not_a_schema",
            ErrorKind::UnresolvableRef { .. } => "unresolvable_ref",
            ErrorKind::UnsupportedRef { .. } => "unsupported_ref",
            ErrorKind::RefCycle { .. } => "ref_cycle",
            ErrorKind::InvalidSchema { .. } => "invalid_schema",
            ErrorKind::UnsupportedDraft { .. } => "unsupported_draft",
            ErrorKind::NotAManifest { .. } => "not_a_manifest",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = crate::pointer::shown(&self.pointer);
        match &self.kind {
            ErrorKind::NotJson {
                message,
                line,
                column,
            } => write!(f, "not JSON at line {line} column {column}: {message}"),
            ErrorKind::TooDeep { limit } => {
                write!(f, "at {at}: nesting deeper than {limit} levels")
            }
            ErrorKind::WrongType { keyword, expected } => {
                write!(f, "at {at}: keyword \"{keyword}\" must be {expected}")
            }
            ErrorKind::NotASchema => {
                write!(f, "at {at}: expected a schema (an object or a boolean)")
            }
            ErrorKind::UnresolvableRef { reference } => {
                write!(
                    f,
                    "at {at}: $ref \"{reference}\" does not resolve in this document"
                )
            }
            ErrorKind::UnsupportedRef { keyword, reference } => {
                write!(
                    f,
                    "at {at}: {keyword} \"{reference}\" cannot be followed statically; a union that needs it cannot be flattened"
                )
            }
            ErrorKind::RefCycle { reference } => {
                write!(
                    f,
                    "at {at}: $ref \"{reference}\" is part of a cycle of references"
                )
            }
            ErrorKind::InvalidSchema { message } => {
                write!(f, "at {at}: not a valid schema for its draft: {message}")
            }
            ErrorKind::UnsupportedDraft { declared } => {
                let draft = declared
                    .split('/')
                    .find(|s| s.starts_with("draft-"))
                    .unwrap_or(declared);
                write!(
                    f,
                    "at {at}: {draft} (\"{declared}\") is not read by flatjoin; it reads draft-04, draft-06, draft-07, 2019-09 and 2020-12"
                )
            }
            ErrorKind::NotAManifest { expected } => {
                write!(
                    f,
                    "at {at}: not an MCP tools/list result: expected {expected}"
                )
            }
        }
    }
}

impl std::error::Error for Error {}
