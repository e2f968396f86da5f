//! A counting global allocator: peak live bytes and allocation count of one closure.
//!
//! The bench binary installs [`CountingAlloc`] as its `#[global_allocator]`. Counting is off
//! except inside [`measure`], so the timed runs pay one relaxed atomic load per allocation and
//! nothing more; memory is measured in a separate untimed pass.

// The allocator is the one place this crate needs `unsafe`: `GlobalAlloc` is an unsafe trait.
// Each method forwards to `System` unchanged and only updates counters.
#![allow(unsafe_code)] // reason: implementing `GlobalAlloc` requires `unsafe impl`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};

static ENABLED: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// The system allocator with counters; install with `#[global_allocator]`.
#[derive(Debug, Default)]
pub struct CountingAlloc;

fn grew(bytes: usize) {
    if ENABLED.load(Ordering::Relaxed) {
        let live = LIVE.fetch_add(bytes as isize, Ordering::Relaxed) + bytes as isize;
        PEAK.fetch_max(live, Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

fn shrank(bytes: usize) {
    if ENABLED.load(Ordering::Relaxed) {
        LIVE.fetch_sub(bytes as isize, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments, so the `GlobalAlloc`
// contract holds exactly as it does for `System`; the counters never touch the memory.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: forwarded unchanged; `ptr` came from this allocator, i.e. from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        shrank(layout.size());
        grew(new_size);
        // SAFETY: forwarded unchanged; the caller upholds `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What one closure allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Peak of the bytes allocated and not yet freed since the closure started (memory freed
    /// that was allocated before it counts against it, so moving out of an input is credited).
    pub peak_bytes: u64,
    /// Number of allocations (a `realloc` counts as one).
    pub allocations: u64,
}

/// Runs `f` with counting on. Only meaningful when [`CountingAlloc`] is the global allocator
/// (otherwise the usage is zero), and only while no other thread allocates.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    ENABLED.store(true, Ordering::SeqCst);
    let result = f();
    ENABLED.store(false, Ordering::SeqCst);
    let usage = Usage {
        peak_bytes: PEAK.load(Ordering::SeqCst).max(0) as u64,
        allocations: ALLOCATIONS.load(Ordering::SeqCst) as u64,
    };
    (result, usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static ALLOC: CountingAlloc = CountingAlloc;

    #[test]
    fn measures_the_peak_not_the_total() {
        let ((), usage) = measure(|| {
            for _ in 0..4 {
                let block = vec![1u8; 1 << 20];
                std::hint::black_box(&block);
            }
        });
        assert!(usage.peak_bytes >= 1 << 20, "{usage:?}");
        assert!(
            usage.peak_bytes < 3 << 20,
            "peak counted the four blocks as live at once: {usage:?}"
        );
        assert!(usage.allocations >= 4, "{usage:?}");
    }
}
