//! The options of the projection ([`Options`]) and their one spelling: each option enum's names
//! (`as_str`/[`FromStr`], the same on the CLI, in the packages, the protocol, corpus cases and
//! results files) and [`Options::to_json`]/[`Options::from_json`], the object the protocol's
//! `run` request and a corpus case's `options` write (`{"open_branches": "declared", "scope":
//! "all"}`).

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

#[cfg(feature = "fault-injection")]
use crate::Fault;

/// Writes the names of an option enum once: `ALL` (every value, in order), `NAMES` (their names,
/// in the same order), the name method (`$name_fn`), `Display` (the name) and `FromStr` (the
/// name back, or an [`UnknownName`] listing `NAMES`).
macro_rules! named_values {
    ($ty:ident, $option:literal, $name_fn:ident, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in the order of [`Self::NAMES`].
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// Every value's name, as `FromStr` reads it.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The value's name: what the CLI, the packages, the protocol and corpus files write.
            pub const fn $name_fn(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.$name_fn())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err($crate::UnknownName {
                        option: $option,
                        value: s.to_owned(),
                        accepted: Self::NAMES,
                    }),
                }
            }
        }
    };
}
#[cfg(feature = "fault-injection")]
pub(crate) use named_values;

/// Which union sites are flattened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every discriminated union anywhere in the document (properties, items, `$defs`, nullable
    /// wrappers). The default.
    #[default]
    All,
    /// Only a discriminated union at the document root (SPEC §6 decision 12).
    Root,
}

named_values!(Scope, "scope", as_str, { All => "all", Root => "root" });

/// How an open branch (one that accepts keys it does not declare) takes part in the join of a
/// property it does not declare (SPEC §2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenBranches {
    /// The reading of the runtimes that emit open objects (Pydantic `extra="ignore"`, serde without
    /// `deny_unknown_fields`, Zod's strip mode): only branches that declare a property shape its
    /// join. The default.
    #[default]
    Declared,
    /// JSON Schema's literal reading: an open branch that does not declare `p` adds what it accepts
    /// under an undeclared key (`{}`, its typed catch-all, matching `patternProperties`) to `p`.
    Permissive,
}

named_values!(OpenBranches, "open_branches", as_str, {
    Declared => "declared",
    Permissive => "permissive",
});

/// A name that is none of an option's values: what `FromStr` of an option enum returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// The option (`scope`, `open_branches`, `fault`).
    pub option: &'static str,
    /// The name given.
    pub value: String,
    /// The names the option accepts.
    pub accepted: &'static [&'static str],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} \"{}\" (one of: {})",
            self.option,
            self.value,
            self.accepted.join(", ")
        )
    }
}

impl std::error::Error for UnknownName {}

/// Options of the projection. `Options::default()` is what the CLI uses without flags.
///
/// `#[non_exhaustive]`: the feature `fault-injection` adds a field, and a dependency that turns it
/// on must not break code elsewhere that builds `Options`. Build one from [`Options::default`] or
/// [`Options::new`] and the `with_*` methods:
///
/// ```
/// use flatjoin::{OpenBranches, Options, Scope};
/// let options = Options::default().with_open_branches(OpenBranches::Permissive);
/// assert_eq!(options, Options::new(Scope::All, OpenBranches::Permissive));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Options {
    /// Which union sites are flattened. Default: [`Scope::All`].
    pub scope: Scope,
    /// The reading of open branches. Default: [`OpenBranches::Declared`].
    pub open_branches: OpenBranches,
    /// A named fault to inject (only with the `fault-injection` feature). Default: none.
    #[cfg(feature = "fault-injection")]
    pub fault: Option<Fault>,
}

impl Options {
    /// Options with `scope` and `open_branches`, everything else at its default.
    pub fn new(scope: Scope, open_branches: OpenBranches) -> Options {
        Options::default()
            .with_scope(scope)
            .with_open_branches(open_branches)
    }

