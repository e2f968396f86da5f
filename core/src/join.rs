//! The join of one property across the branches that define it (SPEC §3), and of the
//! discriminator (SPEC §2.3).

use std::borrow::{Borrow, Cow};

use crate::fasthash::{FastMap, FastSet};

use serde_json::{Map, Value};

use crate::canonical::{self, JoinDigests, KeyOptions, literal_key};
use crate::draft::Draft;
use crate::identify::Branch;
use crate::keywords;
use crate::kinds::{Kind, Kinds, kinds_in};
use crate::widen::{self, WidenFaults};

/// Faults that change the join (all off in a correct build).
#[derive(Clone, Copy, Default)]
pub(crate) struct JoinFaults {
    pub first_wins: bool,
    pub legacy_widen: bool,
    pub no_dedup: bool,
    pub annotation_names: bool,
    pub enum_first_branch: bool,
    pub widen: WidenFaults,
}

/// What the join needs to know about the union as a whole.
pub(crate) struct UnionContext<'a> {
    /// The discriminator's name (`None`: a union joined without one, SPEC §2.9).
    pub discriminator: Option<&'a str>,
    /// The union's branches: each one's discriminator literals, and its name in hints.
    pub branches: &'a [Branch],
    /// The original document (kinds resolve `$ref` against it).
    pub document: &'a Value,
    /// The draft the document is read by.
    pub draft: Draft,
    /// Injected faults.
    pub faults: JoinFaults,
    /// The joins of shared sites, by group (SPEC §6 decision 73): dedup reads a placeholder as
    /// its join.
    pub shared: Option<&'a dyn Fn(usize) -> Option<&'a Map<String, Value>>>,
    /// The projection's digests of those joins.
    pub joins: Option<&'a JoinDigests>,
    /// A `$ref` target's projection, by its pointer (SPEC §6 decision 88).
    pub projected: Option<&'a canonical::Projections<'a>>,
}

/// One branch's definition of a property.
pub(crate) struct Definition<'p> {
    /// Index of the branch.
    pub branch: usize,
    /// The projected schema: owned, or read where it stands in a projection other readers keep
    /// (a `$ref` target's), and copied only where the join writes it out.
    pub schema: Cow<'p, Value>,
    /// Whether that branch requires the property.
    pub required: bool,
}

/// One alternative of a property's join: a schema, owned or read where it stands, and whether
/// its own top-level `title` and `description` are still on it (a definition read where it
/// stands: they belong to the joined property, [`hoist`], and are left out where it is written).
struct Alternative<'p> {
    schema: Cow<'p, Value>,
    annotated: bool,
}

impl Borrow<Value> for Alternative<'_> {
    fn borrow(&self) -> &Value {
        &self.schema
    }
}

impl<'p> Alternative<'p> {
    fn owned(schema: Value) -> Self {
        Alternative {
            schema: Cow::Owned(schema),
            annotated: false,
        }
    }

    /// A definition's top-level `title` and `description`, and the definition as an
    /// alternative without them. Deduplication, kinds and widening never read a schema's own
    /// annotations (the digest leaves them out), so a definition read where it stands is copied
    /// only if it is written out ([`Alternative::written`]).
    fn hoisted(schema: Cow<'p, Value>) -> (Option<Value>, Option<String>, Self) {
        match schema {
            Cow::Owned(mut schema) => {
                let (title, description) = hoist(&mut schema);
                (title, description, Alternative::owned(schema))
            }
            Cow::Borrowed(schema) => {
                let (title, description) = annotations(schema);
                let annotated = title.is_some() || description.is_some();
                let alternative = Alternative {
                    schema: Cow::Borrowed(schema),
                    annotated,
                };
                (title, description, alternative)
            }
        }
    }

    /// The alternative as the join writes it: owned, its annotations left out as [`hoist`]
    /// leaves them out.
    fn written(self) -> Value {
        let mut schema = self.schema.into_owned();
        if self.annotated {
            hoist(&mut schema);
        }
        schema
    }
}

