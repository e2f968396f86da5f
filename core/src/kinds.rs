//! Kinds: the JSON types a schema can accept, or "unprovable" (SPEC §1).

use serde_json::{Map, Value};

use crate::draft::Draft;
use crate::fasthash::FastSet;
use crate::keywords;
use crate::pointer;

/// One JSON type. `Number` stands for the non-integer numbers: a schema of type `number` has
/// both `Integer` and `Number`, since `number` includes `integer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` and `false`.
    Boolean,
    /// Integers (`1`; a float literal such as `1.0` counts as both integer and number).
    Integer,
    /// Numbers with a fractional part.
    Number,
    /// Strings.
    String,
    /// Arrays.
    Array,
    /// Objects.
    Object,
}

impl Kind {
    /// Every kind, in the order used when a type list is written out.
    pub const ALL: [Kind; 7] = [
        Kind::Object,
        Kind::Array,
        Kind::String,
        Kind::Number,
        Kind::Integer,
        Kind::Boolean,
        Kind::Null,
    ];

    const fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The kind of one JSON value. A float literal with no fraction (`1.0`) reports `Number`;
    /// use [`Kinds::of_literal`] where it must also count as an integer.
    pub fn of_value(value: &Value) -> Kind {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(n) => {
                if n.is_i64() || n.is_u64() {
                    Kind::Integer
                } else {
                    Kind::Number
                }
            }
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }
}

/// What a schema can accept: a set of kinds, or unprovable (no type-fixing keyword).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds {
    /// Nothing fixes the type: `true`, `{}`, `{"minLength": 3}`, a `$ref` cycle, a remote `$ref`.
    Unprovable,
    /// Exactly these kinds (bit set; empty for `false` and contradictions).
    Only(u8),
}

impl Kinds {
    /// The empty set (what `false` accepts).
    pub const NONE: Kinds = Kinds::Only(0);
    const ALL_BITS: u8 = 0x7f;

    /// The set holding `kinds`.
    pub fn of(kinds: &[Kind]) -> Kinds {
        Kinds::Only(kinds.iter().fold(0, |acc, k| acc | k.bit()))
    }

