//! `runtime_diff`: a corpus schema plus an arbitrary JSON value → the runtime's verdict equals plain
//! `jsonschema` validation of the original, and a value the original accepts passes the presentation.

use std::sync::OnceLock;

use crate::oracle::{self, Oracle, Violation};
use flatjoin::{OpenBranches, Options, Runtime, Scope};
use serde_json::Value;

use crate::fuzz::embedded::{self, CorpusSchema};
use crate::fuzz::presentation::options;
use crate::fuzz::verdict::{TargetResult, Verdict, excerpt};

/// One schema compiled for the check: the judge, the runtime and the permissive presentation's
/// judge. Compiling is most of the cost of a check, so the fuzz target compiles each corpus schema
/// once ([`prepared_corpus`]); a regression replay compiles its own.
struct Prepared {
    schema: Value,
    plain: jsonschema::Validator,
    runtime: Runtime,
    /// The presentation flattened under [`OpenBranches::Permissive`] and its judge, or why there is
    /// none (the core's error, or the judge's): reported only when a value needs it.
    presentation: Result<(Value, jsonschema::Validator), String>,
}

impl Prepared {
    /// Compiles `schema`; `None` when the judge or the runtime will not (nothing to compare).
    pub fn new(schema: &Value) -> Option<Prepared> {
        let plain = oracle::judge(schema).ok()?;
        // The judge asserts formats; so does the runtime here (its default follows the draft).
        let asserting = flatjoin::RuntimeOptions {
            assert_formats: true,
            ..flatjoin::RuntimeOptions::default()
        };
        let runtime = Runtime::with_options(schema, &asserting).ok()?;
        let permissive = options(Scope::All, OpenBranches::Permissive);
        let presentation = flatjoin::flatten(schema, &permissive)
            .map_err(|error| format!("flatten failed: {error}"))
            .and_then(|flat| {
                let judge = oracle::judge(&flat.schema)
                    .map_err(|error| format!("the presentation does not compile: {error}"))?;
                Ok((flat.schema, judge))
            });
        Some(Prepared {
            schema: schema.clone(),
            plain,
            runtime,
            presentation,
        })
    }

    /// Checks one value (see [`check_runtime_diff`]).
    pub fn check(&self, value: &Value) -> TargetResult {
        let context = || {
            format!(
                "schema {}, value {}",
                excerpt(&self.schema, 300),
                excerpt(value, 300)
            )
        };
        let boundary = |detail: String| {
            Box::new(
                Violation::new(
                    Oracle::RuntimeBoundary,
                    detail,
                    &self.schema,
                    &Options::default(),
                )
                .with_data(value),
            )
        };
        let expected = self.plain.is_valid(value);
        let verdict = self.runtime.is_valid(value);
        if verdict != expected {
            let detail = format!(
                "runtime says {verdict}, the judge says {expected}; {}",
                context()
            );
            return Err(boundary(detail));
        }
        if self.runtime.validate(value).is_ok() != verdict {
            let detail = format!(
                "validate disagrees with is_valid ({verdict}); {}",
                context()
            );
            return Err(boundary(detail));
        }
        if expected {
            let accepted = match &self.presentation {
                Ok((_, judge)) => judge.is_valid(value),
                Err(_) => false,
            };
            if !accepted {
                let presentation = match &self.presentation {
                    Ok((schema, _)) => excerpt(schema, 600),
                    Err(why) => why.clone(),
                };
                let detail = format!(
                    "the original accepts the value, the permissive presentation does not: \
                     {presentation}; {}",
                    context()
                );
                return Err(Box::new(
                    Violation::new(
                        Oracle::Soundness,
                        detail,
                        &self.schema,
                        &options(Scope::All, OpenBranches::Permissive),
                    )
                    .with_data(value),
                ));
            }
        }
        Ok(Verdict::Checked)
    }
}

/// Every schema of [`embedded::schemas`], compiled once per process (`None` where it does not compile).
fn prepared_corpus() -> &'static [Option<Prepared>] {
    static PREPARED: OnceLock<Vec<Option<Prepared>>> = OnceLock::new();
    PREPARED.get_or_init(|| {
        embedded::schemas()
            .iter()
            .map(|s| Prepared::new(&s.schema))
            .collect()
    })
}

/// The index a `runtime_diff` input picks: its first two bytes (big-endian) modulo the number of
/// corpus schemas, and the rest of the input.
fn pick(data: &[u8]) -> Option<(usize, &[u8])> {
    let (index, rest) = data.split_first_chunk::<2>()?;
    let count = embedded::schemas().len();
    (count > 0).then(|| (usize::from(u16::from_be_bytes(*index)) % count, rest))
}

/// Decodes a `runtime_diff` input: the first two bytes (big-endian) pick a schema of
/// [`embedded::schemas`] (modulo their count), the rest is the value, parsed with [`flatjoin::parse`].
/// `None` when the input is shorter than two bytes, the rest is not JSON, or the corpus is empty.
pub fn runtime_diff_input(data: &[u8]) -> Option<(&'static CorpusSchema, Value)> {
    let (index, rest) = pick(data)?;
    let value = flatjoin::parse(rest).ok()?;
    Some((embedded::schemas().get(index)?, value))
}

/// The `runtime_diff` check on raw fuzzer bytes: the schema [`runtime_diff_input`] picks, compiled
/// once (`prepared_corpus`), checked on the value by `Prepared::check`.
pub fn check_runtime_diff_bytes(data: &[u8]) -> TargetResult {
    let Some((index, rest)) = pick(data) else {
        return Ok(Verdict::Uninteresting);
    };
    let Some(Some(prepared)) = prepared_corpus().get(index) else {
        return Ok(Verdict::Uninteresting);
    };
    let Ok(value) = flatjoin::parse(rest) else {
        return Ok(Verdict::Uninteresting);
    };
    prepared.check(&value)
}

/// Checks one value against one schema:
///
/// - **runtime-boundary** (the runtime half): [`Runtime::is_valid`] equals plain validation of the original by the
///   harness's judge ([`oracle::judge`]: `jsonschema`, formats asserted, as the runtime promises),
///   and [`Runtime::validate`] agrees with both;
/// - **soundness** (SPEC I3, permissive reading): when the original accepts the value, the presentation
///   flattened under [`OpenBranches::Permissive`] accepts it too (every accepted value is promised
///   under that reading), by the same judge.
///
/// Schemas that the judge or the runtime will not compile are [`Verdict::Uninteresting`].
pub fn check_runtime_diff(schema: &Value, value: &Value) -> TargetResult {
    match Prepared::new(schema) {
        Some(prepared) => prepared.check(value),
        None => Ok(Verdict::Uninteresting),
    }
}
