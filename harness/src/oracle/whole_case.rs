//! The oracles over a whole model case: branch-order, duplicate-branch and dialect invariance
//! (of the core's presentations, or any implementation's through [`Present`]), the draft-04
//! forms, and [`evaluate_case`], every oracle on one case.

#![allow(
    clippy::result_large_err,
    reason = "violations are rare and carry the counterexample"
)]

use std::collections::BTreeMap;

use flatjoin::Options;
use serde_json::Value;

use super::{
    Judged, Oracle, Outcome, Present, Subject, Sweep, Violation, core_present, passed,
    present_with, violation,
};
use crate::drafts::{self, Draft};
use crate::identity::{Forget, canonical_data, canonical_text, sorted_text};
use crate::model::{Case, Form, Literal};
use crate::render::{
    DIALECTS, Dialect, literal_value, one_repeated_union_inline, render, render_as,
};

/// Branch-order invariance (model): the case with its root branches reversed and rotated yields a
/// presentation structurally identical up to the order of alternatives and annotations. Skipped
/// when another property also qualifies as the discriminator (the first branch decides which).
pub fn branch_order_invariance(case: &Case, options: &Options) -> Judged {
    branch_order_invariance_with(case, options, &core_present)
}

/// [`branch_order_invariance`] of the presentations `present` gives.
pub fn branch_order_invariance_with(
    case: &Case,
    options: &Options,
    present: Present<'_>,
) -> Judged {
    let case = &case.normalized();
    if !case.rival_discriminators().is_empty() {
        return Ok(Outcome::Skipped(
            "another property qualifies as discriminator".into(),
        ));
    }
    let original = render(case);
    let base = match present_with(present, &original, options, Oracle::BranchOrder)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    let forget = Forget::BRANCH_ORDER;
    let mut checked = 0;
    for permutation in ["reversed", "rotated"] {
        let mut permuted = case.clone();
        if permutation == "reversed" {
            permuted.root.branches.reverse();
        } else {
            permuted.root.branches.rotate_left(1);
        }
        let variant = render(&permuted);
        let other = match present_with(present, &variant, options, Oracle::BranchOrder)? {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        if canonical_text(&base, forget) != canonical_text(&other, forget) {
            let mut v = violation(
                Oracle::BranchOrder,
                format!(
                    "{permutation} branches change the presentation beyond orders and annotations: {base} vs {other}"
                ),
                &original,
                options,
            );
            v.variant = Some((Oracle::BranchOrder.name().into(), variant));
            return Err(v);
        }
        checked += 1;
    }
    Ok(passed(checked))
}

/// A string literal no branch of the root union uses (`s250` unless taken).
fn fresh_tag(case: &Case) -> Literal {
    let used: Vec<String> = case
        .root
        .branches
        .iter()
        .flat_map(|b| b.tags.iter().map(|l| l.value_key()))
        .collect();
    (250u8..=255)
        .chain(0..250)
        .map(Literal::Str)
        .find(|l| !used.contains(&l.value_key()))
        .unwrap_or(Literal::Half(100))
}

/// Duplicate-branch invariance (model): appending a copy of the first branch with a new literal
/// changes only the discriminator's `enum` (by exactly that literal) and annotations.
pub fn duplicate_branch_invariance(case: &Case, options: &Options) -> Judged {
    duplicate_branch_invariance_with(case, options, &core_present)
}

/// [`duplicate_branch_invariance`] of the presentations `present` gives.
pub fn duplicate_branch_invariance_with(
    case: &Case,
    options: &Options,
    present: Present<'_>,
) -> Judged {
    let case = &case.normalized();
    if !case.rival_discriminators().is_empty() {
        return Ok(Outcome::Skipped(
            "another property qualifies as discriminator".into(),
        ));
    }
    let Some(first) = case.root.branches.first() else {
        return Ok(Outcome::Skipped("no branch".into()));
    };
    let original = render(case);
    let base = match present_with(present, &original, options, Oracle::DuplicateBranch)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    let fresh = fresh_tag(case);
    let mut copy = first.clone();
    copy.tags = vec![fresh];
    let mut bigger = case.clone();
    bigger.root.branches.push(copy);
    let variant = render(&bigger);
    let other = match present_with(present, &variant, options, Oracle::DuplicateBranch)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    if let Some(message) =
        compare_duplicate(&base, &other, case.root.tag_name(), &literal_value(fresh))
    {
        let mut v = violation(Oracle::DuplicateBranch, message, &original, options);
        v.variant = Some((Oracle::DuplicateBranch.name().into(), variant));
        return Err(v);
    }
    Ok(passed(1))
}

/// Compares a presentation with the one of the same union plus a copied branch whose literal is
/// `fresh`; `None` when they differ only as allowed.
pub fn compare_duplicate(base: &Value, other: &Value, tag: &str, fresh: &Value) -> Option<String> {
    let strip = |p: &Value| {
        let mut p = p.clone();
        if let Some(props) = p.get_mut("properties").and_then(Value::as_object_mut) {
            props.remove(tag);
        }
        canonical_text(
            &p,
            Forget {
                alternative_order: true,
                dialect: false,
                draft04: false,
                references: false,
            },
        )
    };
    if strip(base) != strip(other) {
        return Some(format!(
            "a copied branch changes more than the discriminator: {base} vs {other}"
        ));
    }
    let enum_of = |p: &Value| -> Vec<String> {
        let mut e: Vec<String> = p["properties"][tag]["enum"]
            .as_array()
            .map(|a| a.iter().map(|v| sorted_text(&canonical_data(v))).collect())
            .unwrap_or_default();
        e.sort();
        e
    };
    let mut expected = enum_of(base);
    expected.push(sorted_text(&canonical_data(fresh)));
    expected.sort();
    let got = enum_of(other);
    if got != expected {
        return Some(format!(
            "the discriminator enum after adding {fresh} is {got:?}, expected {expected:?}"
        ));
    }
    None
}

/// No blow-up on a union used at several places (SPEC §4, §6 decision 73), in Pydantic's form:
/// the same `oneOf` of `$ref`s at each place, whose join must not be copied into each. The
/// reference (Zod v4) form writes each place inline, so only this form can show a multiplied
/// join; skipped where no union repeats or the form does not apply. Judged again with one of
/// the places written inline ([`one_repeated_union_inline`]), where one stands at three places
/// or more: the inline place's flat object is the shared join's, which the presentation must
/// not write beside its definition.
pub fn no_blow_up_repeated_with(case: &Case, options: &Options, present: Present<'_>) -> Judged {
    let case = &case.normalized();
    if !case.repeats_union() {
        return Ok(Outcome::Skipped("no union stands at two places".into()));
    }
    let Some(original) = render_as(case, Dialect::Pydantic) else {
        return Ok(Outcome::Skipped("no Pydantic form of this case".into()));
    };
    let mixed = one_repeated_union_inline(&original);
    let mut judged = 0;
    for original in std::iter::once(original).chain(mixed) {
        let presentation = match present_with(present, &original, options, Oracle::NoBlowUp)? {
            Ok(p) => p,
            Err(skipped) if judged == 0 => return Ok(skipped),
            Err(_) => continue,
        };
        if let Some(message) = super::one_flatten::blow_up(&original, options, &presentation) {
            return Err(violation(Oracle::NoBlowUp, message, &original, options));
        }
        judged += 1;
    }
    Ok(passed(judged))
}

/// Folds [`no_blow_up_repeated_with`]'s outcome into the case's no-blow-up outcome: a violation
/// of either is the case's.
pub fn merge_no_blow_up(outcomes: &mut [(Oracle, Outcome)], repeated: Outcome) {
    if let Outcome::Failed(_) = repeated
        && let Some((_, outcome)) = outcomes.iter_mut().find(|(o, _)| *o == Oracle::NoBlowUp)
        && !matches!(outcome, Outcome::Failed(_))
    {
        *outcome = repeated;
    }
}

/// Dialect invariance (model): every dialect form of the case yields a presentation structurally
/// identical to the Zod v4 form's (annotations, root definitions and the location of definitions
/// ignored).
pub fn dialect_invariance(case: &Case, options: &Options) -> Judged {
    dialect_invariance_with(case, options, &core_present)
}

/// [`dialect_invariance`] of the presentations `present` gives.
pub fn dialect_invariance_with(case: &Case, options: &Options, present: Present<'_>) -> Judged {
    let case = &case.normalized();
    let original = render(case);
    let base = match present_with(present, &original, options, Oracle::Dialect)? {
        Ok(p) => p,
        Err(skipped) => return Ok(skipped),
    };
    let forget = Forget::DIALECT;
    let base_text = canonical_text(&base, forget);
    let mut checked = 0;
    for dialect in DIALECTS.iter().skip(1) {
        let Some(variant) = render_as(case, *dialect) else {
            continue;
        };
        let other = match present_with(present, &variant, options, Oracle::Dialect)? {
            Ok(p) => p,
            Err(skipped) => return Ok(skipped),
        };
        if canonical_text(&other, forget) != base_text {
            let mut v = violation(
                Oracle::Dialect,
                format!(
                    "the {} form yields a different presentation: {other} vs {base}",
                    dialect.name()
                ),
                &original,
                options,
            );
            v.variant = Some((dialect_variant_name(*dialect), variant));
            return Err(v);
        }
        checked += 1;
    }
    Ok(passed(checked))
}

/// Draft forms (model): the reference rendering spelled in draft-04 ([`drafts::rewrite`]) — the
/// tags as one-value `enum`s, and with `const` kept, an unknown keyword there, so that the union
/// is no discriminated union — is judged as a subject of its own by the one-flatten oracles
/// (soundness under draft-04's reading of `integer`, presentation validity by draft-04's
/// meta-schema, …). The violation names the form and the inner oracle; its schema is the form.
pub fn draft_forms(case: &Case, options: &Options) -> Judged {
    let original = render(&case.normalized());
    let mut checked = 0;
    for (keep_const, form) in [(false, "draft-04"), (true, "draft-04 with const kept")] {
        let schema = drafts::rewrite(&original, Draft::Draft4, keep_const);
        let subject = match Subject::prepare(&schema, options) {
            Ok(Ok(subject)) => subject,
            // The judge cannot compile the form: nothing to judge it by.
            Ok(Err(_)) => continue,
            Err(v) => return Err(in_draft_form(v, form)),
        };
        for (_, outcome) in subject.outcomes(Sweep::OneFlatten) {
            if let Outcome::Failed(v) = outcome {
                return Err(in_draft_form(*v, form));
            }
        }
        checked += 1;
    }
    Ok(passed(checked))
}

fn in_draft_form(mut v: Violation, form: &str) -> Violation {
    v.message = format!("the {form} form, {}: {}", v.oracle, v.message);
    v.oracle = Oracle::DraftForms;
    v
}

fn dialect_variant_name(dialect: Dialect) -> String {
    format!("{}:{}", Oracle::Dialect, dialect.name())
}

/// Everything the harness checks on one generated case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseReport {
    /// Each oracle's outcome, in [`Oracle::ALL`] order (model oracles last).
    pub outcomes: Vec<(Oracle, Outcome)>,
    /// The widening measure of the case.
    pub widening: Option<f64>,
    /// What the join made of the case's unions (`None` when the core refused the case).
    pub unions: Option<UnionTally>,
}

