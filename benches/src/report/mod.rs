//! The report generator: criterion's estimates and the run record in, `join-cost.md` and its SVG
//! plots out.
//!
//! [`analyse`] turns the raw medians into slices with fitted exponents and the three join-cost
//! targets; [`markdown`] and [`plot`] only render that analysis. Timing targets are reported,
//! never asserted: a missed target is a line in the report with the measured figure.

pub mod estimates;
pub mod fit;
pub mod markdown;
pub mod plot;
mod table;
pub mod whole_process;

use std::collections::BTreeMap;
use std::path::Path;

use crate::cases::{self, Axis, Op, Profile, Slice};
use crate::run::{CaseRecord, RunRecord};
use crate::shape::ShapeSpec;
use estimates::Results;
use fit::Fit;

/// The command that produces the report, named at the top of every generated file. It is spelled
/// without `--` (the crate's one bench and one binary need no `--bench`/`--bin`, and `-r` is
/// `--release`) because an XML comment may not contain a double hyphen.
pub const COMMAND: &str = "cargo bench -p flatjoin-benches && cargo run -r -p flatjoin-benches";

/// Target: the largest scaling exponent of the join in N and in P.
pub const MAX_EXPONENT: f64 = 1.1;
/// Target: the largest join / deep-clone ratio on a synthetic shape with N ≥ [`CLONE_TARGET_FROM_N`].
pub const MAX_CLONE_RATIO: f64 = 2.0;
/// The smallest N the clone-ratio target applies to.
pub const CLONE_TARGET_FROM_N: usize = 32;
/// Target: the largest join / validator-compile ratio.
pub const MAX_COMPILE_RATIO: f64 = 0.10;
/// Exponents in N are fitted from this N upwards (constant per-call costs dominate below), when
/// at least three points remain; otherwise over every point.
pub const FIT_FROM_N: f64 = 32.0;

/// One measured case: its medians and its run record.
#[derive(Debug, Clone)]
pub struct Row {
    /// The criterion group.
    pub group: String,
    /// The synthetic shape, `None` for a corpus file.
    pub spec: Option<ShapeSpec>,
    /// Median nanoseconds per operation that ran.
    pub times: BTreeMap<Op, f64>,
    /// Sizes and memory, when the run record has them.
    pub record: Option<CaseRecord>,
}

impl Row {
    /// `times[a] / times[b]` when both ran.
    pub fn ratio(&self, a: Op, b: Op) -> Option<f64> {
        Some(self.times.get(&a)? / self.times.get(&b)?)
    }
}

/// One slice with its rows and the exponents fitted along its axis.
#[derive(Debug, Clone)]
pub struct SliceAnalysis {
    /// The slice.
    pub slice: Slice,
    /// Its cases, in axis order.
    pub rows: Vec<Row>,
    /// Fitted exponent per operation (scaling axes only).
    pub fits: BTreeMap<Op, Fit>,
}

/// Whether a target was met, with the figure that decides it.
#[derive(Debug, Clone)]
pub struct TargetCheck {
    /// What the target says.
    pub target: String,
    /// The deciding measured figure and where it was measured.
    pub measured: String,
    /// `None` when nothing was measured to decide it.
    pub met: Option<bool>,
}

/// Everything the report shows.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The run record.
    pub run: RunRecord,
    /// The profile the run used.
    pub profile: Profile,
    /// The synthetic slices.
    pub slices: Vec<SliceAnalysis>,
    /// Every distinct synthetic case, in slice order.
    pub synthetic: Vec<Row>,
    /// Every corpus file measured.
    pub corpus: Vec<Row>,
    /// The join-cost targets (the report's Targets section).
    pub targets: Vec<TargetCheck>,
    /// Instruction counts by (criterion group, operation), from `benches/callgrind.sh`, if it ran.
    pub instructions: BTreeMap<(String, Op), f64>,
    /// `benches/whole-process.sh`'s table, if it ran.
    pub whole_process: Option<whole_process::Table>,
}

