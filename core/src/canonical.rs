//! Structural identity (SPEC §3.4): the key two alternatives share when they accept the same
//! values for the same reasons, ignoring annotations at every depth, key order, the order of
//! `required`, `enum` and `type`, and comparing numbers by value.

use crate::fasthash::{FastMap, FastSet};
use std::cell::RefCell;
use std::fmt::Write;
use std::hash::{BuildHasher, RandomState};

use serde_json::{Map, Number, Value};

use crate::draft::Draft;
use crate::keywords::{self, Slot};

/// How [`dedup_with`]'s digest reads the schema; the fault variant exists only to reproduce a bug.
#[derive(Clone, Copy)]
pub(crate) struct KeyOptions<'a> {
    /// Fault `annotation-names`: also drop *properties named* like annotation keywords.
    pub strip_annotation_names: bool,
    /// The draft: `const` is the one-value `enum` from draft-06 on, and an unknown word (kept as
    /// written, so never equal to an `enum`) in draft-04.
    pub draft: Draft,
    /// The joins that shared sites' placeholders stand for, by group (SPEC §6 decision 73): a
    /// placeholder is digested as its join, the same schema as the flat object written out.
    pub shared: Option<&'a dyn Fn(usize) -> Option<&'a Map<String, Value>>>,
    /// The projection's digests of those joins, so that a join read at many places is digested
    /// once; its seeds are the digest's.
    pub joins: Option<&'a JoinDigests>,
    /// The document local `$ref`s resolve against (pointers from its root, SPEC §6 decisions
    /// 15–16): a reference to a [closed](closed) target is digested as its target (SPEC §6
    /// decision 88). `None`: a reference is read by its text.
    pub document: Option<&'a Value>,
    /// A `$ref` target's projection as the presentation writes it, by the target's pointer (the
    /// projection's memo; `None` where it is not projected yet): a reference into a target that
    /// is closed but for the unions in it is digested as that projection (SPEC §6 decision 88).
    pub projected: Option<&'a Projections<'a>>,
}

/// A `$ref` target's projection by the target's pointer ([`KeyOptions::projected`]).
pub(crate) type Projections<'a> = dyn Fn(&str) -> Option<&'a Value> + 'a;

/// One projection's digests of its shared joins (SPEC §6 decision 73) and of the closed targets
/// its references reach (decision 88): a placeholder is digested as its join, and a union used
/// at many sites puts its placeholder into many dedups, each of which would digest the whole
/// join again; a reference into a closed target is digested as the target, and a model referred
/// to from many properties would be walked and digested at every one. The seeds are drawn once
/// per projection (random, as every digest's), so the digests kept here hold for each dedup of
/// the projection; the projection's [`KeyOptions`] are the same in all of them. A join rewritten
/// in place is [`forget`]-ten; the document the targets are read in is not rewritten.
///
/// [`forget`]: JoinDigests::forget
pub(crate) struct JoinDigests {
    seeds: [u64; 6],
    /// By the join's group and whether its `type` is left out (the placeholder has its own):
    /// the sum of the join's keyword entries and their count.
    sums: RefCell<FastMap<(usize, bool), (u128, u64)>>,
    /// By a reference's target (its address in the document): the target's digest when it is
    /// [closed], `None` when it is not.
    targets: RefCell<FastMap<usize, Option<u128>>>,
    /// By a reference's target pointer: whether following the references from the target's
    /// projection, a pure wrapper, leads back to it ([`leads_back`]). A target's projection is
    /// memoized once and not replaced while it can be read, so the answer holds for the whole
    /// projection.
    leads_back: RefCell<FastMap<String, bool>>,
}

impl Default for JoinDigests {
    fn default() -> Self {
        JoinDigests {
            seeds: random_seeds(),
            sums: RefCell::default(),
            targets: RefCell::default(),
            leads_back: RefCell::default(),
        }
    }
}

impl JoinDigests {
    /// Drops what is kept of group `c`'s join, whose body has been rewritten.
    pub(crate) fn forget(&self, c: usize) {
        let mut sums = self.sums.borrow_mut();
        sums.remove(&(c, false));
        sums.remove(&(c, true));
    }
}

/// Six odd seeds, random per call: one draw from `RandomState` (random keys per thread, stepped
/// per state), spread by SplitMix64's finalizer, so a digester costs one SipHash, not six.
fn random_seeds() -> [u64; 6] {
    let mut x = RandomState::new().hash_one(0x5eed_u64);
    std::array::from_fn(|_| {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) | 1
    })
}

impl Default for KeyOptions<'_> {
    fn default() -> Self {
        KeyOptions {
            strip_annotation_names: false,
            draft: Draft::Draft202012,
            shared: None,
            joins: None,
            document: None,
            projected: None,
        }
    }
}

/// The structural-identity key of a schema: two schemas have equal keys exactly when SPEC §3.4
/// calls them structurally identical.
/// Reads the schema as 2020-12 (the join's default draft: `const` is the one-value `enum`); the
/// join itself deduplicates by the document's own draft through the digest (`dedup_with`).
pub fn structural_key(schema: &Value) -> String {
    let mut out = String::new();
    schema_key(schema, &mut out);
    out
}

/// Whether two schemas are structurally identical (SPEC §3.4).
pub fn structurally_equal(a: &Value, b: &Value) -> bool {
    structural_key(a) == structural_key(b)
}

/// Keeps the first of each group of structurally identical schemas, in order. Linear in the total
/// size of the input (one digest per schema, one hash-set lookup each). Idempotent.
pub fn dedup(alternatives: Vec<Value>) -> Vec<Value> {
    dedup_with(alternatives, KeyOptions::default())
}

pub(crate) fn dedup_with<V: std::borrow::Borrow<Value>>(
    alternatives: Vec<V>,
    options: KeyOptions<'_>,
) -> Vec<V> {
    if alternatives.len() < 2 {
        return alternatives;
    }
    // Alternatives written exactly alike have equal digests: the common case, every branch
    // defining a property the same way, needs no digest.
    if alternatives[1..]
        .iter()
        .all(|a| same_but_annotations(a.borrow(), alternatives[0].borrow()))
    {
        let mut first = alternatives;
        first.truncate(1);
        return first;
    }
    let digester = Digester::new(options);
    let mut seen: FastSet<u128> =
        FastSet::with_capacity_and_hasher(alternatives.len(), Default::default());
    alternatives
        .into_iter()
        .filter(|a| {
            // A reference that stands for a pure wrapper whose members are all among the
            // alternatives already accepts nothing they do not (SPEC §6 decision 88): the join
            // reads a wrapper written in place as its members (§3 step 3).
            let covered = projection_behind(a.borrow(), &options)
                .is_some_and(|p| covered(&digester, &seen, p, 0));
            !covered && seen.insert(digester.schema(a.borrow()))
        })
        .collect()
}

/// Whether `schema`, a pure wrapper or a reference to one's projection, accepts nothing the
/// alternatives digested in `seen` do not: its members, nested wrappers read as theirs (as the
/// join reads them, SPEC §3 step 3), each among them (SPEC §6 decision 88). No for anything
/// else, and past 32 wrappers deep.
fn covered(digester: &Digester<'_>, seen: &FastSet<u128>, schema: &Value, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    let behind = || projection_behind(schema, &digester.options);
    match schema
        .as_object()
        .and_then(keywords::wrapper_members)
        .or_else(|| behind()?.as_object().and_then(keywords::wrapper_members))
    {
        Some(members) => members
            .iter()
            .all(|m| seen.contains(&digester.schema(m)) || covered(digester, seen, m, depth + 1)),
        None => false,
    }
}

