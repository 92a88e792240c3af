//! The league: every registered controller over a declared set of
//! conditions, scored, ranked and drawn.
//!
//! The reproduction suites answer "does the paper's controller do what
//! its paper says?", one paper at a time. The league answers the users'
//! questions across papers: *which controller should I deploy on my
//! paths?* and *is my variant better than all of these, everywhere?*
//!
//! **Conditions** are files (`scenarios/league/*.toml`, see
//! [`condition`]): a scenario whose `[sweep]` varies only the path, and a
//! `[league]` table naming the *subject* flows (whose controller the
//! league sets), the group the condition counts in, where its setting
//! comes from, and the scores that apply. **Controllers** come from the
//! registry (`cc::algorithms()`): each algorithm's default spec and its
//! declared variants ([`cc::AlgorithmInfo::specs`]), so a controller
//! registered tomorrow is a new row of the scoreboard and a new condition
//! file a new column, with no code here. Users narrow the field
//! (`--cc bbr,obbr`) or add specs (`--add obbr:mu=0.75`).
//!
//! **Runs**: every condition point x controller x seed is a scenario; when
//! a condition scores `harm`, each point and seed also runs without the
//! subject flows (the cross traffic alone). They all go through one
//! results store ([`crate::sweep::run_points`]): parallel, resumable,
//! content-addressed, so a second invocation reuses every recorded run.
//!
//! **Scores** ([`score`]) are computed per run; **rankings** ([`rank`])
//! normalise them per condition point and seed, weight them, average per
//! group and over groups. The page ([`page`]) shows the scoreboard,
//! per-group rankings and Pantheon-style Pareto plots; `scores.csv` /
//! `scores.parquet` hold every score of every run and `aggregate.csv` /
//! `aggregate.parquet` the indices. [`advise`] runs the same machinery on
//! one user's path and recommends a controller.

pub mod advise;
pub mod condition;
pub mod goals;
pub mod page;
pub mod rank;
pub mod score;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use scenario::{Scenario, SweepPoint};

pub use condition::Condition;
pub use rank::{Standings, Weights};
pub use score::Score;

use crate::store::Store;
use crate::sweep::{Progress, SweepReport};

