//! Quick linearity check of the join in the number of nested union sites:
//! `cargo run -r -p flatjoin-benches --example nested_sites` prints, per size, the best of five
//! in-process times of `flatjoin::flatten`, of `flatjoin::flatten_owned` (less one clone) and of
//! a deep clone (the floor), and their ratios.
//! The published numbers come from the criterion slice `s-nested-sites`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use flatjoin_benches::shape::ShapeSpec;

fn best_of(n: usize, mut f: impl FnMut()) -> Duration {
    (0..n)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let options = flatjoin::Options::default();
    for sites in [1_000, 4_000, 16_000, 64_000] {
        let spec = ShapeSpec::nested_sites(sites, 1);
        let input = spec.build();
        let clone = best_of(5, || drop(black_box(black_box(&input).clone())));
        let join = best_of(5, || {
            drop(black_box(flatjoin::flatten(black_box(&input), &options)));
        });
        // flatten_owned on a fresh copy each time; the copy's time (one clone) is subtracted.
        let owned_and_clone = best_of(5, || {
            let copy = black_box(&input).clone();
            drop(black_box(flatjoin::flatten_owned(copy, &options)));
        });
        let owned = owned_and_clone.saturating_sub(clone);
        println!(
            "{:>6} sites: flatten {:>9.2} ms, flatten_owned {:>9.2} ms, clone {:>8.2} ms, ratios {:.2} / {:.2}",
            spec.union_sites(),
            join.as_secs_f64() * 1e3,
            owned.as_secs_f64() * 1e3,
            clone.as_secs_f64() * 1e3,
            join.as_secs_f64() / clone.as_secs_f64(),
            owned.as_secs_f64() / clone.as_secs_f64()
        );
    }
}