/// Whether two schemas are the same but for their own top-level `title` and `description`: the
/// other keywords in the same order, each [`same_in_order`]. The digest leaves out every
/// annotation, so schemas this calls the same have equal digests; the join reads definitions
/// with their annotations still on them (they move to the joined property), and the same
/// property is titled differently in different branches.
fn same_but_annotations(a: &Value, b: &Value) -> bool {
    let (Value::Object(x), Value::Object(y)) = (a, b) else {
        return same_in_order(a, b);
    };
    let not_hoisted = |(k, _): &(&String, &Value)| !matches!(k.as_str(), "title" | "description");
    let (mut xs, mut ys) = (x.iter().filter(not_hoisted), y.iter().filter(not_hoisted));
    loop {
        match (xs.next(), ys.next()) {
            (None, None) => return true,
            (Some((ka, va)), Some((kb, vb))) if ka == kb && same_in_order(va, vb) => {}
            _ => return false,
        }
    }
}

/// Whether two values are equal with their objects' keys in the same order: finer than JSON
/// equality (which ignores key order), so values it calls the same are structurally identical
/// under every [`KeyOptions`]; and no hashing, unlike `Value`'s `==` on objects.
fn same_in_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_in_order(p, q))
        }
        _ => a == b,
    }
}

/// A 128-bit digest of a schema's structural identity: equal for structurally identical schemas
/// (SPEC §3.4), and different for different ones except with negligible probability: two 64-bit
/// multiply-fold streams, each keyed with random seeds drawn per call, so that no input can be
/// crafted in advance to collide. Hashing instead of building a canonical string keeps dedup
/// allocation-light and linear; the streams are cheap enough to finish once per keyword entry,
/// which unordered maps need (entry digests are combined by addition, which ignores order).
struct Digester<'a> {
    seeds: [u64; 6],
    options: KeyOptions<'a>,
    /// The targets (by address) of the references into projections the digest is reading
    /// through now, outermost first (SPEC §6 decision 88): a reference to one of them, or past
    /// [`MAX_THROUGH`] of them, is read by its text.
    through: std::cell::RefCell<Vec<usize>>,
}

/// How many references into projections a digest reads through, one inside another: a
/// reference in a target's projection is read through again (zod-to-json-schema writes each
/// reuse of a schema as a reference, also inside a reused one); a chain ends here.
const MAX_THROUGH: usize = 8;

/// Digests of data values for keys made of several of them: [`Digester`]'s, so equal for data
/// equal by value (object keys unordered, numbers by value) and different otherwise except with
/// negligible probability, with seeds drawn per digester (one per projection).
pub(crate) struct DataDigester(Digester<'static>);

impl std::fmt::Debug for DataDigester {
    /// The seeds are not shown: they are drawn per digester and say nothing about its digests.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DataDigester")
    }
}

impl Default for DataDigester {
    fn default() -> Self {
        DataDigester::new()
    }
}

impl DataDigester {
    pub(crate) fn new() -> Self {
        DataDigester(Digester::new(KeyOptions::default()))
    }

    /// A data value's digest.
    pub(crate) fn data(&self, value: &Value) -> u128 {
        self.0.data(value)
    }

    /// The digest of `entries` as written: in their order, each object's keys in theirs, each
    /// number in its form (`1` and `1.0` differ): equal exactly when `serde_json` would print the
    /// entries (as an array of `[name, value]` pairs) the same, except with negligible
    /// probability. Fed into one stream in a prefix-free encoding (a tag per value, the length
    /// of every string and list), with no allocation.
    pub(crate) fn written<'e>(&self, entries: impl Iterator<Item = (&'e str, &'e Value)>) -> u128 {
        self.0.finish(|h| {
            h.write_u8(b'W');
            for (name, value) in entries {
                write_str(h, name);
                written(h, value);
            }
        })
    }

    /// The digest of a list of digests in any order, repeats counted (`digests` is sorted).
    pub(crate) fn bag(&self, digests: &mut [u128]) -> u128 {
        digests.sort_unstable();
        self.0.finish(|h| {
            h.write_u8(tag::BAG);
            for d in digests.iter() {
                h.write_u128(*d);
            }
        })
    }

    /// The digest of an object given as `(name, digest)` entries with distinct names, in any
    /// order: as [`DataDigester::data`] digests an object whose values have those digests.
    pub(crate) fn object<'n>(&self, entries: impl Iterator<Item = (&'n str, u128)>) -> u128 {
        self.0.object(entries)
    }
}

/// A string into a [`DataDigester::written`] stream: its length, then its bytes.
fn write_str(h: &mut Mix128, s: &str) {
    h.write_u64(s.len() as u64);
    h.write(s.as_bytes());
}

/// A value into a [`DataDigester::written`] stream, as written.
fn written(h: &mut Mix128, value: &Value) {
    match value {
        Value::Null => h.write_u8(b'n'),
        Value::Bool(b) => h.write_u8(if *b { b't' } else { b'f' }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                h.write_u8(b'u');
                h.write_u64(u);
            } else if let Some(i) = n.as_i64() {
                h.write_u8(b'i');
                h.write_u64(i as u64);
            } else {
                h.write_u8(b'd');
                h.write_u64(n.as_f64().unwrap_or_default().to_bits());
            }
        }
        Value::String(s) => {
            h.write_head(b's', s.len());
            h.write(s.as_bytes());
        }
        Value::Array(items) => {
            h.write_head(b'a', items.len());
            for item in items {
                written(h, item);
            }
        }
        Value::Object(map) => {
            h.write_head(b'o', map.len());
            for (k, v) in map {
                write_str(h, k);
                written(h, v);
            }
        }
    }
}

/// Keywords that make a reference's target mean, or be written, other than its text read in
/// place (SPEC §6 decision 88): a reference of its own (a chain, a cycle, a dynamic scope), a
/// resource or anchor, a dialect of its own, a union the presentation flattens where the target
/// stands, and the projection's own marks.
const OPEN: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$schema",
    "anyOf",
    "oneOf",
    keywords::SHARE_MARK,
    keywords::SHARE_PLACE,
];

/// Whether `schema` is *closed* (SPEC §6 decision 88): none of its subschemas, itself included,
/// holds an [`OPEN`] keyword or the draft's base-URI keyword. A closed schema means the same
/// wherever it is read, and the presentation writes it as it is written in the input.
fn closed(schema: &Value, draft: Draft) -> bool {
    closed_but(schema, draft, &[])
}

/// [`closed`], but for the [`OPEN`] keywords in `allowed`.
fn closed_but(schema: &Value, draft: Draft, allowed: &[&str]) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    let id = draft.id_keyword();
    if map
        .keys()
        .any(|k| k == id || (OPEN.contains(&k.as_str()) && !allowed.contains(&k.as_str())))
    {
        return false;
    }
    let mut all = true;
    keywords::subschemas(map, |_, v| all = all && closed_but(v, draft, allowed));
    all
}

/// The [`OPEN`] keywords a target may hold and still be read as its projection (SPEC §6
/// decision 88): unions, which the projection writes as it flattens them, and local references,
/// which mean the same wherever the target is written (the target holds no base-URI keyword, and
/// the repair redirects a reference by its target alone).
const PROJECTED: &[&str] = &["anyOf", "oneOf", "$ref"];

