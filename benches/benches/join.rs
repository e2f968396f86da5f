//! The criterion benchmark of the flat presentation join.
//!
//! Every case (each synthetic shape of `cases::synthetic_cases`, each file under `corpus/`) is one
//! criterion group `synthetic/<id>` or `corpus/<path>` with the operations of `cases::Op`: the join
//! (owned and borrowed) and its baselines, timed in the same run so the report can state ratios.
//! Before timing, a memory pass runs each case once under the counting allocator and writes the
//! run record (`flatjoin-run.json`) beside criterion's output.
//!
//! Time is the CPU time of the benchmark thread ([`cpu_time::ThreadCpuTime`]), not wall-clock:
//! the machine is shared with other work, and time spent descheduled would otherwise land in
//! whichever operation happened to run then, corrupting exactly the ratios the report is about.
//!
//! `cargo bench -p flatjoin-benches` measures the full profile (about 15–20 minutes on 2 busy
//! cores); with `FLATJOIN_BENCH_PROFILE=smoke` it measures small shapes with minimal times, for CI.

use std::hint::black_box;
use std::time::Duration;

use cpu_time::ThreadCpuTime;
use criterion::{BatchSize, Criterion, SamplingMode};
use flatjoin::Options;
use flatjoin_benches::alloc::{CountingAlloc, measure};
use flatjoin_benches::cases::{self, Op, Profile};
use flatjoin_benches::corpus::{self, CorpusCase};
use flatjoin_benches::naive::naive_join;
use flatjoin_benches::run::{CaseRecord, RunRecord, criterion_home};
use flatjoin_benches::shape::{DISCRIMINATOR, ShapeSpec, node_count};
use serde_json::Value;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A criterion measurement of the calling thread's CPU time.
mod cpu_time {
    // The one call into libc that reads the thread's CPU clock needs `unsafe`.
    #![allow(unsafe_code)] // reason: `libc::clock_gettime` is an FFI call

    use std::time::Duration;

    use criterion::measurement::{Measurement, ValueFormatter, WallTime};

    /// CPU time of the benchmarking thread (`CLOCK_THREAD_CPUTIME_ID`): user and system time the
    /// thread ran, not the time it waited for a core. Formatted like wall time.
    pub struct ThreadCpuTime;

    static FORMAT_LIKE: WallTime = WallTime;

    fn now() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable `timespec` that outlives the call, and
        // `CLOCK_THREAD_CPUTIME_ID` is a clock every Linux kernel provides.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc != 0 {
            return Duration::ZERO;
        }
        Duration::new(
            u64::try_from(ts.tv_sec).unwrap_or(0),
            u32::try_from(ts.tv_nsec).unwrap_or(0),
        )
    }

    impl Measurement for ThreadCpuTime {
        type Intermediate = Duration;
        type Value = Duration;

        fn start(&self) -> Duration {
            now()
        }
        fn end(&self, start: Duration) -> Duration {
            now().saturating_sub(start)
        }
        fn add(&self, a: &Duration, b: &Duration) -> Duration {
            *a + *b
        }
        fn zero(&self) -> Duration {
            Duration::ZERO
        }
        fn to_f64(&self, value: &Duration) -> f64 {
            value.as_nanos() as f64
        }
        fn formatter(&self) -> &dyn ValueFormatter {
            FORMAT_LIKE.formatter()
        }
    }
}

/// Criterion settings for one kind of case.
struct Timing {
    warm_up: Duration,
    measurement: Duration,
    samples: usize,
}

fn timing(profile: Profile, corpus: bool) -> Timing {
    match (profile, corpus) {
        // Measurement times are CPU time, so a busy machine stretches them in wall-clock time.
        (Profile::Full, false) => Timing {
            warm_up: Duration::from_millis(300),
            measurement: Duration::from_millis(1200),
            samples: 15,
        },
        (Profile::Full, true) => Timing {
            warm_up: Duration::from_millis(100),
            measurement: Duration::from_millis(400),
            samples: 15,
        },
        (Profile::Smoke, _) => Timing {
            warm_up: Duration::from_millis(5),
            measurement: Duration::from_millis(20),
            samples: 10,
        },
    }
}

