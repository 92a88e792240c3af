//! A run's time series as written by `output::write_series`, read back by
//! column name (so files from runs that recorded more or fewer columns
//! still read), with the derived series the pages plot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A time series (Parquet or CSV): the header and the rows, with a column lookup.
pub struct SeriesFile {
    path: PathBuf,
    header: csv::StringRecord,
    rows: Vec<csv::StringRecord>,
}

impl SeriesFile {
    /// Reads `path`; errors name the file and the line that cannot be read.
    pub fn read(path: &Path) -> anyhow::Result<SeriesFile> {
        let mut rows = crate::table::read_records(path)?.into_iter();
        let header = rows
            .next()
            .ok_or_else(|| anyhow::anyhow!("{}: no header row", path.display()))?;
        anyhow::ensure!(
            header.iter().any(|h| h == "t_s"),
            "{}: expected a `t_s` column, got {:?}",
            path.display(),
            header.iter().collect::<Vec<_>>()
        );
        Ok(SeriesFile {
            path: path.to_path_buf(),
            header,
            rows: rows.collect(),
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The flows present (the `flow` column's values), ascending.
    pub fn flows(&self) -> Vec<usize> {
        let Some(f) = self.column("flow") else {
            return Vec::new();
        };
        let mut flows: Vec<usize> = self
            .rows
            .iter()
            .filter_map(|r| r.get(f)?.parse().ok())
            .collect();
        flows.sort_unstable();
        flows.dedup();
        flows
    }

    /// `(t_s, value)` of a numeric column, for one flow or (`None`) every row.
    pub fn numeric(&self, flow: Option<usize>, name: &str) -> Vec<(f64, f64)> {
        let (Some(t), Some(c)) = (self.column("t_s"), self.column(name)) else {
            return Vec::new();
        };
        let f = self.column("flow");
        self.rows
            .iter()
            .filter(|r| match (flow, f) {
                (Some(want), Some(f)) => r.get(f).and_then(|v| v.parse().ok()) == Some(want),
                _ => true,
            })
            .filter_map(|r| Some((r.get(t)?.parse().ok()?, r.get(c)?.parse().ok()?)))
            .collect()
    }

    /// `(t_s, text)` of a text column (the controller mode) for one flow.
    pub fn text(&self, flow: usize, name: &str) -> Vec<(f64, String)> {
        let (Some(t), Some(f), Some(c)) =
            (self.column("t_s"), self.column("flow"), self.column(name))
        else {
            return Vec::new();
        };
        self.rows
            .iter()
            .filter(|r| r.get(f).and_then(|v| v.parse().ok()) == Some(flow))
            .filter_map(|r| Some((r.get(t)?.parse().ok()?, r.get(c)?.to_string())))
            .collect()
    }
}

/// A cumulative counter (bytes delivered) turned into a rate in Mbit/s over
/// bins of `bin` seconds: smoother than per-sample differences, and each
/// point is the mean rate over its bin (plotted at the bin's end).
pub fn rate_mbps(cumulative: &[(f64, f64)], bin: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let Some(&(mut t0, mut v0)) = cumulative.first() else {
        return out;
    };
    for &(t, v) in &cumulative[1..] {
        if t - t0 >= bin - 1e-9 {
            out.push((t, (v - v0) * 8.0 / (t - t0) / 1e6));
            t0 = t;
            v0 = v;
        }
    }
    out
}

/// Share of samples in each controller mode, and how often it changed.
pub fn mode_shares(modes: &[(f64, String)]) -> (BTreeMap<String, f64>, usize) {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut changes = 0;
    for (i, (_, m)) in modes.iter().enumerate() {
        *counts.entry(m.clone()).or_default() += 1;
        if i > 0 && modes[i - 1].1 != *m {
            changes += 1;
        }
    }
    let n = modes.len().max(1) as f64;
    (
        counts.into_iter().map(|(m, c)| (m, c as f64 / n)).collect(),
        changes,
    )
}

/// A series split by the controller mode in force at each sample: one
/// `(mode, points)` per mode in order of first appearance, each NaN (a gap)
/// where another mode rules. A segment that ends in a mode change runs to
/// the next sample, so the pieces join into one unbroken curve.
pub fn split_by_mode(
    values: &[(f64, f64)],
    modes: &[(f64, String)],
) -> Vec<(String, Vec<(f64, f64)>)> {
    // The mode at time t: the latest mode sample at or before t.
    let mut next_mode = 0;
    let mut current: Option<&str> = None;
    let in_force: Vec<Option<&str>> = values
        .iter()
        .map(|&(t, _)| {
            while next_mode < modes.len() && modes[next_mode].0 <= t {
                current = Some(&modes[next_mode].1);
                next_mode += 1;
            }
            current
        })
        .collect();
    let mut out: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (i, (&point, mode)) in values.iter().zip(&in_force).enumerate() {
        let Some(mode) = mode else { continue };
        let index = match out.iter().position(|(m, _)| m == mode) {
            Some(index) => index,
            None => {
                out.push((mode.to_string(), Vec::new()));
                out.len() - 1
            }
        };
        let line = &mut out[index].1;
        line.push(point);
        if let (Some(&next), Some(next_mode)) = (values.get(i + 1), in_force.get(i + 1)) {
            if *next_mode != Some(*mode) {
                line.push(next);
                line.push((next.0, f64::NAN));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_splits_into_joined_pieces_per_mode() {
        let values = [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0), (3.0, 4.0), (4.0, 5.0)];
        let modes = [
            (0.0, "startup".to_string()),
            (2.0, "drain".to_string()),
            (3.0, "startup".to_string()),
        ];
        let split = split_by_mode(&values, &modes);
        assert_eq!(split.len(), 2);
        assert_eq!(split[0].0, "startup");
        let startup: Vec<String> = split[0].1.iter().map(|p| format!("{:?}", p)).collect();
        assert_eq!(
            startup,
            [
                "(0.0, 1.0)",
                "(1.0, 2.0)",
                "(2.0, 3.0)",
                "(2.0, NaN)",
                "(3.0, 4.0)",
                "(4.0, 5.0)"
            ]
        );
        assert_eq!(split[1].0, "drain");
        assert_eq!(split[1].1[..2], [(2.0, 3.0), (3.0, 4.0)]);
        // Samples before the first mode sample belong to no mode.
        assert!(split_by_mode(&values, &modes[1..])
            .iter()
            .all(|(_, points)| points.iter().all(|&(t, _)| t >= 2.0)));
    }

    #[test]
    fn rates_over_bins() {
        let delivered = [
            (0.0, 0.0),
            (0.5, 500_000.0),
            (1.0, 1_250_000.0),
            (1.5, 1_250_000.0),
        ];
        // 1.25 MB in the first second = 10 Mbit/s; nothing in the next half.
        assert_eq!(rate_mbps(&delivered, 1.0), vec![(1.0, 10.0)]);
        assert_eq!(
            rate_mbps(&delivered, 0.5),
            vec![(0.5, 8.0), (1.0, 12.0), (1.5, 0.0)]
        );
        assert!(rate_mbps(&[], 1.0).is_empty());
    }

    #[test]
    fn modes_share_and_transitions() {
        let modes: Vec<(f64, String)> = ["startup", "startup", "drain", "probe_bw"]
            .iter()
            .enumerate()
            .map(|(i, m)| (i as f64, m.to_string()))
            .collect();
        let (shares, changes) = mode_shares(&modes);
        assert_eq!(shares["startup"], 0.5);
        assert_eq!(shares["probe_bw"], 0.25);
        assert_eq!(changes, 2);
    }

    #[test]
    fn columns_by_name_and_clear_errors() {
        let dir = std::env::temp_dir().join(format!("bbrlab-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("series_flows.csv");
        std::fs::write(
            &path,
            "t_s,flow,cwnd,mode\n0,0,10,startup\n0,1,20,slow_start\n1,0,30,drain\n",
        )
        .unwrap();
        let s = SeriesFile::read(&path).unwrap();
        assert_eq!(s.flows(), vec![0, 1]);
        assert_eq!(s.numeric(Some(0), "cwnd"), vec![(0.0, 10.0), (1.0, 30.0)]);
        assert_eq!(s.text(1, "mode"), vec![(0.0, "slow_start".to_string())]);
        assert!(s.numeric(Some(0), "nosuch").is_empty());
        std::fs::write(&path, "t_s,flow,cwnd\n0,0,10\n1,0\n").unwrap();
        let err = format!("{:#}", SeriesFile::read(&path).err().unwrap());
        assert!(err.contains("line 3"), "{err}");
        std::fs::write(&path, "a,b\n1,2\n").unwrap();
        let err = format!("{:#}", SeriesFile::read(&path).err().unwrap());
        assert!(err.contains("expected a `t_s` column"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
