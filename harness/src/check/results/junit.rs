//! The JUnit XML of a run's results ([`junit`]; SPEC §6 decision 60), written by `quick-junit`
//! (the writer cargo-nextest uses), which escapes the text and drops what XML 1.0 cannot hold.

use std::fmt::Write as _;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::super::{MODEL_GENERATOR, OPEN_WORLD_GENERATOR};
use super::{CheckCounts, Finding, Results};
use crate::shard::Shard;

/// The JUnit XML of `results` (SPEC §6 decision 60): one `<testsuite>` per source (`corpus`,
/// `json-schema-test-suite`, `model`, `open-world`; a shard's suites named with `[shard K/N]`), one
/// `<testcase>` per oracle that judged anything there (per draft and part for the suite), with a
/// `<failure>` carrying the findings — each counterexample a corpus case in JSON — or `<skipped>`
/// when the oracle never applied.
pub fn junit(results: &Results) -> String {
    let suffix = results
        .shard
        .map_or(String::new(), |s| format!(" [shard {s}]"));
    let mut sources: Vec<&str> = Vec::new();
    for c in &results.summary.checks {
        if !sources.contains(&c.source.as_str()) {
            sources.push(&c.source);
        }
    }
    let seconds = |s: f64| Duration::from_secs_f64(s.max(0.0));
    let mut report = Report::new(format!("{}{suffix}", results.run.command));
    report.set_time(seconds(results.timing.total_seconds));
    for source in sources {
        let mut suite = TestSuite::new(format!("{source}{suffix}"));
        suite.set_time(seconds(match source {
            MODEL_GENERATOR => results.timing.model_seconds,
            OPEN_WORLD_GENERATOR => results.timing.open_world_seconds,
            _ => 0.0,
        }));
        suite.add_property(Property::new("seed", results.run.seed.to_string()));
        suite.add_property(Property::new(
            "shard",
            results.shard.unwrap_or(Shard::WHOLE).to_string(),
        ));
        for c in results
            .summary
            .checks
            .iter()
            .filter(|c| c.source == source && (c.cases > 0 || c.skipped > 0))
        {
            suite.add_test_case(junit_case(results, c));
        }
        report.add_test_suite(suite);
    }
    // Writing into a `String` cannot fail.
    report.to_string().unwrap_or_default()
}

fn junit_case(results: &Results, c: &CheckCounts) -> TestCase {
    let counts = format!(
        "{} judged: {} passed, {} failed, {} skipped",
        c.cases, c.passed, c.failed, c.skipped
    );
    let status = if c.failed > 0 {
        let findings: Vec<&Finding> = results
            .findings
            .iter()
            .filter(|f| f.source == c.source && f.check == c.check)
            .collect();
        let message = findings.first().map_or_else(
            || format!("{counts} (each failing case's first violation is under another oracle)"),
            |f| {
                format!(
                    "{}: {}",
                    f.item,
                    f.message.lines().next().unwrap_or_default()
                )
            },
        );
        let mut body = format!("{counts}\n");
        for f in findings {
            let _ = writeln!(
                body,
                "\n{} ({}{}): {}",
                f.item,
                if f.shrunk { "shrunk" } else { "as found" },
                if f.unattributed {
                    ", fails without the injected fault too"
                } else {
                    ""
                },
                f.message
            );
            if let Some(file) = &f.regression_file {
                let _ = writeln!(body, "written to {file}");
            }
            if let Some(case) = &f.counterexample {
                let _ = writeln!(
                    body,
                    "counterexample (a corpus case):\n{}",
                    serde_json::to_string_pretty(case).unwrap_or_default()
                );
            }
        }
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_message(message)
            .set_type(c.check.as_str())
            .set_description(body);
        status
    } else if c.passed == 0 {
        let mut status = TestCaseStatus::skipped();
        status.set_message(counts.as_str());
        status
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new(c.check.as_str(), status);
    case.set_classname(format!("flatjoin.{}", c.source))
        .set_time(Duration::ZERO);
    if c.failed == 0 && c.passed > 0 {
        case.set_system_out(counts);
    }
    case
}
