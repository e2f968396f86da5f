//! The whole-process comparison (`whole-process`, driven by `benches/whole-process.sh`): its TSV
//! format, the report section rendered from it, and the splicing of that section into an existing
//! `join-cost.md` (it is measured by its own run, not by criterion's).

use std::fmt::Write as _;
use std::path::Path;

/// File name of the comparison inside the criterion folder.
pub const FILE: &str = "flatjoin-whole-process.tsv";

/// The TSV's columns, as `whole-process` writes them. The `before_*` columns hold
/// [`NOT_MEASURED`] when no earlier binary ran. The last three are the sizes (minified bytes of
/// the input and of the presentation, and their ratio); a file written before them has only the
/// first [`LEGACY_COLUMNS`] and reads with no sizes.
pub const COLUMNS: [&str; 16] = [
    "input",
    "set",
    "bytes",
    "join_cpu_s",
    "floor_cpu_s",
    "cpu_ratio",
    "join_peak_kib",
    "floor_peak_kib",
    "peak_ratio",
    "before_cpu_s",
    "before_cpu_ratio",
    "before_peak_kib",
    "before_peak_ratio",
    "input_min_bytes",
    "presentation_min_bytes",
    "size_ratio",
];

/// How many of [`COLUMNS`] a file written before the size columns has.
pub const LEGACY_COLUMNS: usize = 13;

/// A `before_*` field of a run without an earlier binary.
pub const NOT_MEASURED: &str = "-";

/// Target: the largest whole-process CPU ratio to the floor.
pub const MAX_CPU_RATIO: f64 = 1.5;
/// Target: the largest whole-process peak-memory ratio to the floor.
pub const MAX_PEAK_RATIO: f64 = 1.0;
/// The presentation-to-input size ratio above which a row is called out (bold, and named in the
/// summary).
pub const MAX_SIZE_RATIO: f64 = 2.0;

const BEGIN: &str = "<!-- whole-process: ";
const END: &str = "<!-- /whole-process -->";
/// The heading of the section (also how a report written before the markers is recognized).
const HEADING: &str = "## Whole process: `flatjoin` against the floor binary";

/// Where and how the comparison ran, kept as `# key: value` comment lines at the top of the TSV.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// The command line that made the file.
    pub command: String,
    /// The commit of the measured (`after`) binary's workspace.
    pub commit: String,
    /// What the earlier binary is, when one ran.
    pub before: Option<String>,
    /// Runs per input.
    pub runs: usize,
    /// UTC start time.
    pub started: String,
    /// UTC end time.
    pub finished: String,
    /// `/proc/loadavg` (1/5/15 min) at the start.
    pub load_start: String,
    /// The same at the end.
    pub load_end: String,
    /// The largest 1-minute load average sampled before each input.
    pub load_max: f64,
}

impl Meta {
    /// Records a load sample (`/proc/loadavg`'s first three fields).
    pub fn sample_load(&mut self, load: &str) {
        if let Some(one) = load.split_whitespace().next().and_then(|l| l.parse().ok()) {
            self.load_max = self.load_max.max(one);
        }
    }

    /// The `# key: value` lines.
    pub fn to_comments(&self) -> String {
        let mut out = String::new();
        let mut line = |k: &str, v: &str| {
            let _ = writeln!(out, "# {k}: {v}");
        };
        line("command", &self.command);
        line("commit", &self.commit);
        if let Some(before) = &self.before {
            line("before", before);
        }
        line("runs", &self.runs.to_string());
        line("started", &self.started);
        line("finished", &self.finished);
        line("load_start", &self.load_start);
        line("load_end", &self.load_end);
        line("load_max", &format!("{:.2}", self.load_max));
        out
    }

    fn read_comment(&mut self, line: &str) {
        let Some((key, value)) = line.trim_start_matches('#').trim().split_once(": ") else {
            return;
        };
        let value = value.to_owned();
        match key {
            "command" => self.command = value,
            "commit" => self.commit = value,
            "before" => self.before = Some(value),
            "runs" => self.runs = value.parse().unwrap_or(0),
            "started" => self.started = value,
            "finished" => self.finished = value,
            "load_start" => self.load_start = value,
            "load_end" => self.load_end = value,
            "load_max" => self.load_max = value.parse().unwrap_or(f64::NAN),
            _ => {}
        }
    }
}

