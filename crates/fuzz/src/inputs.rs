//! Fuzz inputs: proptest strategies over a seed corpus and small grammars.
//!
//! Each target mixes three kinds of input:
//! - *seeds*: the project's own scenario files and excerpts of its traces,
//!   which reach deep into validation and simulation;
//! - *value swaps*: a seed with values replaced by extreme but well-formed
//!   ones (`"1ns"`, `"1000Gbit"`, `"99.99%"`, 1e30), which pass parsing
//!   and probe limits, overflow and the simulator's edges;
//! - *mutations*: byte- and line-level edits (deletions, duplications,
//!   inserted tokens, truncation), which probe the parsers' error paths.

use std::path::Path;

use proptest::prelude::*;
use proptest::sample::select;

/// The project's scenario files, embedded so a campaign needs no checkout
/// layout beyond the traces they name.
pub const SCENARIO_SEEDS: &[&str] = &[
    include_str!("../../../scenarios/examples/adaptive-bbr2-threshold.toml"),
    include_str!("../../../scenarios/examples/bandwidth-drop.toml"),
    include_str!("../../../scenarios/examples/bbr-shallow.toml"),
    include_str!("../../../scenarios/examples/buffer-sweep.toml"),
    include_str!("../../../scenarios/examples/cubic-vs-bbr.toml"),
    include_str!("../../../scenarios/examples/mahimahi-lte.toml"),
    include_str!("../../../scenarios/quick/bbr2-loss.toml"),
    include_str!("../../../scenarios/quick/cws-fairness.toml"),
    include_str!("../../../scenarios/obbr/fig9-alternating.toml"),
    include_str!("../../../scenarios/obbr/fig11-traces.toml"),
    crate::targets::BASE_SCENARIO,
    FULL_SCENARIO,
    STREAMING_SCENARIO,
];

/// A scenario with every application and streaming key: a live stream with
/// Copilot and a DASH session over traces in both directions.
const STREAMING_SCENARIO: &str = r#"name = "streaming"
duration = "3s"
[link]
trace = "../../data/traces/mahimahi/TMobile-LTE-short.down"
uplink_trace = "../../data/traces/mahimahi/TMobile-LTE-short.up"
trace_start = "8s"
rtt = "100ms"
buffer = "40KB"
[[flow]]
cc = "bbr"
app = "live"
copilot = "lsquic"
[flow.live]
bitrate = "5.4Mbit"
frame_interval = "40ms"
gop = "2s"
frame_sizes = "gop"
i_frame_ratio = 5
deadline = "1s"
[[flow]]
cc = "bbr2"
app = "dash"
[flow.dash]
ladder = ["254kbit", "1Mbit", "4Mbit"]
segment = "1s"
video = "4s"
abr = "bola"
stable_buffer = "2s"
top_quality_buffer = "3s"
initial_bitrate = "500kbit"
insufficient_buffer_rule = false
switch_history_rule = false
[sweep]
"flow.1.dash.abr" = ["throughput", "dynamic"]
"#;

/// A scenario that sets every key once, so mutations can reach them all.
const FULL_SCENARIO: &str = r#"name = "full"
seed = 7
duration = "3s"
warmup = "1s"
sample_interval = "10ms"
stop_when_done = false
[link]
rate = "40Mbit"
rtt = "100ms"
buffer = "0.25bdp"
burst = "100KB"
line_rate = "1Gbit"
ack_delay = "1ms"
[link.loss]
model = "gilbert-elliott"
p = "1%"
r = "30%"
loss_bad = "50%"
loss_good = "0%"
[transport]
ack_policy = "every-2"
max_ack_delay = "25ms"
datagram = "1500B"
[[flow]]
cc = "obbr:mu=0.5"
start = "0s"
size = "10MB"
count = 2
rtt = "80ms"
[[flow]]
cc = "cubic:beta=0.7"
[sweep]
"link.buffer" = ["0.5bdp", "2bdp"]
"#;

