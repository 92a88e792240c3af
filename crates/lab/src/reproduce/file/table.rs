//! `[[table]]`: a table of measures, one row per value of an axis (or of
//! several), with its columns' formats.

use std::collections::BTreeMap;

use report::Cell;
use serde::Deserialize;

use super::*;
use crate::reproduce::verdict::mean_sd_cell;
use crate::stats::Stat;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TableSpec {
    pub(super) title: String,
    /// The axis whose values are the rows, or several axes: one row per
    /// combination of their values (the first slowest), one first column
    /// per axis, the columns' measures one-number measures taken at the
    /// row's values.
    #[serde(default)]
    pub(super) by: Option<Headers>,
    /// A second axis: one row per pair of values (`by` slowest); the
    /// columns' measures must then be `mean` measures.
    #[serde(default)]
    pub(super) then: Option<String>,
    /// Rows given one by one (instead of `by`): their first cells and the
    /// parameters their columns' measures are taken at.
    #[serde(default)]
    pub(super) rows: Option<Vec<RowSpec>>,
    /// The header of the first column, or of the first columns (with
    /// `rows`, one per cell of a row's `cells`).
    #[serde(default = "default_first_header")]
    pub(super) first: Headers,
    /// The title without the seeds note.
    #[serde(default = "yes")]
    pub(super) seeds_note: bool,
    pub(super) columns: Vec<ColumnSpec>,
}

/// One header, or several.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Headers {
    One(String),
    Several(Vec<String>),
}

impl Headers {
    pub(super) fn list(&self) -> Vec<String> {
        match self {
            Headers::One(h) => vec![h.clone()],
            Headers::Several(h) => h.clone(),
        }
    }
}

pub(super) fn default_first_header() -> Headers {
    Headers::One("condition".into())
}

/// A row of a table given row by row.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RowSpec {
    /// Its first cells, as text.
    pub(super) cells: Vec<String>,
    /// The parameters the columns' measures are taken at (filling in what
    /// each measure does not fix itself).
    pub(super) at: BTreeMap<String, String>,
}

/// How a cell shows a number.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum CellFormat {
    /// "mean ± sd" (the sd left out when it is 0), "—" without a number.
    #[default]
    MeanSd,
    /// "mean ± sd" over two or more values, "mean" over one, empty
    /// without any.
    Stat,
    /// The mean alone.
    Mean,
    /// The mean as a percentage ("12.5%"), not scaled.
    Percent,
    /// "k of n": of a quantity that is 1 or 0 per run (`dash_complete`),
    /// how many of the runs have 1.
    CountOf,
    /// How many runs have a number: of a quantity every run has
    /// (`goodput_bps`), the number of runs at the row (copilot's streams
    /// per point).
    Runs,
}

impl CellFormat {
    pub(super) fn cell(self, s: Stat, scale: f64, decimals: usize) -> Cell {
        match self {
            CellFormat::MeanSd => mean_sd_cell(s.pair(), scale, decimals, ""),
            CellFormat::Stat => Stat {
                mean: s.mean * scale,
                sd: s.sd * scale,
                n: s.n,
            }
            .cell(decimals as u8),
            CellFormat::Mean if s.mean.is_finite() => Cell::fixed(s.mean * scale, decimals as u8),
            CellFormat::Mean => Cell::Empty,
            CellFormat::Percent => Cell::percent(s.mean, decimals as u8),
            CellFormat::CountOf => {
                let held = if s.n == 0 { 0.0 } else { s.mean * s.n as f64 };
                Cell::text(format!("{} of {}", held.round(), s.n))
            }
            CellFormat::Runs => Cell::fixed(s.n as f64, 0),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ColumnSpec {
    pub(super) header: String,
    pub(super) measure: String,
    #[serde(default = "one")]
    pub(super) scale: f64,
    #[serde(default = "two")]
    pub(super) decimals: usize,
    /// Show the value minus the one at this axis value (no spread).
    #[serde(default)]
    pub(super) minus: Option<String>,
    /// How the cell shows the number.
    #[serde(default)]
    pub(super) format: CellFormat,
}

pub(super) fn one() -> f64 {
    1.0
}

pub(super) fn two() -> usize {
    2
}
