//! `[[measure]]`: the closed set of typed measure primitives a file may
//! take from the runs, and the [`Value`]s they give (a number, a mean with
//! its spread, a table of values per axis value, a set of conditions).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::*;
use crate::reproduce::claims::Measured;
use crate::stats::{Crossing, Stat};

/// The measure primitives. Every measure has an `id` that tables, figures,
/// claims and other measures refer to; `at` fixes sweep parameters
/// (`{ "link.buffer" = "0.5bdp" }`), `by` names an axis over which the
/// measure is taken once per value. Means are over the seeds (the runs
/// left after fixing `at` and the `by` value).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Measure {
    /// A quantity's mean and spread over seeds, at one condition or along `by`.
    Mean {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The ratio of a quantity's means at two conditions, `a / b` (of
    /// two controllers, say), once or along `by`.
    Ratio {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// The numerator's condition.
        a: BTreeMap<String, String>,
        /// The denominator's condition.
        b: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The difference of a quantity's means at two conditions, `a - b`,
    /// once or along `by`.
    Difference {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// The first condition.
        a: BTreeMap<String, String>,
        /// The condition subtracted.
        b: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// Harm (Ware et al.): `(alone - beside) / alone` of a quantity's
    /// means, at least 0; with `per_run`, of each run at `beside` against
    /// the mean at `alone`, not clamped, mean and spread over seeds. Once
    /// or along `by` (the axis value fixed on both sides).
    Harm {
        /// The measure's id.
        id: String,
        /// The quantity ("more is better").
        of: Quantity,
        /// The condition alone.
        alone: BTreeMap<String, String>,
        /// The condition beside the other flows.
        beside: BTreeMap<String, String>,
        /// Per run and not clamped (default: of the means, at least 0).
        #[serde(default)]
        per_run: bool,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// A condition per value of a `mean` measure taken `by` an axis: the
    /// value against the one at `reference`, `holds` within the claim's
    /// margin.
    Compare {
        /// The measure's id.
        id: String,
        /// A `mean` measure with `by`.
        of: String,
        /// The axis value compared against.
        reference: String,
        /// The axis values compared (default: all but the reference).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Which way each must go.
        holds: Holds,
    },
    /// A direction along the axis of a `mean` measure taken `by` it: one
    /// condition per consecutive pair of values.
    Direction {
        /// The measure's id.
        id: String,
        /// A `mean` measure with `by`.
        of: String,
        /// Which way.
        way: Way,
        /// The axis values taken, in the axis' order (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Each step strictly so (default: at least or at most).
        #[serde(default)]
        strict: bool,
    },
    /// A count of the axis values of a `mean` measure taken `by` it where
    /// the value `holds` against `bound` (within the claim's margin).
    Count {
        /// The measure's id.
        id: String,
        /// A `mean` measure with `by`.
        of: String,
        /// Which way.
        holds: Holds,
        /// The bound, in the quantity's unit.
        bound: f64,
        /// The axis values counted (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
    },
    /// One condition, named `label`: one-number measure `a` against
    /// one-number measure `b`, `holds` within the claim's margin.
    Condition {
        /// The measure's id.
        id: String,
        /// The measure compared.
        a: String,
        /// The measure it is compared against.
        b: String,
        /// Which way `a` must be of `b`.
        holds: Holds,
        /// The condition's name in the claim's row; `{a}` and `{b}` in it
        /// are the two numbers, with `decimals` decimals.
        label: String,
        /// The decimals of the numbers `{a}` and `{b}` show in `label`.
        #[serde(default = "two")]
        decimals: usize,
    },
    /// The mean of a time series over `[from_s, to_s)`, per run; mean and
    /// spread over seeds.
    WindowMean {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// Window start, s.
        from_s: f64,
        /// Window end, s (`inf`: to the end).
        to_s: f64,
        /// A second series: the measure is then the ratio of the two
        /// series' means over the window, per run.
        #[serde(default)]
        per: Option<SeriesColumn>,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// A statistic of a time series over `[from_s, to_s)` (`take`: its
    /// mean, largest or least sample, or its sd over time), per run; mean
    /// and spread over seeds.
    Window {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// Which statistic of the window's samples.
        take: WindowTake,
        /// Window start, s.
        from_s: f64,
        /// Window end, s (`inf`: to the end).
        to_s: f64,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The first time at or after `from_s` a series reaches `level`
    /// (`way`: above or below), per run; mean and spread over seeds.
    FirstCrossing {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// The level.
        level: f64,
        /// Which way.
        way: Crossing,
        /// Where to start looking, s.
        #[serde(default)]
        from_s: f64,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The `q` quantile of a quantity over the runs at a condition.
    Quantile {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// The quantile, 0 to 1.
        q: f64,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
    },
    /// Jain's index over the flows' values of a metric, per run; mean and
    /// spread over seeds.
    Jain {
        /// The measure's id.
        id: String,
        /// The metric (per flow).
        of: Metric,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The least of several one-number measures (NaN if any has no number).
    Least {
        /// The measure's id.
        id: String,
        /// The measures, by id.
        of: Vec<String>,
    },
    /// One number from a measure taken `by` an axis: the largest, the
    /// least or the mean of its values (those with a number) at the axis
    /// values chosen.
    Across {
        /// The measure's id.
        id: String,
        /// A measure with `by`.
        of: String,
        /// The axis values taken (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Which number.
        take: Take,
        /// An axis along which it is taken: one number per value, the
        /// value filling in the conditions of `of` (a controller's worst
        /// flow count, per controller).
        #[serde(default)]
        by: Option<String>,
    },
    /// Conditions that must all hold: those of several condition measures,
    /// one per label (in the order they first appear), holding where it
    /// holds in every measure that has it.
    All {
        /// The measure's id.
        id: String,
        /// The condition measures, by id.
        of: Vec<String>,
    },
    /// A condition measure taken at each value of an axis (the value
    /// filling in its conditions): one condition per value, named by it,
    /// holding where every condition of the measure there holds.
    Each {
        /// The measure's id.
        id: String,
        /// The axis.
        axis: String,
        /// A condition measure.
        of: String,
    },
    /// How many conditions of a condition measure hold: one number.
    Held {
        /// The measure's id.
        id: String,
        /// A condition measure.
        of: String,
    },
    /// Arithmetic on two operands, each a number or a measure: one number
    /// from one-number operands, or, with `by`, one value per value of the
    /// axis (an operand taken `by` that axis value by value, a one-number
    /// operand the same at every value). Means are combined, not runs: a
    /// value along the axis has no spread.
    Arithmetic {
        /// The measure's id.
        id: String,
        /// The operation, `a op b`.
        op: Op,
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// A named Rust measure ([`named`]), with its parameters.
    Named {
        /// The measure's id.
        id: String,
        /// The name.
        name: String,
        /// Its parameters.
        #[serde(default)]
        params: toml::Table,
    },
    /// One number from a one-number measure taken at each value of an
    /// axis (the value filling in its conditions): the largest, the least
    /// or the mean of those with a number.
    AcrossAxis {
        /// The measure's id.
        id: String,
        /// The axis.
        axis: String,
        /// A one-number measure.
        of: String,
        /// The axis values taken (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Which number.
        take: Take,
    },
    /// The largest of several one-number measures (those with a number;
    /// NaN if none has one).
    Most {
        /// The measure's id.
        id: String,
        /// The measures, by id.
        of: Vec<String>,
    },
    /// A condition measure taken at each value of an axis (the value
    /// filling in its conditions), every condition kept: one condition per
    /// value and condition of the measure there, named by `label`.
    PerValue {
        /// The measure's id.
        id: String,
        /// The axis.
        axis: String,
        /// The axis values taken, in the order given (default: all; a
        /// value the sweep lacks is left out).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// A condition measure.
        of: String,
        /// The conditions' names: `{value}` is the axis value's label,
        /// `{condition}` the condition's name in the measure.
        #[serde(default = "per_value_label")]
        label: String,
    },
    /// One condition per axis value of `targets`: the value of a measure
    /// taken `by` the axis lies within the claim's margin of its target,
    /// `|x - target| <= margin`, named by the value's label.
    Near {
        /// The measure's id.
        id: String,
        /// A measure with `by`.
        of: String,
        /// The target of each axis value checked.
        targets: BTreeMap<String, f64>,
        /// How far from its target a value may lie (default: the claim's
        /// margin).
        #[serde(default)]
        band: NearBand,
        /// The conditions' names (default `{value}`, the value's label;
        /// `{raw}` is the value as the sweep writes it).
        #[serde(default = "near_label")]
        label: String,
    },
    /// Numbers recorded outside the simulator, from a CSV file kept in
    /// the repository (dash.js itself on a run's path, say): information
    /// beside the runs' numbers, for tables and figures; see
    /// [`RecordedTable`].
    Recorded {
        /// The measure's id.
        id: String,
        /// The CSV file, from the repository root.
        file: String,
        /// The column holding the numbers (empty: not run).
        value: String,
        /// The rows taken: column = value.
        #[serde(default)]
        rows: BTreeMap<String, String>,
        /// Sweep axis = the column holding its value: where the context
        /// (a table row) fixes the axis, a row must hold its value.
        keys: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The conditions of a condition measure renamed: `label` with
    /// `{label}` replaced by each condition's own name.
    Relabel {
        /// The measure's id.
        id: String,
        /// A condition measure.
        of: String,
        /// The new name, `{label}` standing for the old one.
        label: String,
    },
    /// A statistic of a time series over a window given as fractions of
    /// the run's length (`sim_time_s`), `[from_run, to_run]`, the end
    /// included; of the series' means over `bin_s` intervals (placed at
    /// their centres) when given, and with a sample of 0 as a gap when
    /// `zero_unset` (a controller's bound that is unset); per run, mean and
    /// spread over seeds.
    RunWindow {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// Which statistic of the window's samples.
        take: WindowTake,
        /// Window start, a fraction of the run's length.
        from_run: f64,
        /// Window end, a fraction of the run's length (included).
        to_run: f64,
        /// The width of the intervals whose means are taken first, s.
        #[serde(default)]
        bin_s: Option<f64>,
        /// Whether a sample of 0 is a gap (an unset bound).
        #[serde(default)]
        zero_unset: bool,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
}

/// The default name of a [`Measure::PerValue`] condition.
pub(super) fn per_value_label() -> String {
    "{value}: {condition}".into()
}

/// The default name of a [`Measure::Near`] condition: the value's label.
pub(super) fn near_label() -> String {
    "{value}".into()
}

/// How far from its target a [`Measure::Near`] value may lie.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NearBand {
    /// Within the claim's margin, in the measure's unit.
    #[default]
    Margin,
    /// Within the rule for point numbers: `claims::rules::POINT_REL` of
    /// the target (a paper's number read as a point, condition by
    /// condition; the claim's margin is not used).
    Point,
}

impl NearBand {
    /// The largest distance from `target` that holds, with the claim's `margin`.
    pub(super) fn within(self, target: f64, margin: f64) -> f64 {
        match self {
            NearBand::Margin => margin,
            NearBand::Point => crate::reproduce::claims::rules::POINT_REL * target.abs(),
        }
    }
}

impl Measure {
    /// The measure's id.
    pub fn id(&self) -> &str {
        match self {
            Measure::Mean { id, .. }
            | Measure::Ratio { id, .. }
            | Measure::Difference { id, .. }
            | Measure::Harm { id, .. }
            | Measure::Compare { id, .. }
            | Measure::Direction { id, .. }
            | Measure::Count { id, .. }
            | Measure::WindowMean { id, .. }
            | Measure::Window { id, .. }
            | Measure::FirstCrossing { id, .. }
            | Measure::Quantile { id, .. }
            | Measure::Jain { id, .. }
            | Measure::Least { id, .. }
            | Measure::Condition { id, .. }
            | Measure::Across { id, .. }
            | Measure::All { id, .. }
            | Measure::Each { id, .. }
            | Measure::Held { id, .. }
            | Measure::Arithmetic { id, .. }
            | Measure::Named { id, .. }
            | Measure::AcrossAxis { id, .. }
            | Measure::Most { id, .. }
            | Measure::PerValue { id, .. }
            | Measure::Near { id, .. }
            | Measure::Recorded { id, .. }
            | Measure::Relabel { id, .. }
            | Measure::RunWindow { id, .. } => id,
        }
    }

    /// The measure another one refers to, if any.
    pub(super) fn refers_to(&self) -> Option<&str> {
        match self {
            Measure::Compare { of, .. }
            | Measure::Direction { of, .. }
            | Measure::Count { of, .. }
            | Measure::Across { of, .. }
            | Measure::Near { of, .. } => Some(of),
            _ => None,
        }
    }

    pub(super) fn by(&self) -> Option<&str> {
        match self {
            Measure::Mean { by, .. }
            | Measure::Ratio { by, .. }
            | Measure::Difference { by, .. }
            | Measure::WindowMean { by, .. }
            | Measure::Window { by, .. }
            | Measure::FirstCrossing { by, .. }
            | Measure::Arithmetic { by, .. }
            | Measure::Jain { by, .. }
            | Measure::Across { by, .. }
            | Measure::Recorded { by, .. }
            | Measure::Harm { by, .. }
            | Measure::RunWindow { by, .. } => by.as_deref(),
            _ => None,
        }
    }

    /// Whether it gives conditions (a claim's `direction` test, `all`,
    /// `each`, `held` and preconditions take them).
    pub(super) fn gives_conditions(&self) -> bool {
        matches!(
            self,
            Measure::Compare { .. }
                | Measure::Direction { .. }
                | Measure::Count { .. }
                | Measure::Condition { .. }
                | Measure::All { .. }
                | Measure::Each { .. }
                | Measure::PerValue { .. }
                | Measure::Near { .. }
                | Measure::Relabel { .. }
        )
    }

    /// The quantity it reads from the runs' results, if any.
    pub(super) fn quantity(&self) -> Option<&Quantity> {
        match self {
            Measure::Mean { of, .. }
            | Measure::Ratio { of, .. }
            | Measure::Difference { of, .. }
            | Measure::Harm { of, .. }
            | Measure::Quantile { of, .. } => Some(of),
            _ => None,
        }
    }

    /// The series it reads from the runs' series files.
    pub(super) fn series(&self) -> Vec<&SeriesColumn> {
        match self {
            Measure::WindowMean { series, per, .. } => std::iter::once(series).chain(per).collect(),
            Measure::Window { series, .. }
            | Measure::FirstCrossing { series, .. }
            | Measure::RunWindow { series, .. } => vec![series],
            _ => Vec::new(),
        }
    }
}

/// What a measure gives.
#[derive(Clone, Debug)]
pub enum Value {
    /// Mean and spread over seeds.
    Stat(Stat),
    /// One number.
    Number(f64),
    /// One [`Stat`] per value of an axis: `(value, its label, stat)`.
    ByAxis(Vec<(String, String, Stat)>),
    /// Conditions, `(label, holds)`.
    Conditions(Vec<(String, bool)>),
}

impl Value {
    pub(super) fn measured(&self) -> Measured {
        match self {
            Value::Stat(s) => Measured::Value(s.mean),
            Value::Number(v) => Measured::Value(*v),
            Value::Conditions(c) => Measured::conditions(c.iter().map(|(l, ok)| (l.as_str(), *ok))),
            Value::ByAxis(_) => Measured::NotRun("the measure is taken along an axis".into()),
        }
    }
}
