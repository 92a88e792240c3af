use super::named::held_sample_rmse;
use super::*;
use crate::store::RunRecord;
use report::LineStyle;

const MINIMAL: &str = r#"
id = "x"
title = "X"
scenario = "obbr/competitiveness-deep.toml"

[[measure]]
id = "share"
kind = "mean"
of = { metric = "share", flow = 0 }
by = "flow.0.cc"

[[measure]]
id = "like"
kind = "compare"
of = "share"
reference = "bbr"
holds = "at_least"

[[claim]]
id = "t.x"
paper = "obbr"
place = "p"
statement = "s"
about = "a"
metric = "m"
unit = "%"
paper_says = "p"
test = { kind = "direction", margin = 0.05 }
tolerance_reason = "r"
origin = "project analysis"
measure = "like"
"#;

#[test]
fn a_minimal_file_parses_and_hashes_its_bytes() {
    let f = ExperimentFile::parse("x.toml", MINIMAL, None).unwrap();
    assert_eq!(f.id(), "x");
    assert_eq!(f.claims.len(), 1);
    assert_eq!(f.claims[0].0.margin(), 0.05);
    assert_eq!(f.sha256, sha256_hex(MINIMAL.as_bytes()));
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn errors_name_the_file_the_line_and_the_key() {
    let text = MINIMAL.replace("holds = \"at_least\"", "holds = \"at_least\"\nmargin = 3");
    let e = ExperimentFile::parse("x.toml", &text, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.toml (line "), "{e}");
    assert!(e.contains("margin"), "{e}");
    let text = MINIMAL.replace("measure = \"like\"", "measure = \"nothing\"");
    let e = ExperimentFile::parse("x.toml", &text, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.toml: claim.measure (line "), "{e}");
    assert!(e.contains("no measure `nothing`"), "{e}");
    let text = MINIMAL.replace("origin = \"project analysis\"", "origin = \"mine\"");
    let e = ExperimentFile::parse("x.toml", &text, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("x.toml (line 30, column 10): unknown variant `mine`"),
        "{e}"
    );
}

/// A run's summary: one short simulation of three flows, whose
/// goodputs and retransmitted bytes the tests then set.
fn template() -> serde_json::Value {
    static TEMPLATE: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    TEMPLATE
            .get_or_init(|| {
                let text = "name = \"t\"\nduration = \"500ms\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"1bdp\"\n\
                            [[flow]]\ncc = \"bbr\"\ncount = 3\n";
                let config = scenario::from_str(text, Path::new("t.toml"), &[])
                    .unwrap()
                    .config;
                serde_json::to_value(sim::Simulation::new(config).run()).unwrap()
            })
            .clone()
}

/// A run at `params` whose flows have these goodputs (bit/s) and
/// retransmitted bytes.
fn point(
    params: &[(&str, &str)],
    goodputs: &[f64],
    retx: &[u64],
) -> (Vec<(String, scenario::AxisValue)>, RunRecord) {
    let mut summary = template();
    let flows = summary["flows"].as_array_mut().unwrap();
    for (i, f) in flows.iter_mut().enumerate() {
        f["goodput_bps"] = serde_json::json!(goodputs[i]);
        f["bytes_retransmitted"] = serde_json::json!(retx[i]);
    }
    let params: Vec<(String, scenario::AxisValue)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), scenario::AxisValue::parse(*v)))
        .collect();
    let id = params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    (
        params.clone(),
        RunRecord::new(id, params, String::new(), summary),
    )
}

/// Two controllers (`a`, `b`) by two buffers (`1`, `2`), two seeds.
fn grid(dir: &Path) -> Runs {
    let mut points = Vec::new();
    for (cc, buffer, seed, g, r) in [
        ("a", "1", "1", [6.0, 2.0, 2.0], [10, 0, 0]),
        ("a", "1", "2", [6.0, 2.0, 2.0], [30, 0, 0]),
        ("a", "2", "1", [4.0, 4.0, 2.0], [5, 1, 0]),
        ("a", "2", "2", [4.0, 4.0, 2.0], [5, 1, 0]),
        ("b", "1", "1", [2.0, 2.0, 6.0], [40, 0, 0]),
        ("b", "1", "2", [2.0, 2.0, 6.0], [40, 0, 0]),
        ("b", "2", "1", [1.0, 1.0, 8.0], [5, 0, 2]),
        ("b", "2", "2", [1.0, 1.0, 8.0], [5, 0, 2]),
    ] {
        points.push(point(
            &[("cc", cc), ("buffer", buffer), ("seed", seed)],
            &g,
            &r,
        ));
    }
    let axes: [(&str, &[&str]); 3] = [
        ("cc", &["a", "b"]),
        ("buffer", &["1", "2"]),
        ("seed", &["1", "2"]),
    ];
    runs_of(points, &axes, dir)
}

/// The runs of `points` on `axes` (each a key and its values), in `dir`.
fn runs_of(
    points: Vec<(Vec<(String, scenario::AxisValue)>, RunRecord)>,
    axes: &[(&str, &[&str])],
    dir: &Path,
) -> Runs {
    Runs {
        points,
        axes: axes
            .iter()
            .map(|(key, values)| scenario::Axis {
                key: key.to_string(),
                values: values
                    .iter()
                    .map(|v| scenario::AxisValue::parse(*v))
                    .collect(),
            })
            .collect(),
        dir: dir.to_path_buf(),
        missing: 0,
        rejected: Vec::new(),
    }
}

/// The [`grid`] in a fresh directory `bbrlab-file-NAME-PID` whose
/// runs' series files `write` writes, given each run's parameters and
/// directory.
fn grid_with_series(
    name: &str,
    write: impl Fn(&[(String, scenario::AxisValue)], &Path),
) -> (PathBuf, Runs) {
    let dir = std::env::temp_dir().join(format!("bbrlab-file-{name}-{}", std::process::id()));
    let runs = grid(&dir);
    for (params, record) in &runs.points {
        let run = dir.join("runs").join(&record.id);
        std::fs::create_dir_all(&run).unwrap();
        write(params, &run);
    }
    (dir, runs)
}

/// A series CSV with the columns a test sets, completed with the
/// other columns of the simulator's row (`zero`'s values) as a run
/// writes them.
fn complete_series<T: serde::Serialize>(partial: &str, zero: T) -> String {
    let zero = serde_json::to_value(zero).unwrap();
    let zero = zero.as_object().unwrap();
    let mut reader = csv::Reader::from_reader(partial.as_bytes());
    let header = reader.headers().unwrap().clone();
    let missing: Vec<(&String, String)> = zero
        .iter()
        .filter(|(name, _)| !header.iter().any(|h| h == name.as_str()))
        .map(|(name, v)| {
            (
                name,
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let names = header.iter().chain(missing.iter().map(|(n, _)| n.as_str()));
    w.write_record(names).unwrap();
    for row in reader.records() {
        let row = row.unwrap();
        w.write_record(row.iter().chain(missing.iter().map(|(_, v)| v.as_str())))
            .unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

/// A row of the `keys` (name and text) and every one of `columns` at 0.
fn zeros<C: serde::Serialize>(columns: &[C], keys: &[(&str, &str)]) -> serde_json::Value {
    let mut row: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
    for c in columns {
        let name = serde_json::to_value(c).unwrap();
        row.insert(name.as_str().unwrap().to_string(), serde_json::json!(0));
    }
    serde_json::Value::Object(row)
}

fn complete_flows(partial: &str) -> String {
    let keys = [("t_s", "0"), ("flow", "0"), ("mode", "startup")];
    complete_series(partial, zeros(&sim::FlowColumn::ALL, &keys))
}

fn complete_link(partial: &str) -> String {
    complete_series(partial, zeros(&sim::LinkColumn::ALL, &[("t_s", "0")]))
}

const HEAD: &str = r#"
id = "t"
title = "T"
sweep = "none.toml"
"#;

fn file(body: &str) -> ExperimentFile {
    ExperimentFile::parse("t.toml", &format!("{HEAD}{body}"), None).unwrap()
}

fn error(body: &str) -> String {
    ExperimentFile::parse("t.toml", &format!("{HEAD}{body}"), None)
        .expect_err("the file must not parse")
        .to_string()
}

/// Each `(id, says)` measure of `f` parses but cannot be taken: its
/// error (with its causes) starts with `prefix` and says `says`.
fn evaluation_refused(f: &ExperimentFile, runs: &Runs, prefix: &str, cases: &[(&str, &str)]) {
    for (id, says) in cases {
        let e = format!("{:#}", f.evaluate(runs, id, 0.0).unwrap_err());
        assert!(e.starts_with(prefix) && e.contains(says), "{id}: {e}");
    }
}

fn number(f: &ExperimentFile, runs: &Runs, id: &str) -> f64 {
    match f.evaluate(runs, id, 0.0).unwrap() {
        Value::Stat(s) => s.mean,
        Value::Number(v) => v,
        v => panic!("{id}: {v:?}"),
    }
}

fn conditions(f: &ExperimentFile, runs: &Runs, id: &str, margin: f64) -> Vec<(String, bool)> {
    match f.evaluate(runs, id, margin).unwrap() {
        Value::Conditions(c) => c,
        v => panic!("{id}: {v:?}"),
    }
}

#[test]
fn left_startup_and_the_split_of_lost_bytes() {
    let mut summary = template();
    let flows = summary["flows"].as_array_mut().unwrap();
    // Flow 0 left Startup, flow 1 stayed in it, flow 2 has no Startup.
    flows[0]["startup_exit_s"] = serde_json::json!(1.5);
    flows[0]["startup_peak_pacing_bps"] = serde_json::json!(2e7);
    flows[1].as_object_mut().unwrap().remove("startup_exit_s");
    flows[1]["startup_peak_pacing_bps"] = serde_json::json!(2e7);
    for key in ["startup_exit_s", "startup_peak_pacing_bps", "lost_split"] {
        flows[2].as_object_mut().unwrap().remove(key);
    }
    flows[0]["bytes_lost"] = serde_json::json!(10_000);
    flows[0]["lost_split"] = serde_json::json!({
        "padding_bytes": 4_000, "sent_in_startup_bytes": 3_000, "sent_probing_bytes": 2_000,
    });
    let record = RunRecord::new("r".into(), Vec::new(), String::new(), summary);
    let of = |metric: Metric, flow: usize| {
        Quantity {
            metric,
            flow: FlowSel::Index(flow),
            per: None,
            over: None,
        }
        .of(&record)
    };
    assert_eq!(of(Metric::LeftStartup, 0), Some(1.0));
    assert_eq!(of(Metric::LeftStartup, 1), Some(0.0));
    assert_eq!(of(Metric::LeftStartup, 2), None, "no Startup, no number");
    assert_eq!(of(Metric::LostPaddingBytes, 0), Some(4_000.0));
    assert_eq!(of(Metric::LostInStartupBytes, 0), Some(3_000.0));
    assert_eq!(of(Metric::LostProbingBytes, 0), Some(2_000.0));
    assert_eq!(of(Metric::LostAtUnitGainBytes, 0), Some(1_000.0));
    for m in [
        Metric::LostPaddingBytes,
        Metric::LostInStartupBytes,
        Metric::LostProbingBytes,
        Metric::LostAtUnitGainBytes,
    ] {
        assert_eq!(of(m, 2), None, "{m:?}: no split, no number");
    }
    // The share of flows that left Startup, of those with a Startup.
    let share = Quantity {
        metric: Metric::LeftStartup,
        flow: FlowSel::Over(Aggregate::Mean),
        per: None,
        over: None,
    };
    assert_eq!(share.of(&record), Some(0.5), "flow 2 is left out");
    // A misspelt metric is refused naming the file, line and key.
    let e = error(
        "[[measure]]\nid = \"m\"\nkind = \"mean\"\nof = { metric = \"lost_in_probing_bytes\" }\n",
    );
    assert!(e.starts_with("t.toml: metric (line 8)"), "{e}");
    assert!(e.contains("unknown variant `lost_in_probing_bytes`"), "{e}");
    assert!(e.contains("lost_probing_bytes"), "{e}");
}

#[test]
fn a_quantity_over_another_of_the_same_run() {
    let mut summary = template();
    summary["link"]["capacity_peak_bps"] = serde_json::json!(1e7);
    summary["flows"][0]["startup_peak_pacing_bps"] = serde_json::json!(2.5e7);
    summary["flows"][1]["startup_peak_pacing_bps"] = serde_json::json!(2e7);
    summary["flows"][1]["goodput_bps"] = serde_json::json!(0.0);
    summary["flows"][2]
        .as_object_mut()
        .unwrap()
        .remove("startup_peak_pacing_bps");
    let record = RunRecord::new("r".into(), Vec::new(), String::new(), summary);
    let quantity = |text: &str| -> Quantity { toml::from_str(text).unwrap() };
    let overshoot = |flow: usize| {
        quantity(&format!(
                "metric = \"startup_peak_pacing_bps\"\nflow = {flow}\nover = {{ metric = \"link_capacity_peak_bps\" }}"
            ))
            .of(&record)
    };
    assert_eq!(overshoot(0), Some(2.5));
    assert_eq!(overshoot(2), None, "no dividend, no number");
    // A divisor of 0 gives no number; `per` applies after `over`.
    let q = quantity(
            "metric = \"startup_peak_pacing_bps\"\nflow = 0\nover = { metric = \"goodput_bps\", flow = 1 }",
        );
    assert_eq!(q.of(&record), None);
    let q = quantity(
            "metric = \"startup_peak_pacing_bps\"\nper = 0.01\nover = { metric = \"link_capacity_peak_bps\" }",
        );
    assert_eq!(q.of(&record), Some(250.0));
    // A bad `over` is refused naming the file, line and key.
    let e = error(
            "[[measure]]\nid = \"m\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\", over = { metric = \"capacity\" } }\n",
        );
    assert!(e.starts_with("t.toml: metric (line 8)"), "{e}");
    assert!(e.contains("unknown variant `capacity`"), "{e}");
    let e = error(
            "[[measure]]\nid = \"m\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\", over = { metric = \"goodput_bps\", per = 0 } }\n",
        );
    assert!(e.starts_with("t.toml: measure.of.over.per (line 6)"), "{e}");
    assert!(e.contains("expected a positive number"), "{e}");
}

#[test]
fn flow_groups_least_and_largest_and_the_equal_share_ratio() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[[measure]]
id = "group"
kind = "mean"
of = { metric = "share", flow = [0, 1] }
at = { cc = "a", buffer = "1" }

[[measure]]
id = "group-retx"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = [0, 2] }
at = { cc = "b", buffer = "2" }

[[measure]]
id = "missing-flow"
kind = "mean"
of = { metric = "share", flow = [0, 7] }

[[measure]]
id = "smallest"
kind = "mean"
of = { metric = "equal_share_ratio", flow = "min" }
at = { cc = "a", buffer = "1" }

[[measure]]
id = "largest"
kind = "mean"
of = { metric = "goodput_bps", flow = "max" }
at = { cc = "b", buffer = "2" }
"#,
    );
    assert_eq!(number(&f, &runs, "group"), 0.8);
    assert_eq!(number(&f, &runs, "group-retx"), 7.0);
    assert!(number(&f, &runs, "missing-flow").is_nan());
    // 2 of an equal share of 10 / 3.
    assert!((number(&f, &runs, "smallest") - 0.6).abs() < 1e-12);
    assert_eq!(number(&f, &runs, "largest"), 8.0);
}

#[test]
fn a_condition_compares_two_numbers_strictly_or_not() {
    let runs = grid(Path::new("."));
    let body = |holds: &str| {
        format!(
            r#"
[[measure]]
id = "x"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
at = {{ cc = "a", buffer = "2" }}

[[measure]]
id = "y"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 1 }}
at = {{ cc = "a", buffer = "2" }}

[[measure]]
id = "c"
kind = "condition"
a = "x"
b = "y"
holds = "{holds}"
label = "equal goodputs"
"#
        )
    };
    let held = |holds: &str, margin: f64| conditions(&file(&body(holds)), &runs, "c", margin);
    let one = |ok: bool| vec![("equal goodputs".to_string(), ok)];
    assert_eq!(held("at_least", 0.0), one(true));
    assert_eq!(held("above", 0.0), one(false));
    assert_eq!(held("above", 0.5), one(true));
    assert_eq!(held("below", 0.0), one(false));
    assert_eq!(held("at_most", 0.0), one(true));
    let e = error(&body("above").replace("b = \"y\"", "b = \"nothing\""));
    assert!(e.starts_with("t.toml: measure.of (line "), "{e}");
    assert!(e.contains("`nothing` must be a one-number measure"), "{e}");
}

#[test]
fn direction_and_count_take_chosen_values_and_strict_steps() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[[measure]]
id = "retx"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = 0 }
at = { buffer = "2" }
by = "cc"

[[measure]]
id = "flat"
kind = "direction"
of = "retx"
way = "increasing"

[[measure]]
id = "rising"
kind = "direction"
of = "retx"
way = "increasing"
strict = true

[[measure]]
id = "just-b"
kind = "count"
of = "retx"
holds = "below"
bound = 5.0
values = ["b"]
"#,
    );
    assert_eq!(
        conditions(&f, &runs, "flat", 0.0),
        vec![("a to b".to_string(), true)]
    );
    assert_eq!(
        conditions(&f, &runs, "rising", 0.0),
        vec![("a to b".to_string(), false)]
    );
    assert_eq!(
        conditions(&f, &runs, "just-b", 0.0),
        vec![("b".to_string(), false)]
    );
    assert_eq!(
        conditions(&f, &runs, "just-b", 1.0),
        vec![("b".to_string(), true)]
    );
}