/// Extreme but well-formed values a scenario or `--set` may hold.
const VALUES: &[&str] = &[
    "\"0\"",
    "\"1ns\"",
    "\"1us\"",
    "\"0s\"",
    "\"1h\"",
    "\"100000h\"",
    "\"1bit\"",
    "\"1kbit\"",
    "\"1000Gbit\"",
    "\"1000.5Gbit\"",
    "\"999999999999999999999Gbit\"",
    "\"0Mbit\"",
    "\"1B\"",
    "\"1pkt\"",
    "\"0pkt\"",
    "\"0.0001bdp\"",
    "\"1000bdp\"",
    "\"100GB\"",
    "\"0%\"",
    "\"99.99%\"",
    "\"100%\"",
    "\"-1%\"",
    "0",
    "1",
    "-1",
    "4294967295",
    "18446744073709551616",
    "1e30",
    "0.5",
    "nan",
    "inf",
    "true",
    "false",
    "\"\"",
    "[]",
    "[\"1Mbit\", \"2Mbit\"]",
    "[\"0.1bdp\", \"1bdp\", \"10bdp\"]",
    "{}",
    "\"bbr\"",
    "\"cubic:\"",
    "\"obbr:mu=9\"",
    "\"bbr2:loss_thresh=1\"",
    "\"b3r:simple=true\"",
    "\"modest\"",
    "\"bbr-cws\"",
    "\"every-2\"",
    "\"mahimahi\"",
    "\"irish5g\"",
    "\"../../data/traces/mahimahi/ATT-LTE-driving-2016.down\"",
    "\"../../data/traces/irish-5g/Static/B_2019.12.16_13.40.04.csv\"",
    "\"/nonexistent\"",
    "\"dash\"",
    "\"live\"",
    "\"lsquic\"",
    "\"bola\"",
    "[\"1bit\", \"1000Gbit\"]",
    "[\"2Mbit\", \"1Mbit\"]",
    "[\"1Mbit\", \"x\"]",
];

/// Tokens inserted by mutations.
const TOKENS: &[&str] = &[
    "\"",
    "=",
    "[",
    "]",
    "[[flow]]\n",
    "[sweep]\n",
    "{",
    "}",
    ",",
    ".",
    "\n",
    "#",
    "-",
    "0",
    "9",
    "%",
    "e30",
    "bdp",
    "\u{feff}",
    "\u{0}",
    "\\",
    "'''",
    "\t",
    "D",
    ",D,",
    "_",
];

/// Keys `--set` can reach, and a few it cannot.
const SET_KEYS: &[&str] = &[
    "name",
    "seed",
    "duration",
    "warmup",
    "sample_interval",
    "stop_when_done",
    "link.rate",
    "link.rtt",
    "link.buffer",
    "link.burst",
    "link.loss",
    "link.line_rate",
    "link.trace",
    "link.trace_format",
    "link.rates",
    "transport.datagram",
    "transport.ack_policy",
    "flow[0].cc",
    "flow[0].count",
    "flow[0].size",
    "flow[0].start",
    "flow[0].rtt",
    "flow[1].cc",
    "flow[1].size",
    "flow[2].cc",
    "flow[99999999999999999999].cc",
    "flow.cc",
    "link",
    "link.loss.p",
    "link.ack_delay",
    "link.uplink_rate",
    "link.uplink_trace",
    "link.trace_start",
    "flow.0.app",
    "flow.0.copilot",
    "flow.0.live.bitrate",
    "flow.0.live.gop",
    "flow.0.dash.ladder",
    "flow.0.dash.segment",
    "flow.0.dash.video",
    "flow.0.dash.abr",
    "flow.0.dash.stable_buffer",
    "sweep",
    "",
];

/// One edit of a text: (kind, position, argument), interpreted modulo the
/// text's length so any triple is valid.
pub type Edit = (u8, usize, usize);

/// Applies `edits` to `base` in order. Kinds: 0 delete a line, 1 duplicate
/// a line, 2 swap two lines, 3 insert a token, 4 delete a byte range,
/// 5 truncate, 6 replace a `key = value` line's value, 7 replace a number.
pub fn mutate(base: &str, edits: &[Edit]) -> String {
    let mut text = base.to_string();
    for &(kind, at, arg) in edits {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        match kind % 8 {
            0 if !lines.is_empty() => {
                lines.remove(at % lines.len());
                text = lines.join("\n");
            }
            1 if !lines.is_empty() => {
                let l = lines[at % lines.len()].clone();
                lines.insert(arg % (lines.len() + 1), l);
                text = lines.join("\n");
            }
            2 if !lines.is_empty() => {
                let n = lines.len();
                lines.swap(at % n, arg % n);
                text = lines.join("\n");
            }
            3 => {
                let pos = char_boundary(&text, at);
                text.insert_str(pos, TOKENS[arg % TOKENS.len()]);
            }
            4 => {
                let a = char_boundary(&text, at);
                let mut b = (a + arg % 16).min(text.len());
                while !text.is_char_boundary(b) {
                    b += 1;
                }
                text.replace_range(a..b, "");
            }
            5 => {
                let a = char_boundary(&text, at);
                text.truncate(a);
            }
            6 if !lines.is_empty() => {
                let i = at % lines.len();
                if let Some((key, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{key}= {}", VALUES[arg % VALUES.len()]);
                }
                text = lines.join("\n");
            }
            7 => {
                let digits: Vec<usize> = text
                    .char_indices()
                    .filter(|(_, c)| c.is_ascii_digit())
                    .map(|(i, _)| i)
                    .collect();
                if !digits.is_empty() {
                    let i = digits[at % digits.len()];
                    let numbers = [
                        "0",
                        "1e30",
                        "18446744073709551616",
                        "99999999",
                        "-1",
                        "0.000001",
                    ];
                    text.replace_range(i..i + 1, numbers[arg % numbers.len()]);
                }
            }
            _ => {}
        }
    }
    text
}

fn char_boundary(s: &str, at: usize) -> usize {
    if s.is_empty() {
        return 0;
    }
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn edits(max: usize) -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..=max)
}

