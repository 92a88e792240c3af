//! BBR-Copilot in the real stack: a 5.4 Mbit/s live stream over BBRv1
//! through the emulator pads with DATAGRAM frames only when Copilot is on,
//! and the padding leaves Startup sooner, as in the simulator (BBR-Copilot,
//! Fig. 5: without padding a live stream at 200 ms seldom leaves Startup).

use std::path::Path;

use quic::emulate::{self, EmulateOptions};

fn live(copilot: bool) -> sim::RunResult {
    let text = format!(
        "name = \"copilot-live\"\nseed = 1\nduration = \"6s\"\nwarmup = \"0s\"\n\
         [link]\nrate = \"24Mbit\"\nrtt = \"100ms\"\nbuffer = \"1bdp\"\n\
         [[flow]]\ncc = \"bbr\"\napp = \"live\"\ncopilot = {copilot}\n[flow.live]\nbitrate = \"5.4Mbit\"\n"
    );
    let scenario = scenario::from_str(&text, Path::new("copilot.toml"), &[]).unwrap();
    emulate::run(&scenario.config, &EmulateOptions::default()).unwrap()
}

#[test]
fn padding_flows_only_with_copilot_and_ends_startup() {
    let with = live(true);
    let without = live(false);
    let (w, wo) = (&with.flows[0], &without.flows[0]);
    eprintln!(
        "with: padding {} B ({:.1}%), startup exit {:?}; without: padding {} B, startup exit {:?}",
        w.padding_bytes,
        w.padding_ratio * 100.0,
        w.startup_exit_s,
        wo.padding_bytes,
        wo.startup_exit_s
    );
    assert_eq!(wo.padding_bytes, 0, "no padding without Copilot");
    assert!(
        w.padding_bytes > 100_000,
        "Copilot padded {} bytes",
        w.padding_bytes
    );
    assert!(
        w.startup_exit_s.is_some(),
        "with Copilot BBR leaves Startup"
    );
    // The stream itself is delivered either way.
    for f in [w, wo] {
        let live = f.live.as_ref().expect("a live summary");
        assert!(live.frames > 100, "{} frames", live.frames);
    }
}
