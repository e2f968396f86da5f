//! Evaluating drawn inputs on a thread pool and folding the results in draw order, so that
//! what a run finds does not depend on its number of jobs (the model and open-world phases here,
//! and the implementation driver's generated phases).

use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// Generated cases in flight per job ([`evaluate_in_order`]): enough that a slow case at the
/// head of the order does not idle the other workers, few enough that little work is wasted
/// past a violation.
pub(crate) const WINDOW_PER_JOB: usize = 16;

/// A pool of `jobs` worker threads (at least 1); one thread, with a log line, when the system
/// refuses more.
pub(super) fn pool(jobs: usize, log: &mut dyn FnMut(&str)) -> rayon::ThreadPool {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            log(&format!(
                "cannot start {jobs} worker threads ({e}); using 1"
            ));
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .expect("a one-thread pool")
        }
    }
}

/// Evaluates drawn inputs on `pool` and folds the results in draw order. `draw` runs on the
/// calling thread, up to `window` inputs are in flight, and `fold` sees each input and its
/// result in the order drawn, so what it computes does not depend on the number of workers.
/// There is no barrier between batches: a slow input holds back the fold, never the workers.
/// Drawing stops when `draw` returns `None` or `fold` breaks; inputs still in flight then finish
/// and are dropped.
pub(crate) fn evaluate_in_order<T, R>(
    pool: &rayon::ThreadPool,
    window: usize,
    mut draw: impl FnMut() -> Option<T>,
    eval: impl Fn(&T) -> R + Sync,
    mut fold: impl FnMut(T, R) -> ControlFlow<()>,
) where
    T: Send,
    R: Send,
{
    let (sender, receiver) = std::sync::mpsc::channel::<(u64, T, R)>();
    let eval = &eval;
    pool.in_place_scope(|scope| {
        let mut ready: BTreeMap<u64, (T, R)> = BTreeMap::new();
        let (mut drawn, mut folded) = (0u64, 0u64);
        let mut drawing = true;
        loop {
            while drawing && drawn - folded < window.max(1) as u64 {
                let Some(input) = draw() else {
                    drawing = false;
                    break;
                };
                let sender = sender.clone();
                let n = drawn;
                scope.spawn(move |_| {
                    let result = eval(&input);
                    // The receiver outlives the scope; a send cannot fail.
                    let _ = sender.send((n, input, result));
                });
                drawn += 1;
            }
            if folded == drawn {
                return;
            }
            let Ok((n, input, result)) = receiver.recv() else {
                return;
            };
            ready.insert(n, (input, result));
            while let Some((input, result)) = ready.remove(&folded) {
                folded += 1;
                if fold(input, result).is_break() {
                    return;
                }
            }
        }
    });
}