/// The forms of a model case's root union, in the report's order ([`form_label`]).
pub const FORM_LABELS: [&str; 8] = [
    "internally tagged",
    "internally tagged, a tag with a default",
    "internally tagged, a branch itself a union (nested)",
    "adjacently tagged",
    "adjacently tagged, with unit variants",
    "externally tagged",
    "externally tagged, with unit variants (a string branch)",
    "untagged",
];

/// The form of `case`'s root union (SPEC §2.9), one of [`FORM_LABELS`]: a nested union wins
/// over a defaulted tag.
pub fn form_label(case: &Case) -> &'static str {
    let root = &case.root;
    let unit = root.branches.iter().any(|b| b.unit);
    let i = match root.form {
        Form::External if root.admits_non_object() => 6,
        Form::Internal if root.has_inner_union() => 2,
        Form::Internal if root.branches.iter().any(|b| b.tag_default) => 1,
        Form::Internal => 0,
        Form::Adjacent if unit => 4,
        Form::Adjacent => 3,
        Form::External => 5,
        Form::Untagged => 7,
    };
    FORM_LABELS[i]
}

/// What the join made of one model case's unions (SPEC §2.9): the root's form, whether the
/// presentation's root is one object, and the union sites the diagnostics name, flattened or
/// left by reason code. Read from the presentation and the diagnostics as they are; the
/// `coverage` oracle judges them.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct UnionTally {
    /// The root union's form, one of [`FORM_LABELS`].
    pub form: String,
    /// The presentation's root is `type: "object"` with no root `oneOf`/`anyOf`.
    pub root_object: bool,
    /// Union sites listed as flattened.
    pub flattened: u32,
    /// Union sites left as they are, by reason code (`SkipReason::code`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped: BTreeMap<String, u32>,
}

