//! `flatjoin lint`: what a provider would reject in a manifest or schema, and what `export` does
//! about it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::json;

use flatjoin_harness::io::{input_name, read_json};
use flatjoin_harness::profiles::{self, Profile, Severity};
use flatjoin_harness::surfaces;

/// Output format of `lint`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// One finding per paragraph, for people.
    Text,
    /// One JSON document, for CI.
    Json,
}

/// Arguments of `flatjoin lint`.
#[derive(Args, Debug)]
pub struct LintArgs {
    /// The provider profile to check against.
    #[arg(long, value_enum)]
    pub profile: Profile,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// A manifest (`tools/list` result) or a single schema (one tool named after the file); `-`
    /// or nothing reads standard input.
    pub file: Option<PathBuf>,
}

/// Runs `lint`: exit 0 when nothing would be rejected, 1 otherwise.
pub fn run(args: &LintArgs) -> Result<ExitCode, String> {
    let input = read_json(args.file.as_deref())?;
    let tools = surfaces::tools_of(&input, args.file.as_deref())?;
    let named: Vec<(String, serde_json::Value)> = tools
        .iter()
        .map(|t| (t.name.clone(), t.schema.clone()))
        .collect();
    let findings = profiles::lint_tools(args.profile, &named);
    let rejected: Vec<&str> = named
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| {
            findings
                .iter()
                .any(|f| f.tool == *n && f.severity == Severity::Error)
        })
        .collect();
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    match args.format {
        Format::Json => {
            let doc = json!({
                "file": input_name(args.file.as_deref()),
                "profile": args.profile.name(),
                "tools": named.len(),
                "rejected_tools": rejected,
                "findings": findings.iter().map(profiles::Finding::to_json).collect::<Vec<_>>(),
            });
            let text =
                serde_json::to_string_pretty(&doc).map_err(|e| format!("cannot print: {e}"))?;
            println!("{text}");
        }
        Format::Text => {
            for f in &findings {
                let severity = match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                let pointer = if f.pointer.is_empty() {
                    "/"
                } else {
                    &f.pointer
                };
                println!(
                    "{}: {} {severity}[{}]: {}",
                    f.tool, pointer, f.rule, f.message
                );
                println!("    fix: {}", f.fix);
            }
            println!(
                "{}: {} of {} tools pass profile {} ({} errors, {} warnings)",
                input_name(args.file.as_deref()),
                named.len() - rejected.len(),
                named.len(),
                args.profile.name(),
                errors,
                findings.len() - errors,
            );
        }
    }
    Ok(if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Arguments of `flatjoin lint-report`.
#[derive(Args, Debug)]
pub struct LintReportArgs {
    /// Manifests or schemas to count.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs `lint-report`: prints a markdown table, one row per profile, of how many tools pass lint
/// before and after lowering (and how many of them the lowering narrows).
pub fn run_report(args: &LintReportArgs) -> Result<ExitCode, String> {
    let mut tools = Vec::new();
    for file in &args.files {
        let input = read_json(Some(file))?;
        tools.extend(surfaces::tools_of(&input, Some(file))?);
    }
    let options = flatjoin::Options::default();
    println!("| profile | tools | pass before | pass after | narrowed by the lowering |");
    println!("|---|---:|---:|---:|---:|");
    for profile in Profile::ALL {
        let (before, after) = surfaces::pass_counts(&tools, profile, &options);
        let narrowed = tools
            .iter()
            .filter(|t| {
                surfaces::present(&t.schema, Some(profile), &options)
                    .is_ok_and(|l| !l.narrowings.is_empty())
            })
            .count();
        println!(
            "| {} | {} | {before} | {after} | {narrowed} |",
            profile.name(),
            tools.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
