//! A fast hasher for the join's internal maps (property names, branch indexes, digests).
//!
//! `std`'s SipHash is built to resist hash flooding from hostile keys and pays for it on every
//! short key; these maps are hit once per property per branch. This multiply-fold hasher is
//! seeded randomly per process, so a schema cannot be crafted in advance to collide its keys.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::OnceLock;

/// A `HashMap` with [`FastState`].
pub(crate) type FastMap<K, V> = HashMap<K, V, FastState>;
/// A `HashSet` with [`FastState`].
pub(crate) type FastSet<K> = HashSet<K, FastState>;

/// Builds [`FastHasher`]s from one random per-process seed.
#[derive(Clone, Copy)]
pub(crate) struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        static SEED: OnceLock<u64> = OnceLock::new();
        FastState(*SEED.get_or_init(|| RandomState::new().hash_one(0x5eed_u64) | 1))
    }
}

impl BuildHasher for FastState {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

/// A multiply-fold hasher over 8-byte words.
pub(crate) struct FastHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

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

impl FastHasher {
    #[inline]
    fn word(&mut self, w: u64) {
        let r = u128::from(self.0 ^ w).wrapping_mul(u128::from(K));
        self.0 = (r as u64) ^ ((r >> 64) as u64);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        words(bytes, |w| self.word(w));
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.word(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.word(i as u64);
        self.word((i >> 64) as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        let r = u128::from(self.0).wrapping_mul(u128::from(K ^ 0xff51_afd7_ed55_8ccd));
        (r as u64) ^ ((r >> 64) as u64)
    }
}

#[cfg(test)]
mod tests {
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