    /// The kinds of one literal value. A number with no fractional part written as a float
    /// (`1.0`) is both an integer (draft 6 and later) and a number (every draft), so `type:
    /// "integer"` with `enum: [1.0]` still accepts it; widening then writes `number`, which
    /// accepts it under every draft.
    pub fn of_literal(value: &Value) -> Kinds {
        match value {
            Value::Number(n) if !(n.is_i64() || n.is_u64()) => {
                if n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                    Kinds::of(&[Kind::Integer, Kind::Number])
                } else {
                    Kinds::of(&[Kind::Number])
                }
            }
            v => Kinds::of(&[Kind::of_value(v)]),
        }
    }

    /// The kinds of a list of literals.
    pub fn of_literals<'v>(values: impl IntoIterator<Item = &'v Value>) -> Kinds {
        Kinds::of_literals_in(values, Draft::Draft202012)
    }

    /// The kinds of one literal as `draft` reads it. In draft-04 a literal with an integer value
    /// (`0`, `0.0`) is matched by value, so it accepts both `0` and `0.0`, and `0.0` is not an
    /// `integer` there: such a literal has both kinds, and widening writes `number` (SPEC §6
    /// decision 30). From draft-06 on this is [`Kinds::of_literal`].
    pub fn of_literal_in(value: &Value, draft: Draft) -> Kinds {
        match value {
            Value::Number(n) if !draft.integral_float_is_integer() => {
                if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                    Kinds::of(&[Kind::Integer, Kind::Number])
                } else {
                    Kinds::of(&[Kind::Number])
                }
            }
            v => Kinds::of_literal(v),
        }
    }

    /// The kinds of a list of literals as `draft` reads them.
    pub fn of_literals_in<'v>(values: impl IntoIterator<Item = &'v Value>, draft: Draft) -> Kinds {
        values.into_iter().fold(Kinds::NONE, |acc, v| {
            acc.union(Kinds::of_literal_in(v, draft))
        })
    }

    /// The kinds a `type` keyword value names (`"number"` gives integer and number).
    pub fn of_type_keyword(value: &Value) -> Kinds {
        let names: Vec<&str> = match value {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => return Kinds::Unprovable,
        };
        let mut bits = 0;
        for name in names {
            bits |= match name {
                "null" => Kind::Null.bit(),
                "boolean" => Kind::Boolean.bit(),
                "integer" => Kind::Integer.bit(),
                "number" => Kind::Integer.bit() | Kind::Number.bit(),
                "string" => Kind::String.bit(),
                "array" => Kind::Array.bit(),
                "object" => Kind::Object.bit(),
                _ => 0,
            };
        }
        Kinds::Only(bits)
    }

    /// Whether the schema may accept values of `kind` (always true when unprovable).
    pub fn contains(self, kind: Kind) -> bool {
        match self {
            Kinds::Unprovable => true,
            Kinds::Only(bits) => bits & kind.bit() != 0,
        }
    }

    /// Whether nothing fixes the type.
    pub fn is_unprovable(self) -> bool {
        self == Kinds::Unprovable
    }

    /// Whether the set is provably empty.
    pub fn is_empty(self) -> bool {
        self == Kinds::NONE
    }

    /// Union (unprovable absorbs).
    pub fn union(self, other: Kinds) -> Kinds {
        match (self, other) {
            (Kinds::Only(a), Kinds::Only(b)) => Kinds::Only(a | b),
            _ => Kinds::Unprovable,
        }
    }

    /// Intersection (unprovable is the identity).
    pub fn intersect(self, other: Kinds) -> Kinds {
        match (self, other) {
            (Kinds::Only(a), Kinds::Only(b)) => Kinds::Only(a & b),
            (Kinds::Unprovable, k) | (k, Kinds::Unprovable) => k,
        }
    }

    /// The kinds in the set, in [`Kind::ALL`] order (empty when unprovable).
    pub fn iter(self) -> impl Iterator<Item = Kind> {
        let bits = match self {
            Kinds::Only(bits) => bits,
            Kinds::Unprovable => 0,
        };
        Kind::ALL.into_iter().filter(move |k| bits & k.bit() != 0)
    }

    /// Whether every kind in the set is a scalar or null.
    pub fn only_scalars(self) -> bool {
        !self.is_unprovable() && !self.contains(Kind::Object) && !self.contains(Kind::Array)
    }

    fn all() -> Kinds {
        Kinds::Only(Self::ALL_BITS)
    }
}

/// Recursion bound for following `anyOf`/`allOf`/`$ref` chains; past it a schema is unprovable.
const MAX_STEPS: usize = 256;

/// The kinds of `schema`, a schema inside `document` (against which local `$ref`s resolve), read
/// by the draft `document` declares ([`Draft::of`]).
///
/// `type`, `const` (draft-06 on) and `enum` fix kinds; `anyOf`/`oneOf` give the union of their
/// members; `allOf` the intersection; a local `$ref` its target's (a cycle is unprovable). A
/// schema with no type-fixing keyword is unprovable; `false` accepts nothing.
pub fn kinds_of(schema: &Value, document: &Value) -> Kinds {
    kinds_in(schema, document, Draft::of(document))
}

/// [`kinds_of`] with the document's draft already read (the join reads it once per union).
pub(crate) fn kinds_in(schema: &Value, document: &Value, draft: Draft) -> Kinds {
    let mut visiting = FastSet::default();
    kinds_inner(schema, document, draft, &mut visiting, 0)
}

