//! The one parameterized builder of synthetic discriminated unions the benchmarks join.
//!
//! Every shape is a root `oneOf` of `branches` closed object branches, each with the discriminator
//! [`DISCRIMINATOR`] (`const: "v{i}"`) and `props` further properties whose schemas nest objects
//! `depth` levels deep. The [`Family`] decides how the property names and schemas collide across
//! branches, which is what the join's cost depends on.

use serde_json::{Map, Value, json};

/// The discriminator property every synthetic branch declares and requires.
pub const DISCRIMINATOR: &str = "kind";

/// How the properties of the branches collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// A share of the names (the collision rate) is defined by every branch; the rest is unique
    /// to one branch. A shared name takes one of four structural variants in rotation (a bounded
    /// string, an integer, a nested object, an array of nested objects), so the join widens
    /// scalars, builds a structural `anyOf` and dedups repeated alternatives.
    Mixed,
    /// Every branch defines the same large object under one name (`payload`), differing only in
    /// descriptions at every depth: dedup collapses the `branches` alternatives into one.
    DedupHeavy,
    /// Every name is shared by every branch and every alternative is structurally distinct, so
    /// each joined property is an `anyOf` of `branches` alternatives: the largest output a join
    /// can produce.
    AllDistinct,
    /// Many small discriminated unions nested inside the root one: two root branches, each with
    /// `props` properties that are each a two-branch union of their own (the same in both root
    /// branches, so the root join dedups them). About `2 × props + 1` union sites: what the
    /// diagnostics' per-site bookkeeping costs (the nested-sites slice).
    NestedSites,
}

impl Family {
    /// The short name used in benchmark ids and the report.
    pub fn name(self) -> &'static str {
        match self {
            Family::Mixed => "mixed",
            Family::DedupHeavy => "dedup-heavy",
            Family::AllDistinct => "all-distinct",
            Family::NestedSites => "nested-sites",
        }
    }
}

/// The parameters of one synthetic shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeSpec {
    /// How names and schemas collide across branches.
    pub family: Family,
    /// Number of branches of the root union (N).
    pub branches: usize,
    /// Properties per branch besides the discriminator (P); for [`Family::DedupHeavy`] the
    /// properties of the shared `payload` object.
    pub props: usize,
    /// Percentage of the property names shared by every branch (the collision rate × 100). Only
    /// [`Family::Mixed`] varies it; the other families are 100 by construction.
    pub collision_pct: u32,
    /// Object nesting depth of the property schemas (D, at least 1).
    pub depth: usize,
}

impl ShapeSpec {
    /// A [`Family::Mixed`] shape.
    pub fn mixed(branches: usize, props: usize, collision_pct: u32, depth: usize) -> Self {
        ShapeSpec {
            family: Family::Mixed,
            branches,
            props,
            collision_pct,
            depth,
        }
    }

    /// A [`Family::DedupHeavy`] shape.
    pub fn dedup_heavy(branches: usize, props: usize, depth: usize) -> Self {
        ShapeSpec {
            family: Family::DedupHeavy,
            branches,
            props,
            collision_pct: 100,
            depth,
        }
    }

    /// A [`Family::AllDistinct`] shape.
    pub fn all_distinct(branches: usize, props: usize, depth: usize) -> Self {
        ShapeSpec {
            family: Family::AllDistinct,
            branches,
            props,
            collision_pct: 100,
            depth,
        }
    }

    /// A [`Family::NestedSites`] shape with about `sites` union sites (`sites / 2` inner unions in
    /// each of the two root branches, plus the root).
    pub fn nested_sites(sites: usize, depth: usize) -> Self {
        ShapeSpec {
            family: Family::NestedSites,
            branches: 2,
            props: sites / 2,
            collision_pct: 100,
            depth,
        }
    }

    /// The number of union sites of the built schema.
    pub fn union_sites(&self) -> usize {
        match self.family {
            Family::NestedSites => 1 + self.branches * self.props,
            _ => 1,
        }
    }

    /// The benchmark id: `mixed-n128-p16-c50-d2`.
    pub fn id(&self) -> String {
        format!(
            "{}-n{}-p{}-c{}-d{}",
            self.family.name(),
            self.branches,
            self.props,
            self.collision_pct,
            self.depth
        )
    }

    /// How many of the `props` names every branch shares.
    pub fn shared_props(&self) -> usize {
        match self.family {
            Family::Mixed => (self.props * self.collision_pct as usize + 50) / 100,
            Family::DedupHeavy | Family::AllDistinct | Family::NestedSites => self.props,
        }
    }

