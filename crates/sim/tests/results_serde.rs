//! A run's results read back: summary.json and the series rows parse into
//! the simulator's own types, and written again they are the same bytes.

use std::time::Duration;

use cc::Bandwidth;
use sim::app::dash::DashConfig;
use sim::app::Application;
use sim::{Dumbbell, FlowSample, LinkSample, RunResult, Simulation};

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
