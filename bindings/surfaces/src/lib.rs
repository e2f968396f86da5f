//! flatjoin-surfaces: what every product surface serves over the `flatjoin` core — the shared
//! presentation path of the manifest, export and MCP surfaces ([`surfaces`]) and the provider
//! profiles (lint, lowering, export: [`profiles`]). The `flatjoin` binary and the Node.js and
//! Python packages (through `flatjoin-edge`) call it; it depends on the core alone, never on the
//! CLI or the harness.
//!
//! Every surface calls the one owning projection, [`flatjoin::flatten`], through
//! [`surfaces::present`]; nothing here re-implements any part of the join.

pub mod profiles;
pub mod surfaces;
