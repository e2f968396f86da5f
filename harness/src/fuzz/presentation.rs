//! `flatten_bytes`: arbitrary bytes → [`flatjoin::parse`] → [`flatjoin::flatten`] under every
//! reading, and the promises that hold for any input at all.

use crate::oracle::{self, Oracle, Outcome, Subject, Violation};
use flatjoin::{Flattened, OpenBranches, Options, Scope};
use serde_json::Value;

use crate::fuzz::verdict::{TargetResult, Verdict, excerpt, json_text};

/// Every combination of options a byte target tries: the default first (every site, `declared`),
/// then the `permissive` reading of open branches (SPEC §2.8), then root-only flattening.
pub fn option_sets() -> [Options; 3] {
    [
        options(Scope::All, OpenBranches::Declared),
        options(Scope::All, OpenBranches::Permissive),
        options(Scope::Root, OpenBranches::Declared),
    ]
}

/// `Options` with `scope` and `open_branches`, every other field at its default.
pub fn options(scope: Scope, open_branches: OpenBranches) -> Options {
    Options::new(scope, open_branches)
}

/// The `flatten_bytes` check: decodes `data` with the core's own depth-checked parser and runs
/// `check_flatten`. Bytes that are not JSON are [`Verdict::Uninteresting`].
pub fn check_flatten_bytes(data: &[u8]) -> TargetResult {
    let Ok(original) = flatjoin::parse(data) else {
        return Ok(Verdict::Uninteresting);
    };
    check_flatten(&original)
}

/// Flattens `original` under every entry of [`option_sets`] and checks, for each one that succeeds:
///
/// - **determinism**: a second run yields byte-identical JSON and equal diagnostics, and
///   [`flatjoin::flatten_owned`] yields the same (on every input, judgeable or not);
/// - **object-guarantee**: when the core says it flattened the root, the presentation has
///   `type: "object"` (on every input);
/// - when the harness's judge (`jsonschema`, formats asserted) compiles the original: the
///   presentation compiles too, and under the default options every schema-level oracle of the
///   harness holds ([`Subject::all`]: soundness, static soundness, object guarantee by the
///   harness's own reading of SPEC §1, structure retained, dedup, determinism, one
///   implementation, no blow-up, runtime boundary). Those oracles cost tens of milliseconds a
///   schema, so the other option sets get the cheap checks only: `runtime_diff` and
///   `join_structured` cover both readings with values.
///
/// An error from the core is an answer, not a violation (malformed input must give a typed error);
/// a panic, a hang or a stack overflow is what the fuzzer is there to catch.
fn check_flatten(original: &Value) -> TargetResult {
    let judgeable = oracle::judge(original).is_ok();
    let mut verdict = Verdict::Uninteresting;
    for (index, options) in option_sets().into_iter().enumerate() {
        let Ok(flat) = flatjoin::flatten(original, &options) else {
            continue;
        };
        verdict = Verdict::Checked;
        check_repeatable(original, &options, &flat)?;
        if !judgeable {
            continue;
        }
        if index > 0 {
            if let Err(error) = oracle::judge(&flat.schema) {
                let detail = format!(
                    "the presentation does not compile ({error}): {}; options {options:?}, input {}",
                    excerpt(&flat.schema, 400),
                    excerpt(original, 400)
                );
                return Err(Box::new(Violation::new(
                    Oracle::FlattenAccepts,
                    detail,
                    original,
                    &options,
                )));
            }
            continue;
        }
        match Subject::prepare(original, &options) {
            Ok(Ok(subject)) => {
                for (_, outcome) in subject.all() {
                    if let Outcome::Failed(violation) = outcome {
                        return Err(violation);
                    }
                }
            }
            Ok(Err(_not_judgeable)) => {}
            Err(violation) => return Err(Box::new(violation)),
        }
    }
    Ok(verdict)
}

/// The checks that need no validator: determinism, `flatten_owned`, and the object guarantee as
/// the core's own diagnostics state it.
fn check_repeatable(
    original: &Value,
    options: &Options,
    flat: &Flattened,
) -> Result<(), Box<Violation>> {
    let context = || format!("options {options:?}, input {}", excerpt(original, 400));
    let first = json_text(&flat.schema);
    let again = flatjoin::flatten(original, options);
    let owned = flatjoin::flatten_owned(original.clone(), options);
    for (how, result) in [("flatten", again), ("flatten_owned", owned)] {
        match result {
            Ok(other)
                if json_text(&other.schema) == first && other.diagnostics == flat.diagnostics => {}
            Ok(other) => {
                let detail = format!(
                    "{how} gave {} the second time; {}",
                    excerpt(&other.schema, 400),
                    context()
                );
                return Err(Box::new(Violation::new(
                    Oracle::Determinism,
                    detail,
                    original,
                    options,
                )));
            }
            Err(error) => {
                let detail = format!("{how} failed the second time with {error}; {}", context());
                return Err(Box::new(Violation::new(
                    Oracle::Determinism,
                    detail,
                    original,
                    options,
                )));
            }
        }
    }
    let root_flattened = flat
        .diagnostics
        .flattened
        .iter()
        .any(|site| site.pointer.is_empty());
    if root_flattened && flat.schema.get("type") != Some(&Value::from("object")) {
        let detail = format!(
            "root union gave {}; {}",
            excerpt(&flat.schema, 400),
            context()
        );
        return Err(Box::new(Violation::new(
            Oracle::ObjectGuarantee,
            detail,
            original,
            options,
        )));
    }
    Ok(())
}
