//! flatjoin-cli: the product's surfaces on top of the `flatjoin` core — the `flatjoin` binary's
//! file reading, the provider profiles (lint, lowering, export), the shared presentation path of
//! the manifest, export and MCP surfaces, the rmcp stdio proxy, and the schemars helper.
//!
//! Every surface calls the one owning projection, [`flatjoin::flatten`], through
//! [`surfaces::present`]; nothing here re-implements any part of the join. The conformance
//! harness behind `flatjoin check` is the `flatjoin-harness` crate.

pub mod io;
pub mod mcp_proxy;
pub mod sdk;

pub use flatjoin_surfaces::{profiles, surfaces};
pub mod tool_schema;
