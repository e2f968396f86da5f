//! `reports/implementations.md` and the JSON results beside it: one row per implementation, one
//! column per oracle of [`Oracle::IMPLEMENTATION`] (cases, violations, errored, skipped,
//! crashed, and the first counterexample) and one for the suite's parts, like a validator
//! comparison table.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::run::{ImplementationResult, RunConfig};
use crate::check::Counts;
use crate::oracle::Oracle;
use crate::suite;

/// The JSON results file beside a Markdown report (`implementations.md` → `implementations.json`).
pub fn json_path(markdown: &Path) -> PathBuf {
    markdown.with_extension("json")
}

fn cell_json(cell: &Counts) -> Value {
    json!({
        "cases": cell.cases,
        "passed": cell.passed,
        "violations": cell.failed,
        "errored": cell.errored,
        "skipped": cell.declined,
        "crashed": cell.crashed,
        "not_applicable": cell.skipped,
    })
}

fn relative(path: &Path, base: Option<&Path>) -> String {
    base.and_then(|b| path.strip_prefix(b).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The JSON results: settings, and per implementation what it said about itself, the counts per
/// oracle with the first counterexample, the sources, crashes and the protocol's cost.
pub fn to_json(config: &RunConfig, results: &[ImplementationResult]) -> Value {
    let implementations: Vec<Value> = results
        .iter()
        .map(|r| {
            let oracles: serde_json::Map<String, Value> = r
                .cells
                .iter()
                .map(|(o, c)| {
                    let mut cell = cell_json(c);
                    if let Some(x) = r.counterexamples.iter().find(|x| x.oracle == *o) {
                        cell["first_counterexample"] = json!({
                            "found": x.found,
                            "shrunk": x.shrunk,
                            "message": x.violation.message,
                            "schema": x.violation.schema,
                            "value": x.violation.data,
                            "file": x.file.as_ref().map(|p| p.display().to_string()),
                        });
                    }
                    (o.name().to_owned(), cell)
                })
                .collect();
            json!({
                "command": r.command,
                "implementation": r.info.as_ref().map(|i| json!({
                    "name": i.name,
                    "language": i.language,
                    "version": i.version,
                    "homepage": i.homepage,
                    "source": i.source,
                    "readings": i.readings.iter().map(|x| x.as_str()).collect::<Vec<_>>(),
                })),
                "start_error": r.start_error,
                "oracles": oracles,
                "suite": r.suite,
                "checks": r.checks,
                "sources": r.sources.iter().map(|s| json!({
                    "name": s.name, "inputs": s.inputs, "seconds": s.time.as_secs_f64(),
                })).collect::<Vec<_>>(),
                "requests": r.requests,
                "starts": r.starts,
                "crashed": r.crash_count,
                "crashes": r.crashes,
                "protocol_errors": r.protocol_errors,
                "errored_examples": r.errored,
                "seconds": r.time.as_secs_f64(),
                "seconds_waiting_on_answers": r.waiting.as_secs_f64(),
            })
        })
        .collect();
    json!({
        "generated_by": config.check.command,
        "seed": config.check.seed,
        "model_cases": config.check.cases,
        "open_world_cases": config.check.open_world_cases.unwrap_or(config.check.cases / 4),
        "corpus": config.check.corpus.as_ref().map(|p| p.display().to_string()),
        "oracles": Oracle::IMPLEMENTATION.iter().map(|o| o.name()).collect::<Vec<_>>(),
        "implementations": implementations,
    })
}

/// The suite cell: instances the presentations accepted of those judged, over the flatten and
/// wrapped parts of every draft (`suite::run_draft`), then the failures (✗) and the schemas
/// that had no presentation (unrunnable).
fn suite_text(reports: &[suite::SuiteReport]) -> String {
    let parts = reports.iter().flat_map(|r| [&r.flatten, &r.wrapped]);
    let (mut passed, mut judged, mut failed, mut unrunnable) = (0, 0, 0, 0);
    for p in parts {
        passed += p.passed;
        judged += p.instances;
        failed += p.failures.len();
        unrunnable += p.unrunnable.len();
    }
    if reports.is_empty() {
        return "–".to_owned();
    }
    let mut text = format!("{passed}/{judged}");
    if failed > 0 {
        text.push_str(&format!(" · **{failed} ✗**"));
    }
    if unrunnable > 0 {
        text.push_str(&format!(" · {unrunnable} unrunnable"));
    }
    text
}

fn cell_text(cell: &Counts, link: Option<String>) -> String {
    let judged = cell.passed + cell.failed;
    let mut parts = vec![if judged == 0 {
        "–".to_owned()
    } else {
        format!("{}/{judged}", cell.passed)
    }];
    if cell.failed > 0 {
        parts.push(match link {
            Some(l) => format!("**[{} ✗]({l})**", cell.failed),
            None => format!("**{} ✗**", cell.failed),
        });
    }
    for (n, label) in [
        (cell.errored, "err"),
        (cell.declined, "skip"),
        (cell.crashed, "crash"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    parts.join(" · ")
}

/// The Markdown report. Links to counterexample files are relative to `report_dir`.
pub fn markdown(
    config: &RunConfig,
    results: &[ImplementationResult],
    report_dir: Option<&Path>,
) -> String {
    let mut md = format!(
        "<!-- Generated by `{}` (from the repository root: `cargo run --release -p flatjoin-cli -- {}`); do not edit by hand. -->\n\n# Implementations\n\n",
        config.check.command,
        config
            .check
            .command
            .strip_prefix("flatjoin ")
            .unwrap_or(&config.check.command)
    );
    md.push_str(&format!(
        "Every implementation below was sent the same inputs through the line protocol (`docs/protocol.md`): the corpus{}, {} model cases and {} open-world cases from seed {}; each answer judged by the oracles that need only a presentation (and the diagnostics, when an implementation sends them), the suite's schemas by the suite's flatten and wrapped parts, as the core's are in `reports/conformance.md`. A cell reads *passed/judged* (`–`: the oracle applied to no answer), then **violations ✗** (linked to the first counterexample, shrunk for generated inputs and replayable), then the requests the implementation refused (err) or skipped, and its crashes, hangs and protocol errors (crash); inputs the oracle does not apply to are left out. The JSON beside this file has every count and counterexample.\n\n",
        config.check.corpus.as_ref().map_or(String::from(" (none)"), |p| format!(" `{}`", p.display())),
        config.check.cases,
        config.check.open_world_cases.unwrap_or(config.check.cases / 4),
        config.check.seed,
    ));
    md.push_str("| implementation | verdict |");
    for o in Oracle::IMPLEMENTATION {
        md.push_str(&format!(" {} |", o.name()));
    }
    md.push_str(" suite |\n| --- | --- |");
    for _ in Oracle::IMPLEMENTATION {
        md.push_str(" --- |");
    }
    md.push_str(" --- |");
    md.push('\n');
    for r in results {
        let name = r.info.as_ref().map_or(r.command.as_str(), |i| &i.name);
        let verdict = if r.start_error.is_some() {
            "cannot start".to_owned()
        } else if r.clean() {
            "0 violations".to_owned()
        } else {
            format!("{} violations, {} crashed", r.violations(), r.crash_count)
        };
        md.push_str(&format!("| `{}` | {verdict} |", name.replace('|', "\\|")));
        for o in Oracle::IMPLEMENTATION {
            let cell = r
                .cells
                .iter()
                .find(|(x, _)| *x == o)
                .map(|(_, c)| *c)
                .unwrap_or_default();
            let link = r
                .counterexamples
                .iter()
                .find(|x| x.oracle == o)
                .and_then(|x| x.file.as_ref())
                .map(|p| relative(p, report_dir));
            md.push_str(&format!(" {} |", cell_text(&cell, link)));
        }
        md.push_str(&format!(" {} |", suite_text(&r.suite)));
        md.push('\n');
    }
    md.push_str("\n## Implementations\n\n");
    for r in results {
        implementation_section(&mut md, r);
    }
    cost_section(&mut md, config, results);
    md
}

/// The protocol's cost: per implementation, requests per second of wall time, the mean round
/// trip (writing a request to reading its answer: pipe, JSON both ways, and the implementation's
/// own work) and the share of the workers' time spent waiting on answers rather than judging.
fn cost_section(md: &mut String, config: &RunConfig, results: &[ImplementationResult]) {
    md.push_str(&format!(
        "## Protocol cost

With {} worker(s). *Waiting* is the time from writing a request to reading its answer, summed over the workers; the rest of the workers' time is judging (sampling, validating, comparing) and generating. For an identity implementation the round trip is the protocol's own cost.

| implementation | requests | requests/s | mean round trip (ms) | waiting (s) | worker time (s) | share waiting |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
",
        config.check.jobs.max(1)
    ));
    for r in results {
        let name = r.info.as_ref().map_or(r.command.as_str(), |i| &i.name);
        #[allow(
            clippy::cast_precision_loss,
            reason = "request counts are far below 2^52"
        )]
        let requests = r.requests as f64;
        #[allow(clippy::cast_precision_loss, reason = "a handful of workers")]
        let workers = r.time.as_secs_f64() * config.check.jobs.max(1) as f64;
        let waiting = r.waiting.as_secs_f64();
        md.push_str(&format!(
            "| `{name}` | {} | {:.0} | {:.3} | {:.1} | {:.1} | {:.0} % |
",
            r.requests,
            requests / r.time.as_secs_f64().max(1e-9),
            1000.0 * waiting / requests.max(1.0),
            waiting,
            workers,
            100.0 * waiting / workers.max(1e-9)
        ));
    }
}

fn implementation_section(md: &mut String, r: &ImplementationResult) {
    let name = r.info.as_ref().map_or(r.command.as_str(), |i| &i.name);
    md.push_str(&format!("### `{name}`\n\n- Command: `{}`\n", r.command));
    if let Some(i) = &r.info {
        md.push_str(&format!(
            "- Language: {}; version: {}; readings: {}\n",
            i.language,
            if i.version.is_empty() {
                "-"
            } else {
                &i.version
            },
            i.readings
                .iter()
                .map(|x| x.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(e) = &r.start_error {
        md.push_str(&format!("- Cannot be started: {e}\n"));
    }
    let secs = r.time.as_secs_f64().max(1e-9);
    md.push_str(&format!(
        "- {} requests in {:.1} s, {} processes started, {} crashes or hangs\n",
        r.requests, secs, r.starts, r.crash_count,
    ));
    for s in &r.sources {
        md.push_str(&format!(
            "- {}: {} inputs, {:.1} s\n",
            s.name,
            s.inputs,
            s.time.as_secs_f64()
        ));
    }
    if let Some(f) = r
        .suite
        .iter()
        .flat_map(|s| s.flatten.failures.iter().chain(&s.wrapped.failures))
        .next()
    {
        let line: String = f.lines().next().unwrap_or("").chars().take(300).collect();
        md.push_str(&format!(
            "- First **suite** failure: {}\n",
            line.replace('|', "\\|")
        ));
    }
    for x in &r.counterexamples {
        md.push_str(&format!(
            "- First **{}** counterexample ({}{}): {}\n",
            x.oracle,
            x.found,
            if x.shrunk { ", shrunk" } else { "" },
            x.violation
                .message
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(300)
                .collect::<String>()
                .replace('|', "\\|")
        ));
    }
    for c in r.crashes.iter().take(3) {
        md.push_str(&format!(
            "- Crash: {}\n",
            c.lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(300)
                .collect::<String>()
        ));
    }
    for p in r.protocol_errors.iter().take(3) {
        md.push_str(&format!(
            "- Protocol error: {}\n",
            p.lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(300)
                .collect::<String>()
        ));
    }
    md.push('\n');
}

/// Writes the Markdown report at `path` and the JSON results beside it.
pub fn write(
    path: &Path,
    config: &RunConfig,
    results: &[ImplementationResult],
) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    std::fs::write(path, markdown(config, results, dir))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let json =
        serde_json::to_string_pretty(&to_json(config, results)).map_err(|e| e.to_string())?;
    let json_file = json_path(path);
    std::fs::write(&json_file, json + "\n").map_err(|e| format!("{}: {e}", json_file.display()))
}
