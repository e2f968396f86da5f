//! The runner of a test binary whose tests need programs from outside the Rust toolchain
//! (SPEC §6 decision 77): its `main` (`harness = false` in the crate's `Cargo.toml`, written with
//! [`crate::tests!`]) lists each test with what it needs. When the binary starts, each needed
//! program is probed once ([`crate::tools::missing`]); a test whose programs all run is run as
//! libtest would run it, and one whose programs are missing is
//!
//! - under `CI`: run, and failed with the programs and the command that installs them;
//! - elsewhere: shown as **ignored** in the runner's own summary (`N ignored`), with a loud
//!   warning naming it and the install command; `--include-ignored` runs it, and it fails the
//!   same way.
//!
//! libtest itself cannot decide at run time that a test is ignored (`#[ignore]` is fixed when the
//! test is compiled), so a missing Node.js used to pass silently; `libtest-mimic` keeps libtest's
//! output and flags (filters, `--list`, `--test-threads`, `--include-ignored`) and lets the
//! ignored flag be set here.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

use crate::tools::{self, Tool};

/// One test: its name, the programs it needs and its body (which panics to fail).
pub struct Test {
    /// The name (what filters match and the summary shows).
    pub name: &'static str,
    /// The programs it needs.
    pub needs: &'static [&'static Tool],
    /// The test.
    pub run: fn(),
}

/// Runs `tests` with the command line's arguments, as libtest would, each test whose programs are
/// missing ignored (or, under `CI`, failed); the process's exit code.
pub fn run(tests: Vec<Test>) -> ExitCode {
    let args = Arguments::from_args();
    let (trials, ignored) = trials(tests, std::env::var_os("CI").is_some());
    if !ignored.is_empty() && !args.list {
        let bar = "!".repeat(100);
        tools::warn(&format!(
            "\n{bar}\n!! WARNING: IGNORED (not installed here; under CI these fail):\n{}{bar}\n",
            ignored
                .iter()
                .map(|line| format!("!!   {line}\n"))
                .collect::<String>()
        ));
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// The trials of `tests` (`ci`: whether `CI` is set), and a line for each test ignored because
/// a program it needs is missing.
fn trials(tests: Vec<Test>, ci: bool) -> (Vec<Trial>, Vec<String>) {
    let mut ignored = Vec::new();
    let trials = tests
        .into_iter()
        .map(|test| {
            let missing = tools::missing(test.needs);
            if missing.is_empty() {
                let body = test.run;
                return Trial::test(test.name, move || {
                    body();
                    Ok(())
                });
            }
            let why = tools::describe(&missing);
            let fails = format!(
                "{} cannot run{}: {why}",
                test.name,
                if ci { " under CI" } else { " here" }
            );
            let trial = Trial::test(test.name, move || Err(fails.into()));
            if ci {
                trial
            } else {
                ignored.push(format!("{}: {why}", test.name));
                trial.with_ignored_flag(true)
            }
        })
        .collect();
    (trials, ignored)
}

/// The `main` of a test binary run by [`run`]: each entry is a test function's name, optionally
/// `needs` and the [`crate::tools`] constants it needs, and may carry attributes (`#[cfg(..)]`).
/// An optional `@before f;` calls `f()` before anything else (a binary that also plays a fake
/// program for its own tests, when an environment variable asks it to).
///
/// ```text
/// flatjoin_test_support::tests! {
///     a_test_that_needs_node needs NODE, NPM;
///     #[cfg(feature = "fault-injection")]
///     a_test_that_needs_nothing;
/// }
/// ```
#[macro_export]
macro_rules! tests {
    ($(@before $first:path;)? $($(#[$attr:meta])* $test:ident $(needs $($tool:ident),+)?;)*) => {
        fn main() -> ::std::process::ExitCode {
            $($first();)?
            #[allow(unused_mut)]
            let mut tests = ::std::vec::Vec::new();
            $(
                $(#[$attr])*
                tests.push($crate::runner::Test {
                    name: ::std::stringify!($test),
                    needs: &[$($(&$crate::tools::$tool),+)?],
                    run: $test,
                });
            )*
            $crate::runner::run(tests)
        }
    };
}

#[cfg(test)]
mod tests {
    use libtest_mimic::{Arguments, Conclusion};

    use super::{Test, trials};
    use crate::tools::Tool;

    const NOT_THERE: Tool = Tool {
        name: "a program that is not installed anywhere",
        probe: &["flatjoin-test-support-no-such-program"],
        install: "nothing installs it",
    };

    const THERE: Tool = Tool {
        name: "cargo",
        probe: &["cargo", "--version"],
        install: "rustup",
    };

    fn passes() {}

    fn fails() {
        panic!("this test fails");
    }

    fn tests() -> Vec<Test> {
        vec![
            Test {
                name: "needs nothing",
                needs: &[],
                run: passes,
            },
            Test {
                name: "needs what is there",
                needs: &[&THERE],
                run: passes,
            },
            Test {
                name: "needs what is missing",
                needs: &[&NOT_THERE, &THERE],
                run: passes,
            },
            Test {
                name: "fails",
                needs: &[&THERE],
                run: fails,
            },
        ]
    }

    fn conclusion(ci: bool, include_ignored: bool) -> (Conclusion, Vec<String>) {
        let (trials, ignored) = trials(tests(), ci);
        // The inner run's report goes to a file, not into this test's output (where its
        // `FAILED` lines would read as this run's).
        let log = std::env::temp_dir().join(format!(
            "flatjoin-test-support-runner-{}-{ci}-{include_ignored}.log",
            std::process::id()
        ));
        let args = Arguments {
            include_ignored,
            test_threads: Some(1),
            logfile: Some(log.display().to_string()),
            ..Arguments::default()
        };
        let conclusion = libtest_mimic::run(&args, trials);
        let _ = std::fs::remove_file(&log);
        (conclusion, ignored)
    }

    #[test]
    fn a_test_whose_program_is_missing_is_ignored_and_named() {
        let (c, ignored) = conclusion(false, false);
        assert_eq!((c.num_passed, c.num_failed, c.num_ignored), (2, 1, 1));
        assert_eq!(ignored.len(), 1, "{ignored:?}");
        assert!(
            ignored[0].starts_with("needs what is missing: "),
            "{ignored:?}"
        );
        assert!(ignored[0].contains("nothing installs it"), "{ignored:?}");
        assert!(
            !ignored[0].contains("rustup"),
            "only the missing program: {ignored:?}"
        );
    }

    #[test]
    fn under_ci_or_when_asked_for_it_fails() {
        let (c, ignored) = conclusion(true, false);
        assert_eq!((c.num_passed, c.num_failed, c.num_ignored), (2, 2, 0));
        assert!(ignored.is_empty());
        let (c, _) = conclusion(false, true);
        assert_eq!((c.num_passed, c.num_failed, c.num_ignored), (2, 2, 0));
    }
}
