//! From scores to rankings.
//!
//! The method, in four steps:
//!
//! 1. **Normalise** each score at each condition point and seed across the
//!    controllers by its distance from the best value, relative to the
//!    values' magnitude: `n = 1 - |v - best| / s` with
//!    `s = max(|best|, |worst|, |best - worst|)`, so the best controller
//!    there gets 1, a controller 10 % of the way from the best gets 0.9,
//!    and differences that are small beside the values stay small (128
//!    against 130 ms of queueing delay: 0.985, where a min-max scale would
//!    say 0). Best is the highest value for a higher-is-better score, the
//!    lowest otherwise; when every value is 0, each gets 1. A controller
//!    without a value (NaN: CUBIC has no Startup) is left out of that score.
//! 2. **Per group**: a controller's group index at one seed is the
//!    weighted mean, over the group's scores, of its normalised score
//!    averaged over the group's condition points: `sum(w_s n_s) / sum(w_s)`
//!    over the scores it has a value for and whose weight is above 0.
//! 3. **Overall**: the mean of the group indices at one seed, each group
//!    counting once whatever its number of conditions.
//! 4. **Spread and rank**: mean and sample sd over the seeds; controllers
//!    are ranked by the mean, highest first. Means within 1e-9 tie and
//!    share a rank (listed by name).
//!
//! Indices are relative to the field (the best value at each point): adding
//! a controller can move the others' indices, never their order at one
//! point and seed.
//!
//! Default weights: 2 for each application's primary outcome (`goodput`
//! for bulk transfers, `frame_delay` for live streams, `qoe` for DASH),
//! 1 for every other score, so that what the user came for counts as much
//! as two of its side effects (retransmissions, queueing delay) together,
//! and a controller cannot top a bulk group by barely sending. Users set
//! their own with `--weights goodput=1,delay=3` (scores not named keep
//! their default).

use std::collections::{BTreeMap, BTreeSet};

use crate::stats::Stat;

use super::score::Score;
use super::ScoreRow;

/// The weight of each score in the indices.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights(pub BTreeMap<Score, f64>);

impl Default for Weights {
    fn default() -> Weights {
        Weights(
            Score::ALL
                .into_iter()
                .map(|s| (s, s.default_weight()))
                .collect(),
        )
    }
}

