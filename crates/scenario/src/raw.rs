//! The scenario document's structure, as serde sees it: every key known,
//! every value still raw (a `toml::Value`), so unit parsing and range checks
//! can say precisely what they expected.

use serde::Deserialize;
use toml::Value;

/// The top level of a scenario file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a scenario document")]
pub(crate) struct RawScenario {
    pub name: Option<Value>,
    pub seed: Option<Value>,
    pub duration: Option<Value>,
    pub warmup: Option<Value>,
    pub sample_interval: Option<Value>,
    pub stop_when_done: Option<Value>,
    pub link: Option<RawLink>,
    pub transport: Option<RawTransport>,
    pub flow: Option<Vec<RawFlow>>,
}

/// `[link]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of link settings ([link])")]
pub(crate) struct RawLink {
    pub rate: Option<Value>,
    pub schedule: Option<Value>,
    pub trace: Option<Value>,
    pub trace_format: Option<Value>,
    pub rtt: Option<Value>,
    pub buffer: Option<Value>,
    pub burst: Option<Value>,
    pub loss: Option<Value>,
    pub line_rate: Option<Value>,
    pub ack_delay: Option<Value>,
    pub uplink_rate: Option<Value>,
    pub uplink_trace: Option<Value>,
    pub acks_share_queue: Option<Value>,
    pub trace_start: Option<Value>,
}

/// `[transport]`.
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of transport settings ([transport])"
)]
pub(crate) struct RawTransport {
    pub ack_policy: Option<Value>,
    pub max_ack_delay: Option<Value>,
    pub datagram: Option<Value>,
    pub initial_window: Option<Value>,
    pub pacing_timer: Option<Value>,
    pub pacer_ack_credit: Option<Value>,
    pub receive_window: Option<Value>,
}

/// One `[[flow]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of flow settings ([[flow]])")]
pub(crate) struct RawFlow {
    pub cc: Option<Value>,
    pub start: Option<Value>,
    pub size: Option<Value>,
    pub count: Option<Value>,
    pub rtt: Option<Value>,
    pub app: Option<Value>,
    pub copilot: Option<Value>,
    pub live: Option<RawLive>,
    pub dash: Option<RawDash>,
}

/// `[flow.dash]`: a DASH session's video and player.
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of DASH settings ([flow.dash])"
)]
pub(crate) struct RawDash {
    pub ladder: Option<Value>,
    pub segment: Option<Value>,
    pub video: Option<Value>,
    pub abr: Option<Value>,
    pub stable_buffer: Option<Value>,
    pub top_quality_buffer: Option<Value>,
    pub initial_bitrate: Option<Value>,
    pub insufficient_buffer_rule: Option<Value>,
    pub switch_history_rule: Option<Value>,
    pub abandon_requests: Option<Value>,
    pub fast_switching: Option<Value>,
    pub player: Option<Value>,
}

/// `[flow.live]`: a live video source's parameters.
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of live-stream settings ([flow.live])"
)]
pub(crate) struct RawLive {
    pub bitrate: Option<Value>,
    pub frame_interval: Option<Value>,
    pub gop: Option<Value>,
    pub frame_sizes: Option<Value>,
    pub i_frame_ratio: Option<Value>,
    pub deadline: Option<Value>,
    pub client: Option<Value>,
}
