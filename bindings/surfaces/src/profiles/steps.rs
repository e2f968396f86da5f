//! Lowering steps and lint checks shared by several profiles. Each step is one small function
//! named for what it does; a profile's `lower` is an ordered list of them (after schemars'
//! transform presets). Every step says whether it is sound or records its narrowing.

use serde_json::{Map, Value, json};

use super::{Findings, Inlined, Narrowing, Profile, walk, widen};

/// Provider rules for tool names. Sources: OpenAI function calling reference (`name`: a-z, A-Z,
/// 0-9, underscores and dashes, at most 64); Anthropic tool use (`^[a-zA-Z0-9_-]{1,64}$`); Gemini
/// `FunctionDeclaration.name` (letters, digits, underscores, dots, colons, dashes; at most 64;
/// starts with a letter or an underscore). MCP and Cursor take what the server sends.
pub fn check_tool_name(profile: Profile, tool: &str, findings: &mut Findings) {
    let (extra, provider): (&[char], &str) = match profile {
        Profile::Openai | Profile::OpenaiStrict => (&['_', '-'], "OpenAI"),
        Profile::Anthropic | Profile::AnthropicStrict => (&['_', '-'], "Anthropic"),
        Profile::Gemini => (&['_', '-', '.', ':'], "Gemini"),
        Profile::Mcp | Profile::Cursor => return,
    };
    let chars_ok = tool
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c));
    let len_ok = (1..=64).contains(&tool.chars().count());
    let start_ok = profile != Profile::Gemini
        || tool
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !(chars_ok && len_ok && start_ok) {
        findings.error(
            "",
            "tool-name",
            format!(
                "{provider}: invalid tool name {tool:?}: allowed are 1 to 64 of [a-zA-Z0-9{}]",
                extra.iter().collect::<String>()
            ),
            "none: rename the tool",
        );
    }
}

/// Rebuilds `map` with `old` renamed to `new` in place, keeping key order.
fn rename_key(map: &mut Map<String, Value>, old: &str, new: &str) {
    let taken = std::mem::take(map);
    for (k, v) in taken {
        if k == old {
            map.insert(new.to_owned(), v);
        } else {
            map.insert(k, v);
        }
    }
}

/// `oneOf` → `anyOf` everywhere. Sound: a value matching exactly one member matches at least one.
/// A node with both keeps its `anyOf` and moves the `oneOf` members into an `allOf` part.
pub fn one_of_to_any_of(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        let Value::Object(map) = node else { return };
        if !map.contains_key("oneOf") {
            return;
        }
        if map.contains_key("anyOf") {
            if let Some(members) = map.shift_remove("oneOf") {
                let part = json!({"anyOf": members});
                match map.get_mut("allOf") {
                    Some(Value::Array(all)) => all.push(part),
                    _ => {
                        map.insert("allOf".into(), json!([part]));
                    }
                }
            }
        } else {
            rename_key(map, "oneOf", "anyOf");
        }
    });
}

/// `allOf` → the sound merge of its parts (and of the node's own keywords), everywhere.
pub fn merge_all_of(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        let Value::Object(map) = node else { return };
        let Some(Value::Array(parts)) = map.shift_remove("allOf") else {
            return;
        };
        let mut all = vec![Value::Object(map.clone())];
        all.extend(parts);
        *node = widen::merge_all(&all);
    });
}

/// Every array schema gets an `items` schema: `{}` when it had none or only `prefixItems`, the
/// union of the tuple's members and `additionalItems` for a draft-07 tuple. Sound: `items: {}`
/// constrains nothing, and the union accepts every member's values.
pub fn add_missing_items(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        // A tuple is rewritten wherever it stands: beside a `type` without `array` it constrains
        // nothing, and a provider reading 2020-12 refuses `items` as an array anyway.
        let tuple = node.get("items").is_some_and(Value::is_array);
        if !walk::is_array_schema(node) && !tuple {
            return;
        }
        let Value::Object(map) = node else { return };
        match map.get("items") {
            Some(Value::Object(_) | Value::Bool(_)) if !map.contains_key("prefixItems") => {}
            Some(Value::Array(tuple)) => {
                let mut members = tuple.clone();
                members.push(map.get("additionalItems").cloned().unwrap_or(json!({})));
                let items = if members.iter().any(is_unconstrained) {
                    json!({})
                } else {
                    json!({"anyOf": members})
                };
                map.shift_remove("additionalItems");
                map.insert("items".into(), items);
            }
            _ => {
                map.shift_remove("prefixItems");
                map.insert("items".into(), json!({}));
            }
        }
    });
}

fn is_unconstrained(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(map) => map.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        _ => false,
    }
}

/// Keywords that never change what a schema accepts (SPEC §1): the core's list.
pub use flatjoin::keywords::ANNOTATIONS;

/// A root that is a local `$ref` (`{"$ref": "#/$defs/Node", "$defs": {..}}`, as Zod and Pydantic
/// write a recursive root) becomes a copy of its target, merged soundly with the root's other
/// keywords; `$defs`/`definitions` stay for the references inside. The same values: the root *is*
/// its target. Without this, typing and closing the root beside the `$ref` (`properties: {}`,
/// `additionalProperties: false`) would accept no value at all, and strict SDKs refuse a `$ref`
/// with such siblings.
fn resolve_root_ref(schema: &mut Value) {
    for _ in 0..MAX_INLINE_DEPTH {
        let Value::Object(map) = &*schema else { return };
        let Some(Value::String(reference)) = map.get("$ref") else {
            return;
        };
        if reference == "#" {
            return;
        }
        let Some(target) = walk::resolve(schema, reference).cloned() else {
            return;
        };
        let Value::Object(map) = &mut *schema else {
            return;
        };
        map.shift_remove("$ref");
        let defs: Vec<(String, Value)> = ["$defs", "definitions"]
            .iter()
            .filter_map(|k| map.shift_remove(*k).map(|v| ((*k).to_owned(), v)))
            .collect();
        let rest = std::mem::take(map);
        let only_annotations = rest.keys().all(|k| ANNOTATIONS.contains(&k.as_str()));
        let mut merged = if only_annotations {
            let mut t = target;
            if let Value::Object(t) = &mut t {
                t.extend(rest);
            }
            t
        } else {
            widen::merge_all(&[Value::Object(rest), target])
        };
        if let Value::Object(m) = &mut merged {
            for (k, v) in defs {
                m.entry(k).or_insert(v);
            }
        }
        *schema = merged;
    }
}

