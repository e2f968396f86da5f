//! `flatjoin check` past one machine (SPEC §6 decision 58): which inputs a shard runs, and what a
//! run records of each input it folds, for its results file and the merge of shards
//! ([`crate::check::results`]).
//!
//! [`Shard`] `K/N` is 1-based, as `cargo nextest run --partition count:K/N` counts: the shard keeps
//! the items whose position `p` (0-based, in each phase's own order) has `p % N == K - 1` — corpus
//! files in [`crate::corpus::files`] order, the suite's drafts in [`crate::suite::DRAFTS`] order,
//! and the case indices of each generator. N shards of one seed run exactly the cases of the
//! unsharded run. [`Items`] holds one record per input: the oracles' verdicts in order, the
//! measures the report sums, the violations, and the shrunk counterexample where the run shrank
//! one.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use flatjoin::Options;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::corpus;
use crate::oracle::{self, Measure, Oracle, Outcome, Skip, Violation};
use crate::suite::SuiteReport;

/// The unexplained validator disagreements an item's record keeps as examples: at least the
/// report's `check::MAX_DISAGREEMENT_EXAMPLES` (a test in `check::results` holds them so), so
/// the run's first examples are among the records.
pub const MAX_EXAMPLES_PER_ITEM: usize = 20;

/// One shard of a run: the `index`-th (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    index: u32,
    count: u32,
}

/// What is wrong with a shard, a results file, its records or a merge of results: the one error
/// type of the results layer (`shard`, `check::results`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultsError {
    /// `K/N` with N = 0.
    #[error("shard {index}/{count}: N must be at least 1")]
    NoShards {
        /// K.
        index: u32,
        /// N.
        count: u32,
    },
    /// `K/N` with K outside `1..=N`.
    #[error("shard {index}/{count}: K counts from 1 and is at most N (1..={count})")]
    ShardOutOfRange {
        /// K.
        index: u32,
        /// N.
        count: u32,
    },
    /// Not `K/N`.
    #[error("shard {0:?}: expected K/N with 1 <= K <= N (like 2/3)")]
    NotAShard(String),
    /// A results file that cannot be read (the path, and why).
    #[error("{path}: {why}")]
    Unreadable {
        /// The file.
        path: String,
        /// The I/O error.
        why: String,
    },
    /// A file that is not a results file (the path, and the JSON error).
    #[error("{path}: not a results file: {why}")]
    NotResults {
        /// The file.
        path: String,
        /// The parse error.
        why: String,
    },
    /// A results file of another format.
    #[error("format {found:?}, expected {expected:?}")]
    Format {
        /// Its `format`.
        found: String,
        /// [`crate::check::results::RESULTS_FORMAT`].
        expected: &'static str,
    },
    /// A record that cannot be read back (its verdicts, options, oracle or fault).
    #[error("{0}")]
    Record(String),
    /// A failing case whose record holds no shrunk counterexample for a violation the run
    /// shrinks.
    #[error(
        "{case} failed {oracle} (a violation the run shrinks) but its results hold no shrunk counterexample"
    )]
    NoShrunk {
        /// `model case 12`.
        case: String,
        /// The oracle.
        oracle: Oracle,
    },
    /// Results that cannot be merged (of different runs, shards missing or repeated, …).
    #[error("{0}")]
    Merge(String),
}