impl Weights {
    /// The weights of `text`, `name=number,...`, every score not named
    /// keeping its default ([`Score::default_weight`]). Names are the scores' ([`Score::name`]); numbers finite
    /// and at least 0; at least one weight must stay above 0.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let mut weights = Weights::default();
        let mut seen = BTreeSet::new();
        for item in text.split(',') {
            let item = item.trim();
            let Some((name, value)) = item.split_once('=') else {
                return Err(format!(
                    "--weights: expected name=number, got `{item}` (e.g. goodput=2,delay=0.5)"
                ));
            };
            let score: Score = name
                .trim()
                .parse()
                .map_err(|e: String| format!("--weights: {e}"))?;
            if !seen.insert(score) {
                return Err(format!("--weights: `{score}` is given twice"));
            }
            let w: f64 = value.trim().parse().map_err(|_| {
                format!(
                    "--weights: {score}: expected a number at least 0, got `{}`",
                    value.trim()
                )
            })?;
            if !w.is_finite() || w < 0.0 {
                return Err(format!(
                    "--weights: {score}: expected a finite number at least 0, got `{}`",
                    value.trim()
                ));
            }
            weights.0.insert(score, w);
        }
        if weights.0.values().all(|&w| w == 0.0) {
            return Err("--weights: every weight is 0; at least one must be above 0".to_string());
        }
        Ok(weights)
    }

    /// The weight of `score`.
    pub fn of(&self, score: Score) -> f64 {
        self.0
            .get(&score)
            .copied()
            .unwrap_or(score.default_weight())
    }

    /// `goodput=1, retx=1, ...` for pages.
    pub fn text(&self) -> String {
        Score::ALL
            .iter()
            .map(|s| format!("{s}={}", self.of(*s)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::str::FromStr for Weights {
    type Err = String;
    fn from_str(s: &str) -> Result<Weights, String> {
        Weights::parse(s)
    }
}

/// A controller's standing.
#[derive(Clone, Debug)]
pub struct Standing {
    /// Its rank, 1 the best; ties share one.
    pub rank: usize,
    /// The controller's spec.
    pub cc: String,
    /// Its index (mean and sd over seeds).
    pub index: Stat,
}

/// The league's results: indices and raw scores per controller and group.
#[derive(Clone, Debug, Default)]
pub struct Standings {
    /// The groups, in the order of first appearance.
    pub groups: Vec<String>,
    /// Overall ranking.
    pub overall: Vec<Standing>,
    /// Ranking within each group.
    pub by_group: BTreeMap<String, Vec<Standing>>,
    /// Each score's raw value per (controller, group): per seed the mean
    /// over the group's points, then mean and sd over seeds.
    pub raw: BTreeMap<(String, String, Score), Stat>,
    /// Each score's normalised value per (controller, group), likewise.
    pub normalised: BTreeMap<(String, String, Score), Stat>,
    /// The scores each group has.
    pub group_scores: BTreeMap<String, Vec<Score>>,
}

impl Standings {
    /// The standing of `cc` in `group`.
    pub fn in_group(&self, cc: &str, group: &str) -> Option<&Standing> {
        self.by_group.get(group)?.iter().find(|s| s.cc == cc)
    }
}

/// Ranks the controllers of `rows` with `weights` (see the module's
/// method).
pub fn standings(rows: &[ScoreRow], weights: &Weights) -> Standings {
    let mut groups: Vec<String> = Vec::new();
    let mut group_scores: BTreeMap<String, Vec<Score>> = BTreeMap::new();
    for r in rows {
        if !groups.contains(&r.group) {
            groups.push(r.group.clone());
        }
        let scores = group_scores.entry(r.group.clone()).or_default();
        for s in &r.applies {
            if !scores.contains(s) {
                scores.push(*s);
            }
        }
    }
    for scores in group_scores.values_mut() {
        scores.sort();
    }
    // Step 1: normalised scores per row.
    let mut cells: BTreeMap<(&str, &str, u64), Vec<&ScoreRow>> = BTreeMap::new();
    for r in rows {
        cells
            .entry((r.condition.as_str(), r.point.as_str(), r.seed))
            .or_default()
            .push(r);
    }
    let mut norm: Vec<(&ScoreRow, BTreeMap<Score, f64>)> = Vec::new();
    for runs in cells.values() {
        for r in runs {
            let mut n = BTreeMap::new();
            for &s in &r.applies {
                let v = r.value(s);
                if !v.is_finite() {
                    continue;
                }
                let values: Vec<f64> = runs
                    .iter()
                    .map(|o| o.value(s))
                    .filter(|v| v.is_finite())
                    .collect();
                let best = if s.higher_is_better() {
                    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                } else {
                    values.iter().copied().fold(f64::INFINITY, f64::min)
                };
                let worst = if s.higher_is_better() {
                    values.iter().copied().fold(f64::INFINITY, f64::min)
                } else {
                    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                };
                let scale = best.abs().max(worst.abs()).max((best - worst).abs());
                let x = if scale > 0.0 {
                    1.0 - (v - best).abs() / scale
                } else {
                    1.0
                };
                n.insert(s, x);
            }
            norm.push((r, n));
        }
    }
    // Per (cc, group, seed, score): mean over points, raw and normalised.
    type Key = (String, String, u64, Score);
    let mut raw_at: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    let mut norm_at: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    for (r, n) in &norm {
        for &s in &r.applies {
            let key = (r.cc.clone(), r.group.clone(), r.seed, s);
            raw_at.entry(key.clone()).or_default().push(r.value(s));
            if let Some(x) = n.get(&s) {
                norm_at.entry(key).or_default().push(*x);
            }
        }
    }
    let mean = |v: &[f64]| Stat::of(v).mean;
    let over_seeds = |m: &BTreeMap<Key, Vec<f64>>| {
        let mut per: BTreeMap<(String, String, Score), Vec<f64>> = BTreeMap::new();
        for ((cc, g, _, s), v) in m {
            per.entry((cc.clone(), g.clone(), *s))
                .or_default()
                .push(mean(v));
        }
        per.into_iter()
            .map(|(k, v)| (k, Stat::of(&v)))
            .collect::<BTreeMap<_, _>>()
    };
    let raw = over_seeds(&raw_at);
    let normalised = over_seeds(&norm_at);
    // Step 2: group index per (cc, group, seed).
    let mut index_at: BTreeMap<(String, String, u64), (f64, f64)> = BTreeMap::new();
    for ((cc, g, seed, s), v) in &norm_at {
        let w = weights.of(*s);
        let x = mean(v);
        if w > 0.0 && x.is_finite() {
            let e = index_at.entry((cc.clone(), g.clone(), *seed)).or_default();
            e.0 += w * x;
            e.1 += w;
        }
    }
    let mut group_at: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    let mut overall_at: BTreeMap<(String, u64), Vec<f64>> = BTreeMap::new();
    for ((cc, g, seed), (sum, w)) in &index_at {
        let x = sum / w;
        group_at.entry((g.clone(), cc.clone())).or_default().push(x);
        overall_at.entry((cc.clone(), *seed)).or_default().push(x);
    }
    let mut by_group = BTreeMap::new();
    for g in &groups {
        let stats: Vec<(String, Stat)> = group_at
            .iter()
            .filter(|((gg, _), _)| gg == g)
            .map(|((_, cc), v)| (cc.clone(), Stat::of(v)))
            .collect();
        by_group.insert(g.clone(), ranked(stats));
    }
    let mut overall_seeds: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for ((cc, _), v) in &overall_at {
        overall_seeds.entry(cc.clone()).or_default().push(mean(v));
    }
    let overall = ranked(
        overall_seeds
            .into_iter()
            .map(|(cc, v)| (cc, Stat::of(&v)))
            .collect(),
    );
    Standings {
        groups,
        overall,
        by_group,
        raw,
        normalised,
        group_scores,
    }
}

/// Ranks by mean index, highest first; ties (within 1e-9) share a rank
/// and are listed by name; controllers without an index come last.
fn ranked(mut stats: Vec<(String, Stat)>) -> Vec<Standing> {
    let key = |s: &Stat| {
        if s.mean.is_finite() {
            s.mean
        } else {
            f64::NEG_INFINITY
        }
    };
    stats.sort_by(|a, b| key(&b.1).total_cmp(&key(&a.1)).then(a.0.cmp(&b.0)));
    let mut out: Vec<Standing> = Vec::with_capacity(stats.len());
    for (i, (cc, index)) in stats.into_iter().enumerate() {
        let rank = match out.last() {
            Some(prev) if (key(&prev.index) - key(&index)).abs() <= 1e-9 => prev.rank,
            _ => i + 1,
        };
        // Names sort ties; equal means keep name order from the sort above.
        out.push(Standing { rank, cc, index });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cc: &str, group: &str, seed: u64, goodput: f64, retx: f64) -> ScoreRow {
        ScoreRow::new(
            "c".into(),
            group.into(),
            "p".into(),
            cc.into(),
            seed,
            String::new(),
            vec![Score::Goodput, Score::Retx],
            |s| match s {
                Score::Goodput => goodput,
                Score::Retx => retx,
                _ => f64::NAN,
            },
        )
    }

    #[test]
    fn weights_parse_and_bad_ones_are_named() {
        let w = Weights::parse("goodput=2, delay=0.5").unwrap();
        assert_eq!(
            (w.of(Score::Goodput), w.of(Score::Delay), w.of(Score::Retx)),
            (2.0, 0.5, 1.0)
        );
        let d = Weights::default();
        assert_eq!(
            (d.of(Score::Goodput), d.of(Score::Qoe), d.of(Score::Harm)),
            (2.0, 2.0, 1.0)
        );
        for (text, want) in [
            ("latency=1", "unknown score `latency`"),
            ("goodput", "expected name=number, got `goodput`"),
            (
                "goodput=abc",
                "goodput: expected a number at least 0, got `abc`",
            ),
            (
                "goodput=-1",
                "expected a finite number at least 0, got `-1`",
            ),
            ("goodput=inf", "expected a finite number at least 0"),
            ("goodput=1,goodput=2", "`goodput` is given twice"),
            (
                "goodput=0,retx=0,delay=0,jain=0,harm=0,frame_delay=0,startup=0,qoe=0,share=0",
                "every weight is 0",
            ),
        ] {
            let e = Weights::parse(text).unwrap_err();
            assert!(
                e.starts_with("--weights") && e.contains(want),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn normalised_indices_rank_with_ties_and_follow_the_weights() {
        // a: best goodput, worst retx; b: the reverse; c: in the middle;
        // d: the same as a.
        let rows: Vec<ScoreRow> = [1, 2]
            .into_iter()
            .flat_map(|seed| {
                [
                    row("a", "g", seed, 0.9, 4.0),
                    row("b", "g", seed, 0.5, 0.0),
                    row("c", "g", seed, 0.7, 2.0),
                    row("d", "g", seed, 0.9, 4.0),
                ]
            })
            .collect();
        // Goodput: 1 - |v - 0.9| / 0.9, so a 1, b 5/9, c 7/9; retx:
        // 1 - v / 4, so a 0, b 1, c 1/2.
        let index =
            |s: &Standings, cc: &str| s.overall.iter().find(|x| x.cc == cc).unwrap().index.mean;
        let s = standings(&rows, &Weights::parse("goodput=1").unwrap());
        assert!((index(&s, "b") - (5.0 / 9.0 + 1.0) / 2.0).abs() < 1e-12);
        assert!((index(&s, "c") - (7.0 / 9.0 + 0.5) / 2.0).abs() < 1e-12);
        let order: Vec<(&str, usize)> = s.overall.iter().map(|x| (x.cc.as_str(), x.rank)).collect();
        assert_eq!(order, vec![("b", 1), ("c", 2), ("a", 3), ("d", 3)]);
        let s = standings(&rows, &Weights::parse("goodput=3").unwrap());
        let order: Vec<(&str, usize)> = s.overall.iter().map(|x| (x.cc.as_str(), x.rank)).collect();
        assert_eq!(order, vec![("a", 1), ("d", 1), ("c", 3), ("b", 4)]);
        assert!((s.overall[0].index.mean - 0.75).abs() < 1e-12);
        assert_eq!(s.overall[0].index.sd, 0.0);
        assert_eq!(
            s.raw[&("a".to_string(), "g".to_string(), Score::Retx)].mean,
            4.0
        );
        assert_eq!(s.by_group["g"][0].cc, "a");
    }

    #[test]
    fn small_differences_beside_the_values_stay_small() {
        let rows = vec![
            row("a", "g", 1, 0.95, 0.0),
            row("b", "g", 1, 0.94, 0.0),
            row("c", "g", 1, -0.5, 0.0),
        ];
        let s = standings(&rows, &Weights::parse("goodput=1,retx=0").unwrap());
        let index = |cc: &str| s.overall.iter().find(|x| x.cc == cc).unwrap().index.mean;
        assert!(
            (index("b") - (1.0 - 0.01 / 1.45)).abs() < 1e-12,
            "{}",
            index("b")
        );
        // Values of both signs: the scale is the range, the worst gets 0.
        assert!(index("c").abs() < 1e-12);
    }

    #[test]
    fn each_group_counts_once_and_missing_values_are_left_out() {
        let mut rows = vec![
            row("a", "g1", 1, 1.0, 0.0),
            row("b", "g1", 1, 0.0, 0.0),
            row("a", "g2", 1, 0.0, f64::NAN),
            row("b", "g2", 1, 1.0, f64::NAN),
        ];
        // A second condition in g2 where a wins does not outweigh g1.
        let mut extra = row("a", "g2", 1, 1.0, f64::NAN);
        extra.condition = "d".into();
        rows.push(extra);
        let mut extra = row("b", "g2", 1, 0.0, f64::NAN);
        extra.condition = "d".into();
        rows.push(extra);
        let s = standings(&rows, &Weights::parse("goodput=1").unwrap());
        let a = s.overall.iter().find(|x| x.cc == "a").unwrap();
        // g1: a = (1 + 1) / 2 = 1; g2: goodput only, mean of 0 and 1 = 0.5.
        assert!((a.index.mean - 0.75).abs() < 1e-12, "{a:?}");
        assert_eq!(s.groups, vec!["g1".to_string(), "g2".to_string()]);
    }
}