/// File name of the instruction counts `benches/callgrind.sh` writes into the criterion folder.
pub const INSTRUCTIONS_FILE: &str = "flatjoin-instructions.tsv";

/// Reads `dir/`[`INSTRUCTIONS_FILE`] (`group<TAB>op<TAB>count` lines); empty when absent.
pub fn load_instructions(dir: &Path) -> Result<BTreeMap<(String, Op), f64>, String> {
    let path = dir.join(INSTRUCTIONS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut counts = BTreeMap::new();
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let parsed = match fields.as_slice() {
            [group, op, count] => Op::from_name(op)
                .zip(count.parse::<f64>().ok())
                .map(|(op, c)| (group, op, c)),
            _ => None,
        };
        let Some((group, op, count)) = parsed else {
            return Err(format!(
                "{}:{}: expected `group<TAB>op<TAB>count`",
                path.display(),
                number + 1
            ));
        };
        counts.insert(((*group).to_owned(), op), count);
    }
    Ok(counts)
}

fn row(results: &Results, run: &RunRecord, group: String, spec: Option<ShapeSpec>) -> Row {
    let times = Op::ALL
        .into_iter()
        .filter_map(|op| Some((op, results.median(&group, op.name())?)))
        .collect();
    let record = run.cases.iter().find(|c| c.group == group).cloned();
    Row {
        group,
        spec,
        times,
        record,
    }
}

/// The exponent fits along `slice` for every operation measured at two or more points.
fn fit_slice(slice: &Slice, rows: &[Row]) -> BTreeMap<Op, Fit> {
    let mut fits = BTreeMap::new();
    if !slice.axis.is_scaling() {
        return fits;
    }
    for op in Op::ALL {
        let points: Vec<(f64, f64)> = slice
            .specs
            .iter()
            .zip(rows)
            .filter_map(|(spec, row)| Some((slice.axis.of(spec), *row.times.get(&op)?)))
            .collect();
        let upper: Vec<(f64, f64)> = points
            .iter()
            .copied()
            .filter(|p| p.0 >= FIT_FROM_N)
            .collect();
        let chosen = if slice.axis == Axis::Branches && upper.len() >= 3 {
            upper
        } else {
            points
        };
        if let Some(fit) = fit::power_law(&chosen) {
            fits.insert(op, fit);
        }
    }
    fits
}

/// Builds the analysis from criterion's results and the run record.
pub fn analyse(results: &Results, run: RunRecord) -> Result<Analysis, String> {
    let profile = Profile::from_name(&run.profile)
        .ok_or_else(|| format!("run record names an unknown profile {:?}", run.profile))?;
    let slices: Vec<SliceAnalysis> = cases::slices(profile)
        .into_iter()
        .map(|slice| {
            let rows: Vec<Row> = slice
                .specs
                .iter()
                .map(|spec| row(results, &run, cases::synthetic_group(spec), Some(*spec)))
                .collect();
            let fits = fit_slice(&slice, &rows);
            SliceAnalysis { slice, rows, fits }
        })
        .collect();
    let synthetic: Vec<Row> = cases::synthetic_cases(profile)
        .iter()
        .map(|spec| row(results, &run, cases::synthetic_group(spec), Some(*spec)))
        .collect();
    let corpus: Vec<Row> = results
        .groups()
        .into_iter()
        .filter(|g| g.starts_with("corpus/"))
        .map(|g| row(results, &run, g.to_owned(), None))
        .collect();
    let targets = check_targets(&slices, &synthetic, &corpus);
    Ok(Analysis {
        run,
        profile,
        slices,
        synthetic,
        corpus,
        targets,
        instructions: BTreeMap::new(),
        whole_process: None,
    })
}

fn verdict(met: bool) -> Option<bool> {
    Some(met)
}

