//! flatjoin: the flat presentation join for discriminated-union tool schemas.
//!
//! LLM providers and MCP clients reject a tool whose input schema is a union at the root. This crate
//! turns such a schema (a Zod `discriminatedUnion`, a Pydantic tagged union, a serde-tagged enum
//! rendered by schemars, …) into one flat object that every value of every original branch still
//! satisfies: the *presentation*. Structural alternatives of a colliding property are kept in a
//! property-level `anyOf`, deduplicated; scalar collisions are widened conservatively. The original
//! schema keeps owning runtime validation (see [`Runtime`], behind the default `runtime` feature).
//!
//! ```
//! use flatjoin::{flatten, Options};
//! use serde_json::json;
//!
//! let original = json!({
//!     "oneOf": [
//!         {"type": "object", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}},
//!          "required": ["kind", "radius"], "additionalProperties": false},
//!         {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
//!          "required": ["kind", "side"], "additionalProperties": false}
//!     ]
//! });
//! let flat = flatten(&original, &Options::default()).unwrap();
//! assert_eq!(flat.schema["type"], "object");
//! assert_eq!(flat.schema["properties"]["kind"]["enum"], json!(["circle", "square"]));
//! assert_eq!(flat.schema["required"], json!(["kind"]));
//! assert_eq!(flat.diagnostics.flattened[0].discriminator.as_deref(), Some("kind"));
//! ```
//!
//! The rules implemented are those of `SPEC.md` (§1–§3); `ARCHITECTURE.md` at the repository root
//! maps them onto the modules below.

mod canonical;
mod diagnostics;
mod draft;
mod error;
mod fast_path;
mod fasthash;
#[cfg(feature = "fault-injection")]
mod fault;
mod identify;
mod join;
pub mod keywords;
mod kinds;
mod manifest;
mod options;
mod parse;
mod pointer;
mod polarity;
mod project;
mod refs;
#[cfg(feature = "runtime")]
mod runtime;
#[cfg(test)]
mod test_corpus;
mod wellformed;
mod widen;

pub use canonical::{dedup, structural_key, structurally_equal};
pub use diagnostics::{Diagnostics, FlattenedSite, SkipReason, SkippedSite};
pub use draft::Draft;
pub use error::{Error, ErrorKind};
#[cfg(feature = "fault-injection")]
pub use fault::Fault;
pub use kinds::{Kind, Kinds, kinds_of};
pub use manifest::{
    FlattenedManifest, flatten_manifest, flatten_manifest_owned, flatten_manifest_owned_with,
    flatten_manifest_text_with,
};
pub use options::{OpenBranches, Options, OptionsError, OptionsErrorKind, Scope, UnknownName};
pub use parse::{MAX_DEPTH, parse};
/// The JSON pointer a local `$ref` names (`#`, `#/a/b`, percent-decoded as a URI fragment), or
/// `None` for any other reference, which is never fetched: the core's own reading, for the
/// surfaces that walk a presentation's references.
pub use pointer::local_ref;
#[cfg(feature = "runtime")]
pub use runtime::{BranchError, Runtime, RuntimeErrors, RuntimeOptions};
pub use widen::{widen_scalars, widen_scalars_in};

use serde_json::Value;

/// The result of [`flatten`]: the presentation and what happened at each union site.
#[derive(Debug, Clone, PartialEq)]
pub struct Flattened {
    /// The presentation: what a model or client is shown.
    pub schema: Value,
    /// One entry per union site that was flattened, and per near miss that was skipped.
    pub diagnostics: Diagnostics,
}

/// Projects `schema` into its flat presentation (SPEC §2–§3).
///
/// One bottom-up pass: children are projected first, then each discriminated union is joined from
/// its already projected branches. The input is not modified. Returns an [`Error`] carrying a JSON
/// pointer for malformed input (a keyword of the wrong JSON type, an unresolvable local `$ref`,
/// nesting deeper than [`MAX_DEPTH`]); never panics and never fetches a remote `$ref`.
///
/// References are read by the rules of the document's draft, with `jsonschema`'s own resolver:
/// base URIs from embedded `$id`s, `$anchor`, the draft-07 `$ref`-sibling rule. A document that
/// uses them and holds a union is joined from a copy whose references are pointers from the root
/// (remote ones made absolute; embedded `$id`s and anchors dropped); a `$dynamicRef` there is
/// refused with [`ErrorKind::UnsupportedRef`] at its pointer.
///
/// The document is read by the draft its root `$schema` declares (draft-04, draft-06, draft-07,
/// 2019-09 or 2020-12; [`Draft`]); draft-03 and older are refused with
/// [`ErrorKind::UnsupportedDraft`], and a `$schema` that names no draft is read as 2020-12 with
/// [`Diagnostics::assumed_draft`] saying so.
pub fn flatten(schema: &Value, options: &Options) -> Result<Flattened, Error> {
    flatten_in(schema, options, Depth::Unchecked)
}

