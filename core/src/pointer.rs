//! JSON pointers (RFC 6901): building them while walking, and resolving local `$ref` fragments.

use std::borrow::Cow;

use crate::fasthash::FastSet;
use serde_json::Value;

/// Appends one reference token to `base`, escaping `~` and `/`.
pub(crate) fn push(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    push_into(&mut out, token);
    out
}

/// Whether `token` needs escaping: a byte scan (`~` and `/` are ASCII, never inside a multi-byte
/// character), cheaper on the short tokens of a schema than a char pattern search.
fn needs_escape(token: &str) -> bool {
    token.bytes().any(|b| b == b'~' || b == b'/')
}

/// Appends one escaped reference token to the pointer held in `buf` (no allocation beyond
/// growing the buffer: the projection reuses one buffer for the whole walk).
pub(crate) fn push_into(buf: &mut String, token: &str) {
    buf.push('/');
    if !needs_escape(token) {
        buf.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => buf.push_str("~0"),
            '/' => buf.push_str("~1"),
            c => buf.push(c),
        }
    }
}

/// Appends an array index to the pointer held in `buf`.
pub(crate) fn push_index_into(buf: &mut String, index: usize) {
    // Digits written backwards into a buffer, not through the formatter: this runs for every
    // array member the walks pass.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.push('/');
    buf.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Appends an array index to `base`.
pub(crate) fn push_index(base: &str, index: usize) -> String {
    let mut out = String::with_capacity(base.len() + 4);
    out.push_str(base);
    push_index_into(&mut out, index);
    out
}

/// The pointer `rest` (empty or starting with `/`) moved under `base`: their concatenation, made
/// in one allocation (the formatter costs several times as much on this hot path).
pub(crate) fn under(base: &str, rest: &str) -> String {
    let mut out = String::with_capacity(base.len() + rest.len());
    out.push_str(base);
    out.push_str(rest);
    out
}

/// A pointer as an error message shows it: `(root)` for the empty pointer.
pub(crate) fn shown(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

/// One pointer token unescaped (`~1` is `/`, `~0` is `~`, in that order, RFC 6901 §4); borrowed
/// when it has no `~`, as nearly every token has.
#[inline]
pub(crate) fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Splits a JSON pointer into unescaped tokens. `""` has none.
#[cfg(test)]
pub(crate) fn tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer.split('/').skip(1).map(|t| unescape(t).into_owned())
}

/// Looks `pointer` up in `document`.
///
/// The same answers as `Value::pointer`, without its two string allocations per token: the
/// projection resolves a pointer per union site and per branch part, and on deeply nested
/// documents those allocations were a quarter of the whole join (callgrind, 255 nested sites).
pub(crate) fn get<'a>(document: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(document);
    }
    let rest = pointer.strip_prefix('/')?;
    let mut node = document;
    for token in rest.split('/') {
        node = step(node, &unescape(token))?;
    }
    Some(node)
}

/// The places at or above some of a set of pointers: each pointer and every pointer it lies
/// under (its prefixes that end a token), held as slices of the pointers themselves, so whether
/// one of them is at a place or under it is one lookup.
pub(crate) struct Enclosing<'a>(FastSet<&'a str>);

impl<'a> Enclosing<'a> {
    pub(crate) fn new(pointers: impl IntoIterator<Item = &'a str>) -> Self {
        let mut places = FastSet::default();
        for pointer in pointers {
            let mut end = pointer.len();
            // A place already held has its own places above it held too.
            while places.insert(&pointer[..end]) && end > 0 {
                end = pointer[..end].rfind('/').unwrap_or(0);
            }
        }
        Enclosing(places)
    }

    /// Whether one of the pointers is `at` or lies under it (`at` then `/`).
    pub(crate) fn any_at_or_under(&self, at: &str) -> bool {
        self.0.contains(at)
    }
}

/// Whether `ptr` is the root or a root definition (`/$defs/name`, `/definitions/name`): a
/// place a reference names as a whole, where a reference elsewhere names a part of a schema
/// (zod-to-json-schema's reuse of a schema's first occurrence by its path).
pub(crate) fn is_root_definition(ptr: &str) -> bool {
    ptr.is_empty()
        || ["/$defs/", "/definitions/"]
            .iter()
            .any(|c| ptr.strip_prefix(c).is_some_and(|name| !name.contains('/')))
}

