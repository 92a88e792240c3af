//! Condition files: a scenario (with an optional `[sweep]` over its path
//! and a `[fast]` table) and a `[league]` table that says what the league
//! does with it.
//!
//! ```toml
//! [league]
//! title = "Shallow buffers with a token bucket"
//! group = "shallow"
//! source = "oBBR paper §5.1, Fig. 3 (scenarios/obbr/fig3-buffer.toml)"
//! subject = [0]            # flows whose controller the league varies
//! scores = ["goodput", "retx", "delay"]
//! order = 1                # its place on the page (optional)
//! ```
//!
//! Conditions, and with them the groups (in the order of their first
//! condition), come in `order` (lowest first), then by file name; a file
//! without `order` comes after those with one.
//!
//! The league sets the subject flows' `cc` and the seeds itself, so a
//! condition's `[sweep]` may vary neither. Like `[sweep]` and `[fast]`,
//! `[league]` goes after the scenario (the tables are taken out before
//! the scenario is read, so errors in the scenario keep their lines).

use std::path::{Path, PathBuf};

use scenario::{ScenarioError, Sweep};
use toml_edit::{DocumentMut, ImDocument, Item};

use super::score::{self, Score};

/// One condition of the league: a scenario file and its `[league]` table.
#[derive(Clone, Debug)]
pub struct Condition {
    /// The file's stem: the condition's identity in results.
    pub id: String,
    /// The file.
    pub file: PathBuf,
    /// What it is, in a few words.
    pub title: String,
    /// The group it counts in (a column of the scoreboard).
    pub group: String,
    /// Where its setting comes from (paper, figure, suite file).
    pub source: String,
    /// The `[[flow]]` entries whose controller the league varies.
    pub subject: Vec<usize>,
    /// The scores that apply.
    pub scores: Vec<Score>,
    /// The scenario and its sweep over the path.
    pub sweep: Sweep,
    /// Its place among the conditions (`order`; none: after those with one).
    pub order: Option<i64>,
}

/// The keys of a `[league]` table.
const KEYS: [&str; 6] = ["title", "group", "source", "subject", "scores", "order"];