/// Makes the root a `type: "object"` schema: a union left at the root (one that was not a
/// discriminated union, so the join kept it) becomes its conservative widening (sound); a root
/// without `type` or with other types besides `object` is restricted to objects, which is listed
/// as a narrowing (tool arguments are always a JSON object, so no real call is lost).
pub fn ensure_root_object(schema: &mut Value, narrowings: &mut Vec<Narrowing>) {
    if let Value::Bool(_) = schema {
        *schema = json!({"type": "object"});
        narrowings.push(Narrowing {
            pointer: String::new(),
            rule: "root-object",
            detail: "a boolean root schema became {\"type\": \"object\"}: non-object values no longer pass (tool arguments are always objects)".into(),
        });
        return;
    }
    resolve_root_ref(schema);
    widen::lower_compositions(schema, true);
    let Value::Object(map) = schema else { return };
    let types = match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    if types == ["object"] {
        return;
    }
    if types.is_empty() || types.iter().any(|t| t == "object") {
        let had = map.get("type").cloned();
        map.insert("type".into(), json!("object"));
        narrowings.push(Narrowing {
            pointer: String::new(),
            rule: "root-object",
            detail: format!(
                "root type {} became \"object\": non-object values no longer pass (tool arguments are always objects)",
                had.map_or_else(|| "(none)".to_owned(), |t| t.to_string())
            ),
        });
    }
}

/// Closes every object schema (`additionalProperties: false`, `properties` present). A narrowing
/// wherever the object was open (a value with an undeclared key no longer passes): each one is
/// listed. `patternProperties` and a typed catch-all are dropped with it.
pub fn close_objects(schema: &mut Value, narrowings: &mut Vec<Narrowing>) {
    // The document as it stands before closing, for the members reached through a `$ref`.
    let before = schema.clone();
    walk::transform_bottom_up(schema, "", &mut |pointer, node| {
        if !walk::is_object_schema(node) {
            return;
        }
        let Value::Object(map) = node else { return };
        let open = map.get("additionalProperties") != Some(&Value::Bool(false))
            || map.contains_key("patternProperties")
            || map.contains_key("unevaluatedProperties");
        if open {
            let what = match map.get("additionalProperties") {
                Some(Value::Object(_)) => "a typed catch-all (map) was closed",
                _ if map.contains_key("patternProperties") => "patternProperties were closed",
                _ => "an open object was closed",
            };
            narrowings.push(Narrowing {
                pointer: pointer.to_owned(),
                rule: "closed-object",
                detail: format!("{what}: a value with an undeclared key no longer passes"),
            });
            map.shift_remove("patternProperties");
            map.shift_remove("unevaluatedProperties");
            map.insert("additionalProperties".into(), Value::Bool(false));
        }
        if !map.contains_key("properties") {
            map.insert("properties".into(), json!({}));
        }
        declare_member_names(map, &before);
        declare_node_names_on_members(map);
    });
}

/// The names a closed node declares, declared on each of its closed in-place members too (`{}`,
/// which constrains nothing there: the node's own `properties` still do): a member closed on its
/// own would reject a key its node declares beside it, and with it every value of that member.
fn declare_node_names_on_members(map: &mut Map<String, Value>) {
    let names: Vec<String> = match map.get("properties") {
        Some(Value::Object(props)) if !props.is_empty() => props.keys().cloned().collect(),
        _ => return,
    };
    for keyword in ["anyOf", "oneOf", "allOf"] {
        let Some(Value::Array(members)) = map.get_mut(keyword) else {
            continue;
        };
        for member in members {
            if member.get("additionalProperties") != Some(&Value::Bool(false)) {
                continue;
            }
            if let Some(Value::Object(props)) = member.get_mut("properties") {
                for name in &names {
                    props.entry(name.clone()).or_insert_with(|| json!({}));
                }
            }
        }
    }
}

/// The names a closed node's members (`anyOf`, `oneOf`, `allOf`, in place or through a local
/// `$ref` into `root`) declare, and the ones it requires, declared on the node itself (`{}`, which
/// constrains nothing): its `additionalProperties: false` covers only its own `properties`, so a
/// key a member declares (schemars' sibling `properties` beside a union, a branch written as a
/// definition) would otherwise be rejected by the node whatever the member says.
fn declare_member_names(map: &mut Map<String, Value>, root: &Value) {
    let mut names: Vec<String> = Vec::new();
    for keyword in ["anyOf", "oneOf", "allOf"] {
        for member in map
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            // A chain of references is followed a few steps (a cycle of references names nothing).
            let mut member = member;
            for _ in 0..8 {
                match member.get("$ref").and_then(Value::as_str) {
                    Some(reference) => match walk::resolve(root, reference) {
                        Some(target) => member = target,
                        None => break,
                    },
                    None => break,
                }
            }
            if let Some(props) = member.get("properties").and_then(Value::as_object) {
                names.extend(props.keys().cloned());
            }
        }
    }
    if let Some(required) = map.get("required").and_then(Value::as_array) {
        names.extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for name in names {
            props.entry(name).or_insert_with(|| json!({}));
        }
    }
}