/// Whether a document's nesting still has to be checked against [`MAX_DEPTH`], or is known to be
/// within it: read by [`parse`] (`serde_json`'s recursion limit is that depth), or a part of a
/// document already checked (a manifest's tool). Either way the answers are the same; a bounded
/// document is not scanned again.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    Unchecked,
    Bounded,
}

fn checked(schema: &Value, depth: Depth) -> Result<wellformed::Facts, Error> {
    match depth {
        Depth::Unchecked => wellformed::check(schema),
        Depth::Bounded => wellformed::check_bounded(schema),
    }
}

/// [`flatten`] of a document whose depth is `depth`.
pub(crate) fn flatten_in(
    schema: &Value,
    options: &Options,
    depth: Depth,
) -> Result<Flattened, Error> {
    let declared = draft::declared(schema)?;
    let mut flat = match checked(schema, depth) {
        // Walked once: nothing to normalize, and the facts serve the projection.
        Ok(facts) if !facts.needs_normalizing(schema) => {
            project::run_checked(schema, facts, options)
        }
        // Normalized first, or an error: as the normalization and the check find it, in order.
        _ => match refs::normalize(schema)? {
            Some(normalized) => project::run_owned(normalized, options),
            None => project::run(schema, options),
        },
    }?;
    flat.diagnostics.note_declared(declared);
    Ok(flat)
}

/// Like [`flatten`], taking ownership of the input. When the document holds no union site at all
/// the input is returned as it is, without a copy.
pub fn flatten_owned(schema: Value, options: &Options) -> Result<Flattened, Error> {
    flatten_owned_with(schema, options, &mut drop::<Value>)
}

/// [`flatten_owned`], handing `spent` the input where the join only read it — a document with
/// references, or one normalized first, is projected from a borrow of it — instead of dropping
/// it there. For a caller that ends next and need not free it: the CLI leaves it unfreed, as it
/// leaves its output (freeing a large input node by node costs a few per cent of the command,
/// `reports/join-cost.md`). The presentation is the same.
pub fn flatten_owned_with(
    schema: Value,
    options: &Options,
    spent: &mut dyn FnMut(Value),
) -> Result<Flattened, Error> {
    flatten_owned_in(schema, options, spent, Depth::Unchecked)
}

/// [`parse`] then [`flatten_owned_with`]: the same presentation and the same errors (a parse
/// error as [`parse`] reports it), without scanning the parsed document's depth a second time
/// ([`parse`] bounds it). For callers that hold the JSON text: the CLI, the Node.js and Python
/// packages, the protocol adapters.
pub fn flatten_text_with(
    text: &[u8],
    options: &Options,
    spent: &mut dyn FnMut(Value),
) -> Result<Flattened, Error> {
    flatten_owned_in(parse(text)?, options, spent, Depth::Bounded)
}

/// [`flatten_owned_with`] of a document whose depth is `depth`.
pub(crate) fn flatten_owned_in(
    schema: Value,
    options: &Options,
    spent: &mut dyn FnMut(Value),
    depth: Depth,
) -> Result<Flattened, Error> {
    let declared = draft::declared(&schema)?;
    let mut flat = match checked(&schema, depth) {
        Ok(facts) if !facts.needs_normalizing(&schema) => {
            project::run_owned_checked(schema, facts, options, spent)
        }
        _ => match refs::normalize(&schema)? {
            Some(normalized) => {
                spent(schema);
                project::run_owned(normalized, options)
            }
            None => project::run_owned(schema, options),
        },
    }?;
    flat.diagnostics.note_declared(declared);
    Ok(flat)
}
