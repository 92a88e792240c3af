//! An emulated run fills the columns a simulated one fills from the
//! sender's inside: PTOs (from s2n-quic's recovery events) and the
//! bandwidth samples' and estimate's errors against the link's capacity.
//! One 5 s run in real time, CUBIC beside BBRv1 on a link losing 30% of
//! its packets, where the simulator counts PTOs for both.

use std::path::Path;

use quic::emulate::{self, EmulateOptions};

const SCENARIO: &str = "name = \"lossy\"\nseed = 1\nduration = \"5s\"\nwarmup = \"0s\"\n\
     [link]\nrate = \"20Mbit\"\nrtt = \"40ms\"\nbuffer = \"1bdp\"\nloss = \"30%\"\n\
     [[flow]]\ncc = \"cubic\"\n[[flow]]\ncc = \"bbr\"\n";

#[test]
fn ptos_and_bandwidth_errors_are_counted_as_the_simulator_counts_them() {
    let scenario = scenario::from_str(SCENARIO, Path::new("lossy.toml"), &[]).unwrap();
    let simulated = sim::Simulation::new(scenario.config.clone()).run();
    let emulated = emulate::run(&scenario.config, &EmulateOptions::default()).unwrap();
    for (mode, run) in [("simulated", &simulated), ("emulated", &emulated)] {
        let [cubic, bbr] = [&run.flows[0], &run.flows[1]];
        eprintln!(
            "{mode}: PTOs cubic {} bbr {}; sample RMSE {:?} / {:?}; estimate RMSE {:?} / {:?}",
            cubic.ptos,
            bbr.ptos,
            cubic.bw_sample_rmse_bps,
            bbr.bw_sample_rmse_bps,
            cubic.bw_estimate_rmse_bps,
            bbr.bw_estimate_rmse_bps
        );
        assert!(cubic.ptos + bbr.ptos > 0, "{mode}: no PTO counted");
        for flow in [cubic, bbr] {
            let rmse = flow.bw_sample_rmse_bps.expect("samples judged");
            // Measured, and of the order of the link's 20 Mbit/s.
            assert!(rmse > 0.0 && rmse < 100e6, "{mode}: sample RMSE {rmse}");
        }
        assert_eq!(
            cubic.bw_estimate_rmse_bps, None,
            "{mode}: CUBIC has no estimate"
        );
        assert!(
            bbr.bw_estimate_rmse_bps.is_some(),
            "{mode}: BBR's estimate judged"
        );
    }
}