/// Keeps only the keywords in `allowed` on every schema node (subschemas are reached through the
/// kept keywords only). Sound when `allowed` never keeps a keyword whose meaning depends on one it
/// drops: the callers convert `prefixItems` and `patternProperties` first.
pub fn retain_keywords(schema: &mut Value, allowed: &[&str]) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        if let Value::Object(map) = node {
            map.retain(|k, _| allowed.contains(&k.as_str()));
        }
    });
}

/// Lint: every keyword outside `allowed` is a finding.
pub fn check_keywords(
    schema: &Value,
    allowed: &[&str],
    provider: &str,
    fix: &str,
    findings: &mut Findings,
) {
    walk::visit(schema, "", &mut |pointer, node| {
        if let Value::Object(map) = node {
            for key in map.keys() {
                if !allowed.contains(&key.as_str()) {
                    findings.error(
                        pointer,
                        "unsupported-keyword",
                        format!("{provider}: keyword '{key}' is not supported"),
                        fix,
                    );
                }
            }
        }
    });
}

/// Lint: the root must be `type: "object"`.
pub fn check_root_object(schema: &Value, provider_says: &str, findings: &mut Findings) {
    if schema.get("type") != Some(&json!("object")) {
        let got = schema
            .get("type")
            .map_or_else(|| "None".to_owned(), Value::to_string);
        findings.error(
            "",
            "root-type-object",
            format!("{provider_says}: schema must be a JSON Schema of 'type: \"object\"', got 'type: {got}'"),
            "flatten the root union into one object (flat join), widen a remaining union, set type \"object\"",
        );
    }
}

/// Lint: composition keywords (`keys`) at the root.
pub fn check_root_composition(
    schema: &Value,
    keys: &[&str],
    provider_says: &str,
    findings: &mut Findings,
) {
    for key in keys {
        if schema.get(*key).is_some() {
            findings.error(
                "",
                "root-composition",
                format!("{provider_says}: input_schema does not support {key} at the top level"),
                "flatten the root union into one object (flat join), widen a remaining union",
            );
        }
    }
}

/// Lint: every array schema has an `items` schema.
pub fn check_array_items(schema: &Value, provider_says: &str, findings: &mut Findings) {
    walk::visit(schema, "", &mut |pointer, node| {
        if walk::is_array_schema(node)
            && !matches!(node.get("items"), Some(Value::Object(_) | Value::Bool(_)))
        {
            findings.error(
                pointer,
                "array-items",
                format!("{provider_says}: In context=({pointer}), array schema missing items"),
                "add \"items\": {} (accepts every element: sound)",
            );
        }
    });
}

/// Lint: a composition keyword anywhere.
pub fn check_keyword_anywhere(
    schema: &Value,
    key: &str,
    rule: &'static str,
    message: &str,
    fix: &str,
    findings: &mut Findings,
) {
    walk::visit(schema, "", &mut |pointer, node| {
        if node.get(key).is_some() {
            findings.error(pointer, rule, message.to_owned(), fix);
        }
    });
}

/// Lint: objects must be closed (`additionalProperties: false`).
pub fn check_closed_objects(schema: &Value, provider_says: &str, findings: &mut Findings) {
    walk::visit(schema, "", &mut |pointer, node| {
        if walk::is_object_schema(node)
            && node.get("additionalProperties") != Some(&Value::Bool(false))
        {
            findings.error(
                pointer,
                "additional-properties-false",
                format!("{provider_says}: 'additionalProperties' is required to be supplied and to be false"),
                "set additionalProperties: false (narrowing: undeclared keys no longer pass)",
            );
        }
    });
}

/// Finds local `$ref`s that are part of a cycle (reachable from their own target).
pub fn recursive_refs(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk::visit(schema, "", &mut |pointer, node| {
        if let Some(Value::String(reference)) = node.get("$ref")
            && reaches(schema, reference, reference, &mut Vec::new())
        {
            out.push((pointer.to_owned(), reference.clone()));
        }
    });
    out
}

/// Whether the subschema at `from` (a `#...` reference) contains a `$ref` to `target`, directly
/// or through other references.
fn reaches(root: &Value, from: &str, target: &str, seen: &mut Vec<String>) -> bool {
    if seen.iter().any(|s| s == from) {
        return false;
    }
    seen.push(from.to_owned());
    let Some(node) = walk::resolve(root, from) else {
        return false;
    };
    let mut found = false;
    walk::visit(node, "", &mut |_, n| {
        if found {
            return;
        }
        if let Some(Value::String(r)) = n.get("$ref") {
            if r == target {
                found = true;
            } else if r.starts_with('#') {
                found = reaches(root, r, target, seen);
            }
        }
    });
    found
}

/// Inlines every local `$ref` that is not part of a cycle (its siblings merged soundly with the
/// target); a recursive reference stays, and so do `$defs`/`definitions` while one does. Sound:
/// the inlined schema is the referenced one. Records in `inlined` each root definition copied
/// into two or more places, and each union the join wrote once for sharing (SPEC §6 decision 73),
/// which this undoes. Returns the recursive references left.
pub fn inline_refs(schema: &mut Value, inlined: &mut Vec<Inlined>) -> Vec<(String, String)> {
    let recursive = recursive_refs(schema);
    let root = schema.clone();
    let recursive_targets: Vec<String> = recursive.iter().map(|(_, r)| r.clone()).collect();
    let mut inliner = Inliner {
        root: &root,
        recursive: &recursive_targets,
        copies: Vec::new(),
        index: std::collections::HashMap::new(),
    };
    inliner.node(schema, 0);
    report_copies(&root, &inliner.copies, inlined);
    let left = recursive_refs(schema);
    let mut any_ref = false;
    walk::visit(schema, "", &mut |pointer, node| {
        let in_defs = pointer.starts_with("/$defs") || pointer.starts_with("/definitions");
        any_ref |= !in_defs && node.get("$ref").is_some();
    });
    if !any_ref && let Value::Object(map) = schema {
        map.shift_remove("$defs");
        map.shift_remove("definitions");
    }
    left
}

