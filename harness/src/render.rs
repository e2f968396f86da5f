//! Rendering a model [`Case`] as JSON Schema, in each dialect form of SPEC §4 (dialect invariance):
//! Zod v4 (`oneOf` + `const`), zod-to-json-schema (`anyOf`, draft-07, `definitions`), Pydantic
//! (branches behind `$ref` in `$defs` with a `discriminator` and titles), a one-value `enum` for the
//! discriminator's `const`, and schemars (fields shared by every open branch as sibling
//! `properties` next to `oneOf`).

use serde_json::{Map, Number, Value, json};

use crate::model::{Bare, Bound, Branch, Case, Field, Literal, NullStyle, Policy, Shape, Union};

/// A dialect form of one union.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Dialect {
    /// Zod v4 `toJSONSchema`: draft 2020-12, `oneOf`, `const` with `type`.
    Zod4,
    /// zod-to-json-schema: draft-07, `anyOf`, `definitions`.
    ZodToJsonSchema,
    /// Pydantic v2: root branches in `$defs` behind `$ref`, `discriminator`, `title` everywhere.
    Pydantic,
    /// A one-value `enum` instead of `const` for discriminator literals.
    OneValueEnum,
    /// schemars 1.x `#[serde(flatten)]`: fields every (open) branch shares are sibling `properties`.
    Schemars,
}

/// Every dialect, the first being the reference form.
pub const DIALECTS: [Dialect; 5] = [
    Dialect::Zod4,
    Dialect::ZodToJsonSchema,
    Dialect::Pydantic,
    Dialect::OneValueEnum,
    Dialect::Schemars,
];

impl Dialect {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Zod4 => "zod4",
            Dialect::ZodToJsonSchema => "zod-to-json-schema",
            Dialect::Pydantic => "pydantic",
            Dialect::OneValueEnum => "one-value-enum",
            Dialect::Schemars => "schemars",
        }
    }

    fn defs_keyword(self) -> &'static str {
        match self {
            Dialect::ZodToJsonSchema => "definitions",
            _ => "$defs",
        }
    }
}

/// The reference rendering (Zod v4 form).
pub fn render(case: &Case) -> Value {
    render_as(case, Dialect::Zod4).unwrap_or(Value::Null)
}

/// Renders `case` in `dialect`'s form, or `None` where the dialect cannot express it (schemars'
/// sibling form needs a field shared by every branch, and open branches, since a sibling property
/// is undeclared in a closed branch under JSON Schema's reading).
pub fn render_as(case: &Case, dialect: Dialect) -> Option<Value> {
    let mut root = Map::new();
    match dialect {
        Dialect::ZodToJsonSchema => {
            root.insert(
                "$schema".into(),
                json!("http://json-schema.org/draft-07/schema#"),
            );
        }
        Dialect::Pydantic => {}
        _ => {
            root.insert(
                "$schema".into(),
                json!("https://json-schema.org/draft/2020-12/schema"),
            );
        }
    }
    let mut defs = Map::new();
    for (i, shape) in case.defs.iter().enumerate() {
        defs.insert(format!("D{i}"), shape_schema(shape, dialect));
    }
    let union = &case.root;
    if let Some(note) = union.note {
        root.insert("description".into(), json!(note.as_str()));
    }
    match dialect {
        Dialect::Pydantic => {
            let mut refs = Vec::new();
            let mut mapping = Map::new();
            for (i, branch) in union.branches.iter().enumerate() {
                let name = format!("B{i}");
                let mut schema = branch_schema(union, branch, dialect, &[]);
                if let Value::Object(m) = &mut schema {
                    m.insert("title".into(), json!(name));
                }
                defs.insert(name.clone(), schema);
                let target = format!("#/$defs/{name}");
                for tag in &branch.tags {
                    let key = match literal_value(*tag) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    mapping.insert(key, json!(target));
                }
                refs.push(json!({"$ref": target}));
            }
            root.insert(
                "discriminator".into(),
                json!({"propertyName": union.tag_name(), "mapping": mapping}),
            );
            root.insert("oneOf".into(), Value::Array(refs));
        }
        Dialect::Schemars => {
            let shared = shared_fields(union)?;
            let mut properties = Map::new();
            let mut required = Vec::new();
            for field in &shared {
                properties.insert(field.name.as_str().into(), field_schema(field, dialect));
                if field.required {
                    required.push(json!(field.name.as_str()));
                }
            }
            root.insert("type".into(), json!("object"));
            root.insert("properties".into(), Value::Object(properties));
            if !required.is_empty() {
                root.insert("required".into(), Value::Array(required));
            }
            let branches = union
                .branches
                .iter()
                .map(|b| branch_schema(union, b, dialect, &shared))
                .collect();
            root.insert("oneOf".into(), Value::Array(branches));
        }
        _ => {
            let branches = union
                .branches
                .iter()
                .map(|b| branch_schema(union, b, dialect, &[]))
                .collect();
            root.insert(combinator(dialect).into(), Value::Array(branches));
        }
    }
    if !defs.is_empty() {
        root.insert(dialect.defs_keyword().into(), Value::Object(defs));
    }
    Some(Value::Object(root))
}

