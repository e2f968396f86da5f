//! flatjoin-harness: the conformance harness of the `flatjoin` core — the case model, generators,
//! renderers per dialect, value samplers, the oracles (judged by `jsonschema` and `boon`), corpus
//! replay, the `check` driver behind `flatjoin check`, and the checks behind the fuzz targets.
//!
//! Nothing here re-implements any part of the join, and nothing here is async or draws on a
//! terminal: the product's surfaces (CLI, provider profiles, MCP proxy) are the `flatjoin-cli`
//! crate.

pub mod check;
pub mod corpus;
pub mod drafts;
pub mod draw;
#[cfg(feature = "arbitrary")]
pub mod fuzz;
pub mod generate;
pub mod identity;
pub mod keywords;
pub mod model;
pub mod open_world;
pub mod oracle;
pub mod protocol;
pub mod refs;
pub mod render;
pub mod sample;
pub mod shard;
pub mod suite;
