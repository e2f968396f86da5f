//! `whole-process`: `flatjoin flatten` against the `floor` binary, as a user runs them — whole
//! processes, measured by the OS's own accounting (`getrusage`), CPU time (user + system) and peak
//! resident memory, on the same input files, alternated run by run; the reported figure is the
//! median of the per-run ratios (robust to a noisy machine: the processes of one run see the same
//! load).
//!
//! Two sets of inputs: the benchmark's own (`fixed`: the scaling shapes of `shape.rs`) and the
//! shape sweep (`sweep`: `sweep.rs`, shapes nothing was tuned to), whose worst ratio the report
//! states. With `--before BIN`, an earlier `flatjoin` binary runs in the same rotation, so one run
//! shows the ratio before and after a change under the same load.
//!
//! Usage: `whole-process [--runs K] [--quick] [--only TEXT] [--flatjoin PATH] [--floor PATH]
//! [--before PATH --before-label TEXT] [--out FILE.tsv]`, or `whole-process --write DIR [--quick]`
//! to write the input files only (for profiling by hand, `bindings/bench.sh`, or
//! `compare-outputs`). Both binaries default to the folder of this one (`target/release/`);
//! `benches/whole-process.sh` builds them and runs this. Each measurement spawns this binary again
//! as `whole-process --exec BIN ARGS…`, which runs exactly one child and reports `getrusage` of its
//! children: the peak memory of that one process, not the largest of many.
//!
//! Beside the costs, each row records the sizes: the input and the presentation (`flatjoin`'s
//! output of one untimed run before the measured ones), each parsed and re-serialized minified
//! with `serde_json::to_vec`, and their ratio.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use flatjoin_benches::report::whole_process::{COLUMNS, Meta, NOT_MEASURED};
use flatjoin_benches::run;
use flatjoin_benches::sweep::{Input, inputs};
use nix::sys::resource::{UsageWho, getrusage};

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
    only: Option<String>,
    flatjoin: PathBuf,
    floor: PathBuf,
    before: Option<PathBuf>,
    before_label: String,
    out: Option<PathBuf>,
}

fn parse_options(args: &[String], me: &Path) -> Result<Options, String> {
    let dir = me.parent().unwrap_or(Path::new("."));
    let mut options = Options {
        runs: 5,
        quick: false,
        only: None,
        flatjoin: dir.join("flatjoin"),
        floor: dir.join("floor"),
        before: None,
        before_label: String::new(),
        out: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => options.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--quick" => options.quick = true,
            "--only" => options.only = Some(value()?),
            "--flatjoin" => options.flatjoin = value()?.into(),
            "--floor" => options.floor = value()?.into(),
            "--before" => options.before = Some(value()?.into()),
            "--before-label" => options.before_label = value()?,
            "--out" => options.out = Some(value()?.into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if options.runs == 0 {
        return Err("--runs must be at least 1".to_owned());
    }
    Ok(options)
}

/// The binaries of one run, in rotation: `flatjoin` (after), `floor`, and `before` if given.
struct Contestants<'a> {
    me: &'a Path,
    options: &'a Options,
}

impl Contestants<'_> {
    /// Runs every contestant once on `file`, starting with the `run`-th (so none always meets a
    /// warm or a cold page cache, or always runs first after a load spike).
    fn run_once(
        &self,
        run: usize,
        command: &str,
        file: &str,
    ) -> Result<[Option<Usage>; 3], String> {
        let mut usage = [None; 3];
        let count = if self.options.before.is_some() { 3 } else { 2 };
        for k in 0..count {
            let which = (run + k) % count;
            let measured = match which {
                0 => measure(self.me, &self.options.flatjoin, &[command, file])?,
                1 => measure(self.me, &self.options.floor, &[file])?,
                _ => match &self.options.before {
                    Some(before) => measure(self.me, before, &[command, file])?,
                    None => continue,
                },
            };
            usage[which] = Some(measured);
        }
        Ok(usage)
    }
}

/// The medians of one input's runs, as one TSV row.
#[derive(Default)]
struct Samples {
    join: Vec<Usage>,
    floor: Vec<Usage>,
    before: Vec<Usage>,
    cpu_ratio: Vec<f64>,
    peak_ratio: Vec<f64>,
    before_cpu_ratio: Vec<f64>,
    before_peak_ratio: Vec<f64>,
}

impl Samples {
    fn push(&mut self, [join, floor, before]: [Option<Usage>; 3]) {
        let (Some(j), Some(f)) = (join, floor) else {
            return;
        };
        self.cpu_ratio.push(j.cpu_seconds / f.cpu_seconds.max(1e-6));
        self.peak_ratio.push(j.peak_kib / f.peak_kib.max(1.0));
        if let Some(b) = before {
            self.before_cpu_ratio
                .push(b.cpu_seconds / f.cpu_seconds.max(1e-6));
            self.before_peak_ratio
                .push(b.peak_kib / f.peak_kib.max(1.0));
            self.before.push(b);
        }
        self.join.push(j);
        self.floor.push(f);
    }

