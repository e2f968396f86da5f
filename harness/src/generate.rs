//! proptest strategies that draw collision-heavy [`Case`]s: a small pool of field definitions is
//! drawn first and every branch picks from it, so one name is bound to an object in one branch, an
//! array in another and a scalar in a third, and copies differing only in annotations are common.

use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::model::{
    Bare, Bound, Branch, Case, Field, Form, Literal, Name, NullStyle, Policy, Shape, Text, Union,
};

/// A discriminator or `enum` literal: mostly strings, some numbers (`1` and `1.0`, `1e16` written
/// both ways), booleans.
pub fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        6 => (0u8..6).prop_map(Literal::Str),
        2 => (0i8..4).prop_map(Literal::Int),
        1 => (0i8..4).prop_map(Literal::IntAsFloat),
        1 => (0i8..3).prop_map(Literal::Half),
        1 => (1i8..3).prop_map(Literal::Large),
        1 => (1i8..3).prop_map(Literal::LargeAsFloat),
        1 => any::<bool>().prop_map(Literal::Bool),
        1 => Just(Literal::Null),
    ]
}

fn text() -> impl Strategy<Value = Option<Text>> {
    prop_oneof![2 => Just(None), 1 => (0u8..4).prop_map(|t| Some(Text(t)))]
}

/// A property name: the first four ordinary names are the most frequent, so branches collide.
fn name() -> impl Strategy<Value = Name> {
    prop_oneof![4 => (0u8..4).prop_map(Name), 1 => (4u8..10).prop_map(Name)]
}

fn bound(range: std::ops::Range<i8>) -> impl Strategy<Value = Option<Bound>> {
    prop_oneof![
        1 => Just(None),
        1 => (range, any::<bool>()).prop_map(|(value, exclusive)| Some(Bound { value, exclusive })),
    ]
}

fn small(range: std::ops::Range<u8>) -> impl Strategy<Value = Option<u8>> {
    prop_oneof![1 => Just(None), 1 => range.prop_map(Some)]
}

/// A shape without children.
pub fn leaf() -> BoxedStrategy<Shape> {
    prop_oneof![
        4 => (small(0..3), small(2..8), prop::bool::weighted(0.15))
            .prop_map(|(min_len, max_len, email)| Shape::Str { min_len, max_len, email }),
        4 => (any::<bool>(), bound(-3..2), bound(4..9))
            .prop_map(|(integer, min, max)| Shape::Num { integer, min, max }),
        1 => Just(Shape::Bool),
        1 => Just(Shape::Null),
        2 => prop::collection::vec(literal(), 1..4).prop_map(Shape::Enum),
        1 => literal().prop_map(Shape::Const),
        1 => Just(Shape::Any),
        1 => prop_oneof![Just(Bare::MinLength), Just(Bare::Minimum), Just(Bare::MinItems)]
            .prop_map(Shape::Bare),
        1 => (0u8..3).prop_map(Shape::Ref),
    ]
    .boxed()
}

/// Whether a branch's tag has a default and is not required (SPEC §2.9): one branch in six.
fn tag_default() -> impl Strategy<Value = bool> {
    prop::bool::weighted(1.0 / 6.0)
}

fn policy(inner: BoxedStrategy<Shape>) -> impl Strategy<Value = Policy> {
    prop_oneof![
        3 => Just(Policy::Closed),
        3 => Just(Policy::Open),
        1 => inner.prop_map(|s| Policy::CatchAll(Box::new(s))),
    ]
}

fn field(inner: BoxedStrategy<Shape>) -> impl Strategy<Value = Field> {
    (name(), inner, any::<bool>(), text()).prop_map(|(name, shape, required, note)| Field {
        name,
        shape,
        required,
        note,
    })
}

/// The form of the root union (SPEC §2.9): internally tagged (a discriminated union, the
/// majority), adjacently tagged, externally tagged, untagged, in 16 : 2 : 2 : 2.
fn root_form() -> impl Strategy<Value = Form> {
    prop_oneof![
        16 => Just(Form::Internal),
        2 => Just(Form::Adjacent),
        2 => Just(Form::External),
        2 => Just(Form::Untagged),
    ]
}

/// The form of a union nested in a field, an item or a definition: the forms without a
/// discriminator, which stay unions there (SPEC §2.9), more often than at the root (5 : 1 : 1 : 1).
fn nested_form() -> impl Strategy<Value = Form> {
    prop_oneof![
        5 => Just(Form::Internal),
        1 => Just(Form::Adjacent),
        1 => Just(Form::External),
        1 => Just(Form::Untagged),
    ]
}