/// The pointer and the node a schema's local `$ref` reaches, where the reference is read as its
/// target at all (SPEC §6 decision 88): its siblings change nothing (annotations, or anything
/// where the draft ignores a reference's siblings), and `options` has the document.
fn reference_target<'a>(
    map: &Map<String, Value>,
    options: &KeyOptions<'a>,
) -> Option<(String, &'a Value)> {
    let document = options.document?;
    let Value::String(reference) = keywords::get(map, "$ref")? else {
        return None;
    };
    if !options.draft.ref_overrides_siblings()
        && map
            .keys()
            .any(|k| k != "$ref" && !keywords::is_annotation(k))
    {
        return None;
    }
    let at = crate::pointer::local_ref(reference)?;
    let target = crate::pointer::get(document, &at)?;
    Some((at, target))
}

/// The projection of a reference's target where the join may write its members in the
/// reference's place: a pure `anyOf`/`oneOf` wrapper ([`projection_behind`], SPEC §6 decision 88),
/// unless a reference followed from it leads back
/// to the target: a recursive union stays one reference (its members copied out would unroll
/// the recursion once more, to a depth that depends on how the input spelled it). The join
/// reads a reference to a pure wrapper union this way as the wrapper's members, as it reads the
/// wrapper itself (SPEC §3 step 3). Where the target is a part of a schema (not the root or a
/// root definition: a form that reuses a schema by the path of its first occurrence), a reference
/// to a node holding it is no way back: the wrapper written where the reference stands, as
/// another form writes it, is read as its members too.
pub(crate) fn expandable_projection<'a>(
    schema: &Value,
    options: &KeyOptions<'a>,
) -> Option<&'a Value> {
    let projection = projection_behind(schema, options)?;
    // Only a pure wrapper is read as its members: the walk below is for those alone (a model
    // referred to from many properties was walked at every one, 20 % of the process on
    // `pydantic-models-200`).
    keywords::wrapper_members(projection.as_object()?)?;
    let at = crate::pointer::local_ref(keywords::get(schema.as_object()?, "$ref")?.as_str()?)?;
    let document = options.document?;
    let back = match options.joins {
        Some(joins) => {
            let known = joins.leads_back.borrow().get(&at).copied();
            known.unwrap_or_else(|| {
                let back = leads_back(
                    document,
                    projection,
                    &at,
                    crate::pointer::is_root_definition(&at),
                );
                joins.leads_back.borrow_mut().insert(at, back);
                back
            })
        }
        None => leads_back(
            document,
            projection,
            &at,
            crate::pointer::is_root_definition(&at),
        ),
    };
    (!back).then_some(projection)
}

/// How many nodes [`leads_back`] reads before it answers yes.
const LEADS_BACK_BUDGET: usize = 4096;

/// Whether following the references in `from`, and in the nodes of `document` they reach, comes
/// back to the node at `target` or, with `holders`, to one holding it (a cycle through the
/// target); yes for a reference that is not a local pointer or resolves nowhere, and past
/// [`LEADS_BACK_BUDGET`] nodes.
fn leads_back(document: &Value, from: &Value, target: &str, holders: bool) -> bool {
    let mut budget = LEADS_BACK_BUDGET;
    let mut followed: FastSet<String> = FastSet::default();
    let mut stack = vec![from];
    while let Some(node) = stack.pop() {
        let Some(rest) = budget.checked_sub(1) else {
            return true;
        };
        budget = rest;
        let Value::Object(map) = node else {
            continue;
        };
        if let Some(Value::String(reference)) = keywords::get(map, "$ref") {
            let Some(at) = crate::pointer::local_ref(reference) else {
                return true;
            };
            let holds = |t: &str| {
                t.strip_prefix(at.as_str())
                    .is_some_and(|r| r.starts_with('/'))
            };
            if target == at || (holders && holds(target)) {
                return true;
            }
            if followed.insert(at.clone()) {
                match crate::pointer::get(document, &at) {
                    Some(next) => stack.push(next),
                    None => return true,
                }
            }
        }
        keywords::subschemas(map, |_, v| stack.push(v));
    }
    false
}

/// The projection a reference stands for in the presentation (SPEC §6 decision 88): a
/// reference read as its target, into a target closed but for the unions and references in it
/// (and holding a union), already projected. Dedup drops such a reference to a pure wrapper
/// union whose members are all among the alternatives before it (a recursive one, which the
/// join does not read as its members).
fn projection_behind<'a>(schema: &Value, options: &KeyOptions<'a>) -> Option<&'a Value> {
    let (at, target) = reference_target(schema.as_object()?, options)?;
    let draft = options.draft;
    if closed_but(target, draft, &["$ref"]) || !closed_but(target, draft, PROJECTED) {
        return None;
    }
    (options.projected?)(&at)
}

/// The byte that starts each kind of schema-level digest, so that no two kinds share an encoding
/// (data values start with their own: `n`, `t`, `f`, `#`, `s`, `a`, `o`).
mod tag {
    pub const SCHEMA: u8 = b'{';
    pub const SCHEMA_LIST: u8 = b'[';
    pub const MAP: u8 = b'M';
    pub const SET: u8 = b'<';
    pub const BAG: u8 = b'b';
}

/// One two-stream hasher of [`Digester`]: states `a`, `b`, multipliers `ka`, `kb` per word and
/// `fa`, `fb` for the final fold, all random per [`Digester`].
struct Mix128 {
    a: u64,
    b: u64,
    ka: u64,
    kb: u64,
    fa: u64,
    fb: u64,
    len: u64,
}

#[inline]
fn fold_mul(x: u64, k: u64) -> u64 {
    let r = u128::from(x).wrapping_mul(u128::from(k));
    (r as u64) ^ ((r >> 64) as u64)
}

impl Mix128 {
    #[inline]
    fn word(&mut self, w: u64) {
        self.a = fold_mul(self.a ^ w, self.ka);
        self.b = fold_mul(self.b ^ w.rotate_left(29), self.kb);
    }

    fn finish128(&self) -> u128 {
        let a = fold_mul(self.a ^ self.len, self.fa);
        let b = fold_mul(self.b ^ self.len.rotate_left(17), self.fb);
        (u128::from(a) << 64) | u128::from(b)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.len = self.len.wrapping_add(bytes.len() as u64);
        crate::fasthash::words(bytes, |w| self.word(w));
    }

    fn write_u8(&mut self, i: u8) {
        self.len = self.len.wrapping_add(1);
        self.word(u64::from(i) | 0x0100);
    }

    fn write_u64(&mut self, i: u64) {
        self.len = self.len.wrapping_add(8);
        self.word(i);
    }

    /// A tag and a count in one word: the head of a string, array or object in a
    /// [`DataDigester::written`] stream, which says how much of the stream follows it.
    fn write_head(&mut self, tag: u8, count: usize) {
        self.len = self.len.wrapping_add(9);
        self.word((u64::from(tag) << 56) | (count as u64 & ((1 << 56) - 1)));
    }

    fn write_u128(&mut self, i: u128) {
        self.len = self.len.wrapping_add(16);
        self.word(i as u64);
        self.word((i >> 64) as u64);
    }
}

impl<'a> Digester<'a> {
    fn new(options: KeyOptions<'a>) -> Self {
        Digester {
            seeds: options.joins.map_or_else(random_seeds, |j| j.seeds),
            options,
            through: std::cell::RefCell::default(),
        }
    }

    fn finish(&self, feed: impl FnOnce(&mut Mix128)) -> u128 {
        let mut h = Mix128 {
            a: self.seeds[0],
            b: self.seeds[1],
            ka: self.seeds[2],
            kb: self.seeds[3],
            fa: self.seeds[4],
            fb: self.seeds[5],
            len: 0,
        };
        feed(&mut h);
        h.finish128()
    }

    /// One `name: value` entry of an unordered map; entries are summed, which ignores order.
    fn entry(&self, name: &str, digest: u128) -> u128 {
        self.finish(|h| {
            h.write(name.as_bytes());
            h.write_u8(0xff);
            h.write_u128(digest);
        })
    }

