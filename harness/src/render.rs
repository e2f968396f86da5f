//! Rendering a model [`Case`] as JSON Schema, in each dialect form of SPEC §4 (dialect invariance):
//! Zod v4 (`oneOf` + `const`), zod-to-json-schema (`anyOf`, draft-07, `definitions`), Pydantic
//! (branches behind `$ref` in `$defs` with a `discriminator` and titles), a one-value `enum` for the
//! discriminator's `const`, and schemars (fields shared by every open branch as sibling
//! `properties` next to `oneOf`).
//!
//! Each [`Form`] of union (SPEC §2.9) is written as its tools write it: a branch that is itself a
//! discriminated union inline as `{"oneOf": [...]}` (zod-to-json-schema: `anyOf`), and in
//! Pydantic's form as Pydantic 2 writes `Union[Cat, Dog]` where `Cat` is a union on another tag:
//! its branches in `$defs`, the inner union inline with its own `discriminator` mapping to them,
//! and the outer mapping sending the inner union's literals to that inline union; adjacently
//! tagged branches as `{tag, "content"}` (schemars: `content` first); externally tagged ones as
//! `{"Name": payload}` with the unit variants in one leading string `enum` (as schemars groups
//! them); untagged ones as `anyOf` of objects (Pydantic: of `$ref`s).

use std::collections::HashMap;

use serde_json::{Map, Number, Value, json};

use crate::keywords::{self, Holds};
use crate::refs::{escape_token, fragment_of};

use crate::model::{
    Bare, Bound, Branch, CONTENT, Case, Field, Form, Literal, NullStyle, Policy, Shape, Union,
    variant_name,
};

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

/// Renders `case` in `dialect`'s form for the dialect invariance (SPEC §4): [`render_form`], or
/// `None` where that form and the reference (Zod v4) form may rightly yield different
/// presentations. That is where a union the join leaves as it is (SPEC §2.9, §6 decision 70: a
/// root with a non-object branch, [`Union::admits_non_object`]; a nested union without a
/// discriminator, externally tagged or untagged) is written differently: at the root in
/// Pydantic's form, whose branches stay behind `$ref`; anywhere under another keyword while a
/// union is below it, since under a `oneOf` that stays a nested union is left as it is
/// (flattening it could make two members overlap, decision 37) and under an `anyOf` joined.
pub fn render_as(case: &Case, dialect: Dialect) -> Option<Value> {
    let root = &case.root;
    if dialect == Dialect::Pydantic && root.admits_non_object() {
        return None;
    }
    let differs = case.unions().into_iter().any(|u| {
        let at_root = std::ptr::eq(u, root);
        let (stays, written) = if at_root {
            (u.admits_non_object(), dialect)
        } else {
            (!u.is_tagged(), nested_dialect(u, dialect))
        };
        // A union below it may be in a definition it refers to.
        let defined_union = u.refers() && case.defs.iter().any(|d| !d.unions().is_empty());
        stays
            && (u.holds_union() || defined_union)
            && union_keyword(u.form, written) != union_keyword(u.form, Dialect::Zod4)
    });
    if differs {
        return None;
    }
    render_form(case, dialect)
}

/// Renders `case` in `dialect`'s form, or `None` where the dialect cannot express it:
/// schemars' sibling form of an internally tagged union needs a field shared by every branch,
/// open branches (a sibling property is undeclared in a closed branch under JSON Schema's
/// reading) and no branch that is itself a union; zod-to-json-schema reads Zod 3 schemas, whose
/// `z.discriminatedUnion` takes objects only, so no union of its has a branch that is itself a
/// union.
pub fn render_form(case: &Case, dialect: Dialect) -> Option<Value> {
    if dialect == Dialect::ZodToJsonSchema && case.holds_inner_union() {
        return None;
    }
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
    let scope = Scope::default();
    match (dialect, union.form) {
        (Dialect::Pydantic, _) => {
            let (members, mapping) = pydantic_members(union, &scope, "B", &mut defs);
            if union.is_tagged() {
                root.insert(
                    "discriminator".into(),
                    json!({"propertyName": union.tag_name(), "mapping": mapping}),
                );
            }
            root.insert(
                union_keyword(union.form, dialect).into(),
                Value::Array(members),
            );
        }
        (Dialect::Schemars, Form::Internal) => {
            if union.has_inner_union() {
                return None;
            }
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
            root.insert(
                "oneOf".into(),
                Value::Array(members(union, dialect, &scope, &shared)),
            );
        }
        _ => {
            root.insert(
                union_keyword(union.form, dialect).into(),
                Value::Array(members(union, dialect, &scope, &[])),
            );
        }
    }
    if dialect == Dialect::Pydantic {
        pydantic_models(&mut root, &mut defs);
    }
    if !defs.is_empty() {
        root.insert(dialect.defs_keyword().into(), Value::Object(defs));
    }
    if dialect == Dialect::ZodToJsonSchema {
        reuse_as_zod_to_json_schema(&mut root);
    }
    Some(Value::Object(root))
}