impl UnionContext<'_> {
    /// Writes `"a"`, `"a" or "b"`, `"a", "b" or "c"`: the literals of the given branches.
    fn write_values_of(&self, out: &mut String, branches: &[usize]) {
        // The common case, one branch with one literal, without a set or a list.
        if let [b] = branches
            && let [v] = &*self.branches[*b].literals
        {
            write_json(out, v);
            return;
        }
        // Literals equal by value are listed once. A string's key is the string itself (its
        // `literal_key` is it quoted, and no other kind's key is a quoted string), so the usual
        // string literals are compared without a key of their own.
        #[derive(PartialEq, Eq, Hash)]
        enum Seen<'v> {
            Text(&'v str),
            Other(String),
        }
        fn seen_as(v: &Value) -> Seen<'_> {
            match v {
                Value::String(s) => Seen::Text(s),
                other => Seen::Other(literal_key(other)),
            }
        }
        let all = || {
            branches
                .iter()
                .flat_map(|&b| self.branches[b].literals.iter())
        };
        // A few literals are compared with those listed before them, without a set.
        let listed: Vec<&Value> = if all().count() <= SCAN_LITERALS {
            let mut seen: Vec<Seen<'_>> = Vec::with_capacity(SCAN_LITERALS);
            all()
                .filter(|v| {
                    let key = seen_as(v);
                    let new = !seen.contains(&key);
                    if new {
                        seen.push(key);
                    }
                    new
                })
                .collect()
        } else {
            let mut seen = FastSet::default();
            all().filter(|v| seen.insert(seen_as(v))).collect()
        };
        write_or_list(out, listed.len(), |out, i| write_json(out, listed[i]));
    }

    /// Writes `kind is "a"`; without a discriminator (SPEC §2.9), `the value has the form
    /// "Circle"` or `the value has the form 1 or 2`.
    fn write_when(&self, out: &mut String, branches: &[usize]) {
        match self.discriminator {
            Some(d) => {
                out.push_str(d);
                out.push_str(" is ");
                self.write_values_of(out, branches);
            }
            None => {
                out.push_str("the value has the form ");
                write_or_list(out, branches.len(), |out, i| {
                    out.push_str(&self.branches[branches[i]].label);
                });
            }
        }
    }
}

/// Up to this many literals, [`UnionContext::write_values_of`] finds repeats by a scan.
const SCAN_LITERALS: usize = 16;

/// Room for one hint (`Only used when kind is "a" or "b".`) in a description written out.
const HINT_ROOM: usize = 64;

/// Writes `n` items as `a`, `a or b`, `a, b or c`.
fn write_or_list(out: &mut String, n: usize, mut item: impl FnMut(&mut String, usize)) {
    for i in 0..n {
        if i > 0 {
            out.push_str(if i + 1 == n { " or " } else { ", " });
        }
        item(out, i);
    }
}

/// Writes a value as compact JSON text (what `serde_json::to_string` writes).
fn write_json(out: &mut String, value: &Value) {
    use std::fmt::Write as _;
    match value {
        Value::String(s) => write_json_str(out, s),
        // Writing into a `String` cannot fail.
        _ => {
            let _ = write!(out, "{value}");
        }
    }
}

/// Writes a string as compact JSON text. The usual literal, printable ASCII with nothing to
/// escape, is what `serde_json` writes it as: the text between quotes, without the formatter.
fn write_json_str(out: &mut String, s: &str) {
    if !canonical::push_plain_quoted(out, s) {
        out.push_str(&Value::from(s).to_string());
    }
}

/// The top-level `title` and `description` [`hoist`] would remove from a schema, read in place.
fn annotations(schema: &Value) -> (Option<Value>, Option<String>) {
    let Value::Object(map) = schema else {
        return (None, None);
    };
    let title = keywords::get(map, "title").cloned();
    let description = match keywords::get(map, "description") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    (title, description)
}

/// Removes the top-level `title` and `description` of a schema, returning them.
fn hoist(schema: &mut Value) -> (Option<Value>, Option<String>) {
    match schema {
        Value::Object(map) => {
            // The map's own lookups hash with SipHash; most definitions have neither keyword,
            // which `keywords::has` tells by a scan.
            let title = if keywords::has(map, "title") {
                map.remove("title")
            } else {
                None
            };
            if !keywords::has(map, "description") {
                return (title, None);
            }
            let description = match map.remove("description") {
                Some(Value::String(s)) => Some(s),
                Some(other) => {
                    // A non-string description is not ours to interpret; keep it in place.
                    map.insert("description".into(), other);
                    None
                }
                None => None,
            };
            (title, description)
        }
        _ => (None, None),
    }
}

