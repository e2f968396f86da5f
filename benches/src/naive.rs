//! A deliberately naive join, benchmarked beside flatjoin to show what its design avoids.
//!
//! It flattens the root `oneOf` of a synthetic shape into one object like the real join, but
//! dedups each property's alternatives by comparing every alternative with every earlier one
//! (`O(k²)` structural comparisons for `k` alternatives, each comparison re-canonicalizing both
//! sides) instead of hashing one structural key per alternative. It keeps every alternative in an
//! `anyOf` (no scalar widening), so it accepts exactly the union of the branches' property values:
//! never more than the real join, which only widens.

use serde_json::{Map, Value, json};

/// Joins the root `oneOf` of `schema` on `discriminator`. Returns `schema` unchanged (cloned)
/// when it has no root `oneOf` of object branches.
pub fn naive_join(schema: &Value, discriminator: &str) -> Value {
    let Some(branches) = schema.get("oneOf").and_then(Value::as_array) else {
        return schema.clone();
    };
    let Some(branch_properties) = branches
        .iter()
        .map(|b| b.get("properties").and_then(Value::as_object))
        .collect::<Option<Vec<&Map<String, Value>>>>()
    else {
        return schema.clone();
    };

    // Every name in first-appearance order with the alternatives that define it.
    let mut names: Vec<&str> = Vec::new();
    let mut alternatives: Map<String, Value> = Map::new();
    for properties in &branch_properties {
        for (name, property) in *properties {
            if name == discriminator {
                continue;
            }
            if !alternatives.contains_key(name) {
                names.push(name);
                alternatives.insert(name.clone(), Value::Array(Vec::new()));
            }
            if let Some(Value::Array(list)) = alternatives.get_mut(name) {
                list.push(property.clone());
            }
        }
    }

    let literals: Vec<Value> = branch_properties
        .iter()
        .filter_map(|p| p.get(discriminator)?.get("const").cloned())
        .collect();
    let mut properties = Map::new();
    properties.insert(discriminator.to_owned(), json!({"enum": literals}));
    for name in names {
        let Some(Value::Array(list)) = alternatives.remove(name) else {
            continue;
        };
        let kept = pairwise_dedup(list);
        let joined = if kept.len() == 1 {
            kept.into_iter().next().unwrap_or(Value::Bool(true))
        } else {
            json!({"anyOf": kept})
        };
        properties.insert(name.to_owned(), joined);
    }

    let required: Vec<Value> = match branches.first().and_then(|b| b.get("required")) {
        Some(Value::Array(first)) => first
            .iter()
            .filter(|name| {
                branches.iter().all(|b| {
                    b.get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.contains(name))
                })
            })
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    let closed = branches
        .iter()
        .all(|b| b.get("additionalProperties") == Some(&Value::Bool(false)));

    let mut flat = Map::new();
    if let Some(dialect) = schema.get("$schema") {
        flat.insert("$schema".to_owned(), dialect.clone());
    }
    flat.insert("type".to_owned(), Value::from("object"));
    flat.insert("properties".to_owned(), Value::Object(properties));
    flat.insert("required".to_owned(), Value::Array(required));
    if closed {
        flat.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    Value::Object(flat)
}

/// Keeps an alternative unless some earlier one (kept or not) is structurally equal to it.
fn pairwise_dedup(alternatives: Vec<Value>) -> Vec<Value> {
    let keep: Vec<bool> = (0..alternatives.len())
        .map(|i| !(0..i).any(|j| flatjoin::structurally_equal(&alternatives[j], &alternatives[i])))
        .collect();
    alternatives
        .into_iter()
        .zip(keep)
        .filter_map(|(a, k)| k.then_some(a))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{DISCRIMINATOR, ShapeSpec, sample_for};

    fn accepts(schema: &Value, instance: &Value) -> bool {
        jsonschema::validator_for(schema)
            .expect("schema compiles")
            .is_valid(instance)
    }

    /// Samples every branch accepts, plus values no branch accepts.
    fn samples(original: &Value) -> (Vec<Value>, Vec<Value>) {
        let branches = original["oneOf"].as_array().expect("oneOf");
        let valid: Vec<Value> = branches.iter().map(sample_for).collect();
        let mut invalid = vec![json!(42), json!({DISCRIMINATOR: "no-such-branch"})];
        let mut wrong_type = valid[0].clone();
        if let Some(object) = wrong_type.as_object_mut() {
            for (name, value) in object.iter_mut() {
                if name != DISCRIMINATOR {
                    // No synthetic property accepts a JSON null.
                    *value = Value::Null;
                }
            }
            object.insert("undeclared".to_owned(), json!(1));
        }
        invalid.push(wrong_type);
        (valid, invalid)
    }

    #[test]
    fn naive_join_and_flatjoin_agree_on_acceptance() {
        for spec in [
            ShapeSpec::mixed(8, 4, 50, 2),
            ShapeSpec::mixed(5, 8, 100, 1),
            ShapeSpec::mixed(3, 4, 0, 3),
            ShapeSpec::dedup_heavy(4, 4, 2),
            ShapeSpec::all_distinct(4, 2, 2),
        ] {
            let original = spec.build();
            let naive = naive_join(&original, DISCRIMINATOR);
            let flat = flatjoin::flatten(&original, &flatjoin::Options::default())
                .expect("synthetic shapes flatten")
                .schema;
            let (valid, invalid) = samples(&original);
            for instance in &valid {
                assert!(
                    accepts(&original, instance),
                    "{}: original rejects {instance}",
                    spec.id()
                );
                assert!(
                    accepts(&naive, instance),
                    "{}: naive rejects {instance}",
                    spec.id()
                );
                assert!(
                    accepts(&flat, instance),
                    "{}: flatjoin rejects {instance}",
                    spec.id()
                );
            }
            for instance in &invalid {
                assert!(
                    !accepts(&naive, instance),
                    "{}: naive accepts {instance}",
                    spec.id()
                );
                assert!(
                    !accepts(&flat, instance),
                    "{}: flatjoin accepts {instance}",
                    spec.id()
                );
            }
        }
    }

    #[test]
    fn naive_join_keeps_each_distinct_alternative_once() {
        let original = ShapeSpec::mixed(8, 4, 100, 2).build();
        let naive = naive_join(&original, DISCRIMINATOR);
        // Shared names rotate through four structural variants.
        assert_eq!(
            naive["properties"]["s0"]["anyOf"].as_array().map(Vec::len),
            Some(4)
        );
        let heavy = naive_join(&ShapeSpec::dedup_heavy(16, 4, 2).build(), DISCRIMINATOR);
        assert_eq!(heavy["properties"]["payload"]["type"], "object");
        assert_eq!(
            heavy["properties"][DISCRIMINATOR]["enum"]
                .as_array()
                .map(Vec::len),
            Some(16)
        );
    }
}
