//! The hasher of the join's internal maps (property names, branch indexes, digests): `foldhash`'s
//! fast hasher, seeded randomly per process (so a schema cannot be crafted in advance to collide
//! its keys), where `std`'s SipHash would pay for hash-flooding resistance on every short key;
//! and [`words`], the word feed of the canonical digest (`canonical.rs`).

use std::collections::{HashMap, HashSet};

/// The maps' hasher builder.
pub(crate) type FastState = foldhash::fast::RandomState;
/// A `HashMap` with [`FastState`].
pub(crate) type FastMap<K, V> = HashMap<K, V, FastState>;
/// A `HashSet` with [`FastState`].
pub(crate) type FastSet<K> = HashSet<K, FastState>;

/// Feeds `bytes` to `f` as little-endian 8-byte words; the last word is zero-padded and carries
/// the length in its top byte, so `"a"` and `"a\0"` differ.
#[inline]
pub(crate) fn words(bytes: &[u8], mut f: impl FnMut(u64)) {
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        f(u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    let mut w = [0u8; 8];
    w[..rest.len()].copy_from_slice(rest);
    f(u64::from_le_bytes(w) ^ ((bytes.len() as u64) << 56));
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn distinguishes_short_keys() {
        let mut set: FastSet<String> = FastSet::default();
        for i in 0..10_000 {
            set.insert(format!("p{i}"));
        }
        assert_eq!(set.len(), 10_000);
        let hashes: FastSet<u64> = ["", "a", "b", "ab", "ba", "a\0"]
            .iter()
            .map(|s| FastState::default().hash_one(s))
            .collect();
        assert_eq!(hashes.len(), 6);
    }
}