/// Inlining depth past which a reference is left as it is (a guard against exponential growth).
const MAX_INLINE_DEPTH: usize = 32;

/// The state of [`inline_refs`]: the schema before inlining, the recursive references (left as
/// they are), and how many copies of each reference's target were made (in the order first made,
/// with each reference's place in that list).
struct Inliner<'a> {
    root: &'a Value,
    recursive: &'a [String],
    copies: Vec<(String, usize)>,
    index: std::collections::HashMap<String, usize>,
}

impl Inliner<'_> {
    fn node(&mut self, node: &mut Value, depth: usize) {
        if depth > MAX_INLINE_DEPTH {
            return;
        }
        let target = match node.get("$ref") {
            Some(Value::String(r)) if !self.recursive.contains(r) => {
                walk::resolve(self.root, r).cloned().map(|t| (r.clone(), t))
            }
            _ => None,
        };
        if let (Some((reference, mut target)), Value::Object(map)) = (target, &mut *node) {
            let mut rest = map.clone();
            rest.shift_remove("$ref");
            self.count(reference);
            self.node(&mut target, depth + 1);
            if rest.is_empty() {
                *node = target;
            } else {
                let mut siblings = Value::Object(rest);
                self.node(&mut siblings, depth + 1);
                *node = widen::merge_all(&[siblings, target]);
            }
            return;
        }
        walk::for_each_child_mut(node, &mut |suffix, child| {
            if suffix.starts_with("/$defs") || suffix.starts_with("/definitions") {
                return;
            }
            self.node(child, depth);
        });
    }

    fn count(&mut self, reference: String) {
        match self.index.get(&reference) {
            Some(&i) => self.copies[i].1 += 1,
            None => {
                self.index.insert(reference.clone(), self.copies.len());
                self.copies.push((reference, 1));
            }
        }
    }
}

/// `n` and `noun`, plural unless `n` is 1.
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Whether `name` is one the join gives a flattened union it writes once for its sites
/// (`flatjoin_union_N`, N from 1: SPEC §6 decision 73).
pub fn is_shared_union_name(name: &str) -> bool {
    name.strip_prefix("flatjoin_union_").is_some_and(|n| {
        !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The [`Inlined`] records of one inlining: `copies` counts the copies made of each reference's
/// target, `root` is the schema before inlining (whose `$ref`s are the sites). Listed: a root
/// definition copied into two or more places, and a shared union copied at all.
fn report_copies(root: &Value, copies: &[(String, usize)], inlined: &mut Vec<Inlined>) {
    let mut sites: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    walk::visit(root, "", &mut |_, node| {
        if let Some(Value::String(r)) = node.get("$ref") {
            *sites.entry(r.clone()).or_default() += 1;
        }
    });
    for (reference, copies) in copies {
        let Some(name) = ["#/$defs/", "#/definitions/"]
            .iter()
            .find_map(|prefix| reference.strip_prefix(prefix))
            .filter(|name| !name.contains('/'))
        else {
            continue;
        };
        let shared = is_shared_union_name(name);
        if *copies < 2 && !shared {
            continue;
        }
        let bytes = walk::resolve(root, reference)
            .and_then(|t| serde_json::to_string(t).ok())
            .map_or(0, |t| t.len());
        let sites = sites.get(reference).copied().unwrap_or(0);
        let (rule, what) = if shared {
            let sites = counted(sites, "site");
            let what =
                format!("the union the flat join wrote once for its {sites} (SPEC §6 decision 73)");
            ("shared-union", what)
        } else {
            let sites = counted(sites, "place");
            (
                "shared-definition",
                format!("a definition referenced from {sites}"),
            )
        };
        let detail = format!(
            "{what} is copied into {}, as this profile takes no $ref: {bytes} minified bytes each, {} in all",
            counted(*copies, "place"),
            copies * bytes
        );
        inlined.push(Inlined {
            definition: reference.trim_start_matches('#').to_owned(),
            rule,
            sites,
            copies: *copies,
            bytes,
            detail,
        });
    }
}

/// Draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` (still emitted by some generators under
/// a newer `$schema`, where they are invalid) rewritten in the 2019-09+ form: `minimum: m,
/// exclusiveMinimum: true` → `exclusiveMinimum: m`; a `false` flag is dropped. The draft-04 meaning
/// is kept exactly.
pub fn modernize_exclusive_bounds(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        if let Value::Object(map) = node {
            modernize_bounds(map);
        }
    });
}

fn modernize_bounds(map: &mut Map<String, Value>) {
    for (exclusive, inclusive) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(Value::Bool(flag)) = map.get(exclusive).cloned() {
            map.shift_remove(exclusive);
            if flag && let Some(bound) = map.shift_remove(inclusive) {
                map.insert(exclusive.into(), bound);
            }
        }
    }
}