/// One case to time: its inputs (one schema, or a manifest's tool schemas) and presentations.
struct Case {
    group: String,
    inputs: Vec<Value>,
    presentations: Vec<Value>,
    /// The root union to hand the naive join, when it is timed on this case.
    naive: Option<Value>,
    corpus: bool,
    /// Whether `jsonschema` compiles every presentation (else `compile` is not timed).
    compiles: bool,
}

fn flatten_all(
    inputs: &[Value],
    options: &Options,
) -> Result<Vec<flatjoin::Flattened>, flatjoin::Error> {
    inputs
        .iter()
        .map(|schema| flatjoin::flatten(schema, options))
        .collect()
}

/// Builds the case and its run record (sizes and memory, measured once, untimed), and says why
/// `jsonschema` does not compile a presentation when it does not.
fn prepare(
    group: String,
    inputs: Vec<Value>,
    naive: bool,
    corpus: bool,
) -> Result<(Case, CaseRecord, Option<String>), String> {
    let options = Options::default();
    let flattened =
        flatten_all(&inputs, &options).map_err(|error| format!("flatten failed: {error}"))?;
    let presentations: Vec<Value> = flattened.iter().map(|f| f.schema.clone()).collect();
    let (_, clone) = measure(|| black_box(inputs.clone()));
    let (_, join) = measure(|| black_box(flatten_all(&inputs, &options)));
    let copy = inputs.clone();
    let (_, join_owned) = measure(move || {
        black_box(
            copy.into_iter()
                .map(|s| flatjoin::flatten_owned(s, &options))
                .collect::<Vec<_>>(),
        )
    });
    let bytes = |values: &[Value]| -> u64 {
        values
            .iter()
            .map(|v| serde_json::to_vec(v).map_or(0, |b| b.len() as u64))
            .sum()
    };
    let record = CaseRecord {
        group: group.clone(),
        input_bytes: bytes(&inputs),
        input_nodes: inputs.iter().map(node_count).sum::<usize>() as u64,
        schemas: inputs.len() as u64,
        output_bytes: bytes(&presentations),
        output_nodes: presentations.iter().map(node_count).sum::<usize>() as u64,
        flattened_sites: flattened
            .iter()
            .map(|f| f.diagnostics.flattened.len() as u64)
            .sum(),
        clone: clone.into(),
        join: join.into(),
        join_owned: join_owned.into(),
    };
    let naive = if naive { inputs.first().cloned() } else { None };
    let compile_error = presentations
        .iter()
        .find_map(|p| jsonschema::validator_for(p).err())
        .map(|e| e.to_string());
    Ok((
        Case {
            group,
            inputs,
            presentations,
            naive,
            corpus,
            compiles: compile_error.is_none(),
        },
        record,
        compile_error,
    ))
}

