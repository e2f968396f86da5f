//! A typed model of discriminated-union cases, from which `render` writes JSON Schema in every
//! dialect form and `generate` draws collision-heavy cases.
//!
//! The model is deliberately small and closed: every value of it renders to a schema, and
//! [`Case::normalized`] repairs whatever an arbitrary byte string (the fuzzer's `arbitrary`
//! derive) builds into a case whose root is a discriminated union by SPEC §1 (disjoint literal
//! sets, the discriminator required in every branch, unique field names, bounded depth).

use std::collections::BTreeSet;

/// Property names drawn for fields: a small pool so that branches collide, including JSON Schema
/// keywords (SPEC §1: a property *named* `title` is data).
const FIELD_NAMES: [&str; 10] = [
    "value",
    "tags",
    "data",
    "count",
    "type",
    "title",
    "description",
    "enum",
    "properties",
    "items",
];

/// Discriminator names. `type` doubles as a field name elsewhere.
const TAG_NAMES: [&str; 3] = ["kind", "type", "op"];

/// Annotation texts.
const TEXTS: [&str; 4] = [
    "First text.",
    "Second text.",
    "Label text",
    "A \"quoted\" note.",
];

/// A property name, an index into `FIELD_NAMES` (taken modulo its length).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Name(pub u8);

impl Name {
    /// The property name this index stands for.
    pub fn as_str(self) -> &'static str {
        FIELD_NAMES[usize::from(self.0) % FIELD_NAMES.len()]
    }
}

/// An annotation text, an index into `TEXTS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Text(pub u8);

impl Text {
    /// The text this index stands for.
    pub fn as_str(self) -> &'static str {
        TEXTS[usize::from(self.0) % TEXTS.len()]
    }
}

/// A scalar literal (a discriminator value, an `enum` member, a `const`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Literal {
    /// A short string `s<n>`.
    Str(u8),
    /// An integer written as an integer (`1`).
    Int(i8),
    /// An integer written as a float (`1.0`): equal to `Int` of the same value (SPEC §1.4).
    IntAsFloat(i8),
    /// A number with a fractional part (`n + 0.5`).
    Half(i8),
    /// A large integer, `n` × 10^16 (past 2^53, where a float's integer value needs more than
    /// a double's exact-integer range to compare), written as an integer.
    Large(i8),
    /// The same large integer written as a float (`1e16`): equal to `Large` of the same `n`.
    LargeAsFloat(i8),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
}

impl Literal {
    /// A value-level key: two literals with the same key are the same JSON value by value.
    pub fn value_key(self) -> String {
        match self {
            Literal::Str(n) => format!("s:{n}"),
            Literal::Int(n) | Literal::IntAsFloat(n) => format!("n:{n}"),
            Literal::Half(n) => format!("n:{n}.5"),
            Literal::Large(n) | Literal::LargeAsFloat(n) => format!("n:{n}e16"),
            Literal::Bool(b) => format!("b:{b}"),
            Literal::Null => "null".to_owned(),
        }
    }

    /// The JSON type name of this literal.
    pub fn type_name(self) -> &'static str {
        match self {
            Literal::Str(_) => "string",
            Literal::Int(_)
            | Literal::IntAsFloat(_)
            | Literal::Large(_)
            | Literal::LargeAsFloat(_) => "integer",
            Literal::Half(_) => "number",
            Literal::Bool(_) => "boolean",
            Literal::Null => "null",
        }
    }
}

/// Whether a nullable field is written `anyOf: [T, {"type": "null"}]` or `type: [T, "null"]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum NullStyle {
    /// `anyOf: [T, {"type": "null"}]`.
    AnyOf,
    /// `type: [T, "null"]` (falls back to `AnyOf` where `T` has no single `type`).
    TypeArray,
}

/// A numeric bound: a small value, inclusive or exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Bound {
    /// The limit.
    pub value: i8,
    /// `exclusiveMinimum`/`exclusiveMaximum` instead of `minimum`/`maximum`.
    pub exclusive: bool,
}

/// A keyword-only schema with no type-fixing keyword: its kinds are unprovable (SPEC §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Bare {
    /// `{"minLength": 2}`: accepts every non-string, and strings of two or more characters.
    MinLength,
    /// `{"minimum": 0}`.
    Minimum,
    /// `{"minItems": 1}`.
    MinItems,
}

