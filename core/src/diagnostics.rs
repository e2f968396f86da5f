//! What happened at each union site: flattened (with its discriminator) or skipped (with the
//! identification rule that failed).

use std::fmt;

use serde_json::{Value, json};

use crate::draft::{Declared, Draft};
use crate::fasthash::FastSet;

/// Diagnostics of one projection, in document discovery order (inner sites first).
#[derive(Clone, Default)]
pub struct Diagnostics {
    /// Discriminated unions that became one flat object.
    pub flattened: Vec<FlattenedSite>,
    /// Every union site left as it is (a `oneOf`/`anyOf` node with two or more members that was
    /// not joined), each with its reason from the closed list of SPEC §2.9 (§6 decision 70).
    pub skipped: Vec<SkippedSite>,
    /// The root `$schema`, when it names no draft the join knows (a custom meta-schema): the
    /// document was read as 2020-12 (SPEC §6 decision 34).
    pub assumed_draft: Option<String>,
    /// Pointers already recorded (flattened, skipped), so recording a site costs O(1) instead of
    /// a scan of every earlier site (a document of n nested sites was quadratic).
    recorded: (FastSet<String>, FastSet<String>),
}

/// Equal when the recorded sites are (the bookkeeping set is not compared).
impl PartialEq for Diagnostics {
    fn eq(&self, other: &Self) -> bool {
        self.flattened == other.flattened
            && self.skipped == other.skipped
            && self.assumed_draft == other.assumed_draft
    }
}

impl Eq for Diagnostics {}

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Diagnostics")
            .field("flattened", &self.flattened)
            .field("skipped", &self.skipped)
            .field("assumed_draft", &self.assumed_draft)
            .finish()
    }
}

/// A flattened union site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlattenedSite {
    /// JSON pointer of the union node in the input.
    pub pointer: String,
    /// The discriminator property; `None` for a root union of objects joined without one
    /// (SPEC §2.9).
    pub discriminator: Option<String>,
    /// How many branches were joined.
    pub branches: usize,
    /// The `$ref` to the root definition that holds this site's join, when the same union is
    /// joined once for several sites (SPEC §6 decision 73).
    pub shared: Option<String>,
}

/// A union site left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedSite {
    /// JSON pointer of the union node in the input.
    pub pointer: String,
    /// Which identification rule (SPEC §1) failed.
    pub reason: SkipReason,
}

/// Why a union site is left as it is: the closed list of SPEC §2.9 (§6 decision 70). Each has a
/// stable [`code`](SkipReason::code).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Rule 1: a branch is not an object schema with `type: "object"` (after resolving local
    /// `$ref`, folding `allOf` and projecting a nested union), or admits another type as well.
    BranchNotObject {
        /// Index of the first such branch.
        branch: usize,
    },
    /// Rule 1: a branch's `$ref` cannot be followed (remote, or a cycle of references).
    BranchUnresolvable {
        /// Index of the branch.
        branch: usize,
    },
    /// Rule 1 on projected branches: a branch is a union that is itself left as it is, so it
    /// does not become one object.
    BranchUnionKept {
        /// Index of the first such branch.
        branch: usize,
    },
    /// Rule 2, for a nested union of objects: no property is defined with a literal set
    /// (`const` or scalar `enum`) in every branch. Nested, such a union stays for precision.
    NoDiscriminator,
    /// Rule 4: two branches share a literal of the candidate discriminator.
    OverlappingLiterals {
        /// The candidate.
        property: String,
        /// The shared literal, as JSON.
        value: String,
    },
    /// A discriminated union where accepting more would make the document stricter: under
    /// `not` or `if`, under a member of a `oneOf` that stays, under `contains` beside
    /// `maxContains`, or in a definition such a place references (SPEC §6 decision 37).
    Frozen,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::BranchNotObject { branch } => write!(
                f,
                "rule 1: branch {branch} is not an object schema with type \"object\" only"
            ),
            SkipReason::BranchUnresolvable { branch } => write!(
                f,
                "rule 1: branch {branch} cannot be resolved (remote $ref or a cycle of references)"
            ),
            SkipReason::BranchUnionKept { branch } => write!(
                f,
                "rule 1: branch {branch} is a union left as it is, not one object"
            ),
            SkipReason::NoDiscriminator => write!(
                f,
                "rule 2: no property has a literal set (const or scalar enum) in every branch"
            ),
            SkipReason::OverlappingLiterals { property, value } => write!(
                f,
                "rule 4: candidate discriminator \"{property}\" has literal {value} in more than one branch"
            ),
            SkipReason::Frozen => write!(
                f,
                "a union left as it is: under not, if, a oneOf that stays or contains with maxContains (or reached by a $ref from there), a looser union would make the document stricter"
            ),
        }
    }
}