/// The keywords under which accepting more can make a schema accept less: `not` and the
/// conditionals (a looser `if` picks `then` for more values), `maxContains` (more matching items
/// can exceed it) and `unevaluatedProperties`/`unevaluatedItems` (a sibling subschema that
/// evaluates less — a widened union, a dropped keyword — leaves more unevaluated). `oneOf` is
/// the other such keyword (a looser member can match beside another); it becomes `anyOf`.
pub const NOT_MONOTONE: [&str; 7] = [
    "not",
    "if",
    "then",
    "else",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// The presentation in positive form (SPEC §6 decision 90), the first lowering step of every
/// profile: every keyword of [`NOT_MONOTONE`] is dropped, wherever it stands, and every `oneOf`
/// becomes an `anyOf` (beside an `anyOf`, one more `allOf` member). Sound — each only restricts
/// where it stands, so dropping it (or `oneOf`'s "only one") accepts the same values or more — and it is what
/// makes every later step sound: those loosen (a `false` subschema written `{}`, a format or a
/// keyword the provider does not take dropped, a union widened), which is sound only where
/// accepting more below a node makes the node accept more. With these keywords gone that holds
/// at every node, through every `$ref` (`{"not": {"$ref": "#"}}` made the whole document such a
/// place). What they asserted stays with the original schema, which keeps runtime validation
/// (ADR 0205).
pub fn positive_form(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        let Value::Object(map) = node else { return };
        map.retain(|k, _| !NOT_MONOTONE.contains(&k.as_str()));
        let Some(members) = map.shift_remove("oneOf") else {
            return;
        };
        if !map.contains_key("anyOf") {
            map.insert("anyOf".into(), members);
        } else if let Some(Value::Array(all)) = map.get_mut("allOf") {
            all.push(json!({"anyOf": members}));
        } else {
            map.insert("allOf".into(), json!([{"anyOf": members}]));
        }
    });
}

/// Whether `draft` reads `keyword` as a keyword rather than as data: the subschema keywords by
/// the core's table ([`flatjoin::Draft::knows`]), and the assertion and reference keywords a draft
/// added without subschemas beside them.
fn reads(draft: flatjoin::Draft, keyword: &str) -> bool {
    use flatjoin::Draft;
    match keyword {
        "const" => draft >= Draft::Draft6,
        "dependentRequired" | "minContains" | "maxContains" | "$anchor" => {
            draft >= Draft::Draft201909
        }
        "$recursiveRef" | "$recursiveAnchor" => draft == Draft::Draft201909,
        "$dynamicRef" | "$dynamicAnchor" => draft == Draft::Draft202012,
        _ => draft.knows(keyword),
    }
}

/// What a `$ref` keeps beside it where its draft (up to draft-07) ignores every sibling: the
/// definitions other references point into, the root's `$schema`, and annotations.
const REF_SIBLINGS_KEPT: [&str; 11] = [
    "$ref",
    "$schema",
    "definitions",
    "$defs",
    "title",
    "description",
    "$comment",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
];

/// A presentation spelled for a provider that reads `reader`'s words (SPEC §6 decision 36): the
/// same values or more, never fewer, whatever draft it declares.
///
/// - Every word a later draft than the declared one reads as a keyword, and the declared draft
///   reads as data (`const` and `contains` in draft-04, `if`/`then`/`else` up to draft-06,
///   `prefixItems`, `dependentRequired`, `unevaluated*`, … up to draft-07), is dropped: it asserts
///   nothing where it stands, and would assert where a provider reads the newer word.
/// - Draft-04's boolean exclusive bounds become numeric bounds (the same values) and its `id`
///   `$id`.
/// - For a 2020-12 reader (Anthropic, whose API takes only schemas valid under the 2020-12
///   meta-schema): `items` as an array becomes `prefixItems` (with `additionalItems` as `items`),
///   `additionalItems` beside a schema `items` (ignored there) goes, `dependencies` splits into
///   `dependentRequired` and `dependentSchemas`, and what up to draft-07 stands ignored beside a
///   `$ref` goes (but definitions and annotations): the same values.
/// - `$schema` becomes the reader's when the declared draft is older (draft-07's `integer` also
///   takes `1.0` where draft-04's does not: looser, so sound).
///
/// A 2020-12 presentation is left as it is; one of the reader's draft or a newer one keeps its
/// spelling and `$schema`, and only loses the newer words it holds as data.
pub fn respell(schema: &mut Value, reader: flatjoin::Draft) {
    use flatjoin::Draft;
    let declared = Draft::of(schema);
    if declared == Draft::Draft202012 {
        return;
    }
    walk::transform_bottom_up(schema, "", &mut |pointer, node| {
        let Value::Object(map) = node else { return };
        if declared == Draft::Draft4 {
            modernize_bounds(map);
            if map.get("id").is_some_and(Value::is_string)
                && let Some(id) = map.shift_remove("id")
            {
                map.insert("$id".into(), id);
            }
        }
        map.retain(|k, _| reads(declared, k) || !Draft::ALL.iter().any(|&later| reads(later, k)));
        if reader == Draft::Draft202012 {
            as_2020_12(map, declared, pointer.is_empty());
        }
    });
    if declared < reader
        && let Value::Object(map) = schema
        && map.contains_key("$schema")
    {
        map.insert("$schema".into(), Value::String(reader.meta_schema().into()));
    }
}

/// The 2020-12 spelling of one schema object of `declared` (a draft before 2020-12), by
/// [`respell`]'s rules.
fn as_2020_12(map: &mut Map<String, Value>, declared: flatjoin::Draft, root: bool) {
    use flatjoin::Draft;
    match map.get("items") {
        Some(Value::Array(_)) => {
            let tuple = map.shift_remove("items").unwrap_or_default();
            map.insert("prefixItems".into(), tuple);
            if let Some(rest) = map.shift_remove("additionalItems") {
                map.insert("items".into(), rest);
            }
        }
        _ => {
            map.shift_remove("additionalItems");
        }
    }
    if declared > Draft::Draft7 {
        return;
    }
    if let Some(dependencies) = map.shift_remove("dependencies")
        && let Value::Object(entries) = dependencies
    {
        let (mut required, mut schemas) = (Map::new(), Map::new());
        for (name, dependency) in entries {
            match dependency {
                Value::Array(_) => required.insert(name, dependency),
                _ => schemas.insert(name, dependency),
            };
        }
        for (keyword, entries) in [
            ("dependentRequired", required),
            ("dependentSchemas", schemas),
        ] {
            if !entries.is_empty() {
                map.insert(keyword.into(), Value::Object(entries));
            }
        }
    }
    if map.contains_key("$ref") {
        map.retain(|k, _| REF_SIBLINGS_KEPT.contains(&k.as_str()) || (root && k == "$id"));
    }
}

