//! The one Markdown table writer of the report, shared by its criterion sections (`markdown`) and
//! the whole-process section (`whole_process`).

use std::fmt::Write as _;

/// A Markdown table: the header, its rule, one line per row, then a blank line.
pub(super) fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(
        out,
        "|{}",
        header.iter().map(|_| "---|").collect::<String>()
    );
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}