    /// A schema: the unordered sum of its keyword entries, annotations left out.
    fn schema(&self, schema: &Value) -> u128 {
        let Value::Object(map) = schema else {
            return self.data(schema);
        };
        if let Some(digest) = self.seen_through(map) {
            return digest;
        }
        let (sum, count) = match self.shared_body(map) {
            Some((c, body)) => {
                let (sum, count) = self.entries(map, |k| k == keywords::SHARE_PLACE);
                let (s, n) = self.join_entries(c, body, keywords::has(map, "type"));
                (sum.wrapping_add(s), count + n)
            }
            None => self.entries(map, |_| false),
        };
        self.finish(|h| {
            h.write_u8(tag::SCHEMA);
            h.write_u64(count);
            h.write_u128(sum);
        })
    }

    /// The sum of `map`'s keyword entries (annotations, the share mark and what `skip` names
    /// left out), and their count.
    fn entries(&self, map: &Map<String, Value>, skip: impl Fn(&str) -> bool) -> (u128, u64) {
        let mut sum: u128 = 0;
        let mut count: u64 = 0;
        for (keyword, value) in map {
            if keywords::is_annotation(keyword) || keyword == keywords::SHARE_MARK || skip(keyword)
            {
                continue;
            }
            let (name, digest) = self.keyword(map, keyword, value);
            sum = sum.wrapping_add(self.entry(name, digest));
            count += 1;
        }
        (sum, count)
    }

    /// [`Digester::entries`] of group `c`'s join `body` (its `type` left out where the
    /// placeholder has one), kept in the projection's [`JoinDigests`] when there is one.
    fn join_entries(&self, c: usize, body: &Map<String, Value>, own_type: bool) -> (u128, u64) {
        let skip = |k: &str| own_type && k == "type";
        let Some(joins) = self.options.joins else {
            return self.entries(body, skip);
        };
        if let Some(kept) = joins.sums.borrow().get(&(c, own_type)) {
            return *kept;
        }
        let computed = self.entries(body, skip);
        joins.sums.borrow_mut().insert((c, own_type), computed);
        computed
    }

    /// The digest of the target a reference stands for, where it is read as its target (SPEC §6
    /// decision 88): a local `$ref` whose siblings change nothing (annotations, or anything
    /// where the draft ignores a reference's siblings), into a [closed] target. The target is
    /// then the same schema as the reference, and written the same in the presentation. Kept
    /// per target in the projection's [`JoinDigests`] when there are some.
    fn seen_through(&self, map: &Map<String, Value>) -> Option<u128> {
        let (at, target) = reference_target(map, &self.options)?;
        let address = std::ptr::from_ref(target) as usize;
        if let Some(kept) = self
            .options
            .joins
            .and_then(|joins| joins.targets.borrow().get(&address).copied())
        {
            return kept;
        }
        let draft = self.options.draft;
        if !closed(target, draft) && closed_but(target, draft, PROJECTED) {
            // Closed but for its unions and references: the presentation writes the target as
            // its projection (in place, or where the repair moves it), so the reference is
            // digested as that, references in it read through again up to a bound; with no
            // union in it, the projection is the target as written. Not projected yet (under
            // way), a target already being read through (a cycle), or past the bound: read by
            // its text. Not kept: the digest depends on what it is read inside.
            if self.through.borrow().len() >= MAX_THROUGH
                || self.through.borrow().contains(&address)
            {
                return None;
            }
            let projection = if closed_but(target, draft, &["$ref"]) {
                target
            } else {
                (self.options.projected?)(&at)?
            };
            self.through.borrow_mut().push(address);
            let digest = self.schema(projection);
            self.through.borrow_mut().pop();
            return Some(digest);
        }
        let digest = closed(target, draft).then(|| self.schema(target));
        if let Some(joins) = self.options.joins {
            joins.targets.borrow_mut().insert(address, digest);
        }
        digest
    }

    /// The join a shared site's placeholder stands for.
    fn shared_body(&self, map: &Map<String, Value>) -> Option<(usize, &'a Map<String, Value>)> {
        let c = usize::try_from(keywords::get(map, keywords::SHARE_PLACE)?.as_u64()?).ok()?;
        Some((c, (self.options.shared?)(c)?))
    }

    /// One keyword of the schema `map`: the entry name it digests under (`const` is the one-value
    /// `enum` where the draft has it) and its value's digest, read by the keyword's slot.
    fn keyword<'k>(
        &self,
        map: &Map<String, Value>,
        keyword: &'k str,
        value: &Value,
    ) -> (&'k str, u128) {
        match (keyword, keywords::slot(keyword), value) {
            ("required" | "enum" | "type", _, Value::Array(items)) => {
                (keyword, self.set(items.iter()))
            }
            ("type", _, v @ Value::String(_)) => ("type", self.set(std::iter::once(v))),
            ("const", _, v) if !map.contains_key("enum") && self.options.draft.has_const() => {
                ("enum", self.set(std::iter::once(v)))
            }
            (_, Some(Slot::Map | Slot::MapOfSchemaOrNames), Value::Object(children)) => {
                (keyword, self.map(keyword, children))
            }
            (_, Some(Slot::Array | Slot::SingleOrArray), Value::Array(items)) => {
                (keyword, self.schema_list(items))
            }
            (_, Some(_), v) => (keyword, self.schema(v)),
            (_, None, v) => (keyword, self.data(v)),
        }
    }

    /// An ordered list of schemas (`allOf`, `prefixItems`, …).
    fn schema_list(&self, items: &[Value]) -> u128 {
        let digests: Vec<u128> = items.iter().map(|i| self.schema(i)).collect();
        self.finish(|h| {
            h.write_u8(tag::SCHEMA_LIST);
            for d in &digests {
                h.write_u128(*d);
            }
        })
    }

    fn map(&self, keyword: &str, children: &Map<String, Value>) -> u128 {
        let mut sum: u128 = 0;
        let mut count: u64 = 0;
        for (name, child) in children {
            if self.options.strip_annotation_names
                && keyword == "properties"
                && keywords::is_annotation(name)
            {
                continue;
            }
            let digest = match child {
                Value::Array(items) => self.set(items.iter()),
                _ => self.schema(child),
            };
            sum = sum.wrapping_add(self.entry(name, digest));
            count += 1;
        }
        self.finish(|h| {
            h.write_u8(tag::MAP);
            h.write_u64(count);
            h.write_u128(sum);
        })
    }

    /// An unordered set of data values (repeats count once).
    fn set<'v>(&self, items: impl Iterator<Item = &'v Value>) -> u128 {
        let mut digests: Vec<u128> = items.map(|v| self.data(v)).collect();
        digests.sort_unstable();
        digests.dedup();
        self.finish(|h| {
            h.write_u8(tag::SET);
            for d in &digests {
                h.write_u128(*d);
            }
        })
    }

    /// A data value: object keys unordered, numbers by value.
    fn data(&self, value: &Value) -> u128 {
        match value {
            Value::Null => self.finish(|h| h.write_u8(b'n')),
            Value::Bool(b) => self.finish(|h| h.write_u8(if *b { b't' } else { b'f' })),
            Value::Number(n) => {
                let key = number_key(n);
                self.finish(|h| {
                    h.write_u8(b'#');
                    h.write(key.as_bytes());
                })
            }
            Value::String(s) => self.finish(|h| {
                h.write_u8(b's');
                h.write(s.as_bytes());
                h.write_u8(0xff);
            }),
            Value::Array(items) => {
                let digests: Vec<u128> = items.iter().map(|i| self.data(i)).collect();
                self.finish(|h| {
                    h.write_u8(b'a');
                    for d in &digests {
                        h.write_u128(*d);
                    }
                })
            }
            Value::Object(map) => self.object(map.iter().map(|(k, v)| (k.as_str(), self.data(v)))),
        }
    }

    /// A data object from its `(name, digest)` entries (distinct names), in any order.
    fn object<'n>(&self, entries: impl Iterator<Item = (&'n str, u128)>) -> u128 {
        let mut sum: u128 = 0;
        let mut count: u64 = 0;
        for (name, digest) in entries {
            sum = sum.wrapping_add(self.entry(name, digest));
            count += 1;
        }
        self.finish(|h| {
            h.write_u8(b'o');
            h.write_u64(count);
            h.write_u128(sum);
        })
    }
}

