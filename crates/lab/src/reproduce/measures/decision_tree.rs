//! `decision_tree`: which of two controllers gets the higher goodput over a
//! grid of link conditions, the adaptive BBRv2 paper's Table I and Fig. 1.
//!
//! A condition is one point of the grid: a value of each of the four link
//! axes (`link.loss`, `link.rate`, `link.rtt`, `link.buffer`), with the runs
//! of both controllers (`classes`, values of `flow.0.cc`) paired by seed.
//! The lead at a condition is the first controller's total goodput over the
//! seeds divided by the second's, minus one; "BBR +35%" and "BBRv2 +13%"
//! name the leader's goodput over the other's, "alike (<1%)" a difference
//! under 1%, the paper's white nodes.
//!
//! The paper reads its tree two ways, and the measure gives both:
//!
//! - `gives = "fig1"`: one condition per grid point, checked against what
//!   the paper's text says its Fig. 1 shows: with induced loss the first
//!   controller (BBR) ahead; without loss the two within 10% of each other,
//!   except at the smallest BDP with the largest buffer (of the lossless
//!   points measured), where the second (BBRv2) leads by more than 10%.
//! - `gives = "root"`: one condition, that the root of the classification
//!   tree fitted to the samples (one per condition and seed, labelled by
//!   the controller with the higher goodput) splits on induced loss.
//!
//! The tree is [`crate::cart`] (CART with Gini impurity, as scikit-learn's
//! classifier the paper used) over five features of a condition: loss (%),
//! bandwidth (Mbit/s), RTT (ms), BDP (MB) and buffer (MB), the numbers
//! parsed from the axis values ("100Mbit", "10ms", "2MB", "1%"), at most
//! `max_depth` levels deep. [`tree_figure`] draws it as the paper does: each
//! node tinted by the winner over its samples, darker for a larger
//! difference, white under 1%, leaves with a difference of 10% or more
//! outlined; an experiment file's `[[tree]]` draws it so.
//!
//! Why not a primitive: a classification tree fitted to the runs is a model
//! of them, not a statistic, and the Fig. 1 check's exception (the smallest
//! BDP with the largest buffer) is found from the grid, not given.
//!
//! Parameters: `of` (a quantity, as a measure's `of`: `{ metric =
//! "goodput_bps" }`), `classes` (the two controllers, `["bbr", "bbr2"]`),
//! `gives`, `max_depth` (4), `at` (fixed parameters).

use anyhow::Context;
use report::{Cell, Figure, Table, TreeNode};

use crate::reproduce::data::Runs;
use crate::reproduce::file::{at_param, number_param, Quantity, Value};
use crate::reproduce::verdict::paper_name;

/// The grid's axes, in the order their values nest (loss slowest).
const AXES: [&str; 4] = ["link.loss", "link.rate", "link.rtt", "link.buffer"];
/// The axis whose values are the classes.
const CLASS_AXIS: &str = "flow.0.cc";
/// A difference under this is "negligible" (the paper's white nodes).
const NEGLIGIBLE: f64 = 0.01;
/// A difference of at least this is outlined in the tree, and separates
/// "within 10%" from a lead in the Fig. 1 check (the paper's highlight).
const HIGHLIGHT: f64 = 0.10;
/// The features of a condition, in the tree's column order.
const FEATURES: [&str; 5] = [
    "loss (%)",
    "bandwidth (Mbit/s)",
    "RTT (ms)",
    "BDP (MB)",
    "buffer (MB)",
];

/// The measure's parameters.
struct Params {
    of: Quantity,
    /// The two controllers' names: `[first, second]` as spelled on the axis.
    classes: [String; 2],
    /// Their display names.
    names: [String; 2],
    max_depth: usize,
    at: Vec<(String, String)>,
}

