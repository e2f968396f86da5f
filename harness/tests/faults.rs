//! Proves the oracles have teeth: every named fault of the core (feature `fault-injection`) is
//! detected within 1,000 generated cases, with a shrunk counterexample.
//!
//! Run with `cargo test -p flatjoin-harness --features fault-injection --test faults`.
#![cfg(feature = "fault-injection")]

use flatjoin::{Fault, Options};
use flatjoin_harness::check::{self, CheckConfig};
use flatjoin_harness::oracle::{Outcome, evaluate_case};

/// Runs the generated part of `flatjoin check --inject-fault NAME` (no corpus, no files written)
/// and returns the violation, or panics when 1,000 cases pass.
fn detect(fault: Fault) {
    let mut config = CheckConfig::new(format!("faults test --inject-fault {}", fault.name()));
    config.cases = 1000;
    config.corpus = None;
    config.report = None;
    config.regressions = None;
    config.quiet = true;
    config.progress_bar = false;
    config.max_shrink_steps = 20;
    config.open_world_cases = Some(0);
    config.base = Options {
        fault: Some(fault),
        ..Options::default()
    };
    let result = check::run(&config, &mut |_| {});
    assert!(
        !result.violations.is_empty(),
        "fault {} went undetected in {} generated cases",
        fault.name(),
        result.generated
    );
    assert!(result.generated <= 1000);
    // The counterexample is the fault's doing: without it, the same case passes that oracle.
    let (case, options) = result
        .counterexample
        .clone()
        .unwrap_or_else(|| panic!("{}: no counterexample case kept", fault.name()));
    let oracle = result.violations[0].0.oracle;
    let clean = evaluate_case(
        &case,
        &Options {
            fault: None,
            ..options
        },
    );
    assert!(
        !clean
            .outcomes
            .iter()
            .any(|(name, o)| *name == oracle && matches!(o, Outcome::Failed(_))),
        "{}: the shrunk case also fails {oracle} without the fault",
        fault.name()
    );
    eprintln!(
        "{}: detected by {} after {} cases",
        fault.name(),
        result.violations[0].0.oracle,
        result.generated
    );
}

#[test]
fn every_fault_has_a_test() {
    assert_eq!(Fault::ALL.len(), 9);
}

#[test]
fn first_wins_is_detected() {
    detect(Fault::FirstWins);
}

#[test]
fn required_union_is_detected() {
    detect(Fault::RequiredUnion);
}

#[test]
fn drop_null_is_detected() {
    detect(Fault::DropNull);
}

#[test]
fn always_closed_is_detected() {
    detect(Fault::AlwaysClosed);
}

#[test]
fn legacy_widen_is_detected() {
    detect(Fault::LegacyWiden);
}

#[test]
fn tightest_bound_is_detected() {
    detect(Fault::TightestBound);
}

#[test]
fn annotation_names_is_detected() {
    detect(Fault::AnnotationNames);
}

#[test]
fn no_dedup_is_detected() {
    detect(Fault::NoDedup);
}

#[test]
fn enum_first_branch_is_detected() {
    detect(Fault::EnumFirstBranch);
}

/// Each committed fault counterexample (`corpus/regressions/fault-<name>-*.json`, written by
/// `flatjoin check --inject-fault NAME`) passes on the core (see `corpus_replay`) and fails again
/// when its fault is injected, so the replay pins the bug it was found for.
#[test]
fn fault_regressions_fail_under_their_fault() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let mut seen = Vec::new();
    for path in flatjoin_harness::corpus::files(&dir) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(fault) = Fault::ALL
            .into_iter()
            .find(|f| name.starts_with(&format!("fault-{}-", f.name())))
        else {
            continue;
        };
        let options = Options {
            fault: Some(fault),
            ..Options::default()
        };
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
