//! The experiment machinery of bbrlab, as a library: what the `bbrlab`
//! command line, the Python package and any other front end share.
//!
//! Layers, each using only those below it:
//! - [`run`]: one scenario through the simulator;
//! - [`output`]: what a run writes (summary.json, flows.csv, time series)
//!   and the table it prints;
//! - [`store`]: the results store of a sweep (one record per run, a table
//!   over the sweep's runs), resumable and content-addressed;
//! - [`sweep`]: every point of a sweep, in parallel, into a store;
//! - [`table`]: time series and results tables as Parquet or CSV;
//! - [`reproduce`]: the papers' suites: experiments (sweep files under
//!   `scenarios/<suite>/`) with the analyses that turn their runs into
//!   report sections, verdicts and `report.html`;
//! - [`league`]: every registered controller over a declared set of
//!   conditions, scored, ranked and drawn (`bbrlab league`, `bbrlab advise`);
//! - [`pages`]: report pages for a run, a sweep, or runs side by side;
//! - [`provenance`]: the build, date, command and wall time of an output;
//! - [`model`]: the oBBR paper's buffer-occupancy model (Eq. 1);
//! - [`cart`]: classification trees (Drucker et al.'s Fig. 1).
//!
//! Nothing here prints: long operations report through a
//! [`sweep::Progress`] the caller supplies.
//!
//! ```no_run
//! let scenario = scenario::load(std::path::Path::new("scenarios/examples/bbr-shallow.toml"), &[])?;
//! let result = lab::run::simulate(&scenario)?;
//! let series = Some(lab::table::Format::Parquet);
//! lab::output::write_all(std::path::Path::new("out/bbr-shallow"), &scenario, &result, lab::output::Mode::Simulated, series)?;
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod cart;
pub mod league;
pub mod model;
pub mod output;
pub mod pages;
pub mod provenance;
pub mod reproduce;
pub mod run;
pub mod stats;
pub mod store;
pub mod sweep;
pub mod table;
