//! Which synthetic shapes are measured, grouped into the slices the report plots, and which
//! operations each case times.
//!
//! The full cross product of N × P × collision × depth × family would take hours here; each slice
//! instead varies one parameter around a base shape (N = 128, P = 16, collision 50 %, D = 2), and
//! the three families each get their own N slice. A case shared by several slices is measured once.

use crate::shape::{Family, ShapeSpec};

/// How much to measure: the published report, or a smoke run for CI that keeps the code alive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Every slice at the full sizes (N up to 2048); about 15–20 minutes on 2 cores.
    Full,
    /// The same slices capped at N = 32 with minimal measurement times; a few seconds.
    Smoke,
}

impl Profile {
    /// `full` or `smoke`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Full => "full",
            Profile::Smoke => "smoke",
        }
    }

    /// Parses [`Profile::name`].
    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "full" => Some(Profile::Full),
            "smoke" => Some(Profile::Smoke),
            _ => None,
        }
    }

    /// The union-site counts of the nested-sites slice (1,000 to 64,000).
    fn site_counts(self) -> &'static [usize] {
        match self {
            Profile::Full => &[1_000, 4_000, 16_000, 64_000],
            Profile::Smoke => &[250, 1_000],
        }
    }

    /// The branch counts of the N slices.
    fn branch_counts(self) -> &'static [usize] {
        match self {
            Profile::Full => &[2, 8, 32, 128, 512, 2048],
            Profile::Smoke => &[2, 8, 32],
        }
    }

    /// The N of the base shape the other slices vary around.
    fn base_branches(self) -> usize {
        match self {
            Profile::Full => 128,
            Profile::Smoke => 32,
        }
    }
}

/// The parameter a slice varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Branches (N).
    Branches,
    /// Properties per branch (P).
    Props,
    /// Collision rate, in percent.
    Collision,
    /// Nesting depth (D).
    Depth,
    /// Union sites nested in the root union ([`Family::NestedSites`]).
    Sites,
}

impl Axis {
    /// The value of this axis for `spec`.
    pub fn of(self, spec: &ShapeSpec) -> f64 {
        match self {
            Axis::Branches => spec.branches as f64,
            Axis::Props => spec.props as f64,
            Axis::Collision => f64::from(spec.collision_pct),
            Axis::Depth => spec.depth as f64,
            Axis::Sites => spec.union_sites() as f64,
        }
    }

    /// The axis label used in tables and plots.
    pub fn label(self) -> &'static str {
        match self {
            Axis::Branches => "N (branches)",
            Axis::Props => "P (properties per branch)",
            Axis::Collision => "collision rate (%)",
            Axis::Depth => "D (nesting depth)",
            Axis::Sites => "S (nested union sites)",
        }
    }

    /// Whether a power law in this axis is meaningful (a log-log fit needs positive values).
    pub fn is_scaling(self) -> bool {
        matches!(self, Axis::Branches | Axis::Props | Axis::Sites)
    }
}

/// One series of cases that differ in one parameter.
#[derive(Debug, Clone)]
pub struct Slice {
    /// Short name: `n-mixed`, `p-mixed`, `collision`, `depth`, `n-dedup-heavy`, `n-all-distinct`.
    pub name: String,
    /// The parameter that varies.
    pub axis: Axis,
    /// The cases, in increasing order of the axis.
    pub specs: Vec<ShapeSpec>,
}

/// The slices of `profile`.
pub fn slices(profile: Profile) -> Vec<Slice> {
    let base = profile.base_branches();
    let n_slice = |family: Family| Slice {
        name: format!("n-{}", family.name()),
        axis: Axis::Branches,
        specs: profile
            .branch_counts()
            .iter()
            .map(|&n| match family {
                Family::Mixed => ShapeSpec::mixed(n, 16, 50, 2),
                Family::DedupHeavy => ShapeSpec::dedup_heavy(n, 16, 2),
                Family::AllDistinct => ShapeSpec::all_distinct(n, 16, 2),
                Family::NestedSites => ShapeSpec::nested_sites(n, 1),
            })
            .collect(),
    };
    vec![
        n_slice(Family::Mixed),
        Slice {
            name: "p-mixed".to_owned(),
            axis: Axis::Props,
            specs: [4, 16, 64]
                .iter()
                .map(|&p| ShapeSpec::mixed(base, p, 50, 2))
                .collect(),
        },
        Slice {
            name: "collision".to_owned(),
            axis: Axis::Collision,
            specs: [0, 50, 100]
                .iter()
                .map(|&c| ShapeSpec::mixed(base, 16, c, 2))
                .collect(),
        },
        Slice {
            name: "depth".to_owned(),
            axis: Axis::Depth,
            specs: [1, 2, 4, 8]
                .iter()
                .map(|&d| ShapeSpec::mixed(base, 16, 50, d))
                .collect(),
        },
        n_slice(Family::DedupHeavy),
        n_slice(Family::AllDistinct),
        Slice {
            name: "s-nested-sites".to_owned(),
            axis: Axis::Sites,
            specs: profile
                .site_counts()
                .iter()
                .map(|&s| ShapeSpec::nested_sites(s, 1))
                .collect(),
        },
    ]
}

