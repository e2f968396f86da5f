//! One module per subcommand; each exposes its clap `Args` struct and a `run` function returning
//! the exit code or a one-line error message.

pub mod flatten;
pub mod validate;