impl Shard {
    /// The whole run (`1/1`).
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// The `index`-th of `count` shards (`1 <= index <= count`).
    pub fn new(index: u32, count: u32) -> Result<Shard, ResultsError> {
        if count == 0 {
            return Err(ResultsError::NoShards { index, count });
        }
        if index == 0 || index > count {
            return Err(ResultsError::ShardOutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// K: which shard, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// N: how many shards.
    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether this is the whole run (`1/1`).
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// Whether the item at `position` (0-based, in its phase's order) belongs to this shard.
    pub fn contains(self, position: u64) -> bool {
        position % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// This shard's indices among `0..n`, in order.
    pub fn indices(self, n: u32) -> impl Iterator<Item = u32> {
        (self.index - 1..n).step_by(self.count as usize)
    }

    /// How many of `0..n` belong to this shard.
    pub fn share(self, n: u32) -> u32 {
        n.saturating_sub(self.index - 1).div_ceil(self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ResultsError;

    fn from_str(text: &str) -> Result<Shard, ResultsError> {
        let bad = || ResultsError::NotAShard(text.to_owned());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(k, n)
    }
}

impl TryFrom<String> for Shard {
    type Error = ResultsError;

    fn try_from(text: String) -> Result<Shard, ResultsError> {
        text.parse()
    }
}

impl From<Shard> for String {
    fn from(shard: Shard) -> String {
        shard.to_string()
    }
}

/// The oracles' one-letter codes in [`Outcomes::verdicts`]: `a` is the first of this list.
/// A results file carries its own table (`oracle_codes`), so a reader never depends on this order.
pub(crate) fn oracle_codes() -> Vec<Oracle> {
    Oracle::ALL.to_vec()
}

/// A violation as the results file keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViolationRecord {
    /// The oracle's name.
    pub oracle: String,
    /// What went wrong.
    pub message: String,
    /// The original schema.
    pub schema: Value,
    /// The options (`{"open_branches": …, "scope": …}`, the corpus format's).
    pub options: Value,
    /// The value that exhibits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// The variant compared with: `[kind, schema]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<(String, Value)>,
}

impl ViolationRecord {
    /// The record of `v`.
    pub fn of(v: &Violation) -> ViolationRecord {
        let mut options = v.options.to_json();
        if let Some(o) = options.as_object_mut() {
            o.remove("fault");
        }
        ViolationRecord {
            oracle: v.oracle.name().to_owned(),
            message: v.message.clone(),
            schema: v.schema.clone(),
            options,
            data: v.data.clone(),
            variant: v.variant.clone(),
        }
    }

    /// The violation again, with `base`'s fault.
    pub(crate) fn restore(&self, base: &Options) -> Result<Violation, ResultsError> {
        let mut options = corpus::options_from(Some(&self.options))
            .map_err(|e| ResultsError::Record(format!("options {e}")))?;
        copy_fault(&mut options, base);
        Ok(Violation {
            oracle: self.oracle.parse().map_err(ResultsError::Record)?,
            message: self.message.clone(),
            schema: self.schema.clone(),
            options,
            data: self.data.clone(),
            variant: self.variant.clone(),
        })
    }
}

#[cfg(feature = "fault-injection")]
fn copy_fault(options: &mut Options, base: &Options) {
    options.fault = base.fault;
}

#[cfg(not(feature = "fault-injection"))]
fn copy_fault(_options: &mut Options, _base: &Options) {}

/// The oracles' outcomes on one item, as much of them as the report and a merge read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcomes {
    /// Two characters per outcome, in the order the oracles answered: the oracle's code (a letter,
    /// `oracle_codes` of the results file) and `p` (passed), `f` (failed) or a skip's code ([`Skip::CODES`]: `s` not applicable, `e`
    /// errored, `d` declined, `c` crashed, `x` protocol error).
    pub verdicts: String,
    /// The violations of the failed outcomes, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<ViolationRecord>,
    /// Why `flatten-accepts` was skipped (the judge cannot compile the input), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unjudgeable: Vec<String>,
    /// The skips of known failures (a corpus file marked `xfail` whose oracle still fails), each
    /// `oracle: reason; it fails: failure` (cut at 160 characters), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_failures: Vec<String>,
    /// Static soundness: `covers` answered yes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub static_yes: usize,
    /// Static soundness: `covers` answered unknown.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub static_unknown: usize,
    /// Validator disagreements where the spec leaves the answer open (reference cycles without
    /// progress, draft-04's integral floats).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub undefined_disagreements: usize,
    /// Unexplained validator disagreements.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unexplained_disagreements: usize,
    /// The first of them (at most [`MAX_EXAMPLES_PER_ITEM`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<Value>,
}

/// serde's `skip_serializing_if` passes a reference.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Outcomes {
    /// The record of `outcomes`.
    pub fn of(outcomes: &[(Oracle, Outcome)]) -> Outcomes {
        let mut record = Outcomes::default();
        record.extend(outcomes);
        record
    }

    /// Adds the record of `outcomes` (a corpus file's further inputs) after this one's.
    pub fn extend(&mut self, outcomes: &[(Oracle, Outcome)]) {
        let codes = oracle_codes();
        let record = self;
        for (oracle, outcome) in outcomes {
            let code = codes.iter().position(|o| o == oracle).unwrap_or(0);
            record.verdicts.push(char::from(b'a' + code as u8));
            match outcome {
                Outcome::Passed(m) => {
                    record.verdicts.push('p');
                    if *oracle == Oracle::StaticSoundness {
                        record.static_yes += m.static_yes;
                        record.static_unknown += m.static_unknown;
                    }
                    if *oracle == Oracle::Soundness {
                        record.undefined_disagreements += m.undefined_disagreements;
                        record.unexplained_disagreements += m.disagreements.len();
                        let room = MAX_EXAMPLES_PER_ITEM.saturating_sub(record.disagreements.len());
                        record
                            .disagreements
                            .extend(m.disagreements.iter().take(room).cloned());
                    }
                }
                Outcome::Skipped(why) => {
                    record.verdicts.push(why.code());
                    if *oracle == Oracle::FlattenAccepts {
                        record.unjudgeable.push(why.reason().to_owned());
                    }
                    if let Some(known) = why.reason().strip_prefix(crate::corpus::KNOWN_FAILURE) {
                        record.known_failures.push(format!(
                            "{}: {}",
                            oracle.name(),
                            crate::corpus::first_line(known)
                        ));
                    }
                }
                Outcome::Failed(v) => {
                    record.verdicts.push('f');
                    record.violations.push(ViolationRecord::of(v));
                }
            }
        }
    }

    /// The outcomes again, as far as [`CheckResult`]'s tally reads them: the measures on the
    /// first passed outcome of their oracle, the skip reasons of oracles other than
    /// `flatten-accepts` empty. `codes` is the results file's code table.
    pub(crate) fn restore(
        &self,
        codes: &[Oracle],
        base: &Options,
    ) -> Result<Vec<(Oracle, Outcome)>, ResultsError> {
        let bad = |why: &str| ResultsError::Record(format!("verdicts {:?}: {why}", self.verdicts));
        let bytes = self.verdicts.as_bytes();
        if !bytes.len().is_multiple_of(2) {
            return Err(bad("odd length"));
        }
        let mut violations = self.violations.iter();
        let mut unjudgeable = self.unjudgeable.iter();
        let mut soundness_measured = false;
        let mut static_measured = false;
        let mut out = Vec::with_capacity(bytes.len() / 2);
        for pair in bytes.chunks(2) {
            let oracle = pair[0]
                .checked_sub(b'a')
                .and_then(|i| codes.get(usize::from(i)))
                .copied()
                .ok_or_else(|| bad("unknown oracle code"))?;
            let outcome = match pair[1] {
                b'p' => {
                    let mut m = Measure::default();
                    if oracle == Oracle::Soundness && !soundness_measured {
                        soundness_measured = true;
                        m.undefined_disagreements = self.undefined_disagreements;
                        m.disagreements.clone_from(&self.disagreements);
                        // The count beyond the kept examples: placeholders (never shown).
                        m.disagreements.resize(
                            self.unexplained_disagreements.max(self.disagreements.len()),
                            Value::Null,
                        );
                    }
                    if oracle == Oracle::StaticSoundness && !static_measured {
                        static_measured = true;
                        m.static_yes = self.static_yes;
                        m.static_unknown = self.static_unknown;
                    }
                    Outcome::Passed(m)
                }
                b'f' => {
                    let v = violations.next().ok_or_else(|| {
                        ResultsError::Record("a failed verdict without its violation".to_owned())
                    })?;
                    Outcome::Failed(Box::new(v.restore(base)?))
                }
                code => {
                    let reason = if oracle == Oracle::FlattenAccepts {
                        unjudgeable.next().cloned().unwrap_or_default()
                    } else {
                        String::new()
                    };
                    Outcome::Skipped(
                        Skip::of_code(char::from(code), reason)
                            .ok_or_else(|| bad("unknown verdict"))?,
                    )
                }
            };
            out.push((oracle, outcome));
        }
        Ok(out)
    }
}

/// One corpus file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusItem {
    /// Its position in the corpus's file order.
    pub index: u64,
    /// Its path.
    pub path: String,
    /// What the oracles found.
    #[serde(flatten)]
    pub outcomes: Outcomes,
}

/// One draft of the JSON-Schema-Test-Suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteItem {
    /// Its position in `suite::DRAFTS`.
    pub index: u64,
    /// What the suite's three parts found.
    pub report: SuiteReport,
}

/// A shrunk counterexample, and the corpus case written for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shrunk {
    /// The shrunk violation.
    pub violation: ViolationRecord,
    /// Where its regression file was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression_file: Option<String>,
}

