//! The simulator against the Linux kernel's TCP, the CI subset (about 30
//! seconds of real time, as root): conditions of `quic::kernel_xval` that
//! agree on the full comparison and do so in a single run, one run each
//! way, shortened to 10 s, with the same fixed tolerances: CUBIC on oBBR
//! Fig. 7 at R = 0.25, CUBIC and Reno at R = 2, without loss.
//!
//! Not Reno at R = 0.25: the kernel's Reno there is bimodal. Slow start's
//! overshoot ends in one halving or in more (cwnd 327 or 162 KB at 1.6 s),
//! and linear growth takes tens of seconds to make up the difference: one
//! 10 s run in three or four gave 18.4 Mbit/s against the simulator's 32.1
//! (the code before and after the speed work alike), and one 20 s run in
//! three 25.3 against 36.7. The full comparison's three runs all took the
//! favourable branch (docs/EMULATION.md says so beside its row).
//!
//! Not BBR, not a lossy or shared-link condition: one 10 s run of those
//! does not reproduce the mean of three full runs (BBR's retransmission
//! ratio at R = 0.25 was 1.55, 2.39 and 2.64% in three such kernel runs
//! against the simulator's 3.35%), so one run would agree or miss by the
//! draw. The full comparison, with the conditions that miss, is the
//! `kernel_xval` example (docs/EMULATION.md, "The simulator against the
//! Linux kernel").

use quic::kernel_xval::{self, Condition, Controller, CUBIC, RENO};

fn condition(name: &str, lineups: &[&[Controller]]) -> Condition {
    let mut c = kernel_xval::conditions()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no condition {name}"))
        .shortened("10s", "3s");
    c.lineups = lineups.iter().map(|l| l.to_vec()).collect();
    c
}

#[test]
fn the_kernel_agrees_with_the_simulator_on_the_ci_subset() {
    assert!(
        kernel_xval::is_root(),
        "the kernel's TCP runs through the shell's network namespace: run the tests as root"
    );
    let subset = [
        condition("oBBR Fig. 7, R = 0.25, loss 0", &[&[CUBIC]]),
        condition("oBBR Fig. 7, R = 2, loss 0", &[&[CUBIC], &[RENO]]),
    ];
    let mut rows = Vec::new();
    for c in &subset {
        rows.extend(kernel_xval::compare(c, 1).unwrap());
    }
    eprint!("{}", kernel_xval::markdown(&rows));
    let missed = kernel_xval::misses(&rows);
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}