/// Whether a branch is a unit variant (kept only where the form has them: adjacently and
/// externally tagged): one branch in ten.
fn unit() -> impl Strategy<Value = bool> {
    prop::bool::weighted(0.1)
}

/// The probability that a branch is itself a discriminated union on another tag (kept only in
/// internally tagged unions; SPEC §2.9).
const INNER_UNION: f64 = 1.0 / 12.0;

/// An inner union's tag and branches, each branch built by `branch` (its own tags, fields,
/// policy, note, defaulted tag).
fn inner_union(branch: BoxedStrategy<Branch>) -> impl Strategy<Value = Option<Box<Union>>> {
    prop::option::weighted(
        INNER_UNION,
        (0u8..3, prop::collection::vec(branch, 2..4)).prop_map(|(tag, branches)| {
            Box::new(Union {
                tag,
                branches,
                note: None,
                form: Form::Internal,
            })
        }),
    )
}

fn union(inner: BoxedStrategy<Shape>) -> impl Strategy<Value = Union> {
    let leaf_branch = (
        prop::collection::vec(literal(), 1..3),
        prop::collection::vec(field(inner.clone()), 0..3),
        policy(leaf()),
        tag_default(),
    )
        .prop_map(|(tags, fields, policy, tag_default)| Branch {
            tags,
            fields,
            policy,
            note: None,
            tag_default,
            unit: false,
            inner: None,
        })
        .boxed();
    let branch = (
        prop::collection::vec(literal(), 1..3),
        prop::collection::vec(field(inner.clone()), 0..3),
        policy(leaf()),
        tag_default(),
        unit(),
        inner_union(leaf_branch),
    )
        .prop_map(|(tags, fields, policy, tag_default, unit, inner)| Branch {
            tags,
            fields,
            policy,
            note: None,
            tag_default,
            unit,
            inner,
        });
    (0u8..3, prop::collection::vec(branch, 2..4), nested_form()).prop_map(
        |(tag, branches, form)| Union {
            tag,
            branches,
            note: None,
            form,
        },
    )
}

/// Any shape, nested up to a few levels (`prop_recursive`, so failures shrink toward leaves).
pub fn shape() -> BoxedStrategy<Shape> {
    leaf()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                2 => (inner.clone(), prop_oneof![Just(NullStyle::AnyOf), Just(NullStyle::TypeArray)])
                    .prop_map(|(inner, style)| Shape::Nullable { inner: Box::new(inner), style }),
                3 => (inner.clone(), small(0..2), small(1..4)).prop_map(|(items, min_items, max_items)| {
                    Shape::Array { items: Box::new(items), min_items, max_items }
                }),
                3 => (prop::collection::vec(field(inner.clone()), 0..4), policy(leaf()))
                    .prop_map(|(fields, policy)| Shape::Object { fields, policy }),
                1 => union(inner).prop_map(|u| Shape::Union(Box::new(u))),
            ]
        })
        .boxed()
}

/// Sets an annotation deep inside a shape (the first field of an object, through arrays and
/// nullable wrappers), making a copy that differs from the original only in annotations.
fn annotate_deep(shape: &Shape, note: Text) -> Shape {
    match shape {
        Shape::Object { fields, policy } if !fields.is_empty() => {
            let mut fields = fields.clone();
            fields[0].note = Some(note);
            Shape::Object {
                fields,
                policy: policy.clone(),
            }
        }
        Shape::Array {
            items,
            min_items,
            max_items,
        } => Shape::Array {
            items: Box::new(annotate_deep(items, note)),
            min_items: *min_items,
            max_items: *max_items,
        },
        Shape::Nullable { inner, style } => Shape::Nullable {
            inner: Box::new(annotate_deep(inner, note)),
            style: *style,
        },
        other => other.clone(),
    }
}

/// How a branch's copy of a pool entry differs from the entry.
#[derive(Debug, Clone, Copy)]
enum Variant {
    /// Identical.
    Same,
    /// An annotation deep inside (dedup must fold the copies).
    DeepNote(Text),
    /// A property named `title` added or retyped inside (a keyword-named property is data, so
    /// dedup must keep both copies).
    KeywordField,
    /// Looser bounds (the join must keep the loosest).
    LooserBound,
}

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![
        3 => Just(Variant::Same),
        1 => (0u8..4).prop_map(|t| Variant::DeepNote(Text(t))),
        1 => Just(Variant::KeywordField),
        1 => Just(Variant::LooserBound),
    ]
}