/// Writes `text` as a sentence: trailing space trimmed, a full stop added unless it ends with
/// one (or `!`, `?`, `:`) or is empty.
fn write_sentence(out: &mut String, text: &str) {
    let t = text.trim_end();
    out.push_str(t);
    if !(t.ends_with(['.', '!', '?', ':']) || t.is_empty()) {
        out.push('.');
    }
}

/// The joined description: the shared text when every definition agrees, else each distinct text
/// prefixed by the discriminator values it belongs to.
fn joined_description(ctx: &UnionContext<'_>, texts: &[(usize, Option<String>)]) -> Option<String> {
    let first = texts.first()?;
    if first.1.is_some() && texts.iter().all(|t| t.1 == first.1) {
        return first.1.clone();
    }
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut index: FastMap<&str, usize> = FastMap::default();
    for (branch, text) in texts {
        let Some(text) = text else { continue };
        match index.get(text.as_str()) {
            Some(&i) => groups[i].1.push(*branch),
            None => {
                index.insert(text, groups.len());
                groups.push((text, vec![*branch]));
            }
        }
    }
    if groups.is_empty() {
        return None;
    }
    // One text written in place: `When kind is "a": …. When kind is "b": ….` (allocated once,
    // at about its length).
    let texts_len: usize = groups.iter().map(|(t, _)| t.len() + HINT_ROOM).sum();
    let mut out = String::with_capacity(texts_len);
    for (i, (text, branches)) in groups.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str("When ");
        ctx.write_when(&mut out, branches);
        out.push_str(": ");
        write_sentence(&mut out, text);
    }
    Some(out)
}

/// Whether a schema is a pure `anyOf`/`oneOf` wrapper ([`keywords::wrapper_members`]).
fn wrapper_members(schema: &Value) -> Option<&Vec<Value>> {
    keywords::wrapper_members(schema.as_object()?)
}

/// Adds `alternative` to `out`, or, where it is a pure wrapper, its members (read where they
/// stand when it is); `false` accepts nothing and is left out (SPEC §3.3). A reference the
/// presentation reads as the projection of its target, a pure wrapper that does not lead back
/// to itself, is that wrapper (SPEC §6 decision 88): its members are copied out of the
/// projection.
fn expand_wrappers<'p>(
    alternative: Alternative<'p>,
    out: &mut Vec<Alternative<'p>>,
    depth: usize,
    behind: &KeyOptions<'_>,
) {
    if depth < 32 {
        if let Some(members) =
            canonical::expandable_projection(&alternative.schema, behind).and_then(wrapper_members)
        {
            for m in members {
                expand_wrappers(Alternative::owned(m.clone()), out, depth + 1, behind);
            }
            return;
        }
        if let Cow::Borrowed(schema) = &alternative.schema {
            let schema: &'p Value = schema;
            if let Some(members) = wrapper_members(schema) {
                for m in members {
                    let member = Alternative {
                        schema: Cow::Borrowed(m),
                        annotated: false,
                    };
                    expand_wrappers(member, out, depth + 1, behind);
                }
                return;
            }
        } else if let Some(members) = wrapper_members(&alternative.schema) {
            for m in members.clone() {
                expand_wrappers(Alternative::owned(m), out, depth + 1, behind);
            }
            return;
        }
    }
    if *alternative.schema != Value::Bool(false) {
        out.push(alternative);
    }
}

/// Puts `title` and `description` first in a joined property.
fn with_annotations(schema: Value, title: Option<Value>, description: Option<String>) -> Value {
    if title.is_none() && description.is_none() {
        return schema;
    }
    let mut body = match schema {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other => return other,
    };
    let mut at = 0;
    if let Some(t) = title {
        body.shift_insert(at, "title".into(), t);
        at += 1;
    }
    if let Some(d) = description {
        body.shift_insert(at, "description".into(), Value::String(d));
    }
    Value::Object(body)
}

