//! Renders the analysis as `join-cost.md`.

use std::fmt::Write as _;

use super::plot::{PlotFile, format_bytes, format_ns};
use super::table::table;
use super::{Analysis, COMMAND, Row, SliceAnalysis};
use crate::cases::{Axis, Op};

/// The report's file name inside the output folder.
pub const REPORT_FILE: &str = "join-cost.md";
/// Hand-written analysis (causes of missed targets, profiles) in the bench crate's folder, copied
/// into the report under its own heading when present.
pub const NOTES_FILE: &str = "join-cost-notes.md";
/// The plots' folder inside the output folder.
pub const PLOTS_DIR: &str = "join-cost";

fn time(row: &Row, op: Op) -> String {
    row.times
        .get(&op)
        .map_or_else(|| "—".to_owned(), |ns| format_ns(*ns))
}

fn ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×"))
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |r| format!("{:.1} %", r * 100.0))
}

fn plot_link(out: &mut String, plots: &[PlotFile], file: &str) {
    if let Some(plot) = plots.iter().find(|p| p.file == file) {
        let _ = writeln!(out, "![{}]({PLOTS_DIR}/{})\n", plot.caption, plot.file);
    }
}

fn case_rows(rows: &[&Row], axis_value: &dyn Fn(&Row) -> String) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| {
            vec![
                axis_value(row),
                row.record
                    .as_ref()
                    .map_or_else(|| "—".to_owned(), |r| r.input_nodes.to_string()),
                time(row, Op::JoinOwned),
                time(row, Op::Join),
                time(row, Op::Clone),
                ratio(row.ratio(Op::JoinOwned, Op::Clone)),
                ratio(row.ratio(Op::Join, Op::Clone)),
                time(row, Op::Drop),
                ratio(owned_over_copy_lifetime(row)),
                time(row, Op::Serialize),
                time(row, Op::Compile),
                percent(row.ratio(Op::JoinOwned, Op::Compile)),
                time(row, Op::Naive),
            ]
        })
        .collect()
}

/// `flatten_owned` against a deep copy's whole lifetime, clone plus drop: an owned join frees
/// the parts of its input it does not keep inside its own time, which a clone never does.
fn owned_over_copy_lifetime(row: &Row) -> Option<f64> {
    let copy = row.times.get(&Op::Clone)? + row.times.get(&Op::Drop)?;
    Some(row.times.get(&Op::JoinOwned)? / copy)
}

const CASE_HEADER: [&str; 13] = [
    "",
    "input nodes",
    "flatten_owned",
    "flatten",
    "clone",
    "owned / clone",
    "flatten / clone",
    "drop",
    "owned / (clone + drop)",
    "serialize",
    "compile",
    "owned / compile",
    "naive",
];

fn slice_section(out: &mut String, slice: &SliceAnalysis, plots: &[PlotFile]) {
    let axis = slice.slice.axis;
    let _ = writeln!(
        out,
        "### `{}`: varying {}\n",
        slice.slice.name,
        axis.label()
    );
    if let Some(base) = slice.slice.specs.first() {
        let mut fixed = vec![format!("family `{}`", base.family.name())];
        if axis != Axis::Branches {
            fixed.push(format!("N = {}", base.branches));
        }
        if axis != Axis::Props {
            fixed.push(format!("P = {}", base.props));
        }
        if axis != Axis::Collision {
            fixed.push(format!("collision {} %", base.collision_pct));
        }
        if axis != Axis::Depth {
            fixed.push(format!("D = {}", base.depth));
        }
        let _ = writeln!(out, "Fixed: {}.\n", fixed.join(", "));
    }
    plot_link(out, plots, &format!("time-vs-{}.svg", slice.slice.name));
    let mut header = CASE_HEADER;
    header[0] = axis.label();
    let rows: Vec<&Row> = slice.rows.iter().collect();
    let axis_value = |row: &Row| {
        row.spec
            .map_or_else(String::new, |s| format!("{}", axis.of(&s)))
    };
    table(out, &header, &case_rows(&rows, &axis_value));
    if !slice.fits.is_empty() {
        let fits: Vec<Vec<String>> = slice
            .fits
            .iter()
            .map(|(op, fit)| {
                vec![
                    format!("`{}`", op.label()),
                    format!("{:.2}", fit.exponent),
                    format!("{}…{} ({} points)", fit.from, fit.to, fit.points),
                    format!("{:.3}", fit.r_squared),
                ]
            })
            .collect();
        table(
            out,
            &["operation", "fitted exponent", "range fitted", "r²"],
            &fits,
        );
    }
}

