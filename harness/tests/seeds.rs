//! Runs every seed built from the bundled corpus (`flatten_bytes`, `manifest_bytes`,
//! `runtime_diff`) through its target's check on stable: the fuzzers start from inputs that pass,
//! and a core change that breaks a promise on the real corpus fails here before any fuzzing. The
//! structured target's seeds are pseudo-random cases, not corpus: what fails among them is the
//! fuzzer's to find and minimize into `corpus/regressions/`.

use std::panic;

use flatjoin_harness::fuzz::{Target, seeds};

#[test]
fn every_seed_passes_its_target_check() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for target in [
        Target::FlattenBytes,
        Target::ManifestBytes,
        Target::RuntimeDiff,
    ] {
        for (name, bytes) in seeds::seeds(target) {
            checked += 1;
            match panic::catch_unwind(|| target.check_bytes(&bytes)) {
                Ok(Ok(_)) => {}
                Ok(Err(violation)) => failures.push(format!("{target}/{name}: {violation}")),
                Err(_) => failures.push(format!("{target}/{name}: the check panicked")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} seeds fail:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
