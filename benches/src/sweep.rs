//! The shape sweep: union shapes the benchmarks were not tuned to, for the whole-process
//! comparison (`whole-process`), which reports every shape's ratio to the floor and the worst one.
//!
//! [`crate::shape`] builds the scaling slices, whose shapes the join was optimized against; a
//! ratio on them says little about a user's schema. These are built differently on purpose:
//! names that collide across branches as different kinds, per-branch descriptions and titles that
//! make hints, `required` lists that differ in every branch, unions behind `$ref`s to shared
//! definitions, many identical small unions, unions nested in arrays several levels deep, open
//! branches, and a manifest of differently shaped tools. Everything is deterministic (no random
//! generator: the variation comes from arithmetic on the branch and property numbers).

use serde_json::{Map, Value, json};

use crate::shape::{ShapeSpec, wide_manifest};

/// The draft every sweep schema declares.
const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// One input of the sweep.
pub struct SweepShape {
    /// Short stable name (`collide-512x64`), used in file names.
    pub name: String,
    /// What the shape is, for the report's table.
    pub label: String,
    /// `flatten` or `manifest`: the `flatjoin` subcommand that presents it.
    pub command: &'static str,
    /// The document.
    pub value: Value,
}

/// One input file of the whole-process comparison.
pub struct Input {
    /// Row label in the report.
    pub label: String,
    /// `fixed` (the benchmark's scaling shapes) or `sweep` (the shape sweep).
    pub set: &'static str,
    /// `flatten` or `manifest`: the `flatjoin` subcommand that presents it.
    pub command: &'static str,
    /// The document.
    pub value: Value,
}

/// The benchmark's own shapes (`shape.rs`) at the whole-process sizes: start-up, the mixed
/// family at 32 × 16 up to 2048 × 64, nested union sites up to 64,001, a 500-tool manifest.
fn fixed_inputs(quick: bool) -> Vec<Input> {
    let schema = |label: String, value: Value| Input {
        label,
        set: "fixed",
        command: "flatten",
        value,
    };
    let mut out = vec![
        schema(
            "1 KB schema (start-up)".to_owned(),
            ShapeSpec::mixed(2, 3, 50, 1).build(),
        ),
        schema(
            "32 branches × 16 properties".to_owned(),
            ShapeSpec::mixed(32, 16, 50, 2).build(),
        ),
    ];
    let sizes: &[(usize, usize)] = if quick {
        &[(128, 16)]
    } else {
        &[(512, 64), (2048, 64)]
    };
    for &(n, p) in sizes {
        out.push(schema(
            format!("{n} branches × {p} properties"),
            ShapeSpec::mixed(n, p, 50, 2).build(),
        ));
    }
    let sites: &[usize] = if quick {
        &[250]
    } else {
        &[1_000, 4_000, 16_000, 64_000]
    };
    for &n in sites {
        let spec = ShapeSpec::nested_sites(n, 2);
        out.push(schema(
            format!("{} nested union sites", spec.union_sites()),
            spec.build(),
        ));
    }
    let tools = if quick { 50 } else { 500 };
    out.push(Input {
        label: format!("manifest of {tools} tools"),
        set: "fixed",
        command: "manifest",
        value: wide_manifest(tools),
    });
    out
}

/// Every input of the whole-process comparison: the benchmark's shapes, then the sweep.
pub fn inputs(quick: bool) -> Vec<Input> {
    let mut out = fixed_inputs(quick);
    out.extend(shapes(quick).into_iter().map(|s| Input {
        label: format!("`{}`: {}", s.name, s.label),
        set: "sweep",
        command: s.command,
        value: s.value,
    }));
    out
}