/// zod-to-json-schema's default `$refStrategy: "root"`: a Zod schema used a second time is
/// written as a `$ref` to the JSON pointer where it was first written, e.g. `{"$ref":
/// "#/anyOf/0/properties/addr"}` for one `z.object` constant that two branches use (its
/// `definitions` option's schemas are written first). The generator's structurally equal object
/// schemas and unions stand for one reused Zod constant, so each after the first becomes such a
/// reference: into a branch the join flattens, into a definition, into a union that is itself
/// flattened. The dialect invariance then holds the join to presentations that read a reference
/// as what it refers to (SPEC §3 step 4, §6 decision 88).
fn reuse_as_zod_to_json_schema(root: &mut Map<String, Value>) {
    let mut first: HashMap<String, String> = HashMap::new();
    let keys: Vec<String> = root.keys().cloned().collect();
    let (defs, rest): (Vec<String>, Vec<String>) =
        keys.into_iter().partition(|k| k == "definitions");
    for key in defs.into_iter().chain(rest) {
        if let (Some(holds), Some(value)) = (keywords::holds(&key), root.get_mut(&key)) {
            let at = format!("/{}", escape_token(&key));
            reuse_under(holds, value, &at, &mut first);
        }
    }
}

/// [`reuse_as_zod_to_json_schema`] for the subschemas of one keyword's `value` at `at`.
fn reuse_under(holds: Holds, value: &mut Value, at: &str, first: &mut HashMap<String, String>) {
    match (holds, value) {
        (Holds::One, v) | (Holds::OneOrList, v @ Value::Object(_)) => reuse_node(v, at, first),
        (Holds::List | Holds::OneOrList, Value::Array(members)) => {
            for (i, m) in members.iter_mut().enumerate() {
                reuse_node(m, &format!("{at}/{i}"), first);
            }
        }
        (Holds::Map | Holds::MapOfSchemasOrNames, Value::Object(entries)) => {
            for (name, v) in entries.iter_mut().filter(|(_, v)| !v.is_array()) {
                reuse_node(v, &format!("{at}/{}", escape_token(name)), first);
            }
        }
        _ => {}
    }
}

/// One schema node: a reference to the first node written like it, or recorded as that first
/// node and walked.
fn reuse_node(node: &mut Value, at: &str, first: &mut HashMap<String, String>) {
    let Value::Object(map) = node else {
        return;
    };
    if ["properties", "anyOf", "oneOf"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        let text = node.to_string();
        if let Some(there) = first.get(&text) {
            *node = json!({"$ref": format!("#{}", fragment_of(there))});
            return;
        }
        first.insert(text, at.to_owned());
    }
    let Value::Object(map) = node else {
        return;
    };
    for (keyword, value) in map.iter_mut() {
        if let Some(holds) = keywords::holds(keyword) {
            reuse_under(
                holds,
                value,
                &format!("{at}/{}", escape_token(keyword)),
                first,
            );
        }
    }
}