impl Condition {
    /// Reads and checks the condition file at `path`.
    pub fn load(path: &Path) -> Result<Condition, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ScenarioError::file_error(path, format!("cannot read condition file: {e}"))
        })?;
        Condition::from_str(&text, path)
    }

    /// Reads and checks a condition given as text; `origin` names it in
    /// errors and is where relative trace paths start.
    pub fn from_str(text: &str, origin: &Path) -> Result<Condition, ScenarioError> {
        let err = |key: &str, line: Option<usize>, message: String| ScenarioError {
            file: origin.to_path_buf(),
            key: Some(key.to_string()),
            line,
            column: None,
            message,
        };
        let Ok(spans) = ImDocument::parse(text.to_string()) else {
            // The scenario reader gives the precise syntax error.
            return Err(
                scenario::sweep_from_str(text, origin, &[]).expect_err("a TOML syntax error")
            );
        };
        let line_at = |offset: usize| text[..offset].matches('\n').count() + 1;
        let Some(Item::Table(table)) = spans.get("league") else {
            return Err(err(
                "league",
                None,
                format!(
                    "expected a [league] table with {} (see docs/LEAGUE.md)",
                    KEYS.join(", ")
                ),
            ));
        };
        let table_line = table.span().map(|s| line_at(s.start));
        let key_line = |key: &str| {
            table
                .key(key)
                .and_then(|k| k.span())
                .map(|s| line_at(s.start))
                .or(table_line)
        };
        for (key, _) in table.iter() {
            if !KEYS.contains(&key) {
                return Err(err(
                    &format!("league.{key}"),
                    key_line(key),
                    format!("unknown key `{key}`, expected one of {}", KEYS.join(", ")),
                ));
            }
        }
        let text_of = |key: &str| -> Result<String, ScenarioError> {
            match table.get(key).map(|i| i.as_str()) {
                Some(Some(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                Some(_) => Err(err(
                    &format!("league.{key}"),
                    key_line(key),
                    "expected a non-empty string".to_string(),
                )),
                None => Err(err(
                    &format!("league.{key}"),
                    table_line,
                    format!("missing key `{key}` (a non-empty string)"),
                )),
            }
        };
        let title = text_of("title")?;
        let group = text_of("group")?;
        let source = text_of("source")?;
        let subject: Vec<usize> = match table.get("subject") {
            None => vec![0],
            Some(item) => match item.as_array() {
                Some(a) if !a.is_empty() => a
                    .iter()
                    .map(|v| {
                        v.as_integer()
                            .and_then(|i| usize::try_from(i).ok())
                            .ok_or_else(|| {
                                err(
                                    "league.subject",
                                    key_line("subject"),
                                    format!(
                                        "expected flow indices (integers from 0), got {}",
                                        v.to_string().trim()
                                    ),
                                )
                            })
                    })
                    .collect::<Result<_, _>>()?,
                _ => {
                    return Err(err(
                        "league.subject",
                        key_line("subject"),
                        "expected a non-empty list of flow indices, e.g. [0]".to_string(),
                    ))
                }
            },
        };
        let scores: Vec<Score> = match table.get("scores").and_then(Item::as_array) {
            Some(a) if !a.is_empty() => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| format!("expected score names ({})", score::names()))
                        .and_then(str::parse::<Score>)
                        .map_err(|m| err("league.scores", key_line("scores"), m))
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(err(
                    "league.scores",
                    key_line("scores").or(table_line),
                    format!(
                        "expected a non-empty list of scores from {}",
                        score::names()
                    ),
                ))
            }
        };

        let order = match table.get("order") {
            None => None,
            Some(item) => Some(item.as_integer().ok_or_else(|| {
                err(
                    "league.order",
                    key_line("order"),
                    format!(
                        "expected an integer (the condition's place on the page), got {}",
                        item.to_string().trim()
                    ),
                )
            })?),
        };

        let mut doc: DocumentMut = text.parse().expect("parsed above");
        doc.remove("league");
        let sweep = scenario::sweep_from_str(&doc.to_string(), origin, &[])?;
        let base = scenario::from_str(&sweep.base, origin, &[])?;
        let entries = base.config.flows.len();
        if let Some(&bad) = subject.iter().find(|&&i| i >= entries) {
            return Err(err(
                "league.subject",
                key_line("subject"),
                format!(
                    "flow {bad} does not exist: the scenario has {entries} [[flow]] entries (0 to {})",
                    entries - 1
                ),
            ));
        }
        let others = base
            .config
            .flows
            .iter()
            .enumerate()
            .filter(|(i, _)| !subject.contains(i))
            .count();
        if scores.contains(&Score::Harm) && others == 0 {
            return Err(err(
                "league.scores",
                key_line("scores"),
                "`harm` needs flows besides the subject (cross traffic to harm)".to_string(),
            ));
        }
        for axis in sweep.axes.iter().chain(&sweep.fast) {
            let varies_subject = subject
                .iter()
                .any(|i| axis.key == format!("flow.{i}.cc") || axis.key == format!("flow[{i}].cc"));
            if axis.key == "seed" || varies_subject || axis.key == "flow" {
                return Err(ScenarioError {
                    file: origin.to_path_buf(),
                    key: Some(axis.key.clone()),
                    line: text
                        .lines()
                        .position(|l| {
                            let l = l.trim_start();
                            l.starts_with(&format!("\"{}\"", axis.key))
                                || l.starts_with(&format!("{} ", axis.key))
                                || l.starts_with("seeds")
                        })
                        .map(|i| i + 1),
                    column: None,
                    message:
                        "the league sets the seeds (--seeds) and the subject flows' controller \
                              itself; a condition's [sweep] and [fast] vary only the path and \
                              the other flows"
                            .to_string(),
                });
            }
        }
        Ok(Condition {
            id: origin.file_stem().map_or("condition".to_string(), |s| {
                s.to_string_lossy().into_owned()
            }),
            file: origin.to_path_buf(),
            title,
            group,
            source,
            subject,
            scores,
            sweep,
            order,
        })
    }
}

