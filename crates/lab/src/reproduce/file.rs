//! Experiments as files: one TOML file holds an experiment's sweep (a
//! scenario sweep file it names), the measures it takes from the runs, its
//! tables and figures, and its claims. docs/EXPERIMENTS.md documents every
//! key; this module parses a file, computes its measures from the runs and
//! judges its claims by the rules of [`super::claims`] (the same kinds,
//! bands and origins as the claims declared in Rust: a file can only pick
//! a kind and give the paper's number or the project's bar).
//!
//! Measures come from a closed set of typed primitives ([`Measure`]); an
//! analysis that needs more is a named Rust measure ([`named`]) the file
//! refers to by name. A file's SHA-256 is recorded in its report section
//! and in claims.json, so a tolerance cannot change unseen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use report::{BarGroup, Cell, Figure, ReferenceLine, Section, Table};
use serde::Deserialize;

use super::claims::{Claim, Judged, Measured};
use super::data::{seeds_note, Runs};
use super::verdict::paper_name;
use super::Analysis;
use crate::stats::Stat;

mod claim;
mod evaluate;
mod figure;
mod measure;
mod named;
mod not_run;
mod parse;
mod quantity;
mod recorded;
mod shared;
mod table;
mod tree;

pub use self::measure::{Measure, NearBand, Value};
pub(crate) use self::named::{at_param, number_param};
pub use self::named::{named, NamedMeasure, NAMED};
pub use self::not_run::NotRunFile;
pub use self::parse::sha256_hex;
pub(crate) use self::quantity::column_named;
pub use self::quantity::{
    Aggregate, FlowSel, Holds, LinkWord, Metric, Op, Operand, Quantity, SeriesColumn, SeriesName,
    SeriesOf, SeriesSource, Take, Way, WindowTake,
};
pub use self::recorded::RecordedTable;
use self::{claim::*, evaluate::*, figure::*, parse::*, table::*, tree::*};

/// The file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    id: String,
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    scenario: Option<String>,
    #[serde(default)]
    sweep: Option<String>,
    #[serde(default)]
    series: bool,
    #[serde(default)]
    all_reproduced: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default, rename = "measure")]
    measures: Vec<Measure>,
    #[serde(default, rename = "table")]
    tables: Vec<TableSpec>,
    #[serde(default, rename = "figure")]
    figures: Vec<FigureSpec>,
    #[serde(default, rename = "timeline")]
    timelines: Vec<TimelineSpec>,
    #[serde(default, rename = "claim")]
    claims: Vec<ClaimSpec>,
    /// Judge every claim once per value of an axis (each value filling
    /// in the claims' measures), value by value.
    #[serde(default)]
    judge_at: Option<JudgeAt>,
    /// Line figures of a measure over a numeric axis (`[[curve]]`).
    #[serde(default, rename = "curve")]
    curves: Vec<CurveSpec>,
    /// Another experiment file whose measures, tables, figures and claims
    /// come first in this one (a second sweep of the same shape).
    #[serde(default)]
    extends: Option<String>,
    /// Experiment files whose claims `judge` may name (claims declared
    /// once, judged by several experiments).
    #[serde(default)]
    claims_from: Vec<String>,
    /// Measures taken from other files, their axes renamed
    /// (`[[measures_from]]`: a sweep over another axis measured the same way).
    #[serde(default)]
    measures_from: Vec<MeasuresFrom>,
    /// The claims judged, in order, by id: this file's, an extended
    /// file's and those of `claims_from` (default: this file's own and
    /// its extended file's, in order).
    #[serde(default)]
    judge: Option<Vec<String>>,
    /// Classification trees fitted to the runs (`[[tree]]`).
    #[serde(default, rename = "tree")]
    trees: Vec<TreeSpec>,
}

/// Measures of another experiment file taken into this one
/// (`[[measures_from]]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MeasuresFrom {
    /// The file, beside this one.
    file: String,
    /// The ids of the measures taken, which come in this order before
    /// this file's own.
    ids: Vec<String>,
    /// Axis names replaced in the taken measures (`{ "link.loss" =
    /// "link.buffer" }`): wherever a taken measure names the axis, as a
    /// key (`at`, `a`, `b`) or a value (`by`, `axis`).
    #[serde(default)]
    axes: BTreeMap<String, String>,
}

/// The values of an axis every claim is judged at.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeAt {
    axis: String,
    values: Vec<String>,
}

fn yes() -> bool {
    true
}