/// A document in Pydantic's form (as [`render_as`] writes it) with one union written inline at
/// one of its places: the first union whose members are all `$ref`s to root definitions and that
/// stands, written the same, at three places or more gets its members' definitions copied in
/// (its `discriminator`, which maps to those references, dropped). The others stay the same
/// `oneOf` of `$ref`s, so they still share one join (SPEC §6 decision 73), and the inline place
/// flattens to that join's flat object on its own: what a hand-edited or merged schema writes.
/// `None` when no union stands at three places.
pub fn one_repeated_union_inline(document: &Value) -> Option<Value> {
    let mut sites: Vec<(String, String)> = Vec::new();
    if let Value::Object(root) = document {
        for (key, value) in root {
            if let Some(holds) = keywords::holds(key) {
                referring_unions(holds, value, &format!("/{}", escape_token(key)), &mut sites);
            }
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (_, text) in &sites {
        *counts.entry(text.as_str()).or_default() += 1;
    }
    let (at, _) = sites.iter().find(|(_, text)| counts[text.as_str()] >= 3)?;
    let mut out = document.clone();
    let defs = document.get("$defs")?;
    let node = out.pointer_mut(at)?.as_object_mut()?;
    node.remove("discriminator");
    for keyword in ["oneOf", "anyOf"] {
        if let Some(Value::Array(members)) = node.get_mut(keyword) {
            for member in members.iter_mut() {
                let name = member.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
                *member = defs.get(name)?.clone();
            }
        }
    }
    Some(out)
}

/// The unions below one keyword's `value` at `at` whose members are all `$ref`s to root
/// definitions, each with its text without annotations ([`one_repeated_union_inline`]).
fn referring_unions(holds: Holds, value: &Value, at: &str, out: &mut Vec<(String, String)>) {
    let mut node = |v: &Value, at: String| {
        let Value::Object(map) = v else {
            return;
        };
        let refers = ["oneOf", "anyOf"].iter().any(|k| {
            map.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|members| {
                    !members.is_empty()
                        && members.iter().all(|m| {
                            m.get("$ref")
                                .and_then(Value::as_str)
                                .is_some_and(|r| r.starts_with("#/$defs/"))
                        })
                })
        });
        if refers {
            let mut bare = map.clone();
            for annotation in ["title", "description", "default", "examples"] {
                bare.remove(annotation);
            }
            out.push((at.clone(), Value::Object(bare).to_string()));
        }
        for (key, value) in map {
            if let Some(holds) = keywords::holds(key) {
                referring_unions(holds, value, &format!("{at}/{}", escape_token(key)), out);
            }
        }
    };
    match (holds, value) {
        (Holds::One, v) | (Holds::OneOrList, v @ Value::Object(_)) => node(v, at.to_owned()),
        (Holds::List | Holds::OneOrList, Value::Array(members)) => {
            for (i, m) in members.iter().enumerate() {
                node(m, format!("{at}/{i}"));
            }
        }
        (Holds::Map | Holds::MapOfSchemasOrNames, Value::Object(entries)) => {
            for (name, v) in entries.iter().filter(|(_, v)| !v.is_array()) {
                node(v, format!("{at}/{}", escape_token(name)));
            }
        }
        _ => {}
    }
}

/// Pydantic writes every model once, in `$defs`: the object members of each union below the
/// root (in a field, an item, a nullable wrapper, a definition) become `$ref`s to definitions
/// named by their content, with the `discriminator` mapping to them. One union used in several
/// places is then the same `oneOf` of `$ref`s at each place, as Pydantic writes a union field
/// (the input of SPEC §6 decision 73).
fn pydantic_models(root: &mut Map<String, Value>, defs: &mut Map<String, Value>) {
    let mut models = Map::new();
    for (key, value) in root.iter_mut() {
        if key != "oneOf"
            && key != "anyOf"
            && let Some(mapped) = crate::keywords::map_subschemas(key, value, &mut |sub| {
                hoist_models(sub, &mut models)
            })
        {
            *value = mapped;
        }
    }
    for def in defs.values_mut() {
        *def = hoist_models(def, &mut models);
    }
    for (name, model) in models {
        defs.entry(name).or_insert(model);
    }
}

/// [`pydantic_models`] below one node: children first, then this node's union members.
fn hoist_models(node: &Value, models: &mut Map<String, Value>) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let mapped =
            crate::keywords::map_subschemas(key, value, &mut |sub| hoist_models(sub, models));
        out.insert(key.clone(), mapped.unwrap_or_else(|| value.clone()));
    }
    let tag = out
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    for keyword in ["oneOf", "anyOf"] {
        let Some(Value::Array(members)) = out.get(keyword) else {
            continue;
        };
        let mut mapping = Map::new();
        let mut written = Vec::with_capacity(members.len());
        for member in members {
            if member.get("type") != Some(&json!("object")) || member.get("properties").is_none() {
                written.push(member.clone());
                continue;
            }
            // Named by structure: copies that differ only in annotations are one model (its
            // first copy's annotations), as one Pydantic class used in several places.
            let structure = crate::identity::canonical_text(member, Default::default());
            let name = format!("M{}", crate::draw::short_hash(&structure));
            let target = format!("#/$defs/{name}");
            let mut model = member.clone();
            if let Value::Object(m) = &mut model {
                m.entry("title").or_insert_with(|| json!(name));
            }
            models.entry(name).or_insert(model);
            let literals = tag
                .as_deref()
                .and_then(|t| member.get("properties")?.get(t))
                .map(|t| match (t.get("const"), t.get("enum")) {
                    (Some(c), _) => vec![c.clone()],
                    (None, Some(Value::Array(e))) => e.clone(),
                    _ => Vec::new(),
                })
                .unwrap_or_default();
            for literal in literals {
                let key = match literal {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                mapping.insert(key, json!(target));
            }
            written.push(json!({"$ref": target}));
        }
        out.insert(keyword.to_owned(), Value::Array(written));
        if let (Some(tag), false) = (&tag, mapping.is_empty()) {
            out.insert(
                "discriminator".into(),
                json!({"mapping": mapping, "propertyName": tag}),
            );
        }
    }
    Value::Object(out)
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

/// The keyword a union of `form` is written with in `dialect`: a discriminated union as Zod's
/// `z.discriminatedUnion` (`oneOf`; zod-to-json-schema `anyOf`), an externally tagged one as
/// `z.union` (`anyOf`; schemars `oneOf`), an untagged one `anyOf` everywhere.
fn union_keyword(form: Form, dialect: Dialect) -> &'static str {
    match (form, dialect) {
        (Form::Internal | Form::Adjacent, Dialect::ZodToJsonSchema) => "anyOf",
        (Form::Internal | Form::Adjacent, _) | (Form::External, Dialect::Schemars) => "oneOf",
        (Form::External | Form::Untagged, _) => "anyOf",
    }
}