/// One generated case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseItem {
    /// The case index (with the seed, all it takes to draw the case again).
    pub index: u32,
    /// What the oracles found.
    #[serde(flatten)]
    pub outcomes: Outcomes,
    /// The widening measure (model cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widening: Option<f64>,
    /// With a fault injected: the case fails the same way without it (passed over).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unattributed: bool,
    /// The case's first violation the run shrank (the first of its oracle in the run): the
    /// result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<Shrunk>,
    /// The case's later violations the run shrank, each the first of its oracle, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_shrunk: Vec<Shrunk>,
    /// A violation was to be shrunk but the case could not be drawn again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unshrinkable: bool,
    /// What the join made of the case's unions (model cases the core flattened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unions: Option<oracle::UnionTally>,
}

impl CaseItem {
    /// The record of case `index`.
    pub fn of(index: u32, outcomes: &[(Oracle, Outcome)], widening: Option<f64>) -> CaseItem {
        CaseItem {
            index,
            outcomes: Outcomes::of(outcomes),
            widening,
            unattributed: false,
            shrunk: None,
            also_shrunk: Vec::new(),
            unshrinkable: false,
            unions: None,
        }
    }

    /// The record with the tally of the case's unions.
    pub fn with_unions(mut self, unions: Option<oracle::UnionTally>) -> CaseItem {
        self.unions = unions;
        self
    }

