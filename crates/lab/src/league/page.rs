//! The league's page: the scoreboard (controllers x groups, with spread
//! over seeds), the overall ranking and its method, one section per group
//! with its ranking and Pantheon-style Pareto plots, and the conditions
//! with their sources.

use std::path::Path;

use report::{Cell, Figure, Line, LineStyle, Report, Section, Table};

use super::rank::{Standing, Standings, Weights};
use super::score::Score;
use super::Condition;

/// What the page shows.
pub struct Page<'a> {
    /// The page title.
    pub title: String,
    /// The output directory (for provenance).
    pub dir: &'a Path,
    /// The conditions.
    pub conditions: &'a [Condition],
    /// The controllers, as run.
    pub controllers: &'a [String],
    /// The seeds.
    pub seeds: &'a [u64],
    /// The rankings.
    pub standings: &'a Standings,
    /// The weights they used.
    pub weights: &'a Weights,
    /// Sections to put first (advise's recommendation).
    pub first: Vec<Section>,
    /// Whether the conditions ran shortened (their `[fast]` tables).
    pub fast: bool,
}

/// The method of the ranking, as the page states it.
pub const METHOD: &str = "Each score is normalised at each condition point and seed across the controllers by its distance from the best: \
    n = 1 − |v − best| / max(|best|, |worst|, |best − worst|), 1 for the best, small differences beside the values' size staying small \
    (a controller without a value, such as CUBIC's Startup exit, is left out of that score). \
    A group index is the weighted mean over the group's scores of the normalised scores averaged over the group's points; \
    the overall index is the mean of the group indices, each group counting once. \
    Indices are computed per seed; tables show mean ± sd over seeds, and ranks follow the mean (equal means within 1e-9 share a rank).";