#[test]
fn a_table_of_rows_takes_each_measure_at_the_rows_parameters() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }

[[measure]]
id = "of-b"
kind = "ratio"
of = { metric = "goodput_bps", flow = 0 }
a = {}
b = { cc = "b" }

[[measure]]
id = "retx"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = 0 }

[[table]]
title = "Rows"
seeds_note = false
first = ["controller", "buffer"]
rows = [
    { cells = ["A", "1"], at = { cc = "a", buffer = "1" } },
    { cells = ["A", "2"], at = { cc = "a", buffer = "2" } },
]
columns = [
    { header = "goodput", measure = "goodput", format = "mean", decimals = 1 },
    { header = "of b's", measure = "of-b", format = "percent", decimals = 0 },
    { header = "retransmitted", measure = "retx", format = "stat", scale = 0.1, decimals = 1 },
    { header = "retransmitted (mean ± sd)", measure = "retx", decimals = 1 },
]
"#,
    );
    let section = f.analyze(&runs).section;
    let table = &section.tables[0];
    assert_eq!(table.caption, "Rows");
    assert_eq!(
        table.header,
        [
            "controller",
            "buffer",
            "goodput",
            "of b's",
            "retransmitted",
            "retransmitted (mean ± sd)"
        ]
    );
    assert_eq!(
        table.rows[0],
        [
            Cell::text("A"),
            Cell::text("1"),
            Cell::fixed(6.0, 1),
            Cell::percent(3.0, 0),
            Cell::text("2.0 ± 1.4"),
            Cell::text("20.0 ± 14.1"),
        ]
    );
    assert_eq!(table.rows[1][3], Cell::percent(4.0, 0));
    assert_eq!(table.rows[1][5], Cell::text("5.0"));
}

#[test]
fn bad_tables_figures_and_timelines_are_named_by_file_line_and_key() {
    let rows = r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[table]]
title = "Rows"
first = ["a", "b"]
rows = [{ cells = ["only one"], at = {} }]
columns = [{ header = "g", measure = "goodput" }]
"#;
    let e = error(rows);
    assert!(e.starts_with("t.toml: table.rows.cells (line "), "{e}");
    assert!(e.contains("1 cells (only one) for 2 header(s)"), "{e}");
    let e = error(&rows.replace("first = [\"a\", \"b\"]", "first = [\"a\"]\nby = \"cc\""));
    assert!(e.starts_with("t.toml: table.by (line "), "{e}");
    let e = error(
        &rows
            .replace("[\"only one\"]", "[\"one\", \"two\"]")
            .replace("\"goodput\" }]", "\"goodput\", minus = \"a\" }]"),
    );
    assert!(e.starts_with("t.toml: table.columns.minus (line "), "{e}");
    let figure = r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }
by = "cc"

[[figure]]
title = "Goodput"
measure = "goodput"
x_label = "x"
y_label = "y"
reference = { at = "a", y = 1.0, label = "both" }
"#;
    let e = error(figure);
    assert!(e.starts_with("t.toml: figure.reference (line 13)"), "{e}");
    let e = error(&figure.replace("at = \"a\"", "measure = \"goodput\""));
    assert!(e.starts_with("t.toml: figure.reference (line 13)"), "{e}");
    let e = error(&figure.replace("at = \"a\", y = 1.0", "measure = \"goodput\""));
    assert!(
        e.starts_with("t.toml: figure.reference.measure (line 13)"),
        "{e}"
    );
    assert!(e.contains("`goodput` must be a one-number measure"), "{e}");
    let timeline = r#"
[[timeline]]
title = "Over time"
y_label = "y"
lines = [{ label = "cwnd", series = { column = "cwnd" }, rate_per_s = 0 }]
"#;
    let e = error(timeline);
    assert!(
        e.starts_with("t.toml: timeline.lines.rate_per_s (line 9)"),
        "{e}"
    );
    let e = error(&timeline.replace("rate_per_s = 0", "style = \"dotted\""));
    assert!(e.starts_with("t.toml (line 9, column "), "{e}");
    assert!(e.contains("unknown variant `dotted`"), "{e}");
}

#[test]
fn window_means_per_another_series_and_timelines_read_the_runs_series() {
    let (dir, runs) = grid_with_series("test", |_, run| {
        let mut flows = String::from("t_s,flow,bw_estimate_bps,delivered\n");
        let mut link = String::from("t_s,capacity_bps\n");
        for i in 0..=40 {
            let t = i as f64 * 0.5;
            flows.push_str(&format!(
                "{t},0,{},{}\n",
                if t < 5.0 { 1.0 } else { 3.0 },
                t * 1000.0
            ));
            link.push_str(&format!("{t},4\n"));
        }
        std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
        std::fs::write(run.join("series_link.csv"), complete_link(&link)).unwrap();
    });
    let f = file(
        r#"
[[measure]]
id = "believed"
kind = "window_mean"
series = { column = "bw_estimate_bps" }
per = { column = "capacity_bps", flow = "link" }
from_s = 5.0
to_s = inf
at = { seed = "1", cc = "a", buffer = "1" }

[[timeline]]
title = "Estimate"
at = { buffer = "2" }
y_label = "Mbit/s"
y_range = [0.0, 10.0]
reference = [{ y = 4.0, label = "capacity" }]
lines = [
    { label = "b's rate", series = { column = "delivered" }, at = { cc = "b" }, rate_per_s = 1.0, scale = 0.001 },
    { label = "capacity", series = { column = "capacity_bps", flow = "link" }, style = "step" },
]
"#,
    );
    assert_eq!(number(&f, &runs, "believed"), 0.75);
    let section = f.analyze(&runs).section;
    let figure = &section.figures[0];
    assert_eq!(figure.title, "Estimate");
    assert_eq!(figure.y_range, Some((0.0, 10.0)));
    assert_eq!(figure.references.len(), 1);
    let report::FigureKind::Lines(lines) = &figure.kind else {
        panic!("{:?}", figure.kind);
    };
    assert_eq!(lines[0].label, "b's rate");
    assert_eq!(lines[0].points.len(), 20);
    assert!(lines[0].points.iter().all(|(_, v)| (v - 1.0).abs() < 1e-9));
    assert_eq!(lines[1].style, LineStyle::Step);
    assert_eq!(lines[1].points.len(), 41);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn across_takes_one_number_of_an_axis_and_all_joins_conditions() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
at = { buffer = "1" }
by = "cc"

[[measure]]
id = "most"
kind = "across"
of = "goodput"
take = "max"

[[measure]]
id = "least-of-b"
kind = "across"
of = "goodput"
values = ["b"]
take = "min"

[[measure]]
id = "mean"
kind = "across"
of = "goodput"
take = "mean"

[[measure]]
id = "over-three"
kind = "count"
of = "goodput"
holds = "above"
bound = 3.0

[[measure]]
id = "under-five"
kind = "count"
of = "goodput"
holds = "below"
bound = 5.0

[[measure]]
id = "between"
kind = "all"
of = ["over-three", "under-five"]
"#,
    );
    assert_eq!(number(&f, &runs, "most"), 6.0);
    assert_eq!(number(&f, &runs, "least-of-b"), 2.0);
    assert_eq!(number(&f, &runs, "mean"), 4.0);
    assert_eq!(
        conditions(&f, &runs, "between", 0.0),
        vec![("a".to_string(), false), ("b".to_string(), false)]
    );
    assert_eq!(
        conditions(&f, &runs, "between", 1.5),
        vec![("a".to_string(), true), ("b".to_string(), true)]
    );
    let e = error(
        r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[measure]]
id = "joined"
kind = "all"
of = ["goodput"]
"#,
    );
    assert!(e.starts_with("t.toml: measure.of (line 12)"), "{e}");
    assert!(e.contains("`goodput` must be a condition measure"), "{e}");
}

