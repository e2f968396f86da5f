//! Drawing and shrinking: the bottom layer of the harness's generated inputs. The seeded
//! proptest runners (one per seed, one per case index, one per fuzzer input), the one shrinking
//! walk, and the one hash (FNV-1a, stable across runs and platforms).
//!
//! It knows no case type and no oracle: the generators (`generate`, `open_world`), the `check`
//! driver, the implementation driver (`protocol::run`) and the fuzz checks all draw through it,
//! and it depends on none of them.

use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The FNV-1a offset basis (64-bit).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The FNV-1a prime (64-bit).
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_OFFSET, bytes)
}

/// FNV-1a over `bytes`, starting from `basis` instead of the offset basis.
fn fnv1a_from(basis: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(basis, |h, b| (h ^ u64::from(*b)).wrapping_mul(FNV_PRIME))
}

/// Eight hex digits naming `text` (the high half of its FNV-1a hash): enough to name a file.
pub fn short_hash(text: &str) -> String {
    format!("{:08x}", fnv1a(text.as_bytes()) >> 32)
}

/// A deterministic proptest runner: ChaCha seeded with `seed`, no failure persistence.
fn runner_from(seed: &[u8; 32]) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, seed),
    )
}

/// A deterministic proptest runner for `seed`.
pub fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes(),
        );
    }
    runner_from(&bytes)
}

/// The runner that draws case `index` of `seed`: every generated case is a function of the seed
/// and its index alone, so any worker can draw any case and a reported case index replays
/// directly.
pub fn case_runner(seed: u64, index: u32) -> TestRunner {
    // splitmix64 of the pair: neighbouring indices get unrelated streams.
    let mut z = seed
        ^ u64::from(index)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    runner(z ^ (z >> 31))
}

/// The runner a fuzzer's bytes select: `bytes` folded into the 32-byte ChaCha seed, FNV-1a per
/// lane, so every byte reaches the seed and one changed byte changes it. (Proptest's
/// pass-through RNG, which would hand the bytes to a strategy's choices directly, yields zeros
/// once the bytes run out, on which some strategies never finish drawing.)
pub fn bytes_runner(bytes: &[u8]) -> TestRunner {
    let mut seed = [0u8; 32];
    for (lane, chunk) in seed.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&fnv1a_from(FNV_OFFSET ^ (lane as u64), bytes).to_le_bytes());
    }
    runner_from(&seed)
}

/// The one shrinking walk of the harness (the model's and the open-world generator's, in
/// process and through the protocol): simplify while `fails` still answers a violation,
/// complicate when it does not, at most `max_steps` steps; the smallest case that failed, with
/// its violation.
pub fn shrink_with<T: std::fmt::Debug, V>(
    tree: &mut dyn ValueTree<Value = T>,
    first: V,
    max_steps: u32,
    fails: &dyn Fn(&T) -> Option<V>,
) -> (T, V) {
    let mut best = (tree.current(), first);
    if !tree.simplify() {
        return best;
    }
    for _ in 0..max_steps {
        let candidate = tree.current();
        match fails(&candidate) {
            Some(v) => {
                best = (candidate, v);
                if !tree.simplify() {
                    break;
                }
            }
            None => {
                if !tree.complicate() {
                    break;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published FNV-1a 64 test vectors (the empty string, "a", "foobar").
    #[test]
    fn fnv1a_matches_the_published_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(short_hash("foobar"), "85944171");
    }

    #[test]
    fn bytes_runner_depends_on_every_byte() {
        use proptest::strategy::Strategy;
        let draw = |bytes: &[u8]| {
            (0u64..u64::MAX)
                .new_tree(&mut bytes_runner(bytes))
                .map(|t| t.current())
                .ok()
        };
        assert_eq!(draw(b"abc"), draw(b"abc"));
        assert_ne!(draw(b"abc"), draw(b"abd"));
        assert_ne!(draw(b"abc"), draw(b"abc\0"));
    }
}