/// Joins the definitions of property `name` (SPEC §3). `extra` holds what open branches that do
/// not declare it accept under an undeclared key (permissive reading only); `required_by_all`
/// tells whether the flat object requires it; `branch_count` is the number of branches.
pub(crate) fn join_property(
    ctx: &UnionContext<'_>,
    definitions: Vec<Definition<'_>>,
    extra: Vec<Value>,
    required_by_all: bool,
    branch_count: usize,
) -> Value {
    let mut titles: Vec<Option<Value>> = Vec::with_capacity(definitions.len());
    let mut texts: Vec<(usize, Option<String>)> = Vec::with_capacity(definitions.len());
    let mut alternatives: Vec<Alternative<'_>> =
        Vec::with_capacity(definitions.len() + extra.len());
    let mut defining: Vec<usize> = Vec::new();
    let mut requiring: Vec<usize> = Vec::new();
    let key_options = KeyOptions {
        strip_annotation_names: ctx.faults.annotation_names,
        draft: ctx.draft,
        shared: ctx.shared,
        joins: ctx.joins,
        document: Some(ctx.document),
        projected: ctx.projected,
    };
    for d in definitions {
        let (title, text, alternative) = Alternative::hoisted(d.schema);
        titles.push(title);
        texts.push((d.branch, text));
        if *alternative.schema != Value::Bool(false) {
            defining.push(d.branch);
            if d.required {
                requiring.push(d.branch);
            }
        }
        expand_wrappers(alternative, &mut alternatives, 0, &key_options);
    }
    for e in extra {
        expand_wrappers(Alternative::owned(e), &mut alternatives, 0, &key_options);
    }
    let title = match titles.first() {
        Some(Some(t)) if titles.iter().all(|x| x.as_ref() == Some(t)) => Some(t.clone()),
        _ => None,
    };
    let mut description = joined_description(ctx, &texts);
    let partial = defining.len() < branch_count && !defining.is_empty();
    let conditional = !required_by_all && !requiring.is_empty();
    let both = partial && conditional && requiring == defining;
    if partial || conditional {
        // The description as a sentence, then the hints, each part after a space (allocated
        // once, at about its length).
        let room = description.as_ref().map_or(0, String::len) + 2 * HINT_ROOM;
        let mut text = String::with_capacity(room);
        let mut parts = 0;
        let mut part = |text: &mut String| {
            if parts > 0 {
                text.push(' ');
            }
            parts += 1;
        };
        if let Some(d) = &description {
            part(&mut text);
            write_sentence(&mut text, d);
        }
        let mut hint = |text: &mut String, lead: &str, branches: &[usize]| {
            part(text);
            text.push_str(lead);
            ctx.write_when(text, branches);
            text.push('.');
        };
        if both {
            hint(&mut text, "Only used, and then required, when ", &defining);
        } else {
            if partial {
                hint(&mut text, "Only used when ", &defining);
            }
            if conditional {
                hint(&mut text, "Required when ", &requiring);
            }
        }
        description = Some(text);
    }
    if ctx.faults.first_wins {
        alternatives.truncate(1);
    }
    if !ctx.faults.no_dedup {
        alternatives = canonical::dedup_with(alternatives, key_options);
    }
    let joined = classify(ctx, alternatives);
    with_annotations(joined, title, description)
}

