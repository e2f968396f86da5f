//! `fuzz-plot`: draws the fuzzing report's plots from the timeline `fuzz/overnight.sh` records.
//!
//! Usage: `fuzz-plot TIMELINE.csv OUT_DIR COMMAND`. The CSV (`#` lines are comments) has the header
//! `target,seconds,execs,edges,features,corpus` and a row per libFuzzer status line; the plots
//! are `OUT_DIR/TARGET-coverage.svg` (edges over time) and `OUT_DIR/TARGET-corpus.svg` (corpus
//! files over time), one pair per target (the targets' scales differ tenfold, so each gets its
//! own axes), each naming `COMMAND` as the command that made it. It lives beside the join-cost report so that the
//! workspace has one plotting code (`flatjoin_benches::report::plot`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use flatjoin_benches::report::plot::{Timeline, timeline_chart};

/// One status line: seconds since the start, then execs, edges, features, corpus files.
type Row = (f64, [f64; 4]);

fn read(path: &Path) -> Result<BTreeMap<String, Vec<Row>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // `#` lines are comments (the generated file names the command that made it).
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header = lines.next().unwrap_or_default();
    if header.trim() != "target,seconds,execs,edges,features,corpus" {
        return Err(format!(
            "{}: the header must be `target,seconds,execs,edges,features,corpus`, found `{header}`",
            path.display()
        ));
    }
    let mut by_target: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let number = |i: usize| -> Result<f64, String> {
            fields
                .get(i)
                .and_then(|f| f.parse::<f64>().ok())
                .ok_or_else(|| {
                    format!(
                        "{}: field {} is not a number in `{line}`",
                        path.display(),
                        i + 1
                    )
                })
        };
        let row = (number(1)?, [number(2)?, number(3)?, number(4)?, number(5)?]);
        by_target.entry(fields[0].to_owned()).or_default().push(row);
    }
    Ok(by_target)
}

fn run(timeline: &Path, out: &Path, command: &str) -> Result<(), String> {
    let by_target = read(timeline)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (target, rows) in &by_target {
        for (what, title, y, column) in [
            ("coverage", "coverage", "edges", 1),
            ("corpus", "corpus", "corpus files", 3),
        ] {
            let line: Timeline = (
                target.clone(),
                rows.iter().map(|(s, v)| (s / 60.0, v[column])).collect(),
            );
            let svg = timeline_chart(
                command,
                &format!("{target}: {title} over time"),
                "minutes",
                y,
                &[line],
            )?;
            let path = out.join(format!("{target}-{what}.svg"));
            std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [timeline, out, command] = args.as_slice() else {
        eprintln!("usage: fuzz-plot TIMELINE.csv OUT_DIR COMMAND");
        return ExitCode::from(2);
    };
    match run(Path::new(timeline), Path::new(out), command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fuzz-plot: {e}");
            ExitCode::FAILURE
        }
    }
}
