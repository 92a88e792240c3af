//! `my-bbr` through the registry: spec strings, inherited parameters,
//! named choices, and a simulation.

use std::time::Duration;

use cc::{AlgorithmSpec, Bandwidth, ParamKind};
use my_controller::{DownRule, MyParams};

#[test]
fn the_registered_variant_parses_inherits_and_runs() {
    my_controller::register();
    my_controller::register(); // idempotent
    let info = cc::find("my-bbr").expect("registered");
    assert_eq!(info.display_name, "My BBR");
    assert_eq!(info.parent, Some("bbr"));
    let names: Vec<_> = info.params.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "up",
            "down",
            "down_rule",
            "cwnd_gain",
            "lt_bw",
            "extra_acked"
        ]
    );
    assert_eq!(
        info.param("down_rule").unwrap().kind,
        ParamKind::Choice {
            names: &["fixed", "reciprocal"]
        }
    );

    let spec = AlgorithmSpec::parse("my-bbr:up=1.2,down_rule=reciprocal,cwnd_gain=2.5").unwrap();
    let mine = MyParams::from_spec(&spec);
    assert_eq!((mine.up, mine.down_rule), (1.2, DownRule::Reciprocal));
    assert_eq!(cc::bbr::BbrParams::from_spec(&spec).cwnd_gain, 2.5);
    let err = AlgorithmSpec::parse("my-bbr:down_rule=half")
        .unwrap_err()
        .to_string();
    assert!(err.contains("one of fixed, reciprocal"), "{err}");
    assert!(AlgorithmSpec::parse("my-bbr:pacing_margin=0").is_err());
    assert!(
        cc::register(my_controller::info()).is_err(),
        "a name registers once"
    );

    let config = sim::Dumbbell::new(Bandwidth::from_mbps(10), Duration::from_millis(20))
        .duration(Duration::from_secs(5))
        .flow("my-bbr")
        .unwrap()
        .build();
    let result = sim::Simulation::new(config).run();
    assert_eq!(result.flows[0].cc, "my-bbr");
    assert!(result.link.utilization > 0.8, "{}", result.link.utilization);
}