    /// Builds the schema: `{"$schema": …, "oneOf": [branch 0, …, branch N-1]}`.
    pub fn build(&self) -> Value {
        let branches: Vec<Value> = (0..self.branches).map(|i| self.branch(i)).collect();
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "oneOf": branches,
        })
    }

    fn branch(&self, i: usize) -> Value {
        let mut properties = Map::new();
        properties.insert(
            DISCRIMINATOR.to_owned(),
            json!({"type": "string", "const": format!("v{i}")}),
        );
        let mut required = vec![Value::from(DISCRIMINATOR)];
        match self.family {
            Family::Mixed => {
                for j in 0..self.props {
                    let (name, description) = if j < self.shared_props() {
                        (format!("s{j}"), format!("Shared field s{j}."))
                    } else {
                        (format!("b{i}_p{j}"), format!("Field p{j} of branch v{i}."))
                    };
                    let mut schema = rotating_variant(i + j, self.depth);
                    annotate(&mut schema, description);
                    if j % 2 == 0 {
                        required.push(Value::from(name.clone()));
                    }
                    properties.insert(name, schema);
                }
            }
            Family::DedupHeavy => {
                let mut fields = Map::new();
                for j in 0..self.props {
                    let mut field = nested_object(self.depth, None, Some(i));
                    annotate(&mut field, format!("Field f{j} as branch v{i} sees it."));
                    fields.insert(format!("f{j}"), field);
                }
                let field_names: Vec<Value> = (0..self.props)
                    .step_by(2)
                    .map(|j| Value::from(format!("f{j}")))
                    .collect();
                properties.insert(
                    "payload".to_owned(),
                    json!({
                        "type": "object",
                        "description": format!("The payload of branch v{i}."),
                        "properties": fields,
                        "required": field_names,
                        "additionalProperties": false,
                    }),
                );
                required.push(Value::from("payload"));
            }
            Family::NestedSites => {
                for j in 0..self.props {
                    let name = format!("u{j}");
                    if j % 2 == 0 {
                        required.push(Value::from(name.clone()));
                    }
                    properties.insert(name, inner_union(self.depth));
                }
            }
            Family::AllDistinct => {
                for j in 0..self.props {
                    let name = format!("s{j}");
                    if j % 2 == 0 {
                        required.push(Value::from(name.clone()));
                    }
                    properties.insert(name, nested_object(self.depth, Some(i), None));
                }
            }
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// A two-branch discriminated union (`tag`: `x` or `y`), one branch carrying a nested object.
fn inner_union(depth: usize) -> Value {
    json!({"oneOf": [
        {"type": "object", "properties": {"tag": {"const": "x"}, "x": nested_object(depth, None, None)},
         "required": ["tag"], "additionalProperties": false},
        {"type": "object", "properties": {"tag": {"const": "y"}, "y": {"type": "integer"}},
         "required": ["tag", "y"], "additionalProperties": false},
    ]})
}

/// One of four structural variants, chosen by `k % 4`.
fn rotating_variant(k: usize, depth: usize) -> Value {
    match k % 4 {
        0 => json!({"type": "string", "maxLength": 64}),
        1 => json!({"type": "integer", "minimum": 0}),
        2 => nested_object(depth, None, None),
        _ => json!({"type": "array", "items": nested_object(depth, None, None), "maxItems": 8}),
    }
}

/// A closed object nesting `depth` levels: `{id, count, child: {id, count, child: …}}`. With
/// `marker`, the outermost level also declares `x{marker}` (which makes it structurally distinct);
/// with `described_by`, every level carries a description naming that branch (which does not).
fn nested_object(depth: usize, marker: Option<usize>, described_by: Option<usize>) -> Value {
    let mut properties = Map::new();
    properties.insert("id".to_owned(), json!({"type": "string", "minLength": 1}));
    properties.insert("count".to_owned(), json!({"type": "integer"}));
    if depth > 1 {
        properties.insert(
            "child".to_owned(),
            nested_object(depth - 1, None, described_by),
        );
    }
    if let Some(m) = marker {
        properties.insert(format!("x{m}"), json!({"type": "boolean"}));
    }
    let mut object = json!({
        "type": "object",
        "properties": properties,
        "required": ["id"],
        "additionalProperties": false,
    });
    if let Some(b) = described_by {
        annotate(
            &mut object,
            format!("Level {depth} as branch v{b} describes it."),
        );
    }
    object
}

fn annotate(schema: &mut Value, description: String) {
    if let Some(object) = schema.as_object_mut() {
        object.insert("description".to_owned(), Value::from(description));
    }
}

/// Number of JSON values in `value` (every object, array, and scalar counts once).
pub fn node_count(value: &Value) -> usize {
    1 + match value {
        Value::Object(map) => map.values().map(node_count).sum(),
        Value::Array(items) => items.iter().map(node_count).sum(),
        _ => 0,
    }
}

/// A value that `schema` accepts, built from its `const`, `type`, `properties` (every one
/// filled in) and `items`; enough for the synthetic shapes, which use nothing else.
pub fn sample_for(schema: &Value) -> Value {
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => Value::from("sample"),
        Some("integer") => Value::from(3),
        Some("number") => Value::from(2.5),
        Some("boolean") => Value::from(true),
        Some("array") => match schema.get("items") {
            Some(items) => Value::Array(vec![sample_for(items)]),
            None => Value::Array(Vec::new()),
        },
        Some("object") => {
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    object.insert(name.clone(), sample_for(property));
                }
            }
            Value::Object(object)
        }
        _ => Value::Null,
    }
}