// The text keys below sort an object's entries by their (distinct) names and write each value
// in place, which is the order sorting `(name, text)` pairs would give, without a string per
// entry.

fn schema_key(schema: &Value, out: &mut String) {
    let Value::Object(map) = schema else {
        data_key(schema, out);
        return;
    };
    let has_enum = keywords::has(map, "enum");
    // A `const` beside no `enum` is written as the one-member `enum` it means.
    let mut entries: Vec<(&str, &String, &Value)> = map
        .iter()
        .filter(|(k, _)| !keywords::is_annotation(k) && k.as_str() != keywords::SHARE_MARK)
        .map(|(k, v)| match k.as_str() {
            "const" if !has_enum => ("enum", k, v),
            name => (name, k, v),
        })
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (name, keyword, value) in entries {
        push_quoted(out, name);
        out.push(':');
        match (keyword.as_str(), keywords::slot(keyword), value) {
            ("required" | "enum", _, Value::Array(items)) => sorted_set(items, out),
            ("const", _, v) if !has_enum => sorted_set(std::slice::from_ref(v), out),
            ("type", _, Value::String(_)) => sorted_set(std::slice::from_ref(value), out),
            ("type", _, Value::Array(items)) => sorted_set(items, out),
            (_, Some(Slot::Map | Slot::MapOfSchemaOrNames), Value::Object(children)) => {
                map_key(children, out);
            }
            (_, Some(Slot::Array | Slot::SingleOrArray), Value::Array(items)) => {
                out.push('[');
                for item in items {
                    schema_key(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            (_, Some(_), v) => schema_key(v, out),
            (_, None, v) => data_key(v, out),
        }
        out.push(',');
    }
    out.push('}');
}

fn map_key(children: &Map<String, Value>, out: &mut String) {
    let mut entries: Vec<(&String, &Value)> = children.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (name, child) in entries {
        push_quoted(out, name);
        out.push(':');
        match child {
            Value::Array(items) => sorted_set(items, out),
            _ => schema_key(child, out),
        }
        out.push(',');
    }
    out.push('}');
}

fn sorted_set(items: &[Value], out: &mut String) {
    let mut keys: Vec<String> = items
        .iter()
        .map(|v| {
            let mut s = String::new();
            data_key(v, &mut s);
            s
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    out.push('<');
    for k in keys {
        out.push_str(&k);
        out.push(',');
    }
    out.push('>');
}

/// Appends `s` as `{s:?}` writes it (the keys' text is unchanged), without the formatter for
/// the usual key or name: printable ASCII with nothing to escape is copied between quotes.
pub(crate) fn push_quoted(out: &mut String, s: &str) {
    if !push_plain_quoted(out, s) {
        let _ = write!(out, "{s:?}");
    }
}

/// Appends `s` between quotes where it is printable ASCII with nothing to escape (as both
/// `{s:?}` and JSON write it); whether it was.
pub(crate) fn push_plain_quoted(out: &mut String, s: &str) -> bool {
    let plain = s
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
    if plain {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
    plain
}

/// A data value's key: object keys sorted, numbers by value.
pub(crate) fn data_key(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_key(n)),
        Value::String(s) => {
            push_quoted(out, s);
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                data_key(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (k, v) in entries {
                push_quoted(out, k);
                out.push(':');
                data_key(v, out);
                out.push(',');
            }
            out.push('}');
        }
    }
}

/// 2^63, the first double past `i64` (the nearest double to this literal is exactly 2^63).
const I64_END: f64 = 9.223_372_036_854_776e18;
/// 2^64, the first double past `u64` (likewise exact).
const U64_END: f64 = 1.844_674_407_370_955_2e19;

/// A number's key: equal for numbers equal by value (`1`, `1.0`, `1e0`).
pub(crate) fn number_key(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        // An integral double converts exactly wherever the integer type holds it (2^63 and 2^64
        // are exact doubles), so `1e16` keys like `10000000000000000` (SPEC §3.4: numbers by
        // value; corpus/regressions/dedup-large-float-equals-integer.json).
        Some(f) if f.fract() == 0.0 && (-I64_END..I64_END).contains(&f) => {
            format!("{}", f as i64)
        }
        Some(f) if f.fract() == 0.0 && (0.0..U64_END).contains(&f) => format!("{}", f as u64),
        Some(f) => format!("{f:?}"),
        None => n.to_string(),
    }
}

/// The key of a scalar literal (for discriminator disjointness and enum unions).
pub(crate) fn literal_key(value: &Value) -> String {
    let mut s = String::new();
    data_key(value, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The fast path of deduplication calls two schemas the same only where their digests are
    /// equal, and it does fire on definitions that differ only in their own title or description.
    #[test]
    fn the_fast_path_keeps_what_the_digest_keeps() {
        let pairs = [
            (
                json!({"type": "string", "title": "A"}),
                json!({"type": "string", "title": "B"}),
                true,
            ),
            (
                json!({"title": "A", "type": "string", "description": "x"}),
                json!({"type": "string"}),
                true,
            ),
            (
                json!({"type": "string", "maxLength": 3}),
                json!({"type": "string", "title": "B"}),
                false,
            ),
            (
                json!({"type": "array", "items": {"type": "string", "title": "a"}}),
                json!({"type": "array", "items": {"type": "string", "title": "b"}}),
                false,
            ),
            (
                json!({"type": "integer", "examples": [1]}),
                json!({"type": "integer"}),
                false,
            ),
            (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}), false),
            (json!(true), json!(true), true),
        ];
        let digester = Digester::new(KeyOptions::default());
        for (a, b, fast) in pairs {
            assert_eq!(same_but_annotations(&a, &b), fast, "{a} {b}");
            if fast {
                assert_eq!(digester.schema(&a), digester.schema(&b), "{a} {b}");
                assert_eq!(
                    dedup_with(vec![a.clone(), b.clone()], KeyOptions::default()),
                    vec![a]
                );
            }
        }
    }

    /// The keys' text must not change with the fast path (sharing keys and digests order by it).
    #[test]
    fn push_quoted_writes_what_debug_writes() {
        let texts = [
            "",
            "name",
            "a b~",
            "with \"quote\"",
            "back\\slash",
            "tab\t",
            "nl\n",
            "nul\0",
            "del\u{7f}",
            "é",
            "日本",
            "zero\u{200b}width",
            "combining\u{301}",
            "emoji 🦀",
            "'single'",
        ];
        for t in texts {
            let mut out = String::new();
            push_quoted(&mut out, t);
            assert_eq!(out, format!("{t:?}"), "{t:?}");
        }
    }

    /// A placeholder is digested as its join; the projection keeps the join's digest, so a
    /// join rewritten in place must be forgotten to be read anew (SPEC §6 decision 73).
    #[test]
    fn placeholders_read_their_joins_digest_kept_until_forgotten() {
        let object = |v: Value| v.as_object().cloned().expect("an object");
        let before = object(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        let other = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let after = object(other.clone());
        let place = json!({"type": "object", "title": "T", (keywords::SHARE_PLACE): 0});
        let joins = JoinDigests::default();
        let kept = |body: &Map<String, Value>, joins: Option<&JoinDigests>| {
            let shared = |c: usize| (c == 0).then_some(body);
            let options = KeyOptions {
                shared: Some(&shared),
                joins,
                ..KeyOptions::default()
            };
            dedup_with(vec![place.clone(), other.clone()], options).len()
        };
        assert_eq!(
            kept(&before, Some(&joins)),
            2,
            "a string property is no integer one"
        );
        // The join is rewritten into the other alternative: until forgotten, the kept digest
        // still reads the join as it was.
        assert_eq!(kept(&after, Some(&joins)), 2, "the digest kept from before");
        joins.forget(0);
        assert_eq!(
            kept(&after, Some(&joins)),
            1,
            "the rewritten join is the other one"
        );
        // Without the projection's digests every dedup reads the join as it is.
        assert_eq!(kept(&before, None), 2);
        assert_eq!(kept(&after, None), 1);
    }

    #[test]
    fn ignores_annotations_order_and_number_form() {
        let a = json!({"type": ["string", "null"], "description": "a", "enum": ["x", "y"],
                       "properties": {"n": {"minimum": 1, "title": "N"}}, "required": ["b", "a"]});
        let b = json!({"required": ["a", "b"], "properties": {"n": {"minimum": 1.0}},
                       "enum": ["y", "x"], "type": ["null", "string"]});
        assert!(structurally_equal(&a, &b));
    }

    #[test]
    fn numbers_compare_by_value_across_the_integer_ranges() {
        // corpus/regressions/dedup-large-float-equals-integer.json: `1e16` is `10000000000000000`.
        let float = |f: f64| Value::Number(Number::from_f64(f).expect("finite"));
        for (f, int) in [
            (1e16, json!(10_000_000_000_000_000_i64)),
            (9e15, json!(9_000_000_000_000_000_i64)),
            (-1e18, json!(-1_000_000_000_000_000_000_i64)),
            (1.5e19, json!(15_000_000_000_000_000_000_u64)),
            (-0.0, json!(0)),
        ] {
            assert!(
                structurally_equal(&json!({"const": float(f)}), &json!({"const": int})),
                "{f:e} and {int}"
            );
            assert_eq!(
                dedup(vec![json!({"enum": [float(f)]}), json!({"enum": [int]})]).len(),
                1
            );
        }
        for (a, b) in [
            (float(1.5), json!(1)),
            (float(-2.5), json!(-2)),
            (float(1e16), json!(1)),
        ] {
            assert!(
                !structurally_equal(&json!({"const": a}), &json!({"const": b})),
                "{a} {b}"
            );
        }
    }

    #[test]
    fn the_range_ends_are_exact_powers_of_two() {
        assert_eq!(I64_END, 2f64.powi(63));
        assert_eq!(U64_END, 2f64.powi(64));
    }

    #[test]
    fn dependency_name_lists_are_sets() {
        let a = json!({"dependencies": {"a": ["b", "c"]}});
        let b = json!({"dependencies": {"a": ["c", "b", "c"]}});
        assert!(structurally_equal(&a, &b));
        assert_eq!(dedup(vec![a.clone(), b]).len(), 1);
        let c = json!({"dependencies": {"a": ["b"]}});
        assert!(!structurally_equal(&a, &c));
        assert_eq!(dedup(vec![a, c]).len(), 2);
    }

    #[test]
    fn property_named_like_annotation_is_data() {
        let a = json!({"properties": {"title": {"type": "string"}}});
        let b = json!({"properties": {}});
        assert!(!structurally_equal(&a, &b));
        let c = json!({"enum": [{"description": 1}]});
        let d = json!({"enum": [{"description": 2}]});
        assert!(!structurally_equal(&c, &d));
    }

    #[test]
    fn dedup_keeps_first_and_is_idempotent() {
        let xs = vec![
            json!({"type": "string", "description": "first"}),
            json!({"type": "number"}),
            json!({"type": "string", "description": "second"}),
        ];
        let once = dedup(xs);
        assert_eq!(
            once,
            vec![
                json!({"type": "string", "description": "first"}),
                json!({"type": "number"})
            ]
        );
        assert_eq!(dedup(once.clone()), once);
    }

    /// Objects that differ from the first in one way each: key order, number form, sign, order in
    /// a list, a `\0` in a string, where a string ends, nesting, a value, a missing entry.
    fn near_objects() -> [Value; 10] {
        [
            json!({"a": [1, {"b": "x"}], "c": null}),
            json!({"c": null, "a": [1, {"b": "x"}]}),
            json!({"a": [1.0, {"b": "x"}], "c": null}),
            json!({"a": [-1, {"b": "x"}], "c": null}),
            json!({"a": [{"b": "x"}, 1], "c": null}),
            json!({"a": [1, {"b": "x\0"}], "c": null}),
            json!({"a": [1, {"bx": ""}], "c": null}),
            json!({"a": [[1], {"b": "x"}], "c": null}),
            json!({"a": [1, {"b": "x"}], "c": false}),
            json!({"a": [1, {"b": "x"}]}),
        ]
    }

    #[test]
    fn data_digests_of_parts_agree_with_data_keys() {
        let d = DataDigester::new();
        let values = near_objects();
        for x in &values {
            for y in &values {
                let (mut kx, mut ky) = (String::new(), String::new());
                data_key(x, &mut kx);
                data_key(y, &mut ky);
                assert_eq!(d.data(x) == d.data(y), kx == ky, "{x} against {y}");
            }
            // An object from its entries' digests is the object's digest.
            let map = x.as_object().expect("an object");
            let parts = d.object(map.iter().map(|(k, v)| (k.as_str(), d.data(v))));
            assert_eq!(parts, d.data(x));
        }
        // A bag ignores order and counts repeats.
        let (a, b) = (d.data(&json!("a")), d.data(&json!("b")));
        assert_eq!(d.bag(&mut [a, b]), d.bag(&mut [b, a]));
        assert_ne!(d.bag(&mut [a, b]), d.bag(&mut [a, a, b]));
        assert_ne!(d.bag(&mut [a, b]), d.data(&json!(["a", "b"])));
    }

    #[test]
    fn written_digests_are_equal_exactly_when_the_texts_are() {
        let d = DataDigester::new();
        let values = near_objects();
        let digest = |v: &Value| {
            let map = v.as_object().expect("an object");
            d.written(map.iter().map(|(k, v)| (k.as_str(), v)))
        };
        let text = |v: &Value| {
            let map = v.as_object().expect("an object");
            serde_json::to_string(&map.iter().collect::<Vec<_>>()).expect("printable")
        };
        for x in &values {
            for y in &values {
                assert_eq!(
                    digest(x) == digest(y),
                    text(x) == text(y),
                    "{x} against {y}"
                );
            }
        }
    }

    #[test]
    fn digest_agrees_with_key() {
        let xs = vec![
            json!({"type": ["null", "string"], "properties": {"a": {"minimum": 1.0, "title": "t"}}}),
            json!({"properties": {"a": {"minimum": 1}}, "type": ["string", "null"], "description": "d"}),
            json!({"properties": {"title": {"minimum": 1}}, "type": ["string", "null"]}),
            json!({"enum": [1, 2, 2]}),
            json!({"enum": [2.0, 1]}),
            json!({"const": 1}),
            json!({"enum": [1]}),
        ];
        let deduped = dedup(xs.clone());
        let mut by_key: Vec<Value> = Vec::new();
        for x in xs {
            if !by_key.iter().any(|y| structurally_equal(&x, y)) {
                by_key.push(x);
            }
        }
        assert_eq!(deduped, by_key);
        assert_eq!(deduped.len(), 4);
    }

    /// Share of `digests` with bit `bit` set.
    fn bit_share(digests: &[u128], bit: u32) -> f64 {
        digests.iter().filter(|d| (*d >> bit) & 1 == 1).count() as f64 / digests.len() as f64
    }

    /// The digest's own promise (SPEC §3.4 dedup): structurally distinct schemas and data keep
    /// distinct digests, in each 64-bit stream on its own, and every one of the 128 output bits
    /// carries information (set in about half of the digests). A weaker mixing (an `|` or `&`
    /// for an `^`, a shift the wrong way, one stream dropped) fails one of these; the bounds are
    /// about nine standard deviations wide, so a sound digest does not fail them by chance.
    #[test]
    fn distinct_inputs_keep_distinct_balanced_digests() {
        let d = Digester::new(KeyOptions::default());
        let mut values = vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(""),
            json!([]),
            json!({}),
            json!([null]),
            json!({"a": null}),
        ];
        for i in 0..400 {
            values.push(json!(i + 1));
            values.push(json!(format!("s{i}")));
            values.push(json!({"type": "string", "maxLength": i}));
            values.push(json!({"enum": [i, i + 1]}));
            values.push(json!({"properties": {format!("p{i}"): {"type": "integer"}}}));
        }
        let digests: Vec<u128> = values.iter().map(|v| d.schema(v)).collect();
        let whole: FastSet<u128> = digests.iter().copied().collect();
        assert_eq!(whole.len(), values.len(), "128-bit digests collide");
        let high: FastSet<u64> = digests.iter().map(|x| (x >> 64) as u64).collect();
        assert_eq!(
            high.len(),
            values.len(),
            "the first stream collides on its own"
        );
        let low: FastSet<u64> = digests.iter().map(|x| *x as u64).collect();
        assert_eq!(
            low.len(),
            values.len(),
            "the second stream collides on its own"
        );
        for bit in 0..128 {
            let share = bit_share(&digests, bit);
            assert!(
                (0.40..=0.60).contains(&share),
                "output bit {bit} is set in {share:.3} of the digests"
            );
        }
    }

    /// Every write of the hasher feeds every bit of what it is given: one-bit inputs to
    /// `write_u8`, `write_u64` and `write_u128` give pairwise distinct digests.
    #[test]
    fn hasher_writes_feed_every_bit() {
        let d = Digester::new(KeyOptions::default());
        let mut seen: FastSet<u128> = FastSet::default();
        let mut distinct = |digest: u128, write: String| {
            assert!(seen.insert(digest), "{write} repeats an earlier digest");
        };
        for byte in 0..=255u8 {
            distinct(d.finish(|h| h.write_u8(byte)), format!("write_u8({byte})"));
        }
        for bit in 0..64 {
            let w = 1u64 << bit;
            distinct(
                d.finish(|h| h.write_u64(w)),
                format!("write_u64(1 << {bit})"),
            );
        }
        for bit in 0..128 {
            let w = 1u128 << bit;
            distinct(
                d.finish(|h| h.write_u128(w)),
                format!("write_u128(1 << {bit})"),
            );
        }
        distinct(d.finish(|h| h.write_u64(0)), "write_u64(0)".to_owned());
    }

    /// The input's length reaches each stream on its own: `write_u8(i)` and `write_u64(i | 0x100)`
    /// feed the same word and differ only in length, and must differ in both 64-bit halves.
    #[test]
    fn length_feeds_each_stream() {
        let d = Digester::new(KeyOptions::default());
        for byte in 0..=255u8 {
            let short = d.finish(|h| h.write_u8(byte));
            let long = d.finish(|h| h.write_u64(u64::from(byte) | 0x0100));
            assert_ne!(short >> 64, long >> 64, "first stream, byte {byte}");
            assert_ne!(short as u64, long as u64, "second stream, byte {byte}");
        }
    }

    /// Avalanche: flipping one input bit flips about half of each stream's 64 output bits, on
    /// average over every input bit (a multiply without the fold of its high half moves changes
    /// only upwards and averages about a quarter).
    #[test]
    fn one_input_bit_flips_half_of_each_stream() {
        let d = Digester::new(KeyOptions::default());
        let mut x: u64 = 0x0123_4567_89ab_cdef;
        let (mut high, mut low, mut samples) = (0u64, 0u64, 0u64);
        for _ in 0..64 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let base = d.finish(|h| h.write_u64(x));
            for bit in 0..64 {
                let flipped = d.finish(|h| h.write_u64(x ^ (1 << bit)));
                let diff = base ^ flipped;
                high += u64::from(((diff >> 64) as u64).count_ones());
                low += u64::from((diff as u64).count_ones());
                samples += 1;
            }
        }
        for (stream, flips) in [("first", high), ("second", low)] {
            let mean = flips as f64 / samples as f64;
            assert!(
                (28.0..=36.0).contains(&mean),
                "the {stream} stream flips {mean:.2} of 64 bits per input bit"
            );
        }
    }

    #[test]
    fn const_equals_one_value_enum() {
        assert!(structurally_equal(
            &json!({"const": 2}),
            &json!({"enum": [2.0]})
        ));
        assert!(!structurally_equal(
            &json!({"const": 2}),
            &json!({"enum": [2, 3]})
        ));
    }

    /// SPEC §6 decision 88: a local reference whose siblings change nothing, into a closed
    /// target, is the same alternative as its target written inline, at the top and below; a
    /// reference with an assertion beside it (2020-12), into a target that refers on, holds a
    /// union, names a resource or declares a dialect, or that does not resolve, is read by its
    /// text.
    #[test]
    fn a_reference_into_a_closed_target_is_its_target() {
        let m = json!({"type": "object", "properties": {"a": {"type": "string"}}, "title": "M"});
        let inline =
            json!({"type": "object", "properties": {"a": {"type": "string", "description": "d"}}});
        // Each dedup twice, the second time with the projection's kept digests (read twice, so
        // the second read is the kept one): the same answer.
        let kept = |document: &Value, draft: Draft, alternatives: Vec<Value>| {
            let options = KeyOptions {
                draft,
                document: Some(document),
                ..KeyOptions::default()
            };
            let alone = dedup_with(alternatives.clone(), options).len();
            let joins = JoinDigests::default();
            let options = KeyOptions {
                joins: Some(&joins),
                ..options
            };
            for _ in 0..2 {
                assert_eq!(dedup_with(alternatives.clone(), options).len(), alone);
            }
            alone
        };
        let doc = |m: Value| json!({"$defs": {"M": m}, "definitions": {"M": {"type": "integer"}}});
        let r = json!({"$ref": "#/$defs/M", "title": "Data"});
        let d = doc(m.clone());
        let latest = Draft::Draft202012;
        assert_eq!(kept(&d, latest, vec![r.clone(), inline.clone()]), 1);
        assert_eq!(kept(&d, latest, vec![inline.clone(), r.clone()]), 1);
        // Below the top: an array of the reference and an array of the inline copy.
        let items = |i: &Value| json!({"type": "array", "items": i});
        assert_eq!(kept(&d, latest, vec![items(&r), items(&inline)]), 1);
        // Without the document, or to another target, the reference is its text.
        assert_eq!(
            dedup_with(vec![r.clone(), inline.clone()], KeyOptions::default()).len(),
            2
        );
        let other = json!({"$ref": "#/definitions/M"});
        assert_eq!(kept(&d, latest, vec![other, inline.clone()]), 2);
        // An assertion beside the reference counts in 2020-12, and is ignored by draft-07.
        let narrowed = json!({"$ref": "#/$defs/M", "required": ["a"]});
        assert_eq!(kept(&d, latest, vec![narrowed.clone(), inline.clone()]), 2);
        assert_eq!(kept(&d, Draft::Draft7, vec![narrowed, inline.clone()]), 1);
        // Targets that are not closed (a union with no projection to read: see
        // `a_reference_into_a_projected_target_is_its_projection`).
        for open in [
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "$id": "s"}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"a": {"type": "string"}}}),
        ] {
            let d = json!({"$defs": {"M": open.clone(), "S": {"type": "string"}}});
            let r = json!({"$ref": "#/$defs/M"});
            assert_eq!(kept(&d, latest, vec![r, open.clone()]), 2, "{open}");
        }
        // A property named like a keyword is no keyword: `id` in draft-04's `properties`.
        let with_id = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        let d = json!({"definitions": {"M": with_id.clone()}});
        let r = json!({"$ref": "#/definitions/M"});
        assert_eq!(kept(&d, Draft::Draft4, vec![r, with_id]), 1);
        // A reference that resolves nowhere.
        let d = json!({});
        assert_eq!(
            kept(&d, latest, vec![json!({"$ref": "#/$defs/M"}), inline]),
            2
        );
    }

    #[test]
    fn a_reference_into_a_projected_target_is_its_projection() {
        let latest = Draft::Draft202012;
        // A union target, and what the projection made of it (flattened).
        let union = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        let flat = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        let d = json!({"$defs": {"U": union, "W": {"anyOf": [{"$ref": "#/$defs/U"}]}}});
        let memo = |at: &str| (at == "/$defs/U").then_some(&flat);
        let options = |projected| KeyOptions {
            draft: latest,
            document: Some(&d),
            projected,
            ..KeyOptions::default()
        };
        let r = json!({"$ref": "#/$defs/U"});
        let count = |alternatives: Vec<Value>, o| dedup_with(alternatives, o).len();
        assert_eq!(
            count(vec![r.clone(), flat.clone()], options(Some(&memo))),
            1
        );
        assert_eq!(
            count(vec![flat.clone(), r.clone()], options(Some(&memo))),
            1
        );
        // Not projected (yet): its text.
        assert_eq!(count(vec![r.clone(), flat.clone()], options(None)), 2);
        // The target's union as written is not its projection.
        let union = d["$defs"]["U"].clone();
        assert_eq!(count(vec![r.clone(), union], options(Some(&memo))), 2);
        // A reference inside the projection is read through again: `W`'s member is `U`.
        let w = json!({"$ref": "#/$defs/W"});
        let wrapped = json!({"anyOf": [flat.clone()]});
        let no_w = |at: &str| memo(at).or((at == "/$defs/W").then_some(&d["$defs"]["W"]));
        assert_eq!(count(vec![w, wrapped], options(Some(&no_w))), 1);
        // The wrapper a reference stands for, for the join to read as its members.
        let wrapper = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        let memo = |at: &str| (at == "/$defs/U").then_some(&wrapper);
        assert_eq!(projection_behind(&r, &options(Some(&memo))), Some(&wrapper));
        assert_eq!(projection_behind(&r, &options(None)), None);
        // A reference to a wrapper whose members are all among the alternatives before it is
        // dropped; one before them, or with a member missing, stays.
        let d = json!({"$defs": {"U": wrapper.clone()}});
        let options = KeyOptions {
            draft: latest,
            document: Some(&d),
            projected: Some(&memo),
            ..KeyOptions::default()
        };
        // The join copies a wrapper's members in the reference's place, unless the wrapper is
        // recursive (a reference followed from it leads back to it or to a node holding it).
        assert_eq!(expandable_projection(&r, &options), Some(&wrapper));
        for recursive in [
            json!({"anyOf": [{"type": "null"}, {"items": {"$ref": "#/$defs/U"}}]}),
            json!({"anyOf": [{"type": "null"}, {"$ref": "#/$defs"}]}),
        ] {
            let d = json!({"$defs": {"U": recursive}});
            let memo = |at: &str| (at == "/$defs/U").then_some(&d["$defs"]["U"]);
            let options = KeyOptions {
                draft: latest,
                document: Some(&d),
                projected: Some(&memo),
                ..KeyOptions::default()
            };
            assert_eq!(expandable_projection(&r, &options), None);
            assert!(projection_behind(&r, &options).is_some());
        }
        {
            // A wrapper inside a definition (a reuse by path) whose member refers to the
            // definition holding it is read as its members; the definition's own wrapper is not.
            let d = json!({"$defs": {"D": {"type": "object", "properties": {"value":
                {"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}]}}}}});
            let inner = d["$defs"]["D"]["properties"]["value"].clone();
            let memo = |at: &str| (at == "/$defs/D/properties/value").then_some(&inner);
            let options = KeyOptions {
                draft: latest,
                document: Some(&d),
                projected: Some(&memo),
                ..KeyOptions::default()
            };
            let by_path = json!({"$ref": "#/$defs/D/properties/value"});
            assert_eq!(expandable_projection(&by_path, &options), Some(&inner));
            let d = json!({"$defs": {"W": {"anyOf": [{"$ref": "#/$defs/W"}, {"type": "null"}]},
                "D": {"properties": {"value": {"anyOf": [{"$ref": "#/$defs/D/properties/value"},
                {"type": "null"}]}}}}});
            for (at, reference) in [
                ("/$defs/W", "#/$defs/W"),
                ("/$defs/D/properties/value", "#/$defs/D/properties/value"),
            ] {
                let target = crate::pointer::get(&d, at).expect("target").clone();
                let memo = |p: &str| (p == at).then_some(&target);
                let options = KeyOptions {
                    draft: latest,
                    document: Some(&d),
                    projected: Some(&memo),
                    ..KeyOptions::default()
                };
                // A wrapper that refers to itself stays one reference, wherever it stands.
                assert_eq!(
                    expandable_projection(&json!({"$ref": reference}), &options),
                    None
                );
            }
        }
        let (string, null) = (json!({"type": "string"}), json!({"type": "null"}));
        let all = vec![string.clone(), null.clone(), r.clone()];
        assert_eq!(dedup_with(all, options), vec![string.clone(), null.clone()]);
        assert_eq!(
            count(vec![r.clone(), string.clone(), null.clone()], options),
            3
        );
        assert_eq!(count(vec![string, r.clone()], options), 2);
        // A target with references but no union is read as written, through its references,
        // and a cycle ends at a target already being read: the copy one level out is another
        // schema, so both stay (sound, one alternative too many).
        let d = json!({"$defs": {
            "M": {"type": "object", "properties": {"a": {"$ref": "#/$defs/S"}}},
            "S": {"type": "string"},
            "T": {"type": "object", "properties": {"next": {"$ref": "#/$defs/T"}}},
        }});
        let options = KeyOptions {
            draft: latest,
            document: Some(&d),
            ..KeyOptions::default()
        };
        let m = json!({"$ref": "#/$defs/M"});
        let inline = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(count(vec![m.clone(), inline], options), 1);
        assert_eq!(count(vec![m, d["$defs"]["M"].clone()], options), 1);
        assert_eq!(
            projection_behind(&json!({"$ref": "#/$defs/M"}), &options),
            None
        );
        let t = json!({"$ref": "#/$defs/T"});
        assert_eq!(count(vec![t.clone(), t.clone()], options), 1);
        assert_eq!(count(vec![t, d["$defs"]["T"].clone()], options), 2);
    }
}
