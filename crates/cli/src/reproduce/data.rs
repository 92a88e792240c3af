//! What an experiment's analysis reads: the runs of its sweep, by parameter.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use crate::store::{RunRecord, Store};

/// The runs of one experiment, in sweep order, with their parameters.
pub struct Runs {
    /// (sweep point parameters, record) per point that has a record.
    pub points: Vec<(Vec<(String, String)>, RunRecord)>,
    /// Values of each axis, in file order.
    pub axes: Vec<scenario::Axis>,
    /// The experiment's store directory.
    pub dir: PathBuf,
    /// Points without a record (failed or not run).
    pub missing: usize,
}

impl Runs {
    /// Collects the records of `ids` (a sweep's points and their run ids)
    /// from the store in `dir`; records of other sweeps there are ignored.
    pub fn collect(
        dir: &Path,
        axes: Vec<scenario::Axis>,
        ids: &[(scenario::SweepPoint, String)],
    ) -> anyhow::Result<Runs> {
        let store = Store::open(dir)?;
        let mut points = Vec::new();
        let mut missing = 0;
        for (point, id) in ids {
            match store.get(id) {
                Some(r) => points.push((point.params.clone(), r)),
                None => missing += 1,
            }
        }
        Ok(Runs {
            points,
            axes,
            dir: dir.to_path_buf(),
            missing,
        })
    }

    /// The values of axis `key`.
    pub fn axis(&self, key: &str) -> Vec<String> {
        self.axes
            .iter()
            .find(|a| a.key == key)
            .map(|a| a.values.clone())
            .unwrap_or_default()
    }

    /// The runs whose parameters include every `(key, value)` of `fixed`.
    pub fn select(&self, fixed: &[(&str, &str)]) -> Vec<&RunRecord> {
        self.points
            .iter()
            .filter(|(params, _)| {
                fixed
                    .iter()
                    .all(|(k, v)| params.iter().any(|(pk, pv)| pk == k && pv == v))
            })
            .map(|(_, r)| r)
            .collect()
    }

    /// The one run with these parameters, if any.
    pub fn one(&self, fixed: &[(&str, &str)]) -> Option<&RunRecord> {
        self.select(fixed).into_iter().next()
    }

    /// A run's time series of flows (`series_flows.csv`), as rows of named columns.
    pub fn flow_series(&self, record: &RunRecord) -> anyhow::Result<Vec<csv::StringRecord>> {
        self.series_file(record, "series_flows.csv")
    }

    /// A run's time series of the bottleneck (`series_link.csv`:
    /// `t_s, queue_bytes, capacity_bps, forwarded`), as rows of named columns.
    pub fn link_series(&self, record: &RunRecord) -> anyhow::Result<Vec<csv::StringRecord>> {
        self.series_file(record, "series_link.csv")
    }

    /// A controller state variable of flow `flow` over time (from
    /// `series_controller.csv`, e.g. `inflight_hi`), as `(t_s, value)`.
    pub fn controller_series(
        &self,
        record: &RunRecord,
        flow: usize,
        name: &str,
    ) -> anyhow::Result<Vec<(f64, f64)>> {
        let rows = self.series_file(record, "series_controller.csv")?;
        Ok(rows[1..]
            .iter()
            .filter(|r| r.get(1).and_then(|f| f.parse::<usize>().ok()) == Some(flow))
            .filter(|r| r.get(2) == Some(name))
            .filter_map(|r| Some((r.get(0)?.parse().ok()?, r.get(3)?.parse().ok()?)))
            .collect())
    }

    /// A series CSV of a run: the header row, then the data rows.
    fn series_file(
        &self,
        record: &RunRecord,
        name: &str,
    ) -> anyhow::Result<Vec<csv::StringRecord>> {
        let path = self.dir.join("runs").join(&record.id).join(name);
        let mut reader = csv::Reader::from_path(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let header = reader.headers()?.clone();
        let mut rows = vec![header];
        for row in reader.records() {
            rows.push(row.with_context(|| format!("cannot read {}", path.display()))?);
        }
        Ok(rows)
    }
}

/// A summary metric by JSON pointer (e.g. `/flows/0/goodput_bps`).
pub fn metric(record: &RunRecord, pointer: &str) -> Option<f64> {
    record.summary.pointer(pointer).and_then(Value::as_f64)
}

/// Mean and sample standard deviation.
pub fn mean_sd(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 {
        values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

/// Column `name` of a series as `(t_s, value)` for flow `flow`.
pub fn series_column(rows: &[csv::StringRecord], flow: usize, name: &str) -> Vec<(f64, f64)> {
    let Some(header) = rows.first() else {
        return Vec::new();
    };
    let col = |n: &str| header.iter().position(|h| h == n);
    let (Some(t), Some(f), Some(c)) = (col("t_s"), col("flow"), col(name)) else {
        return Vec::new();
    };
    rows[1..]
        .iter()
        .filter(|r| r.get(f).and_then(|v| v.parse::<usize>().ok()) == Some(flow))
        .filter_map(|r| Some((r.get(t)?.parse().ok()?, r.get(c)?.parse().ok()?)))
        .collect()
}
