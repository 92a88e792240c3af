//! Goals judged by the league: a controller's stated goals, read from a
//! goal file and judged on the league's scores after a run.
//!
//! A controller's author states what it should achieve before the runs
//! that judge it (docs/ALGORITHMS.md does so for Tempered BBR). A goal
//! file writes those statements down in terms of the league: each goal
//! names a *test*, the league's *scores* it reads, the *conditions* (and
//! points of them) it is judged at and the other controllers it compares
//! with. `bbrlab league --goals FILE` judges them once the runs are
//! scored, separately on the file's *development seeds* (those the
//! controller was tuned on) and on the league's other seeds (*held out*),
//! and marks the points the file declares held out (a trace never used
//! for tuning).
//!
//! ```toml
//! controller = "tempered-bbr"
//! title = "Tempered BBR's goals"
//! development_seeds = [1, 2]
//! held_out = [{ condition = "cellular", points = ["irish-5g"] }]
//! held_out_note = "the Irish 5G trace"
//!
//! [[goal]]
//! name = "3"
//! title = "At 1 % and 2 % random loss, at least 90 % of the capacity"
//! test = "at-least"
//! score = "goodput"
//! bound = 0.9
//! at = [{ condition = "shallow-tbf", points = ["link.loss=1%", "link.loss=2%"] }]
//! ```
//!
//! **Points.** A selector `{ condition, points, unless }` takes the
//! condition's points whose label (`link.buffer=0.5bdp link.loss=1%`, as
//! scores.csv writes it) contains any of the `points` fragments (every
//! point without `points`), and leaves out those where `unless = { cc,
//! score, above }` holds: the controller `cc`'s mean `score` is above
//! `above` (Tempered BBR's goal 2b counts the CUBIC pairs only where
//! BBRv1 takes at most 60 %).
//!
//! **Tests**, each on the mean over a seed set's seeds at each point:
//!
//! | test | met when | margin |
//! |---|---|---|
//! | `at-least` | own >= bound | own - bound |
//! | `at-most` | own <= bound | bound - own |
//! | `ratio-at-least` | own / versus >= bound | ratio - bound |
//! | `difference-at-most` | own - versus <= bound | bound - difference |
//! | `pareto` | no `versus` controller is no worse on both `scores` and better on one, differences within `ties` counting as equal | minus the number of controllers that dominate |
//!
//! A `ties` entry is a number (absolute, in the score's unit) or a
//! percentage string (`"1%"`: relative to the controller's own value).
//! A point without a value (a run that did not give the score) is a miss.
//!
//! **Errors** name the file, the key and its line, and are found before
//! anything runs: an unknown key, test, score, condition or controller
//! (one outside the league's field), a point fragment no point of its
//! condition has, a test without the keys it needs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use report::{Cell, Section, Table};
use scenario::ScenarioError;
use serde::Deserialize;
use toml::Spanned;

use super::score::Score;
use super::{Condition, ScoreRow};
use crate::stats::Stat;

/// A goal file, checked against a league.
#[derive(Clone, Debug, PartialEq)]
pub struct GoalFile {
    /// The file.
    pub file: PathBuf,
    /// The controller whose goals these are (a spec of the league's field).
    pub controller: String,
    /// What the goals are, in a few words.
    pub title: String,
    /// The seeds the controller was tuned on; the league's others are held out.
    pub development_seeds: Vec<u64>,
    /// Points never used for tuning (a held-out trace).
    pub held_out: Vec<Selector>,
    /// What the held-out points are, for the table.
    pub held_out_note: String,
    /// The goals, in file order.
    pub goals: Vec<Goal>,
}

/// Points of one condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Selector {
    /// The condition's id (its file's stem).
    pub condition: String,
    /// Label fragments: a point is taken if its label contains any (every
    /// point when empty).
    pub points: Vec<String>,
    /// Leaves out the points where it holds.
    pub unless: Option<Unless>,
}

/// A condition on a point: controller `cc`'s mean `score` above `above`.
#[derive(Clone, Debug, PartialEq)]
pub struct Unless {
    /// The controller.
    pub cc: String,
    /// The score.
    pub score: Score,
    /// The threshold.
    pub above: f64,
}

/// A tie width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tie {
    /// In the score's unit.
    Absolute(f64),
    /// A share of the controller's own value.
    Relative(f64),
}

impl Tie {
    /// The width around the value `own`.
    fn width(self, own: f64) -> f64 {
        match self {
            Tie::Absolute(t) => t,
            Tie::Relative(r) => r * own.abs(),
        }
    }

    fn text(self) -> String {
        match self {
            Tie::Absolute(t) => format!("{t}"),
            Tie::Relative(r) => format!("{}%", r * 100.0),
        }
    }
}

/// What a goal tests at each point.
#[derive(Clone, Debug, PartialEq)]
pub enum Test {
    /// The controller's score at least `bound`.
    AtLeast {
        /// The score.
        score: Score,
        /// The bound.
        bound: f64,
    },
    /// The controller's score at most `bound`.
    AtMost {
        /// The score.
        score: Score,
        /// The bound.
        bound: f64,
    },
    /// The controller's score over `versus`'s at least `bound`.
    RatioAtLeast {
        /// The score.
        score: Score,
        /// The other controller.
        versus: String,
        /// The bound.
        bound: f64,
    },
    /// The controller's score minus `versus`'s at most `bound`.
    DifferenceAtMost {
        /// The score.
        score: Score,
        /// The other controller.
        versus: String,
        /// The bound.
        bound: f64,
    },
    /// Not dominated by any of `versus` on the two `scores`.
    Pareto {
        /// The two scores.
        scores: [Score; 2],
        /// The other controllers.
        versus: Vec<String>,
        /// The tie of each score.
        ties: [Tie; 2],
    },
}

impl Test {
    /// The test's name in goal files.
    pub fn name(&self) -> &'static str {
        match self {
            Test::AtLeast { .. } => "at-least",
            Test::AtMost { .. } => "at-most",
            Test::RatioAtLeast { .. } => "ratio-at-least",
            Test::DifferenceAtMost { .. } => "difference-at-most",
            Test::Pareto { .. } => "pareto",
        }
    }

    /// The scores it reads.
    fn scores(&self) -> Vec<Score> {
        match self {
            Test::AtLeast { score, .. }
            | Test::AtMost { score, .. }
            | Test::RatioAtLeast { score, .. }
            | Test::DifferenceAtMost { score, .. } => vec![*score],
            Test::Pareto { scores, .. } => scores.to_vec(),
        }
    }

    /// What it checks, in words.
    pub fn text(&self) -> String {
        match self {
            Test::AtLeast { score, bound } => format!("{score} >= {bound}"),
            Test::AtMost { score, bound } => format!("{score} <= {bound}"),
            Test::RatioAtLeast {
                score,
                versus,
                bound,
            } => format!("{score} / {versus}'s >= {bound}"),
            Test::DifferenceAtMost {
                score,
                versus,
                bound,
            } => format!("{score} - {versus}'s <= {bound}"),
            Test::Pareto {
                scores,
                versus,
                ties,
            } => format!(
                "not dominated on {} and {} by {} (ties {} and {})",
                scores[0],
                scores[1],
                versus.join(", "),
                ties[0].text(),
                ties[1].text()
            ),
        }
    }
}

