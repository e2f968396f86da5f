//! Seeds for the fuzz targets, built from the bundled corpus in each target's own input format
//! (`fuzz-corpus seeds DIR` writes them; `join_structured` draws its own, see `structured`).

use crate::sample::{self, Reading};
use serde_json::{Value, json};

use crate::fuzz::embedded;
use crate::fuzz::regression::Target;

/// How many of the harness sampler's values per branch become `runtime_diff` seeds.
const VALUES_PER_BRANCH: usize = 6;

/// The seeds of `target`: a file name (without folder) and the bytes, in a fixed order.
///
/// - `flatten_bytes`: each corpus schema, as compact JSON;
/// - `manifest_bytes`: each tool of each manifest as a one-tool manifest, and each corpus schema
///   wrapped as a tool (so that unions reach the manifest path);
/// - `runtime_diff`: for each corpus schema, its index (two bytes, big-endian) followed by a few
///   values per branch from the harness's sampler (boundaries, literals, absent optionals, extra
///   keys) and one wrong-branch mix;
/// - `join_structured`: see [`crate::fuzz::structured::seeds`] (bytes that decode to varied cases);
/// - `open_world`: see [`crate::fuzz::open_grammar::seeds`] (pseudo-random bytes driving the grammar).
pub fn seeds(target: Target) -> Vec<(String, Vec<u8>)> {
    let schemas = embedded::schemas();
    let mut seeds = Vec::new();
    match target {
        Target::FlattenBytes => {
            for schema in schemas {
                seeds.push((file_name(&schema.name, 0), compact(&schema.schema)));
            }
        }
        Target::ManifestBytes => {
            for (name, bytes) in embedded::manifests() {
                let Ok(manifest) = serde_json::from_slice::<Value>(bytes) else {
                    continue;
                };
                for (index, tool) in embedded::tools(&manifest).iter().enumerate() {
                    let one_tool = json!({"tools": [tool]});
                    seeds.push((file_name(name, index), compact(&one_tool)));
                }
            }
            for schema in schemas.iter().filter(|s| !s.name.starts_with("manifests/")) {
                let tool = json!({"tools": [{"name": "tool", "inputSchema": schema.schema}]});
                seeds.push((file_name(&schema.name, 0), compact(&tool)));
            }
        }
        Target::RuntimeDiff => {
            for (index, schema) in schemas.iter().enumerate() {
                let Ok(index) = u16::try_from(index) else {
                    break;
                };
                let branches = sample::branch_samples(&schema.schema, Reading::Permissive);
                let firsts: Vec<&Value> =
                    branches.iter().filter_map(|b| b.values.first()).collect();
                let mut values: Vec<Value> = branches
                    .iter()
                    .flat_map(|b| b.values.iter().take(VALUES_PER_BRANCH).cloned())
                    .collect();
                if let [first, second, ..] = firsts.as_slice() {
                    values.push(wrong_branch_mix(first, second));
                }
                for (n, value) in values.iter().enumerate() {
                    let mut bytes = index.to_be_bytes().to_vec();
                    bytes.extend(compact(value));
                    seeds.push((file_name(&schema.name, n), bytes));
                }
            }
        }
        Target::JoinStructured => seeds = crate::fuzz::structured::seeds(),
        Target::OpenWorld => seeds = crate::fuzz::open_grammar::seeds(),
    }
    seeds
}

/// A seed file name from a corpus name and a number: `dialects/ai-sdk/shape.json` → `dialects-ai-sdk-shape-0`.
fn file_name(name: &str, n: usize) -> String {
    let stem = name.trim_end_matches(".json").replace(".json#", "-");
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{safe}-{n}")
}

/// Compact JSON bytes of `value`.
fn compact(value: &Value) -> Vec<u8> {
    value.to_string().into_bytes()
}

/// `first` with the discriminator-looking keys (those holding the same scalar type in both, with
/// different values) taken from `second`: the wrong-branch mix the runtime must reject (SPEC §4).
fn wrong_branch_mix(first: &Value, second: &Value) -> Value {
    let (Some(a), Some(b)) = (first.as_object(), second.as_object()) else {
        return first.clone();
    };
    let mut mix = a.clone();
    for (key, value) in b {
        if let Some(mine) = a.get(key) {
            let both_scalars =
                !mine.is_object() && !mine.is_array() && !value.is_object() && !value.is_array();
            if both_scalars && mine != value {
                mix.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(mix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mix_takes_the_other_branch_discriminator() {
        let mix = wrong_branch_mix(
            &json!({"k": "a", "n": 1, "o": {}}),
            &json!({"k": "b", "s": "x", "o": 2}),
        );
        assert_eq!(mix, json!({"k": "b", "n": 1, "o": {}}));
    }

    #[test]
    fn every_target_but_the_structured_one_has_seeds() {
        for target in [
            Target::FlattenBytes,
            Target::ManifestBytes,
            Target::RuntimeDiff,
        ] {
            assert!(!seeds(target).is_empty(), "no seeds for {target}");
        }
    }
}
