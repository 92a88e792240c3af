//! `bbrlab advise`: the league on one user's path. The path is a scenario
//! file, a capacity trace, or a rate, RTT, buffer and loss, optionally
//! with CUBIC cross traffic or a live or DASH application; every
//! controller runs on it and the best index is recommended, with its
//! numbers and the runner-up's.
//!
//! The scores that apply follow the path: goodput, retransmissions and
//! delay for bulk transfers; Jain's index and harm beside CUBIC; frame
//! delay and Startup exit for a live stream, QoE for DASH (whose goodput
//! the application limits, so goodput does not count there). A runner-up
//! is *close* when its index is within [`CLOSE`] of the winner's.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde_json::{json, Value};

use super::rank::{Standing, Standings};
use super::score::Score;
use super::Condition;

/// A runner-up whose index is within this of the winner's is close: a
/// twentieth of the index's range, less than one controller's typical
/// spread over three seeds in the league's groups.
pub const CLOSE: f64 = 0.05;

/// What the path's flow carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum App {
    /// A bulk transfer.
    #[default]
    Bulk,
    /// A live video stream (5.4 Mbit/s, the BBR-Copilot paper's).
    Live,
    /// A DASH video session (the oBBR paper's ladder), 120 s of video.
    Dash,
}

impl std::str::FromStr for App {
    type Err = String;
    fn from_str(s: &str) -> Result<App, String> {
        match s {
            "bulk" => Ok(App::Bulk),
            "live" => Ok(App::Live),
            "dash" => Ok(App::Dash),
            _ => Err(format!(
                "unknown application `{s}` (expected bulk, live or dash)"
            )),
        }
    }
}

/// A path given by flags.
#[derive(Clone, Debug)]
pub struct PathFlags {
    /// `--rate`: constant capacity (or `trace`).
    pub rate: Option<String>,
    /// `--trace`: a mahimahi or Irish 5G capacity trace.
    pub trace: Option<PathBuf>,
    /// `--rtt`.
    pub rtt: String,
    /// `--buffer`: a size, packets or BDP multiple.
    pub buffer: String,
    /// `--loss`: random loss.
    pub loss: String,
    /// `--cubic N`: CUBIC flows beside the subject.
    pub cubic: u32,
    /// `--app`.
    pub app: App,
    /// `--copilot`: BBR-Copilot padding for a live stream.
    pub copilot: bool,
    /// `--duration`.
    pub duration: String,
}

impl PathFlags {
    /// The path as a league condition (subject: flow 0).
    pub fn condition(&self) -> anyhow::Result<Condition> {
        use scenario::units;
        let link = match (&self.rate, &self.trace) {
            (Some(_), Some(_)) => anyhow::bail!("--rate and --trace: give one of them, not both"),
            (None, None) => anyhow::bail!(
                "expected a path: a scenario file, --trace FILE, or --rate (with --rtt, --buffer, --loss)"
            ),
            (Some(rate), None) => {
                units::parse_rate(rate).map_err(|e| anyhow::anyhow!("--rate: {e}"))?;
                format!("rate = \"{rate}\"")
            }
            (None, Some(trace)) => {
                let abs = std::fs::canonicalize(trace)
                    .with_context(|| format!("--trace {}: cannot open the trace", trace.display()))?;
                format!("trace = {}", toml_string(&abs.display().to_string()))
            }
        };
        units::parse_duration(&self.rtt).map_err(|e| anyhow::anyhow!("--rtt: {e}"))?;
        units::parse_buffer(&self.buffer).map_err(|e| anyhow::anyhow!("--buffer: {e}"))?;
        let loss =
            units::parse_probability(&self.loss).map_err(|e| anyhow::anyhow!("--loss: {e}"))?;
        anyhow::ensure!(
            loss < 1.0,
            "--loss: expected a loss below 100%, got {}",
            self.loss
        );
        units::parse_duration(&self.duration).map_err(|e| anyhow::anyhow!("--duration: {e}"))?;
        anyhow::ensure!(
            self.cubic <= 100,
            "--cubic: expected at most 100 CUBIC flows, got {}",
            self.cubic
        );
        anyhow::ensure!(
            !self.copilot || self.app == App::Live,
            "--copilot: BBR-Copilot pads live streams; use it with --app live"
        );
        let subject = match self.app {
            App::Bulk => "[[flow]]\ncc = \"bbr\"\n".to_string(),
            App::Live => format!(
                "[[flow]]\ncc = \"bbr\"\napp = \"live\"\ncopilot = {}\n",
                self.copilot
            ),
            App::Dash => "[[flow]]\ncc = \"bbr\"\napp = \"dash\"\n[flow.dash]\nvideo = \"120s\"\n"
                .to_string(),
        };
        let cross = if self.cubic > 0 {
            format!("[[flow]]\ncc = \"cubic\"\ncount = {}\n", self.cubic)
        } else {
            String::new()
        };
        let warmup = if self.app == App::Bulk {
            "\"2s\""
        } else {
            "\"0s\""
        };
        let text = format!(
            "name = \"advise\"\nduration = \"{}\"\nwarmup = {warmup}\nsample_interval = \"100ms\"\n\
             [link]\n{link}\nrtt = \"{}\"\nbuffer = \"{}\"\nloss = \"{}\"\n{subject}{cross}",
            self.duration, self.rtt, self.buffer, self.loss
        );
        let text = format!(
            "{text}{}",
            league_table("your path", self.app, self.cubic > 0)
        );
        Condition::from_str(&text, Path::new("advise")).map_err(|e| anyhow::anyhow!("{e}"))
    }
}