/// Lint: a `format` outside `allowed`.
pub fn check_formats(schema: &Value, allowed: &[&str], says: &str, findings: &mut Findings) {
    walk::visit(schema, "", &mut |pointer, node| {
        if let Some(Value::String(format)) = node.get("format")
            && !allowed.contains(&format.as_str())
        {
            findings.error(
                pointer,
                "format",
                format!("{says}: format '{format}' is not supported"),
                "drop the format (sound: format is an annotation)",
            );
        }
    });
}

/// Drops every `format` outside `allowed`. Sound: `format` only annotates by default.
pub fn drop_formats(schema: &mut Value, allowed: &[&str]) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        if let Value::Object(map) = node
            && let Some(Value::String(format)) = map.get("format")
            && !allowed.contains(&format.as_str())
        {
            map.shift_remove("format");
        }
    });
}

/// No boolean subschema reaches a provider (SDK rule: the OpenAI Agents SDK's
/// `ensure_strict_json_schema` raises `Expected False to be a dictionary`, `google-genai`'s
/// `Schema` model wants an object). Sound everywhere:
/// - `false` alternatives of `anyOf`/`oneOf` are removed (they accept nothing); a `true`
///   alternative makes the composition unconstrained, so the composition is removed; a composition
///   left without alternatives (every one was `false`) is removed too, which only loosens;
/// - a `false` property (the key is forbidden) is removed from `properties` and `required`: where
///   the object is closed the key stays forbidden, elsewhere it is allowed (looser);
/// - `items: false` (no items past the tuple: only the empty array without one) becomes
///   `maxItems` of the tuple's length (or less, where `maxItems` said less), and so does a draft-07
///   tuple's `additionalItems: false` (the same values);
/// - any other boolean subschema becomes `{}` (`true`: the same values; `false`: looser).
///
/// `additionalProperties` and `unevaluatedProperties` keep their boolean: there it is the
/// closedness every strict profile needs, and [`close_objects`]/`retain_keywords` handle it.
pub fn lower_boolean_subschemas(schema: &mut Value) {
    walk::transform_bottom_up(schema, "", &mut |_, node| {
        let Value::Object(map) = node else { return };
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(alts)) = map.get_mut(key) else {
                continue;
            };
            if alts.iter().any(|a| a == &Value::Bool(true)) {
                map.shift_remove(key);
                continue;
            }
            let before = alts.len();
            alts.retain(|a| a != &Value::Bool(false));
            if alts.is_empty() {
                map.shift_remove(key);
            } else if alts.len() == 1 && before > 1 {
                // What removing `false` left is one alternative: the node is that and the rest.
                if let Some(Value::Array(mut only)) = map.shift_remove(key) {
                    let merged = widen::merge_all(&[Value::Object(map.clone()), only.remove(0)]);
                    if let Value::Object(m) = merged {
                        *map = m;
                    }
                }
            }
        }
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            let forbidden: Vec<String> = props
                .iter()
                .filter(|(_, v)| **v == Value::Bool(false))
                .map(|(k, _)| k.clone())
                .collect();
            props.retain(|_, v| *v != Value::Bool(false));
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|r| !r.as_str().is_some_and(|r| forbidden.iter().any(|f| f == r)));
            }
        }
        // No items past the tuple (`prefixItems`, or a draft-07 `items` array beside
        // `additionalItems: false`): at most the tuple's length, and at most what `maxItems` said.
        let rest = match (map.get("items"), map.get("prefixItems")) {
            (Some(Value::Bool(false)), Some(Value::Array(tuple))) => Some(("items", tuple.len())),
            (Some(Value::Bool(false)), _) => Some(("items", 0)),
            (Some(Value::Array(tuple)), _)
                if map.get("additionalItems") == Some(&Value::Bool(false)) =>
            {
                Some(("additionalItems", tuple.len()))
            }
            _ => None,
        };
        if let Some((keyword, length)) = rest {
            let bound = map
                .get("maxItems")
                .and_then(Value::as_u64)
                .map_or(length as u64, |m| m.min(length as u64));
            map.insert(keyword.into(), json!({}));
            map.insert("maxItems".into(), json!(bound));
        }
        walk::for_each_child_mut(node, &mut |suffix, child| {
            let keeps_bool =
                suffix == "/additionalProperties" || suffix == "/unevaluatedProperties";
            if child.is_boolean() && !keeps_bool {
                *child = json!({});
            }
        });
    });
}

/// Lint: a boolean subschema (other than `additionalProperties`/`unevaluatedProperties`), which
/// the providers' SDKs refuse; `message(pointer, value)` words the SDK's refusal.
pub fn check_boolean_subschemas(
    schema: &Value,
    findings: &mut Findings,
    message: &dyn Fn(&str, bool) -> String,
) {
    walk::visit(schema, "", &mut |pointer, node| {
        let Value::Bool(b) = node else { return };
        if pointer.is_empty()
            || pointer.ends_with("/additionalProperties")
            || pointer.ends_with("/unevaluatedProperties")
        {
            return;
        }
        findings.error(
            pointer,
            "boolean-schema",
            message(pointer, *b),
            "false leaves anyOf/properties (it accepts nothing), items: false → maxItems: 0, true → {} (sound)",
        );
    });
}