/// Every sweep shape; `quick` builds each at a small size (for tests and smoke runs).
pub fn shapes(quick: bool) -> Vec<SweepShape> {
    let k = |full: usize, small: usize| if quick { small } else { full };
    let schema = |name: String, label: String, value: Value| SweepShape {
        name,
        label,
        command: "flatten",
        value,
    };
    let (n, p) = (k(512, 16), k(64, 8));
    let same = k(16_000, 200);
    let defs_sites = k(3_000, 60);
    let deep = k(6, 2);
    let tools = k(200, 6);
    vec![
        schema(
            "small-tool".to_owned(),
            "3 × 6, a small tool's union with the collisions below".to_owned(),
            collide(3, 6, true),
        ),
        schema(
            format!("collide-{n}x{p}"),
            format!("{n} × {p}, shared names collide as object/array/string/nullable number"),
            collide(n, p, true),
        ),
        schema(
            format!("collide-open-{}x{p}", n / 2),
            format!("{} × {p}, the same collisions, open branches", n / 2),
            collide(n / 2, p, false),
        ),
        schema(
            format!("same-du-{same}"),
            format!("object of {same} properties, each the same two-branch union"),
            same_union_properties(same),
        ),
        schema(
            format!("hints-{}x{}", n / 2, p / 2 + p / 4),
            format!(
                "{} × {}, partial definitions, per-branch descriptions and titles",
                n / 2,
                p / 2 + p / 4
            ),
            hints(n / 2, p / 2 + p / 4),
        ),
        schema(
            format!("collision-mix-{}x{}", n / 2, p / 2),
            format!("{} × {}, ten kinds of alternative per name", n / 2, p / 2),
            collision_mix(n / 2, p / 2),
        ),
        schema(
            format!("wide-required-{}x{}", 2 * n, p / 2 + p / 4),
            format!(
                "{} × {}, every branch requires a different subset",
                2 * n,
                p / 2 + p / 4
            ),
            wide_required(2 * n, p / 2 + p / 4),
        ),
        schema(
            format!("defs-unions-{defs_sites}"),
            format!("{defs_sites} unions of `$ref`s to 12 shared definitions"),
            defs_unions(defs_sites),
        ),
        schema(
            format!("identical-in-arrays-{}", same / 8),
            format!(
                "{} arrays of the same four-branch union with nested objects",
                same / 8
            ),
            identical_unions_in_arrays(same / 8),
        ),
        schema(
            format!("deep-arrays-d{deep}"),
            format!("unions in arrays of arrays, {deep} levels, 4 branches each"),
            deep_arrays(deep),
        ),
        SweepShape {
            name: format!("manifest-varied-{tools}"),
            label: format!("manifest of {tools} differently shaped tools"),
            command: "manifest",
            value: varied_manifest(tools),
        },
    ]
}

fn root(one_of: Vec<Value>) -> Value {
    json!({"$schema": DRAFT, "oneOf": one_of})
}

/// The root union of `branches` branches, each made by `branch` from its index and its
/// properties map, which already holds the discriminator `kind` (`tag`).
fn tagged_union(branches: usize, branch: impl Fn(usize, Map<String, Value>) -> Value) -> Value {
    root(
        (0..branches)
            .map(|i| {
                let mut properties = Map::new();
                properties.insert("kind".to_owned(), tag(i));
                branch(i, properties)
            })
            .collect(),
    )
}

fn tag(i: usize) -> Value {
    json!({"type": "string", "const": format!("v{i}")})
}

fn described(mut schema: Value, description: String) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.insert("description".to_owned(), Value::from(description));
    }
    schema
}

/// The four kinds a shared name takes in [`collide`]: an object, an array, a string and a
/// nullable number.
fn collide_variant(k: usize) -> Value {
    match k % 4 {
        0 => json!({"type": "object",
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                                   "label": {"type": "string"}},
                    "required": ["x"], "additionalProperties": false}),
        1 => json!({"type": "array", "items": {"type": "string", "maxLength": 32}, "maxItems": 16}),
        2 => json!({"type": "string", "minLength": 1, "maxLength": 200}),
        _ => json!({"type": ["number", "null"], "minimum": 0}),
    }
}

