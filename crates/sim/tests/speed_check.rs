//! Guard against silent slowdowns of the simulator: a reference workload is
//! timed against a fixed calibration loop in the same thread, and the
//! ratio of the two must stay within 10% of the one stored in
//! `tests/speed_baseline.json`. Absolute times vary with the machine and
//! its other load; the ratio much less. Times are the thread's CPU time
//! (time spent descheduled on a shared machine does not count), each
//! workload run (about 20 ms) sits between two calibration runs, the
//! median of 41 such ratios is a process's measure, and the median of
//! three processes is the result (a process's memory layout alone moves it
//! by a few percent). Over the threshold, five more processes are measured
//! before the check fails.
//!
//! Ignored by default (it measures time, so it wants an optimized build;
//! about 4 s of CPU time):
//!
//! ```sh
//! cargo test --release --locked -p bbrlab-sim --test speed_check -- --ignored
//! ```
//!
//! After a change that is meant to make the simulator slower (or once it
//! got faster, to hold the gain), store the new ratio explicitly and
//! commit it with the change:
//!
//! ```sh
//! BBRLAB_SPEED_BASELINE=update cargo test --release --locked -p bbrlab-sim --test speed_check -- --ignored
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use cc::Bandwidth;
use sim::{Dumbbell, SimConfig, Simulation};

/// How much slower than the baseline the workload may be.
const TOLERANCE: f64 = 1.10;

/// The reference workload: one BBRv1 flow (the speed target's path), and
/// 10 BBRv1 beside 10 CUBIC flows on a lossy gigabit-class link, without
/// time series.
fn workload() -> Vec<SimConfig> {
    let one = Dumbbell::new(Bandwidth::from_mbps(100), Duration::from_millis(40))
        .buffer_bdp(1.0)
        .duration(Duration::from_secs(4))
        .flow("bbr")
        .unwrap()
        .build();
    let mut many = Dumbbell::new(Bandwidth::from_mbps(500), Duration::from_millis(20))
        .buffer_bdp(1.0)
        .loss(sim::link::LossModel::Bernoulli { p: 0.005 })
        .duration(Duration::from_millis(600))
        .flow_with("bbr", |f| f.count = 10)
        .unwrap()
        .flow_with("cubic", |f| f.count = 10)
        .unwrap()
        .build();
    many.record_series = false;
    vec![one, many]
}