/// What the unions a branch is a branch of put into each of its objects, outermost first: their
/// tags (name, the enclosing branch's literals, whether defaulted) and their shared fields.
#[derive(Debug, Clone, Default)]
struct Scope<'a> {
    tags: Vec<(&'static str, &'a [Literal], bool)>,
    shared: Vec<&'a Field>,
}

impl<'a> Scope<'a> {
    /// The scope of the branches of `branch`'s inner union.
    fn enter(&self, union: &'a Union, branch: &'a Branch) -> Scope<'a> {
        let mut scope = self.clone();
        scope
            .tags
            .push((union.tag_name(), &branch.tags, branch.tag_default));
        scope.shared.extend(branch.fields.iter());
        scope
    }
}

/// The members of `union` inline, in its form; `hoisted` fields (schemars' siblings) left out.
fn members(union: &Union, dialect: Dialect, scope: &Scope<'_>, hoisted: &[Field]) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(units) = unit_variants(union) {
        out.push(units);
    }
    for branch in &union.branches {
        if union.form == Form::External && branch.unit {
            continue;
        }
        out.push(match &branch.inner {
            Some(inner) => {
                let inner_scope = scope.enter(union, branch);
                let mut m = Map::new();
                if let Some(note) = branch.note.or(inner.note) {
                    m.insert("description".into(), json!(note.as_str()));
                }
                m.insert(
                    union_keyword(inner.form, dialect).into(),
                    Value::Array(members(inner, dialect, &inner_scope, &[])),
                );
                if dialect == Dialect::Pydantic {
                    m.insert(
                        "discriminator".into(),
                        json!({"propertyName": inner.tag_name()}),
                    );
                }
                Value::Object(m)
            }
            None => object_branch(union, branch, dialect, scope, hoisted),
        });
    }
    out
}

