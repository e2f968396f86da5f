//! What a phase of generated cases does after a violation — one rule for the core in process,
//! for an implementation behind the protocol, and for the fold of a results file (SPEC §6
//! decision 74):
//!
//! - every case runs, unless the run fails fast (`--fail-fast`): then the phase stops after the
//!   case of its first counterexample;
//! - of each failing case, every violation that is the first of its oracle in the run is shrunk
//!   and written (the protocol's fixed inputs, the corpus and the test suite, count too: their
//!   first violation of an oracle is written, not shrunk); a case with none lists its first
//!   violation as it is;
//! - with a fault injected into the core, a case that fails the same way without the fault is
//!   passed over (a bug of the core, not the fault's doing) and shrinks nothing.

use crate::oracle::Oracle;

/// The oracles whose first violation a run has kept as a counterexample.
#[derive(Debug, Clone, Default)]
pub struct Counterexamples {
    shrunk: Vec<Oracle>,
}

impl Counterexamples {
    /// Whether a violation of `oracle` is kept (shrunk when it can be, and written): the first
    /// of its oracle in the run. Counts it as kept when so.
    pub fn take(&mut self, oracle: Oracle) -> bool {
        if self.shrunk.contains(&oracle) {
            return false;
        }
        self.shrunk.push(oracle);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_violation_of_each_oracle_is_shrunk() {
        let mut kept = Counterexamples::default();
        assert!(kept.take(Oracle::Soundness));
        assert!(!kept.take(Oracle::Soundness));
        assert!(kept.take(Oracle::Dedup));
        assert!(!kept.take(Oracle::Dedup));
        assert!(!kept.take(Oracle::Soundness));
    }
}
