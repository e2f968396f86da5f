//! The fast paths a unit test turns off, to hold each to the walk it stands in for: the test
//! compares the answers with the path taken and not. Outside tests every path is taken.

/// A fast path that stands in for a walk.
#[derive(Clone, Copy)]
pub(crate) enum FastPath {
    /// The repair skips its redirecting walk where no reference of the original crosses a
    /// flattened union (`project::repair`).
    RepairSkip = 1,
    /// The owned projection takes whole a node with no union site at or under it
    /// (`project::owned`).
    SiteIndex = 2,
    /// A later site of a shared group that stands where it is written is written as its
    /// reference at once, not as a placeholder the hoisting pass rewrites (`project::share`).
    DirectShare = 4,
    /// The hoisting pass does not walk a shared join with no placeholder and no marked object
    /// inside it for its rewrite (`project::hoist`).
    HoistSkip = 8,
    /// A union's branch that is only memoized projections is folded once per projection and
    /// its facts shared by every union that reaches it (`project::assemble`).
    FoldOnce = 16,
}

#[cfg(test)]
thread_local! {
    static OFF: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Whether `path` is taken: always, outside tests.
#[cfg(not(test))]
pub(crate) fn taken(_path: FastPath) -> bool {
    true
}

/// Whether `path` is taken: unless a test turned it off ([`without`]).
#[cfg(test)]
pub(crate) fn taken(path: FastPath) -> bool {
    OFF.get() & path as u8 == 0
}

/// Runs `f` with `path` not taken.
#[cfg(test)]
pub(crate) fn without<T>(path: FastPath, f: impl FnOnce() -> T) -> T {
    OFF.set(OFF.get() | path as u8);
    let out = f();
    OFF.set(OFF.get() & !(path as u8));
    out
}
