//! `flatjoin check --jobs N` gives the same findings for every N: the cases come from one seeded
//! generator in order and are folded in case order, whatever the pool evaluates first.

use flatjoin_harness::check::{self, CheckConfig, CheckResult};

/// A quiet check of `cases` generated cases of `seed` on `jobs` workers, no corpus, nothing
/// written.
fn config(jobs: usize, cases: u32, seed: u64) -> CheckConfig {
    let mut config = CheckConfig::new("jobs test".to_owned());
    config.cases = cases;
    config.seed = seed;
    config.corpus = None;
    config.report = None;
    config.counterexamples = None;
    config.quiet = true;
    config.progress_bar = false;
    config.jobs = jobs;
    config
}

fn run(jobs: usize, cases: u32, seed: u64) -> (CheckResult, String) {
    let config = config(jobs, cases, seed);
    let result = check::run(&config, &mut |_| {});
    let report = without_times(&check::report_markdown(&result));
    (result, report)
}

/// Text without the lines that carry wall-clock times (the run summary, the per-generator rows).
fn without_times(text: &str) -> String {
    text.lines()
        .filter(|l| {
            !(l.contains("cases/s")
                || l.contains(" s (")
                || l.starts_with("generator ")
                || l.starts_with("| model |")
                || l.starts_with("| open-world |"))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn one_job_and_three_jobs_find_the_same() {
    let (one, one_report) = run(1, 150, 7);
    let (three, three_report) = run(3, 150, 7);
    assert_eq!(one.generated, 150, "every case ran with one job");
    assert_eq!(one.generated, three.generated);
    assert_eq!(one.oracles, three.oracles, "per-oracle counts differ");
    assert_eq!(
        one.widenings, three.widenings,
        "widening measures differ or are reordered"
    );
    assert_eq!(without_times(&one.table()), without_times(&three.table()));
    let per_generator = |r: &CheckResult| {
        r.generators
            .iter()
            .map(|g| (g.name.clone(), g.cases, g.failed_cases, g.oracles.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(per_generator(&one), per_generator(&three));
    assert_eq!(one.open_world_failures, three.open_world_failures);
    assert_eq!(one_report, three_report);
    assert!(one.passed() > 150, "the oracles ran: {}", one.table());
}

/// Failing fast, the first violation stops the model generator at the same case whatever the
/// number of jobs: the cases drawn past it (still in flight on other workers) are dropped, not
/// counted.
#[cfg(feature = "fault-injection")]
#[test]
fn a_violation_stops_at_the_same_case_for_every_number_of_jobs() {
    let with_fault = |jobs: usize| {
        let mut config = config(jobs, 400, 11);
        config.open_world_cases = Some(0);
        config.max_shrink_steps = 50;
        config.fail_fast = true;
        config.base.fault = Some(flatjoin::Fault::FirstWins);
        check::run(&config, &mut |_| {})
    };
    let one = with_fault(1);
    let three = with_fault(3);
    assert!(
        !one.violations.is_empty() && one.generated < 400,
        "the fault stops the run: {} cases, {} violations",
        one.generated,
        one.violations.len()
    );
    assert_eq!(one.generated, three.generated, "stopped at different cases");
    assert_eq!(one.oracles, three.oracles);
    let found = |r: &CheckResult| {
        r.violations
            .iter()
            .map(|(v, _)| (v.oracle, v.schema.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(found(&one), found(&three));
}

/// Without `--fail-fast` every case runs, and only the first violation of each oracle is shrunk
/// (`check::policy`), for every number of jobs alike.
#[cfg(feature = "fault-injection")]
#[test]
fn every_case_runs_and_each_oracle_is_shrunk_once() {
    let with_fault = |jobs: usize| {
        let mut config = config(jobs, 120, 11);
        config.open_world_cases = Some(0);
        config.max_shrink_steps = 20;
        config.base.fault = Some(flatjoin::Fault::FirstWins);
        check::run(&config, &mut |_| {})
    };
    let one = with_fault(1);
    assert_eq!(one.generated, 120, "every case ran");
    let failed_cases = one.generators[0].failed_cases;
    assert!(failed_cases > 1, "the fault fails more than one case");
    // Each failing case lists its violations the run shrank, or its first as found; the first
    // of each oracle is shrunk, once.
    assert!(one.violations.len() >= failed_cases as usize);
    let mut shrunk: Vec<String> = one
        .items
        .model
        .iter()
        .flat_map(|item| item.shrunk_all())
        .map(|s| s.violation.oracle.clone())
        .collect();
    let n = shrunk.len();
    assert!(
        n >= 1 && n < failed_cases as usize,
        "{n} shrunk of {failed_cases}"
    );
    shrunk.sort();
    shrunk.dedup();
    assert_eq!(shrunk.len(), n, "an oracle shrunk twice");
    let two = with_fault(2);
    assert_eq!(one.oracles, two.oracles);
    assert_eq!(one.violations.len(), two.violations.len());
}
