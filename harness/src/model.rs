//! A typed model of the union cases real programs write, from which `render` writes JSON Schema
//! in every dialect form and `generate` draws collision-heavy cases.
//!
//! A [`Union`] has a [`Form`] (SPEC §2.9): internally tagged (the discriminated union of SPEC §1,
//! whose branches may themselves be unions on another tag: Pydantic's nested discriminated
//! union), adjacently tagged, externally tagged (serde's default), or untagged. It stands at the
//! root of a [`Case`] and, as [`Shape::Union`], in fields, items and definitions.
//!
//! The model is deliberately small and closed: every value of it renders to a schema, and
//! [`Case::normalized`] repairs whatever an arbitrary byte string (the fuzzer's `arbitrary`
//! derive) builds into a case that keeps the promises written on it: its root is a union of
//! object branches — a discriminated union by SPEC §1 (with rule 3 relaxed, §2.9), one whose
//! branches are themselves such unions on other tags (a DU by rule 1 judged on projected
//! branches, §2.9), or a union with no discriminator — or, for an externally tagged root with a
//! unit variant, a union with one non-object (string) branch; literal sets are disjoint, field
//! names unique and depth bounded.

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

impl Shape {
    /// The unions this shape holds, outermost first (at any depth, not through `Ref`).
    pub fn unions(&self) -> Vec<&Union> {
        let mut out = Vec::new();
        self.collect_unions(&mut out);
        out
    }

    fn collect_unions<'a>(&'a self, out: &mut Vec<&'a Union>) {
        match self {
            Shape::Union(u) => u.collect_unions(out),
            Shape::Nullable { inner, .. } => inner.collect_unions(out),
            Shape::Array { items, .. } => items.collect_unions(out),
            Shape::Object { fields, policy } => {
                for f in fields {
                    f.shape.collect_unions(out);
                }
                if let Policy::CatchAll(s) = policy {
                    s.collect_unions(out);
                }
            }
            _ => {}
        }
    }

    /// Whether this shape refers to a definition (`Shape::Ref`) at any depth.
    pub fn refers(&self) -> bool {
        match self {
            Shape::Ref(_) => true,
            Shape::Union(u) => u.refers(),
            Shape::Nullable { inner, .. } => inner.refers(),
            Shape::Array { items, .. } => items.refers(),
            Shape::Object { fields, policy } => {
                fields.iter().any(|f| f.shape.refers())
                    || matches!(policy, Policy::CatchAll(s) if s.refers())
            }
            _ => false,
        }
    }

    /// Whether a union this shape holds (at any depth) has a branch that is itself a union.
    pub fn holds_inner_union(&self) -> bool {
        match self {
            Shape::Union(u) => u.holds_inner_union(),
            Shape::Nullable { inner, .. } => inner.holds_inner_union(),
            Shape::Array { items, .. } => items.holds_inner_union(),
            Shape::Object { fields, policy } => {
                fields.iter().any(|f| f.shape.holds_inner_union())
                    || matches!(policy, Policy::CatchAll(s) if s.holds_inner_union())
            }
            _ => false,
        }
    }
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

/// How a union tells its branches apart: the forms serde, Zod and Pydantic write (SPEC §2.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Form {
    /// Internally tagged: the tag is a property of every branch (serde's `#[serde(tag = "…")]`,
    /// Zod's `z.discriminatedUnion`, Pydantic's `discriminator`): a discriminated union by SPEC
    /// §1. A branch may itself be a union on another tag ([`Branch::inner`]).
    #[default]
    Internal,
    /// Adjacently tagged (serde's `#[serde(tag = "…", content = "content")]`): each branch is
    /// `{tag: literal, "content": payload}`, a unit variant has the tag alone. A discriminated
    /// union on the tag.
    Adjacent,
    /// Externally tagged (serde's default, as schemars renders it): a struct variant is
    /// `{"Name": payload}` (one required key, closed), the unit variants one string `enum`. No
    /// discriminator; with a unit variant, a union with a non-object branch.
    External,
    /// Untagged (serde's `#[serde(untagged)]`, Zod's `z.union`, Pydantic's `Union` without
    /// `discriminator`): object branches with no literal property, so no discriminator.
    Untagged,
}

/// The property that holds an adjacently tagged branch's payload.
pub const CONTENT: &str = "content";

