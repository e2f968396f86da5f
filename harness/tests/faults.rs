//! Proves the oracles have teeth: every named fault of the core (feature `fault-injection`) is
//! detected within 1,000 generated cases, with a shrunk counterexample, and each fault's committed
//! counterexample fails again under its fault.
//!
//! The faults exist only in a build with the feature: the README's test command (`cargo test
//! --workspace --all-features`, also run by `.ci/run`) runs these tests, as does `cargo test -p
//! flatjoin-harness --features fault-injection --test faults`. In a default build (plain `cargo
//! test`) no fault is compiled into the core, and the one test here says so in the output and
//! checks what it can: the fault counterexamples pass on the core as shipped.

/// The committed fault counterexamples (`corpus/regressions/fault-<name>-*.json`, written by
/// `flatjoin check --inject-fault NAME`), with their file names.
fn fault_counterexamples() -> Vec<(String, std::path::PathBuf)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    flatjoin_harness::corpus::files(&dir)
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            name.starts_with("fault-").then_some((name, path))
        })
        .collect()
}

/// The note below reaches the output past libtest's capture (`tools::warn`).
#[cfg(not(feature = "fault-injection"))]
use flatjoin_test_support::tools;

/// Default build: nothing to inject. Says where the fault tests run, and checks that every fault
/// counterexample passes on the core as shipped (a fault's switch left on would fail it).
#[cfg(not(feature = "fault-injection"))]
#[test]
fn without_fault_injection_no_fault_is_compiled_in_and_the_counterexamples_pass() {
    use flatjoin::Options;
    use flatjoin_harness::oracle::Outcome;

    tools::warn(
        "note: harness/tests/faults.rs: the fault-detection tests need `--features fault-injection`; \
         the README's test command `cargo test --workspace --all-features` runs them\n",
    );
    let files = fault_counterexamples();
    assert!(!files.is_empty(), "no corpus/regressions/fault-*.json");
    for (name, path) in files {
        let report = flatjoin_harness::corpus::replay_file(&path, &Options::default());
        for (oracle, outcome) in report.outcomes {
            assert!(
                !matches!(outcome, Outcome::Failed(_)),
                "{name} fails {oracle} in a build without faults: {outcome:?}"
            );
        }
    }
}

#[cfg(feature = "fault-injection")]
mod with_faults {
    use flatjoin::{Fault, Options};
    use flatjoin_harness::check::{self, CheckConfig};
    use flatjoin_harness::oracle::{Oracle, Outcome, evaluate_case};

    /// Runs the generated part of `flatjoin check --inject-fault NAME` (no corpus, no files written)
    /// and returns the oracle that caught `fault`, or why it went undetected.
    fn detect(fault: Fault) -> Result<Oracle, String> {
        let mut config = CheckConfig::new(format!("faults test --inject-fault {}", fault.name()));
        config.cases = 1000;
        config.corpus = None;
        config.report = None;
        config.counterexamples = None;
        config.quiet = true;
        config.progress_bar = false;
        config.max_shrink_steps = 20;
        config.open_world_cases = Some(0);
        config.fail_fast = true;
        config.base = Options::default().with_fault(Some(fault));
        let result = check::run(&config, &mut |_| {});
        let Some((violation, _)) = result.violations.first() else {
            return Err(format!(
                "went undetected in {} generated cases",
                result.generated
            ));
        };
        if result.generated > 1000 {
            return Err(format!("ran {} cases, more than asked", result.generated));
        }
        // The counterexample is the fault's doing: without it, the same case passes that oracle.
        let Some((case, options)) = result.counterexample.clone() else {
            return Err("no counterexample case kept".to_owned());
        };
        let oracle = violation.oracle;
        let clean = evaluate_case(&case, &options.with_fault(None));
        if clean
            .outcomes
            .iter()
            .any(|(name, o)| *name == oracle && matches!(o, Outcome::Failed(_)))
        {
            return Err(format!(
                "the shrunk case also fails {oracle} without the fault"
            ));
        }
        Ok(oracle)
    }

    /// Every fault the core defines (`Fault::ALL`, however many there are) is caught by some oracle
    /// within 1,000 generated cases, with a counterexample that is the fault's doing. Every fault is
    /// tried; the failure message lists each one that went undetected.
    #[test]
    fn every_fault_is_detected() {
        // One thread per fault (as separate tests would run), joined in `Fault::ALL` order.
        let outcomes: Vec<(Fault, Result<Oracle, String>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = Fault::ALL
                .into_iter()
                .map(|fault| (fault, scope.spawn(move || detect(fault))))
                .collect();
            handles
                .into_iter()
                .map(|(fault, handle)| {
                    let outcome = handle
                        .join()
                        .unwrap_or_else(|_| Err("the check panicked".to_owned()));
                    (fault, outcome)
                })
                .collect()
        });
        let mut undetected = Vec::new();
        for (fault, outcome) in outcomes {
            match outcome {
                Ok(oracle) => eprintln!("{}: detected by {oracle}", fault.name()),
                Err(why) => undetected.push(format!("{}: {why}", fault.name())),
            }
        }
        assert!(
            undetected.is_empty(),
            "{} of {} faults not detected:\n{}",
            undetected.len(),
            Fault::ALL.len(),
            undetected.join("\n")
        );
    }

    /// Each committed fault counterexample (`corpus/regressions/fault-<name>-*.json`, written by
    /// `flatjoin check --inject-fault NAME`) passes on the core (see `corpus_replay`) and fails again
    /// when its fault is injected, so the replay pins the bug it was found for.
    #[test]
    fn fault_regressions_fail_under_their_fault() {
        let mut seen = Vec::new();
        for (name, path) in super::fault_counterexamples() {
            let fault = Fault::ALL
                .into_iter()
                .find(|f| name.starts_with(&format!("fault-{}-", f.name())))
                .unwrap_or_else(|| panic!("{name} names no fault of the core"));
            let options = Options::default().with_fault(Some(fault));
            let report = flatjoin_harness::corpus::replay_file(&path, &options);
            assert!(
                report
                    .outcomes
                    .iter()
                    .any(|(_, o)| matches!(o, Outcome::Failed(_))),
                "{name} passes with {} injected",
                fault.name()
            );
            seen.push(fault);
        }
        for fault in Fault::ALL {
            assert!(
                seen.contains(&fault),
                "no committed counterexample for {}",
                fault.name()
            );
        }
    }
}