/// The earlier binary's figures for one input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Before {
    /// Median CPU seconds.
    pub cpu_s: f64,
    /// Median of the per-run CPU ratios to the floor.
    pub cpu_ratio: f64,
    /// Median peak resident KiB.
    pub peak_kib: f64,
    /// Median of the per-run peak ratios to the floor.
    pub peak_ratio: f64,
}

/// One input's sizes, each document re-serialized minified (`serde_json::to_vec`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    /// Minified bytes of the input.
    pub input_bytes: f64,
    /// Minified bytes of the presentation (`flatjoin`'s output).
    pub presentation_bytes: f64,
    /// `presentation_bytes / input_bytes`.
    pub ratio: f64,
}

/// One input's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What the input is.
    pub label: String,
    /// `fixed` or `sweep`.
    pub set: String,
    /// Size of the input file.
    pub bytes: f64,
    /// Median CPU seconds of `flatjoin`.
    pub join_cpu_s: f64,
    /// Median CPU seconds of the floor.
    pub floor_cpu_s: f64,
    /// Median of the per-run CPU ratios.
    pub cpu_ratio: f64,
    /// Median peak resident KiB of `flatjoin`.
    pub join_peak_kib: f64,
    /// Median peak resident KiB of the floor.
    pub floor_peak_kib: f64,
    /// Median of the per-run peak ratios.
    pub peak_ratio: f64,
    /// The earlier binary, when it ran.
    pub before: Option<Before>,
    /// The sizes; `None` in a file written before the size columns.
    pub size: Option<Size>,
}

/// A whole TSV file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Its comment lines.
    pub meta: Meta,
    /// Its rows, in file order.
    pub rows: Vec<Row>,
}

fn parse_row(fields: &[&str]) -> Option<Row> {
    let [label, set, numbers @ ..] = fields else {
        return None;
    };
    let number = |k: usize| numbers.get(k)?.parse::<f64>().ok();
    let before = if numbers.get(7..11)?.iter().all(|f| *f == NOT_MEASURED) {
        None
    } else {
        Some(Before {
            cpu_s: number(7)?,
            cpu_ratio: number(8)?,
            peak_kib: number(9)?,
            peak_ratio: number(10)?,
        })
    };
    let sizes = numbers.get(11..).unwrap_or_default();
    let size = if sizes.is_empty() || sizes.iter().all(|f| *f == NOT_MEASURED) {
        None
    } else {
        Some(Size {
            input_bytes: number(11)?,
            presentation_bytes: number(12)?,
            ratio: number(13)?,
        })
    };
    Some(Row {
        label: (*label).to_owned(),
        set: (*set).to_owned(),
        bytes: number(0)?,
        join_cpu_s: number(1)?,
        floor_cpu_s: number(2)?,
        cpu_ratio: number(3)?,
        join_peak_kib: number(4)?,
        floor_peak_kib: number(5)?,
        peak_ratio: number(6)?,
        before,
        size,
    })
}

/// Parses a TSV written by `whole-process`: the current [`COLUMNS`], or the
/// [`LEGACY_COLUMNS`] of a file written before the sizes (its rows have no [`Size`]).
pub fn parse(text: &str, name: &str) -> Result<Table, String> {
    let mut table = Table::default();
    let mut header: Option<usize> = None;
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with('#') {
            table.meta.read_comment(line);
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let Some(width) = header else {
            if fields != COLUMNS && fields != COLUMNS[..LEGACY_COLUMNS] {
                return Err(format!(
                    "{name}: unexpected header {fields:?} (expected {COLUMNS:?}, or its first \
                     {LEGACY_COLUMNS} columns)"
                ));
            }
            header = Some(fields.len());
            continue;
        };
        let row = (fields.len() == width)
            .then(|| parse_row(&fields))
            .flatten()
            .ok_or_else(|| format!("{name}:{}: malformed row", number + 1))?;
        table.rows.push(row);
    }
    Ok(table)
}

