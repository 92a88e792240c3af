//! One case of the speed bench, for a profiler or an instruction counter:
//! `cargo run --release -p bbrlab-sim --example workload -- bbr 10`
//! (case: bbr, cubic, 5bbr or 100flows; simulated seconds). Prints the
//! packets and events it simulated, so counts per packet can be derived.

use std::time::Duration;

use cc::Bandwidth;
use sim::{Dumbbell, SimConfig, Simulation};

fn config(case: &str, secs: u64) -> SimConfig {
    let d = |mbps, bdp| {
        Dumbbell::new(Bandwidth::from_mbps(mbps), Duration::from_millis(40))
            .buffer_bdp(bdp)
            .duration(Duration::from_secs(secs))
    };
    match case {
        "bbr" => d(100, 1.0).flow("bbr").unwrap().build(),
        "cubic" => d(100, 1.0).flow("cubic").unwrap().build(),
        "5bbr" => d(100, 0.5)
            .flow_with("bbr", |f| f.count = 5)
            .unwrap()
            .build(),
        "100flows" => {
            let mut c = d(1000, 1.0)
                .flow_with("bbr", |f| f.count = 50)
                .unwrap()
                .flow_with("cubic", |f| f.count = 50)
                .unwrap()
                .build();
            c.record_series = false;
            c
        }
        other => panic!("unknown case {other}: bbr, cubic, 5bbr or 100flows"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let case = args.first().map_or("bbr", String::as_str);
    let secs = args.get(1).map_or(10, |s| s.parse().expect("seconds"));
    let r = Simulation::new(config(case, secs)).run();
    r.assert_physics();
    println!(
        "{case} {secs} s: {} packets, {} events, {:.3} s wall, {:.0}x real time",
        r.packets_sent,
        r.events,
        r.wall_time_s,
        r.sim_time_s / r.wall_time_s
    );
}
