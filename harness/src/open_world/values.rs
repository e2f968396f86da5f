//! Branch values of an open-world case: for each branch, objects built from boundary candidates
//! per keyword, greedily completed so that the original accepts them with the discriminator
//! selecting that branch (see [`super`]).

use serde_json::{Map, Value, json};

use super::{OpenCase, Placement};

/// The key used for `patternProperties` (`^x-`): no branch declares a name starting with `x-`.
const PATTERN_KEY: &str = "x-1";

/// The most candidates proposed for one schema node.
const MAX_CANDIDATES: usize = 12;
/// Nesting past which only generic values are proposed.
const MAX_VALUE_DEPTH: usize = 6;

fn generic() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(2.5),
        json!(""),
        json!("ab"),
        json!([]),
        json!({}),
    ]
}

fn strings() -> Vec<Value> {
    [
        "",
        "a",
        "ab",
        "abc",
        "abcde",
        "abcdef",
        "b",
        "aab",
        "a@b.co",
        "2020-01-02",
        "1.2.3.4",
        "http://a.b/c",
        "Ab1",
    ]
    .iter()
    .map(|s| json!(s))
    .collect()
}

fn numbers(map: &Map<String, Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for k in ["minimum", "maximum"] {
        if let Some(v) = map.get(k) {
            out.push(v.clone());
        }
    }
    for (k, step) in [("exclusiveMinimum", 1.0), ("exclusiveMaximum", -1.0)] {
        if let Some(f) = map.get(k).and_then(Value::as_f64) {
            // An integral result is written as an integer ([`crate::sample::number`]).
            out.push(crate::sample::number(f + step));
            out.push(crate::sample::number(f + step / 2.0));
        }
    }
    out.extend([
        json!(0),
        json!(4),
        json!(6),
        json!(-1),
        json!(2.5),
        json!(1),
    ]);
    out
}

/// Resolves a local `$ref` of `node` (`#/...` or `#here`) against `root`, else `None`.
fn follow_local<'a>(root: &'a Value, node: &'a Value) -> Option<&'a Value> {
    let r = node.get("$ref")?.as_str()?;
    if let Some(p) = r.strip_prefix('#') {
        if p.is_empty() {
            return Some(root);
        }
        if p.starts_with('/') {
            return root.pointer(p);
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(entries)) = root.get(defs) {
                for v in entries.values() {
                    let anchor = v.get("$anchor").and_then(Value::as_str);
                    let id = v.get("$id").and_then(Value::as_str);
                    if anchor == Some(p) || id == Some(r) {
                        return Some(v);
                    }
                }
            }
        }
    }
    None
}

/// Candidate values for `node` (boundaries per keyword; not yet judged). `root` is the base
/// `$ref`s resolve against (an embedded resource is its own root).
fn candidates(root: &Value, node: &Value, depth: usize) -> Vec<Value> {
    let Value::Object(map) = node else {
        return if node == &Value::Bool(false) {
            Vec::new()
        } else {
            generic()
        };
    };
    if depth > MAX_VALUE_DEPTH {
        return generic();
    }
    let root = if map.contains_key("$id") && !map.contains_key("$anchor") {
        node
    } else {
        root
    };
    let mut out = Vec::new();
    if let Some(c) = map.get("const") {
        out.push(c.clone());
    }
    if let Some(Value::Array(e)) = map.get("enum") {
        out.extend(e.iter().cloned());
    }
    if !out.is_empty() {
        return out;
    }
    if let Some(target) = follow_local(root, node) {
        out.extend(candidates(root, target, depth + 1));
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let objectish = types.contains(&"object")
        || map.contains_key("properties")
        || map.contains_key("allOf") && types.is_empty();
    if objectish {
        out.extend(objects(root, node, depth, &[], None));
    }
    if types.contains(&"array") || map.contains_key("items") || map.contains_key("prefixItems") {
        out.extend(arrays(root, map, depth));
    }
    if types.contains(&"string") || map.contains_key("minLength") || map.contains_key("format") {
        out.extend(strings());
    }
    if types.contains(&"integer") || types.contains(&"number") {
        out.extend(numbers(map));
    }
    if types.contains(&"boolean") {
        out.extend([json!(true), json!(false)]);
    }
    if types.contains(&"null") {
        out.push(Value::Null);
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = map.get(k) {
            for m in members {
                out.extend(candidates(root, m, depth + 1));
            }
        }
    }
    for k in ["then", "else", "if"] {
        if let Some(s) = map.get(k) {
            out.extend(candidates(root, s, depth + 1));
        }
    }
    if types.is_empty() && out.is_empty() {
        out = generic();
    }
    dedup_values(out, MAX_CANDIDATES)
}

fn dedup_values(values: Vec<Value>, cap: usize) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for v in values {
        if seen.insert(v.to_string()) {
            out.push(v);
        }
        if out.len() >= cap {
            break;
        }
    }
    out
}

