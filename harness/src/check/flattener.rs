//! A flattener the harness judges (SPEC §6 decision 74): the core in process ([`Core`]) or an
//! implementation behind the protocol (`crate::protocol::run`). The generated phases
//! (`generated.rs`) run for either through this trait alone — the same cases, the same folding,
//! the same rule after a violation ([`super::policy`]), the same shrinking — so a flattener's
//! verdicts on generated cases do not depend on how it is called.

use std::path::PathBuf;

use flatjoin::Options;

use super::regression::save_shrunk;
use super::{CheckConfig, options_for, without_fault};
use crate::model::Case;
use crate::open_world::{self, OpenCase};
use crate::oracle::{self, CaseReport, Oracle, Outcome, Violation};

/// What the generated phases need of a flattener.
pub trait Flattener: Sync {
    /// The option set generated case `i` is flattened under.
    fn options_for(&self, i: u32) -> Options;

    /// Every applicable oracle's outcome on model case `case` (with the widening and the unions'
    /// tally where the flattener's diagnostics give them).
    fn judge_model(&self, case: &Case, options: &Options) -> CaseReport;

    /// Every applicable oracle's outcome on open-world case `case`.
    fn judge_open_world(&self, case: &OpenCase, options: &Options) -> Vec<(Oracle, Outcome)>;

    /// Whether a model case's violation is passed over: with a fault injected into the core, a
    /// case that fails the same way without it (a bug of the core, not the fault's doing).
    fn passed_over(&self, _case: &Case, _options: &Options, _first: &Violation) -> bool {
        false
    }

    /// Writes a shrunk (or, `shrunk` false, an as-found) counterexample found by `found`
    /// (`model case 12, seed …`), logging where; returns the file.
    fn save(
        &self,
        violation: &Violation,
        found: &str,
        shrunk: bool,
        log: &mut dyn FnMut(&str),
    ) -> Option<PathBuf>;
}

/// The core in process, judged by every oracle (its diagnostics, manifest path and runtime
/// included).
pub struct Core<'a> {
    /// The run's configuration: base options (the injected fault), where counterexamples go.
    pub config: &'a CheckConfig,
}

impl Flattener for Core<'_> {
    fn options_for(&self, i: u32) -> Options {
        options_for(i, &self.config.base)
    }

    fn judge_model(&self, case: &Case, options: &Options) -> CaseReport {
        oracle::evaluate_case(case, options)
    }

    fn judge_open_world(&self, case: &OpenCase, options: &Options) -> Vec<(Oracle, Outcome)> {
        open_world::evaluate(case, options)
    }

    fn passed_over(&self, case: &Case, options: &Options, first: &Violation) -> bool {
        without_fault(options).is_some_and(|without| {
            oracle::evaluate_case(case, &without)
                .outcomes
                .iter()
                .any(|(name, o)| *name == first.oracle && matches!(o, Outcome::Failed(_)))
        })
    }

    fn save(
        &self,
        violation: &Violation,
        found: &str,
        shrunk: bool,
        log: &mut dyn FnMut(&str),
    ) -> Option<PathBuf> {
        let found_by = format!("{} ({found})", self.config.command);
        let how = if shrunk { "shrunk" } else { "as found" };
        save_shrunk(
            self.config,
            violation,
            &found_by,
            &format!("VIOLATION ({how}): {violation}"),
            log,
        )
    }
}