/// SPEC §3.5: unprovable → `{}`; object or array kinds → the alternative or an `anyOf`; scalars →
/// one widened schema.
///
/// An alternative whose kinds are empty (`allOf: [false]`, `allOf: [{"type": "string"}, {"type":
/// "integer"}]`) accepts nothing, like `false`: it is removed as §3.3 removes `false` (SPEC §6
/// decision 24), so widening never writes an empty `type` list; when nothing is left the join is
/// `false`.
fn classify(ctx: &UnionContext<'_>, alternatives: Vec<Alternative<'_>>) -> Value {
    let (alternatives, kinds): (Vec<Alternative<'_>>, Vec<Kinds>) = alternatives
        .into_iter()
        .map(|a| {
            let k = kinds_in(&a.schema, ctx.document, ctx.draft);
            (a, k)
        })
        .filter(|(_, k)| !k.is_empty())
        .unzip();
    if alternatives.is_empty() {
        return ctx.draft.false_schema();
    }
    if kinds.iter().any(|k| k.is_unprovable()) {
        return Value::Object(Map::new());
    }
    let structural = kinds
        .iter()
        .any(|k| k.contains(Kind::Object) || k.contains(Kind::Array));
    if structural {
        if alternatives.len() == 1 {
            return alternatives
                .into_iter()
                .next()
                .map_or(Value::Bool(true), Alternative::written);
        }
        if ctx.faults.legacy_widen {
            let union = kinds.iter().fold(Kinds::NONE, |acc, k| acc.union(*k));
            let pairs = vec![(Value::Object(Map::new()), union)];
            return Value::Object(widen::widen(&pairs, WidenFaults::default(), ctx.draft));
        }
        let mut out = Map::new();
        let written = alternatives.into_iter().map(Alternative::written).collect();
        out.insert("anyOf".into(), Value::Array(written));
        return Value::Object(out);
    }
    // Up to draft-07 the siblings of a `$ref` are ignored, so they must not survive as bounds.
    // Widening reads the alternatives where they stand.
    let legacy = ctx.draft.ref_overrides_siblings();
    let empty = Value::Object(Map::new());
    let pairs: Vec<(&Value, Kinds)> = alternatives
        .iter()
        .map(|a| match &*a.schema {
            Value::Object(m) if legacy && m.contains_key("$ref") => &empty,
            other => other,
        })
        .zip(kinds)
        .collect();
    Value::Object(widen::widen(&pairs, ctx.faults.widen, ctx.draft))
}

/// The discriminator's joined schema (SPEC §2.3): `{"type": T, "enum": [literals]}`, with the
/// definitions' descriptions hoisted as for any property.
///
/// `branch_texts` are the branches' own descriptions: when no definition of the discriminator has
/// a description, they describe its values instead (a model reads what each value is for there).
pub(crate) fn join_discriminator(
    ctx: &UnionContext<'_>,
    definitions: Vec<Definition<'_>>,
    branch_texts: Vec<(usize, Option<String>)>,
) -> Value {
    let mut titles = Vec::new();
    let mut texts = Vec::new();
    for d in definitions {
        let (title, text, _) = Alternative::hoisted(d.schema);
        titles.push(title);
        texts.push((d.branch, text));
    }
    if texts.iter().all(|(_, t)| t.is_none()) {
        texts = branch_texts;
    }
    let mut seen = FastSet::default();
    let take = if ctx.faults.enum_first_branch {
        1
    } else {
        ctx.branches.len()
    };
    let values: Vec<Value> = ctx
        .branches
        .iter()
        .take(take)
        .flat_map(|b| b.literals.iter())
        .filter(|v| seen.insert(literal_key(v)))
        .cloned()
        .collect();
    let pairs = vec![(
        Value::Object(Map::new()),
        Kinds::of_literals_in(&values, ctx.draft),
    )];
    let mut out = widen::widen(&pairs, WidenFaults::default(), ctx.draft);
    out.insert("enum".into(), Value::Array(values));
    let title = match titles.first() {
        Some(Some(t)) if titles.iter().all(|x| x.as_ref() == Some(t)) => Some(t.clone()),
        _ => None,
    };
    with_annotations(Value::Object(out), title, joined_description(ctx, &texts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A literal is written as `serde_json` writes it, with or without the formatter.
    #[test]
    fn literals_are_written_as_serde_json_writes_them() {
        let values = [
            json!(""),
            json!("plain text ~ with spaces"),
            json!("quote \" inside"),
            json!("back\\slash"),
            json!("tab\tand newline\n"),
            json!("\u{7f} delete"),
            json!("\u{1} control"),
            json!("é and 💡"),
            json!("</script>"),
            json!(1.5),
            json!(-3),
            json!(null),
            json!(true),
            json!(["a", 1]),
            json!({"k": "v"}),
        ];
        for v in values {
            let mut out = String::from("x");
            write_json(&mut out, &v);
            let expected = format!("x{}", serde_json::to_string(&v).expect("printable"));
            assert_eq!(out, expected, "{v}");
        }
    }
}