/// Value swaps only (edit kind 6), which keep a seed well-formed.
fn value_swaps(max: usize) -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((Just(6u8), any::<usize>(), any::<usize>()), 1..=max)
}

/// Scenario files: seeds, seeds with extreme values, mutated seeds.
pub fn scenario() -> BoxedStrategy<String> {
    let seed = select(SCENARIO_SEEDS);
    prop_oneof![
        1 => seed.clone().prop_map(str::to_string),
        4 => (seed.clone(), value_swaps(3)).prop_map(|(s, e)| mutate(s, &e)),
        4 => (seed, edits(6)).prop_map(|(s, e)| mutate(s, &e)),
        1 => "\\PC{0,300}",
    ]
    .boxed()
}

/// Lines of a real trace, for seeds; empty if the file is not there.
fn trace_excerpt(relative: &str, lines: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/traces")
        .join(relative);
    std::fs::read_to_string(path)
        .map(|t| t.lines().take(lines).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

/// mahimahi traces: grammar-built timestamp lists (gaps, bursts, huge
/// values), excerpts of the vendored traces, and mutations of both.
pub fn mahimahi() -> BoxedStrategy<String> {
    let excerpt = trace_excerpt("mahimahi/ATT-LTE-driving-2016.down", 400);
    let built = prop::collection::vec((0u64..50, 1usize..4), 1..200).prop_map(|steps| {
        let mut t = 0u64;
        let mut out = String::new();
        for (gap, burst) in steps {
            t += gap;
            for _ in 0..burst {
                out.push_str(&t.to_string());
                out.push('\n');
            }
        }
        out
    });
    let seeds = prop_oneof![built, Just(excerpt)];
    prop_oneof![
        3 => seeds.clone(),
        3 => (seeds, edits(4)).prop_map(|(s, e)| mutate(&s, &e)),
        1 => "([0-9]{1,22}\n){0,40}",
        1 => "\\PC{0,100}",
    ]
    .boxed()
}

/// Irish 5G CSVs: grammar-built rows (timestamps, bitrates, states),
/// excerpts of the vendored traces, and mutations of both.
pub fn irish5g() -> BoxedStrategy<String> {
    let excerpt = trace_excerpt("irish-5g/Static/B_2019.12.16_13.40.04.csv", 60);
    let rate = prop_oneof![
        (0u64..100_000).prop_map(|v| v.to_string()),
        select(
            &[
                "0",
                "1e30",
                "1000000000",
                "1000000001",
                "0.5",
                "-1",
                "nan",
                "",
                "-",
                "18446744073709551616"
            ][..]
        )
        .prop_map(str::to_string),
    ];
    let row = (
        0u32..3,
        0u32..60,
        rate,
        select(&["D", "I", "V", "d", ""][..]),
    );
    let built = prop::collection::vec(row, 1..80).prop_map(|rows| {
        let mut out = String::from("Timestamp,Speed,DL_bitrate,UL_bitrate,State\n");
        let mut second = 0u32;
        for (advance, jitter, rate, state) in rows {
            second += advance;
            let s = second + jitter % 2;
            out.push_str(&format!(
                "2020.02.14_09.{:02}.{:02},0,{rate},0,{state}\n",
                (s / 60) % 60,
                s % 60
            ));
        }
        out
    });
    let seeds = prop_oneof![built, Just(excerpt)];
    prop_oneof![
        3 => seeds.clone(),
        3 => (seeds, edits(4)).prop_map(|(s, e)| mutate(&s, &e)),
        1 => "\\PC{0,200}",
    ]
    .boxed()
}

/// Controller spec strings: every algorithm with random parameters drawn
/// mostly from its own parameter names, plus mutations and random text.
pub fn spec() -> BoxedStrategy<String> {
    let value = select(
        &[
            "0",
            "1",
            "0.5",
            "-1",
            "1e30",
            "nan",
            "inf",
            "true",
            "false",
            "",
            "99999999999",
            "0.0000001",
            "2",
            "100",
            "abc",
            "1.25",
            "0.85",
        ][..],
    );
    let built = (
        0..cc::algorithms().len(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), value), 0..4),
        any::<bool>(),
    )
        .prop_map(|(which, kvs, colon)| {
            let algorithm = cc::algorithms()[which];
            let items: Vec<String> = kvs
                .iter()
                .map(|(i, own, v)| {
                    let key = if *own && !algorithm.params.is_empty() {
                        algorithm.params[i.index(algorithm.params.len())].name
                    } else {
                        ["", "x", "mu", "beta"][i.index(4)]
                    };
                    format!("{key}={v}")
                })
                .collect();
            if items.is_empty() && !colon {
                algorithm.name.to_string()
            } else {
                format!("{}:{}", algorithm.name, items.join(","))
            }
        });
    prop_oneof![
        4 => built.clone(),
        2 => (built, edits(3)).prop_map(|(s, e)| mutate(&s, &e)),
        1 => "\\PC{0,40}",
    ]
    .boxed()
}