fn check_targets(slices: &[SliceAnalysis], synthetic: &[Row], corpus: &[Row]) -> Vec<TargetCheck> {
    let mut targets = Vec::new();

    for slice in slices.iter().filter(|s| s.slice.axis.is_scaling()) {
        let axis = if slice.slice.axis == Axis::Branches {
            "N"
        } else {
            "P"
        };
        let target = format!(
            "exponent of join time in {axis} ≤ {MAX_EXPONENT} (`{}`)",
            slice.slice.name
        );
        match slice.fits.get(&Op::JoinOwned) {
            Some(fit) => {
                let borrowed = slice.fits.get(&Op::Join).map_or(String::new(), |f| {
                    format!("; borrowed `flatten`: {:.2}", f.exponent)
                });
                targets.push(TargetCheck {
                    target,
                    measured: format!(
                        "{:.2} ({axis} = {}…{}, {} points, r² = {:.3}){borrowed}",
                        fit.exponent, fit.from, fit.to, fit.points, fit.r_squared
                    ),
                    met: verdict(fit.exponent <= MAX_EXPONENT),
                });
            }
            None => targets.push(TargetCheck {
                target,
                measured: "not measured".to_owned(),
                met: None,
            }),
        }
    }

    let at_scale: Vec<(&Row, f64)> = synthetic
        .iter()
        .filter(|r| r.spec.is_some_and(|s| s.branches >= CLONE_TARGET_FROM_N))
        .filter_map(|r| Some((r, r.ratio(Op::JoinOwned, Op::Clone)?)))
        .collect();
    let target = format!(
        "join ≤ {MAX_CLONE_RATIO}× deep clone on every synthetic shape with N ≥ {CLONE_TARGET_FROM_N}"
    );
    targets.push(worst_of(target, &at_scale, MAX_CLONE_RATIO, |r| {
        format!("{r:.2}×")
    }));

    for (name, rows) in [("synthetic shape", synthetic), ("corpus file", corpus)] {
        let ratios: Vec<(&Row, f64)> = rows
            .iter()
            .filter_map(|r| Some((r, r.ratio(Op::JoinOwned, Op::Compile)?)))
            .collect();
        let target = format!(
            "join ≤ {:.0} % of validator compile on every {name}",
            MAX_COMPILE_RATIO * 100.0
        );
        targets.push(worst_of(target, &ratios, MAX_COMPILE_RATIO, |r| {
            format!("{:.1} %", r * 100.0)
        }));
    }
    targets
}

fn worst_of(
    target: String,
    ratios: &[(&Row, f64)],
    limit: f64,
    show: impl Fn(f64) -> String,
) -> TargetCheck {
    let Some((worst_row, worst)) = ratios.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return TargetCheck {
            target,
            measured: "not measured".to_owned(),
            met: None,
        };
    };
    let missed = ratios.iter().filter(|(_, r)| *r > limit).count();
    let measured = format!(
        "worst {} (`{}`); {missed} of {} cases over",
        show(worst),
        worst_row.group,
        ratios.len()
    );
    TargetCheck {
        target,
        measured,
        met: verdict(worst <= limit),
    }
}