/// Whether `ptr` is `at` or lies under it (`at` then `/`).
pub(crate) fn is_at_or_under(ptr: &str, at: &str) -> bool {
    ptr.strip_prefix(at)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The pointers above `ptr`, the root first: `""`, `/a` for `/a/b`; none for the root.
pub(crate) fn ancestors(ptr: &str) -> impl Iterator<Item = &str> {
    ptr.bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'/')
        .map(move |(i, _)| &ptr[..i])
}

/// Resolves pointers into one document one after another, each from the longest run of whole
/// tokens it shares with the one before, not from the root: the union sites of a document come in
/// its order, so a site under a model with hundreds of properties costs one lookup in them, not
/// one per token from the root. Answers what [`get`] answers.
pub(crate) struct Cursor<'a> {
    document: &'a Value,
    /// The pointer resolved last.
    last: String,
    /// For each of its tokens: where the token ends in `last`, and the node it leads to.
    path: Vec<(usize, &'a Value)>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(document: &'a Value) -> Self {
        Cursor {
            document,
            last: String::new(),
            path: Vec::new(),
        }
    }

    pub(crate) fn get(&mut self, pointer: &str) -> Option<&'a Value> {
        let common = self
            .last
            .bytes()
            .zip(pointer.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let bytes = pointer.as_bytes();
        let kept = self
            .path
            .iter()
            .take_while(|(end, _)| *end <= common && (*end == bytes.len() || bytes[*end] == b'/'))
            .count();
        self.path.truncate(kept);
        let (mut at, mut node) = self.path.last().copied().unwrap_or((0, self.document));
        self.last.clear();
        if at == bytes.len() {
            self.last.push_str(pointer);
            return Some(node);
        }
        if bytes[at] != b'/' {
            self.path.clear();
            return None;
        }
        for token in pointer[at + 1..].split('/') {
            at += 1 + token.len();
            let Some(next) = step(node, &unescape(token)) else {
                self.path.clear();
                return None;
            };
            node = next;
            self.path.push((at, node));
        }
        self.last.push_str(pointer);
        Some(node)
    }
}

/// One step of [`get`]: a member of an object, or an element of an array by a canonical index
/// (no sign, no leading zero — as RFC 6901 and `serde_json` read it).
fn step<'a>(node: &'a Value, token: &str) -> Option<&'a Value> {
    match node {
        Value::Object(map) => crate::keywords::get(map, token),
        Value::Array(items) => {
            if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
                return None;
            }
            items.get(token.parse::<usize>().ok()?)
        }
        _ => None,
    }
}

