//! The results store of a sweep: one record per finished run, and one
//! table over all of them.
//!
//! Layout of the output directory:
//! - `runs/<id>.json`: the record of one run (its sweep point, the effective
//!   scenario and the full summary), written to a temporary file and renamed
//!   into place, so a record is either whole or absent whatever happens to
//!   the process;
//! - `runs/<id>/series_*.csv`: the run's time series, when asked for;
//! - `results.csv`: one row per run (sweep parameters, then summary metrics,
//!   flow `i`'s as `flow<i>_*`), rewritten (again via rename) after every run.
//!
//! `<id>` is a hash of the run's effective scenario, its values only
//! (comments and layout do not count), so rerunning the same sweep finds the
//! runs already done, editing a comment or adding a sweep value reruns
//! nothing that was done, and a changed value never reuses an old result.
//! The table lists the runs of the sweep at hand; records of an earlier
//! version of the scenario stay in `runs/`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the store keeps of one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    /// Stable identity: a hash of the effective scenario.
    pub id: String,
    /// The sweep point, `(key, value)` in axis order (stored as the
    /// values' labels, `[["link.buffer", "0.5bdp"], ...]`).
    pub params: Vec<(String, scenario::AxisValue)>,
    /// The effective scenario document.
    pub scenario: String,
    /// The run's summary (the contents of a summary.json).
    pub summary: Value,
    /// `summary` as the simulator's type, parsed on first use.
    #[serde(skip)]
    pub(crate) typed: std::sync::OnceLock<Result<sim::RunResult, String>>,
}

impl RunRecord {
    /// A record of run `id` at sweep point `params`.
    pub fn new(
        id: String,
        params: Vec<(String, scenario::AxisValue)>,
        scenario: String,
        summary: Value,
    ) -> RunRecord {
        RunRecord {
            id,
            params,
            scenario,
            summary,
            typed: std::sync::OnceLock::new(),
        }
    }

    /// What the summary records beside the results (the build that ran it).
    pub fn origin(&self) -> crate::output::SummaryOrigin {
        crate::output::SummaryOrigin::of(&self.summary)
    }