/// A scenario file as the condition to advise on: its own `[league]`
/// table if it has one, else flow 0 is the subject, the others cross
/// traffic, and the scores follow flow 0's application.
pub fn condition_from_file(path: &Path) -> anyhow::Result<Condition> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the scenario file", path.display()))?;
    let doc: toml::Table = text.parse().map_err(|_| {
        scenario::sweep_from_str(&text, path, &[]).expect_err("a TOML syntax error")
    })?;
    if doc.contains_key("league") {
        return Ok(Condition::load(path)?);
    }
    let flows = doc.get("flow").and_then(|f| f.as_array());
    let app = match flows
        .and_then(|f| f.first())
        .and_then(|f| f.get("app"))
        .and_then(|a| a.as_str())
    {
        Some("live") => App::Live,
        Some("dash") => App::Dash,
        _ => App::Bulk,
    };
    let cross = flows.is_some_and(|f| f.len() > 1);
    let text = format!(
        "{text}\n{}",
        league_table(&format!("{}", path.display()), app, cross)
    );
    Ok(Condition::from_str(&text, path)?)
}

/// The `[league]` table of a path: title, scores for its application and
/// cross traffic.
fn league_table(title: &str, app: App, cross: bool) -> String {
    let mut scores: Vec<Score> = match app {
        App::Bulk => vec![Score::Goodput, Score::Retx, Score::Delay],
        App::Live => vec![Score::Retx, Score::Delay, Score::FrameDelay, Score::Startup],
        App::Dash => vec![Score::Retx, Score::Delay, Score::Qoe],
    };
    if cross {
        scores.extend([Score::Jain, Score::Harm]);
    }
    format!(
        "[league]\ntitle = {}\ngroup = \"your path\"\nsource = \"the user's path\"\nsubject = [0]\nscores = [{}]\n",
        toml_string(title),
        scores
            .iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A controller's numbers on the path.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    /// Its rank.
    pub rank: usize,
    /// The controller's spec.
    pub cc: String,
    /// Its index, mean over seeds.
    pub index: f64,
    /// The index's sd over seeds.
    pub index_sd: f64,
    /// Each applying score: `{"mean", "sd"}`.
    pub scores: serde_json::Map<String, Value>,
}

/// The recommendation.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    /// What the path is.
    pub path: String,
    /// The scores that counted, with their weights.
    pub weights: String,
    /// The recommended controller.
    pub recommended: Entry,
    /// The runner-up, if there is more than one controller.
    pub runner_up: Option<Entry>,
    /// The index the winner leads by.
    pub margin: f64,
    /// Whether the runner-up is within [`CLOSE`].
    pub close: bool,
    /// Every controller, best first.
    pub ranking: Vec<Entry>,
}

impl Advice {
    /// The advice from the standings of a one-condition league.
    pub fn new(
        path: String,
        standings: &Standings,
        weights: &super::Weights,
    ) -> anyhow::Result<Advice> {
        let group = standings
            .groups
            .first()
            .context("no results to advise on")?;
        let scores = standings
            .group_scores
            .get(group)
            .cloned()
            .unwrap_or_default();
        let entry = |st: &Standing| {
            let mut m = serde_json::Map::new();
            for s in &scores {
                if let Some(x) = standings.raw.get(&(st.cc.clone(), group.clone(), *s)) {
                    m.insert(
                        s.name().into(),
                        json!({"mean": finite(x.mean), "sd": finite(x.sd)}),
                    );
                }
            }
            Entry {
                rank: st.rank,
                cc: st.cc.clone(),
                index: st.index.mean,
                index_sd: finite(st.index.sd).as_f64().unwrap_or(0.0),
                scores: m,
            }
        };
        let ranking: Vec<Entry> = standings.by_group[group].iter().map(entry).collect();
        let recommended = ranking
            .first()
            .cloned()
            .context("no controller has an index")?;
        let runner_up = ranking.get(1).cloned();
        let margin = runner_up
            .as_ref()
            .map_or(f64::NAN, |r| recommended.index - r.index);
        Ok(Advice {
            path,
            weights: scores
                .iter()
                .map(|s| format!("{s}={}", weights.of(*s)))
                .collect::<Vec<_>>()
                .join(", "),
            close: margin.is_finite() && margin <= CLOSE,
            margin,
            recommended,
            runner_up,
            ranking,
        })
    }

