//! One case of the join-test format (see [`super`]), read into [`JoinCase`] once, and its
//! replay: every schema-level oracle under the case's options, then the case's own expectations
//! (its `tests`, expected `presentation`, `description_contains`), then its `variants`.

use flatjoin::{Options, OptionsError};
use serde_json::Value;

use super::{failed, options_from, with_fault};
use crate::identity::{Forget, canonical_text};
use crate::oracle::{self, Oracle, Outcome, Subject, Violation};

/// One case of the join-test format, read leniently: a field of the wrong JSON type reads as
/// absent (the replay has always passed over such fields rather than failing on them).
#[derive(Debug, Clone)]
pub(crate) struct JoinCase<'a> {
    /// `description` (`"(no description)"` when missing).
    pub description: &'a str,
    /// `schema`: the original.
    pub schema: &'a Value,
    /// `options` ([`options_from`]; the defaults when missing or refused).
    pub options: Options,
    /// Why `options` were refused (an unknown name, a member not a string): the replay fails
    /// the case instead of running it under options it did not ask for.
    pub options_error: Option<OptionsError>,
    /// `presentation`: the expected presentation, compared with annotations ignored.
    pub presentation: Option<&'a Value>,
    /// `description_contains`: JSON pointers of the presentation, with the texts its
    /// `description` must contain.
    pub description_contains: Vec<(&'a str, Vec<&'a str>)>,
    /// `variants`: `(compare, schema)`, each judged by [`compare_variant_with`].
    pub variants: Vec<(&'a str, &'a Value)>,
    /// `tests`.
    pub tests: Vec<JoinCaseTest<'a>>,
}

/// One entry of a case's `tests`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JoinCaseTest<'a> {
    /// `description` (`"test"` when missing).
    pub description: &'a str,
    /// `data`: the value.
    pub data: Option<&'a Value>,
    /// `original`: whether the original accepts it.
    pub original: Option<bool>,
    /// `presentation`: whether the presentation accepts it (`false`: outside the presentation's
    /// promise, the declared reading's keys of other branches).
    pub presentation: Option<bool>,
}

