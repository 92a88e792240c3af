//! Self-contained HTML reports for bbrlab: reproductions of research-paper
//! figures, with verdicts and "paper vs ours" tables.
//!
//! Build a [`Report`] (sections of [`Figure`]s and [`Table`]s), then call
//! [`render_html`] for one HTML file with inline CSS and inline SVG (no
//! network, no JavaScript), or [`render_svg`] for a single chart. Charts are
//! drawn with plotters' SVG backend, which emits `<text>` elements, so no font
//! files are needed at render time.
//!
//! ```
//! use report::{Figure, Line, Report, Section, VerdictStatus};
//!
//! let report = Report::new("Shallow buffers", "seed 1").section(
//!     Section::new("fig3", "Goodput over time")
//!         .verdict(VerdictStatus::Reproduced, "Same shape as the paper's Fig. 3.")
//!         .figure(Figure::lines(
//!             "BBRv1 at 0.25 BDP",
//!             "time (s)",
//!             "goodput (Mbit/s)",
//!             vec![Line::new("bbr", vec![(0.0, 0.0), (1.0, 38.0), (2.0, 39.5)])],
//!         )),
//! );
//! let html = report::render_html(&report);
//! assert!(html.contains("<svg"));
//! ```
//!
//! The crate deliberately knows nothing about the simulator: callers turn
//! results into this data model, so reports can also show paper data or
//! analytical models.

#![warn(missing_docs)]

mod chart;
mod colours;
pub mod demo;
mod format;
mod html;
mod model;

pub use chart::{empirical_cdf, render_svg, render_svg_with, MIN_HEIGHT, MIN_WIDTH, PALETTE};
pub use colours::Colours;
pub use format::{format_number, format_si};
pub use html::{escape, render_html};
pub use model::{
    BarGroup, Cell, Figure, FigureKind, Line, LineStyle, NumberFormat, Orientation, ReferenceLine,
    Report, Scale, Section, Table, TreeNode, Verdict, VerdictStatus, DEFAULT_HEIGHT, DEFAULT_WIDTH,
};

/// Why a figure could not be rendered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReportError {
    /// The figure is smaller than [`MIN_WIDTH`] x [`MIN_HEIGHT`] pixels.
    #[error("figure size {width}x{height} is below the minimum {MIN_WIDTH}x{MIN_HEIGHT}")]
    InvalidSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The data is inconsistent (for instance a bar group with fewer values
    /// than categories); the message says which series.
    #[error("invalid figure data: {0}")]
    InvalidData(String),
    /// plotters failed while drawing.
    #[error("drawing failed: {0}")]
    Drawing(String),
}
