//! What a check answers: the input was checked, was not worth keeping, or broke a promise (an
//! [`oracle::Violation`](crate::oracle::Violation), the same type every oracle returns).

use crate::oracle::Violation;

/// The answer of a check that found nothing wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The input reached the library and every applicable property held.
    Checked,
    /// The input never reached the interesting part (not JSON, not a schema the validator compiles,
    /// a case with nothing to join). A structured target rejects it from its corpus.
    Uninteresting,
}

/// The result of every check: `Ok` with a [`Verdict`], or the [`Violation`] found (the harness's
/// one violation type, boxed: it carries the counterexample).
pub type TargetResult = Result<Verdict, Box<Violation>>;

/// The compact JSON text of `value`: what "byte-identical" compares (`Value`'s own equality
/// ignores object key order, which the join promises to keep).
pub(crate) fn json_text(value: &serde_json::Value) -> String {
    value.to_string()
}

/// Short JSON text of `value` for a violation's detail, cut to about `limit` bytes.
pub(crate) fn excerpt(value: &serde_json::Value, limit: usize) -> String {
    let text = value.to_string();
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}