impl<'a> JoinCase<'a> {
    /// Reads a case; `None` without a `schema`.
    pub fn read(case: &'a Value) -> Option<JoinCase<'a>> {
        let array = |key: &str| {
            case.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        };
        let tests = array("tests")
            .map(|t| JoinCaseTest {
                description: t
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("test"),
                data: t.get("data"),
                original: t.get("original").and_then(Value::as_bool),
                presentation: t.get("presentation").and_then(Value::as_bool),
            })
            .collect();
        let variants = array("variants")
            .filter_map(|v| Some((v.get("compare")?.as_str()?, v.get("schema")?)))
            .collect();
        let description_contains = match case.get("description_contains") {
            Some(Value::Object(texts)) => texts
                .iter()
                .map(|(pointer, wanted)| {
                    let wanted = wanted.as_array().into_iter().flatten();
                    (pointer.as_str(), wanted.filter_map(Value::as_str).collect())
                })
                .collect(),
            _ => Vec::new(),
        };
        let (options, options_error) = match options_from(case.get("options")) {
            Ok(options) => (options, None),
            Err(e) => (Options::default(), Some(e)),
        };
        Some(JoinCase {
            description: case
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("(no description)"),
            schema: case.get("schema")?,
            options,
            options_error,
            presentation: case.get("presentation"),
            description_contains,
            variants,
            tests,
        })
    }

    /// The values of its tests that the original accepts and the case does not mark outside the
    /// presentation's promise: soundness samples.
    pub fn accepted_values(&self) -> Vec<Value> {
        self.tests
            .iter()
            .filter(|t| t.original == Some(true) && t.presentation != Some(false))
            .filter_map(|t| t.data.cloned())
            .collect()
    }
}

/// Replays one case of the join-test format: every schema-level oracle under the case's options,
/// then the case's own expectations, then its variants.
pub(super) fn replay_case(value: &Value, base: &Options) -> Vec<(Oracle, Outcome)> {
    let Some(mut case) = JoinCase::read(value) else {
        return Vec::new();
    };
    case.options = with_fault(case.options, base);
    if let Some(e) = &case.options_error {
        let message = format!("{}: options {e}", case.description);
        let v = Violation::new(
            Oracle::CorpusExpectations,
            message,
            case.schema,
            &case.options,
        );
        return vec![(Oracle::CorpusExpectations, failed(v))];
    }
    let subject = match Subject::prepare(case.schema, &case.options) {
        Ok(Ok(s)) => s,
        Ok(Err(reason)) => return Subject::unjudgeable(&reason, oracle::Sweep::Full),
        Err(v) => return vec![(Oracle::FlattenAccepts, failed(v))],
    };
    let subject = subject.with_instances(case.accepted_values(), Vec::new());
    let mut out = subject.all();
    let expectation = match expectation_problem(&case, &subject) {
        Some((message, data)) => failed(Violation {
            oracle: Oracle::CorpusExpectations,
            message: format!("{}: {message}", case.description),
            schema: case.schema.clone(),
            options: case.options.clone(),
            data,
            variant: None,
        }),
        None => Outcome::Passed(oracle::Measure {
            checked: case.tests.len(),
            ..oracle::Measure::default()
        }),
    };
    out.push((Oracle::CorpusExpectations, expectation));
    for (compare, other) in &case.variants {
        out.push(compare_variant(&subject, other, compare, &case.options));
    }
    out
}

/// What the case's own expectations find wrong (the last problem found: the verdicts stop at
/// the first wrong one, the expected presentation and the description texts are checked after
/// them), with the value that shows it.
fn expectation_problem(case: &JoinCase<'_>, subject: &Subject) -> Option<(String, Option<Value>)> {
    let mut problem = test_verdict_problem(case, subject);
    if let Some(expected) = case.presentation
        && canonical_text(expected, Forget::default())
            != canonical_text(&subject.flattened.schema, Forget::default())
    {
        problem = Some((
            format!(
                "the presentation differs from the expected one (annotations ignored): got {}",
                subject.flattened.schema
            ),
            None,
        ));
    }
    for (pointer, wanted) in &case.description_contains {
        let description = subject
            .flattened
            .schema
            .pointer(pointer)
            .and_then(|n| n.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("");
        for w in wanted {
            if !description.contains(w) {
                problem = Some((
                    format!(
                        "the description at {pointer} ({description:?}) does not contain {w:?}"
                    ),
                    None,
                ));
            }
        }
    }
    problem
}

/// The first test whose `original` or `presentation` verdict is not the judge's.
fn test_verdict_problem(case: &JoinCase<'_>, subject: &Subject) -> Option<(String, Option<Value>)> {
    for test in &case.tests {
        let Some(data) = test.data else {
            continue;
        };
        let label = test.description;
        if let Some(expected) = test.original
            && subject.original_accepts(data) != expected
        {
            return Some((
                format!(
                    "{label}: the original's verdict is not {expected} (the corpus case is wrong)"
                ),
                Some(data.clone()),
            ));
        }
        if let Some(expected) = test.presentation
            && subject.presentation_accepts(data) != expected
        {
            return Some((
                format!(
                    "{label}: the presentation's verdict is not {expected}; presentation: {}",
                    subject.flattened.schema
                ),
                Some(data.clone()),
            ));
        }
    }
    None
}

fn compare_variant(
    subject: &Subject,
    other: &Value,
    compare: &str,
    options: &Options,
) -> (Oracle, Outcome) {
    compare_variant_with(subject, other, compare, options, &oracle::core_present)
}

/// Compares the presentation of a case's variant (`present`'s) with the case's own, as its
/// `compare` says (`branch-order-invariance`, `dialect-invariance…`,
/// `duplicate-branch-invariance`).
pub fn compare_variant_with(
    subject: &Subject,
    other: &Value,
    compare: &str,
    options: &Options,
    present: oracle::Present<'_>,
) -> (Oracle, Outcome) {
    let base = &subject.flattened.schema;
    let (oracle, forget) = match compare {
        c if c.starts_with(Oracle::Dialect.name()) => (Oracle::Dialect, Forget::DIALECT),
        c if c == Oracle::DuplicateBranch.name() => (Oracle::DuplicateBranch, Forget::default()),
        _ => (Oracle::BranchOrder, Forget::BRANCH_ORDER),
    };
    let violation = |message: String| Violation {
        oracle,
        message,
        schema: subject.original.clone(),
        options: options.clone(),
        data: None,
        variant: Some((compare.to_owned(), other.clone())),
    };
    let presented = match present(other, options) {
        Ok(p) => p,
        Err(oracle::Unpresented::Failed(e)) => {
            return (oracle, failed(violation(format!("{e} (on the variant)"))));
        }
        Err(oracle::Unpresented::NotJudged(why)) => return (oracle, Outcome::Skipped(why)),
    };
    let problem = if oracle == Oracle::DuplicateBranch {
        let tag = oracle::discriminated_root(&subject.original).map(|u| u.tag);
        let fresh = oracle::discriminated_root(other)
            .and_then(|u| u.literals.last().and_then(|l| l.first().cloned()));
        match (tag, fresh) {
            (Some(tag), Some(fresh)) => oracle::compare_duplicate(base, &presented, &tag, &fresh),
            _ => Some("the variant is not a discriminated union with an added branch".into()),
        }
    } else if canonical_text(base, forget) != canonical_text(&presented, forget) {
        Some(format!(
            "the variant's presentation differs: {presented} vs {base}"
        ))
    } else {
        None
    };
    match problem {
        Some(p) => (oracle, failed(violation(p))),
        None => (
            oracle,
            Outcome::Passed(oracle::Measure {
                checked: 1,
                ..oracle::Measure::default()
            }),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_case_whose_options_name_an_unknown_value_fails_instead_of_running_under_the_defaults() {
        let case = json!({"schema": {"type": "object"}, "options": {"scope": "everywhere"}});
        let outcomes = replay_case(&case, &Options::default());
        let [(Oracle::CorpusExpectations, Outcome::Failed(v))] = outcomes.as_slice() else {
            panic!("expected one corpus-expectations failure, got {outcomes:?}");
        };
        assert!(
            v.message
                .contains("options at /scope: unknown scope \"everywhere\""),
            "{}",
            v.message
        );
        let good = json!({"schema": {"type": "object"}, "options": {"scope": "root"}});
        let read = JoinCase::read(&good).map(|c| (c.options, c.options_error));
        assert_eq!(
            read,
            Some((Options::default().with_scope(flatjoin::Scope::Root), None))
        );
    }
}