/// One branch of a union.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Branch {
    /// The discriminator literals selecting this branch (one: `const`; several: `enum`). An
    /// externally tagged branch is named after its one literal ([`variant_name`]); an untagged
    /// one has none rendered.
    pub tags: Vec<Literal>,
    /// The other properties (adjacently and externally tagged: the payload's). In a branch that
    /// is itself a union ([`Branch::inner`]), the fields every one of its branches has (a base
    /// model's), after its tags and before its own fields.
    pub fields: Vec<Field>,
    /// Key policy (adjacently and externally tagged: the payload's; adjacently tagged, a closed
    /// payload closes the branch too). Not rendered for a branch that is itself a union.
    pub policy: Policy,
    /// A branch `description`.
    pub note: Option<Text>,
    /// The tag has a default (Pydantic's `kind: Literal['a'] = 'a'`, serde's `#[serde(default)]`):
    /// it is rendered with `default` and left out of `required` (SPEC §2.9: rule 3 relaxed).
    /// Internally tagged only.
    pub tag_default: bool,
    /// A unit variant: adjacently tagged, the tag without `content`; externally tagged, its name
    /// in the string `enum` branch. Adjacently and externally tagged only.
    pub unit: bool,
    /// This branch is itself a discriminated union on another tag (Pydantic's nested
    /// discriminated union, a `z.discriminatedUnion` inside another, SPEC §2.9): every one of its
    /// branches also carries this branch's `tags` under the enclosing union's tag. Internally
    /// tagged only; the inner union is internally tagged.
    pub inner: Option<Box<Union>>,
}

/// A union of object branches in one of the [`Form`]s.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Union {
    /// The discriminator name, an index into `TAG_NAMES` (internally and adjacently tagged).
    pub tag: u8,
    /// The branches (at least two after normalisation).
    pub branches: Vec<Branch>,
    /// The union's own `description`.
    pub note: Option<Text>,
    /// How the branches are told apart.
    pub form: Form,
}

impl Union {
    /// The discriminator property name.
    pub fn tag_name(&self) -> &'static str {
        TAG_NAMES[usize::from(self.tag) % TAG_NAMES.len()]
    }

    /// Whether the union has a discriminator of its own (internally or adjacently tagged).
    pub fn is_tagged(&self) -> bool {
        matches!(self.form, Form::Internal | Form::Adjacent)
    }

    /// Whether some branch is itself a union ([`Branch::inner`]).
    pub fn has_inner_union(&self) -> bool {
        self.branches.iter().any(|b| b.inner.is_some())
    }

    /// Whether some branch admits a non-object (an externally tagged unit variant).
    pub fn admits_non_object(&self) -> bool {
        self.form == Form::External && self.branches.iter().any(|b| b.unit)
    }

    /// This union and every union below it (inner unions, and those in its branches' fields,
    /// items and catch-alls, not through `Ref`), outermost first.
    pub fn unions(&self) -> Vec<&Union> {
        let mut out = Vec::new();
        self.collect_unions(&mut out);
        out
    }

    fn collect_unions<'a>(&'a self, out: &mut Vec<&'a Union>) {
        out.push(self);
        for b in &self.branches {
            if let Some(inner) = &b.inner {
                inner.collect_unions(out);
            }
            for f in &b.fields {
                f.shape.collect_unions(out);
            }
            if let Policy::CatchAll(s) = &b.policy {
                s.collect_unions(out);
            }
        }
    }

    /// Whether some union is below this one (see [`Union::unions`]).
    pub fn holds_union(&self) -> bool {
        self.unions().len() > 1
    }

    /// Whether a field, an item or a catch-all of this union or of one below it refers to a
    /// definition (`Shape::Ref`).
    pub fn refers(&self) -> bool {
        self.branches.iter().any(|b| {
            b.inner.as_ref().is_some_and(|u| u.refers())
                || b.fields.iter().any(|f| f.shape.refers())
                || matches!(&b.policy, Policy::CatchAll(s) if s.refers())
        })
    }

    /// Whether some branch is itself a union, here or in any union nested in a field, an item
    /// or a catch-all of this one.
    pub fn holds_inner_union(&self) -> bool {
        self.branches.iter().any(|b| {
            b.inner.is_some()
                || b.fields.iter().any(|f| f.shape.holds_inner_union())
                || matches!(&b.policy, Policy::CatchAll(s) if s.holds_inner_union())
        })
    }
}