/// Every local `$ref` whose target is not an entry of the root's definitions (`#/$defs/NAME`,
/// `#/definitions/NAME`) points instead at a copy of its target hoisted there, under a name the
/// document does not use (`flatjoin_target_N`). The lowering steps after this one rename and move
/// keywords (`oneOf` → `anyOf`, `allOf` merged, draft-04 spellings modernized), which a pointer
/// through them (`#/properties/x/oneOf/0/…`, zod-to-json-schema's and the join's repaired
/// references) would not survive. Sound: the copy is the target, lowered like the rest. A
/// subschema with its own `$id` is a resource whose references are relative to it, and is left
/// as it is. Found by `cli/tests/profiles_soundness.rs` on
/// `corpus/regressions/draft04-id-in-data-is-no-resource.json`.
pub fn hoist_ref_targets(schema: &mut Value) {
    let Value::Object(root) = &*schema else {
        return;
    };
    // The container the document already uses, else its draft's.
    let legacy = matches!(
        flatjoin::Draft::of(schema),
        flatjoin::Draft::Draft7 | flatjoin::Draft::Draft6 | flatjoin::Draft::Draft4
    );
    let container = if root.contains_key("$defs") || (!legacy && !root.contains_key("definitions"))
    {
        "$defs"
    } else {
        "definitions"
    };
    let mut hoist = Hoist {
        original: schema.clone(),
        container,
        names: std::collections::HashMap::new(),
        copies: Vec::new(),
        used: root
            .get(container)
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default(),
    };
    hoist.rewrite(schema, true);
    if hoist.copies.is_empty() {
        return;
    }
    if let Value::Object(root) = schema {
        let defs = root
            .entry(container)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            defs.extend(hoist.copies);
        }
    }
}

/// The state of [`hoist_ref_targets`].
struct Hoist {
    original: Value,
    container: &'static str,
    /// Each reference hoisted, with the reference to its copy.
    names: std::collections::HashMap<String, String>,
    copies: Vec<(String, Value)>,
    used: std::collections::HashSet<String>,
}

impl Hoist {
    /// Whether `reference` names an entry of the root's definitions itself.
    fn is_stable(reference: &str) -> bool {
        ["#/$defs/", "#/definitions/"].iter().any(|prefix| {
            reference
                .strip_prefix(prefix)
                .is_some_and(|name| !name.is_empty() && !name.contains('/'))
        })
    }

    /// Rewrites the references under `node` (`at_root`: the document itself, whose `$id` is
    /// its own base).
    fn rewrite(&mut self, node: &mut Value, at_root: bool) {
        let Value::Object(map) = node else { return };
        if !at_root && map.get("$id").and_then(Value::as_str).is_some() {
            return;
        }
        if let Some(Value::String(reference)) = map.get("$ref")
            && (reference == "#" || reference.starts_with("#/"))
            && !Self::is_stable(reference)
        {
            let reference = reference.clone();
            if let Some(new) = self.hoisted(&reference) {
                map.insert("$ref".into(), Value::String(new));
            }
        }
        walk::for_each_child_mut(node, &mut |_, child| self.rewrite(child, false));
    }

    /// The reference to the hoisted copy of `reference`'s target (hoisting it the first time).
    fn hoisted(&mut self, reference: &str) -> Option<String> {
        if let Some(new) = self.names.get(reference) {
            return Some(new.clone());
        }
        let mut copy = walk::resolve(&self.original, reference)?.clone();
        let name = (1..)
            .map(|i| format!("flatjoin_target_{i}"))
            .find(|n| !self.used.contains(n))?;
        self.used.insert(name.clone());
        let new = format!("#/{}/{}", self.container, walk::escape(&name));
        self.names.insert(reference.to_owned(), new.clone());
        if reference == "#"
            && let Value::Object(map) = &mut copy
        {
            for key in ["$defs", "definitions", "$schema", "$id"] {
                map.shift_remove(key);
            }
        }
        self.rewrite(&mut copy, false);
        self.copies.push((name, copy));
        Some(new)
    }
}

/// Lint, every profile (SPEC §2.9, "exports never hide a tool"): a root union that the flat join
/// leaves a union. No object with the branches' fields exists for it, and lowering can only widen
/// it to an object with no properties, so the model would see no parameters: an error, whatever
/// the provider accepts. A schema the join refuses is left to the other checks.
pub fn check_root_union_kept(schema: &Value, findings: &mut Findings) {
    if !is_union(schema) {
        return;
    }
    if let Ok(flat) = flatjoin::flatten(schema, &flatjoin::Options::default()) {
        root_union_kept(&flat, findings);
    }
}

fn is_union(schema: &Value) -> bool {
    schema.get("oneOf").is_some() || schema.get("anyOf").is_some()
}