/// The controllers of the league: every registered algorithm's default
/// spec and declared variants, narrowed to the algorithms `only` names
/// (all when empty; a spec with parameters there is taken as given), then
/// the specs of `add`. Every spec is checked; duplicates are dropped.
pub fn controllers(only: &[String], add: &[String]) -> anyhow::Result<Vec<String>> {
    let mut specs: Vec<String> = Vec::new();
    for name in only {
        let name = name.trim();
        if name.contains(':') {
            continue;
        }
        anyhow::ensure!(
            cc::find(name).is_some(),
            "--cc: unknown algorithm `{name}`; known algorithms: {}",
            cc::algorithms()
                .iter()
                .map(|a| a.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for info in cc::algorithms() {
        if only.is_empty() || only.iter().any(|n| n.trim() == info.name) {
            specs.extend(info.specs());
        }
    }
    let given = only.iter().filter(|s| s.contains(':')).map(|s| ("--cc", s));
    for (flag, spec) in given.chain(add.iter().map(|s| ("--add", s))) {
        cc::AlgorithmSpec::parse(spec.trim()).map_err(|e| anyhow::anyhow!("{flag} {spec}: {e}"))?;
        specs.push(spec.trim().to_string());
    }
    let mut unique = Vec::new();
    for s in specs {
        if !unique.contains(&s) {
            unique.push(s);
        }
    }
    Ok(unique)
}

/// What the league runs.
#[derive(Clone, Debug)]
pub struct League {
    /// The conditions.
    pub conditions: Vec<Condition>,
    /// The controllers' specs.
    pub controllers: Vec<String>,
    /// The seeds of every point.
    pub seeds: Vec<u64>,
    /// Each condition's shortened version (its `[fast]` table).
    pub fast: bool,
    /// Scores computed at every condition besides its own (what a goal
    /// file reads, e.g. goodput beside CUBIC); recorded, never ranked.
    pub record: Vec<Score>,
}

/// One run the league plans.
#[derive(Clone, Debug)]
struct Planned {
    condition: usize,
    point: String,
    /// The subjects' controller; `None` for the cross traffic alone.
    cc: Option<String>,
    seed: u64,
    id: String,
    /// The subject flows' ids in the run (entries expanded by `count`).
    subjects: Vec<usize>,
}

/// The runs planned, and the scenarios to run (one per distinct run id).
type Plan = (Vec<Planned>, Vec<(SweepPoint, Scenario)>);

/// The label of a condition point: its path parameters, or "default".
fn point_label(point: &SweepPoint) -> String {
    if point.params.is_empty() {
        "default".to_string()
    } else {
        point.to_string()
    }
}

/// Flow ids of the `entries` of `scenario`'s `[[flow]]` list.
fn expanded(scenario: &Scenario, entries: &[usize]) -> Vec<usize> {
    let mut ids = Vec::new();
    let mut next = 0usize;
    for (i, f) in scenario.config.flows.iter().enumerate() {
        let n = f.count as usize;
        if entries.contains(&i) {
            ids.extend(next..next + n);
        }
        next += n;
    }
    ids
}

/// `scenario` without the `[[flow]]` entries `subject`: the cross traffic alone.
fn without_subjects(scenario: &Scenario, subject: &[usize]) -> anyhow::Result<Scenario> {
    let mut doc: toml_edit::DocumentMut = scenario
        .document
        .parse()
        .context("re-reading an effective scenario")?;
    let flows = doc
        .get_mut("flow")
        .and_then(|f| f.as_array_of_tables_mut())
        .context("the scenario's flows are not an array of tables")?;
    let mut drop: Vec<usize> = subject.to_vec();
    drop.sort_unstable();
    for i in drop.into_iter().rev() {
        flows.remove(i);
    }
    Ok(scenario::from_str(&doc.to_string(), &scenario.source, &[])?)
}

impl League {
    /// Every run: the plan and the scenarios to run (one per distinct id).
    fn plan(&self) -> anyhow::Result<Plan> {
        anyhow::ensure!(!self.controllers.is_empty(), "no controllers to run");
        anyhow::ensure!(!self.seeds.is_empty(), "no seeds to run");
        let mut plan = Vec::new();
        let mut scenarios: BTreeMap<String, (SweepPoint, Scenario)> = BTreeMap::new();
        let mut order = Vec::new();
        let mut add = |label: SweepPoint, s: Scenario, order: &mut Vec<String>| {
            let id = crate::store::run_id(&s);
            if !scenarios.contains_key(&id) {
                order.push(id.clone());
                scenarios.insert(id.clone(), (label, s));
            }
            id
        };
        for (ci, c) in self.conditions.iter().enumerate() {
            let sweep = if self.fast {
                c.sweep.clone().fast()?
            } else {
                c.sweep.clone()
            };
            for point in sweep.points() {
                let label = point_label(&point);
                for &seed in &self.seeds {
                    let mut first: Option<Scenario> = None;
                    for cc in &self.controllers {
                        let mut p = point.clone();
                        p.params.push(("seed".into(), seed.to_string().into()));
                        for i in &c.subject {
                            p.params.push((format!("flow.{i}.cc"), cc.as_str().into()));
                        }
                        let s = sweep.scenario(&p).map_err(|mut e| {
                            e.message = format!("{} (at {label}, controller {cc})", e.message);
                            e
                        })?;
                        s.check_simulable()?;
                        let subjects = expanded(&s, &c.subject);
                        let tag = SweepPoint {
                            params: vec![
                                ("condition".into(), c.id.as_str().into()),
                                ("point".into(), label.as_str().into()),
                                ("cc".into(), cc.as_str().into()),
                                ("seed".into(), seed.to_string().into()),
                            ],
                        };
                        first.get_or_insert_with(|| s.clone());
                        let id = add(tag, s, &mut order);
                        plan.push(Planned {
                            condition: ci,
                            point: label.clone(),
                            cc: Some(cc.clone()),
                            seed,
                            id,
                            subjects,
                        });
                    }
                    if c.scores.contains(&Score::Harm) {
                        let s =
                            without_subjects(first.as_ref().expect("a controller"), &c.subject)?;
                        let tag = SweepPoint {
                            params: vec![
                                ("condition".into(), c.id.as_str().into()),
                                ("point".into(), label.as_str().into()),
                                ("cc".into(), "(cross traffic alone)".into()),
                                ("seed".into(), seed.to_string().into()),
                            ],
                        };
                        let id = add(tag, s, &mut order);
                        plan.push(Planned {
                            condition: ci,
                            point: label.clone(),
                            cc: None,
                            seed,
                            id,
                            subjects: Vec::new(),
                        });
                    }
                }
            }
        }
        let runs = order
            .into_iter()
            .map(|id| scenarios.remove(&id).expect("planned"))
            .collect();
        Ok((plan, runs))
    }

    /// The number of distinct runs the league needs.
    pub fn runs(&self) -> anyhow::Result<usize> {
        Ok(self.plan()?.1.len())
    }

    /// Runs what the store at `out` lacks (`jobs` at a time) and scores
    /// every run: one row per condition point x controller x seed, in
    /// plan order (conditions, points, seeds, controllers).
    pub fn run(
        &self,
        out: &Path,
        jobs: usize,
        progress: &dyn Progress,
    ) -> anyhow::Result<(Vec<ScoreRow>, SweepReport)> {
        let (plan, runs) = self.plan()?;
        let report = crate::sweep::run_points(out, runs, jobs, None, progress)?;
        if !report.failures.is_empty() {
            anyhow::bail!(
                "{} of {} runs failed: {}",
                report.failures.len(),
                report.total,
                report.failures.join("; ")
            );
        }
        Ok((self.score(out, &plan)?, report))
    }

    fn score(&self, out: &Path, plan: &[Planned]) -> anyhow::Result<Vec<ScoreRow>> {
        let store = Store::open(out)?;
        let summary = |id: &str| -> anyhow::Result<sim::RunResult> {
            let record = store
                .get(id)
                .with_context(|| format!("{}: run {id} has no record", out.display()))?;
            let result = record
                .result()
                .with_context(|| format!("{}", store.record_path(id).display()))?;
            Ok(result.clone())
        };
        let mut alone: BTreeMap<(usize, &str, u64), sim::RunResult> = BTreeMap::new();
        for p in plan.iter().filter(|p| p.cc.is_none()) {
            alone.insert((p.condition, p.point.as_str(), p.seed), summary(&p.id)?);
        }
        let mut rows = Vec::new();
        for p in plan {
            let Some(cc) = &p.cc else { continue };
            let c = &self.conditions[p.condition];
            let run = summary(&p.id)?;
            let base = alone.get(&(p.condition, p.point.as_str(), p.seed));
            let value = |s: Score| s.of(&run, &p.subjects, base);
            rows.push(
                ScoreRow::new(
                    c.id.clone(),
                    c.group.clone(),
                    p.point.clone(),
                    cc.clone(),
                    p.seed,
                    p.id.clone(),
                    c.scores.clone(),
                    value,
                )
                .recording(&self.record, value),
            );
        }
        Ok(rows)
    }
}

/// The scores of one run: a controller at one condition point and seed.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreRow {
    /// The condition's id (its file's stem).
    pub condition: String,
    /// The condition's group.
    pub group: String,
    /// The condition point (its path parameters).
    pub point: String,
    /// The subjects' controller spec.
    pub cc: String,
    /// The seed.
    pub seed: u64,
    /// The run's id in the store.
    pub run: String,
    /// The scores that apply to the condition.
    pub applies: Vec<Score>,
    values: BTreeMap<Score, f64>,
}

impl ScoreRow {
    /// A row whose applying scores are `value(score)`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        condition: String,
        group: String,
        point: String,
        cc: String,
        seed: u64,
        run: String,
        applies: Vec<Score>,
        value: impl Fn(Score) -> f64,
    ) -> ScoreRow {
        let values = applies.iter().map(|&s| (s, value(s))).collect();
        ScoreRow {
            condition,
            group,
            point,
            cc,
            seed,
            run,
            applies,
            values,
        }
    }

    /// The row with `extra` scores recorded too (`value(score)`), outside
    /// [`ScoreRow::applies`]: read by goals, not ranked.
    pub fn recording(mut self, extra: &[Score], value: impl Fn(Score) -> f64) -> ScoreRow {
        for &s in extra {
            self.values.entry(s).or_insert_with(|| value(s));
        }
        self
    }

    /// The value of `score`: NaN when it was not computed or has no value.
    pub fn value(&self, score: Score) -> f64 {
        self.values.get(&score).copied().unwrap_or(f64::NAN)
    }

    /// The row as a JSON object: its keys, then every score (null where
    /// it does not apply or has no value).
    pub fn to_json(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("condition".into(), self.condition.clone().into());
        m.insert("group".into(), self.group.clone().into());
        m.insert("point".into(), self.point.clone().into());
        m.insert("cc".into(), self.cc.clone().into());
        m.insert("seed".into(), self.seed.into());
        m.insert("run".into(), self.run.clone().into());
        for s in Score::ALL {
            let v = self.value(s);
            m.insert(
                s.name().into(),
                if v.is_finite() {
                    v.into()
                } else {
                    serde_json::Value::Null
                },
            );
        }
        m
    }
}

/// Writes `rows` as `stem`.csv and `stem`.parquet in `dir`, with the
/// given `columns` in that order (a missing value is empty in CSV, null
/// in Parquet).
pub fn write_table(
    dir: &Path,
    stem: &str,
    columns: &[String],
    rows: &[serde_json::Map<String, serde_json::Value>],
) -> anyhow::Result<()> {
    let csv_path = dir.join(format!("{stem}.csv"));
    let mut w = csv::Writer::from_path(&csv_path)
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    w.write_record(columns)?;
    for r in rows {
        w.write_record(columns.iter().map(
            |c| match r.get(c).unwrap_or(&serde_json::Value::Null) {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            },
        ))?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    let order: Vec<&str> = columns.iter().map(String::as_str).collect();
    let parquet_path = dir.join(format!("{stem}.parquet"));
    crate::table::write_parquet_in_order(&parquet_path, rows, &order)
        .with_context(|| format!("cannot write {}", parquet_path.display()))
}

/// The aggregate table: per controller and group (and `overall`), the
/// rank, the index (mean, sd over seeds) and each score's raw mean and sd.
pub fn aggregate(standings: &Standings) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let num = |v: f64| {
        if v.is_finite() {
            serde_json::Value::from(v)
        } else {
            serde_json::Value::Null
        }
    };
    let mut rows = Vec::new();
    let groups = std::iter::once(("overall".to_string(), &standings.overall)).chain(
        standings
            .groups
            .iter()
            .filter_map(|g| standings.by_group.get(g).map(|s| (g.clone(), s))),
    );
    for (group, ranking) in groups {
        for st in ranking {
            let mut m = serde_json::Map::new();
            m.insert("group".into(), group.clone().into());
            m.insert("cc".into(), st.cc.clone().into());
            m.insert("rank".into(), st.rank.into());
            m.insert("index".into(), num(st.index.mean));
            m.insert("index_sd".into(), num(st.index.sd));
            m.insert("seeds".into(), st.index.n.into());
            for s in Score::ALL {
                let stat = standings
                    .raw
                    .get(&(st.cc.clone(), group.clone(), s))
                    .copied();
                m.insert(s.name().into(), num(stat.map_or(f64::NAN, |x| x.mean)));
                m.insert(
                    format!("{}_sd", s.name()),
                    num(stat.map_or(f64::NAN, |x| x.sd)),
                );
            }
            rows.push(m);
        }
    }
    rows
}

/// Writes what a league's `rows` give into `out`: scores.csv and
/// scores.parquet (every run's scores), aggregate.csv and
/// aggregate.parquet (indices and raw means per controller and group),
/// and report.html, with `first` sections (made from the standings) at
/// the top. Returns the standings.
pub fn write_outputs(
    out: &Path,
    league: &League,
    rows: &[ScoreRow],
    weights: &Weights,
    title: &str,
    first: impl FnOnce(&Standings) -> Vec<report::Section>,
) -> anyhow::Result<Standings> {
    let standings = rank::standings(rows, weights);
    let table: Vec<_> = rows.iter().map(ScoreRow::to_json).collect();
    let keys = ["condition", "group", "point", "cc", "seed", "run"];
    let columns: Vec<String> = keys
        .iter()
        .map(|k| k.to_string())
        .chain(Score::ALL.iter().map(|s| s.name().to_string()))
        .collect();
    write_table(out, "scores", &columns, &table)?;
    let keys = ["group", "cc", "rank", "index", "index_sd", "seeds"];
    let columns: Vec<String> = keys
        .iter()
        .map(|k| k.to_string())
        .chain(
            Score::ALL
                .iter()
                .flat_map(|s| [s.name().to_string(), format!("{}_sd", s.name())]),
        )
        .collect();
    write_table(out, "aggregate", &columns, &aggregate(&standings))?;
    let page = page::Page {
        title: title.to_string(),
        dir: out,
        conditions: &league.conditions,
        controllers: &league.controllers,
        seeds: &league.seeds,
        standings: &standings,
        weights,
        first: first(&standings),
        fast: league.fast,
    };
    let path = out.join("report.html");
    std::fs::write(&path, report::render_html(&page.report()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(standings)
}

/// The most seeds a league runs per point.
pub const MAX_SEEDS: usize = 100;

/// The seeds `--seeds` names: `N` (seeds 1 to N), a range `A-B` (A to B,
/// e.g. `3-5` for held-out seeds beside tuning seeds 1-2) or a list
/// `1,2,7`; 1 to [`MAX_SEEDS`] distinct seeds.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let expected = "expected a count N (seeds 1 to N), a range A-B (e.g. 3-5) or a list 1,2,7";
    let number = |t: &str| -> Result<u64, String> {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("`{}` is not a seed number; {expected}", t.trim()))
    };
    let text = text.trim();
    let seeds: Vec<u64> = if text.contains(',') {
        text.split(',').map(number).collect::<Result<_, _>>()?
    } else if let Some((a, b)) = text.split_once('-') {
        let (a, b) = (number(a)?, number(b)?);
        if a > b {
            return Err(format!("the range ends before it starts; {expected}"));
        }
        if b - a >= MAX_SEEDS as u64 {
            return Err(format!("more than {MAX_SEEDS} seeds"));
        }
        (a..=b).collect()
    } else {
        let n = number(text)?;
        if n == 0 || n > MAX_SEEDS as u64 {
            return Err(format!("expected a count from 1 to {MAX_SEEDS}"));
        }
        (1..=n).collect()
    };
    let mut unique = seeds.clone();
    unique.sort_unstable();
    unique.dedup();
    if unique.len() != seeds.len() {
        return Err(format!(
            "seed {} is named twice",
            seeds
                .iter()
                .find(|s| seeds.iter().filter(|t| t == s).count() > 1)
                .unwrap_or(&0)
        ));
    }
    if seeds.len() > MAX_SEEDS {
        return Err(format!("more than {MAX_SEEDS} seeds"));
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_a_count_a_range_or_a_list() {
        assert_eq!(parse_seeds("3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("3-5").unwrap(), vec![3, 4, 5]);
        assert_eq!(parse_seeds("1,2,7").unwrap(), vec![1, 2, 7]);
        for (bad, want) in [
            ("0", "a count from 1 to 100"),
            ("101", "a count from 1 to 100"),
            ("5-3", "ends before it starts"),
            ("1-200", "more than 100 seeds"),
            ("1,x", "`x` is not a seed number"),
            ("1,2,1", "seed 1 is named twice"),
            ("", "is not a seed number"),
        ] {
            let e = parse_seeds(bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn the_field_is_the_registry_with_its_variants_and_grows_with_it() {
        let all = controllers(&[], &[]).unwrap();
        for info in cc::algorithms() {
            assert!(
                all.contains(&info.name.to_string()),
                "{} missing",
                info.name
            );
        }
        assert!(all.contains(&"obbr:code=true".to_string()));
        // A controller registered later is in the next league, with no
        // change here.
        let info = || {
            cc::AlgorithmInfo::new("league-test-cc", "a test", |_, config| {
                cc::AlgorithmSpec::parse("reno").unwrap().build(config)
            })
        };
        // A variant that is not a valid setting is refused at registration.
        assert!(cc::register(info().variant("nosuch=1", "bad")).is_err());
        cc::register(info()).unwrap();
        let grown = controllers(&[], &[]).unwrap();
        assert_eq!(grown.len(), all.len() + 1);
        assert_eq!(grown.last().map(String::as_str), Some("league-test-cc"));
        // Narrowed by name (with the variants), extended by spec.
        let some = controllers(&["obbr".into()], &["bbr:cwnd_gain=3".into()]).unwrap();
        assert_eq!(some, vec!["obbr", "obbr:code=true", "bbr:cwnd_gain=3"]);
        let e = controllers(&["vegas".into()], &[]).unwrap_err().to_string();
        assert!(e.contains("--cc: unknown algorithm `vegas`"), "{e}");
        let e = controllers(&[], &["obbr:nosuch=1".into()])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--add obbr:nosuch=1: "), "{e}");
    }
}
