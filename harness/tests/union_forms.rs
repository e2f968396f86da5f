//! The union forms real programs write (SPEC §2.9), as the model generator draws them: each
//! form is drawn within a few hundred cases of `flatjoin check`'s default seed, at the root and
//! nested; every dialect form of a case accepts exactly what the others accept; and the sampler
//! proposes, for every branch and every branch of a branch that is itself a union, a value the
//! original accepts.

use std::collections::{BTreeMap, BTreeSet};

use flatjoin_harness::check::{self, DEFAULT_SEED};
use flatjoin_harness::model::{Case, Form, Literal, Shape, Union, variant_name};
use flatjoin_harness::oracle::{FORM_LABELS, Sweep, evaluate_case_with, judge};
use flatjoin_harness::render::{self, DIALECTS, literal_value, render_form};
use flatjoin_harness::sample::{self, Reading};
use proptest::strategy::ValueTree;
use serde_json::{Value, json};

/// Case `i` of `flatjoin check`'s default seed.
fn model_case(i: u32) -> Case {
    check::model_case(DEFAULT_SEED, i)
        .expect("the generator draws a case")
        .current()
}

/// What a case shows of the forms: labels for its root and for the unions below it.
fn labels(case: &Case) -> Vec<&'static str> {
    let root = &case.root;
    let mut out = vec![match (root.form, root.has_inner_union()) {
        (Form::Internal, false) => "root: discriminated union",
        (Form::Internal, true) => "root: nested discriminated union",
        (Form::Adjacent, _) => "root: adjacently tagged",
        (Form::External, _) if root.admits_non_object() => "root: externally tagged with a unit",
        (Form::External, _) => "root: externally tagged",
        (Form::Untagged, _) => "root: untagged",
    }];
    if root.form == Form::Adjacent && root.branches.iter().any(|b| b.unit) {
        out.push("root: adjacently tagged with a unit");
    }
    for u in case.unions().into_iter().skip(1) {
        out.push(match (u.form, u.has_inner_union()) {
            (Form::Internal, false) => "nested: discriminated union",
            (Form::Internal, true) => "nested: nested discriminated union",
            (Form::Adjacent, _) => "nested: adjacently tagged",
            (Form::External, _) => "nested: externally tagged",
            (Form::Untagged, _) => "nested: untagged",
        });
    }
    let mut shapes: Vec<&Shape> = case.defs.iter().collect();
    for u in case.unions() {
        for b in &u.branches {
            shapes.extend(b.fields.iter().map(|f| &f.shape));
        }
    }
    if shapes.iter().any(|s| list_of_union(s)) {
        out.push("a list of unions");
    }
    out
}

fn list_of_union(shape: &Shape) -> bool {
    match shape {
        Shape::Array { items, .. } => matches!(**items, Shape::Union(_)) || list_of_union(items),
        Shape::Nullable { inner, .. } => list_of_union(inner),
        Shape::Object { fields, .. } => fields.iter().any(|f| list_of_union(&f.shape)),
        _ => false,
    }
}

/// How many of the default seed's first cases a form may take to appear.
const WITHIN: u32 = 300;

#[test]
fn every_form_is_drawn_at_the_root_and_nested_within_a_few_hundred_cases() {
    let mut first: BTreeMap<&str, u32> = BTreeMap::new();
    let mut roots: BTreeMap<&str, u32> = BTreeMap::new();
    for i in 0..WITHIN {
        let case = model_case(i);
        let labels = labels(&case);
        *roots.entry(labels[0]).or_default() += 1;
        for label in labels {
            first.entry(label).or_insert(i);
        }
    }
    for label in [
        "root: discriminated union",
        "root: nested discriminated union",
        "root: adjacently tagged",
        "root: adjacently tagged with a unit",
        "root: externally tagged",
        "root: externally tagged with a unit",
        "root: untagged",
        "nested: discriminated union",
        "nested: nested discriminated union",
        "nested: adjacently tagged",
        "nested: externally tagged",
        "nested: untagged",
        "a list of unions",
    ] {
        assert!(
            first.contains_key(label),
            "not drawn in {WITHIN} cases: {label} (first seen: {first:?})"
        );
    }
    // The discriminated unions of before stay the majority of roots.
    let plain = roots["root: discriminated union"] + roots["root: adjacently tagged"];
    assert!(plain * 2 > WITHIN, "{roots:?}");
}