/// The fields every branch declares identically, when every branch is open; `None` when the
/// schemars form does not apply.
fn shared_fields(union: &Union) -> Option<Vec<Field>> {
    if !union.branches.iter().all(|b| b.policy == Policy::Open) {
        return None;
    }
    let first = union.branches.first()?;
    let shared: Vec<Field> = first
        .fields
        .iter()
        .filter(|f| union.branches.iter().all(|b| b.fields.contains(f)))
        .cloned()
        .collect();
    if shared.is_empty() {
        None
    } else {
        Some(shared)
    }
}

fn combinator(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::ZodToJsonSchema => "anyOf",
        _ => "oneOf",
    }
}

/// The JSON value of a literal.
pub fn literal_value(literal: Literal) -> Value {
    match literal {
        Literal::Str(n) => json!(format!("s{n}")),
        Literal::Int(n) => json!(n),
        Literal::IntAsFloat(n) => Number::from_f64(f64::from(n)).map_or(Value::Null, Value::Number),
        Literal::Half(n) => Number::from_f64(f64::from(n) + 0.5).map_or(Value::Null, Value::Number),
        Literal::Large(n) => json!(i64::from(n) * 10_000_000_000_000_000),
        Literal::LargeAsFloat(n) => {
            Number::from_f64(f64::from(n) * 1e16).map_or(Value::Null, Value::Number)
        }
        Literal::Bool(b) => json!(b),
        Literal::Null => Value::Null,
    }
}

/// `type` for a set of literals: one name, or a list (`integer` folds into `number`).
fn literal_type(literals: &[Literal]) -> Value {
    let mut names: Vec<&str> = Vec::new();
    for l in literals {
        let t = l.type_name();
        if !names.contains(&t) {
            names.push(t);
        }
    }
    if names.contains(&"number") {
        names.retain(|t| *t != "integer");
    }
    if names.len() == 1 {
        json!(names[0])
    } else {
        json!(names)
    }
}

fn tag_schema(literals: &[Literal], dialect: Dialect) -> Value {
    let values: Vec<Value> = literals.iter().map(|l| literal_value(*l)).collect();
    let mut m = Map::new();
    m.insert("type".into(), literal_type(literals));
    match (values.as_slice(), dialect) {
        ([one], Dialect::OneValueEnum) => {
            m.insert("enum".into(), json!([one]));
        }
        ([one], _) => {
            m.insert("const".into(), one.clone());
        }
        _ => {
            m.insert("enum".into(), Value::Array(values));
        }
    }
    if dialect == Dialect::Pydantic {
        m.insert("title".into(), json!("Tag"));
    }
    Value::Object(m)
}

fn branch_schema(union: &Union, branch: &Branch, dialect: Dialect, hoisted: &[Field]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut tag = tag_schema(&branch.tags, dialect);
    if branch.tag_default {
        // Pydantic's rendering of a defaulted tag: the default beside the literal, not required.
        if let (Value::Object(m), Some(first)) = (&mut tag, branch.tags.first()) {
            m.insert("default".into(), literal_value(*first));
        }
    } else {
        required.push(json!(union.tag_name()));
    }
    properties.insert(union.tag_name().into(), tag);
    for field in &branch.fields {
        if hoisted.contains(field) {
            continue;
        }
        properties.insert(field.name.as_str().into(), field_schema(field, dialect));
        if field.required {
            required.push(json!(field.name.as_str()));
        }
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    if let Some(note) = branch.note {
        m.insert("description".into(), json!(note.as_str()));
    }
    m.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        m.insert("required".into(), Value::Array(required));
    }
    policy_into(&branch.policy, dialect, &mut m);
    Value::Object(m)
}