/// The name of an externally tagged variant whose literal is `literal`: distinct literals (by
/// value) give distinct names.
pub fn variant_name(literal: Literal) -> String {
    let number = |n: i8| {
        if n < 0 {
            format!("m{}", n.unsigned_abs())
        } else {
            n.to_string()
        }
    };
    match literal {
        Literal::Str(n) => format!("S{n}"),
        Literal::Int(n) | Literal::IntAsFloat(n) => format!("N{}", number(n)),
        Literal::Half(n) => format!("H{}", number(n)),
        Literal::Large(n) | Literal::LargeAsFloat(n) => format!("L{}", number(n)),
        Literal::Bool(true) => "True".to_owned(),
        Literal::Bool(false) => "False".to_owned(),
        Literal::Null => "Null".to_owned(),
    }
}

/// A whole case: the root union and the definitions its `Ref`s point at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Case {
    /// The root union.
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
    /// A copy repaired into a renderable case. Whatever `self` holds, the copy has:
    ///
    /// - in every union, at least two branches and pairwise disjoint literal sets (by value);
    /// - unique field names per object, and in an internally tagged union no field named like
    ///   the tag, or like the tag of any union its branch is a branch of, or of its own inner
    ///   union (every tag in scope);
    /// - branches that are themselves unions ([`Branch::inner`]) only in internally tagged
    ///   unions, each internally tagged on a tag no enclosing union uses (so at most two levels
    ///   below a union, three tag names being all there are), with no field of its branches named
    ///   like the shared fields;
    /// - `tag_default` only in internally tagged unions, `unit` only in adjacently and externally
    ///   tagged ones (and then no fields), one literal per externally tagged branch;
    /// - in an untagged union, no field whose schema is a literal set (`const`, `enum`, or a
    ///   reference to a definition that is one), so that no property qualifies as a
    ///   discriminator;
    /// - bounded depth and size, definitions that are not bare references, no `null` made
    ///   nullable twice.
    ///
    /// So the rendered root is a union of object branches — a discriminated union by SPEC §1
    /// (rule 3 relaxed, §2.9) when internally or adjacently tagged with no branch that is itself
    /// a union; a nested discriminated union (a DU by rule 1 judged on projected branches, §2.9,
    /// §6 decision 70) when some branch is; a union with no discriminator when externally tagged
    /// or untagged — except an externally tagged root with a unit variant, whose string `enum`
    /// branch is not an object (SPEC §2.9: such a root must stay a union). Every union it holds
    /// is of the same kinds, a nested one with a unit variant admitting a string.
    pub fn normalized(&self) -> Case {
        let count = self.defs.len().min(MAX_DEFS);
        let mut ctx = Ctx {
            defs: count,
            literal_defs: self
                .defs
                .iter()
                .take(count)
                .map(|d| matches!(d, Shape::Const(_) | Shape::Enum(_)))
                .collect(),
            fresh: 0,
        };
        let defs: Vec<Shape> = self
            .defs
            .iter()
            .take(MAX_DEFS)
            .map(|d| {
                let shape = normalize_shape(d, 1, &mut ctx);
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
        let root = normalize_union(&self.root, 0, &mut ctx, &[]);
        Case { root, defs }
    }

    /// Every union of the case: the root's and those below it, then those of the definitions.
    pub fn unions(&self) -> Vec<&Union> {
        let mut out = self.root.unions();
        for d in &self.defs {
            out.extend(d.unions());
        }
        out
    }

    /// Whether one union (equal in every part) stands at two or more places below the root: in
    /// Pydantic's form, the same `oneOf` of `$ref`s at each (SPEC §6 decision 73).
    pub fn repeats_union(&self) -> bool {
        let unions = self.unions();
        let below: Vec<&Union> = unions
            .into_iter()
            .filter(|u| !std::ptr::eq(*u, &self.root))
            .collect();
        below
            .iter()
            .enumerate()
            .any(|(i, u)| below[i + 1..].contains(u))
    }

    /// Whether a union anywhere in the case (the root, a field, an item, a definition) has a
    /// branch that is itself a union.
    pub fn holds_inner_union(&self) -> bool {
        self.root.holds_inner_union() || self.defs.iter().any(Shape::holds_inner_union)
    }

    /// The names that qualify as a discriminator of the root union besides its own tag (SPEC §1:
    /// a property that is a literal set, required, in every branch, with disjoint sets; a branch
    /// that is itself a union counts with what all of its branches share, as its projection
    /// would, §2.9). When this is not empty the core may rightly pick another name after a
    /// permutation.
    ///
    /// The invariances that read this (branch order, duplicate branch) skip when it is not
    /// empty, and they assume that the root has a tag of its own. A root with no discriminator
    /// (externally tagged, untagged: [`Union::is_tagged`]) has none: the join names its
    /// branches by title or position (SPEC §6 decision 70), and a copied branch adds a property
    /// (externally tagged) or a branch like another, not a literal. For such a root the answer
    /// is the root's `tag` name (which it does not render), so that those invariances skip it.
    /// A stopgap: they should ask [`Union::is_tagged`] themselves.
    pub fn rival_discriminators(&self) -> Vec<&'static str> {
        let root = &self.root;
        if !root.is_tagged() {
            return vec![root.tag_name()];
        }
        self.root_rivals()
    }

    /// The names besides the root's own tag that qualify as its discriminator, for a tagged
    /// root (a branch that is itself a union counting with what its branches share).
    fn root_rivals(&self) -> Vec<&'static str> {
        let root = &self.root;
        if root.form != Form::Internal {
            // Adjacently tagged, its branches have the tag and `content`, an object: nothing
            // else qualifies (and the other forms have no tag).
            return Vec::new();
        }
        let views: Vec<Vec<View>> = root
            .branches
            .iter()
            .map(|b| projected_view(root.tag_name(), b))
            .collect();
        let mut rivals = Vec::new();
        let Some(first) = views.first() else {
            return rivals;
        };
        for (name, _, _) in first {
            if *name == root.tag_name() {
                continue;
            }
            let mut seen = BTreeSet::new();
            let qualifies = views.iter().all(|view| {
                view.iter().any(|(n, set, required)| {
                    n == name
                        && *required
                        && set
                            .as_ref()
                            .is_some_and(|set| set.iter().all(|l| seen.insert(l.value_key())))
                })
            });
            if qualifies {
                rivals.push(*name);
            }
        }
        rivals
    }
}

