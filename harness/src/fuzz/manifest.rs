//! `manifest_bytes`: arbitrary bytes → [`flatjoin::parse`] → [`flatjoin::flatten_manifest`], and the
//! promise that the manifest path and `flatten` are one implementation (SPEC I8).

use serde_json::Value;

use crate::fuzz::embedded;
use crate::fuzz::presentation::option_sets;
use crate::fuzz::verdict::{TargetResult, Verdict, excerpt, json_text};
use crate::oracle::{Oracle, Violation};

/// The `manifest_bytes` check: decodes `data` with the core's own depth-checked parser and runs
/// `check_manifest`. Bytes that are not JSON are [`Verdict::Uninteresting`].
pub fn check_manifest_bytes(data: &[u8]) -> TargetResult {
    let Ok(document) = flatjoin::parse(data) else {
        return Ok(Verdict::Uninteresting);
    };
    check_manifest(&document)
}

/// Runs the manifest path under every entry of [`option_sets`] and checks, for each one that
/// succeeds:
///
/// - **determinism**: a second run yields a byte-identical manifest;
/// - **one-implementation** (SPEC I8): each tool's `inputSchema` in the output is, byte for
///   byte, what [`flatjoin::flatten`] makes of that tool's `inputSchema` with the same options, with
///   the same diagnostics, and every other field of the manifest is untouched.
fn check_manifest(document: &Value) -> TargetResult {
    let mut verdict = Verdict::Uninteresting;
    for options in option_sets() {
        let Ok(flat) = flatjoin::flatten_manifest(document, &options) else {
            continue;
        };
        verdict = Verdict::Checked;
        let context = || format!("options {options:?}, manifest {}", excerpt(document, 400));

        let first = json_text(&flat.manifest);
        let again =
            flatjoin::flatten_manifest(document, &options).map(|again| json_text(&again.manifest));
        if again.as_ref().ok() != Some(&first) {
            let detail = format!("second run gave {again:?}; {}", context());
            return Err(Box::new(Violation::new(
                Oracle::Determinism,
                detail,
                document,
                &options,
            )));
        }

        // The output with every original `inputSchema` put back must be the input again.
        let mut restored = flat.manifest.clone();
        let mut diagnostics = flat.tools.iter();
        for (index, tool) in embedded::tools(document).iter().enumerate() {
            let Some(schema) = tool.get("inputSchema") else {
                continue;
            };
            let got = restored.pointer_mut(&format!("/tools/{index}/inputSchema"));
            let Some(got) = got else {
                let detail = format!("tool {index} lost its inputSchema; {}", context());
                return Err(Box::new(Violation::new(
                    Oracle::OneImplementation,
                    detail,
                    document,
                    &options,
                )));
            };
            let expected = flatjoin::flatten(schema, &options);
            let same_schema = expected
                .as_ref()
                .is_ok_and(|e| json_text(&e.schema) == json_text(got));
            let same_diagnostics = expected
                .as_ref()
                .is_ok_and(|e| diagnostics.next().map(|(_, d)| d) == Some(&e.diagnostics));
            if !same_schema || !same_diagnostics {
                let detail = format!(
                    "tool {index}: the manifest path gave {} (diagnostics equal: {same_diagnostics}), \
                     flatten gave {}; {}",
                    excerpt(got, 300),
                    expected.map_or_else(|e| format!("error {e}"), |e| excerpt(&e.schema, 300)),
                    context()
                );
                return Err(Box::new(Violation::new(
                    Oracle::OneImplementation,
                    detail,
                    document,
                    &options,
                )));
            }
            *got = schema.clone();
        }
        if &restored != document {
            let detail = format!(
                "fields other than inputSchema changed: {}; {}",
                excerpt(&restored, 400),
                context()
            );
            return Err(Box::new(Violation::new(
                Oracle::OneImplementation,
                detail,
                document,
                &options,
            )));
        }
    }
    Ok(verdict)
}