/// `branches` branches of `props` properties: every other name is shared by all branches and
/// takes one of `collide_variant`'s kinds by branch; each property has its branch's own
/// description, `required` differs per branch; closed or open branches.
pub fn collide(branches: usize, props: usize, closed: bool) -> Value {
    tagged_union(branches, |i, mut properties| {
        let mut required = vec![Value::from("kind")];
        for j in 0..props {
            let (name, schema) = if j % 2 == 0 {
                (format!("s{}", j / 2), collide_variant(i + j / 2))
            } else {
                let scalar = match j % 3 {
                    0 => json!({"type": "string"}),
                    1 => json!({"type": "integer", "minimum": 0}),
                    _ => json!({"type": "boolean"}),
                };
                (format!("b{i}_f{j}"), scalar)
            };
            let text = format!("Field {name} as branch v{i} uses it.");
            if (i + 3 * j) % 5 < 2 {
                required.push(Value::from(name.clone()));
            }
            properties.insert(name, described(schema, text));
        }
        let mut branch = json!({"type": "object", "description": format!("Branch v{i}."),
                                "properties": properties, "required": required});
        if closed {
            branch["additionalProperties"] = Value::Bool(false);
        }
        branch
    })
}

/// The small two-branch union every property of [`same_union_properties`] holds.
fn small_union() -> Value {
    json!({"oneOf": [
        {"type": "object",
         "properties": {"type": {"const": "text"}, "value": {"type": "string"}},
         "required": ["type", "value"], "additionalProperties": false},
        {"type": "object",
         "properties": {"type": {"const": "amount"}, "value": {"type": "integer"},
                        "unit": {"type": "string"}},
         "required": ["type"], "additionalProperties": false},
    ]})
}

/// An object (not a union) with `count` properties that each hold the same two-branch union.
pub fn same_union_properties(count: usize) -> Value {
    let properties: Map<String, Value> = (0..count)
        .map(|k| (format!("p{k}"), small_union()))
        .collect();
    json!({"$schema": DRAFT, "type": "object", "properties": properties,
           "additionalProperties": false})
}

/// Names defined by about two thirds of the branches; four description texts per name (so the
/// joined description groups them by discriminator value), the same title, `examples`, and
/// `required` by a different rule: conditional-required and only-used hints everywhere.
pub fn hints(branches: usize, props: usize) -> Value {
    tagged_union(branches, |i, mut properties| {
        let mut required = vec![Value::from("kind")];
        for j in (0..props).filter(|j| (i + j) % 3 != 0) {
            let name = format!("h{j}");
            let schema = if j % 2 == 0 {
                json!({"type": "string", "maxLength": 40 + i % 3, "examples": ["abc"]})
            } else {
                json!({"type": "integer", "minimum": i % 4})
            };
            let mut schema = described(
                schema,
                format!("What h{j} means in group {} of the variants.", i % 4),
            );
            schema["title"] = Value::from(format!("H{j}"));
            if (i * (j + 1)) % 4 == 0 {
                required.push(Value::from(name.clone()));
            }
            properties.insert(name, schema);
        }
        json!({"type": "object", "title": format!("Variant {i}"),
                   "description": format!("The variant v{i}."),
                   "properties": properties, "required": required,
                   "additionalProperties": false})
    })
}

/// One of ten kinds of alternative, chosen by `k % 10`; `i` varies literals and bounds.
fn mix_variant(k: usize, i: usize) -> Value {
    match k % 10 {
        0 => json!({"enum": [format!("a{}", i % 5), "b", "c"]}),
        1 => json!({"const": format!("fixed-{}", i % 7)}),
        2 => json!({"type": "integer", "minimum": i % 9, "maximum": 1000 + i}),
        3 => json!({"type": "number", "exclusiveMinimum": 0}),
        4 => json!({"type": "boolean"}),
        5 => json!({"type": "string", "format": "date-time"}),
        6 => json!({"type": "object", "properties": {"id": {"type": "string"},
                    "n": {"type": "integer"}}, "required": ["id"],
                    "additionalProperties": false}),
        7 => json!({"type": "array", "items": {"type": "integer"}, "minItems": i % 3}),
        8 => json!({"anyOf": [{"type": "object", "properties": {"v": {"type": "string"}},
                    "additionalProperties": false}, {"type": "null"}]}),
        _ => Value::Bool(false),
    }
}