    /// The run's results as the simulator's [`sim::RunResult`] (without
    /// its time series), parsed from `summary` once and kept. Parsed from
    /// the same JSON value the pointer reads use, so the numbers are the
    /// same `f64`s.
    pub fn result(&self) -> anyhow::Result<&sim::RunResult> {
        self.typed
            .get_or_init(|| {
                serde_json::from_value(self.summary.clone())
                    .map_err(|e| format!("run {}: summary is not a run result: {e}", self.id))
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }
}

/// A results store in a directory.
pub struct Store {
    dir: PathBuf,
    rows: Mutex<Vec<RunRecord>>,
    /// The runs results.csv lists, in the sweep's order (`None`: every
    /// record, by id).
    table: Option<Vec<String>>,
}

/// The identity of a run of `scenario`: a hash of its effective document's
/// values, so that comments and layout do not change it.
pub fn run_id(scenario: &scenario::Scenario) -> String {
    document_id(&scenario.document)
}

/// The run id of an effective scenario document (see [`run_id`]).
fn document_id(document: &str) -> String {
    let canonical = toml::from_str::<toml::Table>(document)
        .ok()
        .and_then(|table| toml::to_string(&table).ok());
    content_id(canonical.as_deref().unwrap_or(document))
}

/// Why a record cannot be used for analysis, if it cannot: its id does not
/// match its scenario, it holds no flows, or a metric is missing, not a
/// number, negative or non-finite. (JSON has no NaN: serde writes a NaN as
/// null, so a null where a number belongs is how a NaN shows up.)
pub fn record_defect(record: &RunRecord) -> Option<String> {
    let expected = document_id(&record.scenario);
    if record.id != expected {
        return Some(format!(
            "its id {} does not match its scenario (whose id is {expected})",
            record.id
        ));
    }
    let summary = &record.summary;
    let Some(flows) = summary.get("flows").and_then(Value::as_array) else {
        return Some("its summary has no `flows` list".to_string());
    };
    if flows.is_empty() {
        return Some("its summary holds no flows".to_string());
    }
    const FLOW_METRICS: [&str; 5] = [
        "goodput_bps",
        "retransmission_ratio",
        "loss_ratio",
        "bytes_sent",
        "bytes_delivered",
    ];
    for (i, flow) in flows.iter().enumerate() {
        for key in FLOW_METRICS {
            if let Some(why) = number_defect(flow.get(key)) {
                return Some(format!("flows[{i}].{key} {why}"));
            }
        }
    }
    for key in ["utilization", "capacity_bps"] {
        if let Some(why) = number_defect(summary.get("link").and_then(|l| l.get(key))) {
            return Some(format!("link.{key} {why}"));
        }
    }
    negative_anywhere(summary, "")
}

fn number_defect(value: Option<&Value>) -> Option<String> {
    match value {
        None => Some("is missing".to_string()),
        Some(Value::Null) => Some("is null (NaN when written)".to_string()),
        Some(v) => match v.as_f64() {
            None => Some(format!("is not a number: {v}")),
            Some(x) if !x.is_finite() || x < 0.0 => Some(format!("is {x}, expected >= 0")),
            Some(_) => None,
        },
    }
}

/// Metrics that are differences by definition and may fall below zero.
/// QoE_lin (Pensieve/MPC) subtracts stall and switching penalties from the
/// bitrate sum: a session with long stalls scores below zero.
const SIGNED_METRICS: [&str; 1] = ["qoe_lin"];

/// The first negative number anywhere in a summary: every metric bbrlab
/// writes (rates, ratios, bytes, times, counts) is non-negative, except
/// the [`SIGNED_METRICS`].
fn negative_anywhere(value: &Value, at: &str) -> Option<String> {
    if SIGNED_METRICS
        .iter()
        .any(|name| at.rsplit('.').next() == Some(name))
    {
        return None;
    }
    match value {
        Value::Number(n) => n
            .as_f64()
            .filter(|x| *x < 0.0)
            .map(|x| format!("{at} is {x}, expected >= 0")),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| negative_anywhere(v, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            negative_anywhere(v, &path)
        }),
        _ => None,
    }
}

/// FNV-1a, 64 bit: a stable content hash (std's hasher may change between releases).
fn content_id(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Store {
    /// Opens (creating if needed) the store in `dir` and loads what is recorded.
    pub fn open(dir: &Path) -> anyhow::Result<Store> {
        let runs = dir.join("runs");
        fs::create_dir_all(&runs).with_context(|| format!("cannot create {}", runs.display()))?;
        let mut rows = Vec::new();
        for entry in
            fs::read_dir(&runs).with_context(|| format!("cannot list {}", runs.display()))?
        {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let record: RunRecord = serde_json::from_str(&text).with_context(|| {
                    format!(
                        "{}: not a run record (delete it to rerun that run)",
                        path.display()
                    )
                })?;
                rows.push(record);
            }
        }
        rows.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Store {
            dir: dir.to_path_buf(),
            rows: Mutex::new(rows),
            table: None,
        })
    }

    /// Lists only these runs in results.csv (the sweep being run); the
    /// other records stay on disk, untouched.
    pub fn limit_table_to(&mut self, ids: impl IntoIterator<Item = String>) {
        self.table = Some(ids.into_iter().collect());
    }

    /// The records of the table in its order: the sweep's, when limited
    /// to one (`rows` is sorted by id, see `record`), else by id.
    fn listed<'a>(&self, rows: &'a [RunRecord]) -> Vec<&'a RunRecord> {
        match &self.table {
            None => rows.iter().collect(),
            Some(ids) => ids
                .iter()
                .filter_map(|id| {
                    rows.binary_search_by(|r| r.id.as_str().cmp(id))
                        .ok()
                        .map(|i| &rows[i])
                })
                .collect(),
        }
    }

    fn write_table(&self, rows: &[RunRecord]) -> anyhow::Result<()> {
        let text = to_csv(self.listed(rows).into_iter())?;
        write_atomically(&self.dir.join("results.csv"), &text)
    }

    /// Whether a run with this id is recorded.
    pub fn contains(&self, id: &str) -> bool {
        self.rows
            .lock()
            .expect("store lock")
            .iter()
            .any(|r| r.id == id)
    }

    /// The record of run `id`, if stored.
    pub fn get(&self, id: &str) -> Option<RunRecord> {
        self.rows
            .lock()
            .expect("store lock")
            .iter()
            .find(|r| r.id == id)
            .cloned()
    }

    /// The file holding run `id`'s record.
    pub fn record_path(&self, id: &str) -> PathBuf {
        self.dir.join("runs").join(format!("{id}.json"))
    }

    /// Where a run's extra files (time series) go.
    pub fn run_dir(&self, id: &str) -> PathBuf {
        self.dir.join("runs").join(id)
    }

    /// Records a finished run (atomically) and rewrites results.csv.
    pub fn record(&self, record: RunRecord) -> anyhow::Result<()> {
        let path = self.record_path(&record.id);
        write_atomically(&path, &serde_json::to_string_pretty(&record)?)?;
        let mut rows = self.rows.lock().expect("store lock");
        rows.retain(|r| r.id != record.id);
        rows.push(record);
        rows.sort_by(|a, b| a.id.cmp(&b.id));
        self.write_table(&rows)
    }

    /// Rewrites the results table from the records: results.csv and
    /// results.parquet (which [`Store::record`] leaves for the end of a
    /// sweep, as rewriting it after every run would cost more than CSV).
    pub fn rewrite_table(&self) -> anyhow::Result<()> {
        let rows = self.rows.lock().expect("store lock");
        self.write_table(&rows)?;
        write_parquet_table(
            &self.dir.join("results.parquet"),
            self.listed(&rows).into_iter(),
        )
    }
}