/// Every condition file (`*.toml`) in `dir`, in their declared `order`,
/// then name order (files without `order` last).
pub fn load_dir(dir: &Path) -> anyhow::Result<Vec<Condition>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the conditions directory {}: {e}",
            dir.display()
        )
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    anyhow::ensure!(
        !files.is_empty(),
        "{}: no condition files (*.toml)",
        dir.display()
    );
    let mut conditions: Vec<Condition> = files
        .iter()
        .map(|f| Condition::load(f).map_err(anyhow::Error::from))
        .collect::<anyhow::Result<_>>()?;
    // Stable: equal orders keep name order.
    conditions.sort_by_key(|c| (c.order.is_none(), c.order));
    Ok(conditions)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = "name = \"c\"\nduration = \"2s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n[[flow]]\ncc = \"cubic\"\n";

    fn condition(league: &str) -> Result<Condition, ScenarioError> {
        Condition::from_str(&format!("{SCENARIO}{league}"), Path::new("league/c.toml"))
    }

    const GOOD: &str = "[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nsubject = [0]\nscores = [\"goodput\", \"harm\"]\n";

    #[test]
    fn a_condition_reads_its_league_table() {
        let c = condition(GOOD).unwrap();
        assert_eq!((c.id.as_str(), c.group.as_str()), ("c", "g"));
        assert_eq!(c.subject, vec![0]);
        assert_eq!(c.scores, vec![Score::Goodput, Score::Harm]);
        assert!(!c.sweep.base.contains("league"));
    }

    #[test]
    fn bad_league_tables_name_file_line_and_key() {
        // Line 11 is `[league]`, 12 `title`, ...
        for (league, key, line, want) in [
            ("", "league", None, "expected a [league] table"),
            (
                "[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nscores = [\"goodput\"]\nsubjects = [0]\n",
                "league.subjects",
                Some(16),
                "unknown key `subjects`",
            ),
            (
                "[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nscores = [\"latency\"]\n",
                "league.scores",
                Some(15),
                "unknown score `latency`",
            ),
            (
                "[league]\ntitle = \"t\"\ngroup = 3\nsource = \"s\"\nscores = [\"goodput\"]\n",
                "league.group",
                Some(13),
                "expected a non-empty string",
            ),
            (
                "[league]\ntitle = \"t\"\ngroup = \"g\"\nscores = [\"goodput\"]\n",
                "league.source",
                Some(11),
                "missing key `source`",
            ),
            (
                "[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nsubject = [2]\nscores = [\"goodput\"]\n",
                "league.subject",
                Some(15),
                "flow 2 does not exist",
            ),
            (
                "[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nsubject = [0, 1]\nscores = [\"harm\"]\n",
                "league.scores",
                Some(16),
                "`harm` needs flows besides the subject",
            ),
            (
                "[league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nscores = [\"goodput\"]\norder = \"first\"\n",
                "league.order",
                Some(16),
                "expected an integer",
            ),
        ] {
            let e = condition(league).unwrap_err();
            assert_eq!(e.key.as_deref(), Some(key), "{e}");
            assert_eq!(e.line, line, "{e}");
            assert!(e.to_string().starts_with("league/c.toml: "), "{e}");
            assert!(e.message.contains(want), "{e}");
        }
    }

    #[test]
    fn a_sweep_may_not_vary_the_seed_or_the_subjects_controller() {
        for axis in ["seeds = [1, 2]", "\"flow.0.cc\" = [\"bbr\", \"cubic\"]"] {
            let e = condition(&format!("{GOOD}[sweep]\n{axis}\n")).unwrap_err();
            assert!(e.message.contains("the league sets the seeds"), "{e}");
            assert_eq!(e.line, Some(18), "{e}");
        }
        // The cross traffic's controller may vary.
        assert!(condition(&format!(
            "{GOOD}[sweep]\n\"flow.1.cc\" = [\"cubic\", \"reno\"]\n"
        ))
        .is_ok());
    }

    #[test]
    fn conditions_come_in_their_declared_order_then_by_name() {
        let dir = std::env::temp_dir().join(format!("bbrlab-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (file, group, order) in [
            ("a.toml", "last", ""),
            ("b.toml", "second", "order = 2\n"),
            ("c.toml", "first", "order = 1\n"),
            ("d.toml", "second too", "order = 2\n"),
        ] {
            let league = GOOD.replace("group = \"g\"", &format!("group = \"{group}\""));
            std::fs::write(dir.join(file), format!("{SCENARIO}{league}{order}")).unwrap();
        }
        let groups: Vec<String> = load_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|c| c.group)
            .collect();
        assert_eq!(groups, ["first", "second", "second too", "last"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_scenario_part_keeps_its_own_errors() {
        let text = SCENARIO.replace("\"10Mbit\"", "\"10\"");
        let e = Condition::from_str(&format!("{text}{GOOD}"), Path::new("c.toml")).unwrap_err();
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("link.rate"), Some(4)),
            "{e}"
        );
    }
}