/// One goal.
#[derive(Clone, Debug, PartialEq)]
pub struct Goal {
    /// Its short name (a number in the docs).
    pub name: String,
    /// What it says.
    pub title: String,
    /// What it tests.
    pub test: Test,
    /// Where.
    pub at: Vec<Selector>,
}

const FILE_KEYS: [&str; 6] = [
    "controller",
    "title",
    "development_seeds",
    "held_out",
    "held_out_note",
    "goal",
];
const GOAL_KEYS: [&str; 9] = [
    "name", "title", "test", "score", "scores", "versus", "bound", "ties", "at",
];
const TESTS: [&str; 5] = [
    "at-least",
    "at-most",
    "ratio-at-least",
    "difference-at-most",
    "pareto",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    controller: Spanned<String>,
    title: String,
    development_seeds: Spanned<Vec<u64>>,
    #[serde(default)]
    held_out: Vec<RawSelector>,
    #[serde(default)]
    held_out_note: String,
    #[serde(rename = "goal")]
    goals: Spanned<Vec<RawGoal>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSelector {
    condition: Spanned<String>,
    #[serde(default)]
    points: Vec<Spanned<String>>,
    unless: Option<RawUnless>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnless {
    cc: Spanned<String>,
    score: Spanned<String>,
    above: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGoal {
    name: Spanned<String>,
    title: String,
    test: Spanned<String>,
    score: Option<Spanned<String>>,
    scores: Option<Spanned<Vec<Spanned<String>>>>,
    versus: Option<Spanned<Vec<Spanned<String>>>>,
    bound: Option<Spanned<f64>>,
    ties: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    at: Spanned<Vec<RawSelector>>,
}

/// Reads goal files: the text, for lines, and the league to check against.
struct Reader<'a> {
    file: &'a Path,
    text: &'a str,
    conditions: &'a [Condition],
    controllers: &'a [String],
}

impl Reader<'_> {
    fn line(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }

    fn err<T>(
        &self,
        key: &str,
        span: std::ops::Range<usize>,
        message: String,
    ) -> Result<T, ScenarioError> {
        Err(ScenarioError {
            file: self.file.to_path_buf(),
            key: Some(key.to_string()),
            line: Some(self.line(span.start)),
            column: None,
            message,
        })
    }

    /// A serde error: its line, and the key it is about (the text before
    /// `=` on that line, or the unknown key itself).
    fn toml_error(&self, e: toml::de::Error) -> ScenarioError {
        let line = e.span().map(|s| self.line(s.start));
        let key = e.span().and_then(|s| {
            let start = self.text[..s.start].rfind('\n').map_or(0, |i| i + 1);
            let end = self.text[s.start..]
                .find('\n')
                .map_or(self.text.len(), |i| s.start + i);
            let at_line = &self.text[start..end];
            let key = at_line.split_once('=').map_or(at_line, |(k, _)| k);
            let key = key
                .trim()
                .trim_matches(|c| c == '[' || c == ']' || c == '{' || c == ',');
            (!key.is_empty()).then(|| key.trim().to_string())
        });
        let mut message = e.message().trim().to_string();
        if message.starts_with("unknown field") {
            message = format!(
                "{message} (a goal file has {}; a [[goal]] has {}; see docs/LEAGUE.md)",
                FILE_KEYS.join(", "),
                GOAL_KEYS.join(", ")
            );
        }
        ScenarioError {
            file: self.file.to_path_buf(),
            key,
            line,
            column: None,
            message,
        }
    }

    fn controller(&self, key: &str, cc: &Spanned<String>) -> Result<String, ScenarioError> {
        let name = cc.get_ref().trim();
        if !self.controllers.iter().any(|c| c == name) {
            return self.err(
                key,
                cc.span(),
                format!(
                    "controller `{name}` is not in the league's field ({}); add it with --cc or --add",
                    self.controllers.join(", ")
                ),
            );
        }
        Ok(name.to_string())
    }

    fn score(&self, key: &str, s: &Spanned<String>) -> Result<Score, ScenarioError> {
        s.get_ref()
            .parse()
            .or_else(|m: String| self.err(key, s.span(), m))
    }

    fn selector(&self, key: &str, raw: &RawSelector) -> Result<Selector, ScenarioError> {
        let id = raw.condition.get_ref().trim();
        let Some(c) = self.conditions.iter().find(|c| c.id == id) else {
            return self.err(
                &format!("{key}.condition"),
                raw.condition.span(),
                format!(
                    "unknown condition `{id}`; the league's conditions are {}",
                    self.conditions
                        .iter()
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        };
        let labels: Vec<String> = c.sweep.points().iter().map(super::point_label).collect();
        for p in &raw.points {
            if !labels.iter().any(|l| l.contains(p.get_ref().as_str())) {
                return self.err(
                    &format!("{key}.points"),
                    p.span(),
                    format!(
                        "no point of condition `{id}` contains `{}`; its points are: {}",
                        p.get_ref(),
                        labels.join("; ")
                    ),
                );
            }
        }
        let unless = match &raw.unless {
            None => None,
            Some(u) => Some(Unless {
                cc: self.controller(&format!("{key}.unless.cc"), &u.cc)?,
                score: self.score(&format!("{key}.unless.score"), &u.score)?,
                above: u.above,
            }),
        };
        Ok(Selector {
            condition: id.to_string(),
            points: raw.points.iter().map(|p| p.get_ref().clone()).collect(),
            unless,
        })
    }

    fn goal(&self, i: usize, raw: &RawGoal) -> Result<Goal, ScenarioError> {
        let key = |k: &str| format!("goal[{i}].{k}");
        let test = raw.test.get_ref().as_str();
        let need = |what: &str, present: bool| -> Result<(), ScenarioError> {
            if present {
                Ok(())
            } else {
                self.err(
                    &key(what),
                    raw.test.span(),
                    format!("test `{test}` needs the key `{what}`"),
                )
            }
        };
        let refuse =
            |what: &str, span: Option<std::ops::Range<usize>>| -> Result<(), ScenarioError> {
                match span {
                    Some(span) => {
                        self.err(&key(what), span, format!("test `{test}` takes no `{what}`"))
                    }
                    None => Ok(()),
                }
            };
        let versus: Vec<String> = match &raw.versus {
            None => Vec::new(),
            Some(v) => v
                .get_ref()
                .iter()
                .map(|c| self.controller(&key("versus"), c))
                .collect::<Result<_, _>>()?,
        };
        let bound = raw.bound.as_ref().map(|b| *b.get_ref());
        let one = |scalar: bool| -> Result<Score, ScenarioError> {
            need("score", raw.score.is_some())?;
            refuse("scores", raw.scores.as_ref().map(Spanned::span))?;
            refuse("ties", raw.ties.as_ref().map(Spanned::span))?;
            need("bound", bound.is_some_and(f64::is_finite))?;
            if scalar {
                refuse("versus", raw.versus.as_ref().map(Spanned::span))?;
            } else if versus.len() != 1 {
                let span = raw.versus.as_ref().map_or(raw.test.span(), Spanned::span);
                return self.err(
                    &key("versus"),
                    span,
                    format!(
                        "test `{test}` compares with one controller: expected versus = [\"name\"]"
                    ),
                );
            }
            self.score(&key("score"), raw.score.as_ref().expect("checked"))
        };
        let test = match test {
            "at-least" => Test::AtLeast {
                score: one(true)?,
                bound: bound.unwrap_or_default(),
            },
            "at-most" => Test::AtMost {
                score: one(true)?,
                bound: bound.unwrap_or_default(),
            },
            "ratio-at-least" => Test::RatioAtLeast {
                score: one(false)?,
                versus: versus[0].clone(),
                bound: bound.unwrap_or_default(),
            },
            "difference-at-most" => Test::DifferenceAtMost {
                score: one(false)?,
                versus: versus[0].clone(),
                bound: bound.unwrap_or_default(),
            },
            "pareto" => {
                refuse("score", raw.score.as_ref().map(Spanned::span))?;
                refuse("bound", raw.bound.as_ref().map(Spanned::span))?;
                need("versus", !versus.is_empty())?;
                need("scores", raw.scores.is_some())?;
                let raw_scores = raw.scores.as_ref().expect("checked");
                let scores: Vec<Score> = raw_scores
                    .get_ref()
                    .iter()
                    .map(|s| self.score(&key("scores"), s))
                    .collect::<Result<_, _>>()?;
                if scores.len() != 2 || scores[0] == scores[1] {
                    return self.err(
                        &key("scores"),
                        raw_scores.span(),
                        "expected two different scores, e.g. [\"goodput\", \"retx\"]".to_string(),
                    );
                }
                let ties = raw.ties.as_ref().map(Spanned::get_ref);
                if let Some(t) = ties.and_then(|t| {
                    t.iter()
                        .find(|(name, _)| !scores.iter().any(|s| s.name() == name.as_str()))
                }) {
                    return self.err(
                        &key("ties"),
                        t.1.span(),
                        format!(
                            "`{}` is not one of the goal's scores ({}, {})",
                            t.0, scores[0], scores[1]
                        ),
                    );
                }
                let tie = |s: Score| -> Result<Tie, ScenarioError> {
                    let Some(v) = ties.and_then(|t| t.get(s.name())) else {
                        return Ok(Tie::Absolute(0.0));
                    };
                    let bad = || {
                        self.err(
                            &key(&format!("ties.{s}")),
                            v.span(),
                            format!(
                                "expected a number at least 0 (in the score's unit) or a percentage like \"1%\" (of the controller's own value), got {}",
                                v.get_ref()
                            ),
                        )
                    };
                    let t = match v.get_ref() {
                        toml::Value::Float(f) => Tie::Absolute(*f),
                        toml::Value::Integer(n) => Tie::Absolute(*n as f64),
                        toml::Value::String(p) => {
                            match p.trim().strip_suffix('%').map(|n| n.trim().parse::<f64>()) {
                                Some(Ok(n)) => Tie::Relative(n / 100.0),
                                _ => return bad(),
                            }
                        }
                        _ => return bad(),
                    };
                    match t {
                        Tie::Absolute(x) | Tie::Relative(x) if x.is_finite() && x >= 0.0 => Ok(t),
                        _ => bad(),
                    }
                };
                Test::Pareto {
                    ties: [tie(scores[0])?, tie(scores[1])?],
                    scores: [scores[0], scores[1]],
                    versus,
                }
            }
            other => {
                return self.err(
                    &key("test"),
                    raw.test.span(),
                    format!(
                        "unknown test `{other}`, expected one of {}",
                        TESTS.join(", ")
                    ),
                )
            }
        };
        if raw.at.get_ref().is_empty() {
            return self.err(
                &key("at"),
                raw.at.span(),
                "expected at least one { condition = \"...\" }".to_string(),
            );
        }
        let at = raw
            .at
            .get_ref()
            .iter()
            .enumerate()
            .map(|(j, s)| self.selector(&key(&format!("at[{j}]")), s))
            .collect::<Result<_, _>>()?;
        Ok(Goal {
            name: raw.name.get_ref().trim().to_string(),
            title: raw.title.trim().to_string(),
            test,
            at,
        })
    }
}

impl GoalFile {
    /// Reads the goal file at `path` and checks it against the league's
    /// `conditions` and `controllers`.
    pub fn load(
        path: &Path,
        conditions: &[Condition],
        controllers: &[String],
    ) -> Result<GoalFile, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError::file_error(path, format!("cannot read goal file: {e}")))?;
        GoalFile::from_str(&text, path, conditions, controllers)
    }

    /// Reads and checks a goal file given as text; `origin` names it in errors.
    pub fn from_str(
        text: &str,
        origin: &Path,
        conditions: &[Condition],
        controllers: &[String],
    ) -> Result<GoalFile, ScenarioError> {
        let r = Reader {
            file: origin,
            text,
            conditions,
            controllers,
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| r.toml_error(e))?;
        let controller = r.controller("controller", &raw.controller)?;
        let seeds = raw.development_seeds.get_ref();
        if seeds.is_empty() {
            return r.err(
                "development_seeds",
                raw.development_seeds.span(),
                "expected the seeds the controller was tuned on, e.g. [1, 2]".to_string(),
            );
        }
        if raw.goals.get_ref().is_empty() {
            return r.err(
                "goal",
                raw.goals.span(),
                "expected at least one [[goal]]".to_string(),
            );
        }
        let mut names = BTreeSet::new();
        let mut goals = Vec::new();
        for (i, g) in raw.goals.get_ref().iter().enumerate() {
            if !names.insert(g.name.get_ref().trim().to_string()) {
                return r.err(
                    &format!("goal[{i}].name"),
                    g.name.span(),
                    format!("goal `{}` is named twice", g.name.get_ref()),
                );
            }
            goals.push(r.goal(i, g)?);
        }
        let held_out = raw
            .held_out
            .iter()
            .enumerate()
            .map(|(j, s)| r.selector(&format!("held_out[{j}]"), s))
            .collect::<Result<_, _>>()?;
        Ok(GoalFile {
            file: origin.to_path_buf(),
            controller,
            title: raw.title.trim().to_string(),
            development_seeds: seeds.clone(),
            held_out,
            held_out_note: raw.held_out_note.trim().to_string(),
            goals,
        })
    }

    /// The scores the goals read: the league records them at every
    /// condition ([`super::League::record`]).
    pub fn scores(&self) -> Vec<Score> {
        let mut s = BTreeSet::new();
        for g in &self.goals {
            s.extend(g.test.scores());
            s.extend(
                g.at.iter()
                    .filter_map(|a| a.unless.as_ref().map(|u| u.score)),
            );
        }
        s.into_iter().collect()
    }

    /// Judges every goal on `rows` (a league's scores), separately on the
    /// development seeds and on the others the league ran.
    pub fn judge(&self, rows: &[ScoreRow]) -> Verdicts {
        let ran: BTreeSet<u64> = rows.iter().map(|r| r.seed).collect();
        let development: Vec<u64> = ran
            .iter()
            .copied()
            .filter(|s| self.development_seeds.contains(s))
            .collect();
        let held_out: Vec<u64> = ran
            .iter()
            .copied()
            .filter(|s| !self.development_seeds.contains(s))
            .collect();
        let sets: Vec<(SeedSet, Vec<u64>)> = [
            (SeedSet::Development, development),
            (SeedSet::HeldOut, held_out),
        ]
        .into_iter()
        .filter(|(_, s)| !s.is_empty())
        .collect();
        let means = Means::of(rows);
        let goals = self
            .goals
            .iter()
            .map(|g| GoalVerdict {
                name: g.name.clone(),
                title: g.title.clone(),
                test: g.test.text(),
                sets: sets
                    .iter()
                    .map(|(_, seeds)| self.judge_goal(g, &means, seeds))
                    .collect(),
            })
            .collect();
        Verdicts {
            controller: self.controller.clone(),
            title: self.title.clone(),
            held_out_note: self.held_out_note.clone(),
            sets,
            goals,
        }
    }

    fn judge_goal(&self, goal: &Goal, means: &Means, seeds: &[u64]) -> SetVerdict {
        let own = &self.controller;
        let mut points = Vec::new();
        let mut skipped = Vec::new();
        for sel in &goal.at {
            for point in means.points(sel) {
                if let Some(u) = &sel.unless {
                    let v = means.mean(&sel.condition, point, &u.cc, u.score, seeds);
                    if v > u.above {
                        skipped.push(format!(
                            "{} {point} ({}'s {} {v:.3} > {})",
                            sel.condition, u.cc, u.score, u.above
                        ));
                        continue;
                    }
                }
                let m = |cc: &str, s: Score| means.mean(&sel.condition, point, cc, s, seeds);
                let d = |s: Score, v: f64| format!("{v:.*}", s.decimals() as usize);
                let (value, bound, margin, detail) = match &goal.test {
                    Test::AtLeast { score, bound } => {
                        let v = m(own, *score);
                        (v, *bound, v - bound, d(*score, v))
                    }
                    Test::AtMost { score, bound } => {
                        let v = m(own, *score);
                        (v, *bound, bound - v, d(*score, v))
                    }
                    Test::RatioAtLeast {
                        score,
                        versus,
                        bound,
                    } => {
                        let (a, b) = (m(own, *score), m(versus, *score));
                        let v = a / b;
                        (
                            v,
                            *bound,
                            v - bound,
                            format!("{v:.3} ({} vs {versus} {})", d(*score, a), d(*score, b)),
                        )
                    }
                    Test::DifferenceAtMost {
                        score,
                        versus,
                        bound,
                    } => {
                        let (a, b) = (m(own, *score), m(versus, *score));
                        let v = a - b;
                        (
                            v,
                            *bound,
                            bound - v,
                            format!("{v:+.3} ({} vs {versus} {})", d(*score, a), d(*score, b)),
                        )
                    }
                    Test::Pareto {
                        scores,
                        versus,
                        ties,
                    } => {
                        let mine = [m(own, scores[0]), m(own, scores[1])];
                        let mut by = Vec::new();
                        for v in versus {
                            let theirs = [m(v, scores[0]), m(v, scores[1])];
                            if dominates(*scores, *ties, mine, theirs) {
                                by.push(format!(
                                    "{v} ({} {} vs {}, {} {} vs {})",
                                    scores[0],
                                    d(scores[0], theirs[0]),
                                    d(scores[0], mine[0]),
                                    scores[1],
                                    d(scores[1], theirs[1]),
                                    d(scores[1], mine[1])
                                ));
                            }
                        }
                        let n = if mine.iter().all(|x| x.is_finite()) {
                            by.len() as f64
                        } else {
                            f64::NAN
                        };
                        let detail = if by.is_empty() {
                            format!(
                                "{} {}, {} {}",
                                scores[0],
                                d(scores[0], mine[0]),
                                scores[1],
                                d(scores[1], mine[1])
                            )
                        } else {
                            format!("dominated by {}", by.join(", "))
                        };
                        // 0 dominators: margin 0 (not -0).
                        (n, 0.0, if n > 0.0 { -n } else { n }, detail)
                    }
                };
                let held_out = self
                    .held_out
                    .iter()
                    .any(|h| h.condition == sel.condition && h.matches(point));
                points.push(PointVerdict {
                    condition: sel.condition.clone(),
                    point: point.to_string(),
                    held_out,
                    value,
                    bound,
                    margin,
                    met: margin >= 0.0,
                    detail: if value.is_finite() {
                        detail
                    } else {
                        "no value".to_string()
                    },
                });
            }
        }
        SetVerdict {
            seeds: seeds.to_vec(),
            points,
            skipped,
        }
    }
}

/// Whether `theirs` dominates `mine` on `scores`: no worse on both and
/// better on one, differences within the ties counting as equal.
fn dominates(scores: [Score; 2], ties: [Tie; 2], mine: [f64; 2], theirs: [f64; 2]) -> bool {
    let mut no_worse = true;
    let mut better = false;
    for i in 0..2 {
        let t = ties[i].width(mine[i]);
        // Positive when theirs is better.
        let gain = if scores[i].higher_is_better() {
            theirs[i] - mine[i]
        } else {
            mine[i] - theirs[i]
        };
        no_worse &= gain >= -t;
        better |= gain > t;
    }
    no_worse && better
}

impl Selector {
    fn matches(&self, label: &str) -> bool {
        self.points.is_empty() || self.points.iter().any(|p| label.contains(p.as_str()))
    }
}

/// Score values by condition, point, controller and score, per seed.
struct Means<'a> {
    rows: BTreeMap<(&'a str, &'a str, &'a str), Vec<&'a ScoreRow>>,
    points: Vec<(&'a str, &'a str)>,
}

impl<'a> Means<'a> {
    fn of(rows: &'a [ScoreRow]) -> Means<'a> {
        let mut by = BTreeMap::new();
        let mut points = Vec::new();
        for r in rows {
            by.entry((r.condition.as_str(), r.point.as_str(), r.cc.as_str()))
                .or_insert_with(Vec::new)
                .push(r);
            let p = (r.condition.as_str(), r.point.as_str());
            if !points.contains(&p) {
                points.push(p);
            }
        }
        Means { rows: by, points }
    }

    /// The points of `sel`, in the league's order.
    fn points(&self, sel: &Selector) -> Vec<&'a str> {
        self.points
            .iter()
            .filter(|(c, p)| *c == sel.condition && sel.matches(p))
            .map(|(_, p)| *p)
            .collect()
    }

    /// The mean of `score` over `seeds` (NaN without values).
    fn mean(&self, condition: &str, point: &str, cc: &str, score: Score, seeds: &[u64]) -> f64 {
        let v: Vec<f64> = self
            .rows
            .get(&(condition, point, cc))
            .map(|rs| {
                rs.iter()
                    .filter(|r| seeds.contains(&r.seed))
                    .map(|r| r.value(score))
                    .collect()
            })
            .unwrap_or_default();
        Stat::of(&v).mean
    }
}

/// Which seeds a verdict is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedSet {
    /// The seeds the controller was tuned on.
    Development,
    /// The others.
    HeldOut,
}

