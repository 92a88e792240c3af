//! Named measures of experiment files ([`super::file::named`]) that live in
//! modules of their own: analyses the primitives cannot express.

pub(crate) mod bounds;
pub(crate) mod converge_share;
pub(crate) mod decision_tree;
pub(crate) mod drop_response;
pub(crate) mod sample_runs;

/// A series row of flow `flow` at `t_s` in `mode`, every number 0: the
/// measures' tests set what they read.
#[cfg(test)]
pub(crate) fn flow_sample(t_s: f64, flow: usize, mode: &'static str) -> sim::FlowSample {
    sim::FlowSample {
        t_s,
        flow,
        cwnd: 0,
        inflight: 0,
        pacing_rate_bps: 0.0,
        delivery_rate_bps: 0.0,
        bw_estimate_bps: 0.0,
        min_rtt_ms: 0.0,
        srtt_ms: 0.0,
        latest_rtt_ms: 0.0,
        mode,
        pacing_gain: 0.0,
        cwnd_gain: 0.0,
        delivered: 0,
        retransmitted: 0,
        lost: 0,
        padding: 0,
        controller: Vec::new(),
    }
}