/// Adds a property named `title` to an object (or retypes the one there), through arrays and
/// nullable wrappers.
fn keyword_field(shape: &Shape) -> Shape {
    match shape {
        Shape::Object { fields, policy } => {
            let mut fields = fields.clone();
            match fields.iter_mut().find(|f| f.name.as_str() == "title") {
                Some(f) => {
                    f.shape = match f.shape {
                        Shape::Bool => Shape::Num {
                            integer: true,
                            min: None,
                            max: None,
                        },
                        _ => Shape::Bool,
                    };
                }
                None => fields.push(Field {
                    name: Name(5),
                    shape: Shape::Bool,
                    required: false,
                    note: None,
                }),
            }
            Shape::Object {
                fields,
                policy: policy.clone(),
            }
        }
        Shape::Array {
            items,
            min_items,
            max_items,
        } => Shape::Array {
            items: Box::new(keyword_field(items)),
            min_items: *min_items,
            max_items: *max_items,
        },
        Shape::Nullable { inner, style } => Shape::Nullable {
            inner: Box::new(keyword_field(inner)),
            style: *style,
        },
        other => other.clone(),
    }
}

/// Moves every bound of a scalar outward by three (through nullable wrappers).
fn looser_bound(shape: &Shape) -> Shape {
    let out = |b: Option<Bound>, by: i8| {
        b.map(|b| Bound {
            value: b.value.saturating_add(by),
            exclusive: b.exclusive,
        })
    };
    match shape {
        Shape::Str {
            min_len,
            max_len,
            email,
        } => Shape::Str {
            min_len: min_len.map(|m| m.saturating_sub(1)),
            max_len: Some(max_len.map_or(6, |m| m.saturating_add(3))),
            email: *email,
        },
        Shape::Num { integer, min, max } => Shape::Num {
            integer: *integer,
            min: Some(out(*min, -3).unwrap_or(Bound {
                value: -6,
                exclusive: false,
            })),
            max: out(*max, 3),
        },
        Shape::Nullable { inner, style } => Shape::Nullable {
            inner: Box::new(looser_bound(inner)),
            style: *style,
        },
        other => other.clone(),
    }
}

/// How a branch uses one pool entry: which, whether required, its outer note, how it differs.
type Pick = (usize, bool, Option<Text>, Variant);

/// One branch's draw in [`case`]: its literals, its picks from the pool, policy, note, defaulted
/// tag.
type BranchDraw = (Vec<Literal>, Vec<Pick>, Policy, Option<Text>, bool);

fn branch_draw() -> impl Strategy<Value = BranchDraw> {
    let pick = (0usize..8, any::<bool>(), text(), variant());
    (
        prop::collection::vec(literal(), 1..3),
        prop::collection::vec(pick, 0..5),
        policy(leaf()),
        text(),
        tag_default(),
    )
}

/// A branch from its draw, its fields picked from `pool`.
fn branch_from(
    (tags, picks, policy, note, tag_default): BranchDraw,
    pool: &[(Name, Shape)],
) -> Branch {
    Branch {
        tags,
        fields: picks
            .into_iter()
            .map(|(i, required, outer, variant)| {
                let (name, shape) = &pool[i % pool.len()];
                Field {
                    name: *name,
                    shape: match variant {
                        Variant::Same => shape.clone(),
                        Variant::DeepNote(t) => annotate_deep(shape, t),
                        Variant::KeywordField => keyword_field(shape),
                        Variant::LooserBound => looser_bound(shape),
                    },
                    required,
                    note: outer,
                }
            })
            .collect(),
        policy,
        note,
        tag_default,
        unit: false,
        inner: None,
    }
}

/// A discriminated union of models with many fields, as Pydantic models are: two to four
/// branches of five to eight fields each.
fn model_union() -> impl Strategy<Value = Union> {
    let branch = (
        prop::collection::vec(literal(), 1..3),
        prop::collection::vec((leaf(), any::<bool>(), text()), 5..9),
        policy(leaf()),
        tag_default(),
    )
        .prop_map(|(tags, shapes, policy, tag_default)| Branch {
            tags,
            // Distinct names, most of them shared by the other branches (the models' fields).
            fields: shapes
                .into_iter()
                .enumerate()
                .map(|(i, (shape, required, note))| Field {
                    name: Name(u8::try_from(i).unwrap_or(0)),
                    shape,
                    required,
                    note,
                })
                .collect(),
            policy,
            note: None,
            tag_default,
            unit: false,
            inner: None,
        });
    (0u8..3, prop::collection::vec(branch, 2..5)).prop_map(|(tag, branches)| Union {
        tag,
        branches,
        note: None,
        form: Form::Internal,
    })
}