#[test]
fn across_by_an_axis_and_per_value_keep_a_value_per_axis_value() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
measure = [
    { id = "goodput", kind = "mean", of = { metric = "goodput_bps", flow = 0 }, by = "buffer" },
    { id = "best-buffer", kind = "across", of = "goodput", take = "max", by = "cc" },
    { id = "least-best", kind = "across", of = "best-buffer", take = "min" },
    { id = "a-ahead", kind = "compare", of = "best-buffer", reference = "b", holds = "above" },
    { id = "over-three", kind = "count", of = "goodput", holds = "above", bound = 3.0 },
    { id = "kept", kind = "per_value", axis = "cc", of = "over-three", label = "{value} at {condition}" },
    { id = "kept-b", kind = "per_value", axis = "cc", values = ["b", "c"], of = "over-three" },
]
"#,
    );
    let Value::ByAxis(best) = f.evaluate(&runs, "best-buffer", 0.0).unwrap() else {
        panic!("best-buffer is taken along cc");
    };
    let best: Vec<(String, f64)> = best.into_iter().map(|(v, _, s)| (v, s.mean)).collect();
    assert_eq!(best, vec![("a".to_string(), 6.0), ("b".to_string(), 2.0)]);
    assert_eq!(number(&f, &runs, "least-best"), 2.0);
    assert_eq!(
        conditions(&f, &runs, "a-ahead", 0.0),
        vec![("a".to_string(), true)]
    );
    assert_eq!(
        conditions(&f, &runs, "a-ahead", -4.5),
        vec![("a".to_string(), false)]
    );
    let kept = |labels: &[&str], held: &[bool]| -> Vec<(String, bool)> {
        labels
            .iter()
            .map(|l| l.to_string())
            .zip(held.iter().copied())
            .collect()
    };
    assert_eq!(
        conditions(&f, &runs, "kept", 0.0),
        kept(
            &["a at 1", "a at 2", "b at 1", "b at 2"],
            &[true, true, false, false]
        )
    );
    assert_eq!(
        conditions(&f, &runs, "kept-b", 1.5),
        kept(&["b: 1", "b: 2"], &[true, false])
    );
}

#[test]
fn bad_across_axes_and_per_values_are_named_by_file_line_and_key() {
    let mean = "[[measure]]\nid = \"g\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\" }\n";
    for (body, starts, says) in [
            (
                format!("\n{mean}by = \"cc\"\n\n[[measure]]\nid = \"most\"\nkind = \"across\"\nof = \"g\"\ntake = \"max\"\nby = \"cc\"\n"),
                "t.toml: measure.by (line 13)",
                "`g` is taken along `cc` already",
            ),
            (
                format!("\n{mean}\n[[measure]]\nid = \"kept\"\nkind = \"per_value\"\naxis = \"cc\"\nof = \"g\"\n"),
                "t.toml: measure.of (line 12)",
                "`g` must be a condition measure",
            ),
            (
                "\n[[measure]]\nid = \"kept\"\nkind = \"per_value\"\naxis = \"cc\"\nvalue = [\"a\"]\nof = \"g\"\n".to_string(),
                "t.toml (line ",
                "`value`",
            ),
        ] {
            let e = error(&body);
            assert!(e.starts_with(starts), "{e}");
            assert!(e.contains(says), "{e}");
        }
}

#[test]
fn a_table_by_several_axes_has_a_row_per_combination() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[labels]
"1" = "one"

[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }

[[table]]
title = "Goodput: {seeds}"
by = ["cc", "buffer"]
first = ["controller", "buffer"]
columns = [{ header = "goodput", measure = "goodput", decimals = 0 }]
"#,
    );
    let section = f.analyze(&runs).section;
    let table = &section.tables[0];
    assert_eq!(table.caption, "Goodput: mean ± sd over 2 seeds");
    let rows: Vec<Vec<Cell>> = table.rows.clone();
    assert_eq!(
        rows,
        [
            ("a", "one", "6"),
            ("a", "2", "4"),
            ("b", "one", "2"),
            ("b", "2", "1")
        ]
        .map(|(c, b, g)| vec![Cell::text(c), Cell::text(b), Cell::text(g)])
    );
    let e = error(
        r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[table]]
title = "Goodput"
by = ["cc", "buffer"]
first = "controller"
columns = [{ header = "goodput", measure = "goodput" }]
"#,
    );
    assert!(e.starts_with("t.toml: table.first (line 12)"), "{e}");
    assert!(
        e.contains("1 header(s) in `first` for 2 axes in `by`"),
        "{e}"
    );
}

#[test]
fn grouped_bars_take_errors_ranges_references_and_category_names() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
by = "buffer"

[[figure]]
title = "Goodput"
measure = "goodput"
groups = "cc"
errors = true
seeds_note = false
x_label = "buffer"
y_label = "goodput"
y_range = [0.0, 10.0]
reference = { y = 5.0, label = "half" }
x_labels = { "1" = "shallow" }
"#,
    );
    let section = f.analyze(&runs).section;
    let figure = &section.figures[0];
    assert_eq!(figure.title, "Goodput");
    assert_eq!(figure.y_range, Some((0.0, 10.0)));
    assert_eq!(figure.references.len(), 1);
    assert_eq!(figure.references[0].at, 5.0);
    let report::FigureKind::Bars { categories, groups } = &figure.kind else {
        panic!("{:?}", figure.kind);
    };
    assert_eq!(categories, &["shallow", "2"]);
    assert_eq!(groups[0].label, "a");
    assert_eq!(groups[0].values, [6.0, 4.0]);
    assert_eq!(groups[0].errors, Some(vec![0.0, 0.0]));
}

#[test]
fn each_takes_a_condition_at_every_value_of_an_axis_and_held_counts_them() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
[[measure]]
id = "goodput-by-cc"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
by = "cc"

[[measure]]
id = "a-goodput"
kind = "across"
of = "goodput-by-cc"
values = ["a"]
take = "max"

[[measure]]
id = "b-goodput"
kind = "across"
of = "goodput-by-cc"
values = ["b"]
take = "max"

[[measure]]
id = "a-ahead"
kind = "condition"
a = "a-goodput"
b = "b-goodput"
holds = "above"
label = "here"

[[measure]]
id = "a-ahead-by-buffer"
kind = "each"
axis = "buffer"
of = "a-ahead"

[[measure]]
id = "buffers-a-ahead"
kind = "held"
of = "a-ahead-by-buffer"

[[figure]]
title = "Goodput"
measure = "goodput-by-cc"
x_label = "controller"
y_label = "goodput"
log_y = true
"#,
    );
    assert_eq!(
        conditions(&f, &runs, "a-ahead-by-buffer", 0.0),
        vec![("1".to_string(), true), ("2".to_string(), true)]
    );
    assert_eq!(
        conditions(&f, &runs, "a-ahead-by-buffer", -3.5),
        vec![("1".to_string(), true), ("2".to_string(), false)]
    );
    assert_eq!(number(&f, &runs, "buffers-a-ahead"), 2.0);
    let section = f.analyze(&runs).section;
    assert_eq!(section.figures[0].y_scale, report::Scale::Log);
    let e = error(
        r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[measure]]
id = "counted"
kind = "held"
of = "goodput"
"#,
    );
    assert!(e.starts_with("t.toml: measure.of (line 12)"), "{e}");
}

#[test]
fn a_claim_with_a_precondition_differs_where_it_fails() {
    let runs = grid(Path::new("."));
    let body = |bound: f64| {
        format!(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
at = {{ cc = "a" }}
by = "buffer"

[[measure]]
id = "delivers"
kind = "count"
of = "goodput"
holds = "at_least"
bound = {bound}

[[measure]]
id = "a-goodput"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
at = {{ cc = "a", buffer = "1" }}

[[claim]]
id = "t.pre"
paper = "obbr"
place = "p"
statement = "s"
about = "a"
metric = "m"
unit = ""
paper_says = "p"
test = {{ kind = "at_least", bound = 5.0 }}
tolerance_reason = "r"
origin = "project target"
measure = "a-goodput"
precondition = {{ text = "a delivers at least 5 at every buffer", measure = "delivers" }}
"#
        )
    };
    let judged = |bound: f64| file(&body(bound)).analyze(&runs).claims.remove(0);
    let held = judged(4.0);
    assert_eq!(held.verdict, report::VerdictStatus::Reproduced);
    assert_eq!(held.ours, "6.000");
    assert_eq!(
        held.record().precondition,
        Some("a delivers at least 5 at every buffer")
    );
    let unmet = judged(5.0);
    assert_eq!(unmet.verdict, report::VerdictStatus::Differs);
    assert_eq!(unmet.ours, "6.000; precondition unmet: not at 2");
    let e = error(&body(5.0).replace("measure = \"delivers\" }", "measure = \"a-goodput\" }"));
    assert!(
        e.starts_with("t.toml: claim.precondition.measure (line 27)"),
        "{e}"
    );
    assert!(e.contains("`a-goodput` must be a condition measure"), "{e}");
}

#[test]
fn judge_at_judges_every_claim_per_value_in_the_order_given() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
judge_at = { axis = "buffer", values = ["2", "1", "9"] }

[labels]
"2" = "deep"

[[measure]]
id = "goodput-by-cc"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
by = "cc"

[[measure]]
id = "b-below-a"
kind = "compare"
of = "goodput-by-cc"
reference = "a"
values = ["b", "a"]
holds = "below"

[[measure]]
id = "complete"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = 1 }
by = "buffer"

[[table]]
title = "T"
by = "buffer"
columns = [{ header = "runs", measure = "complete", format = "count_of" }]

[[claim]]
id = "t.each"
paper = "obbr"
place = "p"
statement = "s"
about = "a"
metric = "m"
unit = ""
paper_says = "p"
test = { kind = "direction" }
tolerance_reason = "r"
origin = "project analysis"
measure = "b-below-a"
"#,
    );
    // `values` are taken in the order given.
    assert_eq!(
        conditions(&f, &runs, "b-below-a", 0.0),
        vec![("b".to_string(), true), ("a".to_string(), false)]
    );
    let analysis = f.analyze(&runs);
    let ours: Vec<&str> = analysis.claims.iter().map(|j| j.ours.as_str()).collect();
    assert_eq!(
        ours,
        [
            "deep: holds in 1 of 2 (not at a)",
            "1: holds in 1 of 2 (not at a)",
            "9: not run: the sweep has no 9",
        ]
    );
    // Flow 1 retransmitted (1 or 0 bytes) in 2 of the 4 runs at buffer 2.
    assert_eq!(analysis.section.tables[0].rows[0][1], Cell::text("0 of 4"));
    assert_eq!(analysis.section.tables[0].rows[1][1], Cell::text("2 of 4"));
}

#[test]
fn arithmetic_combines_numbers_and_values_along_an_axis_and_per_divides_runs() {
    let runs = grid(Path::new("."));
    let f = file(
        r#"
measure = [
    { id = "a-goodput", kind = "mean", of = { metric = "goodput_bps", per = 2 }, at = { cc = "a" }, by = "buffer" },
    { id = "half", kind = "arithmetic", op = "multiply", a = "a-goodput", b = 0.5, by = "buffer" },
    { id = "together", kind = "arithmetic", op = "add", a = "a-goodput", b = "half", by = "buffer" },
    { id = "retx-of-b", kind = "ratio", of = { metric = "bytes_retransmitted" }, a = { cc = "a" }, b = { cc = "b" }, by = "buffer" },
    { id = "cut", kind = "arithmetic", op = "subtract", a = 1, b = "retx-of-b", by = "buffer" },
    { id = "largest-cut", kind = "across", of = "cut", take = "max" },
    { id = "a-shallow", kind = "mean", of = { metric = "goodput_bps" }, at = { cc = "a", buffer = "1" } },
    { id = "quarter", kind = "arithmetic", op = "divide", a = "a-shallow", b = 4.0 },
    { id = "product", kind = "arithmetic", op = "multiply", a = "largest-cut", b = "quarter" },
]
"#,
    );
    let along = |id: &str| match f.evaluate(&runs, id, 0.0).unwrap() {
        Value::ByAxis(v) => v.iter().map(|(_, _, s)| s.mean).collect::<Vec<_>>(),
        v => panic!("{id}: {v:?}"),
    };
    // a's goodputs of flow 0 halved run by run: 3 and 2.
    assert_eq!(along("a-goodput"), vec![3.0, 2.0]);
    assert_eq!(along("half"), vec![1.5, 1.0]);
    assert_eq!(along("together"), vec![4.5, 3.0]);
    // a's retransmissions over b's: 20 / 40 at buffer 1, 5 / 5 at 2.
    assert_eq!(along("cut"), vec![0.5, 0.0]);
    assert_eq!(number(&f, &runs, "largest-cut"), 0.5);
    assert_eq!(number(&f, &runs, "quarter"), 1.5);
    assert_eq!(number(&f, &runs, "product"), 0.75);
}