/// Every name shared by every branch, each branch's definition drawn from ten kinds (enums,
/// consts, bounded numbers, formats, objects, arrays, nullable wrappers, `false`).
pub fn collision_mix(branches: usize, props: usize) -> Value {
    tagged_union(branches, |i, mut properties| {
        for j in 0..props {
            properties.insert(format!("m{j}"), mix_variant(i * 7 + j * 3, i));
        }
        json!({"type": "object", "properties": properties, "required": ["kind"],
                   "additionalProperties": false})
    })
}

/// Every name shared, the same bounded string in every branch, but `required` by the bits of the
/// branch number: each branch requires a different subset, so every hint names about half the
/// discriminator values.
pub fn wide_required(branches: usize, props: usize) -> Value {
    tagged_union(branches, |i, mut properties| {
        let mut required = vec![Value::from("kind")];
        for j in 0..props {
            let name = format!("r{j}");
            if (i >> (j % 11)) & 1 == 1 {
                required.push(Value::from(name.clone()));
            }
            properties.insert(name, json!({"type": "string", "maxLength": 80}));
        }
        json!({"type": "object", "properties": properties, "required": required,
                   "additionalProperties": false})
    })
}

/// `sites` unions of four `$ref`s each to twelve shared `$defs` models (Pydantic's rendering, with
/// its `discriminator` keyword), in properties, array items and nullable wrappers.
pub fn defs_unions(sites: usize) -> Value {
    const MODELS: usize = 12;
    let mut defs = Map::new();
    for m in 0..MODELS {
        let mut properties = Map::new();
        properties.insert("type".to_owned(), json!({"const": format!("model{m}")}));
        for f in 0..8 {
            let name = format!("f{}", (m + f) % 14);
            let schema = match (m + f) % 3 {
                0 => json!({"type": "string", "title": format!("F{f}")}),
                1 => json!({"type": "integer", "title": format!("F{f}")}),
                _ => json!({"type": "array", "items": {"type": "string"}}),
            };
            properties.insert(name, schema);
        }
        defs.insert(
            format!("Model{m}"),
            json!({"type": "object", "title": format!("Model{m}"), "properties": properties,
                   "required": ["type", format!("f{}", m % 14)],
                   "additionalProperties": false}),
        );
    }
    let properties: Map<String, Value> = (0..sites)
        .map(|k| {
            let members: Vec<Value> = (0..4)
                .map(
                    |r| json!({"$ref": format!("#/$defs/Model{}", (k + r * (1 + k % 5)) % MODELS)}),
                )
                .collect();
            let union = json!({"oneOf": members, "discriminator": {"propertyName": "type"}});
            let site = match k % 3 {
                0 => union,
                1 => json!({"type": "array", "items": union}),
                _ => json!({"anyOf": [union, {"type": "null"}], "default": null}),
            };
            (format!("site{k}"), site)
        })
        .collect();
    json!({"$schema": DRAFT, "$defs": defs, "type": "object", "properties": properties,
           "required": ["site0"], "additionalProperties": false})
}

/// The four-branch union of [`identical_unions_in_arrays`]: branches with nested closed objects.
fn four_branch_union() -> Value {
    let point = json!({"type": "object", "properties": {"x": {"type": "number"},
                       "y": {"type": "number"}}, "required": ["x", "y"],
                       "additionalProperties": false});
    let branches: Vec<Value> = ["circle", "square", "line", "text"]
        .iter()
        .enumerate()
        .map(|(b, name)| {
            let mut properties = Map::new();
            properties.insert("shape".to_owned(), json!({"const": name}));
            properties.insert("at".to_owned(), point.clone());
            match b {
                0 => properties.insert("r".to_owned(), json!({"type": "number", "minimum": 0})),
                1 => properties.insert("side".to_owned(), json!({"type": "number"})),
                2 => properties.insert("to".to_owned(), point.clone()),
                _ => properties.insert("text".to_owned(), json!({"type": "string"})),
            };
            json!({"type": "object", "properties": properties, "required": ["shape", "at"],
                   "additionalProperties": false})
        })
        .collect();
    json!({"oneOf": branches})
}

