//! `[[figure]]`, `[[timeline]]` and `[[curve]]`: the figures a file draws
//! from its measures (bars per axis value, time series of chosen runs, lines
//! over a numeric axis), with their reference lines.

use std::collections::BTreeMap;

use report::{Figure, Line, LineStyle, ReferenceLine};
use serde::Deserialize;

use super::*;
use crate::reproduce::data::Runs;
use crate::stats::{self, Stat};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FigureSpec {
    pub(super) title: String,
    pub(super) measure: String,
    pub(super) x_label: String,
    pub(super) y_label: String,
    #[serde(default = "one")]
    pub(super) scale: f64,
    #[serde(default)]
    pub(super) series: Option<String>,
    /// An axis whose values are the bar groups (the measure must then be
    /// a `mean` measure).
    #[serde(default)]
    pub(super) groups: Option<String>,
    #[serde(default)]
    pub(super) reference: Option<ReferenceSpec>,
    /// Error bars (± sd) on grouped bars (bars of one series always have
    /// them).
    #[serde(default)]
    pub(super) errors: bool,
    /// The vertical axis' range, `[min, max]`.
    #[serde(default)]
    pub(super) y_range: Option<[f64; 2]>,
    /// The title without the seeds note.
    #[serde(default = "yes")]
    pub(super) seeds_note: bool,
    /// A logarithmic vertical axis.
    #[serde(default)]
    pub(super) log_y: bool,
    /// Display names of the categories' (the `by` axis') values in this
    /// figure, over the file's `[labels]`.
    #[serde(default)]
    pub(super) x_labels: BTreeMap<String, String>,
}

/// A horizontal reference line: at an axis value's bar (`at`), at a
/// value (`y`) or at a one-number measure's number (`measure`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReferenceSpec {
    /// The axis value whose bar the line is drawn at.
    #[serde(default)]
    pub(super) at: Option<String>,
    /// The value the line is drawn at (in the figure's scale).
    #[serde(default)]
    pub(super) y: Option<f64>,
    pub(super) label: String,
    /// The one-number measure whose number (times the figure's scale) the
    /// line is drawn at: a number of the runs, such as the link's capacity.
    #[serde(default)]
    pub(super) measure: Option<String>,
}

/// A figure of time series of one run each (`[[timeline]]`): the first
/// run (in the sweep's order: the first seed) at the figure's `at` plus
/// each line's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimelineSpec {
    pub(super) title: String,
    #[serde(default)]
    pub(super) at: BTreeMap<String, String>,
    #[serde(default = "time_label")]
    pub(super) x_label: String,
    pub(super) y_label: String,
    pub(super) lines: Vec<LineSpec>,
    #[serde(default)]
    pub(super) y_range: Option<[f64; 2]>,
    /// Horizontal reference lines at values.
    #[serde(default)]
    pub(super) reference: Vec<ValueLine>,
    /// Draw from this time on (s; the horizontal axis starts here).
    #[serde(default)]
    pub(super) from_s: Option<f64>,
    /// Draw up to this time (s; the horizontal axis ends here).
    #[serde(default)]
    pub(super) to_s: Option<f64>,
}

pub(super) fn time_label() -> String {
    "time (s)".into()
}

/// A horizontal line at a value.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ValueLine {
    pub(super) y: f64,
    pub(super) label: String,
}

/// A line figure of a `mean` measure over a numeric axis (`[[curve]]`):
/// one line per value of the `lines` axis, one point per value of the
/// measure's `by` axis, placed at the number the value starts with
/// (`"0.2bdp"`: 0.2, `"40ms"`: 40), with ± sd whiskers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CurveSpec {
    pub(super) title: String,
    /// A `mean` measure taken `by` the horizontal axis.
    pub(super) measure: String,
    /// The axis whose values are the lines.
    pub(super) lines: String,
    /// Each line's legend, `{}` standing for the value's label (default:
    /// the label).
    #[serde(default)]
    pub(super) line_label: Option<String>,
    /// Parameters every point fixes (`{ "link.rtt" = "10ms" }`).
    #[serde(default)]
    pub(super) at: BTreeMap<String, String>,
    pub(super) x_label: String,
    pub(super) y_label: String,
    #[serde(default = "one")]
    pub(super) scale: f64,
    /// Whiskers of ± one sd at each point (drawn when a point has two
    /// runs or more), each line's a little to the right of the previous.
    #[serde(default)]
    pub(super) errors: bool,
    /// The vertical axis' range, `[min, max]`; the top is raised to the
    /// highest whisker.
    #[serde(default)]
    pub(super) y_range: Option<[f64; 2]>,
    /// Horizontal lines.
    #[serde(default)]
    pub(super) reference: Vec<ValueLine>,
}

/// One line of a [`TimelineSpec`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LineSpec {
    pub(super) label: String,
    pub(super) series: SeriesColumn,
    /// Parameters of the run drawn, beside the figure's.
    #[serde(default)]
    pub(super) at: BTreeMap<String, String>,
    #[serde(default = "one")]
    pub(super) scale: f64,
    /// A cumulative column (`delivered`) drawn as its rate per interval
    /// of this many seconds.
    #[serde(default)]
    pub(super) rate_per_s: Option<f64>,
    #[serde(default)]
    pub(super) style: Style,
}

/// How a line is drawn.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum Style {
    #[default]
    Solid,
    Dashed,
    Step,
}

