//! The runtime half: validating arguments with the *original* schema, with errors that name the
//! branch the discriminator selected (feature `runtime`, on by default).

use std::fmt;

use serde_json::Value;

use crate::canonical::literal_key;
use crate::error::{Error, ErrorKind};
use crate::fasthash::FastMap;
use crate::identify::{self, Identified};

/// Validates arguments with the original schema. Its verdict is always that of plain validation
/// against the original by its declared draft (by default `format` is an annotation from 2019-09
/// on and an assertion in draft-07, as `jsonschema` reads the drafts; [`RuntimeOptions`] can
/// assert formats everywhere, as Zod and Pydantic do); where the root is a discriminated union, its errors
/// name the branch the value's discriminator selected (`kind "polygon": /points: ...`).
///
/// ```
/// use flatjoin::Runtime;
/// use serde_json::json;
///
/// let original = json!({"oneOf": [
///     {"type": "object", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}},
///      "required": ["kind", "radius"], "additionalProperties": false},
///     {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
///      "required": ["kind", "side"], "additionalProperties": false}
/// ]});
/// let runtime = Runtime::new(&original).unwrap();
/// assert!(runtime.is_valid(&json!({"kind": "circle", "radius": 1})));
/// // The square's discriminator with the circle's field: the presentation accepts it, the runtime
/// // does not, and says which branch it checked.
/// let err = runtime.validate(&json!({"kind": "square", "radius": 1})).unwrap_err();
/// assert_eq!(err.branch.as_deref(), Some("kind \"square\""));
/// ```
pub struct Runtime {
    validators: jsonschema::ValidatorMap,
    dispatch: Option<Dispatch>,
}

struct Dispatch {
    discriminator: String,
    /// Literal key → (branch validator key, the literal as JSON).
    branches: FastMap<String, String>,
    literals: Vec<Value>,
}

/// Options of [`Runtime::with_options`]. `RuntimeOptions::default()` is what [`Runtime::new`] and
/// `flatjoin validate` without flags use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeOptions {
    /// Assert `format` whatever the declared draft (the reading of Zod and Pydantic, which reject
    /// a malformed email). Default `false`: the draft decides (SPEC §6 decision 13), so the verdict
    /// equals plain validation by the draft.
    pub assert_formats: bool,
    /// Documents that remote `$ref`s may load, by absolute URI (`http://example.com/a.json`),
    /// supplied by the caller: the runtime itself never fetches anything. Default: none, and a
    /// remote `$ref` is refused.
    pub resources: Vec<(String, Value)>,
}

/// Serves [`RuntimeOptions::resources`] to the validator; anything else is refused (no I/O).
struct Supplied(FastMap<String, Value>);

impl jsonschema::Retrieve for Supplied {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str().split('#').next().unwrap_or_default();
        self.0.get(key).cloned().ok_or_else(|| {
            format!("{key} is not fetched: flatjoin does no I/O (supply it in RuntimeOptions::resources)")
                .into()
        })
    }
}

/// Why arguments were rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeErrors {
    /// The selected branch (`kind "polygon"`), when the root is a discriminated union and the
    /// value's discriminator selected one.
    pub branch: Option<String>,
    /// The errors, each with the instance location.
    pub errors: Vec<BranchError>,
}

/// One validation error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchError {
    /// JSON pointer into the arguments (`""` for the whole value).
    pub instance_path: String,
    /// The validator's message.
    pub message: String,
}

