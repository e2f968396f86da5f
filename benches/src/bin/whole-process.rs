//! `whole-process`: `flatjoin flatten` against the `floor` binary, as a user runs them — whole
//! processes, measured by the OS's own accounting (`getrusage`), CPU time (user + system) and peak
//! resident memory, on the same input files, alternated pair by pair; the reported figure is the
//! median of the pairwise ratios (robust to a noisy machine: both halves of a pair see the same load).
//!
//! Usage: `whole-process [--runs K] [--quick] [--flatjoin PATH] [--floor PATH] [--out FILE.tsv]`,
//! or `whole-process --write DIR [--quick]` to write the input files only (for profiling by hand).
//! Both binaries default to the folder of this one (`target/release/`); `benches/whole-process.sh`
//! builds them and runs this. Each measurement spawns this binary again as
//! `whole-process --exec BIN ARGS…`, which runs exactly one child and reports `getrusage` of its
//! children: the peak memory of that one process, not the largest of many.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use flatjoin_benches::shape::{ShapeSpec, wide_manifest};
use nix::sys::resource::{UsageWho, getrusage};
use serde_json::Value;

/// One input file of the comparison.
struct Input {
    /// Row label in the report.
    label: String,
    /// `flatten` or `manifest`: the `flatjoin` subcommand that presents it.
    command: &'static str,
    /// The document.
    value: Value,
}

fn inputs(quick: bool) -> Vec<Input> {
    let schema = |label: String, value: Value| Input {
        label,
        command: "flatten",
        value,
    };
    let mut out = vec![
        schema(
            "1 KB schema (start-up)".to_owned(),
            ShapeSpec::mixed(2, 3, 50, 1).build(),
        ),
        schema(
            "32 branches × 16 properties".to_owned(),
            ShapeSpec::mixed(32, 16, 50, 2).build(),
        ),
    ];
    let sizes: &[(usize, usize)] = if quick {
        &[(128, 16)]
    } else {
        &[(512, 64), (2048, 64)]
    };
    for &(n, p) in sizes {
        out.push(schema(
            format!("{n} branches × {p} properties"),
            ShapeSpec::mixed(n, p, 50, 2).build(),
        ));
    }
    let sites: &[usize] = if quick {
        &[250]
    } else {
        &[1_000, 4_000, 16_000, 64_000]
    };
    for &n in sites {
        let spec = ShapeSpec::nested_sites(n, 2);
        out.push(schema(
            format!("{} nested union sites", spec.union_sites()),
            spec.build(),
        ));
    }
    let tools = if quick { 50 } else { 500 };
    out.push(Input {
        label: format!("manifest of {tools} tools"),
        command: "manifest",
        value: wide_manifest(tools),
    });
    out
}

/// What `getrusage` says of one finished child.
#[derive(Clone, Copy)]
struct Usage {
    cpu_seconds: f64,
    peak_kib: f64,
}

/// `--exec BIN ARGS…`: runs one child with stdout to /dev/null, prints its usage as `cpu peak`.
fn exec_child(args: &[String]) -> ExitCode {
    let Some((bin, rest)) = args.split_first() else {
        return ExitCode::from(2);
    };
    let status = Command::new(bin).args(rest).stdout(Stdio::null()).status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            eprintln!("whole-process: {bin} {rest:?} exited with {s}");
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("whole-process: cannot run {bin}: {e}");
            return ExitCode::from(1);
        }
    }
    let Ok(usage) = getrusage(UsageWho::RUSAGE_CHILDREN) else {
        return ExitCode::from(1);
    };
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    // Linux reports ru_maxrss in KiB.
    println!(
        "{} {}",
        seconds(usage.user_time()) + seconds(usage.system_time()),
        usage.max_rss()
    );
    ExitCode::SUCCESS
}