fn write_atomically(path: &Path, content: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    fs::write(&tmp, content).with_context(|| format!("cannot write {}", tmp.display()))?;
    fs::rename(&tmp, path).with_context(|| format!("cannot move {} into place", path.display()))
}

/// One record flattened to columns (results.csv, results.parquet):
/// `run_id`, the sweep's parameters as `param:<key>`, the summary columns.
fn flatten(record: &RunRecord) -> BTreeMap<String, Value> {
    let mut row = summary_columns(&record.summary);
    row.insert("run_id".to_string(), Value::from(record.id.clone()));
    for (k, v) in &record.params {
        // The seed is a summary column already.
        if k != "seed" {
            row.insert(format!("param:{k}"), Value::from(v.label()));
        }
    }
    row
}

/// A cell of results.csv: text as is, a missing value empty.
fn cell_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A run's summary flattened to the columns of results.csv (scenario,
/// seed, times, link metrics, then `flow<i>_<metric>` per flow), values
/// kept as JSON (numbers stay numbers, a missing value is null).
pub fn summary_columns(s: &Value) -> BTreeMap<String, Value> {
    let mut row = BTreeMap::new();
    let mut put = |name: String, v: &Value| {
        row.insert(name, v.clone());
    };
    for key in [
        "scenario",
        "seed",
        "sim_time_s",
        "wall_time_s",
        "jain_index",
        "events",
    ] {
        put(key.to_string(), &s[key]);
    }
    for key in [
        "utilization",
        "capacity_bps",
        "bytes_forwarded",
        "bytes_dropped",
    ] {
        put(format!("link_{key}"), &s["link"][key]);
    }
    for p in ["p50", "p95", "p99"] {
        put(
            format!("link_queue_delay_{p}_ms"),
            &s["link"]["queue_delay_ms"][p],
        );
    }
    let flows = s["flows"].as_array().cloned().unwrap_or_default();
    put("n_flows".to_string(), &Value::from(flows.len()));
    for (i, f) in flows.iter().enumerate() {
        for key in [
            "cc",
            "goodput_bps",
            "retransmission_ratio",
            "loss_ratio",
            "bytes_sent",
            "bytes_delivered",
            "bytes_retransmitted",
            "bytes_lost",
            "bytes_dropped",
            "mean_cwnd_bytes",
            "completion_time_s",
            "startup_exit_s",
            "padding_bytes",
            "bw_sample_rmse_bps",
            "bw_estimate_rmse_bps",
        ] {
            put(format!("flow{i}_{key}"), &f[key]);
        }
        if let Some(live) = f.get("live") {
            put(
                format!("flow{i}_late_frame_ratio"),
                &live["late_frame_ratio"],
            );
            put(
                format!("flow{i}_frame_delay_p95_ms"),
                &live["frame_delay_ms"]["p95"],
            );
        }
        for p in ["p50", "p95", "p99"] {
            put(format!("flow{i}_rtt_{p}_ms"), &f["rtt_ms"][p]);
        }
    }
    row
}