/// The members of `union` in Pydantic's form, and its discriminator mapping: each object branch
/// in `defs` as `<prefix><i>` (titled) with a `$ref` to it in its place; a branch that is itself
/// a union inline, with its own `discriminator` (`propertyName` and `mapping`), its branches in
/// `defs` as `<prefix><i>_<j>`; the mapping sends each literal to the `$ref`'s target, or to the
/// inline union (as Pydantic 2 writes `Union[Cat, Dog]` with `Cat` a union on another tag).
fn pydantic_members(
    union: &Union,
    scope: &Scope<'_>,
    prefix: &str,
    defs: &mut Map<String, Value>,
) -> (Vec<Value>, Map<String, Value>) {
    let dialect = Dialect::Pydantic;
    let mut out = Vec::new();
    let mut mapping = Map::new();
    if let Some(units) = unit_variants(union) {
        out.push(units);
    }
    for (i, branch) in union.branches.iter().enumerate() {
        if union.form == Form::External && branch.unit {
            continue;
        }
        let name = format!("{prefix}{i}");
        let (member, target) = match &branch.inner {
            Some(inner) => {
                let inner_scope = scope.enter(union, branch);
                let (inner_members, inner_mapping) =
                    pydantic_members(inner, &inner_scope, &format!("{name}_"), defs);
                let mut m = Map::new();
                if let Some(note) = branch.note.or(inner.note) {
                    m.insert("description".into(), json!(note.as_str()));
                }
                m.insert(
                    "discriminator".into(),
                    json!({"mapping": inner_mapping, "propertyName": inner.tag_name()}),
                );
                m.insert(
                    union_keyword(inner.form, dialect).into(),
                    Value::Array(inner_members),
                );
                let member = Value::Object(m);
                (member.clone(), member)
            }
            None => {
                let mut schema = object_branch(union, branch, dialect, scope, &[]);
                if let Value::Object(m) = &mut schema {
                    m.insert("title".into(), json!(name));
                }
                defs.insert(name.clone(), schema);
                let target = format!("#/$defs/{name}");
                (json!({"$ref": target}), json!(target))
            }
        };
        if union.is_tagged() {
            for tag in &branch.tags {
                let key = match literal_value(*tag) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                mapping.insert(key, target.clone());
            }
        }
        out.push(member);
    }
    (out, mapping)
}

/// One object branch of `union` (not itself a union) in its form.
fn object_branch(
    union: &Union,
    branch: &Branch,
    dialect: Dialect,
    scope: &Scope<'_>,
    hoisted: &[Field],
) -> Value {
    match union.form {
        Form::Internal => branch_schema(union, branch, dialect, scope, hoisted),
        Form::Adjacent => adjacent_branch(union, branch, dialect),
        Form::External => external_branch(branch, dialect),
        Form::Untagged => {
            let mut schema = object_schema(&branch.fields, &branch.policy, dialect);
            note_into(&mut schema, branch);
            schema
        }
    }
}

/// A branch's `description`, placed after `type` (on an object schema).
fn note_into(schema: &mut Value, branch: &Branch) {
    if let (Value::Object(m), Some(note)) = (schema, branch.note) {
        m.insert("description".into(), json!(note.as_str()));
    }
}