fn measure(me: &Path, bin: &Path, args: &[&str]) -> Result<Usage, String> {
    let out = Command::new(me)
        .arg("--exec")
        .arg(bin)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", me.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {args:?} failed: {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace().map(str::parse::<f64>);
    match (parts.next(), parts.next()) {
        (Some(Ok(cpu_seconds)), Some(Ok(peak_kib))) => Ok(Usage {
            cpu_seconds,
            peak_kib,
        }),
        _ => Err(format!("unreadable usage line {text:?}")),
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

struct Options {
    runs: usize,
    quick: bool,
    flatjoin: PathBuf,
    floor: PathBuf,
    out: Option<PathBuf>,
}

fn parse_options(args: &[String], me: &Path) -> Result<Options, String> {
    let dir = me.parent().unwrap_or(Path::new("."));
    let mut options = Options {
        runs: 5,
        quick: false,
        flatjoin: dir.join("flatjoin"),
        floor: dir.join("floor"),
        out: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => options.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--quick" => options.quick = true,
            "--flatjoin" => options.flatjoin = value()?.into(),
            "--floor" => options.floor = value()?.into(),
            "--out" => options.out = Some(value()?.into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

fn run(options: &Options, me: &Path) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("flatjoin-whole-process-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut tsv = String::from(
        "# whole-process CPU time and peak memory, `flatjoin` vs `floor`; \
         written by `benches/whole-process.sh` (cargo run -r -p flatjoin-benches --bin whole-process)\n\
         input\tbytes\tjoin_cpu_s\tfloor_cpu_s\tcpu_ratio\tjoin_peak_kib\tfloor_peak_kib\tpeak_ratio\n",
    );
    for (i, input) in inputs(options.quick).iter().enumerate() {
        let path = dir.join(format!("input-{i}.json"));
        let text = serde_json::to_vec(&input.value).map_err(|e| e.to_string())?;
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = path.to_string_lossy().into_owned();
        let (mut join, mut floor, mut cpu_ratio, mut peak_ratio) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for run in 0..options.runs {
            // Alternate which goes first, so neither always meets a warm or a cold page cache.
            let (j, f) = if run % 2 == 0 {
                let j = measure(me, &options.flatjoin, &[input.command, &file])?;
                (j, measure(me, &options.floor, &[&file])?)
            } else {
                let f = measure(me, &options.floor, &[&file])?;
                (measure(me, &options.flatjoin, &[input.command, &file])?, f)
            };
            cpu_ratio.push(j.cpu_seconds / f.cpu_seconds.max(1e-6));
            peak_ratio.push(j.peak_kib / f.peak_kib.max(1.0));
            join.push(j);
            floor.push(f);
        }
        let med = |xs: &[Usage], f: fn(&Usage) -> f64| median(xs.iter().map(f).collect());
        let line = format!(
            "{}\t{}\t{:.4}\t{:.4}\t{:.3}\t{:.0}\t{:.0}\t{:.3}\n",
            input.label,
            text.len(),
            med(&join, |u| u.cpu_seconds),
            med(&floor, |u| u.cpu_seconds),
            median(cpu_ratio),
            med(&join, |u| u.peak_kib),
            med(&floor, |u| u.peak_kib),
            median(peak_ratio),
        );
        eprint!("{line}");
        tsv.push_str(&line);
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
    Ok(tsv)
}

fn write_inputs(dir: &Path, quick: bool) -> ExitCode {
    for (i, input) in inputs(quick).iter().enumerate() {
        let path = dir.join(format!("input-{i}-{}.json", input.command));
        let written = serde_json::to_vec(&input.value)
            .map_err(|e| e.to_string())
            .and_then(|text| std::fs::write(&path, text).map_err(|e| e.to_string()));
        match written {
            Ok(()) => println!("{}\t{}", path.display(), input.label),
            Err(e) => {
                eprintln!("whole-process: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--exec") {
        return exec_child(&args[1..]);
    }
    if let [flag, dir, rest @ ..] = args.as_slice()
        && flag == "--write"
    {
        // `--write DIR [--quick]`: only write the input files (for profiling one of them by hand).
        return write_inputs(Path::new(dir), rest.iter().any(|a| a == "--quick"));
    }
    let me = match std::env::current_exe() {
        Ok(me) => me,
        Err(e) => {
            eprintln!("whole-process: {e}");
            return ExitCode::from(2);
        }
    };
    let options = match parse_options(&args, &me) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("whole-process: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&options, &me) {
        Ok(tsv) => {
            if let Some(out) = &options.out {
                if let Err(e) = std::fs::write(out, &tsv) {
                    eprintln!("whole-process: {}: {e}", out.display());
                    return ExitCode::from(2);
                }
            } else {
                print!("{tsv}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("whole-process: {e}");
            ExitCode::from(1)
        }
    }
}
