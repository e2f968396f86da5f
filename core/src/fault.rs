//! Named faults that reproduce real flattening bugs (feature `fault-injection`, off by default).
//!
//! They exist so the harness can prove its oracles detect each one; a build without the feature
//! does not contain them.

use std::fmt;
use std::str::FromStr;

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

impl Fault {
    /// Every fault.
    pub const ALL: [Fault; 9] = [
        Fault::FirstWins,
        Fault::RequiredUnion,
        Fault::DropNull,
        Fault::AlwaysClosed,
        Fault::LegacyWiden,
        Fault::TightestBound,
        Fault::AnnotationNames,
        Fault::NoDedup,
        Fault::EnumFirstBranch,
    ];

    /// The fault's kebab-case name, as `flatjoin check --inject-fault` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Fault::FirstWins => "first-wins",
            Fault::RequiredUnion => "required-union",
            Fault::DropNull => "drop-null",
            Fault::AlwaysClosed => "always-closed",
            Fault::LegacyWiden => "legacy-widen",
            Fault::TightestBound => "tightest-bound",
            Fault::AnnotationNames => "annotation-names",
            Fault::NoDedup => "no-dedup",
            Fault::EnumFirstBranch => "enum-first-branch",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                format!("unknown fault \"{s}\" (one of: {})", names.join(", "))
            })
    }
}
