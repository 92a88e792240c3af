//! A run's results read back: summary.json and the series rows parse into
//! the simulator's own types, and written again they are the same bytes.

use std::time::Duration;

use cc::Bandwidth;
use sim::app::dash::DashConfig;
use sim::app::Application;
use sim::{Dumbbell, FlowColumn, FlowSample, LinkColumn, LinkSample, RunResult, Simulation};

#[test]
fn a_summary_and_its_series_rows_read_back_as_they_were_written() {
    let d = Dumbbell::new(Bandwidth::from_mbps(10), Duration::from_millis(40))
        .buffer_bdp(1.0)
        .duration(Duration::from_secs(10))
        .flow("bbr")
        .unwrap()
        .flow_with("cubic", |f| {
            f.app = Application::Dash(DashConfig {
                video: Duration::from_secs(8),
                ..DashConfig::obbr_paper()
            });
        })
        .unwrap();
    let r = Simulation::new(d.build()).run();
    // Through a JSON value (as lab reads a stored record: its text parsed
    // once), so the comparison is of the document, not of float printing.
    let json = serde_json::to_value(&r).unwrap();
    let back: RunResult = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
    assert!(back.flows[1].dash.is_some());
    assert!(!r.series.flows.is_empty());
    for row in &r.series.flows {
        let back: FlowSample = serde_json::from_value(serde_json::to_value(row).unwrap()).unwrap();
        assert_eq!(
            back,
            FlowSample {
                controller: Vec::new(),
                ..row.clone()
            }
        );
    }
    for row in &r.series.link {
        let back: LinkSample = serde_json::from_value(serde_json::to_value(row).unwrap()).unwrap();
        assert_eq!(&back, row);
    }
}

#[test]
fn the_series_columns_are_the_rows_fields_by_name_and_value() {
    let d = Dumbbell::new(Bandwidth::from_mbps(10), Duration::from_millis(40))
        .duration(Duration::from_secs(3))
        .flow("bbr")
        .unwrap();
    let r = Simulation::new(d.build()).run();
    let row = r.series.flows.last().unwrap();
    check_columns(row, &FlowColumn::ALL, |c| c.of(row), &["t_s", "flow"]);
    let link = r.series.link.last().unwrap();
    check_columns(link, &LinkColumn::ALL, |c| c.of(link), &["t_s"]);
    assert_eq!(
        FlowColumn::Delivered.points(&r.series.flows, 0).len(),
        r.series.flows.len()
    );
    assert!(FlowColumn::Delivered.points(&r.series.flows, 1).is_empty());
    assert_eq!(
        LinkColumn::CapacityBps.points(&r.series.link).last(),
        Some(&(link.t_s, link.capacity_bps))
    );
}

/// Every numeric field of the serialised `row` but its `keys` is one of
/// `all` by name (and each name parses back to its column), with the
/// value `of` gives.
fn check_columns<R, C>(row: &R, all: &[C], of: impl Fn(C) -> f64, keys: &[&str])
where
    R: serde::Serialize,
    C: serde::Serialize + serde::de::DeserializeOwned + Copy + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(row).unwrap();
    let fields = json.as_object().unwrap();
    // (JSON objects here keep their keys sorted: compare as sets.)
    let numeric: Vec<&str> = fields
        .iter()
        .filter(|(k, v)| v.is_number() && !keys.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    let mut names: Vec<String> = all
        .iter()
        .map(|c| {
            serde_json::to_value(c)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for (column, name) in all.iter().zip(&names) {
        assert_eq!(Some(of(*column)), fields[name].as_f64(), "{name}");
        let parsed: C = serde_json::from_value(serde_json::json!(name)).unwrap();
        assert_eq!(parsed, *column);
    }
    names.sort();
    assert_eq!(numeric, names, "the columns against the row's fields");
}