    fn row(self, input: &Input, bytes: usize, size: &Size) -> String {
        let med = |xs: &[Usage], f: fn(&Usage) -> f64| median(xs.iter().map(f).collect());
        let before = if self.before.is_empty() {
            [NOT_MEASURED; 4].map(str::to_owned).join("\t")
        } else {
            format!(
                "{:.4}\t{:.3}\t{:.0}\t{:.3}",
                med(&self.before, |u| u.cpu_seconds),
                median(self.before_cpu_ratio),
                med(&self.before, |u| u.peak_kib),
                median(self.before_peak_ratio),
            )
        };
        format!(
            "{}\t{}\t{}\t{:.4}\t{:.4}\t{:.3}\t{:.0}\t{:.0}\t{:.3}\t{before}\t{}\t{}\t{:.4}\n",
            input.label,
            input.set,
            bytes,
            med(&self.join, |u| u.cpu_seconds),
            med(&self.floor, |u| u.cpu_seconds),
            median(self.cpu_ratio),
            med(&self.join, |u| u.peak_kib),
            med(&self.floor, |u| u.peak_kib),
            median(self.peak_ratio),
            size.input_bytes,
            size.presentation_bytes,
            size.presentation_bytes as f64 / size.input_bytes.max(1) as f64,
        )
    }
}

/// One input's sizes in minified bytes (`serde_json::to_vec`): the input and its presentation.
struct Size {
    input_bytes: usize,
    presentation_bytes: usize,
}

/// Runs `flatjoin COMMAND FILE` once, untimed, and measures the presentation it prints: parsed,
/// then re-serialized minified, as the input was.
fn presentation_size(flatjoin: &Path, command: &str, file: &str) -> Result<usize, String> {
    let out = Command::new(flatjoin)
        .args([command, file])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", flatjoin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {command} {file} exited with {}",
            flatjoin.display(),
            out.status
        ));
    }
    let presentation: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "{} {command} {file}: output is not JSON: {e}",
            flatjoin.display()
        )
    })?;
    serde_json::to_vec(&presentation)
        .map(|text| text.len())
        .map_err(|e| e.to_string())
}

fn measure_input(contestants: &Contestants, input: &Input, path: &Path) -> Result<String, String> {
    let text = serde_json::to_vec(&input.value).map_err(|e| e.to_string())?;
    std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = path.to_string_lossy().into_owned();
    // The input as written is already `serde_json::to_vec` of the parsed document.
    let size = Size {
        input_bytes: text.len(),
        presentation_bytes: presentation_size(&contestants.options.flatjoin, input.command, &file)?,
    };
    let mut samples = Samples::default();
    for run in 0..contestants.options.runs {
        samples.push(contestants.run_once(run, input.command, &file)?);
    }
    let _ = std::fs::remove_file(path);
    Ok(samples.row(input, text.len(), &size))
}

fn run(options: &Options, me: &Path, command_line: String) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("flatjoin-whole-process-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut meta = Meta {
        command: command_line,
        commit: run::commit(),
        before: options
            .before
            .as_ref()
            .map(|_| options.before_label.clone()),
        runs: options.runs,
        started: run::utc_now(),
        load_start: run::load_average(),
        ..Meta::default()
    };
    // Every contestant runs from a copy in the run's folder, written alike: a large binary's
    // start-up depends on how its file was written (the 27 MB `flatjoin` started from where
    // cargo wrote it took about 0.8 ms more system time a start than a `cp` of it, 200 starts
    // each; the 0.75 MB floor showed no difference), so a `--before` binary copied elsewhere
    // started faster than the two it is compared with.
    let copied = Options {
        flatjoin: copy_into(&dir, &options.flatjoin, "flatjoin")?,
        floor: copy_into(&dir, &options.floor, "floor")?,
        before: match &options.before {
            Some(before) => Some(copy_into(&dir, before, "flatjoin-before")?),
            None => None,
        },
        only: options.only.clone(),
        before_label: options.before_label.clone(),
        out: options.out.clone(),
        ..*options
    };
    let contestants = Contestants {
        me,
        options: &copied,
    };
    let mut rows = String::new();
    let selected = inputs(options.quick).into_iter().filter(|i| {
        options
            .only
            .as_ref()
            .is_none_or(|only| i.label.contains(only.as_str()))
    });
    for (i, input) in selected.enumerate() {
        meta.sample_load(&run::load_average());
        let line = measure_input(&contestants, &input, &dir.join(format!("input-{i}.json")))?;
        eprint!("{line}");
        rows.push_str(&line);
    }
    for binary in [&copied.flatjoin, &copied.floor]
        .into_iter()
        .chain(copied.before.as_ref())
    {
        let _ = std::fs::remove_file(binary);
    }
    let _ = std::fs::remove_dir(&dir);
    meta.finished = run::utc_now();
    meta.load_end = run::load_average();
    Ok(format!(
        "{}{}\n{rows}",
        meta.to_comments(),
        COLUMNS.join("\t")
    ))
}

/// Copies the binary at `from` to `dir/name`, keeping its permissions; the copy's path.
fn copy_into(dir: &Path, from: &Path, name: &str) -> Result<PathBuf, String> {
    let to = dir.join(name);
    std::fs::copy(from, &to).map_err(|e| format!("copying {}: {e}", from.display()))?;
    Ok(to)
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
    let command_line = std::env::var("FLATJOIN_WHOLE_PROCESS_COMMAND")
        .unwrap_or_else(|_| format!("whole-process {}", args.join(" ")));
    match run(&options, &me, command_line) {
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
