//! What an experiment's analysis reads: the runs of its sweep, by parameter.

use std::path::{Path, PathBuf};

use scenario::AxisValue;

pub use crate::stats::{mean_sd, Stat};
use crate::store::{record_defect, RunRecord, Store};

/// The runs of one experiment, in sweep order, with their parameters.
pub struct Runs {
    /// (sweep point parameters, record) per point that has a record.
    pub points: Vec<(Vec<(String, AxisValue)>, RunRecord)>,
    /// Values of each axis, in file order.
    pub axes: Vec<scenario::Axis>,
    /// The experiment's store directory.
    pub dir: PathBuf,
    /// Points without a record (failed or not run).
    pub missing: usize,
    /// Records left out because they are unusable: `(file, why)`.
    pub rejected: Vec<(PathBuf, String)>,
}

impl Runs {
    /// Collects the records of `ids` (a sweep's points and their run ids)
    /// from the store in `dir`; records of other sweeps there are ignored.
    /// A record that cannot be trusted (see [`record_defect`]), or whose
    /// time series is truncated or garbled when `series` is needed, is left
    /// out and listed in `rejected` with the reason.
    pub fn collect(
        dir: &Path,
        axes: Vec<scenario::Axis>,
        ids: &[(scenario::SweepPoint, String)],
        series: bool,
    ) -> anyhow::Result<Runs> {
        let store = Store::open(dir)?;
        let mut runs = Runs {
            points: Vec::new(),
            axes,
            dir: dir.to_path_buf(),
            missing: 0,
            rejected: Vec::new(),
        };
        for (point, id) in ids {
            let Some(record) = store.get(id) else {
                runs.missing += 1;
                continue;
            };
            let defect = record_defect(&record).map(|why| (store.record_path(id), why));
            let defect = defect.or_else(|| series.then(|| runs.series_defect(&record)).flatten());
            match defect {
                Some(rejected) => runs.rejected.push(rejected),
                None => runs.points.push((point.params.clone(), record)),
            }
        }
        Ok(runs)
    }

    /// Why a run's time series cannot be read, if it cannot: a file is
    /// missing, a row does not fit the simulator's row type (a column is
    /// missing or garbled, a CSV line is short or long: truncated), or a
    /// time is not a finite, non-decreasing number.
    fn series_defect(&self, record: &RunRecord) -> Option<(PathBuf, String)> {
        let flows = self.series_path(record, "series_flows");
        let link = self.series_path(record, "series_link");
        let times = |path: &Path, times: anyhow::Result<Vec<f64>>| match times {
            Ok(times) => time_defect(path, &times).map(|why| (path.to_path_buf(), why)),
            Err(e) => Some((path.to_path_buf(), format!("{e:#}"))),
        };
        let flow_times = crate::table::read_rows::<sim::FlowSample>(&flows)
            .map(|rows| rows.iter().map(|r| r.t_s).collect());
        let link_times = || {
            crate::table::read_rows::<sim::LinkSample>(&link)
                .map(|rows| rows.iter().map(|r| r.t_s).collect())
        };
        times(&flows, flow_times).or_else(|| times(&link, link_times()))
    }

    /// The labels of axis `key`'s values.
    pub fn axis(&self, key: &str) -> Vec<String> {
        self.axis_values(key)
            .into_iter()
            .map(AxisValue::into_label)
            .collect()
    }

    /// The values of axis `key`, parsed.
    pub fn axis_values(&self, key: &str) -> Vec<AxisValue> {
        self.axes
            .iter()
            .find(|a| a.key == key)
            .map(|a| a.values.clone())
            .unwrap_or_default()
    }

    /// The runs whose parameters include every `(key, value)` of `fixed`:
    /// a value as an experiment file or an axis writes it, compared by
    /// meaning ([`AxisValue::means`]: `"1.0bdp"` selects the `"1bdp"`
    /// runs).
    pub fn select(&self, fixed: &[(&str, &str)]) -> Vec<&RunRecord> {
        let fixed: Vec<(&str, AxisValue)> = fixed
            .iter()
            .map(|&(k, v)| (k, AxisValue::parse(v)))
            .collect();
        self.points
            .iter()
            .filter(|(params, _)| {
                fixed
                    .iter()
                    .all(|(k, v)| params.iter().any(|(pk, pv)| pk == k && pv.means(v)))
            })
            .map(|(_, r)| r)
            .collect()
    }

    /// `f` over the runs whose parameters include `fixed` (usually: every
    /// seed of one sweep point); runs without a (finite) value are left out.
    pub fn over_seeds(
        &self,
        fixed: &[(&str, &str)],
        f: impl Fn(&RunRecord) -> Option<f64>,
    ) -> Stat {
        let values: Vec<f64> = self.select(fixed).into_iter().filter_map(f).collect();
        Stat::of(&values)
    }

    /// The one run with these parameters, if any.
    pub fn one(&self, fixed: &[(&str, &str)]) -> Option<&RunRecord> {
        self.select(fixed).into_iter().next()
    }

    /// A run's time series of flows (`series_flows`), as the simulator's
    /// rows; take a column with [`sim::FlowColumn::points`].
    pub fn flow_rows(&self, record: &RunRecord) -> anyhow::Result<Vec<sim::FlowSample>> {
        crate::table::read_rows(&self.series_path(record, "series_flows"))
    }