/// An object of `count` properties, each an array of the same four-branch union.
pub fn identical_unions_in_arrays(count: usize) -> Value {
    let properties: Map<String, Value> = (0..count)
        .map(|k| {
            (
                format!("layer{k}"),
                json!({"type": "array", "items": four_branch_union(), "maxItems": 100}),
            )
        })
        .collect();
    json!({"$schema": DRAFT, "type": "object", "properties": properties})
}

/// A four-branch union whose branches each hold an array of arrays of the union one level down,
/// `depth` levels (4^depth innermost unions).
pub fn deep_arrays(depth: usize) -> Value {
    let mut inner = json!({"type": "object", "properties": {"leaf": {"type": "string"}},
                           "additionalProperties": false});
    for level in 1..=depth {
        let branches: Vec<Value> = (0..4)
            .map(|b| {
                let mut properties = Map::new();
                properties.insert("node".to_owned(), json!({"const": format!("n{level}-{b}")}));
                properties.insert(format!("value{b}"), mix_variant(b + level, level));
                properties.insert(
                    "children".to_owned(),
                    json!({"type": "array", "items": {"type": "array", "items": inner.clone()}}),
                );
                json!({"type": "object", "properties": properties, "required": ["node"],
                       "additionalProperties": false})
            })
            .collect();
        inner = json!({"oneOf": branches});
    }
    inner["$schema"] = Value::from(DRAFT);
    inner
}

/// An MCP `tools/list` result whose tools each take a differently shaped union (sizes and
/// families vary by tool).
pub fn varied_manifest(tools: usize) -> Value {
    let tools: Vec<Value> = (0..tools)
        .map(|t| {
            let schema = match t % 4 {
                0 => collide(4 + t % 13, 6 + t % 7, t % 8 != 0),
                1 => hints(3 + t % 9, 5 + t % 5),
                2 => collision_mix(2 + t % 11, 4 + t % 6),
                _ => defs_unions(1 + t % 9),
            };
            json!({"name": format!("tool_{t}"), "description": format!("Tool {t}."),
                   "inputSchema": schema})
        })
        .collect();
    json!({ "tools": tools })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatjoin::Options;

    #[test]
    fn every_quick_shape_flattens_and_has_unions() {
        for shape in shapes(true) {
            let schemas: Vec<&Value> = match shape.command {
                "manifest" => shape.value["tools"]
                    .as_array()
                    .expect("tools")
                    .iter()
                    .map(|t| &t["inputSchema"])
                    .collect(),
                _ => vec![&shape.value],
            };
            for schema in schemas {
                let flat = flatjoin::flatten(schema, &Options::default())
                    .unwrap_or_else(|e| panic!("{}: {e}", shape.name));
                assert!(
                    !flat.diagnostics.flattened.is_empty(),
                    "{}: no union flattened",
                    shape.name
                );
            }
        }
    }

    #[test]
    fn names_are_unique_and_file_safe() {
        let shapes = shapes(false);
        let mut names: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), shapes.len());
    }

    #[test]
    fn the_issue_shapes_have_the_stated_structure() {
        let collide = collide(8, 6, true);
        let branches = collide["oneOf"].as_array().expect("oneOf");
        let kinds: Vec<&Value> = branches.iter().map(|b| &b["properties"]["s0"]).collect();
        assert_eq!(kinds[0]["type"], "object");
        assert_eq!(kinds[1]["type"], "array");
        assert_eq!(kinds[2]["type"], "string");
        assert_eq!(kinds[3]["type"], json!(["number", "null"]));
        assert_ne!(kinds[0]["description"], kinds[4]["description"]);
        assert_ne!(branches[0]["required"], branches[1]["required"]);
        assert_eq!(branches[0]["additionalProperties"], false);
        let same = same_union_properties(3);
        assert_eq!(same["properties"]["p0"], same["properties"]["p2"]);
        assert_eq!(
            same["properties"]["p0"]["oneOf"].as_array().map(Vec::len),
            Some(2)
        );
    }
}