#[test]
fn bad_arithmetic_units_and_series_sources_are_named_by_file_line_and_key() {
    let e = error(
        r#"
[[measure]]
id = "g"
kind = "mean"
of = { metric = "goodput_bps", per = 0 }
"#,
    );
    assert!(e.starts_with("t.toml: measure.of.per (line 7)"), "{e}");
    assert!(e.contains("expected a positive number"), "{e}");
    let by_cc = r#"
measure = [
    { id = "g", kind = "mean", of = { metric = "goodput_bps" }, by = "cc" },
    { id = "twice", kind = "arithmetic", op = "multiply", a = 2, b = "g", by = "buffer" },
]
"#;
    let e = error(by_cc);
    assert!(e.starts_with("t.toml: measure.b (line 8)"), "{e}");
    assert!(e.contains("one taken `by = \"buffer\"`"), "{e}");
    let e = error(&by_cc.replace(", by = \"buffer\" }", " }"));
    assert!(e.starts_with("t.toml: measure.b (line 8)"), "{e}");
    assert!(e.contains("`g` must be a one-number measure"), "{e}");
    let e = error(&by_cc.replace("a = 2", "a = \"later\""));
    assert!(e.starts_with("t.toml: measure.a (line 8)"), "{e}");
    let e = error(&by_cc.replace("\"multiply\"", "\"power\""));
    assert!(e.starts_with("t.toml: op (line 8): "), "{e}");
    assert!(e.contains("unknown variant `power`"), "{e}");
    let e = error(
        r#"
[[measure]]
id = "queue"
kind = "window_mean"
series = { column = "queue_bytes", flow = "link", source = "controller" }
from_s = 0.0
to_s = inf
"#,
    );
    assert!(
        e.starts_with("t.toml: measure.series.source (line 7)"),
        "{e}"
    );
    let e = error(
        r#"
[[timeline]]
title = "Over time"
y_label = "y"
lines = [{ label = "queue", series = { column = "queue_bytes", flow = "link", source = "controller" } }]
"#,
    );
    assert!(
        e.starts_with("t.toml: timeline.lines.series.source (line 9)"),
        "{e}"
    );
    let e = error(
        r#"
[[measure]]
id = "factor"
kind = "window_mean"
series = { column = "f", source = "controllers" }
from_s = 0.0
to_s = inf
"#,
    );
    assert!(e.starts_with("t.toml: source (line 9): "), "{e}");
    assert!(e.contains("unknown variant `controllers`"), "{e}");
    // A column the series file does not have is refused when the file
    // is read, naming the line, the key and the valid columns.
    let measure = "\n[[measure]]\nid = \"cwnd\"\nkind = \"window_mean\"\n";
    let e = error(&format!(
        "{measure}series = {{ column = \"cwnd_bytes\" }}\nfrom_s = 0.0\nto_s = inf\n"
    ));
    assert!(e.starts_with("t.toml: column (line 9): "), "{e}");
    assert!(e.contains("unknown variant `cwnd_bytes`"), "{e}");
    assert!(e.contains("`cwnd`, `inflight`"), "{e}");
    let line = r#"{ label = "queue", series = { column = "queue", flow = "link" } }"#;
    let e = error(&format!(
        "\n[[timeline]]\ntitle = \"Over time\"\ny_label = \"y\"\nlines = [{line}]\n"
    ));
    // (On one line with other keys, the error points at its column.)
    assert!(e.starts_with("t.toml (line 9, column "), "{e}");
    assert!(
        e.contains("expected one of `queue_bytes`, `capacity_bps`, `forwarded`"),
        "{e}"
    );
}

#[test]
fn a_controller_series_is_read_by_window_means_and_timelines() {
    let (dir, runs) = grid_with_series("ctl", |params, run| {
        // Only controller `a` has the variable: 0.25 and 0.75, or,
        // in buffer 2, 1.0 throughout; flow 1 has another value.
        let buffer2 = params.iter().any(|(k, v)| k == "buffer" && v == "2");
        let mut rows = String::from("t_s,flow,name,value\n");
        if params.iter().any(|(k, v)| k == "cc" && v == "a") {
            for (t, v) in [(0.0, 0.25), (1.0, 0.75)] {
                let v = if buffer2 { 1.0 } else { v };
                rows.push_str(&format!("{t},0,factor,{v}\n{t},1,factor,9\n"));
            }
        }
        std::fs::write(run.join("series_controller.csv"), rows).unwrap();
    });
    let f = file(
        r#"
[[measure]]
id = "factor"
kind = "window_mean"
series = { column = "factor", flow = 0, source = "controller" }
from_s = 0.0
to_s = inf

[[measure]]
id = "factor-by-buffer"
kind = "window_mean"
series = { column = "factor", flow = 0, source = "controller" }
from_s = 0.0
to_s = inf
at = { cc = "a" }
by = "buffer"

[[timeline]]
title = "Factor"
at = { cc = "a" }
y_label = "factor"
lines = [{ label = "buffer 1", series = { column = "factor", source = "controller" }, at = { buffer = "1" }, style = "step" }]

[[table]]
title = "Factor"
by = ["cc", "buffer"]
first = ["cc", "buffer"]
columns = [{ header = "factor", measure = "factor", format = "stat" }]
"#,
    );
    match f.evaluate(&runs, "factor-by-buffer", 0.0).unwrap() {
        Value::ByAxis(v) => {
            assert_eq!(v[0].2.mean, 0.5);
            assert_eq!(v[1].2.mean, 1.0);
        }
        v => panic!("{v:?}"),
    }
    let section = f.analyze(&runs).section;
    let report::FigureKind::Lines(lines) = &section.figures[0].kind else {
        panic!("{:?}", section.figures[0].kind);
    };
    assert_eq!(lines[0].points, vec![(0.0, 0.25), (1.0, 0.75)]);
    // Controller b has no such variable: its cells are empty.
    let rows = &section.tables[0].rows;
    assert_eq!(rows[0][2], Cell::text("0.50 ± 0.00"));
    assert_eq!(rows[1][2], Cell::text("1.00 ± 0.00"));
    assert_eq!(rows[2][2], Cell::Empty);
    assert_eq!(rows[3][2], Cell::Empty);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn window_statistics_and_windowed_timelines_read_part_of_a_series() {
    let (dir, runs) = grid_with_series("window", |_, run| {
        // min_rtt_ms: 10 until 5 s, then 12, 16, 12, 16, ...
        let mut flows = String::from("t_s,flow,min_rtt_ms\n");
        for i in 0..=20 {
            let t = i as f64 * 0.5;
            let v = match (t < 5.0, i % 2) {
                (true, _) => 10.0,
                (false, 0) => 12.0,
                (false, _) => 16.0,
            };
            flows.push_str(&format!("{t},0,{v}\n"));
        }
        std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
    });
    let body = r#"
measure = [
    { id = "highest", kind = "window", take = "max", series = { column = "min_rtt_ms" }, from_s = 0.0, to_s = inf, at = { seed = "1", cc = "a", buffer = "1" } },
    { id = "least-late", kind = "window", take = "min", series = { column = "min_rtt_ms" }, from_s = 5.0, to_s = inf, at = { seed = "1", cc = "a", buffer = "1" } },
    { id = "sd-late", kind = "window", take = "sd", series = { column = "min_rtt_ms" }, from_s = 5.0, to_s = 6.0, at = { cc = "a" }, by = "buffer" },
    { id = "none", kind = "window", take = "mean", series = { column = "min_rtt_ms" }, from_s = 50.0, to_s = inf, at = { seed = "1", cc = "a", buffer = "1" } },
]

[[timeline]]
title = "RTprop"
at = { cc = "a", buffer = "1" }
y_label = "ms"
from_s = 2.0
to_s = 4.0
lines = [{ label = "a", series = { column = "min_rtt_ms" } }]
"#;
    let f = file(body);
    assert_eq!(number(&f, &runs, "highest"), 16.0);
    assert_eq!(number(&f, &runs, "least-late"), 12.0);
    // 12 at 5 s and 16 at 5.5 s: sd sqrt(8).
    match f.evaluate(&runs, "sd-late", 0.0).unwrap() {
        Value::ByAxis(v) => assert!((v[0].2.mean - 8f64.sqrt()).abs() < 1e-12, "{v:?}"),
        v => panic!("{v:?}"),
    }
    // No sample in the window: no number.
    assert!(number(&f, &runs, "none").is_nan());
    let section = f.analyze(&runs).section;
    let figure = &section.figures[0];
    assert_eq!(figure.x_range, Some((2.0, 4.0)));
    let report::FigureKind::Lines(lines) = &figure.kind else {
        panic!("{:?}", figure.kind);
    };
    assert_eq!(lines[0].points.len(), 5);
    std::fs::remove_dir_all(&dir).unwrap();
    let e = error(&body.replace("from_s = 2.0\nto_s = 4.0", "from_s = 4.0\nto_s = 2.0"));
    assert!(e.starts_with("t.toml: timeline.to_s (line "), "{e}");
    assert!(e.contains("expected from_s < to_s"), "{e}");
    let e = error(&body.replace("take = \"sd\"", "take = \"mode\""));
    assert!(e.starts_with("t.toml: take (line 9): "), "{e}");
    assert!(e.contains("unknown variant `mode`"), "{e}");
}

/// The [`grid`] with two capacity drops: capacity 40, 10 (2-4 s), 40,
/// 10 (5 s to the end), Mbit/s; cc a's estimate follows at once, b's
/// never; RTT 100 ms from 2 to 4 s, 10 ms otherwise (base RTT 20 ms);
/// inflight 10 t, cumulative lost t^2.
fn drop_grid(name: &str) -> (PathBuf, Runs) {
    let (dir, mut runs) = grid_with_series(name, |params, run| {
        let b = params.iter().any(|(k, v)| k == "cc" && v == "b");
        let mut link = String::from("t_s,queue_bytes,capacity_bps\n");
        let mut flows = String::from("t_s,flow,bw_estimate_bps,latest_rtt_ms,inflight,lost\n");
        for (t, capacity) in [
            (0.0, 40e6),
            (1.0, 40e6),
            (2.0, 10e6),
            (3.0, 10e6),
            (4.0, 40e6),
            (5.0, 10e6),
            (6.0, 10e6),
        ] {
            let estimate = if b { 40e6 } else { capacity };
            let rtt = if (2.0..4.0).contains(&t) { 100.0 } else { 10.0 };
            link.push_str(&format!("{t},0,{capacity}\n"));
            flows.push_str(&format!("{t},0,{estimate},{rtt},{},{}\n", 10.0 * t, t * t));
        }
        std::fs::write(run.join("series_link.csv"), complete_link(&link)).unwrap();
        std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
    });
    for (_, r) in &mut runs.points {
        r.summary["flows"][0]["base_rtt_ms"] = serde_json::json!(20.0);
    }
    (dir, runs)
}

#[test]
fn drop_response_pools_every_drop_of_the_runs_taken() {
    let (dir, runs) = drop_grid("drops");
    let f = file(
        r#"
measure = [
    { id = "lag-b", kind = "named", name = "drop_response", params = { gives = "lag", at = { cc = "b" } } },
    { id = "lag-pooled", kind = "named", name = "drop_response", params = { gives = "lag", among = { axis = "cc", values = ["a", "b"] } } },
    { id = "inflated", kind = "named", name = "drop_response", params = { gives = "inflated", rtt_above = 2.5 } },
    { id = "peak", kind = "named", name = "drop_response", params = { gives = "peak_rtt", at = { cc = "a" } } },
    { id = "wrong", kind = "named", name = "drop_response", params = { gives = "nothing" } },
    { id = "no-among-values", kind = "named", name = "drop_response", params = { gives = "lag", among = { axis = "cc" } } },
]
"#,
    );
    // b: the whole low periods, 2 s and 1 s; a: 0 s twice.
    assert_eq!(number(&f, &runs, "lag-b"), 1.5);
    assert_eq!(number(&f, &runs, "lag-pooled"), 0.75);
    // Above 50 ms: 2 s in the first low period, none in the second.
    assert_eq!(number(&f, &runs, "inflated"), 1.0);
    assert_eq!(number(&f, &runs, "peak"), 55.0);
    let e = f.evaluate(&runs, "wrong", 0.0).unwrap_err().to_string();
    assert!(e.contains("drop_response: `gives` must be"), "{e}");
    let e = f
        .evaluate(&runs, "no-among-values", 0.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`among.values`"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn held_sample_rmse_is_the_copilot_papers_arithmetic() {
    // The paper's 200 ms run without Copilot: 11.8 Mbit/s held over
    // 20-40 s against 24 Mbit/s gives 12.2 (the paper: 12.18).
    let ticks = |v: f64| (0..4000).map(|i| (i as f64 * 0.01, v)).collect::<Vec<_>>();
    let capacity = vec![(0.0, 12e6), (20.0, 24e6)];
    let rmse = held_sample_rmse(&ticks(11.8e6), &capacity, 20.0, 40.0).unwrap();
    assert!((rmse - 12.2e6).abs() < 1.0, "{rmse}");
    // Before 20 s the same estimate is 0.2 Mbit/s off, and not counted.
    let all = held_sample_rmse(&ticks(11.8e6), &capacity, 0.0, 40.0).unwrap();
    assert!(all < rmse, "{all}");
    // Two ticks, one at the true rate, one 4 Mbit/s below: sqrt(16/2).
    let held = vec![(20.0, 24e6), (20.5, 20e6), (40.0, 0.0)];
    let capacity = vec![(0.0, 24e6)];
    let rmse = held_sample_rmse(&held, &capacity, 20.0, 40.0).unwrap();
    assert!((rmse - 8f64.sqrt() * 1e6).abs() < 1.0, "{rmse}");
    // No tick in the window, or no capacity known yet: no value.
    assert_eq!(held_sample_rmse(&held, &capacity, 41.0, 50.0), None);
    assert_eq!(held_sample_rmse(&held, &[(30.0, 24e6)], 20.0, 30.0), None);
}

/// Flow 0's goodput / 3 of cc `a` and of cc `b` at buffer 1 (2 and
/// 2 / 3), as measures `a-goodput` and `b-goodput`.
const GOODPUTS_OF_A_AND_B: &str = r#"
[[measure]]
id = "a-goodput"
kind = "mean"
of = { metric = "goodput_bps", per = 3 }
at = { cc = "a", buffer = "1" }

[[measure]]
id = "b-goodput"
kind = "mean"
of = { metric = "goodput_bps", per = 3 }
at = { cc = "b", buffer = "1" }
"#;

#[test]
fn a_condition_label_shows_its_numbers_and_a_named_measure_needs_its_params() {
    let runs = grid(Path::new("."));
    let body = GOODPUTS_OF_A_AND_B.to_string()
        + r#"

[[measure]]
id = "a-above"
kind = "condition"
a = "a-goodput"
b = "b-goodput"
holds = "above"
label = "a {a}, b {b}"
decimals = 1
"#;
    let f = file(&body);
    assert_eq!(
        conditions(&f, &runs, "a-above", 0.0),
        vec![("a 2.0, b 0.7".to_string(), true)]
    );
    let f = file(&body.replace("decimals = 1\n", ""));
    assert_eq!(conditions(&f, &runs, "a-above", 0.0)[0].0, "a 2.00, b 0.67");
    let f = file(
        r#"
[[measure]]
id = "rmse"
kind = "named"
name = "held_sample_rmse"
params = { from_s = 20.0 }
"#,
    );
    let e = f.evaluate(&runs, "rmse", 0.0).unwrap_err();
    assert!(
        format!("{e:#}").contains("`to_s` (a number) is required"),
        "{e:#}"
    );
}

#[test]
fn a_runs_cell_counts_the_runs_with_a_number() {
    let runs = grid(Path::new("."));
    let body = r#"
measure = [
    { id = "goodput", kind = "mean", of = { metric = "goodput_bps" } },
    { id = "retransmitted", kind = "mean", of = { metric = "bytes_retransmitted", flow = 2 } },
]

[[table]]
title = "T"
by = ["cc", "buffer"]
first = ["cc", "buffer"]
columns = [
    { header = "runs", measure = "goodput", format = "runs" },
    { header = "retransmitted", measure = "retransmitted", format = "runs" },
]
"#;
    let analysis = file(body).analyze(&runs);
    let rows = &analysis.section.tables[0].rows;
    assert_eq!(rows.len(), 4);
    // Two seeds per (cc, buffer); flow 2's bytes_retransmitted is a
    // number in every run (0 or 2), so both columns count 2.
    for row in rows {
        assert_eq!(row[2], Cell::fixed(2.0, 0), "{row:?}");
        assert_eq!(row[3], Cell::fixed(2.0, 0), "{row:?}");
    }
    // A misspelt format is refused naming the file and the line.
    refused(
        &body.replace(
            "format = \"runs\" },\n    { header = \"retransmitted\"",
            "format = \"run\" },\n    { header = \"retransmitted\"",
        ),
        "t.toml (line ",
        &["unknown variant `run`", "`runs`"],
    );
}

#[test]
fn a_curve_draws_a_mean_over_a_numeric_axis_one_line_per_value() {
    let runs = grid(Path::new("."));
    let body = r#"
measure = [{ id = "goodput", kind = "mean", of = { metric = "goodput_bps", flow = 0 }, by = "buffer" }]

[[curve]]
title = "C"
measure = "goodput"
lines = "cc"
line_label = "{} line"
x_label = "buffer"
y_label = "goodput"
errors = true
y_range = [0.0, 5.0]
reference = [{ y = 3.0, label = "bar" }]
"#;
    let analysis = file(body).analyze(&runs);
    let figure = &analysis.section.figures[0];
    let report::FigureKind::Lines(lines) = &figure.kind else {
        panic!("{:?}", figure.kind);
    };
    // Two lines, then their whiskers in their colours (two seeds a point).
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0].label, "a line");
    assert_eq!(lines[0].points, vec![(1.0, 6.0), (2.0, 4.0)]);
    assert_eq!(lines[1].label, "b line");
    assert_eq!(lines[1].points, vec![(1.0, 2.0), (2.0, 1.0)]);
    assert_eq!(lines[3].colour_key.as_deref(), Some("b line"));
    assert_eq!(lines[3].points[0], (1.04, 2.0));
    // The top is raised to the highest whisker.
    assert_eq!(figure.y_range, Some((0.0, 6.0)));
    // A horizontal axis whose values are not numbers: left out, and said.
    let f = file(
        &body
            .replace("by = \"buffer\"", "by = \"cc\"")
            .replace("lines = \"cc\"", "lines = \"buffer\""),
    );
    let analysis = f.analyze(&runs);
    // No line has a point: no figure.
    assert!(analysis.section.figures.is_empty());
    assert!(
        analysis
            .section
            .description
            .contains("curve \"C\": the cc value `a` is not a number"),
        "{}",
        analysis.section.description
    );
    // A measure that is not a mean taken by an axis is refused naming
    // the file, line and key.
    refused(
        &body.replace(", by = \"buffer\"", ""),
        "t.toml: curve.measure (line ",
        &["`goodput` must be a `mean` measure taken `by` an axis"],
    );
    refused(
        &body.replace("errors = true", "whiskers = true"),
        "t.toml (line ",
        &["whiskers"],
    );
}

