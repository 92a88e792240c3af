//! Runs one flow over a constant-rate link and prints its summary:
//! `cargo run -p bbrlab-sim --release --example smoke -- bbr 20 40 2 30 [loss] [burst_bytes]`
//! (algorithm, Mbit/s, RTT ms, buffer in BDP, seconds, loss probability, burst bytes, warmup seconds).
use std::time::Duration;

use cc::{AlgorithmSpec, Bandwidth, Bytes};
use sim::link::{BufferLimit, LinkConfig, LossModel, RateModel, DEFAULT_LINE_RATE};
use sim::{FlowConfig, SimConfig, Simulation, TransportConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let spec = AlgorithmSpec::parse(&arg(0, "bbr")).expect("algorithm spec");
    let mbps: f64 = arg(1, "20").parse().expect("rate in Mbit/s");
    let rtt = Duration::from_millis(arg(2, "40").parse().expect("rtt in ms"));
    let bdps: f64 = arg(3, "2").parse().expect("buffer in BDP");
    let secs: u64 = arg(4, "30").parse().expect("duration in s");
    let loss: f64 = arg(5, "0").parse().expect("loss probability");
    let burst: u64 = arg(6, "0").parse().expect("burst bytes");
    let warmup: u64 = arg(7, "5").parse().expect("warmup seconds");
    let rate = Bandwidth::from_bps_f64(mbps * 1e6);
    let config = SimConfig {
        name: "smoke".into(),
        seed: 1,
        duration: Duration::from_secs(secs),
        warmup: Duration::from_secs(warmup),
        sample_interval: Duration::from_millis(10),
        record_series: true,
        uplink: None,
        acks_share_queue: false,
        link: LinkConfig {
            rate: RateModel::Constant(rate),
            buffer: BufferLimit::Bytes(rate.bytes_in(rtt).mul_f64(bdps).max(Bytes(1500))),
            burst: Bytes(burst),
            line_rate: DEFAULT_LINE_RATE,
            loss: if loss > 0.0 {
                LossModel::Bernoulli { p: loss }
            } else {
                LossModel::None
            },
        },
        flows: vec![FlowConfig {
            cc: spec,
            start: Duration::ZERO,
            size: None,
            rtt,
            ack_delay: Duration::ZERO,
            count: 1,
            app: Default::default(),
            copilot: None,
            kernel: None,
        }],
        transport: TransportConfig::default(),
        stop_when_done: false,
    };
    let r = Simulation::new(config).run();
    let f = &r.flows[0];
    println!(
        "{}: goodput {:.2} Mbit/s, util {:.3}, retrans {:.4}, loss {:.4}, rtt p50 {:.1} p95 {:.1} ms, events {}, wall {:.3}s",
        f.cc, f.goodput_bps / 1e6, r.link.utilization, f.retransmission_ratio, f.loss_ratio,
        f.rtt_ms.p50, f.rtt_ms.p95, r.events, r.wall_time_s
    );
}
