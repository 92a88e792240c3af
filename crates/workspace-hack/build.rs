//! Empty: the package needs a build script for its build-dependencies
//! (syn's features, see Cargo.toml) to take part in feature resolution.
fn main() {}
