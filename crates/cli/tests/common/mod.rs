//! Helpers shared by the CLI's integration tests.

pub mod serve;
