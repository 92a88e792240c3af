//! The series the run and compare pages derive from a run's time series
//! (the simulator's rows, as `output::write_series` writes them): rates
//! from cumulative counters, the controller's modes and their shares.

use std::collections::BTreeMap;

use sim::FlowSample;

/// `(t_s, mode)` of flow `flow`'s samples: the controller's mode over time.
pub fn flow_modes(samples: &[FlowSample], flow: usize) -> Vec<(f64, String)> {
    samples
        .iter()
        .filter(|s| s.flow == flow)
        .map(|s| (s.t_s, s.mode.to_string()))
        .collect()
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
    fn each_flows_modes_over_time() {
        let text = "name = \"m\"\nduration = \"2s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\n\
                    buffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n[[flow]]\ncc = \"cubic\"\n";
        let scenario = scenario::from_str(text, std::path::Path::new("m.toml"), &[]).unwrap();
        let samples = crate::run::simulate_with(&scenario, true)
            .unwrap()
            .series
            .flows;
        for flow in [0, 1] {
            let rows: Vec<&FlowSample> = samples.iter().filter(|s| s.flow == flow).collect();
            let expected: Vec<(f64, String)> =
                rows.iter().map(|s| (s.t_s, s.mode.to_string())).collect();
            assert!(!expected.is_empty());
            assert_eq!(flow_modes(&samples, flow), expected);
        }
        assert_eq!(flow_modes(&samples, 0)[0].1, "startup", "BBR's first mode");
        assert_eq!(flow_modes(&samples, 1)[0].1, "slow_start", "CUBIC's");
        assert!(flow_modes(&samples, 2).is_empty());
    }
}