    /// The recommendation in words, with its numbers.
    pub fn text(&self) -> String {
        let mut t = format!(
            "recommended: {} (index {:.3} ± {:.3}): {}\n",
            self.recommended.cc,
            self.recommended.index,
            self.recommended.index_sd,
            numbers(&self.recommended)
        );
        match &self.runner_up {
            Some(r) => t.push_str(&format!(
                "runner-up:   {} (index {:.3} ± {:.3}, {:.3} behind: {}): {}\n",
                r.cc,
                r.index,
                r.index_sd,
                self.margin,
                if self.close {
                    format!("close, within {CLOSE}")
                } else {
                    format!("not close, more than {CLOSE}")
                },
                numbers(r)
            )),
            None => t.push_str("runner-up:   none (one controller ran)\n"),
        }
        t
    }
}

impl Advice {
    /// The recommendation as the first section of the page.
    pub fn section(&self) -> report::Section {
        let scores: Vec<Score> = Score::ALL
            .into_iter()
            .filter(|s| self.recommended.scores.contains_key(s.name()))
            .collect();
        let header = ["rank", "controller", "index"]
            .into_iter()
            .map(String::from)
            .chain(scores.iter().map(|s| s.label().to_string()));
        let mut table = report::Table::new(
            "Every controller on the path, best first (mean ± sd over seeds)",
            header,
        );
        for e in &self.ranking {
            let value = |s: &Score| {
                let v = &e.scores[s.name()];
                let d = s.decimals() as usize;
                match (v["mean"].as_f64(), v["sd"].as_f64()) {
                    (Some(m), Some(sd)) => format!("{m:.d$} ± {sd:.d$}"),
                    (Some(m), None) => format!("{m:.d$}"),
                    _ => "—".to_string(),
                }
            };
            let cells = [
                report::Cell::text(e.rank.to_string()),
                report::Cell::text(e.cc.clone()),
                report::Cell::text(format!("{:.3} ± {:.3}", e.index, e.index_sd)),
            ]
            .into_iter()
            .chain(scores.iter().map(|s| report::Cell::text(value(s))));
            table = table.row(cells);
        }
        report::Section::new("advice", "Recommendation")
            .description(format!(
                "Path: {}. {} Weights: {}.",
                self.path,
                self.text().replace('\n', " "),
                self.weights
            ))
            .table(table)
    }
}

fn finite(v: f64) -> Value {
    if v.is_finite() {
        v.into()
    } else {
        Value::Null
    }
}

/// "goodput 0.951 of capacity, retx 0.12 %, ..." for an entry.
fn numbers(e: &Entry) -> String {
    Score::ALL
        .iter()
        .filter_map(|s| {
            let v = e.scores.get(s.name())?;
            let mean = v["mean"].as_f64()?;
            let d = s.decimals() as usize;
            Some(format!("{} {mean:.d$}", s.label()))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(app: App, cubic: u32) -> PathFlags {
        PathFlags {
            rate: Some("20Mbit".into()),
            trace: None,
            rtt: "40ms".into(),
            buffer: "1bdp".into(),
            loss: "1%".into(),
            cubic,
            app,
            copilot: app == App::Live,
            duration: "10s".into(),
        }
    }

    #[test]
    fn the_scores_follow_the_application_and_the_cross_traffic() {
        let bulk = flags(App::Bulk, 0).condition().unwrap();
        assert_eq!(bulk.scores, vec![Score::Goodput, Score::Retx, Score::Delay]);
        let shared = flags(App::Bulk, 2).condition().unwrap();
        assert!(shared.scores.ends_with(&[Score::Jain, Score::Harm]));
        let base = scenario::from_str(&shared.sweep.base, &shared.file, &[]).unwrap();
        assert_eq!(base.config.flows.len(), 2);
        assert_eq!(base.config.flows[1].count, 2);
        let live = flags(App::Live, 0).condition().unwrap();
        assert!(live.scores.contains(&Score::FrameDelay) && !live.scores.contains(&Score::Goodput));
        assert!(live.sweep.base.contains("copilot = true"));
        let dash = flags(App::Dash, 0).condition().unwrap();
        assert!(dash.scores.contains(&Score::Qoe) && !dash.scores.contains(&Score::Goodput));
    }

    #[test]
    fn a_scenario_file_is_flow_zero_against_the_rest() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/examples/cubic-vs-bbr.toml");
        let c = condition_from_file(&file).unwrap();
        assert_eq!(c.subject, vec![0]);
        assert_eq!(
            c.scores,
            vec![
                Score::Goodput,
                Score::Retx,
                Score::Delay,
                Score::Jain,
                Score::Harm
            ]
        );
        let e = condition_from_file(Path::new("no/such.toml")).unwrap_err();
        assert!(e.to_string().contains("no/such.toml: cannot read"), "{e}");
    }
}
