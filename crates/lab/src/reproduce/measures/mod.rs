//! Named measures of experiment files ([`super::file::named`]) that live in
//! modules of their own: analyses the primitives cannot express.

pub(crate) mod bounds;
pub(crate) mod converge_share;
pub(crate) mod drop_response;
pub(crate) mod sample_runs;
