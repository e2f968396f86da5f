//! The JUnit XML of a run's results ([`junit`]; SPEC §6 decision 60).

use std::fmt::Write as _;

use super::super::{MODEL_GENERATOR, OPEN_WORLD_GENERATOR};
use super::{CheckCounts, Finding, Results};
use crate::shard::Shard;

/// Text fit for XML character data and attribute values: markup escaped, characters XML 1.0
/// does not allow dropped.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// The JUnit XML of `results` (SPEC §6 decision 60): one `<testsuite>` per source (`corpus`,
/// `json-schema-test-suite`, `model`, `open-world`; a shard's suites named with `[shard K/N]`), one
/// `<testcase>` per oracle that judged anything there (per draft and part for the suite), with a
/// `<failure>` carrying the findings — each counterexample a corpus case in JSON — or `<skipped/>`
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
    let count = |pred: &dyn Fn(&CheckCounts) -> bool| {
        results
            .summary
            .checks
            .iter()
            .filter(|c| c.cases > 0 || c.skipped > 0)
            .filter(|c| pred(c))
            .count()
    };
    let failed = |c: &CheckCounts| c.failed > 0;
    let skipped = |c: &CheckCounts| c.failed == 0 && c.passed == 0;
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        xml_escape(&format!("{}{suffix}", results.run.command)),
        count(&|_| true),
        count(&failed),
        count(&skipped),
        results.timing.total_seconds
    );
    for source in sources {
        let of_source = |c: &CheckCounts| c.source == source;
        let time = match source {
            MODEL_GENERATOR => results.timing.model_seconds,
            OPEN_WORLD_GENERATOR => results.timing.open_world_seconds,
            _ => 0.0,
        };
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{time:.3}\">",
            xml_escape(&format!("{source}{suffix}")),
            count(&of_source),
            count(&|c| of_source(c) && failed(c)),
            count(&|c| of_source(c) && skipped(c)),
        );
        let _ = writeln!(
            xml,
            "    <properties>\n      <property name=\"seed\" value=\"{}\"/>\n      <property name=\"shard\" value=\"{}\"/>\n    </properties>",
            results.run.seed,
            results.shard.unwrap_or(Shard::WHOLE)
        );
        for c in results
            .summary
            .checks
            .iter()
            .filter(|c| of_source(c) && (c.cases > 0 || c.skipped > 0))
        {
            junit_case(&mut xml, results, c);
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn junit_case(xml: &mut String, results: &Results, c: &CheckCounts) {
    let _ = write!(
        xml,
        "    <testcase classname=\"flatjoin.{}\" name=\"{}\" time=\"0\"",
        xml_escape(&c.source),
        xml_escape(&c.check)
    );
    let counts = format!(
        "{} judged: {} passed, {} failed, {} skipped",
        c.cases, c.passed, c.failed, c.skipped
    );
    if c.failed > 0 {
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
        let _ = write!(
            xml,
            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
            xml_escape(&message),
            xml_escape(&c.check),
            xml_escape(&body)
        );
    } else if c.passed == 0 {
        let _ = write!(
            xml,
            ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
            xml_escape(&counts)
        );
    } else {
        let _ = write!(
            xml,
            ">\n      <system-out>{}</system-out>\n    </testcase>\n",
            xml_escape(&counts)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escape_leaves_no_markup_and_no_forbidden_characters() {
        assert_eq!(
            xml_escape("a<b>&\"c'\u{1}\n"),
            "a&lt;b&gt;&amp;&quot;c&apos;\n"
        );
    }
}