/// CPU time of this thread.
#[cfg(unix)]
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given and nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "the thread's CPU clock is readable");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Elsewhere, wall time (noisier on a busy machine).
#[cfg(not(unix))]
fn cpu_time() -> Duration {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

fn time_workload(configs: &[SimConfig]) -> Duration {
    let started = cpu_time();
    for c in configs {
        black_box(Simulation::new(c.clone()).run());
    }
    cpu_time() - started
}

/// The calibration: a fixed mix of what a simulation does per packet, on
/// `std` only, so that nothing in the project changes what it costs: a
/// heap of 4096 pending times (an event queue), counts scattered over 256
/// KiB (the delay histograms), and floating-point rates. Its working set
/// is of the simulator's size, so that other programs' use of the shared
/// caches slows both alike.
fn time_calibration() -> Duration {
    let started = cpu_time();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut heap = BinaryHeap::with_capacity(4096);
    let mut counts = vec![0u64; 32 * 1024];
    let mut now = 0u64;
    let mut rate = 1.0f64;
    for _ in 0..4096 {
        heap.push(Reverse(next() % 1_000_000));
    }
    for _ in 0..300_000 {
        let Reverse(t) = heap.pop().expect("never empty");
        now = now.max(t);
        let r = next();
        heap.push(Reverse(now + r % 1_000_000));
        counts[(r >> 20) as usize % (32 * 1024)] += 1;
        rate = (rate * 0.875 + (r % 1000) as f64 / (1.0 + (t % 7) as f64)).min(1e12);
    }
    black_box((now, rate, &counts));
    cpu_time() - started
}

/// The median over `rounds` of workload / calibration, each workload run
/// against the mean of the calibrations just before and after it; with the
/// median workload and calibration times, for the message.
fn ratio(configs: &[SimConfig], rounds: usize) -> (f64, Duration, Duration) {
    let mut ratios = Vec::with_capacity(rounds);
    let mut works = Vec::with_capacity(rounds);
    let mut calibrations = Vec::with_capacity(rounds);
    let mut before = time_calibration();
    for _ in 0..rounds {
        let work = time_workload(configs);
        let after = time_calibration();
        let calibration = (before + after) / 2;
        ratios.push(work.as_secs_f64() / calibration.as_secs_f64());
        works.push(work);
        calibrations.push(calibration);
        before = after;
    }
    ratios.sort_by(f64::total_cmp);
    works.sort();
    calibrations.sort();
    (
        ratios[rounds / 2],
        works[rounds / 2],
        calibrations[rounds / 2],
    )
}

fn read_baseline(path: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("workload_per_calibration")?.as_f64()
}

/// The test's name, for the child processes it runs.
const NAME: &str = "the_simulator_is_not_slower_than_its_baseline";
const CHILD: &str = "BBRLAB_SPEED_CHILD";
const REPORT: &str = "speed-check-ratio:";

/// The median ratio of `n` fresh processes: a process's memory layout moves
/// its speed by a few percent, which rounds within one process cannot see.
fn median_of_processes(n: usize) -> f64 {
    let exe = std::env::current_exe().expect("the test binary");
    let mut ratios: Vec<f64> = (0..n)
        .map(|_| {
            let out = std::process::Command::new(&exe)
                .args([
                    "--ignored",
                    "--exact",
                    NAME,
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, "1")
                .output()
                .expect("the test binary runs");
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix(REPORT))
                .unwrap_or_else(|| panic!("no ratio from the measuring process:\n{text}"));
            let ratio: f64 = line.trim().parse().expect("a ratio");
            println!("one process: {ratio:.3}");
            ratio
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[n / 2]
}

#[test]
#[ignore = "measures time: run in release with --ignored"]
fn the_simulator_is_not_slower_than_its_baseline() {
    if std::env::var_os(CHILD).is_some() {
        let configs = workload();
        // Warm up caches and the allocator.
        time_workload(&configs);
        let (ratio, work, calibration) = ratio(&configs, 41);
        println!("workload {work:?}, calibration {calibration:?}");
        println!("{REPORT} {ratio}");
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/speed_baseline.json");
    let mut measured = median_of_processes(3);
    if std::env::var("BBRLAB_SPEED_BASELINE").is_ok_and(|v| v == "update") {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "workload_per_calibration": (measured * 1000.0).round() / 1000.0,
            "note": "crates/sim/tests/speed_check.rs: reference workload / calibration loop, CPU time, median over alternated runs and over 3 processes; BBRLAB_SPEED_BASELINE=update rewrites it",
        }))
        .expect("serializes");
        std::fs::write(&path, text + "\n").expect("baseline written");
        println!("stored ratio {measured:.3}");
        return;
    }
    let baseline = read_baseline(&path).unwrap_or_else(|| {
        panic!(
            "no baseline in {}: BBRLAB_SPEED_BASELINE=update stores one",
            path.display()
        )
    });
    if measured > baseline * TOLERANCE {
        // A burst of other load can cost one measurement; a slowdown costs every one.
        measured = measured.min(median_of_processes(5));
    }
    println!(
        "ratio {measured:.3}, baseline {baseline:.3} ({:+.1}%)",
        (measured / baseline - 1.0) * 100.0
    );
    assert!(
        measured <= baseline * TOLERANCE,
        "the simulator is {:.1}% slower than its baseline ({measured:.3} against {baseline:.3}); \
         if that is intended: BBRLAB_SPEED_BASELINE=update cargo test --release --locked -p bbrlab-sim --test speed_check -- --ignored",
        (measured / baseline - 1.0) * 100.0
    );
}