/// One union used in many fields (SPEC §6 decision 73: Pydantic writes it as the same `oneOf` of
/// `$ref`s at each use): in about one case in seven, the first branch's first fields are one union of
/// models (as it is, in an array, nullable) six to eight times, and a nested model with as many
/// fields of it.
fn repeated() -> impl Strategy<Value = Vec<Field>> {
    prop::option::weighted(0.15, (name(), model_union(), 6usize..9)).prop_map(|drawn| {
        let Some((name, union, copies)) = drawn else {
            return Vec::new();
        };
        let union = Shape::Union(Box::new(union));
        let fields: Vec<Field> = (0..copies)
            .map(|j| Field {
                name: Name(u8::try_from(j).unwrap_or(0)),
                shape: match j % 3 {
                    0 => union.clone(),
                    1 => Shape::Array {
                        items: Box::new(union.clone()),
                        min_items: None,
                        max_items: None,
                    },
                    _ => Shape::Nullable {
                        inner: Box::new(union.clone()),
                        style: NullStyle::AnyOf,
                    },
                },
                required: j == 0,
                note: None,
            })
            .collect();
        let model = Field {
            name,
            shape: Shape::Object {
                fields: fields.clone(),
                policy: Policy::Open,
            },
            required: false,
            note: None,
        };
        std::iter::once(model).chain(fields).collect()
    })
}

/// A whole case: a pool of (name, shape) definitions, branches picking from it (the branches of
/// a branch that is itself a union too), the root in one of the forms of `root_form`.
pub fn case() -> impl Strategy<Value = Case> {
    let pool = prop::collection::vec((name(), shape()), 1..6);
    let inner = prop::option::weighted(
        INNER_UNION,
        (0u8..3, prop::collection::vec(branch_draw(), 2..4)),
    );
    let branch = (branch_draw(), unit(), inner);
    // `repeated` first: shrinking tries it first, so a failure that does not need the repeated
    // union drops it before the costly steps.
    (
        repeated(),
        (0u8..3, root_form()),
        pool,
        prop::collection::vec(branch, 2..5),
        text(),
        prop::collection::vec(shape(), 0..3),
    )
        .prop_map(|(repeated, (tag, form), pool, branches, note, defs)| {
            let mut branches: Vec<Branch> = branches
                .into_iter()
                .map(|(draw, unit, inner)| Branch {
                    unit,
                    inner: inner.map(|(tag, leaves)| {
                        Box::new(Union {
                            tag,
                            branches: leaves.into_iter().map(|d| branch_from(d, &pool)).collect(),
                            note: None,
                            form: Form::Internal,
                        })
                    }),
                    ..branch_from(draw, &pool)
                })
                .collect();
            if let Some(first) = branches.first_mut() {
                // First, so that normalization keeps them over fields of the same names.
                first.fields.splice(0..0, repeated);
            }
            Case {
                root: Union {
                    tag,
                    branches,
                    note,
                    form,
                },
                defs,
            }
            .normalized()
        })
}

/// A generated sample of rendered schemas (the provider SDK judges of `flatjoin-cli` use it): `cases` unions of objects from the harness's
/// generator (`generate::case`, drawn in sequence from the deterministic runner
/// [`crate::draw::runner`] of `seed`; not the per-index cases of `flatjoin check`), each
/// rendered in every dialect. Named `generated/<seed>/<i>/<dialect>`.
pub fn generated_schemas(seed: u64, cases: u32) -> Vec<(String, serde_json::Value)> {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = crate::draw::runner(seed);
    // A root with a non-object branch stays a union (SPEC §2.9), which every export reports as
    // `root-union-kept` (§6 decision 69): no clean export for the SDK judges.
    let strategy = case().prop_filter("a root the join makes one object", |c| {
        !c.root.admits_non_object()
    });
    let mut out = Vec::new();
    for i in 0..cases {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let case = tree.current();
        for dialect in crate::render::DIALECTS {
            if let Some(schema) = crate::render::render_as(&case, dialect) {
                out.push((format!("generated/{seed}/{i}/{}", dialect.name()), schema));
            }
        }
    }
    out
}