impl fmt::Display for RuntimeErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            if let Some(branch) = &self.branch {
                write!(f, "{branch}: ")?;
            }
            let at = if e.instance_path.is_empty() {
                "(root)"
            } else {
                &e.instance_path
            };
            write!(f, "{at}: {}", e.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeErrors {}

impl Runtime {
    /// Compiles the original schema with the default options (offline: a remote `$ref` is never
    /// fetched; formats as the declared draft reads them).
    pub fn new(original: &Value) -> Result<Runtime, Error> {
        Runtime::with_options(original, &RuntimeOptions::default())
    }

    /// Compiles the original schema with `options`.
    pub fn with_options(original: &Value, options: &RuntimeOptions) -> Result<Runtime, Error> {
        crate::wellformed::check(original)?;
        let supplied = Supplied(options.resources.iter().cloned().collect());
        let mut builder = jsonschema::options().with_retriever(supplied);
        if options.assert_formats {
            builder = builder.should_validate_formats(true);
        }
        let validators = builder.build_map(original).map_err(|e| {
            Error::new(
                e.instance_path().as_str().to_owned(),
                ErrorKind::InvalidSchema {
                    message: e.to_string(),
                },
            )
        })?;
        // The branches are identified on the copy whose references are pointers from the root
        // when the original needs URI resolution (the verdict is jsonschema's on the original).
        let normalized = crate::refs::normalize(original).ok().flatten();
        let read = normalized.as_ref().unwrap_or(original);
        let dispatch = match read {
            Value::Object(map) => match identify::identify(map, "", read) {
                // A root joined without a discriminator (SPEC §2.9) selects no branch by a tag:
                // its errors are the original's.
                Identified::Union(union) if union.discriminator.is_some() => {
                    let keyword = if map.contains_key("oneOf") {
                        "oneOf"
                    } else {
                        "anyOf"
                    };
                    let mut branches = FastMap::default();
                    let mut literals = Vec::new();
                    for (i, b) in union.branches.iter().enumerate() {
                        for v in b.literals.iter() {
                            branches.insert(literal_key(v), format!("#/{keyword}/{i}"));
                            literals.push(v.clone());
                        }
                    }
                    Some(Dispatch {
                        discriminator: union.discriminator.unwrap_or_default(),
                        branches,
                        literals,
                    })
                }
                Identified::Union(_) | Identified::Alike(_) | Identified::NotUnion(_) => None,
            },
            _ => None,
        };
        Ok(Runtime {
            validators,
            dispatch,
        })
    }

    /// The root discriminator, when the root is a discriminated union.
    pub fn discriminator(&self) -> Option<&str> {
        self.dispatch.as_ref().map(|d| d.discriminator.as_str())
    }

    /// Whether the original accepts `value`.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.root().is_some_and(|v| v.is_valid(value))
    }

    fn root(&self) -> Option<&jsonschema::Validator> {
        self.validators.get("#")
    }

    /// Validates `value` with the original. On rejection, the errors of the selected branch when
    /// the discriminator selects one (else the original's).
    pub fn validate(&self, value: &Value) -> Result<(), RuntimeErrors> {
        let Some(root) = self.root() else {
            return Err(RuntimeErrors {
                branch: None,
                errors: vec![BranchError {
                    instance_path: String::new(),
                    message: "the original schema did not compile".into(),
                }],
            });
        };
        if root.is_valid(value) {
            return Ok(());
        }
        let collect = |v: &jsonschema::Validator| -> Vec<BranchError> {
            v.iter_errors(value)
                .map(|e| BranchError {
                    instance_path: e.instance_path().as_str().to_owned(),
                    message: e.to_string(),
                })
                .collect()
        };
        if let Some(dispatch) = &self.dispatch {
            let tag = value.get(&dispatch.discriminator);
            match tag.and_then(|t| dispatch.branches.get(&literal_key(t))) {
                Some(key) => {
                    let label = format!(
                        "{} {}",
                        dispatch.discriminator,
                        tag.map(Value::to_string).unwrap_or_default()
                    );
                    // The branch's own errors when it has any; otherwise the value fails only
                    // through what the union node adds (its siblings, `unevaluatedProperties`):
                    // the original's errors, still under the branch the value selected.
                    let mut errors = self.validators.get(key).map(collect).unwrap_or_default();
                    if errors.is_empty() {
                        errors = collect(root);
                    }
                    return Err(RuntimeErrors {
                        branch: Some(label),
                        errors,
                    });
                }
                None if value.is_object() => {
                    let allowed: Vec<String> =
                        dispatch.literals.iter().map(Value::to_string).collect();
                    let found = tag.map_or_else(|| "missing".to_owned(), Value::to_string);
                    return Err(RuntimeErrors {
                        branch: None,
                        errors: vec![BranchError {
                            instance_path: crate::pointer::push("", &dispatch.discriminator),
                            message: format!(
                                "{} is {found}; expected one of {}",
                                dispatch.discriminator,
                                allowed.join(", ")
                            ),
                        }],
                    });
                }
                None => {}
            }
        }
        Err(RuntimeErrors {
            branch: None,
            errors: collect(root),
        })
    }
}