/// Instruction counts from `benches/callgrind.sh`, when it ran: ratios and exponents that do not
/// move with the machine's load.
fn instructions_section(out: &mut String, analysis: &Analysis) {
    if analysis.instructions.is_empty() {
        return;
    }
    out.push_str("## Instruction counts (callgrind)\n\n");
    out.push_str(
        "Time on a shared machine moves with its load; instruction counts do not. \
         `bash benches/callgrind.sh` ran each operation once under `valgrind --tool=callgrind` \
         (collecting only inside the operation) on the cases of the scaling slices up to its \
         `--max-n`. Fewer instructions are not fewer nanoseconds — cache misses and page faults \
         are not counted — but a ratio or exponent here is exact for this build.\n\n",
    );
    let ops = [Op::Clone, Op::Join, Op::JoinOwned];
    for slice in analysis.slices.iter().filter(|s| s.slice.axis.is_scaling()) {
        let count = |spec: &crate::shape::ShapeSpec, op: Op| {
            analysis
                .instructions
                .get(&(crate::cases::synthetic_group(spec), op))
                .copied()
        };
        let rows: Vec<Vec<String>> = slice
            .slice
            .specs
            .iter()
            .filter(|spec| ops.iter().all(|op| count(spec, *op).is_some()))
            .map(|spec| {
                let [clone, join, owned] = ops.map(|op| count(spec, op).unwrap_or(f64::NAN));
                vec![
                    format!("{}", slice.slice.axis.of(spec)),
                    format!("{clone:.0}"),
                    format!("{join:.0}"),
                    format!("{owned:.0}"),
                    format!("{:.2}×", owned / clone),
                    format!("{:.2}×", join / clone),
                ]
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### `{}`\n", slice.slice.name);
        table(
            out,
            &[
                slice.slice.axis.label(),
                "clone",
                "flatten",
                "flatten_owned",
                "owned / clone",
                "flatten / clone",
            ],
            &rows,
        );
        let fits: Vec<String> = ops
            .iter()
            .filter_map(|op| {
                let points: Vec<(f64, f64)> = slice
                    .slice
                    .specs
                    .iter()
                    .filter_map(|spec| Some((slice.slice.axis.of(spec), count(spec, *op)?)))
                    .collect();
                let fit = super::fit::power_law(&points)?;
                Some(format!("`{}` {:.2}", op.label(), fit.exponent))
            })
            .collect();
        let _ = writeln!(
            out,
            "Fitted exponents over every point: {}.\n",
            fits.join(", ")
        );
    }
}

/// The whole-process comparison from `benches/whole-process.sh`: rendered from this run's table
/// when there is one, else the section of the previous report (`kept`), as it was.
fn whole_process_section(out: &mut String, analysis: &Analysis, kept: Option<&str>) {
    let section = match (&analysis.whole_process, kept) {
        (Some(table), _) => super::whole_process::section(table),
        (None, Some(kept)) => kept.to_owned(),
        (None, None) => return,
    };
    out.push_str(&section);
    out.push_str("\n\n");
}

/// The title, what the report measures, and the machine and run.
fn header_section(out: &mut String, run: &crate::run::RunRecord) {
    let _ = writeln!(
        out,
        "<!-- Generated by `{COMMAND}`. Do not edit by hand. -->\n"
    );
    out.push_str("# Join cost\n\n");
    out.push_str(
        "What the flat presentation join costs and how that cost grows, measured with criterion \
         against baselines **in the same run**, so that the figures that matter are ratios and \
         exponents. Times are criterion's median per iteration of the benchmark thread's **CPU \
         time** (`CLOCK_THREAD_CPUTIME_ID`), not wall-clock: the machine is shared with other \
         builds, and time spent waiting for a core would otherwise land in whichever operation ran \
         then. Cache and memory-bandwidth interference from the other work is still in the numbers, \
         so absolute times are for reference; the instruction counts below, where present, are \
         exact.\n\n",
    );

    out.push_str("## Measured on\n\n");
    let finished = if run.finished.is_empty() {
        "(interrupted)"
    } else {
        run.finished.as_str()
    };
    table(
        out,
        &["", ""],
        &[
            vec!["commit".to_owned(), run.commit.clone()],
            vec!["toolchain".to_owned(), format!("`{}`", run.rustc)],
            vec![
                "machine".to_owned(),
                format!("{} ({} cores available)", run.cpu, run.cores),
            ],
            vec![
                "run".to_owned(),
                format!("{} → {}, profile `{}`", run.started, finished, run.profile),
            ],
            vec![
                "load average (1/5/15 min)".to_owned(),
                format!("{} → {}", run.load_start, run.load_end),
            ],
        ],
    );
}

/// The join-cost targets and their verdicts.
fn targets_section(out: &mut String, analysis: &Analysis) {
    out.push_str("## Targets (issue 5)\n\n");
    out.push_str(
        "The join is `flatjoin::flatten_owned`, the fast path that moves out of an input it owns \
         (its input copy is made outside the timed region); the borrowed `flatjoin::flatten`, which \
         must build its whole output, is listed beside it. Targets are never loosened: a missed \
         one is reported with the measured figure.\n\n",
    );
    let target_rows: Vec<Vec<String>> = analysis
        .targets
        .iter()
        .map(|t| {
            let verdict = match t.met {
                Some(true) => "met",
                Some(false) => "**missed**",
                None => "not measured",
            };
            vec![t.target.clone(), t.measured.clone(), verdict.to_owned()]
        })
        .collect();
    table(out, &["target", "measured", "verdict"], &target_rows);
}

/// The hand-written analysis, copied from [`NOTES_FILE`].
fn notes_section(out: &mut String, notes: &str) {
    let _ = writeln!(
        out,
        "## Analysis\n\n*Hand-written, copied from `benches/{NOTES_FILE}`; the tables below are \
         the measurements.*\n\n{}\n",
        notes.trim()
    );
}

/// `report` with its analysis section (from `## Analysis` to the next section) replaced by
/// `notes`; `None` when it has none.
pub fn splice_notes(report: &str, notes: &str) -> Option<String> {
    let start = report.find("## Analysis\n")?;
    let end = start + report[start..].find("## What is measured")?;
    let mut section = String::new();
    notes_section(&mut section, notes);
    Some(format!("{}{section}{}", &report[..start], &report[end..]))
}

/// What each operation and each synthetic shape is.
fn what_is_measured_section(out: &mut String) {
    out.push_str("## What is measured\n\n");
    out.push_str(
        "- `flatten_owned`: `flatjoin::flatten_owned(input, &Options::default())` on a fresh deep \
         copy (criterion `iter_batched`; the copy is not timed, dropping the output is not timed).\n\
         - `flatten`: `flatjoin::flatten(&input, &Options::default())`.\n\
         - `clone`: `Value::clone` of the input — the floor, since a join must at least build its \
         output.\n\
         - `drop`: dropping a fresh deep copy of the input (criterion `iter_batched`; the copy is \
         not timed). `flatten_owned` frees the parts of its input it does not keep inside its own \
         time, which a clone never pays, so `owned / (clone + drop)` compares it with a copy's \
         whole lifetime.\n\
         - `serialize`: `serde_json::to_vec` of the presentation.\n\
         - `compile`: `jsonschema::validator_for` on the presentation — what a consumer pays anyway \
         (for a manifest: one validator per tool).\n\
         - `naive`: the bench crate's deliberately naive join (`naive.rs`): the same flat object, \
         but each property's alternatives are deduplicated by comparing every pair with \
         `flatjoin::structurally_equal` — quadratic. Timed only where it finishes in reasonable \
         time (shared names × N² / 2 ≤ 70 000, D ≤ 4).\n\
         - Synthetic shapes come from one builder (`shape.rs`): a root `oneOf` of N closed branches \
         with discriminator `kind`, P properties each, a collision rate (share of names every \
         branch defines), and property schemas nesting objects D levels deep. Families: `mixed` \
         (shared names rotate through string / integer / object / array variants), `dedup-heavy` \
         (every branch defines the same large `payload` object, differing only in descriptions) \
         and `all-distinct` (every name shared, every alternative structurally distinct). Ids read \
         `family-nN-pP-cC-dD`.\n\n",
    );
}

/// The scaling slices, then the collision-rate and depth slices.
fn slices_sections(out: &mut String, analysis: &Analysis, plots: &[PlotFile]) {
    out.push_str("## Scaling\n\n");
    let _ = writeln!(
        out,
        "Exponents are least-squares slopes of ln(time) against ln(N) or ln(P); in N they are \
         fitted from N = {} up (below it, per-call constants dominate), in P over every point.\n",
        super::FIT_FROM_N
    );
    for slice in analysis.slices.iter().filter(|s| s.slice.axis.is_scaling()) {
        slice_section(out, slice, plots);
    }

    out.push_str("## Collision rate and depth\n\n");
    for slice in analysis
        .slices
        .iter()
        .filter(|s| !s.slice.axis.is_scaling())
    {
        slice_section(out, slice, plots);
    }
}

/// A synthetic row's label: its shape id.
fn shape_id(row: &Row) -> String {
    row.spec
        .map_or_else(|| row.group.clone(), |s| format!("`{}`", s.id()))
}

/// Every synthetic shape against the deep clone, and the validator-compile plot.
fn ratio_sections(out: &mut String, analysis: &Analysis, plots: &[PlotFile]) {
    out.push_str("## Ratio to the deep-clone floor, every synthetic shape\n\n");
    plot_link(out, plots, "clone-ratio.svg");
    let synthetic: Vec<&Row> = analysis.synthetic.iter().collect();
    let mut header = CASE_HEADER;
    header[0] = "shape";
    table(out, &header, &case_rows(&synthetic, &shape_id));

    out.push_str("## Validator-compile ratio\n\n");
    out.push_str(
        "`owned / compile` in the tables above and below; the plot shows it for every synthetic \
         shape on a log axis, with the 10 % target.\n\n",
    );
    plot_link(out, plots, "compile-ratio.svg");
}

/// Peak bytes and allocations of every synthetic shape.
fn memory_section(out: &mut String, analysis: &Analysis, plots: &[PlotFile]) {
    out.push_str("## Memory\n\n");
    out.push_str(
        "Peak bytes allocated and not yet freed while the operation runs, from the bench crate's \
         counting global allocator (`alloc.rs`), one untimed run per case. For `flatten_owned` the \
         input is moved in, so what it frees of the input counts against its peak.\n\n",
    );
    plot_link(out, plots, "memory-vs-n.svg");
    let memory_rows: Vec<Vec<String>> = analysis
        .synthetic
        .iter()
        .filter_map(|row| {
            let r = row.record.as_ref()?;
            let per = |peak: u64| {
                if r.clone.peak_bytes == 0 {
                    "—".to_owned()
                } else {
                    format!("{:.2}×", peak as f64 / r.clone.peak_bytes as f64)
                }
            };
            let nodes = if r.input_nodes == 0 {
                "—".to_owned()
            } else {
                format!("{:.2}", r.output_nodes as f64 / r.input_nodes as f64)
            };
            Some(vec![
                shape_id(row),
                format_bytes(r.input_bytes as f64),
                nodes,
                format_bytes(r.clone.peak_bytes as f64),
                format_bytes(r.join.peak_bytes as f64),
                format_bytes(r.join_owned.peak_bytes as f64),
                per(r.join.peak_bytes),
                per(r.join_owned.peak_bytes),
                format!(
                    "{} / {} / {}",
                    r.clone.allocations, r.join.allocations, r.join_owned.allocations
                ),
            ])
        })
        .collect();
    table(
        out,
        &[
            "shape",
            "input (serialized)",
            "presentation / input nodes",
            "clone peak",
            "flatten peak",
            "flatten_owned peak",
            "flatten / clone",
            "owned / clone",
            "allocations clone / flatten / owned",
        ],
        &memory_rows,
    );
}

/// Every corpus file measured.
fn corpus_section(out: &mut String, analysis: &Analysis) {
    out.push_str("## Real corpus\n\n");
    if analysis.corpus.is_empty() {
        out.push_str(
            "No corpus file was measured (`corpus/` was empty when the benchmark ran).\n\n",
        );
        return;
    }
    out.push_str(
        "Every `*.json` file under `corpus/` that holds schemas. A manifest (`tools` array) is \
         measured as all of its tools' `inputSchema`s flattened one by one, a join-test file \
         (`spec/`) as all of its tests' `schema`s.\n\n",
    );
    let rows: Vec<Vec<String>> = analysis
        .corpus
        .iter()
        .map(|row| {
            let record = row.record.as_ref();
            vec![
                format!("`{}`", row.group.trim_start_matches("corpus/")),
                record.map_or_else(|| "—".to_owned(), |r| r.schemas.to_string()),
                record.map_or_else(|| "—".to_owned(), |r| format_bytes(r.input_bytes as f64)),
                record.map_or_else(|| "—".to_owned(), |r| r.flattened_sites.to_string()),
                time(row, Op::JoinOwned),
                time(row, Op::Join),
                time(row, Op::Clone),
                ratio(row.ratio(Op::JoinOwned, Op::Clone)),
                time(row, Op::Serialize),
                time(row, Op::Compile),
                percent(row.ratio(Op::JoinOwned, Op::Compile)),
            ]
        })
        .collect();
    table(
        out,
        &[
            "file",
            "schemas",
            "input",
            "unions flattened",
            "flatten_owned",
            "flatten",
            "clone",
            "owned / clone",
            "serialize",
            "compile",
            "owned / compile",
        ],
        &rows,
    );
}

/// Slices without results and cases not benchmarked, with their reasons.
fn gaps_section(out: &mut String, analysis: &Analysis) {
    if analysis
        .slices
        .iter()
        .any(|s| s.slice.axis == Axis::Branches && s.rows.is_empty())
    {
        out.push_str("Some slices had no results.\n");
    }
    if !analysis.run.skipped.is_empty() {
        out.push_str("Not benchmarked, or not every operation:\n\n");
        for skipped in &analysis.run.skipped {
            match skipped.split_once(": ") {
                Some((id, reason)) => {
                    let _ = writeln!(out, "- `{id}`: {reason}");
                }
                None => {
                    let _ = writeln!(out, "- {skipped}");
                }
            }
        }
        out.push('\n');
    }
}

/// The whole report; `kept_whole_process` is the previous report's whole-process section, used
/// when this run has no whole-process table.
pub fn render(
    analysis: &Analysis,
    plots: &[PlotFile],
    notes: Option<&str>,
    kept_whole_process: Option<&str>,
) -> String {
    let mut out = String::new();
    header_section(&mut out, &analysis.run);
    targets_section(&mut out, analysis);
    whole_process_section(&mut out, analysis, kept_whole_process);
    if let Some(notes) = notes {
        notes_section(&mut out, notes);
    }
    what_is_measured_section(&mut out);
    slices_sections(&mut out, analysis, plots);
    ratio_sections(&mut out, analysis, plots);
    instructions_section(&mut out, analysis);
    memory_section(&mut out, analysis, plots);
    corpus_section(&mut out, analysis);
    gaps_section(&mut out, analysis);
    out
}