/// How a branch (or a nested object) treats keys it does not declare.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Policy {
    /// `additionalProperties: false`.
    Closed,
    /// No keyword: any undeclared key with any value.
    Open,
    /// `additionalProperties: {schema}`: a typed catch-all.
    CatchAll(Box<Shape>),
}

/// The schema of one property.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Shape {
    /// `{"type": "string"}` with optional length bounds.
    Str {
        /// `minLength`.
        min_len: Option<u8>,
        /// `maxLength`.
        max_len: Option<u8>,
        /// `format: "email"` (asserted by the judging validator).
        email: bool,
    },
    /// `{"type": "integer"|"number"}` with optional bounds.
    Num {
        /// `integer` instead of `number`.
        integer: bool,
        /// Lower bound.
        min: Option<Bound>,
        /// Upper bound.
        max: Option<Bound>,
    },
    /// `{"type": "boolean"}`.
    Bool,
    /// `{"type": "null"}`.
    Null,
    /// `{"enum": [...]}` (with `type` when the members share one).
    Enum(Vec<Literal>),
    /// `{"const": v}` (with `type`).
    Const(Literal),
    /// The inner shape or `null`.
    Nullable {
        /// The non-null alternative.
        inner: Box<Shape>,
        /// How `null` is admitted.
        style: NullStyle,
    },
    /// `{"type": "array", "items": ...}` with optional bounds.
    Array {
        /// The element schema.
        items: Box<Shape>,
        /// `minItems`.
        min_items: Option<u8>,
        /// `maxItems`.
        max_items: Option<u8>,
    },
    /// A nested object.
    Object {
        /// Its properties.
        fields: Vec<Field>,
        /// Its key policy.
        policy: Policy,
    },
    /// A nested discriminated union (in a property, an item or a definition).
    Union(Box<Union>),
    /// `{"$ref": "#/$defs/D<i>"}`, `i` taken modulo the number of definitions.
    Ref(u8),
    /// `{}`: unprovable.
    Any,
    /// A keyword without `type`: unprovable.
    Bare(Bare),
}

/// One property of a branch or object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Field {
    /// The property name.
    pub name: Name,
    /// Its schema.
    pub shape: Shape,
    /// Whether it is in `required`.
    pub required: bool,
    /// An outer `description`.
    pub note: Option<Text>,
}

/// One branch of a discriminated union.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Branch {
    /// The discriminator literals selecting this branch (one: `const`; several: `enum`).
    pub tags: Vec<Literal>,
    /// The other properties.
    pub fields: Vec<Field>,
    /// Key policy.
    pub policy: Policy,
    /// A branch `description`.
    pub note: Option<Text>,
    /// The tag has a default (Pydantic's `kind: Literal['a'] = 'a'`, serde's `#[serde(default)]`):
    /// it is rendered with `default` and left out of `required` (SPEC §2.9: rule 3 relaxed).
    pub tag_default: bool,
}

/// A discriminated union.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Union {
    /// The discriminator name, an index into `TAG_NAMES`.
    pub tag: u8,
    /// The branches (at least two after normalisation).
    pub branches: Vec<Branch>,
    /// The union's own `description`.
    pub note: Option<Text>,
}

impl Union {
    /// The discriminator property name.
    pub fn tag_name(&self) -> &'static str {
        TAG_NAMES[usize::from(self.tag) % TAG_NAMES.len()]
    }
}

/// A whole case: the root union and the definitions its `Ref`s point at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Case {
    /// The root discriminated union.
    pub root: Union,
    /// `$defs` entries `D0`, `D1`, ….
    pub defs: Vec<Shape>,
}

/// The deepest nesting of shapes that normalisation keeps (deeper shapes become strings).
pub const MAX_SHAPE_DEPTH: usize = 5;
/// The most branches of a union that normalisation keeps.
pub const MAX_BRANCHES: usize = 6;
/// The most fields of a branch or object that normalisation keeps.
pub const MAX_FIELDS: usize = 8;
/// The most definitions normalisation keeps.
const MAX_DEFS: usize = 3;

impl Case {
    /// A copy repaired into a valid discriminated-union case: at least two branches, pairwise
    /// disjoint literal sets (by value), no field named like the discriminator, unique field
    /// names, bounded depth and size, definitions that are not bare references, no `null` made
    /// nullable twice.
    pub fn normalized(&self) -> Case {
        let mut fresh = 0u8;
        let defs: Vec<Shape> = self
            .defs
            .iter()
            .take(MAX_DEFS)
            .map(|d| {
                let shape = normalize_shape(d, 1, self.defs.len().min(MAX_DEFS), &mut fresh);
                match shape {
                    // A definition that only points at another could form a reference-only cycle,
                    // which accepts nothing and says nothing.
                    Shape::Ref(_) | Shape::Nullable { .. } => Shape::Object {
                        fields: vec![Field {
                            name: Name(0),
                            shape,
                            required: false,
                            note: None,
                        }],
                        policy: Policy::Open,
                    },
                    other => other,
                }
            })
            .collect();
        let root = normalize_union(&self.root, 0, defs.len(), &mut fresh);
        Case { root, defs }
    }