/// [`check_root_union_kept`] on a join already made (the export's own, with its options).
pub fn root_union_kept(flat: &flatjoin::Flattened, findings: &mut Findings) {
    if !is_union(&flat.schema) {
        return;
    }
    let reason = flat
        .diagnostics
        .skipped
        .iter()
        .find(|s| s.pointer.is_empty())
        .map_or_else(
            || "it is not a union of objects".to_owned(),
            |s| s.reason.to_string(),
        );
    findings.error(
        "",
        "root-union-kept",
        format!(
            "the root union stays a union after the flat join ({reason}): no object keeps its branches' fields, and a lowered export would give the model an object with no properties"
        ),
        "no sound flat object: give every branch a discriminator (a property with a distinct const), or split the tool",
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What draft-04 reads as data is not made to assert by the draft-07 spelling: `contains`,
    /// `propertyNames` and `if`/`then`/`else` go, as `const` does; property names stay.
    #[test]
    fn a_draft04_presentation_spelled_as_draft07_asserts_nothing_more() {
        let data = json!({"required": ["x"]});
        let mut schema = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {
                "if": {"type": "string"},
                "p0": {"type": "array", "contains": {"type": "null"}, "propertyNames":
                    {"maxLength": 1}, "if": data, "then": false, "else": false, "const": 1},
            },
        });
        respell(&mut schema, flatjoin::Draft::Draft7);
        assert_eq!(
            schema,
            json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"if": {"type": "string"}, "p0": {"type": "array"}},
            })
        );
    }

    /// Draft-06 reads `if`/`then`/`else` as data: spelled as draft-07 they go. A draft-07
    /// presentation keeps its draft for a draft-07 reader and loses only the newer words it holds
    /// as data; for a 2020-12 reader it is written in 2020-12's words (SPEC §6 decision 36).
    #[test]
    fn each_reader_gets_the_presentation_in_its_words() {
        use flatjoin::Draft;
        let mut six = json!({
            "$schema": "http://json-schema.org/draft-06/schema#",
            "properties": {"a": {"if": {"required": ["x"]}, "then": false, "type": "object"}},
        });
        respell(&mut six, Draft::Draft7);
        assert_eq!(
            six,
            json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"a": {"type": "object"}},
            })
        );
        let seven = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"n": {"type": "null"}},
            "properties": {
                "t": {"items": [{"type": "string"}], "additionalItems": false, "prefixItems": [false]},
                "d": {"dependencies": {"a": ["b"], "c": {"required": ["e"]}}, "dependentRequired": {"x": ["y"]}},
                "r": {"$ref": "#/definitions/n", "type": "string", "description": "R."},
            },
        });
        let mut for_seven = seven.clone();
        respell(&mut for_seven, Draft::Draft7);
        let mut expected = seven.clone();
        for (property, newer) in [("t", "prefixItems"), ("d", "dependentRequired")] {
            if let Some(map) = expected["properties"][property].as_object_mut() {
                map.shift_remove(newer);
            }
        }
        assert_eq!(for_seven, expected);
        let mut for_2020 = seven;
        respell(&mut for_2020, Draft::Draft202012);
        assert_eq!(
            for_2020,
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "definitions": {"n": {"type": "null"}},
                "properties": {
                    "t": {"prefixItems": [{"type": "string"}], "items": false},
                    "d": {"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["e"]}}},
                    "r": {"$ref": "#/definitions/n", "description": "R."},
                },
            })
        );
        assert!(jsonschema::draft202012::meta::is_valid(&for_2020));
    }

    /// The positive form drops what restricts where accepting more can accept less, and writes
    /// `oneOf` as `anyOf` (beside an `anyOf`, as one more `allOf` member); the rest stays.
    #[test]
    fn the_positive_form_keeps_only_monotone_keywords() {
        let mut schema = json!({
            "type": "object",
            "not": {"required": ["x"]},
            "unevaluatedProperties": false,
            "properties": {
                "a": {"if": {"type": "string"}, "then": {"minLength": 1}, "else": false, "type": ["string", "integer"]},
                "b": {"type": "array", "contains": {"type": "null"}, "maxContains": 1, "minContains": 1},
                "c": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "d": {"anyOf": [{"type": "string"}], "oneOf": [{"minLength": 1}, {"maxLength": 3}]},
            },
        });
        positive_form(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": ["string", "integer"]},
                    "b": {"type": "array", "contains": {"type": "null"}, "minContains": 1},
                    "c": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "d": {"anyOf": [{"type": "string"}], "allOf": [{"anyOf": [{"minLength": 1}, {"maxLength": 3}]}]},
                },
            })
        );
    }

    /// A shared union at three sites, one of them inside a model used twice: 3 `$ref`s, 4 copies.
    /// The model (2 sites) is listed as a shared definition; a definition used once is not, a
    /// recursive one stays a reference, and a name the join would not write is no shared union.
    #[test]
    fn inlining_lists_shared_unions_and_multiplied_definitions() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/flatjoin_union_1", "description": "A."},
                "b": {"items": {"$ref": "#/$defs/flatjoin_union_1"}},
                "m": {"$ref": "#/$defs/Model"},
                "n": {"$ref": "#/$defs/Model"},
                "once": {"$ref": "#/$defs/flatjoin_union_01"},
                "tree": {"$ref": "#/$defs/Tree"}
            },
            "$defs": {
                "flatjoin_union_1": {"type": "object", "properties": {"k": {"enum": ["x", "y"]}}},
                "flatjoin_union_01": {"type": "string"},
                "Model": {"type": "object", "properties": {"u": {"$ref": "#/$defs/flatjoin_union_1"}}},
                "Tree": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/Tree"}}}}
            }
        });
        let union_bytes = schema["$defs"]["flatjoin_union_1"].to_string().len();
        let mut inlined = Vec::new();
        let left = inline_refs(&mut schema, &mut inlined);
        assert_eq!(left.len(), 2, "{left:?}");
        let listed: Vec<(&str, &str, usize, usize)> = inlined
            .iter()
            .map(|i| (i.definition.as_str(), i.rule, i.sites, i.copies))
            .collect();
        assert_eq!(
            listed,
            [
                ("/$defs/flatjoin_union_1", "shared-union", 3, 4),
                ("/$defs/Model", "shared-definition", 2, 2),
            ]
        );
        assert_eq!(inlined[0].bytes, union_bytes);
        assert!(
            inlined[0].detail.contains(&format!(
                "3 sites (SPEC §6 decision 73) is copied into 4 places, as this profile takes no $ref: {union_bytes} minified bytes each, {} in all",
                4 * union_bytes
            )),
            "{}",
            inlined[0].detail
        );
        assert!(is_shared_union_name("flatjoin_union_12"));
        assert!(!is_shared_union_name("flatjoin_union_"));
        assert!(!is_shared_union_name("flatjoin_union_x1"));
    }
}