impl SkipReason {
    /// The reason's stable code, one per variant (SPEC §6 decision 70): `branch-not-object`,
    /// `branch-unresolvable`, `branch-union-kept`, `no-discriminator`, `overlapping-literals`,
    /// `frozen`.
    pub fn code(&self) -> &'static str {
        match self {
            SkipReason::BranchNotObject { .. } => "branch-not-object",
            SkipReason::BranchUnresolvable { .. } => "branch-unresolvable",
            SkipReason::BranchUnionKept { .. } => "branch-union-kept",
            SkipReason::NoDiscriminator => "no-discriminator",
            SkipReason::OverlappingLiterals { .. } => "overlapping-literals",
            SkipReason::Frozen => "frozen",
        }
    }
}

impl Diagnostics {
    /// The diagnostics in the CLI's `--diagnostics` format:
    /// `{"flattened": [{"pointer", "discriminator", "branches"}], "skipped": [{"pointer", "code", "reason"}]}`
    /// (`discriminator` is `null` for a root union joined without one).
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "flattened": self.flattened.iter().map(|s| {
                let mut site = json!({
                    "pointer": s.pointer,
                    "discriminator": s.discriminator,
                    "branches": s.branches,
                });
                if let (Some(shared), Value::Object(map)) = (&s.shared, &mut site) {
                    map.insert("shared".into(), Value::String(shared.clone()));
                }
                site
            }).collect::<Vec<_>>(),
            "skipped": self.skipped.iter().map(|s| json!({
                "pointer": s.pointer,
                "code": s.reason.code(),
                "reason": s.reason.to_string(),
            })).collect::<Vec<_>>(),
        });
        if let (Some(declared), Value::Object(map)) = (&self.assumed_draft, &mut out) {
            map.insert(
                "assumed_draft".into(),
                json!({"declared": declared, "read_as": Draft::Draft202012.name()}),
            );
        }
        out
    }

    /// Records how the root `$schema` was read: an unknown URI is named, read as 2020-12.
    pub(crate) fn note_declared(&mut self, declared: Declared) {
        if let Declared::Unknown(uri) = declared {
            self.assumed_draft = Some(uri);
        }
    }

    /// Records a flattened site once (a site reached twice, e.g. through a `$ref`, is kept at
    /// its first record).
    pub(crate) fn record_flattened(&mut self, site: FlattenedSite) {
        if !self.recorded.0.contains(&site.pointer) {
            self.recorded.0.insert(site.pointer.clone());
            self.flattened.push(site);
        }
    }

    /// Makes room for `additional` more flattened sites at once (their bookkeeping set, keyed by
    /// pointer, would otherwise grow and hash every pointer again several times).
    pub(crate) fn reserve_flattened(&mut self, additional: usize) {
        self.flattened.reserve(additional);
        self.recorded.0.reserve(additional);
    }

    /// Records a skipped site once.
    pub(crate) fn record_skipped(&mut self, site: SkippedSite) {
        if !self.recorded.1.contains(&site.pointer) {
            self.recorded.1.insert(site.pointer.clone());
            self.skipped.push(site);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_site_is_recorded_once() {
        let mut d = Diagnostics::default();
        for _ in 0..2 {
            for i in 0..3 {
                d.record_flattened(FlattenedSite {
                    pointer: format!("/p/{i}"),
                    discriminator: Some("kind".into()),
                    branches: 2,
                    shared: None,
                });
                d.record_skipped(SkippedSite {
                    pointer: format!("/p/{i}"),
                    reason: SkipReason::NoDiscriminator,
                });
            }
        }
        assert_eq!(d.flattened.len(), 3);
        assert_eq!(d.skipped.len(), 3);
        assert_eq!(d.flattened[2].pointer, "/p/2");
    }
}