    /// Records a shrunk counterexample of this case (`None`: the case could not be drawn again).
    pub fn set_shrunk(&mut self, shrunk: Option<(&Violation, Option<&Path>)>) {
        match shrunk {
            Some((v, file)) => {
                let record = Shrunk {
                    violation: ViolationRecord::of(v),
                    regression_file: file.map(|p| p.display().to_string()),
                };
                if self.shrunk.is_none() {
                    self.shrunk = Some(record);
                } else {
                    self.also_shrunk.push(record);
                }
            }
            None => self.unshrinkable = true,
        }
    }

    /// The shrunk counterexamples recorded, in order.
    pub fn shrunk_all(&self) -> impl Iterator<Item = &Shrunk> {
        self.shrunk.iter().chain(&self.also_shrunk)
    }
}

/// Every item a run (or a shard) evaluated, per phase, in the order it folded them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Items {
    /// Corpus files.
    pub corpus: Vec<CorpusItem>,
    /// The suite's drafts.
    pub suite: Vec<SuiteItem>,
    /// The model generator's cases.
    pub model: Vec<CaseItem>,
    /// The open-world generator's cases.
    pub open_world: Vec<CaseItem>,
}

impl Items {
    /// Appends `later`'s items (a later phase's).
    pub fn extend(&mut self, later: Items) {
        self.corpus.extend(later.corpus);
        self.suite.extend(later.suite);
        self.model.extend(later.model);
        self.open_world.extend(later.open_world);
    }
}

/// The first line of a violation, at most 200 characters: how the report lists a failed
/// open-world case.
pub(crate) fn violation_line(v: &Violation) -> String {
    v.message
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_one_based() {
        assert_eq!("2/3".parse::<Shard>(), Shard::new(2, 3));
        assert_eq!(" 1 / 1 ".parse::<Shard>().map(Shard::is_whole), Ok(true));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn shards_partition_every_position_once() {
        for n in 1..=5u32 {
            let shards: Vec<Shard> = (1..=n).map(|k| Shard::new(k, n).expect("valid")).collect();
            for position in 0..40u64 {
                let owners: Vec<u32> = shards
                    .iter()
                    .filter(|s| s.contains(position))
                    .map(|s| s.index())
                    .collect();
                // Round robin from shard 1: position p belongs to shard (p mod N) + 1.
                let expected = u32::try_from(position % u64::from(n)).expect("small") + 1;
                assert_eq!(owners, vec![expected], "position {position} of {n} shards");
            }
            for cases in [0u32, 1, 2, 7, 40] {
                let mut all: Vec<u32> = Vec::new();
                for s in &shards {
                    let mine: Vec<u32> = s.indices(cases).collect();
                    assert_eq!(mine.len(), s.share(cases) as usize, "{s} of {cases}");
                    assert!(mine.iter().all(|i| s.contains(u64::from(*i))));
                    all.extend(mine);
                }
                all.sort_unstable();
                assert_eq!(all, (0..cases).collect::<Vec<_>>(), "{n} shards of {cases}");
            }
        }
    }

    #[test]
    fn shards_serialize_as_k_slash_n() {
        let shard = Shard::new(2, 5).expect("valid");
        assert_eq!(serde_json::to_value(shard).ok(), Some(Value::from("2/5")));
        assert_eq!(
            serde_json::from_value::<Shard>(Value::from("2/5")).ok(),
            Some(shard)
        );
        assert!(serde_json::from_value::<Shard>(Value::from("6/5")).is_err());
    }

    #[test]
    fn every_skip_kind_survives_the_record() {
        let outcomes: Vec<(Oracle, Outcome)> = [
            Skip::NotApplicable(String::new()),
            Skip::Errored(String::new()),
            Skip::Declined(String::new()),
            Skip::Crashed(String::new()),
            Skip::ProtocolError(String::new()),
        ]
        .into_iter()
        .map(|s| (Oracle::Soundness, Outcome::Skipped(s)))
        .chain([(
            Oracle::FlattenAccepts,
            Outcome::Skipped(Skip::NotApplicable("the judge cannot compile it".into())),
        )])
        .collect();
        let restored = Outcomes::of(&outcomes)
            .restore(&oracle_codes(), &Options::default())
            .expect("restores");
        assert_eq!(restored, outcomes);
    }

    #[test]
    fn damaged_verdicts_are_refused() {
        let codes = oracle_codes();
        for verdicts in ["a", "zp", "aq", "af"] {
            let record = Outcomes {
                verdicts: verdicts.to_owned(),
                ..Outcomes::default()
            };
            assert!(
                record.restore(&codes, &Options::default()).is_err(),
                "{verdicts:?} was accepted"
            );
        }
    }
}
