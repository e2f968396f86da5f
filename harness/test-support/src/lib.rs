//! What flatjoin's test binaries share (a dev-dependency of the crates whose tests need a program
//! from outside the Rust toolchain): [`tools`], the programs a test needs and how to install
//! them; [`runner`], the `main` of a test binary that shows a test whose programs are missing as
//! *ignored* (and fails it under `CI`); [`venv`], a venv filled from pinned requirements;
//! [`fake`], fake flatteners behind the protocol that crash, hang or break it; `packages`
//! (feature `packages`), the builds and checks the Node.js and Python package tests share.

pub mod fake;
#[cfg(feature = "packages")]
pub mod packages;
pub mod runner;
pub mod tools;
pub mod venv;
