//! No code: this crate only unifies dependency features between the
//! command line's build and the test build (see its Cargo.toml).
