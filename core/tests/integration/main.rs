//! Integration tests of the core: one binary, one module per topic (the schemars layout).
//!
//! Soundness is judged by the `jsonschema` crate (formats asserted), never by the core's code.

mod adversarial;
mod corpus;
mod drafts;
mod guarantees;
mod oracle;
mod precision;
mod regression;
mod unions;