fn arrays(root: &Value, map: &Map<String, Value>, depth: usize) -> Vec<Value> {
    let mut first: Vec<Value> = Vec::new();
    if let Some(Value::Array(prefix)) = map.get("prefixItems").or(map.get("items")) {
        let mut tuple = Vec::new();
        for p in prefix {
            match candidates(root, p, depth + 1).into_iter().next() {
                Some(v) => tuple.push(v),
                None => break,
            }
        }
        return vec![json!([]), Value::Array(tuple)];
    }
    let item = map.get("items").or(map.get("contains"));
    let items = match item {
        Some(s) => candidates(root, s, depth + 1),
        None => generic(),
    };
    let mut out = vec![json!([])];
    for v in items.iter().take(4) {
        first.push(v.clone());
        out.push(json!([v]));
    }
    if first.len() >= 2 {
        out.push(json!([first[0], first[1]]));
        out.push(json!([first[0], first[1], first[first.len() - 1]]));
    }
    out
}

/// The properties an object schema declares, through `allOf`, local `$ref` and the union
/// node's siblings: `(name, schema)`, first-appearance order, and the required names.
fn declared(
    root: &Value,
    node: &Value,
    depth: usize,
    out: &mut Vec<(String, Value)>,
    required: &mut Vec<String>,
) {
    if depth > MAX_VALUE_DEPTH {
        return;
    }
    let Value::Object(map) = node else { return };
    if let Some(target) = follow_local(root, node) {
        declared(root, target, depth + 1, out, required);
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        for (n, s) in props {
            if !out.iter().any(|(m, _)| m == n) {
                out.push((n.clone(), s.clone()));
            }
        }
    }
    if let Some(Value::Array(r)) = map.get("required") {
        for n in r.iter().filter_map(Value::as_str) {
            if !required.iter().any(|m| m == n) {
                required.push(n.to_owned());
            }
        }
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        for m in members {
            declared(root, m, depth + 1, out, required);
        }
    }
}

/// Counts a value's errors against the whole original (the value placed where the union sits).
trait Errors {
    fn errors(&self, v: &Map<String, Value>) -> usize;
}

struct Placed<'a> {
    judge: &'a jsonschema::Validator,
    placement: Placement,
}

impl Placed<'_> {
    fn place(&self, v: Value) -> Value {
        match self.placement {
            Placement::Root => v,
            Placement::Property | Placement::Nullable => json!({"payload": v}),
            Placement::Items => json!({"list": [v]}),
            Placement::Shared => json!({"payload": v.clone(), "echo": v}),
        }
    }
}

impl Errors for Placed<'_> {
    fn errors(&self, v: &Map<String, Value>) -> usize {
        self.judge
            .iter_errors(&self.place(Value::Object(v.clone())))
            .count()
    }
}