fn policy_into(policy: &Policy, dialect: Dialect, m: &mut Map<String, Value>) {
    match policy {
        Policy::Closed => {
            m.insert("additionalProperties".into(), json!(false));
        }
        Policy::Open => {}
        Policy::CatchAll(shape) => {
            m.insert("additionalProperties".into(), shape_schema(shape, dialect));
        }
    }
}

fn field_schema(field: &Field, dialect: Dialect) -> Value {
    let mut schema = shape_schema(&field.shape, dialect);
    if let Value::Object(m) = &mut schema {
        if let Some(note) = field.note {
            m.insert("description".into(), json!(note.as_str()));
        }
        if dialect == Dialect::Pydantic {
            m.insert("title".into(), json!(title_case(field.name.as_str())));
        }
    }
    schema
}

fn title_case(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The schema of one shape in `dialect`'s form.
pub fn shape_schema(shape: &Shape, dialect: Dialect) -> Value {
    match shape {
        Shape::Str {
            min_len,
            max_len,
            email,
        } => string_schema(*min_len, *max_len, *email),
        Shape::Num { integer, min, max } => number_schema(*integer, min.as_ref(), max.as_ref()),
        Shape::Bool => json!({"type": "boolean"}),
        Shape::Null => json!({"type": "null"}),
        Shape::Enum(literals) => {
            let values: Vec<Value> = literals.iter().map(|l| literal_value(*l)).collect();
            json!({"type": literal_type(literals), "enum": values})
        }
        Shape::Const(l) => json!({"type": literal_type(&[*l]), "const": literal_value(*l)}),
        Shape::Nullable { inner, style } => nullable_schema(inner, *style, dialect),
        Shape::Array {
            items,
            min_items,
            max_items,
        } => array_schema(items, *min_items, *max_items, dialect),
        Shape::Object { fields, policy } => object_schema(fields, policy, dialect),
        Shape::Union(union) => nested_union_schema(union, dialect),
        Shape::Ref(i) => json!({"$ref": format!("#/{}/D{i}", dialect.defs_keyword())}),
        Shape::Any => json!({}),
        Shape::Bare(Bare::MinLength) => json!({"minLength": 2}),
        Shape::Bare(Bare::Minimum) => json!({"minimum": 0}),
        Shape::Bare(Bare::MinItems) => json!({"minItems": 1}),
    }
}

/// A string schema with its length bounds and `format: "email"`.
fn string_schema(min_len: Option<u8>, max_len: Option<u8>, email: bool) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("string"));
    if let Some(n) = min_len {
        m.insert("minLength".into(), json!(n));
    }
    if let Some(n) = max_len {
        m.insert("maxLength".into(), json!(n));
    }
    if email {
        m.insert("format".into(), json!("email"));
    }
    Value::Object(m)
}

/// An integer or number schema with its (exclusive or inclusive) bounds.
fn number_schema(integer: bool, min: Option<&Bound>, max: Option<&Bound>) -> Value {
    let mut m = Map::new();
    m.insert(
        "type".into(),
        json!(if integer { "integer" } else { "number" }),
    );
    if let Some(b) = min {
        let key = if b.exclusive {
            "exclusiveMinimum"
        } else {
            "minimum"
        };
        m.insert(key.into(), json!(b.value));
    }
    if let Some(b) = max {
        let key = if b.exclusive {
            "exclusiveMaximum"
        } else {
            "maximum"
        };
        m.insert(key.into(), json!(b.value));
    }
    Value::Object(m)
}

/// A nullable shape: `"null"` added to the `type` array of a typed inner shape in the type-array
/// style, else `anyOf: [inner, {type: null}]`.
fn nullable_schema(inner: &Shape, style: NullStyle, dialect: Dialect) -> Value {
    let rendered = shape_schema(inner, dialect);
    let typed = matches!(
        inner,
        Shape::Str { .. }
            | Shape::Num { .. }
            | Shape::Bool
            | Shape::Array { .. }
            | Shape::Object { .. }
    );
    match (style, rendered) {
        (NullStyle::TypeArray, Value::Object(mut m)) if typed => {
            let t = m.get("type").cloned().unwrap_or(Value::Null);
            m.insert("type".into(), json!([t, "null"]));
            Value::Object(m)
        }
        (_, rendered) => json!({"anyOf": [rendered, {"type": "null"}]}),
    }
}

/// An array schema with `items` and its length bounds.
fn array_schema(
    items: &Shape,
    min_items: Option<u8>,
    max_items: Option<u8>,
    dialect: Dialect,
) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("array"));
    m.insert("items".into(), shape_schema(items, dialect));
    if let Some(n) = min_items {
        m.insert("minItems".into(), json!(n));
    }
    if let Some(n) = max_items {
        m.insert("maxItems".into(), json!(n));
    }
    Value::Object(m)
}