impl ExperimentFile {
    /// A `[[timeline]]` figure: series of the first run at each line's
    /// parameters.
    pub(super) fn timeline(&self, runs: &Runs, t: &TimelineSpec) -> Figure {
        let mut lines = Vec::new();
        for l in &t.lines {
            let mut at = t.at.clone();
            at.extend(l.at.iter().map(|(k, v)| (k.clone(), v.clone())));
            let fixed: Vec<(&str, &str)> =
                at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let Some(record) = runs.one(&fixed) else {
                continue;
            };
            let Ok(points) = self.series_points(runs, record, &l.series) else {
                continue;
            };
            let points = match l.rate_per_s {
                Some(bin_s) => stats::binned_rate(&points, bin_s),
                None => points,
            };
            let (from, to) = (
                t.from_s.unwrap_or(f64::NEG_INFINITY),
                t.to_s.unwrap_or(f64::INFINITY),
            );
            let points = points
                .into_iter()
                .filter(|(t, _)| (from..=to).contains(t))
                .map(|(t, v)| (t, v * l.scale))
                .collect();
            let style = match l.style {
                Style::Solid => LineStyle::Solid,
                Style::Dashed => LineStyle::Dashed,
                Style::Step => LineStyle::Step,
            };
            lines.push(Line::new(l.label.clone(), points).style(style));
        }
        let mut figure =
            Figure::lines(t.title.clone(), t.x_label.clone(), t.y_label.clone(), lines);
        if let Some([lo, hi]) = t.y_range {
            figure = figure.y_range(lo, hi);
        }
        if let (Some(from), Some(to)) = (t.from_s, t.to_s) {
            figure = figure.x_range(from, to);
        }
        for r in &t.reference {
            figure = figure.reference(ReferenceLine::horizontal(r.y, r.label.clone()));
        }
        figure
    }

    /// A `[[curve]]` figure (none if no line has a point); an axis value
    /// that is not a number is left out and named in `problems`.
    pub(super) fn curve(
        &self,
        runs: &Runs,
        c: &CurveSpec,
        problems: &mut Vec<String>,
    ) -> Option<Figure> {
        let by = self.measure(&c.measure).and_then(Measure::by).unwrap_or("");
        let mut xs = Vec::new();
        for v in runs.axis_values(by) {
            match v.number() {
                Some(x) => xs.push((v.into_label(), x)),
                None => problems.push(format!(
                    "curve \"{}\": the {by} value `{v}` is not a number",
                    c.title
                )),
            }
        }
        let lines: Vec<(String, Vec<(f64, Stat)>)> = runs
            .axis(&c.lines)
            .into_iter()
            .map(|l| {
                let label = self.label(&c.lines, &l);
                let label = match &c.line_label {
                    Some(f) => f.replace("{}", &label),
                    None => label,
                };
                let mut fixed: Vec<(&str, &str)> =
                    c.at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                fixed.push((&c.lines, &l));
                let points = xs
                    .iter()
                    .filter_map(|(v, x)| {
                        let mut at = fixed.clone();
                        at.push((by, v));
                        let s = self.mean_at(runs, &c.measure, &at);
                        (s.n > 0).then_some((*x, s))
                    })
                    .collect();
                (label, points)
            })
            .collect();
        let mut figure_lines: Vec<Line> = lines
            .iter()
            .map(|(label, points)| {
                Line::new(
                    label.clone(),
                    points.iter().map(|(x, s)| (*x, s.mean * c.scale)).collect(),
                )
            })
            .collect();
        if lines.iter().all(|(_, p)| p.is_empty()) {
            return None;
        }
        let spread = lines.iter().any(|(_, p)| p.iter().any(|(_, s)| s.n > 1));
        let mut top = f64::NEG_INFINITY;
        for (i, (label, points)) in lines.iter().enumerate() {
            let mut whiskers = Vec::new();
            for (x, s) in points {
                let sd = if s.sd.is_finite() { s.sd } else { 0.0 };
                top = top.max((s.mean + sd) * c.scale);
                // A small offset per line keeps the whiskers apart.
                let x = x + 0.04 * i as f64;
                whiskers.push((x, (s.mean - sd) * c.scale));
                whiskers.push((x, (s.mean + sd) * c.scale));
                whiskers.push((f64::NAN, f64::NAN));
            }
            if c.errors && spread {
                figure_lines.push(Line::new("", whiskers).colour_of(label.clone()));
            }
        }
        let mut figure = Figure::lines(
            c.title.clone(),
            c.x_label.clone(),
            c.y_label.clone(),
            figure_lines,
        );
        if let Some([lo, hi]) = c.y_range {
            figure = figure.y_range(lo, if c.errors { hi.max(top) } else { hi });
        }
        for r in &c.reference {
            figure = figure.reference(ReferenceLine::horizontal(r.y, r.label.clone()));
        }
        Some(figure)
    }

    /// The number of a reference line's `measure`, times `scale` (none
    /// without a measure, or where it has no finite number).
    pub(super) fn reference_number(
        &self,
        runs: &Runs,
        r: &ReferenceSpec,
        scale: f64,
    ) -> Option<f64> {
        let number = match self.evaluate(runs, r.measure.as_ref()?, 0.0).ok()? {
            Value::Number(v) => v,
            Value::Stat(s) => s.mean,
            _ => return None,
        };
        (number * scale).is_finite().then_some(number * scale)
    }
}