    /// The names that qualify as a discriminator of the root union besides its own tag (SPEC §1:
    /// a property that is a literal set, required, in every branch, with disjoint sets). When this
    /// is not empty the core may rightly pick another name after a permutation.
    pub fn rival_discriminators(&self) -> Vec<&'static str> {
        let mut rivals = Vec::new();
        let Some(first) = self.root.branches.first() else {
            return rivals;
        };
        for field in &first.fields {
            let name = field.name.as_str();
            let mut seen = BTreeSet::new();
            let qualifies = self.root.branches.iter().all(|b| {
                b.fields.iter().any(|f| {
                    f.name.as_str() == name
                        && f.required
                        && literal_set(&f.shape)
                            .is_some_and(|set| set.iter().all(|l| seen.insert(l.value_key())))
                })
            });
            if qualifies {
                rivals.push(name);
            }
        }
        rivals
    }
}

/// The literal set of a `const`/`enum` shape.
fn literal_set(shape: &Shape) -> Option<Vec<Literal>> {
    match shape {
        Shape::Const(l) => Some(vec![*l]),
        Shape::Enum(ls) if !ls.is_empty() => Some(ls.clone()),
        _ => None,
    }
}

/// A literal no branch of this union uses yet (strings `s201`, `s202`, …; integers past them).
fn fresh_literal(fresh: &mut u8, used: &BTreeSet<String>) -> Literal {
    for _ in 0..=255 {
        *fresh = fresh.wrapping_add(1);
        let literal = Literal::Str(200u8.wrapping_add(*fresh));
        if !used.contains(&literal.value_key()) {
            return literal;
        }
    }
    // Every string literal is taken (only an adversarial input gets here): use an integer.
    (i8::MIN..=i8::MAX)
        .map(Literal::Int)
        .find(|l| !used.contains(&l.value_key()))
        .unwrap_or(Literal::Null)
}

fn normalize_union(union: &Union, depth: usize, defs: usize, fresh: &mut u8) -> Union {
    let tag = union.tag % 3;
    let tag_name = TAG_NAMES[usize::from(tag)];
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut branches: Vec<Branch> = Vec::new();
    for branch in union.branches.iter().take(MAX_BRANCHES) {
        let mut tags = Vec::new();
        for literal in branch.tags.iter().take(3) {
            if used.insert(literal.value_key()) {
                tags.push(*literal);
            }
        }
        if tags.is_empty() {
            let literal = fresh_literal(fresh, &used);
            used.insert(literal.value_key());
            tags.push(literal);
        }
        branches.push(Branch {
            tags,
            fields: normalize_fields(&branch.fields, Some(tag_name), depth + 1, defs, fresh),
            policy: normalize_policy(&branch.policy, depth + 1, defs, fresh),
            note: branch.note,
            tag_default: branch.tag_default,
        });
    }
    while branches.len() < 2 {
        let literal = fresh_literal(fresh, &used);
        used.insert(literal.value_key());
        branches.push(Branch {
            tags: vec![literal],
            fields: Vec::new(),
            policy: Policy::Closed,
            note: None,
            tag_default: false,
        });
    }
    Union {
        tag,
        branches,
        note: union.note,
    }
}

fn normalize_policy(policy: &Policy, depth: usize, defs: usize, fresh: &mut u8) -> Policy {
    match policy {
        Policy::CatchAll(shape) => {
            Policy::CatchAll(Box::new(normalize_shape(shape, depth + 1, defs, fresh)))
        }
        other => other.clone(),
    }
}

fn normalize_fields(
    fields: &[Field],
    tag: Option<&str>,
    depth: usize,
    defs: usize,
    fresh: &mut u8,
) -> Vec<Field> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for field in fields.iter().take(MAX_FIELDS) {
        let name = Name(field.name.0 % FIELD_NAMES.len() as u8);
        if Some(name.as_str()) == tag || !seen.insert(name.as_str()) {
            continue;
        }
        out.push(Field {
            name,
            shape: normalize_shape(&field.shape, depth + 1, defs, fresh),
            required: field.required,
            note: field.note,
        });
    }
    out
}

