//! Conservative widening of colliding scalar alternatives into one schema (SPEC §3.5, last case).

use std::borrow::Borrow;

use serde_json::{Map, Number, Value};

use crate::canonical::{literal_key, number_key};
use crate::draft::Draft;
use crate::fasthash::FastSet;
use crate::keywords;
use crate::kinds::{Kind, Kinds};

/// How widening is skewed by an injected fault (all off in a correct build).
#[derive(Clone, Copy, Default)]
pub(crate) struct WidenFaults {
    /// `drop-null`: forget `null` in the widened type.
    pub drop_null: bool,
    /// `tightest-bound`: keep the strictest bound instead of the loosest.
    pub tightest_bound: bool,
}

/// Bounds on strings, with whether a larger value is looser.
const STRING_BOUNDS: &[(&str, bool)] = &[("minLength", false), ("maxLength", true)];
/// Bounds on numbers, with whether a larger value is looser.
const NUMBER_BOUNDS: &[(&str, bool)] = &[
    ("minimum", false),
    ("maximum", true),
    ("exclusiveMinimum", false),
    ("exclusiveMaximum", true),
];

/// The keywords compared only when identical (beside the bounds).
const IDENTICAL: [&str; 3] = ["pattern", "multipleOf", "format"];

/// Whether widening keeps `keyword` when the alternatives agree on it: a bound, or one of
/// [`IDENTICAL`].
fn widened(keyword: &str) -> bool {
    STRING_BOUNDS
        .iter()
        .chain(NUMBER_BOUNDS)
        .any(|(bound, _)| *bound == keyword)
        || IDENTICAL.contains(&keyword)
}

/// The conservative scalar widening of SPEC §3.5 for callers outside the join (the provider
/// profiles lower their unions with it instead of re-implementing it): each alternative with its
/// kinds ([`kinds_of`](crate::kinds_of)), none of them unprovable. The result is the join's own
/// widening, with no fault injected: `type` the union of kinds (`integer` folded into `number`),
/// `enum` the union of values when every alternative is literal-restricted, the loosest string
/// and number bounds every alternative accepting their type has, `pattern`/`multipleOf` when
/// identical across those alternatives, `format` when identical in all. Array and object keywords
/// are not widened.
pub fn widen_scalars(alternatives: &[(Value, Kinds)]) -> Map<String, Value> {
    widen(alternatives, WidenFaults::default(), Draft::Draft202012)
}

/// [`widen_scalars`] reading the alternatives by `draft` (in draft-04 `const` asserts nothing, so
/// an alternative with only `const` is not literal-restricted there).
pub fn widen_scalars_in(alternatives: &[(Value, Kinds)], draft: Draft) -> Map<String, Value> {
    widen(alternatives, WidenFaults::default(), draft)
}

/// Widens scalar alternatives (each with its kinds) into one schema: `type` is the union of kinds
/// (`integer` folds into `number`), `enum` the union of values when every alternative is
/// literal-restricted, a bound stays only when every alternative accepting its type has it
/// (keeping the loosest), `pattern`/`multipleOf` only when identical across the alternatives
/// accepting their type, `format` only when identical in all.
pub(crate) fn widen<V: Borrow<Value>>(
    alternatives: &[(V, Kinds)],
    faults: WidenFaults,
    draft: Draft,
) -> Map<String, Value> {
    let mut out = Map::new();
    let union = alternatives
        .iter()
        .fold(Kinds::NONE, |acc, (_, k)| acc.union(*k));
    let mut names: Vec<&str> = Vec::new();
    for kind in union.iter() {
        let name = match kind {
            Kind::Null if faults.drop_null => continue,
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Integer if union.contains(Kind::Number) => continue,
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        };
        names.push(name);
    }
    out.insert(
        "type".into(),
        if names.len() == 1 {
            Value::String(names[0].into())
        } else {
            Value::Array(names.iter().map(|n| Value::String((*n).into())).collect())
        },
    );
    if let Some(values) = enum_union(alternatives, draft) {
        out.insert("enum".into(), Value::Array(values));
    }
    // Most alternatives have none of the keywords below: one pass over their keys says so.
    let has_assertions = alternatives.iter().any(|(s, _)| {
        s.borrow()
            .as_object()
            .is_some_and(|m| m.keys().any(|k| widened(k)))
    });
    if !has_assertions {
        return out;
    }
    let accepts_string = |k: &Kinds| k.contains(Kind::String);
    let accepts_number = |k: &Kinds| k.contains(Kind::Integer) || k.contains(Kind::Number);
    for (keyword, larger_is_looser) in STRING_BOUNDS {
        let looser = *larger_is_looser != faults.tightest_bound;
        if let Some(v) = common_bound(alternatives, keyword, accepts_string, looser) {
            out.insert((*keyword).into(), v);
        }
    }
    for (keyword, larger_is_looser) in NUMBER_BOUNDS {
        let looser = *larger_is_looser != faults.tightest_bound;
        if let Some(v) = common_bound(alternatives, keyword, accepts_number, looser) {
            out.insert((*keyword).into(), v);
        }
    }
    let [pattern, multiple_of, format] = IDENTICAL;
    if let Some(v) = identical(alternatives, pattern, accepts_string) {
        out.insert(pattern.into(), v);
    }
    if let Some(v) = identical(alternatives, multiple_of, accepts_number) {
        out.insert(multiple_of.into(), v);
    }
    if let Some(v) = identical(alternatives, format, |_| true) {
        out.insert(format.into(), v);
    }
    out
}