impl Params {
    fn parse(params: &toml::Table, context: &[(String, String)]) -> anyhow::Result<Params> {
        let of: Quantity = params
            .get("of")
            .context("`of` (a quantity such as { metric = \"goodput_bps\" }) is required")?
            .clone()
            .try_into()
            .context("`of` must be a quantity such as { metric = \"goodput_bps\" }")?;
        let classes: Vec<String> = params
            .get("classes")
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let [first, second] = <[String; 2]>::try_from(classes).map_err(|_| {
            anyhow::anyhow!("`classes` must be two controllers of `{CLASS_AXIS}` (strings)")
        })?;
        let depth = number_param(params, "max_depth", Some(4.0))?;
        anyhow::ensure!(
            depth >= 1.0 && depth.fract() == 0.0,
            "`max_depth` must be a whole number of levels, at least 1, not {depth}"
        );
        Ok(Params {
            of,
            names: [paper_name(&first), paper_name(&second)],
            classes: [first, second],
            max_depth: depth as usize,
            at: at_param(params, context),
        })
    }

    /// "BBR +35%", "BBRv2 +13%" (the leader's goodput over the other's), or
    /// "alike (<1%)", from the first controller's `lead`.
    fn lead_text(&self, lead: f64) -> String {
        if !lead.is_finite() {
            "—".to_string()
        } else if advantage(lead) < NEGLIGIBLE {
            "alike (<1%)".to_string()
        } else {
            let leader = &self.names[usize::from(lead < 0.0)];
            format!("{leader} +{:.0}%", advantage(lead) * 100.0)
        }
    }
}

/// One point of the grid, with each seed's numbers.
struct Condition {
    /// The axis values: loss, rate, RTT, buffer.
    axes: [String; 4],
    /// [`FEATURES`] as numbers.
    features: [f64; 5],
    /// `(first's, second's)` number per seed.
    pairs: Vec<(f64, f64)>,
}

impl Condition {
    fn lead(&self) -> f64 {
        lead(self.pairs.iter())
    }

    /// "25Mbit, 10ms, no loss, 10MB buffer".
    fn name(&self) -> String {
        format!(
            "{}, {}, {}, {} buffer",
            self.axes[1],
            self.axes[2],
            loss_label(&self.axes[0]),
            self.axes[3]
        )
    }
}

/// The first's total over the second's, minus one, over `pairs`: positive
/// when the first leads.
fn lead<'a>(pairs: impl Iterator<Item = &'a (f64, f64)>) -> f64 {
    let (a, b) = pairs.fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    a / b - 1.0
}

/// The leader's number over the other's, minus one, from the first's
/// `lead`: 0.35 for the first +35%, 0.13 for the second +13%.
fn advantage(lead: f64) -> f64 {
    if lead >= 0.0 {
        lead
    } else {
        1.0 / (1.0 + lead) - 1.0
    }
}

/// "no loss" or "2% loss" for a value of a `link.loss` axis.
fn loss_label(value: &str) -> String {
    if scenario::AxisValue::parse(value).number() == Some(0.0) {
        "no loss".into()
    } else {
        format!("{value} loss")
    }
}

/// A condition's features from its axis values: loss (%), bandwidth
/// (Mbit/s), RTT (ms), BDP (MB), buffer (MB); NaN for a value that does
/// not parse.
fn features(loss: &str, rate: &str, rtt: &str, buffer: &str) -> [f64; 5] {
    use scenario::units;
    let mbit = units::parse_rate(rate).map_or(f64::NAN, |r| r.bits_per_sec() as f64 / 1e6);
    let ms = units::parse_duration(rtt).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
    let buffer_mb = units::parse_size(buffer).map_or(f64::NAN, |b| b.get() as f64 / 1e6);
    let loss_pct = units::parse_probability(loss).map_or(f64::NAN, |p| p * 100.0);
    [loss_pct, mbit, ms, mbit * ms / 8e3, buffer_mb]
}