/// Every distinct case of `profile`, in the order the slices first name them.
pub fn synthetic_cases(profile: Profile) -> Vec<ShapeSpec> {
    let mut cases: Vec<ShapeSpec> = Vec::new();
    for spec in slices(profile).into_iter().flat_map(|s| s.specs) {
        if !cases.contains(&spec) {
            cases.push(spec);
        }
    }
    cases
}

/// Whether the naive join is timed on `spec`: only while its pairwise dedup stays cheap enough
/// to measure (it is quadratic by design; at N = 2048 it would take minutes per iteration).
pub fn times_naive(spec: &ShapeSpec) -> bool {
    if spec.family == Family::NestedSites {
        // The naive join knows one root union only: nothing comparable to time.
        return false;
    }
    let alternatives = spec.branches;
    let shared = spec.shared_props().max(1);
    let comparisons = shared * alternatives * alternatives / 2;
    comparisons <= 70_000 && spec.depth <= 4
}

/// One timed operation of a case; its name is the criterion function id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// `flatjoin::flatten_owned` on a fresh copy of the input (the copy is not timed): the fast path.
    JoinOwned,
    /// `flatjoin::flatten` on a borrowed input (it must build its output from scratch).
    Join,
    /// `Value::clone` of the input: the floor any join that builds its output must pay.
    Clone,
    /// Dropping a fresh deep copy of the input (the copy is not timed): what an owned join pays
    /// to free the parts of its input it does not keep, which a clone never pays.
    Drop,
    /// `serde_json::to_vec` of the presentation.
    Serialize,
    /// `jsonschema::validator_for` on the presentation: what a consumer pays anyway.
    Compile,
    /// [`crate::naive::naive_join`]: pairwise dedup.
    Naive,
}

impl Op {
    /// Every operation, in table order.
    pub const ALL: [Op; 7] = [
        Op::JoinOwned,
        Op::Join,
        Op::Clone,
        Op::Drop,
        Op::Serialize,
        Op::Compile,
        Op::Naive,
    ];

    /// The criterion function id.
    pub fn name(self) -> &'static str {
        match self {
            Op::JoinOwned => "join_owned",
            Op::Join => "join",
            Op::Clone => "clone",
            Op::Drop => "drop",
            Op::Serialize => "serialize",
            Op::Compile => "compile",
            Op::Naive => "naive",
        }
    }

    /// The name tables and plots show: the `flatjoin` function for the join, else [`Op::name`].
    pub fn label(self) -> &'static str {
        match self {
            Op::JoinOwned => "flatten_owned",
            Op::Join => "flatten",
            Op::Naive => "naive join",
            other => other.name(),
        }
    }

    /// Parses [`Op::name`].
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// The criterion group of a synthetic case.
pub fn synthetic_group(spec: &ShapeSpec) -> String {
    format!("synthetic/{}", spec.id())
}

/// The criterion group of a corpus file.
pub fn corpus_group(id: &str) -> String {
    format!("corpus/{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_parameter_values_of_issue_5() {
        let slices = slices(Profile::Full);
        let values = |name: &str| -> Vec<f64> {
            let slice = slices.iter().find(|s| s.name == name).expect("slice");
            slice.specs.iter().map(|s| slice.axis.of(s)).collect()
        };
        assert_eq!(values("n-mixed"), [2.0, 8.0, 32.0, 128.0, 512.0, 2048.0]);
        assert_eq!(values("p-mixed"), [4.0, 16.0, 64.0]);
        assert_eq!(values("collision"), [0.0, 50.0, 100.0]);
        assert_eq!(values("depth"), [1.0, 2.0, 4.0, 8.0]);
        let cases = synthetic_cases(Profile::Full);
        let ids: std::collections::HashSet<String> = cases.iter().map(ShapeSpec::id).collect();
        assert_eq!(ids.len(), cases.len(), "each case measured once");
        assert!(
            synthetic_cases(Profile::Smoke)
                .iter()
                .all(|s| s.branches <= 32)
        );
    }

    #[test]
    fn naive_is_skipped_where_it_would_take_minutes() {
        assert!(times_naive(&ShapeSpec::mixed(32, 16, 50, 2)));
        assert!(!times_naive(&ShapeSpec::all_distinct(2048, 16, 2)));
    }
}