/// Reads `dir/`[`FILE`]; `None` when absent.
pub fn load(dir: &Path) -> Result<Option<Table>, String> {
    let path = dir.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text, &path.display().to_string()).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn ratio_cell(value: f64, limit: f64) -> String {
    if value > limit {
        format!("**{value:.2}×**")
    } else {
        format!("{value:.2}×")
    }
}

/// The start-up of both binaries in one run: the median CPU seconds of each on the input whose
/// label says it measures start-up (the 1 KB schema), the CPU a process costs before its input
/// matters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StartUp {
    /// `flatjoin`'s median CPU seconds there.
    pub join_cpu_s: f64,
    /// The floor's.
    pub floor_cpu_s: f64,
}

impl StartUp {
    /// The start-up row of `rows`, if one ran.
    pub fn of(rows: &[Row]) -> Option<StartUp> {
        rows.iter()
            .find(|r| r.label.contains("(start-up)"))
            .map(|r| StartUp {
                join_cpu_s: r.join_cpu_s,
                floor_cpu_s: r.floor_cpu_s,
            })
    }

    /// `row`'s CPU ratio with each binary's start-up taken off both sides: what the input itself
    /// costs `flatjoin` against what it costs the floor (the "start-up aside"). `None`
    /// where the floor spends less than three start-ups on the row (start-up dominates: the
    /// difference of two near-equal medians says nothing), and on the start-up row itself. A
    /// ratio of medians, so it is an estimate beside the median of per-run ratios.
    pub fn net_ratio(&self, row: &Row) -> Option<f64> {
        if row.floor_cpu_s < 3.0 * self.floor_cpu_s {
            return None;
        }
        Some((row.join_cpu_s - self.join_cpu_s) / (row.floor_cpu_s - self.floor_cpu_s))
    }
}

fn rows_table(out: &mut String, rows: &[&Row], with_before: bool, startup: Option<StartUp>) {
    let mut header = vec!["input", "size (KiB)"];
    if with_before {
        header.extend(["before CPU (ms)", "after CPU (ms)"]);
    } else {
        header.push("flatjoin CPU (ms)");
    }
    header.push("floor CPU (ms)");
    if with_before {
        header.extend(["CPU ratio before", "CPU ratio after"]);
    } else {
        header.push("CPU ratio");
    }
    if startup.is_some() {
        header.push("CPU ratio net of start-up");
    }
    header.extend(["flatjoin peak (MiB)", "floor peak (MiB)"]);
    if with_before {
        header.extend(["peak ratio before", "peak ratio after"]);
    } else {
        header.push("peak ratio");
    }
    header.extend([
        "input (min. bytes)",
        "presentation (min. bytes)",
        "size ratio",
    ]);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.label.clone(), format!("{:.1}", r.bytes / 1024.0)];
            if with_before {
                cells.push(
                    r.before
                        .map_or_else(|| "—".to_owned(), |b| format!("{:.1}", b.cpu_s * 1e3)),
                );
            }
            cells.push(format!("{:.1}", r.join_cpu_s * 1e3));
            cells.push(format!("{:.1}", r.floor_cpu_s * 1e3));
            let before = |f: fn(&Before) -> f64, limit| {
                r.before
                    .as_ref()
                    .map_or_else(|| "—".to_owned(), |b| ratio_cell(f(b), limit))
            };
            if with_before {
                cells.push(before(|b| b.cpu_ratio, MAX_CPU_RATIO));
            }
            cells.push(ratio_cell(r.cpu_ratio, MAX_CPU_RATIO));
            if let Some(startup) = startup {
                cells.push(startup.net_ratio(r).map_or_else(
                    || "— (start-up)".to_owned(),
                    |net| ratio_cell(net, MAX_CPU_RATIO),
                ));
            }
            cells.push(format!("{:.1}", r.join_peak_kib / 1024.0));
            cells.push(format!("{:.1}", r.floor_peak_kib / 1024.0));
            if with_before {
                cells.push(before(|b| b.peak_ratio, MAX_PEAK_RATIO));
            }
            cells.push(ratio_cell(r.peak_ratio, MAX_PEAK_RATIO));
            match r.size {
                Some(size) => cells.extend([
                    format!("{:.0}", size.input_bytes),
                    format!("{:.0}", size.presentation_bytes),
                    ratio_cell(size.ratio, MAX_SIZE_RATIO),
                ]),
                None => cells.extend(["—", "—", "—"].map(str::to_owned)),
            }
            cells
        })
        .collect();
    super::table::table(out, &header, &cells);
}