    /// A run's time series of the bottleneck (`series_link`), as the
    /// simulator's rows; take a column with [`sim::LinkColumn::points`].
    pub fn link_rows(&self, record: &RunRecord) -> anyhow::Result<Vec<sim::LinkSample>> {
        crate::table::read_rows(&self.series_path(record, "series_link"))
    }

    /// A controller state variable of flow `flow` over time (from
    /// `series_controller`, e.g. `inflight_hi`), as `(t_s, value)`.
    pub fn controller_series(
        &self,
        record: &RunRecord,
        flow: usize,
        name: &str,
    ) -> anyhow::Result<Vec<(f64, f64)>> {
        let path = self.series_path(record, "series_controller");
        let rows: Vec<crate::output::ControllerRow> = crate::table::read_rows(&path)?;
        Ok(rows
            .into_iter()
            .filter(|r| r.flow == flow && r.name == name)
            .map(|r| (r.t_s, r.value))
            .collect())
    }

    /// Where a run's series `stem` is: its Parquet or CSV file (the
    /// Parquet name when neither exists, for the error).
    fn series_path(&self, record: &RunRecord, stem: &str) -> PathBuf {
        let dir = self.dir.join("runs").join(&record.id);
        crate::table::find(&dir, stem).unwrap_or_else(|| dir.join(format!("{stem}.parquet")))
    }
}

/// Why the times of a series' rows (of the file at `path`) are unusable,
/// if they are: a time that is not finite or runs backwards.
fn time_defect(path: &Path, times: &[f64]) -> Option<String> {
    let mut previous = f64::NEG_INFINITY;
    for (index, &t) in times.iter().enumerate() {
        if !(t.is_finite() && t >= previous) {
            let row_name = row_name(path, index + 1);
            return Some(format!(
                "{row_name}: expected a finite time t_s not before the previous row's, got {t:?}"
            ));
        }
        previous = t;
    }
    None
}

/// How to name data row `index` (1 = the first after the header) of a
/// table file: its line in a CSV file, its row in a Parquet one.
fn row_name(path: &std::path::Path, index: usize) -> String {
    if path.extension().is_some_and(|e| e == "csv") {
        format!("line {}", index + 1)
    } else {
        format!("row {index}")
    }
}

/// How a table's numbers summarise seeds, for its title: "mean ± sd over
/// N seeds", or "one seed" when there is no spread to show.
pub(crate) fn seeds_note(runs: &Runs) -> String {
    match runs.axis("seed").len() {
        0 | 1 => "one seed".to_string(),
        n => format!("mean ± sd over {n} seeds"),
    }
}

/// A run's link, as the effective scenario stored with the run gives it;
/// `None` if that text no longer parses.
pub(crate) fn link_of(record: &RunRecord) -> Option<sim::link::LinkConfig> {
    scenario::from_str(&record.scenario, Path::new("run.toml"), &[])
        .ok()
        .map(|s| s.config.link)
}

/// A link's buffer in bytes, a limit in packets counted as 1500 B datagrams.
pub(crate) fn buffer_bytes(link: &sim::link::LinkConfig) -> f64 {
    match link.buffer {
        sim::link::BufferLimit::Bytes(b) => b.as_f64(),
        sim::link::BufferLimit::Packets(n) => n as f64 * 1500.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use report::Cell;

    #[test]
    fn stat_cells() {
        assert_eq!(Stat::of(&[]).cell(2), Cell::Empty);
        assert_eq!(Stat::of(&[0.5]).cell(2), Cell::text("0.50"));
        assert_eq!(
            Stat::of(&[1.0, 3.0, f64::NAN]).cell(1),
            Cell::text("2.0 ± 1.4")
        );
        assert_eq!(Stat::of(&[1.0, 3.0]).pair().0, 2.0);
    }

    #[test]
    fn points_are_selected_by_what_their_values_mean() {
        let record = |id: &str, buffer: &str| {
            let params = vec![
                ("link.buffer".to_string(), AxisValue::parse(buffer)),
                ("flow.0.cc".to_string(), AxisValue::parse("bbr")),
            ];
            (
                params.clone(),
                RunRecord::new(id.into(), params, String::new(), serde_json::Value::Null),
            )
        };
        let runs = Runs {
            points: vec![
                record("a", "1bdp"),
                record("b", "2bdp"),
                record("c", "100pkt"),
            ],
            axes: vec![scenario::Axis {
                key: "link.buffer".into(),
                values: ["1bdp", "2bdp", "100pkt"].map(AxisValue::parse).to_vec(),
            }],
            dir: PathBuf::new(),
            missing: 0,
            rejected: Vec::new(),
        };
        let ids = |fixed: &[(&str, &str)]| -> Vec<String> {
            runs.select(fixed).iter().map(|r| r.id.clone()).collect()
        };
        assert_eq!(ids(&[("link.buffer", "1.0bdp")]), ["a"]);
        assert_eq!(ids(&[("link.buffer", "2bdp"), ("flow.0.cc", "bbr")]), ["b"]);
        assert_eq!(ids(&[("link.buffer", "100 pkts")]), ["c"]);
        assert!(ids(&[("link.buffer", "1pkt")]).is_empty());
        assert!(ids(&[("flow.0.cc", "cubic")]).is_empty());
        assert_eq!(runs.axis("link.buffer"), ["1bdp", "2bdp", "100pkt"]);
        let bdps: Vec<Option<f64>> = runs
            .axis_values("link.buffer")
            .iter()
            .map(|v| v.number_in("bdp"))
            .collect();
        assert_eq!(bdps, [Some(1.0), Some(2.0), None]);
    }
}