/// Values that fit a `--set` key's type, so many flags get past parsing.
fn values_for(key: &str) -> &'static [&'static str] {
    match key.rsplit('.').next().unwrap_or("") {
        "rate" | "line_rate" => &["1kbit", "5Mbit", "1000Gbit", "0Mbit", "2000Gbit", "1.5Gbit"],
        "rtt" | "duration" | "warmup" | "sample_interval" | "start" | "max_ack_delay"
        | "ack_delay" => &["1ns", "1ms", "40ms", "2s", "0s", "1h", "-1s"],
        "buffer" | "burst" | "size" | "datagram" => &[
            "1pkt", "0.01bdp", "100bdp", "1B", "1500B", "64KiB", "1GB", "0",
        ],
        "loss" | "p" => &["0%", "1%", "50%", "99.99%", "100%", "0.5"],
        "cc" => &["bbr", "cubic", "obbr:mu=0.5", "bbr2", "cubic:", "nope"],
        "count" | "seed" => &["1", "0", "32", "100000", "18446744073709551616"],
        _ => VALUES,
    }
}

/// `--set` flags: known and unknown keys with values of their type or
/// extreme ones, and mutations.
pub fn set_path() -> BoxedStrategy<String> {
    let built = (
        select(SET_KEYS),
        any::<prop::sample::Index>(),
        any::<bool>(),
    )
        .prop_map(|(key, i, typed)| {
            let pool = if typed { values_for(key) } else { VALUES };
            format!("{key}={}", pool[i.index(pool.len())].trim_matches('"'))
        });
    prop_oneof![
        4 => built.clone(),
        2 => (built, edits(3)).prop_map(|(s, e)| mutate(&s, &e)),
        1 => "\\PC{0,60}",
    ]
    .boxed()
}

/// The input strategy of `target`.
pub fn strategy(target: crate::Target) -> BoxedStrategy<String> {
    match target {
        crate::Target::Scenario => scenario(),
        crate::Target::Mahimahi => mahimahi(),
        crate::Target::Irish5g => irish5g(),
        crate::Target::Spec => spec(),
        crate::Target::SetPath => set_path(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_never_split_characters_and_handle_empty_text() {
        for kind in 0..8u8 {
            for at in [0usize, 1, 2, 7, 1000, usize::MAX] {
                let _ = mutate("ä = \"1é\"\n[x]\n", &[(kind, at, at)]);
                let _ = mutate("ä = \"1é\"\n[x]\n", &[(kind, at, 15)]);
                let _ = mutate("", &[(kind, at, at)]);
            }
        }
        assert_eq!(mutate("a = 1\nb = 2", &[(0, 0, 0)]), "b = 2");
        assert_eq!(mutate("a = 1", &[(6, 0, 0)]), "a = \"0\"");
    }

    #[test]
    fn the_embedded_seeds_are_valid_scenarios() {
        for seed in SCENARIO_SEEDS {
            assert!(
                scenario::sweep_from_str(seed, &crate::targets::origin(), &[]).is_ok(),
                "{seed}"
            );
        }
    }
}