/// Reads the results in `criterion_dir` and writes `join-cost.md` and `join-cost/*.svg` into
/// `out_dir`. Returns the analysis for the caller to summarize.
pub fn generate(criterion_dir: &Path, out_dir: &Path) -> Result<Analysis, String> {
    let run = RunRecord::read(criterion_dir)?;
    let results = Results::load(criterion_dir)?;
    if results.is_empty() {
        return Err(format!(
            "no criterion results under {}",
            criterion_dir.display()
        ));
    }
    let mut analysis = analyse(&results, run)?;
    analysis.instructions = load_instructions(criterion_dir)?;
    analysis.whole_process = whole_process::load(criterion_dir)?;
    let plots_dir = out_dir.join(markdown::PLOTS_DIR);
    std::fs::create_dir_all(&plots_dir).map_err(|e| format!("{}: {e}", plots_dir.display()))?;
    let plots = plot::write_all(&analysis, &plots_dir)?;
    let notes = read_notes()?;
    let path = out_dir.join(markdown::REPORT_FILE);
    let previous = std::fs::read_to_string(&path).ok();
    // Sections measured by other runs are kept as they are: the whole-process one when this run
    // has no table of its own, and the packages' in-process one always.
    let kept_whole_process = match &analysis.whole_process {
        Some(_) => None,
        None => previous
            .as_deref()
            .and_then(whole_process::existing_section),
    };
    let mut text = markdown::render(&analysis, &plots, notes.as_deref(), kept_whole_process);
    if let Some(kept) = previous.as_deref().and_then(in_process_section) {
        text.push('\n');
        text.push_str(kept);
        text.push('\n');
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(analysis)
}

fn read_notes() -> Result<Option<String>, String> {
    let notes_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(markdown::NOTES_FILE);
    match std::fs::read_to_string(&notes_path) {
        Ok(notes) => Ok(Some(notes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", notes_path.display())),
    }
}

/// Replaces the whole-process section of the existing `out_dir/join-cost.md` with one rendered
/// from `criterion_dir`'s whole-process table, and its analysis with the current notes, leaving
/// every criterion-measured section as it was (`benches/whole-process.sh` runs this after its own
/// measurement). Errors when there is no table or no report to splice into.
pub fn splice_whole_process(criterion_dir: &Path, out_dir: &Path) -> Result<(), String> {
    let table = whole_process::load(criterion_dir)?.ok_or_else(|| {
        format!(
            "no {} under {}",
            whole_process::FILE,
            criterion_dir.display()
        )
    })?;
    let path = out_dir.join(markdown::REPORT_FILE);
    let report = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = whole_process::splice(&report, &whole_process::section(&table))
        .ok_or_else(|| format!("{}: no whole-process section", path.display()))?;
    if let Some(notes) = read_notes()? {
        text = markdown::splice_notes(&text, &notes)
            .ok_or_else(|| format!("{}: no analysis section", path.display()))?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The section of an existing report that `bindings/bench.sh` writes (the Node.js and Python
/// packages' in-process cost), markers included: it is measured by another run, so this generator
/// keeps it as it is.
pub fn in_process_section(report: &str) -> Option<&str> {
    const BEGIN: &str = "<!-- in-process: ";
    const END: &str = "<!-- /in-process -->";
    let start = report.find(BEGIN)?;
    let end = start + report[start..].find(END)? + END.len();
    Some(&report[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_in_process_section_is_kept_markers_and_all() {
        let report = "# Join cost\n\nbody\n\n<!-- in-process: generated by x -->\n## In process\n\n| a |\n<!-- /in-process -->\n";
        assert_eq!(
            in_process_section(report),
            Some(
                "<!-- in-process: generated by x -->\n## In process\n\n| a |\n<!-- /in-process -->"
            )
        );
        assert_eq!(in_process_section("# Join cost\n"), None);
        assert_eq!(in_process_section("<!-- in-process: unterminated"), None);
    }
    use crate::run::MemoryRecord;

    /// Writes a criterion-shaped result for `group`/`function` with median `ns`.
    fn fake_estimate(dir: &Path, group: &str, function: &str, ns: f64) {
        let new = dir.join(group.replace('/', "_")).join(function).join("new");
        std::fs::create_dir_all(&new).expect("dir");
        let benchmark = serde_json::json!({"group_id": group, "function_id": function});
        std::fs::write(new.join("benchmark.json"), benchmark.to_string()).expect("write");
        let estimate = serde_json::json!({
            "confidence_interval": {"confidence_level": 0.95, "lower_bound": ns, "upper_bound": ns},
            "point_estimate": ns, "standard_error": 0.0
        });
        let estimates = serde_json::json!({"mean": estimate, "median": estimate,
            "median_abs_dev": estimate, "slope": null, "std_dev": estimate});
        std::fs::write(new.join("estimates.json"), estimates.to_string()).expect("write");
    }

    #[test]
    fn generates_the_report_and_judges_targets_from_results() {
        let root =
            std::env::temp_dir().join(format!("flatjoin-benches-report-{}", std::process::id()));
        let (criterion, out) = (root.join("criterion"), root.join("out"));
        let mut run = RunRecord {
            profile: "smoke".to_owned(),
            ..RunRecord::default()
        };
        for spec in cases::synthetic_cases(Profile::Smoke) {
            let group = cases::synthetic_group(&spec);
            let n = spec.branches as f64;
            // A join linear in N at 1.5× the clone, but quadratic on the all-distinct family.
            let join = if spec.family == crate::shape::Family::AllDistinct {
                150.0 * n * n
            } else {
                1500.0 * n
            };
            fake_estimate(&criterion, &group, "join_owned", join);
            fake_estimate(&criterion, &group, "clone", 1000.0 * n);
            fake_estimate(&criterion, &group, "compile", 100_000.0 * n);
            run.cases.push(CaseRecord {
                group,
                clone: MemoryRecord {
                    peak_bytes: 1000,
                    allocations: 10,
                },
                join_owned: MemoryRecord {
                    peak_bytes: 500,
                    allocations: 5,
                },
                ..CaseRecord::default()
            });
        }
        fake_estimate(&criterion, "corpus/a.json", "join_owned", 10.0);
        fake_estimate(&criterion, "corpus/a.json", "compile", 50.0);
        run.write(&criterion).expect("run record");
        let counts: String = cases::synthetic_cases(Profile::Smoke)
            .iter()
            .filter(|s| s.family == crate::shape::Family::Mixed)
            .flat_map(|s| {
                let group = cases::synthetic_group(s);
                let n = s.branches;
                [
                    ("clone", 1000 * n),
                    ("join", 4000 * n),
                    ("join_owned", 3000 * n),
                ]
                .map(|(op, c)| format!("{group}\t{op}\t{c}\n"))
            })
            .collect();
        std::fs::write(criterion.join(INSTRUCTIONS_FILE), counts).expect("counts");

        let analysis = generate(&criterion, &out).expect("generates");
        let report = std::fs::read_to_string(out.join(markdown::REPORT_FILE)).expect("report");
        let plots: Vec<String> = std::fs::read_dir(out.join(markdown::PLOTS_DIR))
            .expect("plots")
            .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
            .collect();
        std::fs::remove_dir_all(&root).expect("cleanup");

        assert!(
            report.starts_with("<!-- Generated by `cargo bench"),
            "{report}"
        );
        assert!(
            plots.contains(&"time-vs-n-mixed.svg".to_owned()),
            "{plots:?}"
        );
        assert!(plots.contains(&"memory-vs-n.svg".to_owned()), "{plots:?}");
        let verdict = |needle: &str| {
            analysis
                .targets
                .iter()
                .find(|t| t.target.contains(needle))
                .and_then(|t| t.met)
        };
        assert_eq!(verdict("`n-mixed`"), Some(true));
        assert_eq!(
            verdict("`n-all-distinct`"),
            Some(false),
            "a quadratic join must miss"
        );
        assert_eq!(
            verdict("deep clone"),
            Some(false),
            "the all-distinct ratio grows past 2"
        );
        assert_eq!(verdict("compile on every synthetic shape"), Some(true));
        assert_eq!(
            verdict("compile on every corpus file"),
            Some(false),
            "20 % of compile is over 10 %"
        );
        assert!(report.contains("**missed**"));
        assert!(
            report.contains("## Instruction counts (callgrind)"),
            "{report}"
        );
        assert!(
            report.contains("| 32 | 32000 | 128000 | 96000 | 3.00× | 4.00× |"),
            "{report}"
        );
    }

    #[test]
    fn instruction_counts_are_optional_but_must_parse() {
        let dir = std::env::temp_dir().join(format!("flatjoin-benches-cg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        assert!(load_instructions(&dir).expect("absent is empty").is_empty());
        std::fs::write(dir.join(INSTRUCTIONS_FILE), "synthetic/x\tclone\t12\n").expect("write");
        let counts = load_instructions(&dir).expect("parses");
        std::fs::write(dir.join(INSTRUCTIONS_FILE), "synthetic/x\tclone\n").expect("write");
        let malformed = load_instructions(&dir);
        std::fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(
            counts.get(&("synthetic/x".to_owned(), Op::Clone)),
            Some(&12.0)
        );
        assert!(malformed.is_err());
    }
}