/// The worst of `rows` by `key`, as "1.62× (`label`)", and how many exceed `limit`.
fn worst(rows: &[&Row], key: impl Fn(&Row) -> Option<f64>, limit: f64) -> String {
    let values: Vec<(f64, &str)> = rows
        .iter()
        .filter_map(|r| Some((key(r)?, r.label.as_str())))
        .collect();
    let Some((value, label)) = values.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0)) else {
        return "not measured".to_owned();
    };
    let over = values.iter().filter(|(v, _)| *v > limit).count();
    format!(
        "**{value:.2}×** ({label}); {over} of {} over {limit}×",
        values.len()
    )
}

/// The size summary of `rows`: the worst presentation-to-input ratio, and every row over
/// [`MAX_SIZE_RATIO`] by name.
fn size_summary(rows: &[&Row]) -> String {
    let sized: Vec<(f64, &str)> = rows
        .iter()
        .filter_map(|r| Some((r.size?.ratio, r.label.as_str())))
        .collect();
    let Some((value, label)) = sized.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0)) else {
        return "not measured".to_owned();
    };
    let over: Vec<String> = sized
        .iter()
        .filter(|(v, _)| *v > MAX_SIZE_RATIO)
        .map(|(v, l)| format!("{l} ({v:.2}×)"))
        .collect();
    let over = if over.is_empty() {
        format!("none of {} over {MAX_SIZE_RATIO}×", sized.len())
    } else {
        format!(
            "{} of {} over {MAX_SIZE_RATIO}×: {}",
            over.len(),
            sized.len(),
            over.join(", ")
        )
    };
    format!("{} ({label}); {over}", ratio_cell(value, MAX_SIZE_RATIO))
}

fn sweep_summary(out: &mut String, rows: &[&Row], startup: Option<StartUp>) {
    let has_before = rows.iter().any(|r| r.before.is_some());
    let mut lines = vec![(
        "worst CPU ratio",
        worst(rows, |r| Some(r.cpu_ratio), MAX_CPU_RATIO),
    )];
    if let Some(startup) = startup {
        lines.push((
            "worst CPU ratio net of start-up",
            worst(rows, |r| startup.net_ratio(r), MAX_CPU_RATIO),
        ));
    }
    lines.push((
        "worst peak ratio",
        worst(rows, |r| Some(r.peak_ratio), MAX_PEAK_RATIO),
    ));
    if has_before {
        lines.push((
            "before: worst CPU ratio",
            worst(rows, |r| Some(r.before?.cpu_ratio), MAX_CPU_RATIO),
        ));
        lines.push((
            "before: worst peak ratio",
            worst(rows, |r| Some(r.before?.peak_ratio), MAX_PEAK_RATIO),
        ));
    }
    lines.push(("worst size ratio", size_summary(rows)));
    for (what, text) in lines {
        let _ = writeln!(out, "- {what}: {text}");
    }
    out.push('\n');
}

fn run_table(out: &mut String, meta: &Meta) {
    let mut rows = vec![
        vec!["command".to_owned(), format!("`{}`", meta.command)],
        vec!["commit (after)".to_owned(), meta.commit.clone()],
    ];
    if let Some(before) = &meta.before {
        rows.push(vec!["before".to_owned(), before.clone()]);
    }
    rows.push(vec![
        "run".to_owned(),
        format!(
            "{} → {}, {} runs per input",
            meta.started, meta.finished, meta.runs
        ),
    ]);
    rows.push(vec![
        "load average (1/5/15 min)".to_owned(),
        format!(
            "{} → {}; highest 1-minute figure sampled: {:.2}",
            meta.load_start, meta.load_end, meta.load_max
        ),
    ]);
    super::table::table(out, &["", ""], &rows);
}