    /// The same options with `scope`.
    #[must_use]
    pub fn with_scope(mut self, scope: Scope) -> Options {
        self.scope = scope;
        self
    }

    /// The same options with `open_branches`.
    #[must_use]
    pub fn with_open_branches(mut self, open_branches: OpenBranches) -> Options {
        self.open_branches = open_branches;
        self
    }

    /// The same options with `fault` injected (or none).
    #[cfg(feature = "fault-injection")]
    #[must_use]
    pub fn with_fault(mut self, fault: Option<Fault>) -> Options {
        self.fault = fault;
        self
    }

    /// The options as a JSON object, every member written: `{"open_branches": "declared",
    /// "scope": "all"}` (the protocol's `run` request and a corpus case's `options`), and
    /// `"fault"` after them when one is injected (feature `fault-injection`).
    ///
    /// ```
    /// use flatjoin::{OpenBranches, Options, Scope};
    /// let options = Options::new(Scope::Root, OpenBranches::Permissive);
    /// let json = options.to_json();
    /// assert_eq!(json, serde_json::json!({"open_branches": "permissive", "scope": "root"}));
    /// assert_eq!(Options::from_json(&json), Ok(options));
    /// ```
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "open_branches".into(),
            Value::from(self.open_branches.as_str()),
        );
        m.insert("scope".into(), Value::from(self.scope.as_str()));
        #[cfg(feature = "fault-injection")]
        if let Some(fault) = self.fault {
            m.insert("fault".into(), Value::from(fault.name()));
        }
        Value::Object(m)
    }

    /// Options from a JSON object as [`Options::to_json`] writes it. A missing member is its
    /// default; a member this version does not know is passed over (the protocol's `run` schema
    /// allows them); a known member of the wrong type or with an unknown name is an error whose
    /// pointer is relative to `value`. `fault` is read with the feature `fault-injection` and
    /// refused without it (a fault asked for must not go unnoticed).
    pub fn from_json(value: &Value) -> Result<Options, OptionsError> {
        let object = value.as_object().ok_or(OptionsError {
            pointer: String::new(),
            kind: OptionsErrorKind::NotAnObject,
        })?;
        let mut options = Options::default();
        if let Some(v) = object.get("open_branches") {
            options.open_branches = member(v, "open_branches")?;
        }
        if let Some(v) = object.get("scope") {
            options.scope = member(v, "scope")?;
        }
        if let Some(v) = object.get("fault") {
            #[cfg(feature = "fault-injection")]
            {
                options.fault = Some(member(v, "fault")?);
            }
            #[cfg(not(feature = "fault-injection"))]
            {
                let _ = v;
                return Err(OptionsError {
                    pointer: "/fault".to_owned(),
                    kind: OptionsErrorKind::NoFaults,
                });
            }
        }
        Ok(options)
    }
}

/// The value of member `name` (whose pointer is `/name`: no option name needs escaping).
fn member<T: FromStr<Err = UnknownName>>(value: &Value, name: &str) -> Result<T, OptionsError> {
    let at = |kind| OptionsError {
        pointer: format!("/{name}"),
        kind,
    };
    let text = value
        .as_str()
        .ok_or_else(|| at(OptionsErrorKind::NotAString))?;
    text.parse()
        .map_err(|e| at(OptionsErrorKind::UnknownName(e)))
}

/// Why [`Options::from_json`] refused its input, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError {
    /// JSON pointer into the options object (`""`: the object itself).
    pub pointer: String,
    /// What is wrong there.
    pub kind: OptionsErrorKind,
}

