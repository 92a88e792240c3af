//! Recorded numbers: results measured outside the simulator (a real
//! player's runs, say), kept in a CSV file with their provenance and shown
//! beside the simulator's ([`Measure::Recorded`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::*;
use crate::stats::Stat;

/// The rows a [`Measure::Recorded`] reads: numbers recorded outside the
/// simulator (a real player's runs on a scenario's path, say), in a CSV
/// file kept in the repository with their provenance. A row is one
/// recorded run; a measure takes the mean and spread of its `value`
/// column over the rows that match its `rows` and, for each of its `keys`
/// (sweep axis = column), the value a table row or `by` fixes on that
/// axis. An empty cell is a run not made: it counts nowhere. They are
/// information beside the simulator's numbers; no claim is judged on them
/// (docs/EXPERIMENTS.md, "Recorded numbers").
#[derive(Clone, Debug, Default)]
pub struct RecordedTable {
    /// The rows taken (those matching the measure's `rows`): each key
    /// column's value, and the number (None: not run).
    pub(super) rows: Vec<(BTreeMap<String, String>, Option<f64>)>,
}

impl RecordedTable {
    /// The file of `recorded` measure: a path from the current directory
    /// (the repository when run there), else from the repository the
    /// binary was built in.
    pub(super) fn locate(file: &str) -> PathBuf {
        let here = PathBuf::from(file);
        if here.exists() {
            return here;
        }
        let built = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(file);
        if built.exists() {
            built
        } else {
            here
        }
    }

    /// Reads every `recorded` measure's file; errors name the experiment
    /// file's line, or the CSV file's line and column.
    pub(super) fn load_all(
        name: &str,
        text: &str,
        measures: &[Measure],
    ) -> anyhow::Result<BTreeMap<String, RecordedTable>> {
        let mut tables = BTreeMap::new();
        for m in measures {
            let Measure::Recorded {
                id,
                file,
                value,
                rows,
                keys,
                ..
            } = m
            else {
                continue;
            };
            let needle = format!("\"{file}\"");
            let csv_text = std::fs::read_to_string(Self::locate(file)).map_err(|e| {
                key_error(
                    name,
                    text,
                    "measure.file",
                    &needle,
                    format!("cannot read {file}: {e}"),
                )
            })?;
            let table = Self::parse(file, &csv_text, value, rows, keys)
                .map_err(|e| key_error(name, text, "measure.file", &needle, format!("{e:#}")))?;
            tables.insert(id.clone(), table);
        }
        Ok(tables)
    }

    /// Parses `csv_text` (named `file` in errors): a header line, then
    /// one run per line; `value` must hold a number or nothing.
    pub(super) fn parse(
        file: &str,
        csv_text: &str,
        value: &str,
        rows: &BTreeMap<String, String>,
        keys: &BTreeMap<String, String>,
    ) -> anyhow::Result<RecordedTable> {
        let mut reader = csv::ReaderBuilder::new().from_reader(csv_text.as_bytes());
        let header = reader
            .headers()
            .with_context(|| format!("{file}: line 1: not a CSV header"))?
            .clone();
        let column = |name: &str, role: &str| -> anyhow::Result<usize> {
            header.iter().position(|h| h == name).with_context(|| {
                format!(
                    "{file}: line 1: no column `{name}` ({role}); the columns are {}",
                    header.iter().collect::<Vec<_>>().join(", ")
                )
            })
        };
        let value_at = column(value, "the measure's `value`")?;
        let row_at: Vec<(usize, &String)> = rows
            .iter()
            .map(|(c, v)| Ok((column(c, "a `rows` column")?, v)))
            .collect::<anyhow::Result<_>>()?;
        let key_at: Vec<(&String, usize)> = keys
            .iter()
            .map(|(axis, c)| Ok((axis, column(c, &format!("the column of axis `{axis}`"))?)))
            .collect::<anyhow::Result<_>>()?;
        let mut table = RecordedTable::default();
        for (i, record) in reader.records().enumerate() {
            let line = i + 2;
            let record = record.with_context(|| format!("{file}: line {line}: not a CSV row"))?;
            let cell = |at: usize| record.get(at).unwrap_or("").trim();
            if row_at.iter().any(|(at, v)| cell(*at) != v.as_str()) {
                continue;
            }
            let number = match cell(value_at) {
                "" => None,
                text => Some(
                    text.parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .with_context(|| {
                            format!(
                                "{file}: line {line}: `{value}` is `{text}`: expected a number, \
                             or nothing for a run not made"
                            )
                        })?,
                ),
            };
            let keys = key_at
                .iter()
                .map(|(axis, at)| ((*axis).clone(), cell(*at).to_string()))
                .collect();
            table.rows.push((keys, number));
        }
        Ok(table)
    }

    /// The mean and spread of the rows matching `context` on the keys'
    /// axes it fixes (the runs made).
    pub(super) fn stat(&self, context: &[(String, String)]) -> Stat {
        let values: Vec<f64> = self
            .rows
            .iter()
            .filter(|(keys, _)| {
                context
                    .iter()
                    .all(|(axis, v)| keys.get(axis).is_none_or(|k| k == v))
            })
            .filter_map(|(_, number)| *number)
            .collect();
        Stat::of(&values)
    }
}