impl UnionTally {
    /// The tally of `case` flattened into `flat`.
    pub fn of(case: &Case, flat: &flatjoin::Flattened) -> UnionTally {
        let mut skipped = BTreeMap::new();
        for site in &flat.diagnostics.skipped {
            *skipped.entry(site.reason.code().to_owned()).or_insert(0) += 1;
        }
        UnionTally {
            form: form_label(case).to_owned(),
            root_object: super::is_one_object(&flat.schema),
            flattened: u32::try_from(flat.diagnostics.flattened.len()).unwrap_or(u32::MAX),
            skipped,
        }
    }
}

impl CaseReport {
    /// The first violation, if any.
    pub fn first_violation(&self) -> Option<&Violation> {
        self.outcomes.iter().find_map(|(_, o)| match o {
            Outcome::Failed(v) => Some(&**v),
            _ => None,
        })
    }
}

/// Runs every oracle on one case under `options`, returning all outcomes (a violation is an
/// outcome, not an early return).
pub fn evaluate_case(case: &Case, options: &Options) -> CaseReport {
    evaluate_case_with(case, options, Sweep::Full)
}

/// [`evaluate_case`] with the oracles of `sweep` only.
pub fn evaluate_case_with(case: &Case, options: &Options, sweep: Sweep) -> CaseReport {
    let case = case.normalized();
    let original = render(&case);
    let run = |r: Judged| r.unwrap_or_else(|v| Outcome::Failed(Box::new(v)));
    let (mut outcomes, widening, unions) = match Subject::prepare(&original, options) {
        Ok(Ok(subject)) => {
            let widening = (sweep == Sweep::Full).then(|| subject.widening()).flatten();
            let unions = UnionTally::of(&case, &subject.flattened);
            (subject.outcomes(sweep), widening, Some(unions))
        }
        Ok(Err(reason)) => (
            vec![(Oracle::FlattenAccepts, Outcome::Skipped(reason.into()))],
            None,
            None,
        ),
        Err(v) => (
            vec![(Oracle::FlattenAccepts, Outcome::Failed(Box::new(v)))],
            None,
            None,
        ),
    };
    if sweep == Sweep::Full {
        outcomes.push((
            Oracle::BranchOrder,
            run(branch_order_invariance(&case, options)),
        ));
        outcomes.push((
            Oracle::DuplicateBranch,
            run(duplicate_branch_invariance(&case, options)),
        ));
        outcomes.push((Oracle::Dialect, run(dialect_invariance(&case, options))));
        let repeated = run(no_blow_up_repeated_with(&case, options, &core_present));
        merge_no_blow_up(&mut outcomes, repeated);
        outcomes.push((Oracle::DraftForms, run(draft_forms(&case, options))));
    }
    CaseReport {
        outcomes,
        widening,
        unions,
    }
}

/// Runs the oracles of `sweep` on one case, the first violation as the error; the
/// `join_structured` fuzz target's entry point. The case is normalised first.
pub fn check_case(case: &Case, options: &Options, sweep: Sweep) -> Result<CaseReport, Violation> {
    let report = evaluate_case_with(case, options, sweep);
    match report.first_violation() {
        Some(v) => Err(v.clone()),
        None => Ok(report),
    }
}