/// An adjacently tagged branch: `{tag, "content": payload}` (a unit variant: the tag alone),
/// closed when its payload is (schemars writes `content` first).
fn adjacent_branch(union: &Union, branch: &Branch, dialect: Dialect) -> Value {
    let tag = tag_schema(&branch.tags, dialect);
    let content = (!branch.unit).then(|| object_schema(&branch.fields, &branch.policy, dialect));
    let mut properties = Map::new();
    if dialect != Dialect::Schemars {
        properties.insert(union.tag_name().into(), tag.clone());
    }
    if let Some(content) = content {
        properties.insert(CONTENT.into(), content);
    }
    if dialect == Dialect::Schemars {
        properties.insert(union.tag_name().into(), tag);
    }
    let mut required = vec![json!(union.tag_name())];
    if !branch.unit {
        required.push(json!(CONTENT));
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    if let Some(note) = branch.note {
        m.insert("description".into(), json!(note.as_str()));
    }
    m.insert("properties".into(), Value::Object(properties));
    m.insert("required".into(), Value::Array(required));
    if branch.policy == Policy::Closed {
        m.insert("additionalProperties".into(), json!(false));
    }
    Value::Object(m)
}

/// An externally tagged struct variant: `{"Name": payload}`, the name required, closed.
fn external_branch(branch: &Branch, dialect: Dialect) -> Value {
    let name = branch
        .tags
        .first()
        .map_or_else(|| "Variant".to_owned(), |l| variant_name(*l));
    let mut properties = Map::new();
    properties.insert(
        name.clone(),
        object_schema(&branch.fields, &branch.policy, dialect),
    );
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    if let Some(note) = branch.note {
        m.insert("description".into(), json!(note.as_str()));
    }
    m.insert("properties".into(), Value::Object(properties));
    m.insert("required".into(), json!([name]));
    m.insert("additionalProperties".into(), json!(false));
    Value::Object(m)
}

/// The unit variants of an externally tagged union as one string `enum` (as schemars groups
/// them, first); `None` when it has none.
fn unit_variants(union: &Union) -> Option<Value> {
    if union.form != Form::External {
        return None;
    }
    let names: Vec<Value> = union
        .branches
        .iter()
        .filter(|b| b.unit)
        .filter_map(|b| b.tags.first())
        .map(|l| json!(variant_name(*l)))
        .collect();
    (!names.is_empty()).then(|| json!({"type": "string", "enum": names}))
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

/// An internally tagged object branch: the tags and shared fields of the unions it is a branch
/// of (`scope`), its own tag, its fields (without the `hoisted` ones), its key policy.
fn branch_schema(
    union: &Union,
    branch: &Branch,
    dialect: Dialect,
    scope: &Scope<'_>,
    hoisted: &[Field],
) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let own = (union.tag_name(), branch.tags.as_slice(), branch.tag_default);
    for (name, literals, defaulted) in scope.tags.iter().copied().chain([own]) {
        let mut tag = tag_schema(literals, dialect);
        if defaulted {
            // Pydantic's rendering of a defaulted tag: the default beside the literal, not
            // required.
            if let (Value::Object(m), Some(first)) = (&mut tag, literals.first()) {
                m.insert("default".into(), literal_value(*first));
            }
        } else {
            required.push(json!(name));
        }
        properties.insert(name.into(), tag);
    }
    for field in &scope.shared {
        properties.insert(field.name.as_str().into(), field_schema(field, dialect));
        if field.required {
            required.push(json!(field.name.as_str()));
        }
    }
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

/// The dialect a union nested in a field is written in: schemars' sibling form of an internally
/// tagged union is a root-only shape, so there it is written as Zod v4 writes it.
fn nested_dialect(union: &Union, dialect: Dialect) -> Dialect {
    if dialect == Dialect::Schemars && union.form == Form::Internal {
        Dialect::Zod4
    } else {
        dialect
    }
}

/// A union nested in a field: its branches inline in every dialect (Pydantic writes a
/// `discriminator` beside a tagged union's); schemars' sibling form is a root-only shape.
fn nested_union_schema(union: &Union, dialect: Dialect) -> Value {
    let dialect = nested_dialect(union, dialect);
    let mut m = Map::new();
    if let Some(note) = union.note {
        m.insert("description".into(), json!(note.as_str()));
    }
    m.insert(
        union_keyword(union.form, dialect).into(),
        Value::Array(members(union, dialect, &Scope::default(), &[])),
    );
    if dialect == Dialect::Pydantic && union.is_tagged() {
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
            unit: false,
            inner: None,
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
                form: Form::Internal,
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
    fn zod_to_json_schema_refers_to_a_reused_schema_where_it_was_first_written() {
        // As zod-to-json-schema 3.25.2 writes one `z.object` constant used twice
        // (corpus/dialects/zod-to-json-schema/reused_model.json): the first use inline, the
        // later ones `$ref`s to its JSON pointer; `definitions` are written first.
        let address = json!({"type": "object", "properties": {"street": {"type": "string"}}});
        let nullable = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        let mut root = json!({
            "anyOf": [
                {"type": "object", "properties": {"a/b": address, "n": nullable}},
                {"type": "object", "properties": {
                    "address": address,
                    "stops": {"type": "array", "items": address},
                    "n": nullable,
                }},
            ],
            "definitions": {"D0": {"type": "object", "properties": {"n": nullable}}},
        });
        let Value::Object(map) = &mut root else {
            unreachable!()
        };
        reuse_as_zod_to_json_schema(map);
        let first = json!({"$ref": "#/anyOf/0/properties/a~1b"});
        assert_eq!(root["anyOf"][0]["properties"]["a/b"], address);
        assert_eq!(root["anyOf"][1]["properties"]["address"], first);
        assert_eq!(root["anyOf"][1]["properties"]["stops"]["items"], first);
        let n = json!({"$ref": "#/definitions/D0/properties/n"});
        assert_eq!(root["definitions"]["D0"]["properties"]["n"], nullable);
        assert_eq!(root["anyOf"][0]["properties"]["n"], n);
        assert_eq!(root["anyOf"][1]["properties"]["n"], n);
        // Scalars are not reused: `street` stays inline.
        assert_eq!(
            root["anyOf"][0]["properties"]["a/b"]["properties"]["street"],
            json!({"type": "string"})
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

    fn leaf(tag: Literal, fields: Vec<Field>) -> Branch {
        Branch {
            tags: vec![tag],
            fields,
            policy: Policy::Open,
            note: None,
            tag_default: false,
            unit: false,
            inner: None,
        }
    }

    fn string_field(name: u8) -> Field {
        Field {
            name: Name(name),
            shape: Shape::Str {
                min_len: None,
                max_len: None,
                email: false,
            },
            required: true,
            note: None,
        }
    }

    /// Pydantic's own example (`Pet = Union[Cat, Dog]` on `pet_type`, `Cat = Union[BlackCat,
    /// WhiteCat]` on `color`), on the model's names: `kind` for `pet_type`, `op` for `color`,
    /// `s0`/`s1` for cat/dog, `s2`/`s3` for black/white.
    fn pets() -> Case {
        let mut cat = leaf(Literal::Str(0), vec![]);
        cat.inner = Some(Box::new(Union {
            tag: 2,
            branches: vec![
                leaf(Literal::Str(2), vec![string_field(0)]),
                leaf(Literal::Str(3), vec![string_field(2)]),
            ],
            note: None,
            form: Form::Internal,
        }));
        Case {
            root: Union {
                tag: 0,
                branches: vec![cat, leaf(Literal::Str(1), vec![string_field(3)])],
                note: None,
                form: Form::Internal,
            },
            defs: vec![],
        }
    }

    #[test]
    fn pydantic_writes_a_nested_union_as_pydantic_2_does() {
        let schema = render_form(&pets(), Dialect::Pydantic).unwrap_or_default();
        // What Pydantic 2.13 writes for `TypeAdapter(Pet).json_schema()`, names replaced: the
        // inner union inline with its own mapping to its branches' definitions, and the outer
        // mapping sending "cat" to that inline union.
        let inner = json!({
            "discriminator": {
                "mapping": {"s2": "#/$defs/B0_0", "s3": "#/$defs/B0_1"},
                "propertyName": "op"
            },
            "oneOf": [{"$ref": "#/$defs/B0_0"}, {"$ref": "#/$defs/B0_1"}]
        });
        assert_eq!(
            schema["discriminator"],
            json!({"propertyName": "kind", "mapping": {"s0": inner, "s1": "#/$defs/B1"}})
        );
        assert_eq!(schema["oneOf"], json!([inner, {"$ref": "#/$defs/B1"}]));
        let black = &schema["$defs"]["B0_0"];
        let names: Vec<&String> = black["properties"]
            .as_object()
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        assert_eq!(names, ["kind", "op", "value"]);
        assert_eq!(black["properties"]["kind"]["const"], "s0");
        assert_eq!(black["required"], json!(["kind", "op", "value"]));
        assert_eq!(black["title"], "B0_0");
        assert_eq!(
            schema["$defs"].as_object().map(|d| d.len()),
            Some(3),
            "{schema}"
        );
        assert_eq!(render_as(&pets(), Dialect::Pydantic), Some(schema));
    }

    #[test]
    fn zod_writes_a_nested_union_inline_and_zod_3_cannot() {
        let schema = render(&pets());
        let cat = &schema["oneOf"][0];
        assert_eq!(cat["oneOf"][1]["properties"]["kind"]["const"], "s0");
        assert_eq!(cat["oneOf"][1]["properties"]["op"]["const"], "s3");
        assert_eq!(cat["oneOf"][1]["required"], json!(["kind", "op", "data"]));
        assert!(cat.get("type").is_none());
        assert_eq!(schema["oneOf"][1]["required"], json!(["kind", "count"]));
        assert!(render_form(&pets(), Dialect::ZodToJsonSchema).is_none());
        assert!(render_form(&pets(), Dialect::Schemars).is_none());
        let enums = render_form(&pets(), Dialect::OneValueEnum).unwrap_or_default();
        assert_eq!(
            enums["oneOf"][0]["oneOf"][0]["properties"]["op"],
            json!({"type": "string", "enum": ["s2"]})
        );
    }

    fn with_form(form: Form, unit_second: bool) -> Case {
        let mut case = case();
        case.root.form = form;
        case.root.branches[1].unit = unit_second;
        if unit_second {
            case.root.branches[1].fields.clear();
        }
        case
    }

    #[test]
    fn externally_tagged_branches_are_one_key_objects_and_units_one_string_enum() {
        let schema = render(&with_form(Form::External, true));
        assert_eq!(
            schema["anyOf"][0],
            json!({"type": "string", "enum": ["N2"]}),
            "the units first, as schemars groups them"
        );
        let s1 = &schema["anyOf"][1];
        assert_eq!(s1["required"], json!(["S1"]));
        assert_eq!(s1["additionalProperties"], json!(false));
        assert_eq!(s1["properties"]["S1"]["required"], json!(["value"]));
        assert!(s1["properties"]["S1"].get("additionalProperties").is_none());
        let schemars =
            render_form(&with_form(Form::External, false), Dialect::Schemars).unwrap_or_default();
        assert_eq!(schemars["oneOf"].as_array().map(Vec::len), Some(2));
        let pydantic =
            render_form(&with_form(Form::External, true), Dialect::Pydantic).unwrap_or_default();
        assert_eq!(
            pydantic["anyOf"],
            json!([{"type": "string", "enum": ["N2"]}, {"$ref": "#/$defs/B0"}])
        );
        assert!(pydantic.get("discriminator").is_none());
    }

    #[test]
    fn adjacently_tagged_branches_hold_the_payload_under_content() {
        let schema = render(&with_form(Form::Adjacent, true));
        let first = &schema["oneOf"][0];
        assert_eq!(first["required"], json!(["kind", "content"]));
        assert_eq!(first["properties"]["content"]["required"], json!(["value"]));
        assert_eq!(
            schema["oneOf"][1],
            json!({"type": "object", "properties": {"kind": {"type": "integer", "const": 2}},
                "required": ["kind"]}),
            "a unit variant has the tag alone"
        );
        let schemars =
            render_form(&with_form(Form::Adjacent, false), Dialect::Schemars).unwrap_or_default();
        let order: Vec<&String> = schemars["oneOf"][0]["properties"]
            .as_object()
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            order,
            ["content", "kind"],
            "schemars writes the content first"
        );
    }

    #[test]
    fn untagged_branches_are_any_of_objects_without_a_tag() {
        for dialect in DIALECTS {
            let schema =
                render_form(&with_form(Form::Untagged, false), dialect).unwrap_or_default();
            assert!(schema.get("oneOf").is_none(), "{}", dialect.name());
            let text = schema.to_string();
            assert!(!text.contains("\"kind\""), "{}: {text}", dialect.name());
            assert!(!text.contains("discriminator"), "{}", dialect.name());
        }
        let pydantic =
            render_form(&with_form(Form::Untagged, false), Dialect::Pydantic).unwrap_or_default();
        assert_eq!(pydantic["anyOf"][0], json!({"$ref": "#/$defs/B0"}));
    }

    #[test]
    fn the_dialect_invariance_compares_only_the_forms_the_core_must_treat_alike() {
        // Joined at the root, every form.
        let external = with_form(Form::External, false);
        for dialect in DIALECTS {
            assert!(
                render_as(&external, dialect).is_some(),
                "{}",
                dialect.name()
            );
        }
        // A root with a unit variant stays a union: Pydantic's branches stay behind `$ref`.
        let units = with_form(Form::External, true);
        assert!(render_as(&units, Dialect::Pydantic).is_none());
        assert!(render_form(&units, Dialect::Pydantic).is_some());
        assert!(render_as(&units, Dialect::Schemars).is_some());
        // And with a union below it, a `oneOf` that stays (schemars) leaves that union as it
        // is, an `anyOf` (Zod) joins it: those forms may rightly differ.
        let below = Field {
            name: Name(2),
            shape: Shape::Union(Box::new(case().root)),
            required: false,
            note: None,
        };
        let mut holding = units.clone();
        holding.root.branches[0].fields.push(below.clone());
        assert!(render_as(&holding, Dialect::Schemars).is_none());
        assert!(render_form(&holding, Dialect::Schemars).is_some());
        assert!(render_as(&holding, Dialect::ZodToJsonSchema).is_some());
        let mut joined = external.clone();
        joined.root.branches[0].fields.push(below);
        assert!(
            render_as(&joined, Dialect::Schemars).is_some(),
            "joined at the root"
        );
        // The same union nested in a DU's field stays (no discriminator): every form but the one
        // that writes it as a `oneOf`.
        let mut nested = case();
        nested.root.branches[0].fields.push(Field {
            name: Name(2),
            shape: Shape::Union(Box::new(joined.root)),
            required: false,
            note: None,
        });
        for dialect in [
            Dialect::ZodToJsonSchema,
            Dialect::Pydantic,
            Dialect::OneValueEnum,
        ] {
            assert!(render_as(&nested, dialect).is_some(), "{}", dialect.name());
        }
        let mut open = nested.clone();
        for b in &mut open.root.branches {
            b.policy = Policy::Open;
        }
        assert!(render_form(&open, Dialect::Schemars).is_some());
        assert!(
            render_as(&open, Dialect::Schemars).is_none(),
            "a oneOf below"
        );
    }
}