/// The table: rows in the order given, columns the union over rows: the
/// run id, the sweep's parameters in axis order, then the metrics.
/// The results table of `rows`: its columns (run_id, the parameters in
/// the sweep's order, then the metrics by name) and each row's values.
fn results_table<'a>(
    rows: impl Iterator<Item = &'a RunRecord>,
) -> (Vec<String>, Vec<BTreeMap<String, Value>>) {
    let rows: Vec<&RunRecord> = rows.collect();
    let flat: Vec<_> = rows.iter().map(|r| flatten(r)).collect();
    let mut params: Vec<String> = Vec::new();
    for record in &rows {
        for (k, _) in &record.params {
            let column = format!("param:{k}");
            if k != "seed" && !params.contains(&column) {
                params.push(column);
            }
        }
    }
    let mut metrics = BTreeSet::new();
    for row in &flat {
        for k in row.keys() {
            if !k.starts_with("param:") && k != "run_id" {
                metrics.insert(k.clone());
            }
        }
    }
    let columns: Vec<String> = std::iter::once("run_id".to_string())
        .chain(params)
        .chain(metrics)
        .collect();
    (columns, flat)
}

/// A column's name in the results table (parameters without `param:`).
fn column_name(column: &str) -> &str {
    column.trim_start_matches("param:")
}

fn to_csv<'a>(rows: impl Iterator<Item = &'a RunRecord>) -> anyhow::Result<String> {
    let (columns, flat) = results_table(rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns.iter().map(|c| column_name(c)))?;
    for row in &flat {
        w.write_record(
            columns
                .iter()
                .map(|c| row.get(c).map(cell_text).unwrap_or_default()),
        )?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// One row of results.parquet: every column in the table's order, null
/// where the run has no value (fewer flows than another run, say).
struct ParquetRow<'a> {
    columns: &'a [String],
    values: &'a BTreeMap<String, Value>,
}

impl serde::Serialize for ParquetRow<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.columns.len()))?;
        for column in self.columns {
            map.serialize_entry(
                column_name(column),
                self.values.get(column).unwrap_or(&Value::Null),
            )?;
        }
        map.end()
    }
}

/// Writes the results table of `rows` as Parquet to `path`.
fn write_parquet_table<'a>(
    path: &Path,
    rows: impl Iterator<Item = &'a RunRecord>,
) -> anyhow::Result<()> {
    let (columns, flat) = results_table(rows);
    let rows: Vec<ParquetRow> = flat
        .iter()
        .map(|values| ParquetRow {
            columns: &columns,
            values,
        })
        .collect();
    let tmp = path.with_extension(format!("parquet.{}.tmp", std::process::id()));
    let order: Vec<&str> = columns.iter().map(|c| column_name(c)).collect();
    crate::table::write_parquet_in_order(&tmp, &rows, &order)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    fs::rename(&tmp, path).with_context(|| format!("cannot move {} into place", path.display()))
}

#[cfg(test)]
mod tests {
    use super::{negative_anywhere, RunRecord, Store};
    use serde_json::json;

    /// Numbers re-judged from a store are the numbers the runs computed,
    /// to the bit: serde_json's default float parser is off by one unit
    /// in the last place for about one value in ten of these (the
    /// workspace builds it with `float_roundtrip`).
    #[test]
    fn a_stored_summary_reads_back_to_the_bit() {
        let mut x: u64 = 0;
        let values: Vec<f64> = (0..2_000)
            .map(|_| {
                // SplitMix64: values of the magnitudes results hold, 1e-6 to 1e10.
                x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((z % 17) as i32 - 6)
            })
            .chain([0.00009708819781538285])
            .collect();
        let dir = std::env::temp_dir().join(format!("bbrlab-store-bits-{}", std::process::id()));
        let store = Store::open(&dir).unwrap();
        let summary = json!({ "values": values });
        store
            .record(RunRecord::new(
                "r".into(),
                Vec::new(),
                String::new(),
                summary,
            ))
            .unwrap();
        let read = Store::open(&dir).unwrap().get("r").unwrap().summary;
        let back: Vec<f64> = serde_json::from_value(read["values"].clone()).unwrap();
        let differ = values
            .iter()
            .zip(&back)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!((back.len(), differ), (values.len(), 0));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn only_signed_metrics_may_be_negative() {
        let ok = json!({"flows": [{"dash": {"qoe_lin": -12.5, "aq": 3.0}}]});
        assert_eq!(negative_anywhere(&ok, ""), None);
        let bad = json!({"flows": [{"dash": {"qoe_lin": -12.5, "rebuffer_s": -1.0}}]});
        assert_eq!(
            negative_anywhere(&bad, "").as_deref(),
            Some("flows[0].dash.rebuffer_s is -1, expected >= 0")
        );
    }
}
