//! `join-report`: writes `reports/join-cost.md` and its plots from the last benchmark run.
//!
//! Usage: `cargo run -r -p flatjoin-benches -- [--criterion DIR] [--out DIR] [--whole-process]`.
//! `--criterion` defaults to criterion's own folder (`$CRITERION_HOME`, else
//! `$CARGO_TARGET_DIR/criterion`, else `target/criterion`); `--out` to the workspace's `reports/`.
//! Prints the targets and exits 0 even when one is missed (the report says so); exits 2 when the
//! results cannot be read. `--whole-process` only replaces the whole-process section (and the
//! hand-written analysis) of the existing report, from the whole-process table alone
//! (`benches/whole-process.sh` runs it).

use std::path::PathBuf;
use std::process::ExitCode;

use flatjoin_benches::report;

fn main() -> ExitCode {
    let mut criterion_dir = flatjoin_benches::run::criterion_home();
    let mut out_dir = flatjoin_benches::workspace_root().join("reports");
    let mut whole_process_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--criterion" | "--out" => args.next().map(PathBuf::from),
            "--whole-process" => {
                whole_process_only = true;
                continue;
            }
            "-h" | "--help" => {
                println!("usage: join-report [--criterion DIR] [--out DIR] [--whole-process]");
                return ExitCode::SUCCESS;
            }
            _ => {
                eprintln!("join-report: unknown argument {arg:?}");
                return ExitCode::from(2);
            }
        };
        let Some(value) = value else {
            eprintln!("join-report: {arg} needs a folder");
            return ExitCode::from(2);
        };
        if arg == "--criterion" {
            criterion_dir = value;
        } else {
            out_dir = value;
        }
    }
    if whole_process_only {
        return match report::splice_whole_process(&criterion_dir, &out_dir) {
            Ok(()) => {
                println!(
                    "join-report: replaced the whole-process section of {}",
                    out_dir.join(report::markdown::REPORT_FILE).display()
                );
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("join-report: {message}");
                ExitCode::from(2)
            }
        };
    }
    match report::generate(&criterion_dir, &out_dir) {
        Ok(analysis) => {
            println!(
                "join-report: wrote {}",
                out_dir.join(report::markdown::REPORT_FILE).display()
            );
            for target in &analysis.targets {
                let verdict = match target.met {
                    Some(true) => "met",
                    Some(false) => "MISSED",
                    None => "not measured",
                };
                println!("  [{verdict}] {}: {}", target.target, target.measured);
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("join-report: {message}");
            ExitCode::from(2)
        }
    }
}
