//! `transport.receive_window` binds the same way simulated and emulated:
//! the simulator's receiver advertises it in its ACKs, the real client
//! gives it to s2n-quic as its flow-control windows. A 30 KB window on a
//! 20 Mbit/s, 40 ms path allows at most 30 KB per round trip, 6 Mbit/s,
//! a third of the link. One 5 s run in real time.

use std::path::Path;

use quic::emulate::{self, EmulateOptions};

const SCENARIO: &str = "name = \"window\"\nseed = 1\nduration = \"5s\"\nwarmup = \"1s\"\n\
     [link]\nrate = \"20Mbit\"\nrtt = \"40ms\"\nbuffer = \"1bdp\"\n\
     [transport]\nreceive_window = \"30KB\"\n[[flow]]\ncc = \"bbr\"\n";

/// The window's bound on goodput: one window of stream bytes per 40 ms.
const BOUND_BPS: f64 = 30_000.0 * 8.0 / 0.040;

#[test]
fn a_receive_window_caps_goodput_alike_in_both_modes() {
    let scenario = scenario::from_str(SCENARIO, Path::new("window.toml"), &[]).unwrap();
    let simulated = sim::Simulation::new(scenario.config.clone()).run().flows[0].goodput_bps;
    let emulated = emulate::run(&scenario.config, &EmulateOptions::default())
        .unwrap()
        .flows[0]
        .goodput_bps;
    eprintln!(
        "goodput with a 30 KB window: simulated {:.2}, emulated {:.2} Mbit/s (bound {:.2})",
        simulated / 1e6,
        emulated / 1e6,
        BOUND_BPS / 1e6
    );
    for (mode, goodput) in [("simulated", simulated), ("emulated", emulated)] {
        // Never above the bound (the round trip is at least 40 ms), and
        // the window, not the 20 Mbit/s link, is what holds it: within
        // 20% of the bound (headers, ACK and window-update timing).
        assert!(
            goodput <= BOUND_BPS,
            "{mode}: {goodput} above the window's bound"
        );
        assert!(
            goodput >= 0.8 * BOUND_BPS,
            "{mode}: {goodput} far below the bound"
        );
    }
    // The cross-validation's goodput tolerance.
    assert!(
        (emulated / simulated - 1.0).abs() <= quic::xval::GOODPUT_TOLERANCE,
        "emulated {emulated} vs simulated {simulated}"
    );
}