/// The share of property names (the discriminator aside) that every branch of the root `oneOf`
/// defines, measured on a built schema.
pub fn measured_collision_rate(schema: &Value) -> f64 {
    let branches: Vec<&Map<String, Value>> = schema["oneOf"]
        .as_array()
        .map(|b| {
            b.iter()
                .filter_map(|b| b["properties"].as_object())
                .collect()
        })
        .unwrap_or_default();
    let Some(first) = branches.first() else {
        return 0.0;
    };
    let names: Vec<&String> = first.keys().filter(|n| *n != DISCRIMINATOR).collect();
    if names.is_empty() {
        return 0.0;
    }
    let shared = names
        .iter()
        .filter(|n| branches.iter().all(|b| b.contains_key(n.as_str())))
        .count();
    shared as f64 / names.len() as f64
}

/// An MCP `tools/list` result with `tools` tools, each taking a small [`ShapeSpec::mixed`] union
/// (8 branches × 8 properties), the shape of a wide server's manifest.
pub fn wide_manifest(tools: usize) -> Value {
    let schema = ShapeSpec::mixed(8, 8, 50, 2).build();
    let tools: Vec<Value> = (0..tools)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "description": format!("Tool number {i}."),
                "inputSchema": schema.clone(),
            })
        })
        .collect();
    json!({ "tools": tools })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_claimed_number_of_branches_and_properties() {
        for spec in [
            ShapeSpec::mixed(8, 16, 50, 2),
            ShapeSpec::dedup_heavy(32, 4, 3),
            ShapeSpec::all_distinct(2, 64, 1),
        ] {
            let schema = spec.build();
            let branches = schema["oneOf"].as_array().expect("oneOf");
            assert_eq!(branches.len(), spec.branches, "{}", spec.id());
            let declared = branches[0]["properties"]
                .as_object()
                .expect("properties")
                .len();
            let expected = match spec.family {
                Family::DedupHeavy => 2,
                _ => spec.props + 1,
            };
            assert_eq!(declared, expected, "{}", spec.id());
        }
    }

    #[test]
    fn collision_rate_is_the_claimed_one() {
        for pct in [0, 50, 100] {
            let schema = ShapeSpec::mixed(8, 16, pct, 2).build();
            let measured = measured_collision_rate(&schema);
            assert!(
                (measured - f64::from(pct) / 100.0).abs() < 1e-9,
                "c={pct}: {measured}"
            );
        }
        assert_eq!(
            measured_collision_rate(&ShapeSpec::all_distinct(8, 4, 1).build()),
            1.0
        );
    }

    #[test]
    fn depth_nests_objects_that_many_levels() {
        fn object_depth(schema: &Value) -> usize {
            match schema["properties"]["child"].as_object() {
                Some(_) => 1 + object_depth(&schema["properties"]["child"]),
                None => 1,
            }
        }
        for depth in [1, 2, 4, 8] {
            let schema = ShapeSpec::all_distinct(2, 1, depth).build();
            assert_eq!(object_depth(&schema["oneOf"][0]["properties"]["s0"]), depth);
        }
    }

    #[test]
    fn dedup_heavy_alternatives_differ_only_in_annotations() {
        let schema = ShapeSpec::dedup_heavy(4, 4, 3).build();
        let a = &schema["oneOf"][0]["properties"]["payload"];
        let b = &schema["oneOf"][3]["properties"]["payload"];
        assert_ne!(a, b);
        assert!(flatjoin::structurally_equal(a, b));
        let distinct = ShapeSpec::all_distinct(4, 1, 2).build();
        assert!(!flatjoin::structurally_equal(
            &distinct["oneOf"][0]["properties"]["s0"],
            &distinct["oneOf"][1]["properties"]["s0"]
        ));
    }

    #[test]
    fn nested_sites_are_all_flattened() {
        let spec = ShapeSpec::nested_sites(1000, 1);
        let flat = flatjoin::flatten(&spec.build(), &flatjoin::Options::default()).expect("flat");
        assert_eq!(spec.union_sites(), 1001);
        assert_eq!(flat.diagnostics.flattened.len(), spec.union_sites());
    }

    #[test]
    fn sizes_grow_linearly_in_branches() {
        let small = node_count(&ShapeSpec::mixed(32, 16, 50, 2).build());
        let large = node_count(&ShapeSpec::mixed(128, 16, 50, 2).build());
        let ratio = large as f64 / small as f64;
        assert!((3.9..4.1).contains(&ratio), "{ratio}");
    }
}
