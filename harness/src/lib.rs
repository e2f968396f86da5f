//! flatjoin-harness: the conformance harness and command-line surfaces built on the `flatjoin` core.
//!
//! Every surface (the `flatten` and `manifest` commands, the provider profiles, the MCP proxy) calls
//! the one owning projection, [`flatjoin::flatten`]; nothing here re-implements any part of the join.

pub mod check;
pub mod corpus;
pub mod generate;
pub mod identity;
pub mod io;
pub mod mcp_proxy;
pub mod model;
pub mod open_world;
pub mod oracle;
pub mod profiles;
pub mod render;
pub mod sample;
pub mod surfaces;
pub mod tool_schema;