fn literals(schema: &Value, draft: Draft) -> Option<Vec<&Value>> {
    let map = schema.as_object()?;
    if let Some(c) = keywords::get(map, "const").filter(|_| draft.has_const()) {
        return Some(vec![c]);
    }
    match keywords::get(map, "enum") {
        Some(Value::Array(values)) => Some(values.iter().collect()),
        _ => None,
    }
}

fn enum_union<V: Borrow<Value>>(alternatives: &[(V, Kinds)], draft: Draft) -> Option<Vec<Value>> {
    if let [(schema, _)] = alternatives {
        return literals(schema.borrow(), draft)
            .map(|values| values.into_iter().cloned().collect());
    }
    let mut seen = FastSet::default();
    let mut out = Vec::new();
    for (schema, _) in alternatives {
        for v in literals(schema.borrow(), draft)? {
            if seen.insert(literal_key(v)) {
                out.push(v.clone());
            }
        }
    }
    Some(out)
}

fn common_bound<V: Borrow<Value>>(
    alternatives: &[(V, Kinds)],
    keyword: &str,
    applies: impl Fn(&Kinds) -> bool,
    larger_is_looser: bool,
) -> Option<Value> {
    if !alternatives
        .iter()
        .any(|(s, _)| keywords::get_in(s.borrow(), keyword).is_some())
    {
        return None;
    }
    let relevant: Vec<&Value> = alternatives
        .iter()
        .filter(|(_, k)| applies(k))
        .map(|(s, _)| s.borrow())
        .collect();
    let values: Vec<&Value> = relevant
        .iter()
        .map(|s| keywords::get_in(s, keyword))
        .collect::<Option<_>>()?;
    let first = *values.first()?;
    if values.iter().all(|v| v.is_number()) {
        let pick = values
            .iter()
            .filter_map(|v| v.as_f64().map(|f| (f, *v)))
            .fold(None::<(f64, &Value)>, |best, (f, v)| match best {
                Some((b, _)) if (f > b) != larger_is_looser || f == b => best,
                _ => Some((f, v)),
            });
        return pick.map(|(_, v)| v.clone());
    }
    // Non-numeric bounds (draft-04's boolean `exclusiveMinimum`) stay only when identical.
    values.iter().all(|v| v == &first).then(|| first.clone())
}

fn identical<V: Borrow<Value>>(
    alternatives: &[(V, Kinds)],
    keyword: &str,
    applies: impl Fn(&Kinds) -> bool,
) -> Option<Value> {
    if !alternatives
        .iter()
        .any(|(s, _)| keywords::get_in(s.borrow(), keyword).is_some())
    {
        return None;
    }
    let mut result: Option<&Value> = None;
    for (schema, kinds) in alternatives.iter().filter(|(_, k)| applies(k)) {
        let _ = kinds;
        let v = keywords::get_in(schema.borrow(), keyword)?;
        match result {
            None => result = Some(v),
            Some(r) if same_value(r, v) => {}
            Some(_) => return None,
        }
    }
    result.cloned()
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        _ => a == b,
    }
}