impl Page<'_> {
    /// The report.
    pub fn report(self) -> Report {
        let s = self.standings;
        let mut report = Report::new(
            self.title.clone(),
            format!(
                "{} controllers x {} conditions in {} groups, seeds {}",
                self.controllers.len(),
                self.conditions.len(),
                s.groups.len(),
                self.seeds
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .provenance("directory", self.dir.display().to_string())
        .provenance("weights", self.weights.text());
        report = crate::pages::with_invocation(
            report,
            self.dir,
            format!(
                "{} (commit {})",
                crate::provenance::build_id().0,
                crate::provenance::build_id().1
            ),
        );
        for section in self.first {
            report = report.section(section);
        }
        report = report.section(scoreboard(s));
        report = report.section(overall(s, self.weights));
        for (i, g) in s.groups.iter().enumerate() {
            report = report.section(group_section(s, g, i, self.conditions));
        }
        report.section(conditions_section(
            self.conditions,
            self.controllers,
            self.fast,
        ))
    }
}

/// The scoreboard: one row per controller in overall order, its overall
/// index and each group's.
fn scoreboard(s: &Standings) -> Section {
    let table = ranking_table(
        "Indices (1 = best at every point and seed), mean ± sd over seeds",
        "overall",
        s.groups.clone(),
        &s.overall,
        |st| {
            s.groups
                .iter()
                .map(|g| {
                    s.in_group(&st.cc, g).map_or(Cell::Empty, |x| {
                        Cell::text(format!("{} (#{})", x.index.text(3), x.rank))
                    })
                })
                .collect()
        },
    );
    let bars = Figure::bars(
        "Overall index",
        "controller",
        "index (mean over seeds)",
        s.overall.iter().map(|x| x.cc.clone()),
        vec![
            report::BarGroup::new("overall", s.overall.iter().map(|x| x.index.mean).collect())
                .errors(
                    s.overall
                        .iter()
                        .map(|x| {
                            if x.index.sd.is_finite() {
                                x.index.sd
                            } else {
                                0.0
                            }
                        })
                        .collect(),
                ),
        ],
    )
    .y_range(0.0, 1.0)
    .size(900, 400);
    Section::new("scoreboard", "Scoreboard")
        .description(
            "Every controller's index overall and in each group of conditions, its rank in the group in brackets. \
             An index is 1 for a controller that is best on every score at every point and seed of the group; \
             it falls with the controller's distance from the best values (see the ranking's method).",
        )
        .table(table)
        .figure(bars)
}

/// The overall ranking with each score's normalised mean over groups.
fn overall(s: &Standings, weights: &Weights) -> Section {
    let scores: Vec<Score> = Score::ALL
        .into_iter()
        .filter(|sc| s.group_scores.values().any(|v| v.contains(sc)))
        .collect();
    let columns = scores
        .iter()
        .map(|sc| format!("{sc} (normalised, w={})", weights.of(*sc)))
        .collect();
    let table = ranking_table("Overall ranking", "index", columns, &s.overall, |st| {
        scores
            .iter()
            .map(|sc| {
                let v: Vec<f64> = s
                    .groups
                    .iter()
                    .filter_map(|g| s.normalised.get(&(st.cc.clone(), g.clone(), *sc)))
                    .map(|x| x.mean)
                    .collect();
                let m = crate::stats::Stat::of(&v);
                if m.n == 0 {
                    Cell::Empty
                } else {
                    Cell::fixed(m.mean, 3)
                }
            })
            .collect()
    });
    let mut section = Section::new("ranking", "Overall ranking")
        .description(format!(
            "{METHOD} Weights: {}. Change them with --weights (e.g. --weights goodput=2,delay=0.5); \
             the normalised columns are means over the groups that have the score.",
            weights.text()
        ))
        .table(table);
    for fig in pareto(s, None) {
        section = section.figure(fig);
    }
    section
}

/// A group's ranking, its raw scores and its Pareto plots.
fn group_section(s: &Standings, group: &str, i: usize, conditions: &[Condition]) -> Section {
    let scores = s.group_scores.get(group).cloned().unwrap_or_default();
    let columns = scores.iter().map(|sc| sc.label().to_string()).collect();
    let ranking = s.by_group.get(group).map_or(&[][..], Vec::as_slice);
    let table = ranking_table(
        &format!("{group}: ranking, raw scores mean ± sd over seeds"),
        "index",
        columns,
        ranking,
        |st| {
            scores
                .iter()
                .map(|sc| {
                    s.raw
                        .get(&(st.cc.clone(), group.to_string(), *sc))
                        .map_or(Cell::Empty, |x| x.cell(sc.decimals()))
                })
                .collect()
        },
    );
    let members: Vec<String> = conditions
        .iter()
        .filter(|c| c.group == group)
        .map(|c| format!("{} ({})", c.title, c.id))
        .collect();
    let mut section = Section::new(format!("group-{i}"), format!("Group: {group}"))
        .description(format!(
            "Conditions: {}. Raw scores are per seed the mean over the group's points, then mean ± sd over seeds.",
            members.join("; ")
        ))
        .table(table);
    for fig in pareto(s, Some(group)) {
        section = section.figure(fig);
    }
    section
}

/// A ranking as a table: rank, controller, the index (headed `index`),
/// then `columns` filled by `rest`.
fn ranking_table(
    caption: &str,
    index: &str,
    columns: Vec<String>,
    ranking: &[Standing],
    rest: impl Fn(&Standing) -> Vec<Cell>,
) -> Table {
    let header = ["rank", "controller", index]
        .into_iter()
        .map(String::from)
        .chain(columns);
    let mut table = Table::new(caption, header);
    for st in ranking {
        let cells = [
            Cell::text(st.rank.to_string()),
            Cell::text(st.cc.clone()),
            st.index.cell(3),
        ]
        .into_iter()
        .chain(rest(st));
        table = table.row(cells);
    }
    table
}

/// Pantheon-style plots of goodput against retransmissions and against
/// delay, one point per controller (means over `group`'s points and
/// seeds, or over every group with both scores), the Pareto frontier
/// dashed.
fn pareto(s: &Standings, group: Option<&str>) -> Vec<Figure> {
    let mut figures = Vec::new();
    for x_score in [Score::Retx, Score::Delay] {
        let mut lines = Vec::new();
        let mut points = Vec::new();
        for st in &s.overall {
            let groups: Vec<&String> = s
                .groups
                .iter()
                .filter(|g| group.is_none_or(|want| want == g.as_str()))
                .collect();
            let of = |sc: Score| {
                let v: Vec<f64> = groups
                    .iter()
                    .filter(|g| {
                        s.group_scores
                            .get(g.as_str())
                            .is_some_and(|v| v.contains(&Score::Goodput) && v.contains(&x_score))
                    })
                    .filter_map(|g| s.raw.get(&(st.cc.clone(), (*g).clone(), sc)))
                    .map(|x| x.mean)
                    .collect();
                crate::stats::Stat::of(&v).mean
            };
            let (x, y) = (of(x_score), of(Score::Goodput));
            if x.is_finite() && y.is_finite() {
                points.push((st.cc.clone(), x, y));
                lines.push(Line::new(st.cc.clone(), vec![(x, y)]));
            }
        }
        if points.is_empty() {
            continue;
        }
        let mut frontier: Vec<(f64, f64)> = points
            .iter()
            .filter(|(_, x, y)| {
                !points
                    .iter()
                    .any(|(_, ox, oy)| ox <= x && oy >= y && (ox < x || oy > y))
            })
            .map(|(_, x, y)| (*x, *y))
            .collect();
        frontier.sort_by(|a, b| a.0.total_cmp(&b.0));
        lines.push(Line::new("Pareto frontier", frontier).style(LineStyle::Dashed));
        let scope = group.unwrap_or("all groups");
        figures.push(
            Figure::lines(
                format!("{scope}: goodput vs {}", x_score.name()),
                x_score.label(),
                Score::Goodput.label(),
                lines,
            )
            .size(760, 460),
        );
    }
    figures
}

/// The conditions, their groups, sources and scores.
fn conditions_section(conditions: &[Condition], controllers: &[String], fast: bool) -> Section {
    let mut table = Table::new(
        "Conditions",
        [
            "condition",
            "group",
            "what",
            "points",
            "subject flows",
            "scores",
            "source",
        ],
    );
    for c in conditions {
        table = table.row([
            Cell::text(c.id.clone()),
            Cell::text(c.group.clone()),
            Cell::text(c.title.clone()),
            Cell::text(
                if fast {
                    c.sweep.clone().fast().ok()
                } else {
                    Some(c.sweep.clone())
                }
                .map_or("—".to_string(), |s| s.points().len().to_string()),
            ),
            Cell::text(
                c.subject
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            Cell::text(
                c.scores
                    .iter()
                    .map(|s| s.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            Cell::text(c.source.clone()),
        ]);
    }
    let defs = Score::ALL
        .iter()
        .map(|s| {
            format!(
                "{} = {} ({} is better)",
                s.name(),
                s.label(),
                if s.higher_is_better() {
                    "higher"
                } else {
                    "lower"
                }
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Section::new("conditions", "Conditions and scores")
        .description(format!(
            "Controllers: {}. Scores: {defs}. Definitions in docs/LEAGUE.md.",
            controllers.join(", ")
        ))
        .table(table)
}