/// One property of a branch as its projection shows it: name, literal set (if every definition
/// is one), required (by every definition).
type View = (&'static str, Option<Vec<Literal>>, bool);

/// The properties of an internally tagged `branch` of a union tagged `tag`, in order; for a
/// branch that is itself a union, what its branches share (literal sets united, required where
/// every one requires it), as its projection into one object would show them.
fn projected_view(tag: &'static str, branch: &Branch) -> Vec<View> {
    let mut own: Vec<View> = vec![(tag, Some(branch.tags.clone()), !branch.tag_default)];
    own.extend(
        branch
            .fields
            .iter()
            .map(|f| (f.name.as_str(), literal_set(&f.shape), f.required)),
    );
    let Some(inner) = &branch.inner else {
        return own;
    };
    let leaves: Vec<Vec<View>> = inner
        .branches
        .iter()
        .map(|b| projected_view(inner.tag_name(), b))
        .collect();
    let Some((first, rest)) = leaves.split_first() else {
        return own;
    };
    let mut shared: Vec<View> = Vec::new();
    for (name, set, required) in first {
        let mut set = set.clone();
        let mut required = *required;
        for leaf in rest {
            match leaf.iter().find(|(n, _, _)| n == name) {
                Some((_, other, r)) => {
                    required &= *r;
                    set = match (set, other) {
                        (Some(mut a), Some(b)) => {
                            a.extend(b.iter().copied());
                            Some(a)
                        }
                        _ => None,
                    };
                }
                None => {
                    required = false;
                    set = None;
                }
            }
        }
        if let Some(s) = &mut set {
            let mut keys = BTreeSet::new();
            s.retain(|l| keys.insert(l.value_key()));
        }
        shared.push((name, set, required));
    }
    // The enclosing tag and the shared fields, as the branch states them, come first.
    own.extend(shared.into_iter().filter(|(n, _, _)| *n != tag));
    own
}

/// The literal set of a `const`/`enum` shape.
fn literal_set(shape: &Shape) -> Option<Vec<Literal>> {
    match shape {
        Shape::Const(l) => Some(vec![*l]),
        Shape::Enum(ls) if !ls.is_empty() => Some(ls.clone()),
        _ => None,
    }
}

/// What normalisation carries along: the number of definitions, which of them are literal sets
/// (an untagged union's field must not point at one), the counter of fresh literals.
struct Ctx {
    defs: usize,
    literal_defs: Vec<bool>,
    fresh: u8,
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

/// The tag index `wanted` names, or the next one no enclosing union uses.
fn free_tag(wanted: u8, taken: &[u8]) -> Option<u8> {
    (0..3u8)
        .map(|k| (wanted % 3 + k) % 3)
        .find(|t| !taken.contains(t))
}

/// Normalises a union whose enclosing unions (it being a branch of theirs) use the tags
/// `taken`: an inner union (`taken` not empty) is internally tagged on a tag of its own.
fn normalize_union(union: &Union, depth: usize, ctx: &mut Ctx, taken: &[u8]) -> Union {
    let form = if taken.is_empty() {
        union.form
    } else {
        Form::Internal
    };
    let tag = free_tag(union.tag, taken).unwrap_or(union.tag % 3);
    let mut scope: Vec<u8> = taken.to_vec();
    scope.push(tag);
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut branches: Vec<Branch> = Vec::new();
    for branch in union.branches.iter().take(MAX_BRANCHES) {
        let most = if form == Form::External { 1 } else { 3 };
        let mut tags = Vec::new();
        for literal in branch.tags.iter().take(most) {
            if used.insert(literal.value_key()) {
                tags.push(*literal);
            }
        }
        if tags.is_empty() {
            let literal = fresh_literal(&mut ctx.fresh, &used);
            used.insert(literal.value_key());
            tags.push(literal);
        }
        let unit = branch.unit && matches!(form, Form::Adjacent | Form::External);
        let inner = match (&branch.inner, form) {
            (Some(inner), Form::Internal) if depth < MAX_SHAPE_DEPTH => {
                free_tag(inner.tag, &scope).map(|_| normalize_union(inner, depth + 1, ctx, &scope))
            }
            _ => None,
        };
        // Names reserved in this branch's fields: every tag in scope (internally tagged), and
        // the inner union's.
        let mut reserved: Vec<&'static str> = Vec::new();
        if form == Form::Internal {
            reserved.extend(scope.iter().map(|t| TAG_NAMES[usize::from(*t)]));
            if let Some(inner) = &inner {
                reserved.push(inner.tag_name());
            }
        }
        let mut fields = if unit {
            Vec::new()
        } else {
            normalize_fields(&branch.fields, &reserved, depth + 1, ctx)
        };
        if form == Form::Untagged {
            for field in &mut fields {
                if is_literal(&field.shape, &ctx.literal_defs) {
                    field.shape = Shape::Str {
                        min_len: None,
                        max_len: None,
                        email: false,
                    };
                }
            }
        }
        let inner = inner.map(|mut inner| {
            let shared: Vec<&'static str> = fields.iter().map(|f| f.name.as_str()).collect();
            drop_fields_named(&mut inner, &shared);
            Box::new(inner)
        });
        let policy = if inner.is_some() {
            Policy::Closed
        } else {
            normalize_policy(&branch.policy, depth + 1, ctx)
        };
        branches.push(Branch {
            tags,
            fields,
            policy,
            note: branch.note,
            tag_default: branch.tag_default && form == Form::Internal,
            unit,
            inner,
        });
    }
    while branches.len() < 2 {
        let literal = fresh_literal(&mut ctx.fresh, &used);
        used.insert(literal.value_key());
        branches.push(Branch {
            tags: vec![literal],
            fields: Vec::new(),
            policy: Policy::Closed,
            note: None,
            tag_default: false,
            unit: false,
            inner: None,
        });
    }
    Union {
        tag,
        branches,
        note: union.note,
        form,
    }
}

/// Whether `shape` renders as a literal set (`const`, `enum`, or a reference to one).
fn is_literal(shape: &Shape, literal_defs: &[bool]) -> bool {
    match shape {
        Shape::Const(_) | Shape::Enum(_) => true,
        Shape::Ref(i) => literal_defs.get(usize::from(*i)) == Some(&true),
        _ => false,
    }
}

/// Removes the fields named in `names` from every branch of `union`, through inner unions (a
/// shared field of an enclosing branch is already in every one of them).
fn drop_fields_named(union: &mut Union, names: &[&'static str]) {
    for branch in &mut union.branches {
        branch.fields.retain(|f| !names.contains(&f.name.as_str()));
        if let Some(inner) = &mut branch.inner {
            drop_fields_named(inner, names);
        }
    }
}

fn normalize_policy(policy: &Policy, depth: usize, ctx: &mut Ctx) -> Policy {
    match policy {
        Policy::CatchAll(shape) => {
            Policy::CatchAll(Box::new(normalize_shape(shape, depth + 1, ctx)))
        }
        other => other.clone(),
    }
}

fn normalize_fields(
    fields: &[Field],
    reserved: &[&str],
    depth: usize,
    ctx: &mut Ctx,
) -> Vec<Field> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for field in fields.iter().take(MAX_FIELDS) {
        let name = Name(field.name.0 % FIELD_NAMES.len() as u8);
        if reserved.contains(&name.as_str()) || !seen.insert(name.as_str()) {
            continue;
        }
        out.push(Field {
            name,
            shape: normalize_shape(&field.shape, depth + 1, ctx),
            required: field.required,
            note: field.note,
        });
    }
    out
}

fn normalize_shape(shape: &Shape, depth: usize, ctx: &mut Ctx) -> Shape {
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
            match normalize_shape(inner, depth, ctx) {
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
                items: Box::new(normalize_shape(items, depth + 1, ctx)),
                min_items,
                max_items,
            }
        }
        Shape::Object { fields, policy } => Shape::Object {
            fields: normalize_fields(fields, &[], depth + 1, ctx),
            policy: normalize_policy(policy, depth, ctx),
        },
        Shape::Union(union) => Shape::Union(Box::new(normalize_union(union, depth, ctx, &[]))),
        Shape::Ref(i) => {
            if ctx.defs == 0 {
                Shape::Any
            } else {
                Shape::Ref(i % ctx.defs as u8)
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
            unit: false,
            inner: None,
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
                form: Form::Internal,
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
                form: Form::Internal,
            },
            defs: vec![],
        };
        let n = case.normalized();
        assert_eq!(n.root.tag_name(), "type");
        assert_eq!(n.root.branches.len(), 2);
        assert!(n.root.branches[0].fields.is_empty());
    }

    fn field(name: u8, shape: Shape) -> Field {
        Field {
            name: Name(name),
            shape,
            required: true,
            note: None,
        }
    }

    fn string() -> Shape {
        Shape::Str {
            min_len: None,
            max_len: None,
            email: false,
        }
    }

    fn union(tag: u8, form: Form, branches: Vec<Branch>) -> Union {
        Union {
            tag,
            branches,
            note: None,
            form,
        }
    }

    fn case(root: Union) -> Case {
        Case { root, defs: vec![] }
    }

    /// `FIELD_NAMES[4]`, also a tag name.
    const TYPE: u8 = 4;

    #[test]
    fn an_inner_union_gets_a_tag_of_its_own_and_no_field_is_named_like_a_tag_in_scope() {
        // Three levels of union on the tag `type`: the inner ones move to `op` and `kind`; a
        // fourth would have no tag left and is dropped.
        let mut deepest = branch(vec![Literal::Str(7)]);
        deepest.inner = Some(Box::new(union(
            1,
            Form::Internal,
            vec![branch(vec![Literal::Str(8)])],
        )));
        deepest.fields.push(field(TYPE, Shape::Bool));
        let mut middle = branch(vec![Literal::Str(5)]);
        middle.inner = Some(Box::new(union(
            1,
            Form::Untagged,
            vec![deepest, branch(vec![Literal::Str(6)])],
        )));
        let mut outer = branch(vec![Literal::Str(1)]);
        outer.inner = Some(Box::new(union(1, Form::External, vec![middle])));
        outer.fields.push(field(TYPE, Shape::Bool));
        outer.fields.push(field(0, string()));
        let mut plain = branch(vec![Literal::Str(2)]);
        plain.fields.push(field(TYPE, Shape::Bool));
        let n = case(union(1, Form::Internal, vec![outer, plain])).normalized();
        assert_eq!(n.root.tag_name(), "type");
        let outer = &n.root.branches[0];
        assert_eq!(
            outer.fields,
            vec![field(0, string())],
            "`type` is the root's tag"
        );
        assert_eq!(outer.policy, Policy::Closed);
        let middle = outer.inner.as_deref().expect("an inner union");
        assert_eq!(
            (middle.tag_name(), middle.form),
            ("op", Form::Internal),
            "an inner union is internally tagged on a tag of its own"
        );
        assert_eq!(middle.branches.len(), 2, "at least two branches");
        let deepest = middle.branches[0].inner.as_deref().expect("a third level");
        assert_eq!(deepest.tag_name(), "kind");
        assert!(middle.branches[0].fields.is_empty(), "`type` is in scope");
        assert!(
            deepest.branches.iter().all(|b| b.inner.is_none()),
            "no tag is left for a fourth level"
        );
        assert_eq!(
            n.root.branches[1].fields,
            vec![],
            "`type` is the root's tag"
        );
        assert!(n.root.is_tagged() && n.root.has_inner_union());
        assert_eq!(n.normalized(), n);
    }

    #[test]
    fn the_fields_a_union_branch_shares_leave_its_branches() {
        let mut leaf = branch(vec![Literal::Str(3)]);
        leaf.fields = vec![field(0, Shape::Bool), field(2, string())];
        let mut nested = branch(vec![Literal::Str(1)]);
        nested.fields = vec![field(0, string())];
        nested.inner = Some(Box::new(union(
            2,
            Form::Internal,
            vec![leaf, branch(vec![Literal::Str(4)])],
        )));
        let n = case(union(0, Form::Internal, vec![nested])).normalized();
        let inner = n.root.branches[0].inner.as_deref().expect("kept");
        assert_eq!(inner.branches[0].fields, vec![field(2, string())]);
    }

    #[test]
    fn units_defaults_and_inner_unions_stay_only_where_their_form_has_them() {
        let mut b = branch(vec![Literal::Str(1), Literal::Str(2)]);
        b.fields.push(field(0, Shape::Bool));
        b.unit = true;
        b.tag_default = true;
        b.inner = Some(Box::new(union(1, Form::Internal, vec![])));
        for form in [
            Form::Internal,
            Form::Adjacent,
            Form::External,
            Form::Untagged,
        ] {
            let n = case(union(0, form, vec![b.clone(), branch(vec![])])).normalized();
            let got = &n.root.branches[0];
            let units = matches!(form, Form::Adjacent | Form::External);
            assert_eq!(got.unit, units, "{form:?}");
            assert_eq!(
                got.fields.is_empty(),
                units,
                "{form:?}: a unit has no fields"
            );
            assert_eq!(got.tag_default, form == Form::Internal, "{form:?}");
            assert_eq!(got.inner.is_some(), form == Form::Internal, "{form:?}");
            let tags = if form == Form::External { 1 } else { 2 };
            assert_eq!(got.tags.len(), tags, "{form:?}: one name per variant");
        }
    }

    #[test]
    fn an_untagged_union_has_no_literal_property() {
        let mut b = branch(vec![]);
        b.fields = vec![
            field(0, Shape::Const(Literal::Str(1))),
            field(1, Shape::Enum(vec![Literal::Int(1)])),
            field(2, Shape::Ref(0)),
            field(3, Shape::Ref(1)),
            field(
                4,
                Shape::Nullable {
                    inner: Box::new(Shape::Const(Literal::Str(1))),
                    style: NullStyle::AnyOf,
                },
            ),
        ];
        let c = Case {
            root: union(0, Form::Untagged, vec![b.clone(), b]),
            defs: vec![Shape::Const(Literal::Bool(true)), Shape::Bool],
        };
        let n = c.normalized();
        let shapes: Vec<&Shape> = n.root.branches[0].fields.iter().map(|f| &f.shape).collect();
        assert_eq!(shapes[..3], [&string(), &string(), &string()]);
        assert_eq!(shapes[3], &Shape::Ref(1), "D1 is no literal set");
        assert!(
            matches!(shapes[4], Shape::Nullable { .. }),
            "no literal set"
        );
        assert_eq!(
            n.rival_discriminators(),
            vec!["kind"],
            "no discriminator: skip"
        );
    }

    #[test]
    fn a_union_branch_counts_as_a_rival_with_what_its_branches_share() {
        // Root on `kind`; both branches also have `type` as a literal: the nested branch through
        // each of its own branches, which disagree on nothing but their tag `op`.
        let typed = |l: Literal| field(TYPE, Shape::Const(l));
        let mut a = branch(vec![Literal::Str(3)]);
        a.fields = vec![typed(Literal::Str(1))];
        let mut b = branch(vec![Literal::Str(4)]);
        b.fields = vec![typed(Literal::Str(1))];
        let mut nested = branch(vec![Literal::Str(1)]);
        nested.inner = Some(Box::new(union(2, Form::Internal, vec![a, b])));
        let mut plain = branch(vec![Literal::Str(2)]);
        plain.fields = vec![typed(Literal::Str(2))];
        let n = case(union(0, Form::Internal, vec![nested, plain])).normalized();
        assert_eq!(n.rival_discriminators(), vec!["type"]);
        // With the same `type` literal in the plain branch, the sets overlap: no rival.
        let mut same = n.clone();
        same.root.branches[1].fields = vec![typed(Literal::Str(1))];
        assert!(same.rival_discriminators().is_empty());
    }

    #[test]
    fn external_variant_names_are_distinct_for_distinct_literals() {
        let literals = [
            Literal::Str(1),
            Literal::Int(1),
            Literal::Int(-1),
            Literal::Half(1),
            Literal::Large(1),
            Literal::Bool(true),
            Literal::Bool(false),
            Literal::Null,
        ];
        let names: BTreeSet<String> = literals.iter().map(|l| variant_name(*l)).collect();
        assert_eq!(names.len(), literals.len());
        assert_eq!(
            variant_name(Literal::IntAsFloat(1)),
            variant_name(Literal::Int(1))
        );
    }

    /// Checks what [`Case::normalized`] promises of `union`, whose enclosing unions use `taken`.
    #[cfg(feature = "arbitrary")]
    fn assert_promises(union: &Union, taken: &[&'static str], literal_defs: &[bool]) {
        assert!(union.branches.len() >= 2);
        let mut keys = BTreeSet::new();
        for b in &union.branches {
            assert!(!b.tags.is_empty());
            assert!(
                b.tags.iter().all(|l| keys.insert(l.value_key())),
                "disjoint"
            );
            let names: Vec<&str> = b.fields.iter().map(|f| f.name.as_str()).collect();
            let unique: BTreeSet<&str> = names.iter().copied().collect();
            assert_eq!(unique.len(), names.len(), "unique field names");
            assert!(b.tag_default <= (union.form == Form::Internal));
            assert!(b.unit <= matches!(union.form, Form::Adjacent | Form::External));
            assert!(!b.unit || b.fields.is_empty());
            if union.form == Form::External {
                assert_eq!(b.tags.len(), 1);
            }
            let mut scope = taken.to_vec();
            if union.form == Form::Internal {
                scope.push(union.tag_name());
            }
            if union.form == Form::Untagged {
                assert!(!b.fields.iter().any(|f| is_literal(&f.shape, literal_defs)));
            }
            if let Some(inner) = &b.inner {
                assert_eq!((union.form, inner.form), (Form::Internal, Form::Internal));
                assert!(!scope.contains(&inner.tag_name()), "a tag of its own");
                assert_promises(inner, &scope, literal_defs);
                scope.push(inner.tag_name());
            }
            assert!(
                names.iter().all(|n| !scope.contains(n)),
                "{names:?} {scope:?}"
            );
        }
    }

    /// Whatever bytes the fuzzer's `arbitrary` derive decodes into a case, normalisation keeps
    /// every promise of [`Case::normalized`], renders, and is idempotent on the root.
    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_cases_normalise_into_cases_that_keep_the_promises() {
        use arbitrary::{Arbitrary, Unstructured};
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut forms = BTreeSet::new();
        for _ in 0..600 {
            let bytes: Vec<u8> = (0..400)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state.to_le_bytes()[2]
                })
                .collect();
            let Ok(raw) = Case::arbitrary(&mut Unstructured::new(&bytes)) else {
                continue;
            };
            let n = raw.normalized();
            let literal_defs: Vec<bool> = n
                .defs
                .iter()
                .map(|d| matches!(d, Shape::Const(_) | Shape::Enum(_)))
                .collect();
            assert_promises(&n.root, &[], &literal_defs);
            for u in n.unions() {
                let taken: [&str; 0] = [];
                if u.branches.iter().all(|b| b.inner.is_none()) {
                    assert_promises(u, &taken, &literal_defs);
                }
            }
            // The root is normalised once and for all (a definition that is wrapped into an
            // object is one level deeper the next time, so the definitions need not be).
            assert_eq!(n.normalized().root, n.root, "idempotent");
            let schema = crate::render::render(&n);
            let members = schema
                .get("oneOf")
                .or_else(|| schema.get("anyOf"))
                .and_then(serde_json::Value::as_array)
                .expect("the root is a union");
            let objects = members
                .iter()
                .filter(|m| m.get("type") == Some(&serde_json::json!("object")))
                .count();
            let expected = members.len() - usize::from(n.root.admits_non_object());
            if n.root.has_inner_union() {
                assert!(objects < members.len(), "a branch that is a union");
            } else {
                assert_eq!(objects, expected, "object branches: {schema}");
            }
            forms.insert(format!("{:?}", n.root.form));
        }
        assert_eq!(forms.len(), 4, "every form decoded: {forms:?}");
    }
}