/// Where an experiment's sweep comes from.
#[derive(Clone, Debug)]
enum SweepSource {
    /// A scenario sweep file, relative to the scenarios directory.
    Scenarios(String),
    /// A sweep file, relative to the experiment file's directory.
    Beside(PathBuf),
}

/// A parsed experiment file.
#[derive(Clone, Debug)]
pub struct ExperimentFile {
    /// The file's name as given (a path, or the repository path of a suite's).
    pub name: String,
    /// The SHA-256 of its bytes, hex.
    pub sha256: String,
    spec: Spec,
    source: SweepSource,
    /// Each claim, the measure it is judged on and its precondition's.
    claims: Vec<(&'static Claim, String, Option<String>)>,
    /// The rows of each `recorded` measure, by its id.
    recorded: BTreeMap<String, RecordedTable>,
}

impl ExperimentFile {
    /// Reads and parses the experiment file at `path`.
    pub fn load(path: &Path) -> anyhow::Result<ExperimentFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read experiment file {}", path.display()))?;
        ExperimentFile::parse(&path.display().to_string(), &text, path.parent())
    }

    /// Parses an experiment file's `text`; `name` names it in errors and in
    /// the report; `dir` is its directory (for a `sweep` beside it).
    pub fn parse(name: &str, text: &str, dir: Option<&Path>) -> anyhow::Result<ExperimentFile> {
        Self::parse_within(name, text, dir, 0)
    }

    /// The experiment's id: its store directory and section anchor.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// Whether its measures need the runs' time series.
    pub fn series(&self) -> bool {
        self.spec.series
    }

    /// Its sweep file, as the report names it.
    pub fn scenario_label(&self) -> String {
        match &self.source {
            SweepSource::Scenarios(s) => format!("scenarios/{s}"),
            SweepSource::Beside(p) => p.display().to_string(),
        }
    }

    /// Its sweep, in full or shortened (`fast`).
    pub fn sweep(&self, scenarios: &Path, fast: bool) -> anyhow::Result<scenario::Sweep> {
        let path = match &self.source {
            SweepSource::Scenarios(s) => scenarios.join(s),
            SweepSource::Beside(p) => p.clone(),
        };
        let sweep = scenario::load_sweep(&path, &[])?;
        Ok(if fast { sweep.fast()? } else { sweep })
    }

    /// The display label of an axis value: the file's `[labels]`, else
    /// the papers' name of a controller (on a `.cc` axis), else the value.
    fn label(&self, axis: &str, value: &str) -> String {
        if let Some(l) = self.spec.labels.get(value) {
            return l.clone();
        }
        if axis.ends_with(".cc") {
            paper_name(value)
        } else {
            value.to_string()
        }
    }

    fn measure(&self, id: &str) -> Option<&Measure> {
        self.spec.measures.iter().find(|m| m.id() == id)
    }

    /// The value of measure `id` on `runs`; `margin` is the judged claim's.
    pub fn evaluate(&self, runs: &Runs, id: &str, margin: f64) -> anyhow::Result<Value> {
        self.evaluate_in(runs, id, margin, &[])
    }

    /// The value of measure `id` on `runs` in a context: sweep parameters
    /// (a table row's) that fill in every condition of the measure on the
    /// keys it does not fix itself.
    pub fn evaluate_in(
        &self,
        runs: &Runs,
        id: &str,
        margin: f64,
        context: &[(String, String)],
    ) -> anyhow::Result<Value> {
        let m = self
            .measure(id)
            .with_context(|| format!("no measure `{id}`"))?;
        self.evaluate_measure(runs, m, margin, context)
    }

    /// The file judged on another sweep, under another id, title and
    /// description ([`super::Retargeted`]: the quick tour's shortened
    /// version of a suite's experiment).
    pub fn retarget(mut self, to: &super::Retargeted) -> ExperimentFile {
        self.spec.id = to.id.to_string();
        self.spec.title = to.title.to_string();
        self.spec.description = to.description.to_string();
        self.spec.all_reproduced = to.all_reproduced.to_string();
        self.spec.scenario = Some(to.scenario.to_string());
        self.source = SweepSource::Scenarios(to.scenario.to_string());
        self
    }