fn kinds_inner<'a>(
    schema: &'a Value,
    document: &'a Value,
    draft: Draft,
    visiting: &mut FastSet<String>,
    steps: usize,
) -> Kinds {
    let map = match schema {
        Value::Bool(true) => return Kinds::Unprovable,
        Value::Bool(false) => return Kinds::NONE,
        Value::Object(map) => map,
        _ => return Kinds::Unprovable,
    };
    if steps > MAX_STEPS {
        return Kinds::Unprovable;
    }
    if draft.ref_overrides_siblings() && keywords::has(map, "$ref") {
        return match map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(pointer::local_ref)
        {
            Some(target_ptr) if visiting.insert(target_ptr.clone()) => {
                let k = pointer::get(document, &target_ptr).map_or(Kinds::Unprovable, |t| {
                    kinds_inner(t, document, draft, visiting, steps + 1)
                });
                visiting.remove(&target_ptr);
                k
            }
            _ => Kinds::Unprovable,
        };
    }
    // `not` of a schema that accepts everything accepts nothing (draft-04's spelling of
    // `false`, which has no boolean schemas).
    if let Some(not) = keywords::get(map, "not")
        && (not == &Value::Bool(true) || not.as_object().is_some_and(Map::is_empty))
    {
        return Kinds::NONE;
    }
    let mut result = Kinds::all();
    let mut fixed = false;
    let mut narrow = |k: Kinds, result: &mut Kinds| {
        if !k.is_unprovable() {
            *result = result.intersect(k);
            fixed = true;
        }
    };
    if let Some(t) = keywords::get(map, "type") {
        narrow(Kinds::of_type_keyword(t), &mut result);
    }
    if let Some(c) = keywords::get(map, "const").filter(|_| draft.has_const()) {
        narrow(Kinds::of_literal_in(c, draft), &mut result);
    }
    if let Some(Value::Array(values)) = keywords::get(map, "enum") {
        narrow(Kinds::of_literals_in(values, draft), &mut result);
    }
    if let Some(Value::String(reference)) = keywords::get(map, "$ref")
        && let Some(target_ptr) = pointer::local_ref(reference)
        && visiting.insert(target_ptr.clone())
    {
        if let Some(target) = pointer::get(document, &target_ptr) {
            let k = kinds_inner(target, document, draft, visiting, steps + 1);
            narrow(k, &mut result);
        }
        visiting.remove(&target_ptr);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = keywords::get(map, keyword) {
            let mut union = Kinds::NONE;
            for m in members {
                union = union.union(kinds_inner(m, document, draft, visiting, steps + 1));
                if union.is_unprovable() {
                    break;
                }
            }
            narrow(union, &mut result);
        }
    }
    if let Some(Value::Array(members)) = keywords::get(map, "allOf") {
        for m in members {
            let k = kinds_inner(m, document, draft, visiting, steps + 1);
            narrow(k, &mut result);
        }
    }
    if fixed { result } else { Kinds::Unprovable }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn k(schema: Value) -> Kinds {
        kinds_of(&schema, &schema)
    }

    #[test]
    fn type_const_enum() {
        assert_eq!(
            k(json!({"type": "number"})),
            Kinds::of(&[Kind::Integer, Kind::Number])
        );
        assert_eq!(k(json!({"const": 1})), Kinds::of(&[Kind::Integer]));
        assert_eq!(
            k(json!({"const": 1.0})),
            Kinds::of(&[Kind::Integer, Kind::Number])
        );
        assert_eq!(k(json!({"const": 1.5})), Kinds::of(&[Kind::Number]));
        // Regression (corpus/regressions/soundness-682cb637.json): 0.0 is an integer too.
        assert_eq!(
            k(json!({"type": ["integer", "string"], "enum": [0.0, "s0"]})),
            Kinds::of(&[Kind::Integer, Kind::String])
        );
        assert_eq!(
            k(json!({"enum": ["a", null]})),
            Kinds::of(&[Kind::String, Kind::Null])
        );
        assert_eq!(k(json!({"type": "string", "enum": [1]})), Kinds::NONE);
    }

    #[test]
    fn unprovable_and_false() {
        assert!(k(json!({})).is_unprovable());
        assert!(k(json!(true)).is_unprovable());
        assert!(k(json!({"minLength": 3})).is_unprovable());
        assert!(k(json!({"anyOf": [{"type": "string"}, {}]})).is_unprovable());
        assert_eq!(k(json!(false)), Kinds::NONE);
    }

    #[test]
    fn combinators_and_refs() {
        let doc = json!({"$defs": {"s": {"type": "string"}, "loop": {"$ref": "#/$defs/loop"}}});
        let s = json!({"anyOf": [{"$ref": "#/$defs/s"}, {"type": "null"}]});
        assert_eq!(kinds_of(&s, &doc), Kinds::of(&[Kind::String, Kind::Null]));
        assert!(kinds_of(&json!({"$ref": "#/$defs/loop"}), &doc).is_unprovable());
        let all = json!({"allOf": [{"type": ["string", "null"]}, {"type": "string"}]});
        assert_eq!(k(all), Kinds::of(&[Kind::String]));
    }

    #[test]
    fn integers_of_either_sign_and_width_are_integers() {
        assert_eq!(Kind::of_value(&json!(-1)), Kind::Integer);
        assert_eq!(Kind::of_value(&json!(u64::MAX)), Kind::Integer);
        assert_eq!(Kind::of_value(&json!(-1.5)), Kind::Number);
        assert_eq!(Kinds::of_literal(&json!(-3)), Kinds::of(&[Kind::Integer]));
        assert_eq!(
            Kinds::of_literal(&json!(u64::MAX)),
            Kinds::of(&[Kind::Integer])
        );
        // A repeated kind is still in the set.
        assert_eq!(
            Kinds::of(&[Kind::String, Kind::String]),
            Kinds::of(&[Kind::String])
        );
        assert_eq!(
            k(json!({"enum": ["a", "b", 1, 2]})),
            Kinds::of(&[Kind::String, Kind::Integer])
        );
    }

    #[test]
    fn only_scalars_means_no_object_no_array_and_provable() {
        assert!(Kinds::of(&[Kind::String, Kind::Null, Kind::Number]).only_scalars());
        assert!(Kinds::NONE.only_scalars());
        assert!(!Kinds::of(&[Kind::String, Kind::Object]).only_scalars());
        assert!(!Kinds::of(&[Kind::Array, Kind::Null]).only_scalars());
        assert!(!Kinds::of(&[Kind::Object]).only_scalars());
        assert!(!Kinds::Unprovable.only_scalars());
    }

    #[test]
    fn ref_siblings_count_from_2019_09_on_and_not_before() {
        // Draft 2020-12: `$ref` is one more assertion beside `type` (the intersection).
        let doc = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"si": {"type": ["string", "integer"]}}
        });
        let s = json!({"$ref": "#/$defs/si", "type": ["string", "null"]});
        assert_eq!(kinds_of(&s, &doc), Kinds::of(&[Kind::String]));
        // Draft-07: the siblings of `$ref` are ignored.
        let doc = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"si": {"type": ["string", "integer"]}}
        });
        let s = json!({"$ref": "#/definitions/si", "type": ["string", "null"]});
        assert_eq!(
            kinds_of(&s, &doc),
            Kinds::of(&[Kind::String, Kind::Integer])
        );
    }

    /// `levels` nestings of `wrap` around `{"type": "string"}`.
    fn nested(levels: usize, wrap: fn(Value) -> Value) -> Value {
        (0..levels).fold(json!({"type": "string"}), |inner, _| wrap(inner))
    }

    #[test]
    fn the_step_bound_holds_for_every_edge() {
        // MAX_STEPS levels are followed; one more and the schema is unprovable (never a stack
        // overflow), whichever keyword nests it.
        let wraps: [fn(Value) -> Value; 3] = [
            |v| json!({"allOf": [v]}),
            |v| json!({"anyOf": [v]}),
            |v| json!({"oneOf": [v, false]}),
        ];
        for wrap in wraps {
            assert_eq!(k(nested(MAX_STEPS, wrap)), Kinds::of(&[Kind::String]));
            assert!(k(nested(MAX_STEPS + 1, wrap)).is_unprovable());
        }
        // A chain of `$ref`s, under 2020-12 and under draft-07 (where `$ref` stands alone).
        for (schema, container) in [
            ("https://json-schema.org/draft/2020-12/schema", "$defs"),
            ("http://json-schema.org/draft-07/schema#", "definitions"),
        ] {
            let chain = |links: usize| {
                let mut defs = serde_json::Map::new();
                for i in 0..links {
                    defs.insert(
                        format!("d{i}"),
                        json!({"$ref": format!("#/{container}/d{}", i + 1)}),
                    );
                }
                defs.insert(format!("d{links}"), json!({"type": "string"}));
                json!({"$schema": schema, container: defs})
            };
            // The string sits MAX_STEPS steps from `start` (`start` → d0 → … → d255).
            let doc = chain(MAX_STEPS - 1);
            let start = json!({"$ref": format!("#/{container}/d0")});
            assert_eq!(
                kinds_of(&start, &doc),
                Kinds::of(&[Kind::String]),
                "{container}"
            );
            let doc = chain(MAX_STEPS + 1);
            assert!(kinds_of(&start, &doc).is_unprovable(), "{container}");
        }
    }
}