/// Turns a `$ref` string into a pointer into this document, when it is local.
///
/// `#` and `#/a/b` (URI fragments, percent-decoded) are local pointers. Anything else (a remote
/// URI, a relative file, an anchor such as `#node`) returns `None`: it is never fetched.
pub fn local_ref(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return None;
    }
    Some(percent_decode(fragment))
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// Encodes a pointer as a `$ref` fragment (`#` + pointer; `%` is escaped so decoding round-trips).
pub(crate) fn to_ref(pointer: &str) -> String {
    format!("#{}", pointer.replace('%', "%25"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `Enclosing` answers whether a pointer of the set is the place or starts with the place
    /// then `/`, for the root, escaped tokens and names that share a prefix with the place.
    #[test]
    fn enclosing_places_are_the_pointers_and_what_they_lie_under() {
        let sets: [&[&str]; 4] = [
            &[
                "/properties/a/oneOf",
                "/properties/a!b/anyOf",
                "/$defs/M~1N/oneOf/0/anyOf",
            ],
            &[""],
            &["/items/0", "/items/0/properties/x", "/items/10"],
            &[],
        ];
        let places = [
            "",
            "/properties",
            "/properties/a",
            "/properties/a!b",
            "/properties/a!",
            "/properties/ab",
            "/properties/a/oneOf",
            "/properties/a/oneOf/0",
            "/$defs",
            "/$defs/M~1N/oneOf",
            "/$defs/M~1N/oneO",
            "/$defs/M",
            "/items/1",
            "/items/0",
            "/items/10",
            "/items/0/properties",
            "/items/0/properties/x/y",
            "/x",
        ];
        for set in sets {
            let enclosing = Enclosing::new(set.iter().copied());
            for at in places {
                let expected = set
                    .iter()
                    .any(|p| *p == at || p.starts_with(&format!("{at}/")));
                assert_eq!(enclosing.any_at_or_under(at), expected, "{at} in {set:?}");
            }
        }
    }

    /// A cursor answers what `get` answers, whatever came before.
    #[test]
    fn a_cursor_resolves_what_get_resolves() {
        let doc = json!({
            "a": {"b": {"c": 1}, "bc": [10, {"x~y": {"d/e": 2}}], "": {"": 3}},
            "$defs": {"M": {"oneOf": [{"$ref": "#/$defs/N"}, true]}},
            "b": [[0, 1], [2]]
        });
        let pointers = [
            "/a/b/c",
            "/a/bc/1",
            "/a/bc/1/x~0y/d~1e",
            "/a/b",
            "/a/bc",
            "/a/b/c",
            "/a/b/c/d",
            "/a/b/c",
            "/a//",
            "/a/",
            "/a",
            "",
            "/a/bc/01",
            "/a/bc/+1",
            "/a/bc/2",
            "/b/0/1",
            "/b/1/0",
            "/b/1",
            "/b/0",
            "a/b",
            "/$defs/M/oneOf/0/$ref",
            "/$defs/M/oneOf/1",
            "/$defs/M/oneOf/1/x",
            "/$defs/M/oneOf/1",
            "/$defs/M",
            "/missing/x",
            "/a/b/c",
            "/",
            "/a/b/c",
            "/a/bc/1/x~0y",
            "/a/bc/1/x~1y",
            "/a/bc/1/x~0y/d~1e",
        ];
        let mut cursor = Cursor::new(&doc);
        for p in pointers {
            assert_eq!(cursor.get(p), get(&doc, p), "after the ones before: {p:?}");
            assert_eq!(Cursor::new(&doc).get(p), get(&doc, p), "{p:?}");
        }
        // Every order of a few pointers with shared prefixes.
        let few = ["/a/b/c", "/a/bc/1", "/a/b", "/a", "/a/bc/0", "/b/1/0", ""];
        for first in few {
            for second in few {
                for third in few {
                    let mut cursor = Cursor::new(&doc);
                    for p in [first, second, third] {
                        assert_eq!(cursor.get(p), get(&doc, p), "{first} {second} {third}");
                    }
                }
            }
        }
    }

    #[test]
    fn indices_are_written_in_decimal() {
        for i in [0, 1, 9, 10, 11, 99, 100, 101, 12_345, 1 << 32, usize::MAX] {
            let mut buf = String::from("/a");
            push_index_into(&mut buf, i);
            assert_eq!(buf, format!("/a/{i}"));
            assert_eq!(push_index("/b", i), format!("/b/{i}"));
        }
    }

    #[test]
    fn escapes_and_resolves() {
        let doc = json!({"a/b": {"c~d": [1, 2]}});
        let p = push_index(&push(&push("", "a/b"), "c~d"), 1);
        assert_eq!(p, "/a~1b/c~0d/1");
        assert_eq!(get(&doc, &p), Some(&json!(2)));
        assert_eq!(tokens(&p).collect::<Vec<_>>(), vec!["a/b", "c~d", "1"]);
    }

    #[test]
    fn get_agrees_with_serde_json() {
        let doc = json!({"a/b": {"c~d": [1, {"": 2}], "~1": 3}, "": {"x": 4}, "0": [5]});
        for p in [
            "",
            "/",
            "/a~1b",
            "/a~1b/c~0d",
            "/a~1b/c~0d/0",
            "/a~1b/c~0d/1/",
            "/a~1b/c~0d/01",
            "/a~1b/c~0d/+1",
            "/a~1b/c~0d/-1",
            "/a~1b/c~0d/2",
            "/a~1b/~01",
            "//x",
            "/0/0",
            "/0/00",
            "a",
            "/missing",
            "/a~1b/c~0d/1/x/y",
        ] {
            assert_eq!(get(&doc, p), doc.pointer(p), "pointer {p:?}");
        }
    }

    #[test]
    fn local_refs_only() {
        assert_eq!(local_ref("#").as_deref(), Some(""));
        assert_eq!(local_ref("#/$defs/A%20B").as_deref(), Some("/$defs/A B"));
        assert_eq!(local_ref("#anchor"), None);
        assert_eq!(local_ref("https://example.com/s.json#/x"), None);
        assert_eq!(local_ref(&to_ref("/a%b")).as_deref(), Some("/a%b"));
    }
}