impl SeedSet {
    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            SeedSet::Development => "development",
            SeedSet::HeldOut => "held-out",
        }
    }
}

/// Every goal judged on each seed set.
#[derive(Clone, Debug)]
pub struct Verdicts {
    /// The controller.
    pub controller: String,
    /// The goal file's title.
    pub title: String,
    /// What the held-out points are.
    pub held_out_note: String,
    /// The seed sets judged, development first.
    pub sets: Vec<(SeedSet, Vec<u64>)>,
    /// Per goal.
    pub goals: Vec<GoalVerdict>,
}

/// One goal on each seed set.
#[derive(Clone, Debug)]
pub struct GoalVerdict {
    /// Its name.
    pub name: String,
    /// What it says.
    pub title: String,
    /// What it tests, in words.
    pub test: String,
    /// Per seed set, in [`Verdicts::sets`]' order.
    pub sets: Vec<SetVerdict>,
}

/// One goal on one seed set.
#[derive(Clone, Debug)]
pub struct SetVerdict {
    /// The seeds.
    pub seeds: Vec<u64>,
    /// Every point judged.
    pub points: Vec<PointVerdict>,
    /// Points left out by an `unless`, with why.
    pub skipped: Vec<String>,
}

/// One point of one goal on one seed set.
#[derive(Clone, Debug, PartialEq)]
pub struct PointVerdict {
    /// The condition.
    pub condition: String,
    /// The point's label.
    pub point: String,
    /// Whether the point is declared held out (never used for tuning).
    pub held_out: bool,
    /// The value tested (the count of dominating controllers for `pareto`).
    pub value: f64,
    /// The bound.
    pub bound: f64,
    /// How far inside the bound (negative: missed by that much).
    pub margin: f64,
    /// Whether the goal holds there.
    pub met: bool,
    /// The numbers behind it.
    pub detail: String,
}