/// The grid's points that have runs of both controllers, in the axes'
/// order (loss slowest), each seed's numbers paired.
fn conditions(runs: &Runs, p: &Params) -> Vec<Condition> {
    let mut out = Vec::new();
    for loss in runs.axis(AXES[0]) {
        for rate in runs.axis(AXES[1]) {
            for rtt in runs.axis(AXES[2]) {
                for buffer in runs.axis(AXES[3]) {
                    let point = [&loss, &rate, &rtt, &buffer];
                    let at = |class: &str| {
                        // A point the context fixes otherwise has no runs.
                        let mut fixed: Vec<(&str, &str)> =
                            p.at.iter()
                                .filter(|(k, _)| k != CLASS_AXIS)
                                .map(|(k, v)| (k.as_str(), v.as_str()))
                                .collect();
                        fixed.extend(AXES.iter().zip(point).map(|(k, v)| (*k, v.as_str())));
                        fixed.push((CLASS_AXIS, class));
                        let mut numbers: Vec<(u64, f64)> = runs
                            .select(&fixed)
                            .into_iter()
                            .filter_map(|r| Some((r.result().ok()?.seed, p.of.of(r)?)))
                            .collect();
                        numbers.sort_by_key(|(seed, _)| *seed);
                        numbers
                    };
                    let (first, second) = (at(&p.classes[0]), at(&p.classes[1]));
                    let pairs: Vec<(f64, f64)> = first
                        .iter()
                        .filter_map(|(seed, a)| {
                            second
                                .iter()
                                .find(|(s, _)| s == seed)
                                .map(|(_, b)| (*a, *b))
                        })
                        .collect();
                    if pairs.is_empty() {
                        continue;
                    }
                    out.push(Condition {
                        axes: [loss.clone(), rate.clone(), rtt.clone(), buffer.clone()],
                        features: features(&loss, &rate, &rtt, &buffer),
                        pairs,
                    });
                }
            }
        }
    }
    out
}

/// The Fig. 1 check of every condition: with loss the first ahead; without
/// loss within 10%, except at the smallest BDP with the largest buffer,
/// where the second leads by more than 10%.
fn fig1_checks(conditions: &[Condition], p: &Params) -> Vec<(String, bool)> {
    let lossless: Vec<&Condition> = conditions.iter().filter(|c| c.features[0] == 0.0).collect();
    let smallest_bdp = lossless
        .iter()
        .map(|c| c.features[3])
        .fold(f64::INFINITY, f64::min);
    let largest_buffer = lossless
        .iter()
        .map(|c| c.features[4])
        .fold(f64::NEG_INFINITY, f64::max);
    conditions
        .iter()
        .map(|c| {
            let lead = c.lead();
            let holds = if c.features[0] > 0.0 {
                lead > 0.0
            } else if c.features[3] == smallest_bdp && c.features[4] == largest_buffer {
                lead < 0.0 && advantage(lead) > HIGHLIGHT
            } else {
                advantage(lead) <= HIGHLIGHT
            };
            (format!("{} ({})", c.name(), p.lead_text(lead)), holds)
        })
        .collect()
}

/// One (condition, seed) sample: a training row of the tree.
struct Sample<'a> {
    condition: &'a Condition,
    pair: (f64, f64),
}

/// The samples and the tree fitted to them (`None` under two samples).
fn fit<'a>(
    conditions: &'a [Condition],
    p: &Params,
) -> (Vec<Sample<'a>>, Option<crate::cart::Node>) {
    let samples: Vec<Sample> = conditions
        .iter()
        .flat_map(|c| {
            c.pairs
                .iter()
                .map(move |&pair| Sample { condition: c, pair })
        })
        .collect();
    if samples.len() < 2 {
        return (samples, None);
    }
    let rows: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| s.condition.features.to_vec())
        .collect();
    // Class 0 (the first) where its number is at least the second's.
    let labels: Vec<usize> = samples
        .iter()
        .map(|s| usize::from(s.pair.0 < s.pair.1))
        .collect();
    let tree = crate::cart::fit(&rows, &labels, 2, p.max_depth);
    (samples, Some(tree))
}

/// The named measure (see the module's text).
pub(crate) fn decision_tree(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let p = Params::parse(params, context).context("decision_tree")?;
    let conditions = conditions(runs, &p);
    match params.get("gives").and_then(toml::Value::as_str) {
        Some("fig1") => Ok(Value::Conditions(fig1_checks(&conditions, &p))),
        Some("root") => {
            let (_, tree) = fit(&conditions, &p);
            let Some(tree) = tree else {
                return Ok(Value::Conditions(Vec::new()));
            };
            let feature = tree.split.as_ref().map(|s| s.feature);
            Ok(Value::Conditions(vec![(
                format!(
                    "the root splits on {}",
                    feature.map_or("nothing (one leaf)", |f| FEATURES[f])
                ),
                feature == Some(0),
            )]))
        }
        _ => anyhow::bail!("decision_tree: `gives` must be \"fig1\" or \"root\""),
    }
}

