//! Kernel TCP transfers on loopback (no emulated link): the sender sets
//! and reads back its congestion control, the sampler reads TCP_INFO and
//! the receiver's progress adds up.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use kernel::{ReceiverConfig, Sender, SenderConfig, Transfer};

fn transfer(
    congestion: &str,
    transfer: Transfer,
    length: Duration,
) -> (kernel::SenderReport, kernel::ReceiverReport) {
    let epoch = Instant::now();
    let end = epoch + length;
    let sender = Sender::start(SenderConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        congestion: congestion.into(),
        transfer,
        epoch,
        tick: Duration::from_millis(10),
        deadline: end + Duration::from_secs(2),
    })
    .expect("the sender starts");
    let socket = kernel::bound_socket("127.0.0.1:0".parse::<SocketAddr>().unwrap()).unwrap();
    assert_ne!(kernel::local_addr(&socket).unwrap().port(), 0);
    let stream = kernel::connect(socket, sender.local_addr(), Duration::from_secs(2)).unwrap();
    let received = kernel::receive(
        stream,
        &ReceiverConfig {
            epoch,
            progress_interval: Duration::from_millis(100),
            stop: end,
        },
    )
    .expect("the receiver reads");
    let sent = sender.join().expect("the sender ends");
    (sent, received)
}

/// Whether this process may set congestion control `name`: the kernel
/// must have it loaded, and an unprivileged process may only pick from
/// tcp_allowed_congestion_control.
fn may_use(name: &str) -> bool {
    let listed = |path: &str| {
        std::fs::read_to_string(path).is_ok_and(|s| s.split_whitespace().any(|n| n == name))
    };
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let usable = listed(kernel::AVAILABLE_PATH)
        && (root || listed("/proc/sys/net/ipv4/tcp_allowed_congestion_control"));
    if !usable {
        eprintln!("skipped: this process cannot use the kernel's {name}");
    }
    usable
}

#[test]
fn a_cubic_bulk_transfer_reports_sane_counters_and_samples() {
    if !may_use("cubic") {
        return;
    }
    let (sent, received) = transfer(
        "cubic",
        Transfer::Bulk {
            until: Instant::now() + Duration::from_millis(1500),
        },
        Duration::from_millis(1500),
    );
    assert_eq!(sent.congestion, "cubic");
    assert!(received.bytes > 1_000_000, "{} bytes", received.bytes);
    assert!(received.bytes <= sent.bytes_written);
    let last = sent.last.expect("a last reading");
    let c = last.counters;
    // Everything read was acknowledged (or is about to be): the kernel's
    // bytes_acked counts payload, as the receiver does.
    assert!(c.bytes_sent >= c.bytes_acked && c.bytes_acked > 0, "{c:?}");
    assert!(c.bytes_sent >= c.bytes_retrans, "{c:?}");
    assert!(c.data_segs_out > 0);
    assert!(sent.ticks.len() >= 100, "{} ticks", sent.ticks.len());
    let mid = &sent.ticks[sent.ticks.len() / 2].sample;
    assert!(mid.cwnd >= 10 * 1000, "{mid:?}");
    assert!(mid.srtt_ms > 0.0 && mid.srtt_ms < 50.0, "{mid:?}");
    assert!(
        mid.min_rtt_ms > 0.0 && mid.min_rtt_ms <= mid.srtt_ms + 1e-9,
        "{mid:?}"
    );
    assert!(
        ["open", "disorder", "cwr", "recovery", "loss"].contains(&mid.mode),
        "{mid:?}"
    );
    assert_eq!(mid.bw_estimate_bps, 0.0, "cubic has no bandwidth estimate");
    assert!(sent.ticks.windows(2).all(|w| w[0].t_s <= w[1].t_s));
    // Progress grows and ends at what was read.
    assert!(received
        .progress
        .windows(2)
        .all(|w| w[0].1 <= w[1].1 && w[0].0 <= w[1].0));
    assert_eq!(received.progress.last().unwrap().1, received.bytes);
    assert!(received.progress.len() >= 14, "{}", received.progress.len());
    assert!(!received.complete, "a bulk stream is stopped, not ended");
}

#[test]
fn a_sized_bbr_transfer_completes_with_bbrs_own_state() {
    if !may_use("bbr") {
        return;
    }
    let (sent, received) = transfer(
        "bbr",
        Transfer::Sized { bytes: 3_000_000 },
        Duration::from_secs(3),
    );
    assert_eq!(sent.congestion, "bbr");
    assert_eq!(sent.bytes_written, 3_000_000);
    assert_eq!(received.bytes, 3_000_000);
    assert!(received.complete);
    assert!(received.finished_s < 3.0);
    let last = sent.last.expect("a last reading");
    // Loopback carries 3 MB in a few ms: the sampler may have read once.
    assert!(
        last.sample.bw_estimate_bps > 0.0 && last.sample.pacing_gain > 0.0,
        "TCP_CC_INFO gives BBR's bandwidth estimate and gains: {last:?}"
    );
    // Read after the receiver closed: everything written was acknowledged
    // (plus one for the FIN, when its ACK has come).
    assert!(
        (3_000_000..=3_000_001).contains(&last.counters.bytes_acked),
        "{last:?}"
    );
    assert!(last.counters.bytes_sent >= 3_000_000, "{last:?}");
}

#[test]
fn an_unknown_algorithm_lists_the_available_ones() {
    let err = Sender::start(SenderConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        congestion: "nosuchcc".into(),
        transfer: Transfer::Sized { bytes: 1 },
        epoch: Instant::now(),
        tick: Duration::from_millis(10),
        deadline: Instant::now() + Duration::from_secs(1),
    })
    .err()
    .expect("refused");
    assert!(err.contains("\"nosuchcc\""), "{err}");
    assert!(err.contains(kernel::AVAILABLE_PATH), "{err}");
    for name in kernel::available().unwrap() {
        assert!(err.contains(&name), "{err} lacks {name}");
    }
}