/// The section, markers included.
pub fn section(table: &Table) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{BEGIN}written by benches/whole-process.sh from its own run, command below; do not edit \
         by hand -->\n{HEADING}\n"
    );
    out.push_str(
        "The `flatjoin` binary (`flatten`, or `manifest` for a manifest) against `floor`, both built \
         from the same workspace with the `dist` profile the packages and release archives \
         ship (fat LTO, one codegen unit), the floor only reads the file, parses it with the same \
         order-preserving `serde_json`, deep-clones it and pretty-prints it, with the same \
         allocator (mimalloc, as in `flatjoin`). Whole processes, as a \
         user runs them, measured by the OS (`getrusage` of each child: user + system CPU time, \
         peak resident memory), the binaries rotated run by run (with `--before`, an earlier \
         `flatjoin` binary runs in the same rotation, so before and after meet the same load); \
         each ratio is the median of the per-run ratios. Targets: CPU ≤ 1.5×, peak memory ≤ 1.0× \
         the floor; figures over a target are bold. \"Net of start-up\" sets start-up aside: each \
         binary's median CPU on the 1 KB schema (what a process costs before its input matters) \
         taken off its median on the row, then the ratio of the two (a ratio of medians, an \
         estimate; not given where the floor spends less than three start-ups). Size: the input and the presentation \
         (`flatjoin`'s output, run once per input), each parsed and re-serialized minified by \
         `serde_json`, in bytes, and their ratio (presentation / input), bold over 2×. Tokens: \
         no offline tokenizer.\n\n",
    );
    run_table(&mut out, &table.meta);
    let with_before = table.rows.iter().any(|r| r.before.is_some());
    let startup = StartUp::of(&table.rows);
    let set = |name: &str| -> Vec<&Row> { table.rows.iter().filter(|r| r.set == name).collect() };
    let fixed = set("fixed");
    if !fixed.is_empty() {
        out.push_str("### The benchmark's inputs\n\n");
        rows_table(&mut out, &fixed, with_before, startup);
        if let Some(startup) = startup {
            let _ = writeln!(
                out,
                "- worst CPU ratio net of start-up: {}",
                worst(&fixed, |r| startup.net_ratio(r), MAX_CPU_RATIO)
            );
        }
        let _ = writeln!(out, "- worst size ratio: {}\n", size_summary(&fixed));
    }
    let sweep = set("sweep");
    if !sweep.is_empty() {
        out.push_str(
            "### Shape sweep\n\nShapes the join was not tuned to (`benches/src/sweep.rs`): \
             shared names colliding as different kinds, per-branch descriptions and titles, \
             `required` lists that differ in every branch, unions of `$ref`s to shared \
             definitions, one union of models used in many fields as Pydantic writes it, many \
             identical small unions, unions nested in arrays, open branches, a manifest of \
             differently shaped tools.\n\n",
        );
        rows_table(&mut out, &sweep, with_before, startup);
        sweep_summary(&mut out, &sweep, startup);
    }
    out.push_str(END);
    out
}

/// The byte range of the whole-process section in `report`: between the markers, or, in a report
/// written before them, from the heading to the next `## ` heading.
fn section_range(report: &str) -> Option<(usize, usize)> {
    if let Some(start) = report.find(BEGIN) {
        let end = start + report[start..].find(END)? + END.len();
        return Some((start, end));
    }
    let start = report.find(HEADING)?;
    let after = start + HEADING.len();
    let end = report[after..]
        .find("\n## ")
        .map_or(report.len(), |i| after + i + 1);
    Some((start, end))
}

/// `report` with its whole-process section replaced by `section`; `None` when it has none.
pub fn splice(report: &str, section: &str) -> Option<String> {
    let (start, end) = section_range(report)?;
    let rest = report[end..].trim_start_matches('\n');
    Some(format!("{}{section}\n\n{rest}", &report[..start]))
}