fn normalize_shape(shape: &Shape, depth: usize, defs: usize, fresh: &mut u8) -> Shape {
    if depth > MAX_SHAPE_DEPTH {
        return Shape::Str {
            min_len: None,
            max_len: None,
            email: false,
        };
    }
    match shape {
        Shape::Str {
            min_len,
            max_len,
            email,
        } => {
            let min_len = min_len.map(|m| m % 6);
            let max_len = max_len.map(|m| m % 12).map(|m| m.max(min_len.unwrap_or(0)));
            Shape::Str {
                min_len,
                max_len,
                email: *email,
            }
        }
        Shape::Num { integer, min, max } => {
            let (min, max) = match (min, max) {
                // An empty interval would make the field unsatisfiable; keep it non-empty.
                (Some(lo), Some(hi)) if i16::from(hi.value) - i16::from(lo.value) < 2 => {
                    (Some(*lo), None)
                }
                other => (*other.0, *other.1),
            };
            Shape::Num {
                integer: *integer,
                min,
                max,
            }
        }
        Shape::Enum(literals) => {
            let mut seen = BTreeSet::new();
            let literals: Vec<Literal> = literals
                .iter()
                .take(4)
                .filter(|l| seen.insert(l.value_key()))
                .copied()
                .collect();
            if literals.is_empty() {
                Shape::Const(Literal::Str(0))
            } else {
                Shape::Enum(literals)
            }
        }
        Shape::Nullable { inner, style } => {
            match normalize_shape(inner, depth, defs, fresh) {
                // `null` or an already nullable shape made nullable again says nothing new and
                // would write an `anyOf` with identical members.
                inner @ (Shape::Null
                | Shape::Nullable { .. }
                | Shape::Any
                | Shape::Bare(_)
                | Shape::Const(Literal::Null)) => inner,
                Shape::Enum(ls) if ls.contains(&Literal::Null) => Shape::Enum(ls),
                inner => Shape::Nullable {
                    inner: Box::new(inner),
                    style: *style,
                },
            }
        }
        Shape::Array {
            items,
            min_items,
            max_items,
        } => {
            let min_items = min_items.map(|m| m % 3);
            let max_items = max_items
                .map(|m| m % 5)
                .map(|m| m.max(min_items.unwrap_or(0)));
            Shape::Array {
                items: Box::new(normalize_shape(items, depth + 1, defs, fresh)),
                min_items,
                max_items,
            }
        }
        Shape::Object { fields, policy } => Shape::Object {
            fields: normalize_fields(fields, None, depth + 1, defs, fresh),
            policy: normalize_policy(policy, depth, defs, fresh),
        },
        Shape::Union(union) => Shape::Union(Box::new(normalize_union(union, depth, defs, fresh))),
        Shape::Ref(i) => {
            if defs == 0 {
                Shape::Any
            } else {
                Shape::Ref(i % defs as u8)
            }
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(tags: Vec<Literal>) -> Branch {
        Branch {
            tags,
            fields: vec![],
            policy: Policy::Closed,
            note: None,
            tag_default: false,
        }
    }

    #[test]
    fn normalisation_makes_literal_sets_disjoint_by_value() {
        let case = Case {
            root: Union {
                tag: 0,
                branches: vec![
                    branch(vec![Literal::Int(1)]),
                    branch(vec![Literal::IntAsFloat(1)]),
                ],
                note: None,
            },
            defs: vec![],
        };
        let n = case.normalized();
        assert_eq!(n.root.branches.len(), 2);
        assert_eq!(n.root.branches[0].tags, vec![Literal::Int(1)]);
        assert_ne!(n.root.branches[1].tags[0].value_key(), "n:1");
    }

    #[test]
    fn normalisation_adds_a_second_branch_and_drops_the_tag_field() {
        let mut only = branch(vec![Literal::Str(1)]);
        only.fields.push(Field {
            name: Name(4),
            shape: Shape::Bool,
            required: true,
            note: None,
        });
        let case = Case {
            root: Union {
                tag: 1,
                branches: vec![only],
                note: None,
            },
            defs: vec![],
        };
        let n = case.normalized();
        assert_eq!(n.root.tag_name(), "type");
        assert_eq!(n.root.branches.len(), 2);
        assert!(n.root.branches[0].fields.is_empty());
    }
}