impl PointVerdict {
    fn name(&self) -> String {
        format!(
            "{} {}{}",
            self.condition,
            self.point,
            if self.held_out { " [held-out]" } else { "" }
        )
    }
}

impl SetVerdict {
    /// How many points met the goal.
    pub fn met(&self) -> usize {
        self.points.iter().filter(|p| p.met).count()
    }

    /// `met of n`, with the held-out points' own count.
    pub fn count(&self) -> String {
        let held: Vec<&PointVerdict> = self.points.iter().filter(|p| p.held_out).collect();
        let mut s = format!("{} of {}", self.met(), self.points.len());
        if !held.is_empty() {
            s += &format!(
                " (held-out points {} of {})",
                held.iter().filter(|p| p.met).count(),
                held.len()
            );
        }
        s
    }

    /// The misses with by how much, or the closest point when none missed.
    pub fn misses(&self) -> String {
        let misses: Vec<String> = self
            .points
            .iter()
            .filter(|p| !p.met)
            .map(|p| {
                if p.margin.is_finite() && p.bound != 0.0 {
                    format!(
                        "{}: {} (missed by {})",
                        p.name(),
                        p.detail,
                        amount(-p.margin)
                    )
                } else {
                    format!("{}: {}", p.name(), p.detail)
                }
            })
            .collect();
        if !misses.is_empty() {
            return misses.join("; ");
        }
        match self
            .points
            .iter()
            .filter(|p| p.margin.is_finite())
            .min_by(|a, b| a.margin.total_cmp(&b.margin))
        {
            Some(p) if p.bound != 0.0 => {
                format!(
                    "closest: {}: {} (margin {})",
                    p.name(),
                    p.detail,
                    amount(p.margin)
                )
            }
            Some(_) => "-".to_string(),
            None => "no points".to_string(),
        }
    }
}