/// Object candidates for `node`: every required property from its first candidate, then each
/// property varied through its candidates, optional ones present and absent, a `^x-` key and an
/// undeclared key. `fixed` are entries every candidate carries (the discriminator). With a
/// `judge` (the branch level), the base object is completed greedily: for each property in turn
/// the candidate (or absence) with the fewest errors against the whole original is kept, and
/// every accepted step is proposed.
fn objects(
    root: &Value,
    node: &Value,
    depth: usize,
    fixed: &[(String, Value)],
    judge: Option<&dyn Errors>,
) -> Vec<Value> {
    let mut props = Vec::new();
    let mut required = Vec::new();
    declared(root, node, depth, &mut props, &mut required);
    let fixed_names: Vec<&str> = fixed.iter().map(|(n, _)| n.as_str()).collect();
    let per: Vec<(String, Vec<Value>)> = props
        .iter()
        .filter(|(n, _)| !fixed_names.contains(&n.as_str()))
        .map(|(n, s)| (n.clone(), candidates(root, s, depth + 1)))
        .collect();
    let mut base = Map::new();
    for (n, v) in fixed {
        base.insert(n.clone(), v.clone());
    }
    for (n, cands) in &per {
        if required.contains(n)
            && let Some(v) = cands.first()
        {
            base.insert(n.clone(), v.clone());
        }
    }
    let mut out = Vec::new();
    if let Some(judge) = judge {
        for (n, cands) in &per {
            let mut best = judge.errors(&base);
            let mut best_map = base.clone();
            let mut tries = vec![{
                let mut m = base.clone();
                m.remove(n);
                m
            }];
            for c in cands {
                let mut m = base.clone();
                m.insert(n.clone(), c.clone());
                tries.push(m);
            }
            for m in tries {
                let e = judge.errors(&m);
                if e == 0 {
                    out.push(Value::Object(m.clone()));
                }
                if e < best {
                    best = e;
                    best_map = m;
                }
            }
            base = best_map;
        }
    }
    out.push(Value::Object(base.clone()));
    for (n, cands) in &per {
        let mut without = base.clone();
        without.remove(n);
        out.push(Value::Object(without));
        for c in cands {
            let mut m = base.clone();
            m.insert(n.clone(), c.clone());
            out.push(Value::Object(m));
        }
    }
    for (k, v) in [
        (PATTERN_KEY, json!("a")),
        (PATTERN_KEY, json!(1)),
        (crate::sample::EXTRA_KEY, json!(1)),
    ] {
        let mut m = base.clone();
        m.insert(k.into(), v);
        out.push(Value::Object(m));
    }
    out
}

/// The union node of a case.
fn union_of(case: &OpenCase) -> Option<&Value> {
    let union_ptr = match case.placement {
        Placement::Root => "",
        Placement::Property | Placement::Shared => "/properties/payload",
        Placement::Items => "/properties/list/items",
        Placement::Nullable => "/properties/payload/anyOf/0",
    };
    case.schema.pointer(union_ptr)
}

/// The values of a case: for each branch, the objects `objects` proposes with its literal,
/// accepted by the original (`judge`), placed where the union sits. At most `cap` per branch.
pub fn values(case: &OpenCase, judge: &jsonschema::Validator, cap: usize) -> Vec<Value> {
    let Some(node) = union_of(case) else {
        return Vec::new();
    };
    let members = ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| node.get(*k).and_then(Value::as_array))
        .cloned()
        .unwrap_or_default();
    // The union node's siblings are part of every branch (SPEC §1).
    let mut siblings = node.clone();
    if let Some(o) = siblings.as_object_mut() {
        o.remove("oneOf");
        o.remove("anyOf");
        o.remove("$defs");
        o.remove("definitions");
    }
    let placed = Placed {
        judge,
        placement: case.placement,
    };
    let mut out = Vec::new();
    for (i, member) in members.iter().enumerate() {
        let Some(literal) = case.literals.get(i) else {
            continue;
        };
        let branch = json!({"allOf": [member, siblings]});
        let fixed = vec![(case.tag.clone(), literal.clone())];
        let mut kept = 0;
        for v in objects(&case.schema, &branch, 0, &fixed, Some(&placed)) {
            let v = placed.place(v);
            if judge.is_valid(&v) {
                out.push(v);
                kept += 1;
                if kept >= cap {
                    break;
                }
            }
        }
    }
    dedup_values(out, usize::MAX)
}
