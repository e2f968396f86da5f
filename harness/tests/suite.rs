//! The official JSON-Schema-Test-Suite as a corpus (`flatjoin_harness::suite`): one test per
//! draft (2020-12, 2019-09, 07, 06, 04), each running the three parts (flatten, wrapped,
//! validate) judged by `jsonschema`.

use flatjoin_harness::suite::{self, SuiteReport};

fn check(draft: &str) {
    let report: SuiteReport =
        suite::run_draft(&suite::suite_dir(), draft, &suite::SuiteRun::core());
    eprint!("{}", report.summary());
    for part in [&report.flatten, &report.wrapped, &report.validate] {
        for u in part.unrunnable.iter().take(8) {
            eprintln!("unrunnable: {u}");
        }
    }
    let failures: Vec<&String> = report
        .flatten
        .failures
        .iter()
        .chain(&report.wrapped.failures)
        .chain(&report.validate.failures)
        .chain(&report.stale_xfail)
        .collect();
    for f in failures.iter().take(40) {
        eprintln!("FAILED: {f}");
    }
    // The suite must actually have run: a vendoring mistake must not pass as zero failures.
    assert!(report.flatten.instances > 500, "{}", report.summary());
    assert!(report.wrapped.instances > 500, "{}", report.summary());
    assert!(report.validate.instances > 500, "{}", report.summary());
    // The wrapping must reach the join: the two-branch forms (half of the wrappings) are
    // flattened unless the suite schema makes the branch a non-object. Draft-04 is wrapped twice,
    // and its `const`-tagged half is no discriminated union there (SPEC §6 decision 29).
    let tag_forms = if draft == "draft4" { 2 } else { 1 };
    assert!(
        report.wrapped.flattened * 3 * tag_forms > report.wrapped.schemas,
        "{}",
        report.summary()
    );
    assert_eq!(report.failed(), 0, "{}", report.summary());
}

#[test]
fn draft2020_12() {
    check("draft2020-12");
}

#[test]
fn draft7() {
    check("draft7");
}

#[test]
fn draft2019_09() {
    check("draft2019-09");
}

#[test]
fn draft6() {
    check("draft6");
}

#[test]
fn draft4() {
    check("draft4");
}
