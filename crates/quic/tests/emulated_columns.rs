//! An emulated run fills the columns a simulated one fills from the
//! sender's inside: PTOs (from s2n-quic's recovery events) and the
//! bandwidth samples' and estimate's errors against the link's capacity.
//! One 5 s run in real time, CUBIC beside BBRv1 on a link losing 30% of
//! its packets, where the simulator counts PTOs for both; and a live
//! stream's frames over the window, timed from their creation (5 s).

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

const LIVE: &str = "name = \"live\"\nseed = 1\nduration = \"5s\"\nwarmup = \"2s\"\n\
     [link]\nrate = \"24Mbit\"\nrtt = \"100ms\"\nbuffer = \"1bdp\"\n\
     [[flow]]\ncc = \"bbr\"\napp = \"live\"\n[flow.live]\nbitrate = \"5.4Mbit\"\n";

#[test]
fn live_frame_delays_count_the_windows_frames_from_their_creation() {
    let scenario = scenario::from_str(LIVE, Path::new("live.toml"), &[]).unwrap();
    let simulated = sim::Simulation::new(scenario.config.clone()).run();
    let emulated = emulate::run(&scenario.config, &EmulateOptions::default()).unwrap();
    let [sim, emu] = [&simulated, &emulated].map(|r| r.flows[0].live.clone().expect("a live flow"));
    eprintln!(
        "frames {} / {}, delay p50 {:.1} / {:.1} ms (simulated / emulated)",
        sim.frames, emu.frames, sim.frame_delay_ms.p50, emu.frame_delay_ms.p50
    );
    // The window's three seconds of 25 frames, give or take the one at
    // its edge.
    assert!(
        emu.frames.abs_diff(sim.frames) <= 2,
        "{} vs {}",
        emu.frames,
        sim.frames
    );
    // The request's trip through the relay is 50 ms: left in, it would
    // show here; s2n-quic's headers and ACK timing account for a few ms.
    assert!(
        (emu.frame_delay_ms.p50 - sim.frame_delay_ms.p50).abs() < 15.0,
        "p50 {} vs {}",
        emu.frame_delay_ms.p50,
        sim.frame_delay_ms.p50
    );
}