fn bench_case(criterion: &mut Criterion<ThreadCpuTime>, case: &Case, profile: Profile) {
    let options = Options::default();
    let timing = timing(profile, case.corpus);
    let mut group = criterion.benchmark_group(&case.group);
    group
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(timing.warm_up)
        .measurement_time(timing.measurement)
        .sample_size(timing.samples);
    let inputs = &case.inputs;

    // Small corpus inputs take microseconds: batch them so the clock is read once per batch.
    let batch = if case.corpus {
        BatchSize::SmallInput
    } else {
        BatchSize::LargeInput
    };
    group.bench_function(Op::JoinOwned.name(), |b| {
        b.iter_batched(
            || inputs.clone(),
            |owned| {
                owned
                    .into_iter()
                    .map(|s| flatjoin::flatten_owned(s, &options))
                    .collect::<Vec<_>>()
            },
            batch,
        );
    });
    group.bench_function(Op::Join.name(), |b| {
        b.iter_with_large_drop(|| flatten_all(black_box(inputs), &options));
    });
    group.bench_function(Op::Clone.name(), |b| {
        b.iter_with_large_drop(|| black_box(inputs).clone());
    });
    // Synthetic shapes only: the corpus table has no drop column.
    if !case.corpus {
        group.bench_function(Op::Drop.name(), |b| {
            b.iter_batched(|| inputs.clone(), |owned| drop(black_box(owned)), batch);
        });
    }
    let presentations = &case.presentations;
    group.bench_function(Op::Serialize.name(), |b| {
        b.iter_with_large_drop(|| {
            black_box(presentations)
                .iter()
                .map(serde_json::to_vec)
                .collect::<Result<Vec<_>, _>>()
        });
    });
    if case.compiles {
        group.bench_function(Op::Compile.name(), |b| {
            b.iter_with_large_drop(|| {
                black_box(presentations)
                    .iter()
                    .map(jsonschema::validator_for)
                    .collect::<Vec<_>>()
            });
        });
    }
    if let Some(original) = &case.naive {
        group.bench_function(Op::Naive.name(), |b| {
            b.iter_with_large_drop(|| naive_join(black_box(original), DISCRIMINATOR));
        });
    }
    group.finish();
}

fn main() {
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`, `--list`) criterion only
    // checks that each benchmark runs once, on the small smoke shapes unless a profile is named,
    // and the run record of a real run must not be overwritten.
    let benching = std::env::args().any(|a| a == "--bench");
    let profile = match std::env::var("FLATJOIN_BENCH_PROFILE") {
        Ok(name) => match Profile::from_name(&name) {
            Some(profile) => profile,
            None => {
                eprintln!(
                    "flatjoin-benches: FLATJOIN_BENCH_PROFILE must be `full` or `smoke`, not {name:?}"
                );
                std::process::exit(2);
            }
        },
        Err(_) if benching => Profile::Full,
        Err(_) => Profile::Smoke,
    };
    let mut criterion = Criterion::default()
        .with_measurement(ThreadCpuTime)
        .configure_from_args();

    let corpus = match corpus::load_corpus(&corpus::corpus_dir()) {
        Ok(corpus) => corpus,
        Err(error) => {
            eprintln!("flatjoin-benches: reading the corpus: {error}");
            std::process::exit(2);
        }
    };
    let mut record = RunRecord::capture(profile.name());
    record.skipped = corpus
        .skipped
        .iter()
        .map(|s| format!("{}: {}", s.id, s.reason))
        .collect();
    let synthetic = cases::synthetic_cases(profile)
        .into_iter()
        .map(|spec: ShapeSpec| {
            (
                cases::synthetic_group(&spec),
                vec![spec.build()],
                cases::times_naive(&spec),
                false,
            )
        });
    let real = corpus
        .cases
        .into_iter()
        .map(|c: CorpusCase| (cases::corpus_group(&c.id), c.schemas, false, true));
    let mut prepared = Vec::new();
    for (group, inputs, naive, is_corpus) in synthetic.chain(real) {
        match prepare(group.clone(), inputs, naive, is_corpus) {
            Ok((case, case_record, compile_error)) => {
                if let Some(error) = compile_error {
                    eprintln!("flatjoin-benches: {group}: `compile` not timed: {error}");
                    record.skipped.push(format!(
                        "{group}: `compile` not timed, jsonschema rejects the presentation ({error})"
                    ));
                }
                record.cases.push(case_record);
                prepared.push(case);
            }
            Err(reason) => {
                eprintln!("flatjoin-benches: {group}: {reason}; case skipped");
                record.skipped.push(format!("{group}: {reason}"));
            }
        }
    }
    let home = criterion_home();
    if benching && let Err(error) = record.write(&home) {
        eprintln!("flatjoin-benches: {error}");
        std::process::exit(2);
    }
    for case in &prepared {
        bench_case(&mut criterion, case, profile);
    }
    if benching {
        record.finish();
        if let Err(error) = record.write(&home) {
            eprintln!("flatjoin-benches: {error}");
            std::process::exit(2);
        }
    }
    criterion.final_summary();
}