/// An object schema: its fields' properties, `required`, and its key policy.
fn object_schema(fields: &[Field], policy: &Policy, dialect: Dialect) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        properties.insert(field.name.as_str().into(), field_schema(field, dialect));
        if field.required {
            required.push(json!(field.name.as_str()));
        }
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        m.insert("required".into(), Value::Array(required));
    }
    policy_into(policy, dialect, &mut m);
    Value::Object(m)
}

/// A union nested in a field: its branches inline in every dialect (Pydantic writes a
/// `discriminator` beside them); schemars' sibling form is a root-only shape.
fn nested_union_schema(union: &Union, dialect: Dialect) -> Value {
    let dialect = if dialect == Dialect::Schemars {
        Dialect::Zod4
    } else {
        dialect
    };
    let branches: Vec<Value> = union
        .branches
        .iter()
        .map(|b| branch_schema(union, b, dialect, &[]))
        .collect();
    let mut m = Map::new();
    if let Some(note) = union.note {
        m.insert("description".into(), json!(note.as_str()));
    }
    m.insert(combinator(dialect).into(), Value::Array(branches));
    if dialect == Dialect::Pydantic {
        m.insert(
            "discriminator".into(),
            json!({"propertyName": union.tag_name()}),
        );
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, Text};

    fn case() -> Case {
        let shared = Field {
            name: Name(0),
            shape: Shape::Str {
                min_len: None,
                max_len: Some(3),
                email: false,
            },
            required: true,
            note: Some(Text(0)),
        };
        let branch = |tag: Literal, extra: Vec<Field>| Branch {
            tags: vec![tag],
            fields: [vec![shared.clone()], extra].concat(),
            policy: Policy::Open,
            note: None,
            tag_default: false,
        };
        Case {
            root: Union {
                tag: 0,
                branches: vec![
                    branch(Literal::Str(1), vec![]),
                    branch(
                        Literal::Int(2),
                        vec![Field {
                            name: Name(1),
                            shape: Shape::Ref(0),
                            required: false,
                            note: None,
                        }],
                    ),
                ],
                note: None,
            },
            defs: vec![Shape::Bool],
        }
    }

    #[test]
    fn zod4_form_is_a_one_of_with_const() {
        let schema = render(&case());
        assert_eq!(
            schema["oneOf"][0]["properties"]["kind"],
            json!({"type": "string", "const": "s1"})
        );
        assert_eq!(schema["oneOf"][1]["required"], json!(["kind", "value"]));
        assert_eq!(
            schema["oneOf"][1]["properties"]["tags"],
            json!({"$ref": "#/$defs/D0"})
        );
    }

    #[test]
    fn zod_to_json_schema_form_uses_any_of_and_definitions() {
        let schema = render_as(&case(), Dialect::ZodToJsonSchema).unwrap_or_default();
        assert!(schema["anyOf"].is_array());
        assert_eq!(schema["definitions"]["D0"], json!({"type": "boolean"}));
        assert_eq!(
            schema["anyOf"][1]["properties"]["tags"]["$ref"],
            "#/definitions/D0"
        );
    }

    #[test]
    fn pydantic_form_puts_branches_behind_refs() {
        let schema = render_as(&case(), Dialect::Pydantic).unwrap_or_default();
        assert_eq!(schema["oneOf"][1], json!({"$ref": "#/$defs/B1"}));
        assert_eq!(schema["discriminator"]["mapping"]["2"], "#/$defs/B1");
        assert_eq!(
            schema["$defs"]["B0"]["properties"]["value"]["title"],
            "Value"
        );
    }

    #[test]
    fn one_value_enum_and_schemars_forms() {
        let schema = render_as(&case(), Dialect::OneValueEnum).unwrap_or_default();
        assert_eq!(
            schema["oneOf"][1]["properties"]["kind"],
            json!({"type": "integer", "enum": [2]})
        );
        let schema = render_as(&case(), Dialect::Schemars).unwrap_or_default();
        assert_eq!(schema["required"], json!(["value"]));
        assert!(schema["oneOf"][0]["properties"].get("value").is_none());
        let mut closed = case();
        closed.root.branches[0].policy = Policy::Closed;
        assert!(render_as(&closed, Dialect::Schemars).is_none());
    }
}
