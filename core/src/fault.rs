//! Named faults that reproduce real flattening bugs (feature `fault-injection`, off by default).
//!
//! They exist so the harness can prove its oracles detect each one; a build without the feature
//! does not contain them.

use crate::options::named_values;

/// A deliberately injected bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// A colliding property keeps the first branch's definition.
    FirstWins,
    /// `required` is the union of the branches' required names instead of the intersection.
    RequiredUnion,
    /// Scalar widening forgets `null`.
    DropNull,
    /// `additionalProperties: false` even when a branch is open.
    AlwaysClosed,
    /// Object/array collisions become `type: ["object","array"]` with no `items`/`properties`
    /// (the superseded ADR 0033/0065 rule).
    LegacyWiden,
    /// Scalar widening keeps the strictest bound instead of the loosest.
    TightestBound,
    /// Dedup treats properties *named* like annotation keywords as annotations.
    AnnotationNames,
    /// No dedup of structurally identical alternatives.
    NoDedup,
    /// The discriminator's enum lists only the first branch's literals.
    EnumFirstBranch,
}

named_values!(Fault, "fault", name, {
    FirstWins => "first-wins",
    RequiredUnion => "required-union",
    DropNull => "drop-null",
    AlwaysClosed => "always-closed",
    LegacyWiden => "legacy-widen",
    TightestBound => "tightest-bound",
    AnnotationNames => "annotation-names",
    NoDedup => "no-dedup",
    EnumFirstBranch => "enum-first-branch",
});