/// What [`Options::from_json`] found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionsErrorKind {
    /// The options are not a JSON object.
    NotAnObject,
    /// An option's value is not a string.
    NotAString,
    /// An option's value names none of its values.
    UnknownName(UnknownName),
    /// A `fault` member, read by a build without the feature `fault-injection`.
    NoFaults,
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = crate::pointer::shown(&self.pointer);
        match &self.kind {
            OptionsErrorKind::NotAnObject => write!(f, "at {at}: options must be an object"),
            OptionsErrorKind::NotAString => write!(f, "at {at}: expected a string"),
            OptionsErrorKind::UnknownName(e) => write!(f, "at {at}: {e}"),
            OptionsErrorKind::NoFaults => write!(
                f,
                "at {at}: a fault is injected only by a build with the feature `fault-injection`"
            ),
        }
    }
}

impl std::error::Error for OptionsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            OptionsErrorKind::UnknownName(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_name_reads_back_as_its_value() {
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse(), Ok(scope));
            assert_eq!(scope.to_string(), scope.as_str());
        }
        for reading in OpenBranches::ALL {
            assert_eq!(reading.as_str().parse(), Ok(reading));
        }
        assert_eq!(Scope::NAMES, ["all", "root"]);
        assert_eq!(OpenBranches::NAMES, ["declared", "permissive"]);
    }

    #[test]
    fn an_unknown_name_lists_the_accepted_ones() {
        let e = "everywhere".parse::<Scope>().expect_err("refused");
        assert_eq!(e.accepted, ["all", "root"]);
        assert_eq!(
            e.to_string(),
            "unknown scope \"everywhere\" (one of: all, root)"
        );
        let e = "lax".parse::<OpenBranches>().expect_err("refused");
        assert_eq!(
            e.to_string(),
            "unknown open_branches \"lax\" (one of: declared, permissive)"
        );
    }

    #[test]
    fn options_round_trip_through_json() {
        for scope in Scope::ALL {
            for reading in OpenBranches::ALL {
                let options = Options::new(scope, reading);
                let json = options.to_json();
                assert_eq!(
                    json,
                    json!({"open_branches": reading.as_str(), "scope": scope.as_str()})
                );
                assert_eq!(Options::from_json(&json), Ok(options));
            }
        }
    }

    #[test]
    fn missing_and_unknown_members_read_as_the_defaults() {
        assert_eq!(Options::from_json(&json!({})), Ok(Options::default()));
        assert_eq!(
            Options::from_json(&json!({"scope": "root", "later": 1})),
            Ok(Options::default().with_scope(Scope::Root))
        );
    }

    #[test]
    fn a_wrong_member_is_an_error_at_its_pointer() {
        let e = Options::from_json(&json!({"open_branches": "lax"})).expect_err("refused");
        assert_eq!(e.pointer, "/open_branches");
        assert!(matches!(e.kind, OptionsErrorKind::UnknownName(_)));
        assert_eq!(
            e.to_string(),
            "at /open_branches: unknown open_branches \"lax\" (one of: declared, permissive)"
        );
        let e = Options::from_json(&json!({"scope": 3})).expect_err("refused");
        assert_eq!(
            (e.pointer.as_str(), e.kind),
            ("/scope", OptionsErrorKind::NotAString)
        );
        let e = Options::from_json(&json!("root")).expect_err("refused");
        assert_eq!(
            (e.pointer.as_str(), e.kind),
            ("", OptionsErrorKind::NotAnObject)
        );
    }

    #[cfg(feature = "fault-injection")]
    #[test]
    fn a_fault_round_trips_with_the_feature() {
        let options = Options::default().with_fault(Some(Fault::NoDedup));
        let json = options.to_json();
        assert_eq!(json["fault"], "no-dedup");
        assert_eq!(Options::from_json(&json), Ok(options));
    }

    #[cfg(not(feature = "fault-injection"))]
    #[test]
    fn a_fault_is_refused_without_the_feature() {
        let e = Options::from_json(&json!({"fault": "no-dedup"})).expect_err("refused");
        assert_eq!(
            (e.pointer.as_str(), e.kind),
            ("/fault", OptionsErrorKind::NoFaults)
        );
    }
}
