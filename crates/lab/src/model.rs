//! The oBBR paper's buffer-occupancy model (Bi et al., ATC'23, §3.1, Eq. 1):
//! how much of a shared bottleneck buffer a BBR flow holds next to
//! loss-based flows.
//!
//! With `g` the cwnd gain, `R` the buffer in BDPs and `p` the fraction of
//! the buffer the loss-based flows hold, BBR's occupied ratio is
//!
//! ```text
//! Q_r(p; g, R) = g p (1 - p) + (g - 1)(1 - p) / R
//! ```
//!
//! The loss-based flows grow `p` until the buffer is full, `Q_r(p) = 1 - p`,
//! which happens at `p* = (R - g + 1) / (g R)`: the converge point. At that
//! point BBR holds `1 - p*` of the buffer. (The paper marks `(R-g+1)/(gR)`
//! as BBR's expected goodput proportion in Fig. 3, but only `1 - p*` falls
//! with `R` as its bars do; both are printed, and `p*` is clamped to [0, 1]:
//! below `R = g - 1` BBR's own excess fills the buffer and the loss-based
//! flows hold nothing.)

/// BBR's occupied ratio of the buffer, `Q_r(p; g, R)`.
pub fn occupied_ratio(p: f64, g: f64, r: f64) -> f64 {
    g * p * (1.0 - p) + (g - 1.0) * (1.0 - p) / r
}

/// The converge point `p* = (R - g + 1) / (g R)`, clamped to [0, 1].
pub fn converge_point(g: f64, r: f64) -> f64 {
    ((r - g + 1.0) / (g * r)).clamp(0.0, 1.0)
}

/// The most curve points `table` computes: far more than a terminal or a
/// plot can show, and small enough to print at once.
pub const MAX_POINTS: usize = 10_001;

/// The model as text: converge points and the Q_r curves at `points`
/// evenly spaced values of `p` in [0, 1].
///
/// Errors name the argument (`--g`, `--r`, `--points`) and what it must hold.
pub fn table(gains: &[f64], buffers: &[f64], points: usize) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    anyhow::ensure!(!gains.is_empty(), "--g: expected at least one gain");
    anyhow::ensure!(
        !buffers.is_empty(),
        "--r: expected at least one buffer size"
    );
    for &g in gains {
        anyhow::ensure!(
            g.is_finite() && g >= 1.0,
            "--g: expected gains >= 1, got {g}"
        );
    }
    for &r in buffers {
        anyhow::ensure!(
            r.is_finite() && r > 0.0,
            "--r: expected buffer sizes > 0 (in BDP), got {r}"
        );
    }
    anyhow::ensure!(
        (2..=MAX_POINTS).contains(&points),
        "--points: expected 2 to {MAX_POINTS}, got {points}"
    );
    let columns = gains.len() * buffers.len();
    anyhow::ensure!(
        columns <= 1000,
        "--g and --r: expected at most 1000 (g, R) pairs, got {} x {} = {columns}",
        gains.len(),
        buffers.len()
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "converge points (loss-based share p*, BBR share 1 - p*):"
    );
    let _ = writeln!(out, "{:>6} {:>8} {:>8} {:>10}", "g", "R", "p*", "1 - p*");
    for &g in gains {
        for &r in buffers {
            let p = converge_point(g, r);
            let _ = writeln!(out, "{g:>6.2} {r:>8.2} {p:>8.3} {:>10.3}", 1.0 - p);
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Q_r(p; g, R) by p (columns: g/R):");
    let mut header = format!("{:>6}", "p");
    for &g in gains {
        for &r in buffers {
            let _ = write!(header, " {:>9}", format!("{g}/{r}"));
        }
    }
    let _ = writeln!(out, "{header}");
    for i in 0..points {
        let p = i as f64 / (points - 1) as f64;
        let _ = write!(out, "{p:>6.3}");
        for &g in gains {
            for &r in buffers {
                let _ = write!(out, " {:>9.3}", occupied_ratio(p, g, r));
            }
        }
        let _ = writeln!(out);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converge_point_is_where_the_buffer_fills() {
        for g in [1.0, 1.5, 2.0] {
            for r in [1.0, 2.0, 4.0, 16.0] {
                let p = converge_point(g, r);
                if p > 0.0 && p < 1.0 {
                    assert!(
                        (occupied_ratio(p, g, r) - (1.0 - p)).abs() < 1e-12,
                        "g {g} R {r}"
                    );
                }
            }
        }
    }

    #[test]
    fn table_refuses_what_it_cannot_print() {
        let err = |g: &[f64], r: &[f64], n| table(g, r, n).unwrap_err().to_string();
        assert!(err(&[2.0], &[1.0], 100_000_000).starts_with("--points: expected 2 to 10001"));
        assert!(err(&[2.0], &[1.0], 1).starts_with("--points"));
        assert!(err(&[0.5], &[1.0], 11).starts_with("--g: expected gains >= 1"));
        assert!(err(&[2.0], &[f64::NAN], 11).starts_with("--r"));
        assert!(err(&[], &[1.0], 11).starts_with("--g"));
        assert_eq!(
            table(&[2.0], &[1.0], 11).unwrap().lines().count(),
            2 + 1 + 2 + 1 + 11
        );
    }

    #[test]
    fn the_papers_examples() {
        // g = 2, R = 16: BBR holds about half the buffer.
        assert!((converge_point(2.0, 16.0) - 15.0 / 32.0).abs() < 1e-12);
        // g = 2 at 1 BDP: the loss-based flows cannot compete.
        assert_eq!(converge_point(2.0, 1.0), 0.0);
        assert_eq!(converge_point(2.0, 0.5), 0.0, "clamped below R = g - 1");
        // g = 1: BBR queues nothing of its own, the loss-based flows take all.
        assert_eq!(converge_point(1.0, 4.0), 1.0);
        assert_eq!(occupied_ratio(0.0, 2.0, 16.0), 1.0 / 16.0);
    }
}
