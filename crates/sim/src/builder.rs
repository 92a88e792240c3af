//! A builder for dumbbell runs in code (tests, benchmarks, library users);
//! scenario files are the other way in.

use std::time::Duration;

use cc::{AlgorithmSpec, Bandwidth, Bytes, SpecError};

use crate::config::{FlowConfig, SimConfig, TransportConfig};
use crate::link::{BufferLimit, LinkConfig, LossModel, RateModel, DEFAULT_LINE_RATE};

/// Builds a [`SimConfig`] for a dumbbell: one bottleneck, any number of flows.
///
/// ```
/// use std::time::Duration;
/// use cc::Bandwidth;
/// let config = sim::Dumbbell::new(Bandwidth::from_mbps(20), Duration::from_millis(40))
///     .buffer_bdp(2.0)
///     .duration(Duration::from_secs(5))
///     .flow("bbr").unwrap()
///     .build();
/// let result = sim::Simulation::new(config).run();
/// assert!(result.link.utilization > 0.8);
/// ```
#[derive(Clone, Debug)]
pub struct Dumbbell {
    config: SimConfig,
    reference_rate: Bandwidth,
    rtt: Duration,
}

impl Dumbbell {
    /// A constant-rate bottleneck; `rtt` is every flow's default base RTT.
    /// Defaults: 1 BDP buffer, no burst, no loss, 30 s, no warmup, 10 ms samples, seed 1.
    pub fn new(rate: Bandwidth, rtt: Duration) -> Self {
        let bdp = rate.bytes_in(rtt);
        Dumbbell {
            config: SimConfig {
                name: "dumbbell".to_string(),
                seed: 1,
                duration: Duration::from_secs(30),
                warmup: Duration::ZERO,
                sample_interval: Duration::from_millis(10),
                record_series: true,
                uplink: None,
                acks_share_queue: false,
                link: LinkConfig {
                    rate: RateModel::Constant(rate),
                    buffer: BufferLimit::Bytes(bdp.max(Bytes(1500))),
                    burst: Bytes::ZERO,
                    line_rate: DEFAULT_LINE_RATE,
                    loss: LossModel::None,
                },
                flows: Vec::new(),
                transport: TransportConfig::default(),
                stop_when_done: false,
            },
            reference_rate: rate,
            rtt,
        }
    }

    /// Names the run.
    pub fn name(mut self, name: &str) -> Self {
        self.config.name = name.to_string();
        self
    }
    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }
    /// Sets the simulated duration.
    pub fn duration(mut self, d: Duration) -> Self {
        self.config.duration = d;
        self
    }
    /// Sets the warmup excluded from summaries.
    pub fn warmup(mut self, d: Duration) -> Self {
        self.config.warmup = d;
        self
    }
    /// Sets the time-series period.
    pub fn sample_interval(mut self, d: Duration) -> Self {
        self.config.sample_interval = d;
        self
    }
    /// Buffer as a multiple of the BDP (of the rate given to [`Dumbbell::new`]).
    pub fn buffer_bdp(mut self, multiple: f64) -> Self {
        let bytes = self
            .reference_rate
            .bytes_in(self.rtt)
            .mul_f64(multiple)
            .max(Bytes(1500));
        self.config.link.buffer = BufferLimit::Bytes(bytes);
        self
    }
    /// Buffer limit.
    pub fn buffer(mut self, limit: BufferLimit) -> Self {
        self.config.link.buffer = limit;
        self
    }
    /// Token-bucket burst allowance.
    pub fn burst(mut self, bytes: Bytes) -> Self {
        self.config.link.burst = bytes;
        self
    }
    /// Random loss.
    pub fn loss(mut self, loss: LossModel) -> Self {
        self.config.link.loss = loss;
        self
    }
    /// Replaces the capacity model (schedule or trace).
    pub fn rate_model(mut self, model: RateModel) -> Self {
        self.config.link.rate = model;
        self
    }
    /// Stops when all sized flows are done.
    pub fn stop_when_done(mut self, stop: bool) -> Self {
        self.config.stop_when_done = stop;
        self
    }
    /// Transport settings.
    pub fn transport(mut self, transport: TransportConfig) -> Self {
        self.config.transport = transport;
        self
    }
    /// Limits the ACK path to `capacity` (see [`SimConfig::uplink`]).
    pub fn uplink(mut self, capacity: RateModel) -> Self {
        self.config.uplink = Some(capacity);
        self
    }
    /// ACKs wait behind the data queue (see [`SimConfig::acks_share_queue`]).
    pub fn acks_share_queue(mut self, shared: bool) -> Self {
        self.config.acks_share_queue = shared;
        self
    }
    /// Adds an unlimited flow starting at 0 with the default RTT.
    pub fn flow(self, spec: &str) -> Result<Self, SpecError> {
        let rtt = self.rtt;
        self.flow_with(spec, |f| f.rtt = rtt)
    }
    /// Adds a flow and lets `edit` adjust it (start, size, rtt, count).
    pub fn flow_with(
        mut self,
        spec: &str,
        edit: impl FnOnce(&mut FlowConfig),
    ) -> Result<Self, SpecError> {
        let mut flow = FlowConfig {
            cc: AlgorithmSpec::parse(spec)?,
            start: Duration::ZERO,
            size: None,
            rtt: self.rtt,
            ack_delay: Duration::ZERO,
            count: 1,
            app: Default::default(),
            copilot: None,
            kernel: None,
        };
        edit(&mut flow);
        self.config.flows.push(flow);
        Ok(self)
    }
    /// The finished configuration.
    pub fn build(self) -> SimConfig {
        self.config
    }
}
