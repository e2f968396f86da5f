//! The oracles that flatten an input again: determinism (the core's, and any implementation's
//! through [`Present`]), one implementation (the manifest path), and idempotence where it is
//! claimed.

#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use serde_json::json;

use super::{
    Judged, Oracle, Outcome, Present, Subject, passed, present_with, to_text, walk_schemas,
};
use crate::identity::{Forget, canonical_text};

impl Subject {
    /// Determinism: flattening again (from a copy, and through `flatten_owned`) gives a
    /// byte-identical presentation and the same diagnostics.
    pub fn determinism(&self) -> Judged {
        let first = to_text(&self.flattened.schema);
        let again = flatjoin::flatten(&self.original.clone(), &self.options);
        let owned = flatjoin::flatten_owned(self.original.clone(), &self.options);
        for (how, result) in [("flatten", again), ("flatten_owned", owned)] {
            match result {
                Ok(f)
                    if to_text(&f.schema) == first
                        && f.diagnostics == self.flattened.diagnostics => {}
                Ok(f) => {
                    let mut v = self.violation(
                        Oracle::Determinism,
                        format!(
                            "{how} gave a different output the second time: {} vs {first}",
                            to_text(&f.schema)
                        ),
                    );
                    v.variant = Some(("second output".into(), f.schema));
                    return Err(v);
                }
                Err(e) => {
                    return Err(self.violation(
                        Oracle::Determinism,
                        format!("{how} failed the second time: {e}"),
                    ));
                }
            }
        }
        Ok(passed(2))
    }

    /// One owning implementation (SPEC I8): the manifest path yields the byte-identical schema and
    /// the same diagnostics, and leaves the tool's other fields untouched.
    pub fn one_implementation(&self) -> Judged {
        let manifest =
            json!({"tools": [{"name": "probe", "description": "d", "inputSchema": self.original}]});
        match flatjoin::flatten_manifest(&manifest, &self.options) {
            Ok(out) => {
                let tool = &out.manifest["tools"][0];
                let same = to_text(&tool["inputSchema"]) == to_text(&self.flattened.schema);
                let diags = out.tools.first().map(|(_, d)| d) == Some(&self.flattened.diagnostics);
                let untouched = tool["name"] == "probe" && tool["description"] == "d";
                if same && diags && untouched {
                    Ok(passed(1))
                } else {
                    Err(self.violation(
                        Oracle::OneImplementation,
                        format!(
                            "the manifest path differs (schema equal: {same}, diagnostics equal: {diags}, other fields untouched: {untouched}): {}",
                            tool["inputSchema"]
                        ),
                    ))
                }
            }
            Err(e) => Err(self.violation(
                Oracle::OneImplementation,
                format!("flatten_manifest failed: {e}"),
            )),
        }
    }

    /// Determinism of any implementation: asked again, `present` gives a byte-identical
    /// presentation.
    pub fn determinism_with(&self, present: Present<'_>) -> Judged {
        let again = match present_with(present, &self.original, &self.options, Oracle::Determinism)?
        {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        let first = to_text(&self.flattened.schema);
        if to_text(&again) != first {
            let mut v = self.violation(
                Oracle::Determinism,
                format!(
                    "asked again, the implementation gave a different output: {} vs {first}",
                    to_text(&again)
                ),
            );
            v.variant = Some(("second output".into(), again));
            return Err(v);
        }
        Ok(passed(1))
    }

    /// Idempotence where it is claimed: a presentation with no `oneOf`/`anyOf` left anywhere
    /// has nothing to flatten, so flattening it again yields it unchanged up to annotations (the
    /// core returns such a document as it is). A presentation that still holds a union is
    /// skipped: flattening is not idempotent in general (SPEC §4, "not claimed").
    pub fn idempotence_with(&self, present: Present<'_>) -> Judged {
        let mut union = false;
        walk_schemas(&self.flattened.schema, &mut |node| {
            union |= node.get("oneOf").is_some() || node.get("anyOf").is_some();
        });
        if union {
            return Ok(Outcome::Skipped(
                "the presentation still holds a union (not claimed, SPEC §4)".into(),
            ));
        }
        let again = match present_with(
            present,
            &self.flattened.schema,
            &self.options,
            Oracle::Idempotence,
        )? {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        if canonical_text(&again, Forget::default())
            != canonical_text(&self.flattened.schema, Forget::default())
        {
            let mut v = self.violation(
                Oracle::Idempotence,
                format!(
                    "flattening the presentation {} again changes it: {again}",
                    self.flattened.schema
                ),
            );
            v.variant = Some(("flattened again".into(), again));
            return Err(v);
        }
        Ok(passed(1))
    }
}