/// The tree fitted to the runs as a figure titled `title` (`{conditions}`
/// in it: how many conditions it is fitted to), and a table of its leaves
/// (each leaf's path from the root, its samples and the lead over them),
/// titled `leaves`; `None` under two samples.
pub(crate) fn tree_figure(
    runs: &Runs,
    params: &toml::Table,
    title: &str,
    leaves_title: &str,
) -> anyhow::Result<Option<(Figure, Table)>> {
    let p = Params::parse(params, &[]).context("decision_tree")?;
    let conditions = conditions(runs, &p);
    let (samples, Some(tree)) = fit(&conditions, &p) else {
        return Ok(None);
    };
    let mut leaves = Vec::new();
    let drawing = draw(&tree, &samples, &p, &mut leaves, "");
    let figure = Figure::tree(
        title.replace("{conditions}", &conditions.len().to_string()),
        p.names.to_vec(),
        drawing,
    );
    let mut table = Table::new(
        leaves_title,
        ["leaf (path from the root)", "samples", "winner"],
    );
    for (path, lead, n) in &leaves {
        table = table.row([
            Cell::text(if path.is_empty() { "(root)" } else { path }),
            Cell::text(n.to_string()),
            Cell::text(p.lead_text(*lead)),
        ]);
    }
    Ok(Some((figure, table)))
}

/// The fitted tree as the drawing: each node's split, its samples and the
/// lead over them; its leaves, `(path, lead, samples)`, go to `leaves`.
fn draw(
    node: &crate::cart::Node,
    samples: &[Sample],
    p: &Params,
    leaves: &mut Vec<(String, f64, usize)>,
    path: &str,
) -> TreeNode {
    let here: Vec<&Sample> = node.samples.iter().map(|&i| &samples[i]).collect();
    let lead = lead(here.iter().map(|s| &s.pair));
    let first_wins = here.iter().filter(|s| s.pair.0 >= s.pair.1).count();
    // Samples won by each, in the legend's order: short enough for a leaf.
    let count = format!(
        "{} {} : {} {}",
        p.names[0],
        first_wins,
        here.len() - first_wins,
        p.names[1]
    );
    let tinted = |lines: Vec<String>| {
        let mut node = TreeNode::new(lines);
        if lead.is_finite() && advantage(lead) >= NEGLIGIBLE {
            // Darker for a larger difference, on a log scale: 1% faint,
            // 10x (the paper's largest, 871%) full.
            let strength = 0.2 + 0.8 * ((1.0 + advantage(lead)).ln() / 10f64.ln()).min(1.0);
            node = node.tint(usize::from(lead < 0.0), strength);
        }
        node
    };
    let Some(split) = &node.split else {
        leaves.push((path.to_string(), lead, here.len()));
        let mut leaf = tinted(vec![p.lead_text(lead), count]);
        if lead.is_finite() && advantage(lead) >= HIGHLIGHT {
            leaf = leaf.emphasised();
        }
        return leaf;
    };
    // The split read one way or the other: "loss (%) <= 0.5" / "... > 0.5".
    let step = |yes: bool| {
        format!(
            "{} {} {}",
            FEATURES[split.feature],
            if yes { "<=" } else { ">" },
            short(split.threshold)
        )
    };
    let name = |yes: bool| {
        if path.is_empty() {
            step(yes)
        } else {
            format!("{path}; {}", step(yes))
        }
    };
    tinted(vec![step(true), count, p.lead_text(lead)])
        .child("yes", draw(&split.left, samples, p, leaves, &name(true)))
        .child("no", draw(&split.right, samples, p, leaves, &name(false)))
}