/// The values every dialect form of `case` proposes, under both readings.
fn proposals(forms: &[(&str, Value)]) -> Vec<Value> {
    let mut values = Vec::new();
    for (_, schema) in forms {
        for reading in [Reading::Declared, Reading::Permissive] {
            for branch in sample::branch_samples(schema, reading) {
                values.extend(branch.values);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    values.retain(|v| seen.insert(v.to_string()));
    values
}

/// `union` and every union below it with no tag defaulted.
fn without_defaults(union: &mut Union) {
    for b in &mut union.branches {
        b.tag_default = false;
        if let Some(inner) = &mut b.inner {
            without_defaults(inner);
        }
        for f in &mut b.fields {
            shape_without_defaults(&mut f.shape);
        }
    }
}

fn shape_without_defaults(shape: &mut Shape) {
    match shape {
        Shape::Union(u) => without_defaults(u),
        Shape::Nullable { inner, .. } => shape_without_defaults(inner),
        Shape::Array { items, .. } => shape_without_defaults(items),
        Shape::Object { fields, .. } => {
            for f in fields {
                shape_without_defaults(&mut f.shape);
            }
        }
        _ => {}
    }
}

/// The dialect forms write the same union, so they accept the same values. (With a defaulted
/// tag a value without it can match two branches, which a `oneOf` rejects and an `anyOf`
/// accepts, so Zod v4's form and zod-to-json-schema's rightly differ there: the cases are
/// compared with every tag required.)
#[test]
fn every_dialect_form_accepts_exactly_what_the_others_accept() {
    let (mut compared, mut accepted) = (0, 0);
    for i in 0..120 {
        let mut case = model_case(i);
        without_defaults(&mut case.root);
        for d in &mut case.defs {
            shape_without_defaults(d);
        }
        let forms: Vec<(&str, Value)> = DIALECTS
            .iter()
            .filter_map(|d| render_form(&case, *d).map(|s| (d.name(), s)))
            .collect();
        let judges: Vec<(&str, jsonschema::Validator)> = forms
            .iter()
            .map(|(name, s)| {
                (
                    *name,
                    judge(s).unwrap_or_else(|e| panic!("{name}: {e}: {s}")),
                )
            })
            .collect();
        for value in &proposals(&forms) {
            let verdicts: Vec<(&str, bool)> = judges
                .iter()
                .map(|(n, j)| (*n, j.is_valid(value)))
                .collect();
            assert!(
                verdicts.iter().all(|(_, v)| *v == verdicts[0].1),
                "case {i}: the forms disagree on {value}: {verdicts:?}\n{}",
                render::render(&case)
            );
            accepted += usize::from(verdicts[0].1);
            compared += 1;
        }
    }
    assert!(
        compared > 3_000 && accepted * 4 > compared,
        "{accepted} of {compared} values accepted"
    );
}

/// How a value shows which leaf of the root union it belongs to.
#[derive(Debug)]
enum Selector<'a> {
    /// Tagged: each tag (the root's, then those of the unions it is a branch of) has one of
    /// these literals.
    Tags(Vec<(&'static str, &'a [Literal])>),
    /// Externally tagged struct variant: the one key.
    Key(String),
    /// Externally tagged unit variant: the string.
    Unit(String),
    /// Untagged: the member itself accepts it.
    Member,
}

/// Every leaf of the root union: where its schema is in the reference rendering (indices into
/// the nested `oneOf`/`anyOf`s) and how a value selects it.
fn leaves(case: &Case) -> Vec<(Vec<usize>, Selector<'_>)> {
    fn tagged<'a>(
        union: &'a Union,
        at: &[usize],
        path: &[(&'static str, &'a [Literal])],
        out: &mut Vec<(Vec<usize>, Selector<'a>)>,
    ) {
        for (k, b) in union.branches.iter().enumerate() {
            let mut here = path.to_vec();
            here.push((union.tag_name(), b.tags.as_slice()));
            let mut pointer = at.to_vec();
            pointer.push(k);
            match &b.inner {
                Some(inner) => tagged(inner, &pointer, &here, out),
                None => out.push((pointer, Selector::Tags(here))),
            }
        }
    }
    let root = &case.root;
    let mut out = Vec::new();
    match root.form {
        Form::Internal | Form::Adjacent => tagged(root, &[], &[], &mut out),
        Form::External => {
            let units = usize::from(root.admits_non_object());
            let mut struct_index = units;
            for b in &root.branches {
                let name = variant_name(b.tags[0]);
                if b.unit {
                    out.push((vec![0], Selector::Unit(name)));
                } else {
                    out.push((vec![struct_index], Selector::Key(name)));
                    struct_index += 1;
                }
            }
        }
        Form::Untagged => {
            out.extend((0..root.branches.len()).map(|k| (vec![k], Selector::Member)));
        }
    }
    out
}

/// The member of `schema` at `pointer` (nested `oneOf`/`anyOf` indices), as a document of its
/// own (with the root's definitions).
fn member_doc(schema: &Value, pointer: &[usize]) -> Value {
    let mut node = schema;
    for k in pointer {
        node = node
            .get("oneOf")
            .or_else(|| node.get("anyOf"))
            .and_then(|m| m.get(*k))
            .unwrap_or_else(|| panic!("no member {pointer:?} in {schema}"));
    }
    let mut doc = node.clone();
    if let (Some(map), Some(defs)) = (doc.as_object_mut(), schema.get("$defs")) {
        map.insert("$defs".into(), defs.clone());
    }
    doc
}

/// The sampler proposes, for every leaf of the root union (every branch, and every branch of a
/// branch that is itself a union, SPEC §2.9), a value the original accepts whenever sampling
/// that leaf as a schema of its own finds one it accepts (a leaf with a required field the
/// sampler cannot fill, such as an e-mail address of at most four characters, has none either
/// way).
#[test]
fn the_sampler_covers_every_leaf_of_the_root_union() {
    let mut covered = 0;
    let mut skipped = 0;
    let mut nested = 0;
    for i in 0..WITHIN {
        let case = model_case(i);
        let original = render::render(&case);
        let judge_of = |s: &Value| judge(s).unwrap_or_else(|e| panic!("{e}: {s}"));
        let whole = judge_of(&original);
        let accepted: Vec<Value> = sample::branch_samples(&original, Reading::Declared)
            .into_iter()
            .flat_map(|b| b.values)
            .filter(|v| whole.is_valid(v))
            .collect();
        nested += usize::from(case.root.has_inner_union());
        for (pointer, selector) in leaves(&case) {
            let doc = member_doc(&original, &pointer);
            let alone = judge_of(&doc);
            if !sample::samples(&doc, Reading::Declared)
                .iter()
                .any(|v| alone.is_valid(v))
            {
                skipped += 1;
                continue;
            }
            let hit = accepted.iter().any(|v| match &selector {
                Selector::Tags(path) => selects(v, path),
                Selector::Key(name) => v.get(name).is_some(),
                Selector::Unit(name) => *v == json!(name),
                Selector::Member => alone.is_valid(v),
            });
            assert!(
                hit,
                "case {i}: no accepted value for the leaf {pointer:?} ({selector:?})\n{original}"
            );
            covered += 1;
        }
    }
    assert!(
        nested > 10 && covered > 600 && skipped * 10 < covered,
        "{nested} nested roots, {covered} leaves covered, {skipped} with no value alone"
    );
}

/// Whether `value` has, for each tag of `path`, one of its literals (numbers by value).
fn selects(value: &Value, path: &[(&str, &[Literal])]) -> bool {
    let canonical = flatjoin_harness::identity::canonical_data;
    path.iter().all(|(tag, literals)| {
        value.get(*tag).is_some_and(|v| {
            literals
                .iter()
                .any(|l| canonical(&literal_value(*l)) == canonical(v))
        })
    })
}

/// The conformance report's per-form table (SPEC §2.9) reads each model case's tally: every
/// form's root becomes one object but an externally tagged one with a unit variant, which stays
/// (its string branch is no object), named `branch-not-object`; and every form of the table is
/// drawn within a few hundred cases of the default seed.
#[test]
fn the_per_form_tally_says_which_roots_became_one_object() {
    let mut forms = BTreeSet::new();
    for i in 0..600 {
        let case = model_case(i);
        let normalized = case.normalized();
        let report = evaluate_case_with(&case, &flatjoin::Options::default(), Sweep::OneFlatten);
        let tally = report.unions.expect("the core flattens every model case");
        let stays = normalized.root.admits_non_object();
        assert_eq!(tally.root_object, !stays, "case {i}: {tally:?}");
        if stays {
            assert!(
                tally.skipped.contains_key("branch-not-object"),
                "case {i}: {tally:?}"
            );
        }
        assert!(FORM_LABELS.contains(&tally.form.as_str()), "{}", tally.form);
        forms.insert(tally.form);
    }
    let missing: Vec<&str> = FORM_LABELS
        .iter()
        .copied()
        .filter(|f| !forms.contains(*f))
        .collect();
    assert!(missing.is_empty(), "forms never drawn: {missing:?}");
}
