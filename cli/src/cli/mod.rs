//! One module per subcommand; each exposes its clap `Args` struct and a `run` function returning
//! the exit code or a one-line error message.

pub mod check;
pub mod check_merge;
pub mod error;
pub mod export;
pub mod flatten;
pub mod implementations;
pub mod lint;
pub mod mcp_proxy;
pub mod serve_protocol;
pub mod validate;