/// A split threshold as the tree shows it: "0.5", "55", "1.05".
fn short(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        let table: toml::Table =
            toml::from_str("of = { metric = \"goodput_bps\" }\nclasses = [\"bbr\", \"bbr2\"]")
                .unwrap();
        Params::parse(&table, &[]).unwrap()
    }

    /// A condition at these axis values with one seed's goodputs.
    fn condition(loss: &str, rate: &str, rtt: &str, buffer: &str, pair: (f64, f64)) -> Condition {
        Condition {
            axes: [loss.into(), rate.into(), rtt.into(), buffer.into()],
            features: features(loss, rate, rtt, buffer),
            pairs: vec![pair],
        }
    }

    #[test]
    fn leads_read_as_the_leader_ahead_and_features_as_numbers() {
        let p = params();
        assert_eq!(p.lead_text(0.35), "BBR +35%");
        // BBRv2 at 113 to BBR's 100: BBR's lead is 100/113 - 1.
        assert_eq!(p.lead_text(100.0 / 113.0 - 1.0), "BBRv2 +13%");
        assert_eq!(p.lead_text(0.004), "alike (<1%)");
        assert_eq!(p.lead_text(f64::NAN), "—");
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(55.0), "55");
        assert_eq!(loss_label("0"), "no loss");
        assert_eq!(loss_label("0%"), "no loss");
        assert_eq!(loss_label("2%"), "2% loss");
        // 100 Mbit/s x 10 ms = 125 kB: 0.125 MB.
        assert_eq!(
            features("1%", "100Mbit", "10ms", "2MB"),
            [1.0, 100.0, 10.0, 0.125, 2.0]
        );
        assert!(features("0", "fast", "10ms", "2MB")[1].is_nan());
    }

    #[test]
    fn the_fig1_check_wants_the_first_ahead_under_loss_and_alike_without_but_at_one_corner() {
        let p = params();
        let grid = [
            // With loss: BBR ahead holds, behind does not.
            condition("1%", "25Mbit", "10ms", "100MB", (20.0, 10.0)),
            condition("2%", "25Mbit", "100ms", "2MB", (10.0, 11.0)),
            // Without loss: within 10% holds, BBR +20% does not.
            condition("0", "25Mbit", "100ms", "100MB", (10.0, 10.5)),
            condition("0", "25Mbit", "100ms", "2MB", (12.0, 10.0)),
            // The smallest lossless BDP with the largest buffer: BBRv2
            // must lead by more than 10% (+25% holds).
            condition("0", "25Mbit", "10ms", "100MB", (8.0, 10.0)),
        ];
        let checks = fig1_checks(&grid, &p);
        let holds: Vec<bool> = checks.iter().map(|(_, ok)| *ok).collect();
        assert_eq!(holds, [true, false, true, false, true]);
        assert_eq!(
            checks[4].0,
            "25Mbit, 10ms, no loss, 100MB buffer (BBRv2 +25%)"
        );
        // Alike at that corner does not hold.
        let alike = [condition("0", "25Mbit", "10ms", "100MB", (10.0, 10.0))];
        assert!(!fig1_checks(&alike, &p)[0].1);
    }

    #[test]
    fn the_tree_splits_first_where_the_winners_part_and_draws_its_leaves() {
        let p = params();
        let mut grid = Vec::new();
        for rtt in ["10ms", "100ms"] {
            for buffer in ["2MB", "100MB"] {
                // BBRv2 slightly ahead without loss, BBR far ahead with it.
                grid.push(condition("0", "50Mbit", rtt, buffer, (9.9, 10.0)));
                grid.push(condition("2%", "50Mbit", rtt, buffer, (10.0, 2.0)));
            }
        }
        let (samples, tree) = fit(&grid, &p);
        let tree = tree.unwrap();
        let split = tree.split.as_ref().unwrap();
        assert_eq!((split.feature, split.threshold), (0, 1.0));
        let mut leaves = Vec::new();
        let drawing = draw(&tree, &samples, &p, &mut leaves, "");
        assert_eq!(drawing.lines[0], "loss (%) <= 1");
        assert_eq!(drawing.lines[1], "BBR 4 : 4 BBRv2");
        let paths: Vec<&str> = leaves.iter().map(|(path, _, _)| path.as_str()).collect();
        assert_eq!(paths, ["loss (%) <= 1", "loss (%) > 1"]);
        // The lossy leaf: BBR +400%, outlined; the lossless one alike.
        assert!(drawing.children[1].1.emphasis);
        assert!(!drawing.children[0].1.emphasis);
        assert_eq!(drawing.children[1].1.lines[0], "BBR +400%");
        // Under two samples there is no tree.
        assert!(fit(&grid[..1], &p).1.is_none());
    }
}