/// A margin with three decimals, or two significant digits below 0.001
/// (a miss by 0.0004 is not "0.000").
fn amount(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.001 {
        format!("{x:.1e}")
    } else {
        format!("{x:.3}")
    }
}

impl Verdicts {
    /// The goal table as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        let num = |v: f64| {
            if v.is_finite() {
                serde_json::Value::from(v)
            } else {
                serde_json::Value::Null
            }
        };
        serde_json::json!({
            "controller": self.controller,
            "title": self.title,
            "held_out_note": self.held_out_note,
            "sets": self.sets.iter().map(|(s, seeds)| serde_json::json!({"set": s.name(), "seeds": seeds})).collect::<Vec<_>>(),
            "goals": self.goals.iter().map(|g| serde_json::json!({
                "name": g.name,
                "title": g.title,
                "test": g.test,
                "sets": g.sets.iter().zip(&self.sets).map(|(v, (s, _))| serde_json::json!({
                    "set": s.name(),
                    "seeds": v.seeds,
                    "met": v.met(),
                    "points": v.points.len(),
                    "all_met": v.met() == v.points.len(),
                    "misses": v.misses(),
                    "skipped": v.skipped,
                    "judged": v.points.iter().map(|p| serde_json::json!({
                        "condition": p.condition,
                        "point": p.point,
                        "held_out_point": p.held_out,
                        "value": num(p.value),
                        "bound": num(p.bound),
                        "margin": num(p.margin),
                        "met": p.met,
                        "detail": p.detail,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }

    /// Writes goals.json, and goals.csv and goals.parquet (one row per
    /// goal, seed set and point), into `dir`.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let json = dir.join("goals.json");
        std::fs::write(&json, serde_json::to_string_pretty(&self.to_json())? + "\n")
            .with_context(|| format!("cannot write {}", json.display()))?;
        let mut rows = Vec::new();
        for g in &self.goals {
            for (v, (set, _)) in g.sets.iter().zip(&self.sets) {
                for p in &v.points {
                    let mut m = serde_json::Map::new();
                    m.insert("goal".into(), g.name.clone().into());
                    m.insert("set".into(), set.name().into());
                    m.insert(
                        "seeds".into(),
                        v.seeds
                            .iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join(" ")
                            .into(),
                    );
                    m.insert("condition".into(), p.condition.clone().into());
                    m.insert("point".into(), p.point.clone().into());
                    m.insert("held_out_point".into(), p.held_out.into());
                    for (k, x) in [("value", p.value), ("bound", p.bound), ("margin", p.margin)] {
                        if x.is_finite() {
                            m.insert(k.into(), x.into());
                        }
                    }
                    m.insert("met".into(), p.met.into());
                    m.insert("detail".into(), p.detail.clone().into());
                    rows.push(m);
                }
            }
        }
        let columns: Vec<String> = [
            "goal",
            "set",
            "seeds",
            "condition",
            "point",
            "held_out_point",
            "value",
            "bound",
            "margin",
            "met",
            "detail",
        ]
        .iter()
        .map(|c| c.to_string())
        .collect();
        super::write_table(dir, "goals", &columns, &rows)
    }

    fn set_header(&self, i: usize) -> String {
        let (set, seeds) = &self.sets[i];
        format!(
            "{} seeds {}",
            set.name(),
            seeds
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// The goal table, as text lines for the terminal.
    pub fn text(&self) -> Vec<String> {
        let mut lines = vec![format!("goals of {} ({}):", self.controller, self.title)];
        for g in &self.goals {
            for (i, v) in g.sets.iter().enumerate() {
                lines.push(format!(
                    "  {:>3} {:<24} {:<11} {}",
                    if i == 0 { g.name.as_str() } else { "" },
                    self.set_header(i),
                    v.count(),
                    if v.met() == v.points.len() {
                        "met"
                    } else {
                        "MISSED"
                    }
                ));
            }
        }
        lines
    }

    /// The report section: the goals, met or missed on each seed set and
    /// by how much, then every point judged.
    pub fn section(&self) -> Section {
        let header =
            ["goal", "test"]
                .into_iter()
                .map(String::from)
                .chain((0..self.sets.len()).flat_map(|i| {
                    let h = self.set_header(i);
                    [
                        format!("{h}: met"),
                        format!("{h}: misses (or the closest point)"),
                    ]
                }));
        let mut summary = Table::new(
            format!(
                "{}: each goal on the development and the held-out seeds",
                self.title
            ),
            header,
        );
        for g in &self.goals {
            let cells = [
                Cell::text(format!("{}. {}", g.name, g.title)),
                Cell::text(g.test.clone()),
            ]
            .into_iter()
            .chain(g.sets.iter().flat_map(|v| {
                [
                    Cell::text(format!(
                        "{}{}",
                        v.count(),
                        if v.met() == v.points.len() {
                            ": met"
                        } else {
                            ": missed"
                        }
                    )),
                    Cell::text(v.misses()),
                ]
            }));
            summary = summary.row(cells);
        }
        let header = ["goal", "condition", "point"]
            .into_iter()
            .map(String::from)
            .chain((0..self.sets.len()).map(|i| self.set_header(i)));
        let mut points = Table::new("Every point judged", header);
        for g in &self.goals {
            let Some(first) = g.sets.first() else {
                continue;
            };
            for (k, p) in first.points.iter().enumerate() {
                let cells = [
                    Cell::text(g.name.clone()),
                    Cell::text(p.condition.clone()),
                    Cell::text(format!(
                        "{}{}",
                        p.point,
                        if p.held_out { " [held-out]" } else { "" }
                    )),
                ]
                .into_iter()
                .chain(g.sets.iter().map(|v| {
                    v.points
                        .get(k)
                        .filter(|q| q.point == p.point && q.condition == p.condition)
                        .map_or(Cell::text("skipped"), |q| {
                            Cell::text(format!(
                                "{}: {}",
                                if q.met { "met" } else { "MISSED" },
                                q.detail
                            ))
                        })
                }));
                points = points.row(cells);
            }
        }
        let skipped: Vec<String> = self
            .goals
            .iter()
            .flat_map(|g| {
                g.sets
                    .iter()
                    .zip(&self.sets)
                    .filter(|(v, _)| !v.skipped.is_empty())
                    .map(|(v, (s, _))| {
                        format!(
                            "goal {} ({} seeds): {}",
                            g.name,
                            s.name(),
                            v.skipped.join("; ")
                        )
                    })
            })
            .collect();
        Section::new("goals", format!("Goals of {}", self.controller))
            .description(format!(
                "{}. Each goal is judged on the mean over a seed set's seeds at each point: the development seeds (those the controller was tuned on) \
                 and the held-out seeds (the league's others). Points marked [held-out] are {}. {}",
                self.title,
                if self.held_out_note.is_empty() { "declared held out by the goal file" } else { self.held_out_note.as_str() },
                if skipped.is_empty() {
                    String::new()
                } else {
                    format!("Points left out: {}.", skipped.join(" "))
                }
            ))
            .table(summary)
            .table(points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = "name = \"c\"\nduration = \"2s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n";

    fn conditions() -> Vec<Condition> {
        let c = |id: &str, sweep: &str| {
            Condition::from_str(
                &format!(
                    "{SCENARIO}[sweep]\n{sweep}\n[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nscores = [\"goodput\", \"retx\"]\n"
                ),
                Path::new(&format!("league/{id}.toml")),
            )
            .unwrap()
        };
        vec![
            c("lossy", "\"link.loss\" = [\"0\", \"1%\"]"),
            c("trace", "\"link.buffer\" = [\"0.5bdp\", \"4bdp\"]"),
        ]
    }

    fn controllers() -> Vec<String> {
        ["own", "bbr", "cubic"].map(String::from).to_vec()
    }

    const HEAD: &str = "controller = \"own\"\ntitle = \"Own's goals\"\ndevelopment_seeds = [1]\nheld_out = [{ condition = \"trace\", points = [\"4bdp\"] }]\n";

    fn file(goals: &str) -> Result<GoalFile, ScenarioError> {
        GoalFile::from_str(
            &format!("{HEAD}{goals}"),
            Path::new("goals/own.toml"),
            &conditions(),
            &controllers(),
        )
    }

    /// A row of `cc` at `condition`/`point` and `seed` with goodput `g` and retx `r`.
    fn row(condition: &str, point: &str, cc: &str, seed: u64, g: f64, r: f64) -> ScoreRow {
        ScoreRow::new(
            condition.into(),
            "g".into(),
            point.into(),
            cc.into(),
            seed,
            "id".into(),
            vec![Score::Goodput, Score::Retx],
            |s| if s == Score::Goodput { g } else { r },
        )
    }

    #[test]
    fn thresholds_ratios_and_differences_are_met_missed_and_say_by_how_much() {
        let f = file(
            "[[goal]]\nname = \"a\"\ntitle = \"goodput\"\ntest = \"at-least\"\nscore = \"goodput\"\nbound = 0.9\nat = [{ condition = \"lossy\" }]\n\
             [[goal]]\nname = \"b\"\ntitle = \"ratio\"\ntest = \"ratio-at-least\"\nscore = \"goodput\"\nversus = [\"bbr\"]\nbound = 0.9\nat = [{ condition = \"lossy\", points = [\"link.loss=1%\"] }]\n\
             [[goal]]\nname = \"c\"\ntitle = \"retx\"\ntest = \"difference-at-most\"\nscore = \"retx\"\nversus = [\"bbr\"]\nbound = 0.25\nat = [{ condition = \"lossy\" }]\n",
        )
        .unwrap();
        let rows = vec![
            // Seed 1 (development): own 0.95 / 0.85; seeds 2 and 3 (held out): 0.91 and 0.89 at loss 1%: mean 0.90 exactly.
            row("lossy", "link.loss=0", "own", 1, 0.95, 1.0),
            row("lossy", "link.loss=1%", "own", 1, 0.85, 1.5),
            row("lossy", "link.loss=0", "bbr", 1, 0.96, 1.0),
            row("lossy", "link.loss=1%", "bbr", 1, 0.90, 1.0),
            row("lossy", "link.loss=0", "own", 2, 0.95, 1.0),
            row("lossy", "link.loss=1%", "own", 2, 0.91, 1.25),
            row("lossy", "link.loss=0", "bbr", 2, 0.96, 1.0),
            row("lossy", "link.loss=1%", "bbr", 2, 1.0, 1.0),
            row("lossy", "link.loss=0", "own", 3, 0.95, 1.0),
            row("lossy", "link.loss=1%", "own", 3, 0.89, 1.25),
            row("lossy", "link.loss=0", "bbr", 3, 0.96, 1.0),
            row("lossy", "link.loss=1%", "bbr", 3, 1.0, 1.0),
        ];
        let v = f.judge(&rows);
        assert_eq!(
            v.sets,
            vec![
                (SeedSet::Development, vec![1]),
                (SeedSet::HeldOut, vec![2, 3])
            ]
        );
        let [a, b, c] = &v.goals[..] else { panic!() };
        // a: development misses 0.85 by 0.05; held out the mean 0.90 meets the bound exactly.
        assert_eq!((a.sets[0].met(), a.sets[0].points.len()), (1, 2));
        assert!((a.sets[0].points[1].margin + 0.05).abs() < 1e-9);
        assert!(
            a.sets[0]
                .misses()
                .contains("lossy link.loss=1%: 0.850 (missed by 0.050)"),
            "{}",
            a.sets[0].misses()
        );
        assert_eq!(a.sets[1].met(), 2, "{:?}", a.sets[1].points);
        // b: 0.85 / 0.90 = 0.944 met; held out 0.90 / 1.0 = 0.9 met (a tie with the bound is met).
        assert!(b.sets[0].points[0].met && b.sets[1].points[0].met);
        assert_eq!(b.sets[0].points.len(), 1);
        // c: development 1.5 - 1.0 = 0.5 > 0.25: missed by 0.25; held out 1.25 - 1.0 = 0.25: a tie, met.
        assert!(!c.sets[0].points[1].met);
        assert_eq!(c.sets[0].points[1].margin, -0.25);
        assert!(
            c.sets[1].points.iter().all(|p| p.met),
            "{:?}",
            c.sets[1].points
        );
        // The outputs hold it.
        let j = v.to_json();
        assert_eq!(j["goals"][0]["sets"][0]["all_met"], false);
        assert_eq!(j["goals"][0]["sets"][1]["met"], 2);
    }

    #[test]
    fn pareto_counts_dominators_with_ties_and_marks_held_out_points() {
        let f = file(
            "[[goal]]\nname = \"1\"\ntitle = \"front\"\ntest = \"pareto\"\nscores = [\"goodput\", \"retx\"]\nversus = [\"bbr\", \"cubic\"]\n\
             ties = { goodput = \"1%\", retx = 0.05 }\nat = [{ condition = \"trace\" }]\n",
        )
        .unwrap();
        let rows = vec![
            // 0.5 BDP: bbr 0.5 % more goodput and 0.04 less retx: both within the ties, not better.
            row("trace", "link.buffer=0.5bdp", "own", 1, 0.80, 1.00),
            row("trace", "link.buffer=0.5bdp", "bbr", 1, 0.804, 0.96),
            // cubic: 2 % more goodput, same retx: dominates.
            row("trace", "link.buffer=0.5bdp", "cubic", 1, 0.816, 1.00),
            // 4 BDP (held out): cubic more goodput but more retx: not dominating.
            row("trace", "link.buffer=4bdp", "own", 1, 0.80, 0.10),
            row("trace", "link.buffer=4bdp", "bbr", 1, 0.70, 0.10),
            row("trace", "link.buffer=4bdp", "cubic", 1, 0.90, 1.00),
        ];
        let v = f.judge(&rows);
        assert_eq!(v.sets.len(), 1, "no held-out seeds ran");
        let s = &v.goals[0].sets[0];
        assert_eq!((s.met(), s.points.len()), (1, 2));
        assert!(
            !s.points[0].met && s.points[0].detail.starts_with("dominated by cubic"),
            "{:?}",
            s.points[0]
        );
        assert!(
            !s.points[0].detail.contains("bbr"),
            "a tie is not domination: {}",
            s.points[0].detail
        );
        assert!(s.points[1].met && s.points[1].held_out && !s.points[0].held_out);
        assert_eq!(s.count(), "1 of 2 (held-out points 1 of 1)");
    }

    #[test]
    fn unless_leaves_points_out_and_a_missing_value_is_a_miss() {
        let f = file(
            "[[goal]]\nname = \"2b\"\ntitle = \"ratio\"\ntest = \"ratio-at-least\"\nscore = \"goodput\"\nversus = [\"bbr\"]\nbound = 0.9\n\
             at = [{ condition = \"lossy\", unless = { cc = \"bbr\", score = \"goodput\", above = 0.6 } }]\n",
        )
        .unwrap();
        let rows = vec![
            row("lossy", "link.loss=0", "own", 1, 0.5, 1.0),
            row("lossy", "link.loss=0", "bbr", 1, 0.7, 1.0),
            row("lossy", "link.loss=1%", "own", 1, f64::NAN, 1.0),
            row("lossy", "link.loss=1%", "bbr", 1, 0.5, 1.0),
        ];
        let s = &f.judge(&rows).goals[0].sets[0];
        assert_eq!(s.points.len(), 1);
        assert_eq!(s.skipped.len(), 1);
        assert!(
            s.skipped[0].contains("link.loss=0 (bbr's goodput 0.700 > 0.6)"),
            "{:?}",
            s.skipped
        );
        assert!(!s.points[0].met && s.points[0].detail == "no value");
    }

    #[test]
    fn bad_goal_files_name_file_line_and_key() {
        // HEAD has 4 lines; the goal starts at line 5.
        let g = |rest: &str| format!("[[goal]]\nname = \"1\"\ntitle = \"t\"\n{rest}");
        for (goals, key, line, want) in [
            (g("test = \"at-least\"\nscore = \"goodput\"\nbound = 0.9\nat = [{ condition = \"lossy\" }]\nwhere = 1\n"), "where", 12, "unknown field `where`"),
            (g("test = \"above\"\nat = [{ condition = \"lossy\" }]\n"), "goal[0].test", 8, "unknown test `above`"),
            (g("test = \"at-least\"\nscore = \"latency\"\nbound = 0.9\nat = [{ condition = \"lossy\" }]\n"), "goal[0].score", 9, "unknown score `latency`"),
            (g("test = \"at-least\"\nscore = \"goodput\"\nat = [{ condition = \"lossy\" }]\n"), "goal[0].bound", 8, "needs the key `bound`"),
            (g("test = \"at-least\"\nscore = \"goodput\"\nbound = 0.9\nat = [{ condition = \"nosuch\" }]\n"), "goal[0].at[0].condition", 11, "unknown condition `nosuch`"),
            (g("test = \"at-least\"\nscore = \"goodput\"\nbound = 0.9\nat = [{ condition = \"lossy\", points = [\"link.loss=5%\"] }]\n"), "goal[0].at[0].points", 11, "no point of condition `lossy` contains `link.loss=5%`"),
            (g("test = \"ratio-at-least\"\nscore = \"goodput\"\nversus = [\"vegas\"]\nbound = 0.9\nat = [{ condition = \"lossy\" }]\n"), "goal[0].versus", 10, "controller `vegas` is not in the league's field"),
            (g("test = \"ratio-at-least\"\nscore = \"goodput\"\nbound = 0.9\nat = [{ condition = \"lossy\" }]\n"), "goal[0].versus", 8, "compares with one controller"),
            (g("test = \"pareto\"\nscores = [\"goodput\", \"retx\"]\nversus = [\"bbr\"]\nties = { retx = \"x\" }\nat = [{ condition = \"lossy\" }]\n"), "goal[0].ties.retx", 11, "a percentage like"),
            (g("test = \"pareto\"\nscores = [\"goodput\"]\nversus = [\"bbr\"]\nat = [{ condition = \"lossy\" }]\n"), "goal[0].scores", 9, "two different scores"),
            (g("test = \"at-least\"\nscore = \"goodput\"\nbound = \"high\"\nat = [{ condition = \"lossy\" }]\n"), "bound", 10, "invalid type"),
        ] {
            let e = file(&goals).unwrap_err();
            assert_eq!((e.key.as_deref(), e.line), (Some(key), Some(line)), "{e}");
            assert!(e.to_string().starts_with("goals/own.toml: "), "{e}");
            assert!(e.message.contains(want), "{e}");
        }
        // The file's own keys.
        let e = GoalFile::from_str("controller = \"vegas\"\ntitle = \"t\"\ndevelopment_seeds = [1]\n[[goal]]\nname = \"1\"\ntitle = \"t\"\ntest = \"pareto\"\nat = []\n", Path::new("g.toml"), &conditions(), &controllers()).unwrap_err();
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("controller"), Some(1)),
            "{e}"
        );
        let e = file("").unwrap_err();
        assert!(e.message.contains("missing field `goal`"), "{e}");
        let twice = g("test = \"at-least\"\nscore = \"goodput\"\nbound = 0.9\nat = [{ condition = \"lossy\" }]\n");
        let e = file(&format!("{twice}{twice}")).unwrap_err();
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("goal[1].name"), Some(13)),
            "{e}"
        );
    }

    #[test]
    fn the_scores_read_are_recorded() {
        let f = file(
            "[[goal]]\nname = \"2b\"\ntitle = \"ratio\"\ntest = \"ratio-at-least\"\nscore = \"goodput\"\nversus = [\"bbr\"]\nbound = 0.9\n\
             at = [{ condition = \"lossy\", unless = { cc = \"bbr\", score = \"share\", above = 0.6 } }]\n",
        )
        .unwrap();
        assert_eq!(f.scores(), vec![Score::Goodput, Score::Share]);
    }
}