/// The section of an existing report, markers included (kept when a criterion run has no new
/// whole-process table).
pub fn existing_section(report: &str) -> Option<&str> {
    let start = report.find(BEGIN)?;
    let end = start + report[start..].find(END)? + END.len();
    Some(&report[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tsv(before: &str) -> String {
        format!(
            "# command: bash benches/whole-process.sh\n# runs: 3\n# load_max: 2.50\n{}\n\
             small\tfixed\t1024\t0.003\t0.002\t1.5\t6000\t2000\t3.0\t{before}\t\
             1024\t512\t0.5\n\
             shape a\tsweep\t2048\t0.2\t0.1\t2.0\t10\t20\t0.5\t{before}\t2048\t6144\t3.0\n\
             shape b\tsweep\t2048\t0.1\t0.1\t1.2\t30\t20\t1.5\t{before}\t2048\t1024\t0.5\n",
            COLUMNS.join("\t")
        )
    }

    /// A file written before the size columns.
    fn legacy_tsv() -> String {
        format!(
            "# runs: 1\n{}\nsmall\tfixed\t1024\t0.003\t0.002\t1.5\t6000\t2000\t3.0\t-\t-\t-\t-\n",
            COLUMNS[..LEGACY_COLUMNS].join("\t")
        )
    }

    #[test]
    fn reads_the_sizes_and_a_file_written_before_them() {
        let table = parse(&tsv("-\t-\t-\t-"), "t").expect("parses");
        assert_eq!(
            table.rows[1].size,
            Some(Size {
                input_bytes: 2048.0,
                presentation_bytes: 6144.0,
                ratio: 3.0
            })
        );
        let legacy = parse(&legacy_tsv(), "t").expect("a file without sizes still reads");
        assert_eq!(legacy.rows.len(), 1);
        assert_eq!(legacy.rows[0].size, None);
        assert!(section(&legacy).contains("- worst size ratio: not measured"));
        // A row must have as many fields as its header: sizes in a legacy file, or a new file's
        // row without them, are malformed.
        let sized_row_under_legacy_header = format!(
            "{}\nsmall\tfixed\t1\t1\t1\t1\t1\t1\t1\t-\t-\t-\t-\t1\t1\t1\n",
            COLUMNS[..LEGACY_COLUMNS].join("\t")
        );
        assert!(parse(&sized_row_under_legacy_header, "t").is_err());
        let short = tsv("-\t-\t-\t-").replace("\t2048\t1024\t0.5\n", "\n");
        assert!(parse(&short, "t").is_err());
        let err = parse("input\tset\tbytes\n", "t").expect_err("unknown header");
        assert!(err.contains("input_min_bytes"), "{err}");
    }

    #[test]
    fn the_section_shows_the_sizes_and_names_the_rows_over_two() {
        let table = parse(&tsv("-\t-\t-\t-"), "t").expect("parses");
        let text = section(&table);
        assert!(
            text.contains("| input (min. bytes) | presentation (min. bytes) | size ratio |"),
            "{text}"
        );
        assert!(text.contains("| 2048 | 6144 | **3.00×** |"), "{text}");
        assert!(text.contains("| 1024 | 512 | 0.50× |"), "{text}");
        assert!(
            text.contains(
                "- worst size ratio: **3.00×** (shape a); 1 of 2 over 2×: shape a (3.00×)"
            ),
            "{text}"
        );
        assert!(
            text.contains("- worst size ratio: 0.50× (small); none of 1 over 2×"),
            "{text}"
        );
        assert!(text.contains("Tokens: no offline tokenizer."), "{text}");
    }

    /// Start-up set aside: each binary's start-up median comes off its own side; a row the
    /// floor spends under three start-ups on, and the start-up row itself, get no net ratio.
    #[test]
    fn the_net_ratio_takes_each_start_up_off_its_own_side() {
        let text = format!(
            "{}\n\
             1 KB schema (start-up)\tfixed\t1024\t0.002\t0.001\t2.0\t1\t1\t1\t-\t-\t-\t-\t1\t1\t1\n\
             big\tsweep\t9\t0.017\t0.013\t1.6\t1\t1\t1\t-\t-\t-\t-\t1\t1\t1\n\
             tiny\tsweep\t9\t0.004\t0.0025\t1.6\t1\t1\t1\t-\t-\t-\t-\t1\t1\t1\n",
            COLUMNS.join("\t")
        );
        let table = parse(&text, "t").expect("parses");
        let startup = StartUp::of(&table.rows).expect("a start-up row");
        assert_eq!(startup.join_cpu_s, 0.002);
        assert_eq!(startup.floor_cpu_s, 0.001);
        let net = startup
            .net_ratio(&table.rows[1])
            .expect("well past start-up");
        assert!((net - 1.25).abs() < 1e-9, "{net}");
        assert_eq!(startup.net_ratio(&table.rows[0]), None);
        assert_eq!(startup.net_ratio(&table.rows[2]), None);
        let text = section(&table);
        assert!(text.contains("| **1.60×** | 1.25× |"), "{text}");
        assert!(text.contains("— (start-up)"), "{text}");
        assert!(
            text.contains("- worst CPU ratio net of start-up: **1.25×** (big); 0 of 1 over 1.5×"),
            "{text}"
        );
        // Without a start-up row there is no such column.
        let without = parse(&tsv("-\t-\t-\t-"), "t").expect("parses");
        assert!(!section(&without).contains("net of start-up"));
    }

    #[test]
    fn parses_with_and_without_the_earlier_binary() {
        let without = parse(&tsv("-\t-\t-\t-"), "t").expect("parses");
        assert_eq!(without.rows.len(), 3);
        assert_eq!(without.meta.runs, 3);
        assert_eq!(without.meta.load_max, 2.5);
        assert_eq!(without.rows[1].cpu_ratio, 2.0);
        assert_eq!(without.rows[1].peak_ratio, 0.5);
        assert!(without.rows.iter().all(|r| r.before.is_none()));
        let with = parse(&tsv("0.4\t4.0\t40\t2.0"), "t").expect("parses");
        assert_eq!(
            with.rows[2].before,
            Some(Before {
                cpu_s: 0.4,
                cpu_ratio: 4.0,
                peak_kib: 40.0,
                peak_ratio: 2.0
            })
        );
        assert!(parse(&tsv("0.4\t-\t40\t2.0"), "t").is_err());
        assert!(parse("input\tbytes\n", "t").is_err());
        assert!(parse(&format!("{}\nx\tsweep\t1\n", COLUMNS.join("\t")), "t").is_err());
    }

    #[test]
    fn the_section_states_the_worst_sweep_ratio_before_and_after() {
        let table = parse(&tsv("0.4\t4.0\t40\t0.9"), "t").expect("parses");
        let text = section(&table);
        assert!(text.starts_with(BEGIN) && text.ends_with(END), "{text}");
        assert!(text.contains("### Shape sweep"), "{text}");
        assert!(
            text.contains("- worst CPU ratio: **2.00×** (shape a); 1 of 2 over 1.5×"),
            "{text}"
        );
        assert!(
            text.contains("- worst peak ratio: **1.50×** (shape b); 1 of 2 over 1×"),
            "{text}"
        );
        assert!(
            text.contains("- before: worst CPU ratio: **4.00×** (shape b); 2 of 2 over 1.5×"),
            "{text}"
        );
        assert!(
            text.contains("| small | 1.0 | 400.0 | 3.0 | 2.0 | **4.00×** | 1.50× |"),
            "{text}"
        );
    }

    #[test]
    fn splicing_replaces_the_marked_or_the_legacy_section_only() {
        let legacy = format!("# R\n\n{HEADING}\n\nold table\n\n## Analysis\n\nnotes\n");
        let spliced = splice(&legacy, "NEW").expect("legacy section found");
        assert_eq!(spliced, "# R\n\nNEW\n\n## Analysis\n\nnotes\n");
        let marked = format!("# R\n\n{BEGIN}x -->\nold\n{END}\n\n## Analysis\n");
        let spliced = splice(&marked, "NEW").expect("marked section found");
        assert_eq!(spliced, "# R\n\nNEW\n\n## Analysis\n");
        assert_eq!(
            existing_section(&marked),
            Some(format!("{BEGIN}x -->\nold\n{END}").as_str())
        );
        assert_eq!(splice("# R\n", "NEW"), None);
    }
}