#[test]
fn per_value_names_conditions_by_two_axes_and_across_axis_pools_one_number_measures() {
    let runs = grid(Path::new("."));
    let body = r#"
measure = [
    { id = "goodput", kind = "mean", of = { metric = "goodput_bps", flow = 0 }, by = "buffer" },
    { id = "above-3", kind = "count", of = "goodput", holds = "above", bound = 3.0 },
    { id = "above-3-per-cc", kind = "per_value", axis = "cc", of = "above-3", label = "{value} {condition}" },
    { id = "above-3-b", kind = "per_value", axis = "cc", of = "above-3", values = ["b", "z"], label = "{value} {condition}" },
    { id = "most", kind = "across", of = "goodput", take = "max" },
    { id = "least-most", kind = "across_axis", axis = "cc", of = "most", take = "min" },
    { id = "mean-most-of-a", kind = "across_axis", axis = "cc", of = "most", values = ["a", "z"], take = "mean" },
    { id = "nothing", kind = "mean", of = { metric = "goodput_bps" }, at = { buffer = "9" } },
    { id = "most-of-nothing", kind = "across_axis", axis = "cc", of = "nothing", take = "max" },
]

[labels]
"1" = "shallow"
"2" = "deep"
"#;
    let f = file(body);
    // Flow 0's goodput: a 6 and 4, b 2 and 1 at buffers 1 and 2.
    assert_eq!(
        conditions(&f, &runs, "above-3-per-cc", 0.0),
        labelled(&[
            ("a shallow", true),
            ("a deep", true),
            ("b shallow", false),
            ("b deep", false)
        ])
    );
    assert_eq!(
        conditions(&f, &runs, "above-3-b", 0.0),
        labelled(&[("b shallow", false), ("b deep", false)])
    );
    assert_eq!(number(&f, &runs, "least-most"), 2.0);
    assert_eq!(number(&f, &runs, "mean-most-of-a"), 6.0);
    assert!(number(&f, &runs, "most-of-nothing").is_nan());
    // What they take must be a condition measure and a one-number
    // measure, declared before them.
    refused(
        &body.replace(
            "axis = \"cc\", of = \"above-3\", label",
            "axis = \"cc\", of = \"goodput\", label",
        ),
        "t.toml: measure.of (line ",
        &["`goodput` must be a condition measure"],
    );
    refused(
        &body.replace(
            "of = \"most\", take = \"min\"",
            "of = \"goodput\", take = \"min\"",
        ),
        "t.toml: measure.of (line ",
        &["`goodput` must be a one-number measure"],
    );
    refused(
        &body.replace("take = \"mean\"", "take = \"median\""),
        "t.toml",
        &["unknown variant `median`"],
    );
}

#[test]
fn a_ratio_or_difference_by_an_axis_its_sides_fix_is_refused() {
    for (kind, sides, side, value) in [
        (
            "ratio",
            "a = { cc = \"a\" }\nb = { buffer = \"1\" }",
            "a",
            "a",
        ),
        (
            "difference",
            "a = { buffer = \"1\" }\nb = { cc = \"b\" }",
            "b",
            "b",
        ),
    ] {
        let e = error(&format!(
                "\n[[measure]]\nid = \"m\"\nkind = \"{kind}\"\nof = {{ metric = \"goodput_bps\" }}\n{sides}\nby = \"cc\"\n"
            ));
        assert!(e.starts_with("t.toml: measure.by (line "), "{e}");
        assert!(
            e.contains(&format!("its `{side}` fixes `cc = \"{value}\"`")),
            "{e}"
        );
    }
    // By another axis than its sides fix: accepted.
    let body = "\n[[measure]]\nid = \"m\"\nkind = \"ratio\"\nof = { metric = \"goodput_bps\" }\na = { cc = \"a\" }\nb = { cc = \"b\" }\nby = \"buffer\"\n";
    file(body);
}

/// Conditions as a measure gives them, from label and verdict pairs.
fn labelled(v: &[(&str, bool)]) -> Vec<(String, bool)> {
    v.iter().map(|(l, ok)| (l.to_string(), *ok)).collect()
}

/// `body` must not parse; its error starts with `starts` and says each
/// of `says`.
fn refused(body: &str, starts: &str, says: &[&str]) {
    let e = error(body);
    assert!(e.starts_with(starts), "{e}");
    for s in says {
        assert!(e.contains(s), "{e}");
    }
}

#[test]
fn most_takes_the_largest_number_and_relabel_keeps_conditions_apart() {
    let runs = grid(Path::new("."));
    // Per controller: its goodput by buffer, the largest, whether it is
    // above a bound per buffer, and those conditions named after it.
    let per_cc = |cc: &str, bound: f64| {
        format!(
            r#"
[[measure]]
id = "{cc}-goodput"
kind = "mean"
of = {{ metric = "goodput_bps" }}
at = {{ cc = "{cc}" }}
by = "buffer"

[[measure]]
id = "{cc}-most"
kind = "across"
of = "{cc}-goodput"
take = "max"

[[measure]]
id = "{cc}-high"
kind = "count"
of = "{cc}-goodput"
holds = "above"
bound = {bound:?}

[[measure]]
id = "{cc}-high-named"
kind = "relabel"
of = "{cc}-high"
label = "{cc} at {{label}}"
"#
        )
    };
    let f = file(&format!(
        "{}{}{}",
        per_cc("a", 5.0),
        per_cc("b", 1.5),
        r#"
[[measure]]
id = "none"
kind = "mean"
of = { metric = "goodput_bps" }
at = { cc = "c" }

[[measure]]
id = "largest"
kind = "most"
of = ["b-most", "none", "a-most"]

[[measure]]
id = "no-number"
kind = "most"
of = ["none"]

[[measure]]
id = "apart"
kind = "all"
of = ["a-high-named", "b-high-named"]

[[measure]]
id = "joined"
kind = "all"
of = ["a-high", "b-high"]
"#
    ));
    assert_eq!(number(&f, &runs, "largest"), 6.0);
    assert!(number(&f, &runs, "no-number").is_nan());
    assert_eq!(
        conditions(&f, &runs, "apart", 0.0),
        labelled(&[
            ("a at 1", true),
            ("a at 2", false),
            ("b at 1", true),
            ("b at 2", false)
        ])
    );
    assert_eq!(
        conditions(&f, &runs, "joined", 0.0),
        labelled(&[("1", true), ("2", false)])
    );
    // Bad input: a `most` of a measure along an axis.
    let goodput =
        "\n[[measure]]\nid = \"goodput\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\" }\n";
    let e = error(&format!(
            "{goodput}by = \"cc\"\n\n[[measure]]\nid = \"largest\"\nkind = \"most\"\nof = [\"goodput\"]\n"
        ));
    assert!(e.starts_with("t.toml: measure.of (line 13)"), "{e}");
    assert!(e.contains("`goodput` must be a one-number measure"), "{e}");
}

