//! The git commit this build was made from, for outputs' provenance.
//!
//! Only binaries depend on this crate, and each hands the commit to
//! `lab::provenance::set_build_commit` when it starts. Were it compiled
//! into the lab crate, every commit (and every `git add`) would rebuild
//! lab and everything that links it, the test binaries included, though
//! none of their code changed.

/// The short commit hash, with `+modified` when the working tree had
/// uncommitted changes to tracked files; "unknown" outside a git checkout
/// (a source tarball).
pub const COMMIT: &str = env!("BBRLAB_GIT_COMMIT");
