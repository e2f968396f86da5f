//! The shape sweep: union shapes the benchmarks were not tuned to, for the whole-process
//! comparison (`whole-process`), which reports every shape's ratio to the floor and the worst one.
//!
//! [`crate::shape`] builds the scaling slices, whose shapes the join was optimized against; a
//! ratio on them says little about a user's schema. These are built differently on purpose:
//! names that collide across branches as different kinds, per-branch descriptions and titles that
//! make hints, `required` lists that differ in every branch, unions behind `$ref`s to shared
//! definitions (four of twelve, or three of twelve chosen per site), one union of models used in
//! many fields as Pydantic v2 writes it, many identical small unions, unions nested in arrays
//! several levels deep, open branches, and a manifest of differently shaped tools. Everything is
//! deterministic (no random generator: the variation comes from arithmetic on the branch and
//! property numbers).

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
    let pydantic = k(200, 8);
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
            format!("defs-unions-triples-{defs_sites}"),
            format!(
                "{defs_sites} unions of three `$ref`s each, chosen per site among 12 shared \
                 definitions"
            ),
            defs_union_triples(defs_sites),
        ),
        schema(
            format!("pydantic-models-{pydantic}"),
            format!(
                "one 4-model union as Pydantic v2 writes it, in {pydantic} fields, lists and \
                 optionals of each of 3 root commands and in nested models"
            ),
            pydantic_models(pydantic),
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

/// How many shared `$defs` models [`defs_unions`] and [`defs_union_triples`] draw from.
const SHARED_MODELS: usize = 12;

/// The [`SHARED_MODELS`] `$defs` models of [`defs_unions`] and [`defs_union_triples`]: closed
/// objects tagged by `type`, eight fields each drawn from fourteen names of three kinds.
fn shared_models() -> Map<String, Value> {
    let mut defs = Map::new();
    for m in 0..SHARED_MODELS {
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
    defs
}

/// A union of `$ref`s to the [`shared_models`] numbered `models` (Pydantic's rendering, with its
/// `discriminator` keyword).
fn shared_models_union(models: impl IntoIterator<Item = usize>) -> Value {
    let members: Vec<Value> = models
        .into_iter()
        .map(|m| json!({"$ref": format!("#/$defs/Model{m}")}))
        .collect();
    json!({"oneOf": members, "discriminator": {"propertyName": "type"}})
}

/// `sites` unions of four `$ref`s each to twelve shared `$defs` models (Pydantic's rendering, with
/// its `discriminator` keyword), in properties, array items and nullable wrappers.
pub fn defs_unions(sites: usize) -> Value {
    let properties: Map<String, Value> = (0..sites)
        .map(|k| {
            let union = shared_models_union((0..4).map(|r| (k + r * (1 + k % 5)) % SHARED_MODELS));
            let site = match k % 3 {
                0 => union,
                1 => json!({"type": "array", "items": union}),
                _ => json!({"anyOf": [union, {"type": "null"}], "default": null}),
            };
            (format!("site{k}"), site)
        })
        .collect();
    json!({"$schema": DRAFT, "$defs": shared_models(), "type": "object",
           "properties": properties, "required": ["site0"], "additionalProperties": false})
}

/// Every set of three distinct model numbers below [`SHARED_MODELS`], in lexicographic order
/// (220 of them).
fn model_triples() -> Vec<[usize; 3]> {
    let n = SHARED_MODELS;
    (0..n)
        .flat_map(|a| (a + 1..n).flat_map(move |b| (b + 1..n).map(move |c| [a, b, c])))
        .collect()
}

/// `sites` properties, each a union of three `$ref`s to the twelve shared `$defs` models of
/// [`defs_unions`]: site `k` takes triple `7k mod 220` of `model_triples` (7 is prime to 220,
/// so every triple is used about `sites / 220` times) with its members rotated by `k mod 3`, so
/// the same triple is written in different orders at different sites.
pub fn defs_union_triples(sites: usize) -> Value {
    let triples = model_triples();
    let properties: Map<String, Value> = (0..sites)
        .map(|k| {
            let triple = triples[(7 * k) % triples.len()];
            let union = shared_models_union((0..3).map(|r| triple[(r + k) % 3]));
            (format!("site{k}"), union)
        })
        .collect();
    json!({"$schema": DRAFT, "$defs": shared_models(), "type": "object",
           "properties": properties, "required": ["site0"], "additionalProperties": false})
}

/// The models of [`pydantic_models`]' one union, by `$defs` name, and the tag values each takes
/// (`ToolCallPart` two, as a `Literal` of two values).
const PART_MODELS: [(&str, &[&str]); 4] = [
    ("TextPart", &["text"]),
    ("ImagePart", &["image"]),
    ("ToolCallPart", &["call", "tool_call"]),
    ("CitationPart", &["citation"]),
];

/// Pydantic's title of a field: its name, words split at `_` and capitalized.
fn pydantic_title(name: &str) -> String {
    name.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `$defs` of [`pydantic_models`]' union: its four models (6–8 fields each: strings,
/// numbers, enums inline and as `Enum` classes behind `$ref`, a nested model, arrays of strings,
/// optionals, a `dict`) and the models and enums they use. Keys sorted as Pydantic sorts them.
fn part_defs(defs: &mut Map<String, Value>) {
    defs.insert(
        "CitationPart".to_owned(),
        json!({"additionalProperties": false,
               "properties": {
                   "kind": {"const": "citation", "title": "Kind", "type": "string"},
                   "source": {"description": "Where the quote comes from.", "minLength": 1,
                              "title": "Source", "type": "string"},
                   "page": {"anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                            "default": null, "title": "Page"},
                   "quote": {"maxLength": 500, "title": "Quote", "type": "string"},
                   "span": {"$ref": "#/$defs/Span"},
                   "authors": {"items": {"type": "string"}, "title": "Authors", "type": "array"},
                   "confidence": {"default": 1.0, "maximum": 1, "minimum": 0,
                                  "title": "Confidence", "type": "number"}},
               "required": ["kind", "source", "quote", "span"],
               "title": "CitationPart", "type": "object"}),
    );
    defs.insert(
        "ImagePart".to_owned(),
        json!({"properties": {
                   "kind": {"const": "image", "title": "Kind", "type": "string"},
                   "url": {"format": "uri", "maxLength": 2083, "minLength": 1, "title": "Url",
                           "type": "string"},
                   "size": {"$ref": "#/$defs/Size"},
                   "alt": {"default": "", "title": "Alt", "type": "string"},
                   "format": {"enum": ["gif", "jpeg", "png"], "title": "Format",
                              "type": "string"},
                   "tags": {"items": {"type": "string"}, "title": "Tags", "type": "array"},
                   "scale": {"default": 1.0, "exclusiveMinimum": 0, "title": "Scale",
                             "type": "number"}},
               "required": ["kind", "url", "size", "format"],
               "title": "ImagePart", "type": "object"}),
    );
    defs.insert(
        "Priority".to_owned(),
        json!({"enum": ["low", "normal", "high"], "title": "Priority", "type": "string"}),
    );
    defs.insert(
        "Size".to_owned(),
        json!({"properties": {"width": {"minimum": 1, "title": "Width", "type": "integer"},
                              "height": {"minimum": 1, "title": "Height", "type": "integer"}},
               "required": ["width", "height"], "title": "Size", "type": "object"}),
    );
    defs.insert(
        "Span".to_owned(),
        json!({"properties": {"start": {"minimum": 0, "title": "Start", "type": "integer"},
                              "end": {"minimum": 0, "title": "End", "type": "integer"}},
               "required": ["start", "end"], "title": "Span", "type": "object"}),
    );
    defs.insert(
        "Style".to_owned(),
        json!({"enum": ["plain", "markdown", "code"], "title": "Style", "type": "string"}),
    );
    defs.insert(
        "TextPart".to_owned(),
        json!({"properties": {
                   "kind": {"const": "text", "title": "Kind", "type": "string"},
                   "text": {"description": "The text itself.", "minLength": 1, "title": "Text",
                            "type": "string"},
                   "language": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null,
                                "title": "Language"},
                   "style": {"$ref": "#/$defs/Style", "default": "plain"},
                   "max_tokens": {"default": 256, "maximum": 4096, "minimum": 1,
                                  "title": "Max Tokens", "type": "integer"},
                   "tags": {"items": {"type": "string"}, "title": "Tags", "type": "array"},
                   "weight": {"default": 1.0, "title": "Weight", "type": "number"}},
               "required": ["kind", "text"],
               "title": "TextPart", "type": "object"}),
    );
    defs.insert(
        "ToolCallPart".to_owned(),
        json!({"properties": {
                   "kind": {"enum": ["call", "tool_call"], "title": "Kind", "type": "string"},
                   "name": {"pattern": "^[a-z_][a-z0-9_]*$", "title": "Name", "type": "string"},
                   "arguments": {"additionalProperties": true, "title": "Arguments",
                                 "type": "object"},
                   "timeout_s": {"anyOf": [{"exclusiveMinimum": 0, "type": "number"},
                                           {"type": "null"}],
                                 "default": null, "title": "Timeout S"},
                   "retries": {"default": 0, "minimum": 0, "title": "Retries",
                               "type": "integer"},
                   "depends_on": {"items": {"type": "string"}, "title": "Depends On",
                                  "type": "array"},
                   "priority": {"$ref": "#/$defs/Priority", "default": "normal"}},
               "required": ["kind", "name", "arguments"],
               "title": "ToolCallPart", "type": "object"}),
    );
}

/// The union of [`PART_MODELS`] as Pydantic v2 writes a field annotated
/// `Annotated[Union[TextPart, ImagePart, ToolCallPart, CitationPart],
/// Field(discriminator="kind")]`: the same `oneOf` of `$ref`s and `discriminator` (with its
/// `mapping`) at every use site, keys sorted.
fn part_union() -> Value {
    let mut mapping: Vec<(&str, &str)> = PART_MODELS
        .iter()
        .flat_map(|(model, tags)| tags.iter().map(move |tag| (*tag, *model)))
        .collect();
    mapping.sort_unstable();
    let mapping: Map<String, Value> = mapping
        .into_iter()
        .map(|(tag, model)| (tag.to_owned(), Value::from(format!("#/$defs/{model}"))))
        .collect();
    let members: Vec<Value> = PART_MODELS
        .iter()
        .map(|(model, _)| json!({"$ref": format!("#/$defs/{model}")}))
        .collect();
    json!({"discriminator": {"mapping": mapping, "propertyName": "kind"}, "oneOf": members})
}

/// One field of [`pydantic_models`] that holds the union, in one of Pydantic's three forms by
/// `form`: the union itself (required), a list of it (every other one with `default: []`, not
/// required), or `Optional` of it (`anyOf` with `null`, `default: null`, not required). Returns
/// the field's schema and whether it is required.
fn part_field(name: &str, form: usize) -> (Value, bool) {
    let title = pydantic_title(name);
    match form % 3 {
        0 => {
            let mut union = part_union();
            union["title"] = Value::from(title);
            (union, true)
        }
        1 if form.is_multiple_of(2) => (
            json!({"default": [], "items": part_union(), "title": title, "type": "array"}),
            false,
        ),
        1 => (
            json!({"items": part_union(), "title": title, "type": "array"}),
            true,
        ),
        _ => (
            json!({"anyOf": [part_union(), {"type": "null"}], "default": null,
                   "title": title}),
            false,
        ),
    }
}

/// A Pydantic model's schema from its fields (in declaration order) and their `required` flags.
fn pydantic_model(title: &str, fields: Vec<(String, Value, bool)>) -> Value {
    let required: Vec<Value> = fields
        .iter()
        .filter(|(_, _, required)| *required)
        .map(|(name, _, _)| Value::from(name.as_str()))
        .collect();
    let properties: Map<String, Value> = fields
        .into_iter()
        .map(|(name, schema, _)| (name, schema))
        .collect();
    let mut model = Map::new();
    model.insert("properties".to_owned(), Value::Object(properties));
    if !required.is_empty() {
        model.insert("required".to_owned(), Value::Array(required));
    }
    model.insert("title".to_owned(), Value::from(title));
    model.insert("type".to_owned(), Value::from("object"));
    Value::Object(model)
}

/// One discriminated union of four models used in many fields, exactly as Pydantic v2's
/// `TypeAdapter(Command).json_schema()` writes it (keys sorted, every model in `$defs` by name,
/// no `$schema`): the root is a union of three command models tagged by `action`; each command
/// holds `fields` fields of the union itself, `fields` lists of it and `fields` optionals of it
/// (some names shared by every command, some its own), and fields of nested `Section` models
/// (`fields / 5` of them, a chain through optional `subsection`s), each holding twelve more
/// fields of the union. Every use site is the same `oneOf` of `$ref`s with the same
/// `discriminator` mapping.
pub fn pydantic_models(fields: usize) -> Value {
    const COMMANDS: [(&str, &str); 3] = [
        ("CreateCommand", "create"),
        ("UpdateCommand", "update"),
        ("ArchiveCommand", "archive"),
    ];
    const SECTION_FIELDS: usize = 12;
    let sections = (fields / 5).max(2);
    let mut defs = Map::new();
    part_defs(&mut defs);
    for j in 0..sections {
        let mut section = vec![(
            "heading".to_owned(),
            json!({"maxLength": 120, "title": "Heading", "type": "string"}),
            true,
        )];
        for f in 0..SECTION_FIELDS {
            let name = format!("block_{f}");
            let (schema, required) = part_field(&name, f + j);
            section.push((name, schema, required));
        }
        if j + 1 < sections {
            section.push((
                "subsection".to_owned(),
                json!({"anyOf": [{"$ref": format!("#/$defs/Section{}", j + 1)},
                                 {"type": "null"}],
                       "default": null, "title": "Subsection"}),
                false,
            ));
        }
        defs.insert(
            format!("Section{j}"),
            pydantic_model(&format!("Section{j}"), section),
        );
    }
    for (c, (model, action)) in COMMANDS.iter().enumerate() {
        let mut command = vec![(
            "action".to_owned(),
            json!({"const": action, "title": "Action", "type": "string"}),
            true,
        )];
        for k in 0..fields {
            let name = format!("part_{k}");
            let (schema, required) = part_field(&name, 0);
            command.push((name, schema, required));
            let name = format!("{action}_parts_{k}");
            let (schema, required) = part_field(&name, 1 + 3 * (k % 2));
            command.push((name, schema, required));
            let name = if k % 2 == 0 {
                format!("extra_{k}")
            } else {
                format!("{action}_extra_{k}")
            };
            let (schema, required) = part_field(&name, 2);
            command.push((name, schema, required));
        }
        for j in (0..sections).filter(|j| j % COMMANDS.len() == c || j % 4 == 0) {
            command.push((
                format!("section_{j}"),
                json!({"$ref": format!("#/$defs/Section{j}")}),
                j % 2 == 0,
            ));
        }
        command.push((
            "appendices".to_owned(),
            json!({"default": [], "items": {"$ref": format!("#/$defs/Section{}", sections - 1)},
                   "title": "Appendices", "type": "array"}),
            false,
        ));
        defs.insert((*model).to_owned(), pydantic_model(model, command));
    }
    defs.sort_keys();
    let mut mapping: Vec<(&str, &str)> = COMMANDS.iter().map(|(m, a)| (*a, *m)).collect();
    mapping.sort_unstable();
    let mapping: Map<String, Value> = mapping
        .into_iter()
        .map(|(action, model)| (action.to_owned(), Value::from(format!("#/$defs/{model}"))))
        .collect();
    let members: Vec<Value> = COMMANDS
        .iter()
        .map(|(model, _)| json!({"$ref": format!("#/$defs/{model}")}))
        .collect();
    json!({"$defs": defs, "discriminator": {"mapping": mapping, "propertyName": "action"},
           "oneOf": members})
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

    /// Every object in `value` that has a `discriminator`, with its JSON pointer.
    fn discriminated(value: &Value, at: String, out: &mut Vec<(String, Value)>) {
        match value {
            Value::Object(map) => {
                if map.contains_key("discriminator") {
                    out.push((at.clone(), value.clone()));
                }
                for (k, v) in map {
                    discriminated(v, format!("{at}/{k}"), out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    discriminated(v, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    /// The `$defs` name a local `$ref` (or mapping value) names, checked to exist in `doc`.
    fn def_of<'a>(doc: &Value, reference: &'a Value) -> &'a str {
        let name = reference
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .unwrap_or_else(|| panic!("not a $defs reference: {reference}"));
        assert!(doc["$defs"].get(name).is_some(), "{name} not in $defs");
        name
    }

    #[test]
    fn the_pydantic_shape_is_one_union_of_models_used_at_many_sites() {
        let fields = 10;
        let doc = pydantic_models(fields);
        // Pydantic's root: no `$schema`, the command union as `$defs` + `discriminator` + `oneOf`.
        let root: Vec<&str> = doc
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(root, ["$defs", "discriminator", "oneOf"]);
        assert_eq!(doc["discriminator"]["propertyName"], "action");
        let commands = doc["oneOf"].as_array().expect("oneOf");
        assert_eq!(commands.len(), 3);
        let mapping = doc["discriminator"]["mapping"]
            .as_object()
            .expect("mapping");
        assert_eq!(mapping.len(), 3);
        for (action, target) in mapping {
            let name = def_of(&doc, target);
            assert_eq!(
                doc["$defs"][name]["properties"]["action"]["const"],
                **action
            );
            assert!(commands.contains(&json!({"$ref": target})));
        }
        let defs: Vec<&String> = doc["$defs"].as_object().expect("$defs").keys().collect();
        assert!(defs.is_sorted(), "{defs:?}");

        let mut sites = Vec::new();
        discriminated(&doc, String::new(), &mut sites);
        let sites: Vec<(String, Value)> = sites
            .into_iter()
            .filter(|(_, s)| s["discriminator"]["propertyName"] == "kind")
            .collect();
        let sections = (fields / 5).max(2);
        assert_eq!(sites.len(), 3 * 3 * fields + 12 * sections);
        // The same `oneOf` of `$ref`s and the same mapping at every site.
        let first = &sites[0].1;
        let members = first["oneOf"].as_array().expect("oneOf");
        assert_eq!(members.len(), 4);
        for member in members {
            assert_eq!(member.as_object().map(Map::len), Some(1), "{member}");
            def_of(&doc, &member["$ref"]);
        }
        let mapping = first["discriminator"]["mapping"]
            .as_object()
            .expect("mapping");
        assert_eq!(mapping.len(), 5);
        for target in mapping.values() {
            def_of(&doc, target);
            assert!(members.contains(&json!({"$ref": target})), "{target}");
        }
        for (at, site) in &sites {
            assert_eq!(site["oneOf"], first["oneOf"], "{at}");
            assert_eq!(site["discriminator"], first["discriminator"], "{at}");
        }
        // In Pydantic's three forms: the field itself (titled), list items, `Optional`; and
        // inside the nested models as well as the commands.
        let form = |suffix: &str| sites.iter().filter(|(at, _)| at.ends_with(suffix)).count();
        let (items, optional) = (form("/items"), form("/anyOf/0"));
        assert!(
            items > fields && optional > fields,
            "{items} lists, {optional} optionals"
        );
        for (at, site) in &sites {
            let inner = at.ends_with("/items") || at.ends_with("/anyOf/0");
            assert_eq!(site.get("title").is_none(), inner, "{at}");
        }
        assert!(
            sites
                .iter()
                .any(|(at, s)| at.starts_with("/$defs/Section") && s["title"] == "Block 0")
        );
        let create = &doc["$defs"]["CreateCommand"];
        assert_eq!(create["title"], "CreateCommand");
        assert_eq!(create["type"], "object");
        assert_eq!(create["properties"]["part_0"]["title"], "Part 0");
        assert_eq!(
            create["properties"]["extra_0"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert!(
            create["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("part_0")))
        );
    }

    #[test]
    fn the_triples_shape_varies_its_three_refs_per_site() {
        let doc = defs_union_triples(2 * 220);
        let properties = doc["properties"].as_object().expect("properties");
        assert_eq!(properties.len(), 440);
        let mut sets = std::collections::BTreeSet::new();
        let mut orders = std::collections::BTreeSet::new();
        for (name, site) in properties {
            let members = site["oneOf"].as_array().expect("oneOf");
            assert_eq!(members.len(), 3, "{name}");
            let names: Vec<&str> = members.iter().map(|m| def_of(&doc, &m["$ref"])).collect();
            let mut set = names.clone();
            set.sort_unstable();
            set.dedup();
            assert_eq!(set.len(), 3, "{name}: {names:?}");
            sets.insert(set);
            orders.insert(names);
            assert_eq!(site["discriminator"]["propertyName"], "type");
        }
        assert_eq!(sets.len(), 220, "every triple of 12 models is used");
        assert!(
            orders.len() > sets.len(),
            "the same triple is written in different orders"
        );
        assert_eq!(defs_union_triples(440), doc, "deterministic");
    }
}