#[test]
fn uptake_lag_reads_the_capacity_steps_and_a_runs_mean_capacity_is_a_metric() {
    // The capacity rises from 100 to 200 at 10 s; controller `a`'s
    // delivery rate reaches 190 (>= 90% of 200) at 12 s, `b`'s never.
    let (dir, mut runs) = grid_with_series("uptake", |params, run| {
        let fast = params.iter().any(|(k, v)| k == "cc" && v == "a");
        let mut flows = String::from("t_s,flow,delivery_rate_bps\n");
        let mut link = String::from("t_s,capacity_bps\n");
        for i in 0..40 {
            let t = i as f64 * 0.5;
            let rate = if fast && t >= 12.0 { 190.0 } else { 100.0 };
            flows.push_str(&format!("{t},0,{rate}\n"));
            link.push_str(&format!("{t},{}\n", if t < 10.0 { 100 } else { 200 }));
        }
        let (flows, link) = (complete_flows(&flows), complete_link(&link));
        for (name, text) in [("series_flows.csv", flows), ("series_link.csv", link)] {
            std::fs::write(run.join(name), text).unwrap();
        }
    });
    for (_, record) in runs.points.iter_mut() {
        record.summary["sim_time_s"] = serde_json::json!(20.0);
    }
    let f = file(
        r#"
[[measure]]
id = "lag-a"
kind = "named"
name = "uptake_lag"
params = { at = { cc = "a", buffer = "1" } }

[[measure]]
id = "lag-b"
kind = "named"
name = "uptake_lag"
params = { fraction = 0.9, bin_s = 1.0, at = { cc = "b", buffer = "1" } }

[[measure]]
id = "lag-a-strict"
kind = "named"
name = "uptake_lag"
params = { fraction = 0.99, at = { cc = "a", buffer = "1" } }

[[measure]]
id = "capacity"
kind = "quantile"
of = { metric = "link_capacity_bps" }
q = 0.5
"#,
    );
    // The 1 s bin from 12 s, centred at 12.5 s, is the first at 190.
    assert_eq!(number(&f, &runs, "lag-a"), 2.5);
    // Never taken up: the rise counts as its whole 10 s.
    assert_eq!(number(&f, &runs, "lag-b"), 10.0);
    assert_eq!(number(&f, &runs, "lag-a-strict"), 10.0);
    // The test runs' link: 10 Mbit/s throughout.
    assert!((number(&f, &runs, "capacity") - 10e6).abs() < 1.0);
    let f = file(
        r#"
[[measure]]
id = "lag"
kind = "named"
name = "uptake_lag"
params = { fraction = "most" }
"#,
    );
    let e = f.evaluate(&runs, "lag", 0.0).unwrap_err();
    assert!(
        format!("{e:#}").contains("`fraction` must be a number"),
        "{e:#}"
    );
    // A misspelt metric: line 9 is the `of` of the body below.
    let e = error(
        "\n[[measure]]\nid = \"capacity\"\nkind = \"mean\"\nof = { metric = \"link_capacity\" }\n",
    );
    assert!(
        e.starts_with("t.toml") && e.contains("line 9") && e.contains("link_capacity_bps"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn harm_per_run_is_unclamped_near_checks_targets_and_relabel_renames() {
    let runs = grid(Path::new("."));
    // Harm measures: id, extra keys, quantity, alone, beside.
    let harm = |id: &str, extra: &str, of: &str, alone: &str, beside: &str| {
        format!(
            "[[measure]]\nid = \"{id}\"\nkind = \"harm\"\n{extra}\nof = {{ {of} }}\n\
                 alone = {{ {alone} }}\nbeside = {{ {beside} }}\n\n"
        )
    };
    let goodput = "metric = \"goodput_bps\"";
    let harms = [
        harm(
            "harm-of-b",
            "per_run = true\nby = \"buffer\"",
            goodput,
            "cc = \"a\"",
            "cc = \"b\"",
        ),
        harm(
            "harm-of-a",
            "per_run = true",
            goodput,
            "cc = \"b\", buffer = \"1\"",
            "cc = \"a\", buffer = \"1\"",
        ),
        harm(
            "harm-of-a-clamped",
            "",
            goodput,
            "cc = \"b\", buffer = \"1\"",
            "cc = \"a\", buffer = \"1\"",
        ),
        harm(
            "harm-of-flows",
            "per_run = true\nby = \"buffer\"",
            "metric = \"goodput_bps\", flow = \"mean\"",
            "cc = \"a\"",
            "cc = \"b\"",
        ),
    ]
    .concat();
    let f = file(&format!(
        "\n{harms}{}",
        r#"[[measure]]
id = "near-paper"
kind = "near"
of = "harm-of-b"
targets = { "1" = 0.7, "2" = 0.5 }

[[measure]]
id = "near-named"
kind = "relabel"
of = "near-paper"
label = "lossy {label} B"
"#
    ));
    // Buffer 1: a alone 6, b's flow 0 has 2: (6 - 2) / 6; buffer 2: (4 - 1) / 4.
    let Value::ByAxis(along) = f.evaluate(&runs, "harm-of-b", 0.0).unwrap() else {
        panic!("harm-of-b is taken by buffer");
    };
    let means: Vec<f64> = along.iter().map(|(_, _, s)| s.mean).collect();
    assert!(
        (means[0] - 4.0 / 6.0).abs() < 1e-12 && means[1] == 0.75,
        "{means:?}"
    );
    // a leaves b's flow 0 more than it had alone: -2, where `harm` clamps to 0.
    assert_eq!(number(&f, &runs, "harm-of-a"), -2.0);
    assert_eq!(number(&f, &runs, "harm-of-a-clamped"), 0.0);
    // The mean over a run's flows (10/3 on both sides at buffer 1).
    let Value::ByAxis(flows) = f.evaluate(&runs, "harm-of-flows", 0.0).unwrap() else {
        panic!("harm-of-flows is taken by buffer");
    };
    assert!(flows[0].2.mean.abs() < 1e-12, "{flows:?}");
    assert_eq!(
        conditions(&f, &runs, "near-paper", 0.05),
        vec![("1".to_string(), true), ("2".to_string(), false)]
    );
    assert_eq!(
        conditions(&f, &runs, "near-named", 0.3),
        vec![
            ("lossy 1 B".to_string(), true),
            ("lossy 2 B".to_string(), true)
        ]
    );
}

#[test]
fn near_relabel_and_harm_per_run_name_their_bad_keys() {
    // A one-number goodput, then the measure under test.
    let after_goodput = |by: &str, rest: &str| {
        error(&format!(
                "\n[[measure]]\nid = \"goodput\"\nkind = \"mean\"\nof = {{ metric = \"goodput_bps\" }}\n{by}\n{rest}"
            ))
    };
    // `near` of a one-number measure, `relabel` of one without conditions.
    for wrong in [
        "kind = \"near\"\ntargets = { \"1\" = 0.5 }",
        "kind = \"relabel\"\nlabel = \"x {label}\"",
    ] {
        let e = after_goodput(
            "",
            &format!("[[measure]]\nid = \"m\"\nof = \"goodput\"\n{wrong}\n"),
        );
        assert!(e.starts_with("t.toml: measure.of (line 12)"), "{e}");
    }
    let bad_target = after_goodput(
        "by = \"buffer\"",
        r#"[[measure]]
id = "near"
kind = "near"
of = "goodput"
targets = { "1" = "half" }
"#,
    );
    assert!(
        bad_target
            .starts_with("t.toml: \"1\" (line 15): invalid type: string \"half\", expected f64"),
        "{bad_target}"
    );
    // A per-run harm with a zero unit, then with a key it does not take.
    let harm = |of_extra: &str, extra: &str| {
        error(&format!(
            "\n[[measure]]\nid = \"harm\"\nkind = \"harm\"\nper_run = true\n\
                 of = {{ metric = \"goodput_bps\"{of_extra} }}\nalone = {{ cc = \"a\" }}\n\
                 beside = {{ cc = \"b\" }}\n{extra}"
        ))
    };
    let bad_per = harm(", per = 0", "");
    assert!(
        bad_per.starts_with("t.toml: measure.of.per (line"),
        "{bad_per}"
    );
    let unknown = harm("", "at = { buffer = \"1\" }");
    assert!(unknown.contains("unknown field `at`"), "{unknown}");
}

#[test]
fn drop_response_takes_windows_a_drop_sets() {
    let (dir, runs) = drop_grid("drop-windows");
    let f = file(
        r#"
measure = [
    { id = "high-rtt", kind = "named", name = "drop_response", params = { gives = "high_rtt_at", rtt_above = 2.5, at = { cc = "b" } } },
    { id = "inflight-before", kind = "named", name = "drop_response", params = { gives = "mean", column = "inflight", window = "before", before_s = 1.0, at = { cc = "b" } } },
    { id = "inflight-until", kind = "named", name = "drop_response", params = { gives = "mean", column = "inflight", window = "until_followed", at = { cc = "b" } } },
    { id = "lost-low", kind = "named", name = "drop_response", params = { gives = "increase", column = "lost", window = "low", at = { cc = "b" } } },
    { id = "loss-rate-before", kind = "named", name = "drop_response", params = { gives = "rate", column = "lost", window = "before", before_s = 2.0, at = { cc = "b" } } },
    { id = "followed-at-once", kind = "named", name = "drop_response", params = { gives = "rate", column = "lost", window = "until_followed", at = { cc = "a" } } },
    { id = "no-column", kind = "named", name = "drop_response", params = { gives = "mean", window = "low" } },
    { id = "no-window", kind = "named", name = "drop_response", params = { gives = "rate", column = "lost" } },
    { id = "bad-window", kind = "named", name = "drop_response", params = { gives = "increase", column = "lost", window = "after" } },
    { id = "bad-column", kind = "named", name = "drop_response", params = { gives = "mean", column = 3, window = "low" } },
]
"#,
    );
    // RTT above 50 ms at once in the first drop, never in the second
    // (its whole 1 s).
    assert_eq!(number(&f, &runs, "high-rtt"), 0.5);
    // [1, 2) and [4, 5): 10 and 40.
    assert_eq!(number(&f, &runs, "inflight-before"), 25.0);
    // b never follows: [2, 4) and [5, 6): 25 and 50.
    assert_eq!(number(&f, &runs, "inflight-until"), 37.5);
    // 16 - 4 and 36 - 25.
    assert_eq!(number(&f, &runs, "lost-low"), 11.5);
    // (4 - 0) / 2 and (25 - 9) / 2.
    assert_eq!(number(&f, &runs, "loss-rate-before"), 5.0);
    // a follows at the drop: an empty window has no rate.
    assert!(number(&f, &runs, "followed-at-once").is_nan());
    evaluation_refused(
        &f,
        &runs,
        "drop_response: ",
        &[
            ("no-column", "needs `column`"),
            ("no-window", "`window` must be"),
            ("bad-window", "`window` must be"),
            ("bad-column", "`column` must be"),
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sample_runs_counts_distinct_samples_and_runs_as_the_detector_does() {
    let (dir, runs) = grid_with_series("sample-runs", |_, run| {
        // Capacity 10; a sample repeated in the next row counts once;
        // ProbeBW's samples count two min_rtts (0.4 s) after it starts.
        let rows = [
            "0.0,0,5,10,200,200,startup",
            "0.25,0,6,10,200,200,probe_bw",
            "0.5,0,4,10,200,200,probe_bw",
            "0.75,0,4,10,600,200,probe_bw",
            "1.0,0,4,10,600,200,probe_bw",
            "1.25,0,9,10,600,200,probe_bw",
            "1.5,0,2,10,200,200,probe_rtt",
            "1.75,0,3,10,520,200,probe_bw",
        ];
        let flows = format!(
            "t_s,flow,delivery_rate_bps,bw_estimate_bps,latest_rtt_ms,min_rtt_ms,mode\n{}\n",
            rows.join("\n")
        );
        std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
        std::fs::write(
            run.join("series_link.csv"),
            complete_link("t_s,queue_bytes,capacity_bps\n0.0,0,10\n1.75,0,10\n"),
        )
        .unwrap();
    });
    let f = file(
        r#"
measure = [
    { id = "samples", kind = "named", name = "sample_runs", params = { gives = "samples", view = "all", from_s = 0.0 } },
    { id = "samples-late", kind = "named", name = "sample_runs", params = { gives = "samples", view = "all", from_s = 0.6 } },
    { id = "counted", kind = "named", name = "sample_runs", params = { gives = "samples", from_s = 0.0 } },
    { id = "below", kind = "named", name = "sample_runs", params = { gives = "share_below", below = 0.5, view = "all", from_s = 0.0 } },
    { id = "below-counted", kind = "named", name = "sample_runs", params = { gives = "share_below", below = 0.5, from_s = 0.0 } },
    { id = "lowest", kind = "named", name = "sample_runs", params = { gives = "lowest", view = "all", from_s = 0.0 } },
    { id = "lowest-counted", kind = "named", name = "sample_runs", params = { gives = "lowest", view = "detector", from_s = 0.0 } },
    { id = "low-run", kind = "named", name = "sample_runs", params = { gives = "low_run", fraction = 0.75, view = "all", from_s = 0.0 } },
    { id = "low-run-counted", kind = "named", name = "sample_runs", params = { gives = "low_run", fraction = 0.75, from_s = 0.0 } },
    { id = "high-rtt-run", kind = "named", name = "sample_runs", params = { gives = "high_rtt_run", multiple = 2.5, view = "all", from_s = 0.0 } },
    { id = "left-out", kind = "named", name = "sample_runs", params = { gives = "left_out", from_s = 0.0 } },
    { id = "no-below", kind = "named", name = "sample_runs", params = { gives = "share_below" } },
    { id = "bad-gives", kind = "named", name = "sample_runs", params = { gives = "median" } },
    { id = "bad-view", kind = "named", name = "sample_runs", params = { gives = "lowest", view = "some" } },
]
"#,
    );
    // The mean of eight runs' equal shares, to the last bits.
    let near = |id: &str, want: f64| {
        let got = number(&f, &runs, id);
        assert!((got - want).abs() < 1e-12, "{id}: {got} against {want}");
    };
    // Seven distinct samples (the 1 s row repeats 0.75 s's), four
    // from 0.6 s on; the detector counts 0.75 and 1.25 s.
    assert_eq!(number(&f, &runs, "samples"), 7.0);
    assert_eq!(number(&f, &runs, "samples-late"), 4.0);
    assert_eq!(number(&f, &runs, "counted"), 2.0);
    // Below 5: 4, 4, 2 and 3 of seven; 4 of the two counted.
    near("below", 4.0 / 7.0);
    near("below-counted", 0.5);
    near("lowest", 0.2);
    near("lowest-counted", 0.4);
    // Below 7.5: the first four samples in a row; the detector's run
    // starts over in Startup and ProbeRTT and skips early ProbeBW.
    assert_eq!(number(&f, &runs, "low-run"), 4.0);
    assert_eq!(number(&f, &runs, "low-run-counted"), 1.0);
    // RTT above 500 ms: 0.75 and 1.25 s (1.75 s after ProbeRTT's 200).
    assert_eq!(number(&f, &runs, "high-rtt-run"), 2.0);
    // Six samples from the end of Drain (0.25 s) on, two counted.
    near("left-out", 1.0 - 2.0 / 6.0);
    evaluation_refused(
        &f,
        &runs,
        "sample_runs",
        &[
            ("no-below", "`below` (a number) is required"),
            ("bad-gives", "`gives` must be"),
            ("bad-view", "`view` must be"),
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_window_takes_a_statistic_over_fractions_of_the_run() {
    // A 10 s run; 0 is an unset bound.
    let points = [
        (0.0, 0.0),
        (1.0, 4.0),
        (2.0, 0.0),
        (3.0, 2.0),
        (4.0, 6.0),
        (5.0, 8.0),
        (10.0, 3.0),
    ];
    let take =
        |t, window, bin_s, zero_unset| run_window(&points, t, window, 10.0, bin_s, zero_unset);
    // [1, 5] s, the end included: 4, 2, 6, 8 without the unset 0.
    assert_eq!(take(WindowTake::Median, (0.1, 0.5), None, true), Some(5.0));
    assert_eq!(take(WindowTake::Median, (0.1, 0.5), None, false), Some(4.0));
    // The last sample, at the run's end, is in a window to 1.
    assert_eq!(take(WindowTake::Max, (0.6, 1.0), None, false), Some(3.0));
    assert_eq!(take(WindowTake::Mean, (0.6, 0.9), None, false), None);
    // Means over 2 s bins (at 1, 3, 5 and 11 s: 4, 2, 7, 3), then the window.
    assert_eq!(
        take(WindowTake::Min, (0.0, 0.6), Some(2.0), true),
        Some(2.0)
    );
    assert_eq!(
        take(WindowTake::Max, (0.0, 0.6), Some(2.0), true),
        Some(7.0)
    );
    // The last bin's centre, 11 s, lies after the run's end.
    assert_eq!(
        take(WindowTake::Median, (0.0, 1.0), Some(2.0), true),
        Some(4.0)
    );

    let (dir, runs) = grid_with_series("run-window", |params, run| {
        // inflight: 0 (unset) then 1, 2, ... every 50 ms; cc b's doubled.
        let double = params.iter().any(|(k, v)| k == "cc" && v == "b");
        let mut flows = String::from("t_s,flow,inflight\n");
        for i in 0..=10 {
            let v = if i == 0 { 0.0 } else { i as f64 };
            let v = if double { 2.0 * v } else { v };
            flows.push_str(&format!("{},0,{v}\n", i as f64 * 0.05));
        }
        std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
    });
    let length = runs.points[0].1.result().unwrap().sim_time_s;
    assert_eq!(length, 0.5, "the template's run lasts 500 ms");
    let body = r#"
[[measure]]
id = "early"
kind = "run_window"
series = { column = "inflight" }
take = "median"
from_run = 0.0
to_run = 0.3
zero_unset = true
at = { cc = "a", buffer = "1" }

[[measure]]
id = "late-by-cc"
kind = "run_window"
series = { column = "inflight" }
take = "mean"
from_run = 0.8
to_run = 1.0
at = { buffer = "1" }
by = "cc"
"#;
    let f = file(body);
    // 0 to 0.15 s: 1, 2, 3 without the unset first sample.
    assert_eq!(number(&f, &runs, "early"), 2.0);
    match f.evaluate(&runs, "late-by-cc", 0.0).unwrap() {
        // 0.4 to 0.5 s: 8, 9, 10; cc b's doubled.
        Value::ByAxis(v) => {
            assert_eq!(
                v.iter().map(|x| x.2.mean).collect::<Vec<_>>(),
                vec![9.0, 18.0]
            )
        }
        v => panic!("{v:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let e = error(&body.replace("to_run = 0.3", "to_run = 0.0"));
    assert!(e.starts_with("t.toml: measure.from_run (line 7): "), "{e}");
    assert!(e.contains("0 <= from_run < to_run <= 1"), "{e}");
    let e = error(&body.replace("to_run = 1.0", "to_run = 1.5"));
    assert!(e.starts_with("t.toml: measure.from_run (line 17): "), "{e}");
    let e = error(&body.replace("zero_unset = true", "bin_s = 0.0"));
    assert!(e.starts_with("t.toml: measure.bin_s (line 7): "), "{e}");
    let e = error(&body.replace("take = \"mean\"", "take = \"mode\""));
    assert!(e.contains("unknown variant `mode`"), "{e}");
}

#[test]
fn the_bdp_and_the_buffer_are_metrics_of_the_path() {
    let text = "name = \"t\"\nduration = \"500ms\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"1bdp\"\n\
                    [[flow]]\ncc = \"bbr\"\ncount = 3\n";
    let record = RunRecord::new("r".into(), Vec::new(), text.into(), template());
    let r = record.result().unwrap();
    let quantity = |text: &str| -> Quantity { toml::from_str(text).unwrap() };
    let bdp = quantity("metric = \"bdp_bytes\"\nflow = 1")
        .of(&record)
        .unwrap();
    let expected = r.link.capacity_bps * (r.flows[1].base_rtt_ms / 1e3) / 8.0;
    assert_eq!(bdp, expected);
    assert!(bdp > 0.0);
    assert_eq!(
        quantity("metric = \"bdp_bytes\"\nflow = \"sum\"").of(&record),
        None
    );
    // 1 BDP of 10 Mbit/s x 20 ms.
    let buffer = quantity("metric = \"link_buffer_bytes\"\nper = 1e3").of(&record);
    assert_eq!(buffer, Some(25.0));
    // A record without its scenario has no buffer.
    let (_, bare) = point(&[], &[1.0, 1.0, 1.0], &[0, 0, 0]);
    assert_eq!(quantity("metric = \"link_buffer_bytes\"").of(&bare), None);
}

/// A `direction` claim `t.claim` judged on `measure`, its other keys
/// placeholders.
fn direction_claim(measure: &str) -> String {
    format!(
        "[[claim]]\nid = \"t.claim\"\npaper = \"obbr\"\nplace = \"p\"\nstatement = \"s\"\n\
             about = \"a\"\nmetric = \"m\"\nunit = \"\"\npaper_says = \"p\"\n\
             test = {{ kind = \"direction\" }}\ntolerance_reason = \"r\"\n\
             origin = \"project target\"\nmeasure = \"{measure}\"\n"
    )
}

/// A CSV file `bbrlab-recorded-NAME-PID.csv` in the temporary
/// directory holding `text`; its path.
fn recorded_csv(name: &str, text: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("bbrlab-recorded-{name}-{}.csv", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn recorded_measure(path: &Path, value: &str, keys: &str) -> String {
    format!(
        r#"
[[measure]]
id = "real"
kind = "recorded"
file = "{}"
value = "{value}"
rows = {{ path = "p" }}
keys = {keys}
by = "buffer"
"#,
        path.display()
    )
}

#[test]
fn a_row_may_name_every_condition_and_an_unmet_precondition_its_numbers() {
    let runs = grid(Path::new("."));
    let body = GOODPUTS_OF_A_AND_B.to_string()
        + r#"
[[measure]]
id = "a-below-b"
kind = "condition"
a = "a-goodput"
b = "b-goodput"
holds = "below"
label = "buffer 1: {a} against {b}"

[[measure]]
id = "b-below-a"
kind = "condition"
a = "b-goodput"
b = "a-goodput"
holds = "below"
label = "b below a"

"# + &direction_claim("a-below-b")
        + r#"every_condition = true
precondition = { text = "a is ahead", measure = "b-below-a", unmet = "a at {a-goodput}, b at {b-goodput}", decimals = 1 }
"#;
    let judged = file(&body).analyze(&runs).claims.remove(0);
    assert_eq!(judged.verdict, report::VerdictStatus::Differs);
    assert_eq!(
        judged.ours,
        "holds in 0 of 1 (buffer 1: 2.00 against 0.67 (does not))"
    );
    // Where the precondition fails, its numbers follow.
    let swapped = body
        .replace("measure = \"b-below-a\"", "measure = \"a-below-b\"")
        .replace(
            "measure = \"a-below-b\"\nevery",
            "measure = \"b-below-a\"\nevery",
        );
    let judged = file(&swapped).analyze(&runs).claims.remove(0);
    assert_eq!(
        judged.ours,
        "holds in 1 of 1 (b below a (holds)); precondition unmet: a at 2.0, b at 0.7"
    );
    // Without every_condition, only the conditions that fail are named.
    let judged = file(&body.replace("every_condition = true\n", ""))
        .analyze(&runs)
        .claims
        .remove(0);
    assert_eq!(
        judged.ours,
        "holds in 0 of 1 (not at buffer 1: 2.00 against 0.67)"
    );
    let e = error(&body.replace("{b-goodput}", "{nothing}"));
    assert!(
        e.starts_with("t.toml: claim.precondition.unmet (line 48): "),
        "{e}"
    );
    assert!(
        e.contains("`{nothing}` must name a one-number measure"),
        "{e}"
    );
}

#[test]
fn recorded_numbers_fill_a_column_beside_the_runs() {
    // Two runs of a real player at (a, 1), one at (b, 2), one not
    // made at (a, 2), and a row of another path left out.
    let csv = recorded_csv(
        "column",
        "path,cc,buffer,run,aq,command\n\
             p,a,1,1,7.5,x --seed 1\n\
             p,a,1,2,6.5,x --seed 2\n\
             p,b,2,1,3,x\n\
             p,a,2,1,,not run\n\
             q,a,1,1,0,x\n",
    );
    let runs = grid(Path::new("."));
    let f = file(&format!(
        r#"{}
[[measure]]
id = "goodput"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
by = "buffer"

[[table]]
title = "Goodput"
by = "buffer"
then = "cc"
columns = [
    {{ header = "goodput", measure = "goodput", decimals = 0 }},
    {{ header = "real AQ", measure = "real", format = "stat", decimals = 1 }},
]
"#,
        recorded_measure(&csv, "aq", r#"{ cc = "cc", buffer = "buffer" }"#)
    ));
    let table = &f.analyze(&runs).section.tables[0];
    let real: Vec<Cell> = table.rows.iter().map(|r| r[2].clone()).collect();
    assert_eq!(
        real,
        [
            Cell::text("7.0 ± 0.7"),
            Cell::Empty,
            Cell::Empty,
            Cell::text("3.0")
        ],
        "{:?}",
        table.rows
    );
    // Along its axis, the other keys free: every run of the path.
    match f.evaluate(&runs, "real", 0.0).unwrap() {
        Value::ByAxis(v) => {
            let means: Vec<(String, f64)> = v.into_iter().map(|(x, _, s)| (x, s.mean)).collect();
            assert_eq!(means, [("1".to_string(), 7.0), ("2".to_string(), 3.0)]);
        }
        v => panic!("{v:?}"),
    }
    std::fs::remove_file(csv).unwrap();
}

#[test]
fn a_recorded_file_is_refused_naming_the_file_the_line_and_the_key() {
    let e = error(&recorded_measure(
        Path::new("no/such/recorded.csv"),
        "aq",
        r#"{ cc = "cc" }"#,
    ));
    assert!(e.starts_with("t.toml: measure.file (line 9)"), "{e}");
    assert!(e.contains("cannot read no/such/recorded.csv"), "{e}");

    let csv = recorded_csv("no-column", "path,cc,run,aq\np,a,1,7\n");
    let e = error(&recorded_measure(
        &csv,
        "aq",
        r#"{ cc = "cc", buffer = "buf" }"#,
    ));
    assert!(e.starts_with("t.toml: measure.file (line 9)"), "{e}");
    assert!(
            e.contains("line 1: no column `buf` (the column of axis `buffer`); the columns are path, cc, run, aq"),
            "{e}"
        );
    let e = error(&recorded_measure(&csv, "qs", r#"{ cc = "cc" }"#));
    assert!(e.contains("no column `qs` (the measure's `value`)"), "{e}");
    std::fs::remove_file(csv).unwrap();

    let csv = recorded_csv("not-a-number", "path,cc,aq\np,a,7\np,b,seven\n");
    let e = error(&recorded_measure(&csv, "aq", r#"{ cc = "cc" }"#));
    assert!(
        e.contains("line 3: `aq` is `seven`: expected a number, or nothing for a run not made"),
        "{e}"
    );
    std::fs::remove_file(&csv).unwrap();

    let csv = recorded_csv("ragged", "path,cc,aq\np,a,7,extra\n");
    let e = error(&recorded_measure(&csv, "aq", r#"{ cc = "cc" }"#));
    assert!(e.contains("line 2: not a CSV row"), "{e}");
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn near_takes_the_point_band_and_names_raw_values_as_per_value_does() {
    let runs = grid(Path::new("."));
    // Measures of one kind each: id, kind, and the rest of its keys.
    let measures: String = [
            ("goodput-1", "mean", "of = { metric = \"goodput_bps\" }\nat = { buffer = \"1\" }\nby = \"cc\""),
            ("point", "near", "of = \"goodput-1\"\nband = \"point\"\ntargets = { a = 5.0, b = 1.0 }\nlabel = \"{raw} ({value}) at 1\""),
            ("margin", "near", "of = \"goodput-1\"\ntargets = { a = 5.0, b = 1.0 }"),
            ("goodput", "mean", "of = { metric = \"goodput_bps\" }\nby = \"buffer\""),
            ("at-least-3", "count", "of = \"goodput\"\nholds = \"at_least\"\nbound = 3.0"),
            ("per-cc", "per_value", "axis = \"cc\"\nof = \"at-least-3\"\nlabel = \"{raw} {condition}\""),
        ]
        .iter()
        .map(|(id, kind, rest)| format!("[[measure]]\nid = \"{id}\"\nkind = \"{kind}\"\n{rest}\n\n"))
        .collect();
    let f = file(&format!("\n[labels]\na = \"A\"\n\n{measures}"));
    let named = |v: &[(&str, bool)]| -> Vec<(String, bool)> {
        v.iter().map(|(l, ok)| (l.to_string(), *ok)).collect()
    };
    // a: |6 - 5| within a quarter of 5; b: |2 - 1| beyond a quarter of 1,
    // whatever the claim's margin.
    assert_eq!(
        conditions(&f, &runs, "point", 5.0),
        named(&[("a (A) at 1", true), ("b (b) at 1", false)])
    );
    // Without a band, the claim's margin: 1 holds both.
    assert_eq!(
        conditions(&f, &runs, "margin", 1.0),
        named(&[("A", true), ("b", true)])
    );
    assert_eq!(
        conditions(&f, &runs, "margin", 0.5),
        named(&[("A", false), ("b", false)])
    );
    // a delivers 6 and 4, b 2 and 1.
    assert_eq!(
        conditions(&f, &runs, "per-cc", 0.0),
        named(&[("a 1", true), ("a 2", true), ("b 1", false), ("b 2", false)])
    );
    let e = error(
            "\n[[measure]]\nid = \"g\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\" }\nby = \"cc\"\n\n\
             [[measure]]\nid = \"n\"\nkind = \"near\"\nof = \"g\"\nband = \"wide\"\ntargets = { a = 1.0 }\n",
        );
    assert!(
        e.starts_with(
            "t.toml: band (line 16): unknown variant `wide`, expected `margin` or `point`"
        ),
        "{e}"
    );
}
/// Table I's axes at two losses, RTTs and buffers, one BBR and one
/// BBRv2 run each (seed 1): BBR far ahead with loss, BBRv2 within 1%
/// without, but 25% ahead at 10 ms with the larger buffer.
fn tree_grid() -> Runs {
    let mut points = Vec::new();
    for loss in ["0", "2%"] {
        for rtt in ["10ms", "100ms"] {
            for buffer in ["1MB", "10MB"] {
                let (bbr, bbr2) = match (loss, rtt, buffer) {
                    ("0", "10ms", "10MB") => (8.0, 10.0),
                    ("0", _, _) => (9.95, 10.0),
                    _ => (10.0, 2.0),
                };
                for (cc, g) in [("bbr", bbr), ("bbr2", bbr2)] {
                    points.push(point(
                        &[
                            ("link.loss", loss),
                            ("link.rate", "10Mbit"),
                            ("link.rtt", rtt),
                            ("link.buffer", buffer),
                            ("flow.0.cc", cc),
                        ],
                        &[g, 1.0, 1.0],
                        &[0, 0, 0],
                    ));
                }
            }
        }
    }
    let axes: [(&str, &[&str]); 5] = [
        ("link.loss", &["0", "2%"]),
        ("link.rate", &["10Mbit"]),
        ("link.rtt", &["10ms", "100ms"]),
        ("link.buffer", &["1MB", "10MB"]),
        ("flow.0.cc", &["bbr", "bbr2"]),
    ];
    runs_of(points, &axes, &std::env::temp_dir())
}

const TREE: &str = r#"
[[measure]]
id = "checks"
kind = "named"
name = "decision_tree"
params = { of = { metric = "goodput_bps" }, classes = ["bbr", "bbr2"], gives = "fig1" }

[[measure]]
id = "root"
kind = "named"
name = "decision_tree"
params = { of = { metric = "goodput_bps" }, classes = ["bbr", "bbr2"], gives = "root" }

[[tree]]
title = "Who wins over {conditions} conditions"
measure = "root"
leaves = "Leaves"
"#;

#[test]
fn a_decision_tree_checks_fig1_splits_on_loss_and_is_drawn_with_its_leaves() {
    let f = file(TREE);
    let runs = tree_grid();
    let checks = conditions(&f, &runs, "checks", 0.0);
    assert_eq!(checks.len(), 8);
    assert!(checks.iter().all(|(_, ok)| *ok), "{checks:?}");
    assert_eq!(
        checks[1].0,
        "10Mbit, 10ms, no loss, 10MB buffer (BBRv2 +25%)"
    );
    assert_eq!(
        conditions(&f, &runs, "root", 0.0),
        labelled(&[("the root splits on loss (%)", true)])
    );
    let section = f.analyze(&runs).section;
    let tree = section
        .figures
        .iter()
        .find(|f| matches!(f.kind, report::FigureKind::Tree { .. }))
        .expect("a tree figure");
    assert_eq!(tree.title, "Who wins over 8 conditions (one seed)");
    assert_eq!(section.tables[0].caption, "Leaves");
    // Without the leaves' title, the tree alone.
    let f = file(&TREE.replace("leaves = \"Leaves\"\n", ""));
    let section = f.analyze(&runs).section;
    assert!(section.tables.iter().all(|t| t.caption != "Leaves"));
    // A measure without the runs' quantity, or giving what it cannot.
    let bad = file(&TREE.replace("gives = \"fig1\"", "gives = \"leaves\""));
    evaluation_refused(
        &bad,
        &runs,
        "decision_tree",
        &[("checks", "`gives` must be")],
    );
    let bad = file(&TREE.replace(
        "classes = [\"bbr\", \"bbr2\"], gives = \"root\"",
        "gives = \"root\"",
    ));
    evaluation_refused(
        &bad,
        &runs,
        "decision_tree",
        &[("root", "`classes` must be two")],
    );
}

#[test]
fn a_tree_of_a_measure_that_is_not_a_decision_tree_is_named_by_file_line_and_key() {
    // A named measure of another name, and no measure at all.
    let other = TREE.replace(
            "name = \"decision_tree\"\nparams = { of = { metric = \"goodput_bps\" }, classes = [\"bbr\", \"bbr2\"], gives = \"root\" }",
            "name = \"converge_share\"\nparams = { g = 2 }",
        );
    let e = error(&other);
    assert!(e.starts_with("t.toml: tree.measure (line 19)"), "{e}");
    assert!(
        e.contains("`root` must be a named measure of name \"decision_tree\""),
        "{e}"
    );
    let e = error(&TREE.replace("measure = \"root\"", "measure = \"nothing\""));
    assert!(e.starts_with("t.toml: tree.measure (line 19)"), "{e}");
    let e = error(&TREE.replace(
        "leaves = \"Leaves\"",
        "leaves = \"Leaves\"\ncolour = \"red\"",
    ));
    assert!(e.contains("unknown field `colour`"), "{e}");
}

/// A claims-not-run file of one claim: [`MINIMAL`]'s, with what judging
/// it needs in place of its measure (line 2 is its id, line 10 its test).
fn not_run() -> String {
    let claim = &MINIMAL[MINIMAL.find("[[claim]]").unwrap()..];
    claim.replace("measure = \"like\"", "needs = \"the Internet path\"")
}

#[test]
fn a_claims_not_run_file_judges_each_claim_not_run_with_what_it_needs() {
    let text = not_run();
    let f = NotRunFile::parse("n.toml", &text).unwrap();
    assert_eq!(f.sha256, sha256_hex(text.as_bytes()));
    let judged = f.judged();
    assert_eq!(judged.len(), 1);
    assert_eq!(judged[0].claim.id(), "t.x");
    assert_eq!(judged[0].verdict, report::VerdictStatus::NotRun);
    assert_eq!(judged[0].ours, "not run: the Internet path");
    // Every suite's file parses, its claims declared once.
    let mut ids = std::collections::BTreeSet::new();
    for suite in super::super::suites() {
        let Some(file) = &suite.outside else { continue };
        let parsed = NotRunFile::parse(file.path, file.text).unwrap();
        assert!(!parsed.claims.is_empty(), "{}", file.path);
        for (claim, _) in &parsed.claims {
            assert!(ids.insert(claim.id()), "{} twice", claim.id());
        }
    }
}

#[test]
fn a_bad_claims_not_run_file_is_named_by_file_line_and_key() {
    let refused = |text: &str| NotRunFile::parse("n.toml", text).unwrap_err().to_string();
    let claim = not_run();
    let e = refused(&claim.replace("needs = \"the Internet path\"\n", ""));
    assert!(e.starts_with("n.toml: claim.needs (line 2)"), "{e}");
    assert!(e.contains("`t.x` needs `needs`"), "{e}");
    let e = refused(&claim.replace("needs = \"the Internet path\"", "needs = \" \""));
    assert!(e.starts_with("n.toml: claim.needs (line 2)"), "{e}");
    let e = refused(&format!("{claim}measure = \"m\"\n"));
    assert!(e.starts_with("n.toml: claim.measure (line 2)"), "{e}");
    let e = refused(&format!("{claim}every_condition = true\n"));
    assert!(
        e.starts_with("n.toml: claim.every_condition (line 2)"),
        "{e}"
    );
    let e = refused(&format!("{claim}{claim}"));
    assert!(e.starts_with("n.toml: claim.id (line 2)"), "{e}");
    assert!(e.contains("`t.x` is declared twice"), "{e}");
    let e = refused(&format!("{claim}colour = \"red\"\n"));
    assert!(e.starts_with("n.toml (line "), "{e}");
    assert!(e.contains("unknown field `colour`"), "{e}");
    let e = refused(&claim.replace("kind = \"direction\"", "kind = \"direktion\""));
    assert!(
        e.contains("line 10") && e.contains("unknown variant `direktion`"),
        "{e}"
    );
    // An experiment file's claim is judged on a measure, never `needs`.
    let e = ExperimentFile::parse("x.toml", &format!("{MINIMAL}needs = \"n\"\n"), None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.toml: claim.needs (line 20)"), "{e}");
    let text = MINIMAL.replace("measure = \"like\"\n", "");
    let e = ExperimentFile::parse("x.toml", &text, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.toml: claim.measure (line 20)"), "{e}");
}

#[test]
fn a_reference_line_at_a_measures_number_draws_goodput_under_losss_capacity() {
    // bbr2's goodput under loss draws the runs' mean capacity (here the
    // template's 10 Mbit/s link) on its goodput figure, in Mbit/s.
    let points = ["bbr", "bbr2"]
        .into_iter()
        .flat_map(|cc| {
            ["0", "2%"].map(|loss| {
                point(
                    &[("flow.0.cc", cc), ("link.loss", loss)],
                    &[5e6, 0.0, 0.0],
                    &[0; 3],
                )
            })
        })
        .collect();
    let axes: [(&str, &[&str]); 2] = [("flow.0.cc", &["bbr", "bbr2"]), ("link.loss", &["0", "2%"])];
    let runs = runs_of(points, &axes, &std::env::temp_dir());
    let text = include_str!("../../../../../experiments/bbr2/goodput-under-loss.toml");
    let f = ExperimentFile::parse("goodput-under-loss.toml", text, None).unwrap();
    let section = f.analyze(&runs).section;
    let goodput = section
        .figures
        .iter()
        .find(|f| f.title.starts_with("Goodput under random loss"))
        .unwrap();
    assert_eq!(goodput.references.len(), 1);
    assert!(
        (goodput.references[0].at - 10.0).abs() < 1e-9,
        "{:?}",
        goodput.references
    );
    assert_eq!(goodput.references[0].label, "capacity");
    // A measure without a number (no runs) draws no line.
    let section = f
        .analyze(&Runs {
            points: Vec::new(),
            ..runs
        })
        .section;
    assert!(section.figures.iter().all(|f| f.references.is_empty()));
}