fn num_eq(x: &Number, y: &Number) -> bool {
    number_key(x) == number_key(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::kinds_of;
    use serde_json::json;

    fn run(alts: Vec<Value>) -> Value {
        let with_kinds: Vec<(Value, Kinds)> = alts
            .into_iter()
            .map(|a| {
                let k = kinds_of(&a, &a);
                (a, k)
            })
            .collect();
        Value::Object(widen(
            &with_kinds,
            WidenFaults::default(),
            Draft::Draft202012,
        ))
    }

    #[test]
    fn types_fold_and_enums_union() {
        let w = run(vec![
            json!({"type": "integer"}),
            json!({"type": ["number", "null"]}),
        ]);
        assert_eq!(w, json!({"type": ["number", "null"]}));
        let w = run(vec![json!({"const": "a"}), json!({"enum": ["b", "a", 1]})]);
        assert_eq!(w["enum"], json!(["a", "b", 1]));
        let w = run(vec![json!({"const": "a"}), json!({"type": "string"})]);
        assert_eq!(w.get("enum"), None);
    }

    #[test]
    fn bounds_loosest_only_when_everywhere() {
        let w = run(vec![
            json!({"type": "string", "maxLength": 5, "minLength": 2}),
            json!({"type": "string", "maxLength": 9}),
            json!({"type": "integer", "minimum": 3}),
        ]);
        assert_eq!(w["maxLength"], json!(9));
        assert_eq!(w.get("minLength"), None);
        assert_eq!(w["minimum"], json!(3));
    }

    #[test]
    fn pattern_and_format() {
        let w = run(vec![
            json!({"type": "string", "pattern": "^a", "format": "email"}),
            json!({"type": "string", "pattern": "^a"}),
            json!({"type": "null"}),
        ]);
        assert_eq!(w["pattern"], json!("^a"));
        assert_eq!(w.get("format"), None);
    }

    #[test]
    fn the_loosest_bound_wins_wherever_it_stands() {
        // SPEC §3.5: the loosest value of a bound every alternative accepting its type has,
        // whichever alternative holds it (first, last, or a tie written differently).
        for order in [[0, 1], [1, 0]] {
            let alts = [
                json!({"type": "number", "minimum": 1, "maximum": 9, "exclusiveMinimum": 0,
                       "exclusiveMaximum": 10}),
                json!({"type": "number", "minimum": 3, "maximum": 5, "exclusiveMinimum": 2,
                       "exclusiveMaximum": 6}),
            ];
            let w = run(order.iter().map(|&i| alts[i].clone()).collect());
            assert_eq!(w["minimum"], json!(1), "{order:?}");
            assert_eq!(w["maximum"], json!(9), "{order:?}");
            assert_eq!(w["exclusiveMinimum"], json!(0), "{order:?}");
            assert_eq!(w["exclusiveMaximum"], json!(10), "{order:?}");
            let alts = [
                json!({"type": "string", "minLength": 1, "maxLength": 9}),
                json!({"type": "string", "minLength": 4, "maxLength": 2}),
            ];
            let w = run(order.iter().map(|&i| alts[i].clone()).collect());
            assert_eq!(w["minLength"], json!(1), "{order:?}");
            assert_eq!(w["maxLength"], json!(9), "{order:?}");
        }
    }

    #[test]
    fn identical_means_equal_by_value() {
        // `multipleOf` 2 and 2.0 are the same constraint; 2 and 3 are not, nor are two patterns.
        let w = run(vec![
            json!({"type": "integer", "multipleOf": 2}),
            json!({"type": "number", "multipleOf": 2.0}),
        ]);
        assert_eq!(w["multipleOf"].as_f64(), Some(2.0));
        let w = run(vec![
            json!({"type": "integer", "multipleOf": 2}),
            json!({"type": "integer", "multipleOf": 3}),
        ]);
        assert_eq!(w.get("multipleOf"), None);
        let w = run(vec![
            json!({"type": "string", "pattern": "^a"}),
            json!({"type": "string", "pattern": "^b"}),
        ]);
        assert_eq!(w.get("pattern"), None);
    }

    #[test]
    fn the_public_widening_is_the_joins() {
        let alts: Vec<(Value, Kinds)> = [
            json!({"type": "string", "maxLength": 3}),
            json!({"type": ["integer", "null"], "minimum": 0}),
        ]
        .into_iter()
        .map(|a| {
            let k = kinds_of(&a, &a);
            (a, k)
        })
        .collect();
        let public = widen_scalars(&alts);
        assert_eq!(
            public,
            widen(&alts, WidenFaults::default(), Draft::Draft202012)
        );
        assert!(public.contains_key("maxLength") && public.contains_key("minimum"));
    }
}