    /// The report section and the judged claims of the experiment on `runs`.
    pub fn analyze(&self, runs: &Runs) -> Analysis {
        let note = seeds_note(runs);
        let noted = |title: &str, with: bool| {
            if title.contains("{seeds}") {
                title.replace("{seeds}", &note)
            } else if with {
                format!("{title} ({note})")
            } else {
                title.to_string()
            }
        };
        let mut section = Section::new(self.spec.id.clone(), self.spec.title.clone())
            .description(self.spec.description.trim().replace("{seeds}", &note));
        let mut problems = Vec::new();
        let along = |id: &str, problems: &mut Vec<String>| -> Vec<(String, String, Stat)> {
            match self.evaluate(runs, id, 0.0) {
                Ok(Value::ByAxis(v)) => v,
                Ok(_) => Vec::new(),
                Err(e) => {
                    problems.push(format!("{id}: {e:#}"));
                    Vec::new()
                }
            }
        };
        for t in &self.spec.timelines {
            section = section.figure(self.timeline(runs, t));
        }
        for f in self.spec.figures.iter().filter(|f| f.groups.is_some()) {
            let (Some(groups), Some(Measure::Mean { by: Some(by), .. })) =
                (&f.groups, self.measure(&f.measure))
            else {
                continue;
            };
            let xs = runs.axis(by);
            let bars: Vec<BarGroup> = runs
                .axis(groups)
                .iter()
                .map(|g| {
                    let stats: Vec<Stat> = xs
                        .iter()
                        .map(|x| self.mean_at(runs, &f.measure, &[(by, x), (groups, g)]))
                        .collect();
                    let bars = BarGroup::new(
                        self.label(groups, g),
                        stats.iter().map(|s| s.mean * f.scale).collect(),
                    );
                    if f.errors {
                        bars.errors(stats.iter().map(|s| s.sd * f.scale).collect())
                    } else {
                        bars
                    }
                })
                .collect();
            let mut figure = Figure::bars(
                noted(&f.title, f.seeds_note),
                f.x_label.clone(),
                f.y_label.clone(),
                xs.iter().map(|x| {
                    f.x_labels
                        .get(x)
                        .cloned()
                        .unwrap_or_else(|| self.label(by, x))
                }),
                bars,
            );
            if let Some([lo, hi]) = f.y_range {
                figure = figure.y_range(lo, hi);
            }
            if f.log_y {
                figure = figure.log_y();
            }
            if let Some(r) = &f.reference {
                if let Some(y) = r.y.or_else(|| self.reference_number(runs, r, f.scale)) {
                    figure = figure.reference(ReferenceLine::horizontal(y, r.label.clone()));
                }
            }
            section = section.figure(figure);
        }
        for f in self.spec.figures.iter().filter(|f| f.groups.is_none()) {
            let values = along(&f.measure, &mut problems);
            let reference = f.reference.as_ref().and_then(|r| match (&r.at, r.y) {
                (_, Some(y)) => Some(y),
                (None, None) if r.measure.is_some() => self.reference_number(runs, r, f.scale),
                (Some(at), None) => values
                    .iter()
                    .find(|(v, _, _)| v == at)
                    .map(|(_, _, s)| s.mean * f.scale),
                (None, None) => None,
            });
            let mut figure = Figure::bars(
                noted(&f.title, f.seeds_note),
                f.x_label.clone(),
                f.y_label.clone(),
                values
                    .iter()
                    .map(|(v, l, _)| f.x_labels.get(v).unwrap_or(l).clone()),
                vec![BarGroup::new(
                    f.series.clone().unwrap_or_else(|| f.measure.clone()),
                    values.iter().map(|(_, _, s)| s.mean * f.scale).collect(),
                )
                .errors(values.iter().map(|(_, _, s)| s.sd * f.scale).collect())],
            );
            if let Some([lo, hi]) = f.y_range {
                figure = figure.y_range(lo, hi);
            }
            if f.log_y {
                figure = figure.log_y();
            }
            if let (Some(y), Some(r)) = (reference, &f.reference) {
                figure = figure.reference(ReferenceLine::horizontal(y, r.label.clone()));
            }
            section = section.figure(figure);
        }
        for c in &self.spec.curves {
            if let Some(figure) = self.curve(runs, c, &mut problems) {
                section = section.figure(figure);
            }
        }
        for t in &self.spec.trees {
            section = self.tree(
                runs,
                t,
                &noted(&t.title, t.seeds_note),
                section,
                &mut problems,
            );
        }
        for t in &self.spec.tables {
            let mut headers = t.first.list();
            headers.extend(t.columns.iter().map(|c| c.header.clone()));
            let mut table = Table::new(noted(&t.title, t.seeds_note), headers);
            // Rows of parameters: given one by one, or every combination
            // of several axes' values.
            let rows: Option<Vec<RowSpec>> = match (&t.by, &t.rows) {
                (_, Some(rows)) => Some(rows.clone()),
                (Some(Headers::Several(axes)), None) => {
                    let mut rows = vec![RowSpec {
                        cells: Vec::new(),
                        at: BTreeMap::new(),
                    }];
                    for axis in axes {
                        rows = rows
                            .into_iter()
                            .flat_map(|r| {
                                runs.axis(axis).into_iter().map(move |v| {
                                    let mut r = r.clone();
                                    r.cells.push(self.label(axis, &v));
                                    r.at.insert(axis.clone(), v);
                                    r
                                })
                            })
                            .collect();
                    }
                    Some(rows)
                }
                _ => None,
            };
            let by = match &t.by {
                Some(Headers::One(by)) => Some(by),
                _ => None,
            };
            match (by, &t.then, &rows) {
                (Some(by), Some(then), _) => {
                    for v in runs.axis(by) {
                        for w in runs.axis(then) {
                            let mut row = vec![Cell::text(format!(
                                "{}, {}",
                                self.label(then, &w),
                                self.label(by, &v)
                            ))];
                            for c in &t.columns {
                                let s = self.mean_at(
                                    runs,
                                    &c.measure,
                                    &[(by.as_str(), v.as_str()), (then, w.as_str())],
                                );
                                row.push(c.format.cell(s, c.scale, c.decimals));
                            }
                            table = table.row(row);
                        }
                    }
                }
                (Some(by), None, None) => {
                    let columns: Vec<Vec<(String, String, Stat)>> = t
                        .columns
                        .iter()
                        .map(|c| along(&c.measure, &mut problems))
                        .collect();
                    for value in runs.axis(by) {
                        let mut row = vec![Cell::text(self.label(by, &value))];
                        for (c, values) in t.columns.iter().zip(&columns) {
                            let at = |v: &str| {
                                values.iter().find(|(x, _, _)| x == v).map(|(_, _, s)| *s)
                            };
                            let cell = match (at(&value), &c.minus) {
                                (None, _) => Cell::text("—"),
                                (Some(s), None) => c.format.cell(s, c.scale, c.decimals),
                                (Some(s), Some(r)) => match at(r) {
                                    Some(r) if s.mean.is_finite() && r.mean.is_finite() => {
                                        Cell::fixed((s.mean - r.mean) * c.scale, c.decimals as u8)
                                    }
                                    _ => Cell::text("—"),
                                },
                            };
                            row.push(cell);
                        }
                        table = table.row(row);
                    }
                }
                (_, _, Some(rows)) => {
                    for r in rows {
                        let context: Vec<(String, String)> =
                            r.at.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                        let mut row: Vec<Cell> = r.cells.iter().map(Cell::text).collect();
                        for c in &t.columns {
                            let s = match self.evaluate_in(runs, &c.measure, 0.0, &context) {
                                Ok(Value::Stat(s)) => s,
                                Ok(Value::Number(v)) => Stat::of(&[v]),
                                Ok(_) => Stat::of(&[]),
                                Err(e) => {
                                    problems.push(format!("{}: {e:#}", c.measure));
                                    Stat::of(&[])
                                }
                            };
                            row.push(c.format.cell(s, c.scale, c.decimals));
                        }
                        table = table.row(row);
                    }
                }
                (None, _, None) => {}
            }
            section = section.table(table);
        }
        let judge = |context: &[(String, String)]| -> Vec<Judged> {
            self.claims
                .iter()
                .map(|(claim, measure, precondition)| {
                    self.judge(runs, claim, measure, precondition.as_deref(), context)
                })
                .collect()
        };
        let judged: Vec<Judged> = match &self.spec.judge_at {
            None => judge(&[]),
            Some(at) => {
                let axis = runs.axis(&at.axis);
                at.values
                    .iter()
                    .flat_map(|v| {
                        let label = self.label(&at.axis, v);
                        let judged = if axis.contains(v) {
                            judge(&[(at.axis.clone(), v.clone())])
                        } else {
                            self.claims
                                .iter()
                                .map(|(claim, _, _)| {
                                    claim.judge(Measured::NotRun(format!(
                                        "the sweep has no {label}"
                                    )))
                                })
                                .collect()
                        };
                        judged.into_iter().map(move |j| Judged {
                            ours: format!("{label}: {}", j.ours),
                            ..j
                        })
                    })
                    .collect()
            }
        };
        if !problems.is_empty() {
            section.description.push_str(&format!(
                " Measures that could not be taken: {}.",
                problems.join("; ")
            ));
        }
        section.description.push_str(&format!(
            " Experiment file: {} (sha256 {}).",
            self.name, self.sha256
        ));
        Analysis::judged(section, judged, &self.spec.all_reproduced)
    }
}

#[cfg(test)]
mod tests;
