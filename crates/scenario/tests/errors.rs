//! Every class of bad input gets an error naming the file, the key, the line
//! (when it can be known) and what was expected.

use std::path::{Path, PathBuf};

use scenario::{from_str, Override, ScenarioError};

/// A valid scenario; line numbers: 1 name, 2 duration, 3 [link], 4 rate,
/// 5 rtt, 6 buffer, 7 [[flow]], 8 cc.
const BASE: &str = r#"name = "t"
duration = "60s"
[link]
rate = "40Mbit"
rtt = "100ms"
buffer = "0.25bdp"
[[flow]]
cc = "bbr"
"#;

fn origin() -> &'static Path {
    Path::new("scenarios/t.toml")
}

fn err_of(text: &str) -> ScenarioError {
    match from_str(text, origin(), &[]) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

fn err_with(text: &str, sets: &[&str]) -> ScenarioError {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    match from_str(text, origin(), &sets) {
        Ok(_) => panic!("expected an error for {sets:?}"),
        Err(e) => e,
    }
}

/// BASE with one line replaced.
fn with(old: &str, new: &str) -> String {
    assert!(BASE.contains(old), "{old}");
    BASE.replacen(old, new, 1)
}

#[track_caller]
fn check(e: &ScenarioError, key: Option<&str>, line: Option<usize>, needles: &[&str]) {
    let shown = e.to_string();
    assert_eq!(e.file, PathBuf::from("scenarios/t.toml"), "{shown}");
    assert!(shown.starts_with("scenarios/t.toml"), "{shown}");
    assert_eq!(e.key.as_deref(), key, "{shown}");
    assert_eq!(e.line, line, "{shown}");
    for n in needles {
        assert!(shown.contains(n), "`{n}` not in: {shown}");
    }
}

#[test]
fn the_base_scenario_is_valid() {
    from_str(BASE, origin(), &[]).unwrap();
}

#[test]
fn unknown_key_at_top_level() {
    let e = err_of(&format!("colour = \"blue\"\n{BASE}"));
    check(
        &e,
        Some("colour"),
        Some(1),
        &["unknown key `colour`", "`duration`", "`link`", "`flow`"],
    );
}

#[test]
fn unknown_key_in_link() {
    let e = err_of(&with(
        "rtt = \"100ms\"\n",
        "rtt = \"100ms\"\nqueue = \"fifo\"\n",
    ));
    check(
        &e,
        Some("link.queue"),
        Some(6),
        &["unknown key `queue`", "`buffer`", "`rate`"],
    );
}

#[test]
fn unknown_key_in_flow() {
    let text = format!("{BASE}[[flow]]\ncc = \"cubic\"\nstrat = \"1s\"\n");
    let e = err_of(&text);
    check(
        &e,
        Some("flow[1].strat"),
        Some(11),
        &["unknown key `strat`", "`start`"],
    );
}

#[test]
fn unknown_key_in_transport_and_loss_table() {
    let e = err_of(&format!("{BASE}[transport]\nack = \"every-2\"\n"));
    check(
        &e,
        Some("transport.ack"),
        Some(10),
        &["unknown key `ack`", "`ack_policy`"],
    );
    let e = err_of(&format!(
        "{BASE}[link.loss]\np = \"1%\"\nr = \"10%\"\nq = 1\n"
    ));
    check(
        &e,
        Some("link.loss.q"),
        Some(12),
        &["unknown key `q`", "`loss_bad`"],
    );
}

#[test]
fn unit_less_rate() {
    let e = err_of(&with("rate = \"40Mbit\"", "rate = \"40\""));
    check(
        &e,
        Some("link.rate"),
        Some(4),
        &[
            "expected a rate like \"40Mbit\"",
            "got \"40\"",
            "a number needs a unit",
        ],
    );
    let e = err_of(&with("rate = \"40Mbit\"", "rate = 40"));
    check(
        &e,
        Some("link.rate"),
        Some(4),
        &[
            "expected a rate like \"40Mbit\"",
            "got 40 (a number needs a unit)",
        ],
    );
}

#[test]
fn negative_or_zero_rate() {
    let e = err_of(&with("rate = \"40Mbit\"", "rate = \"-40Mbit\""));
    check(&e, Some("link.rate"), Some(4), &["must not be negative"]);
    let e = err_of(&with("rate = \"40Mbit\"", "rate = \"0Mbit\""));
    check(&e, Some("link.rate"), Some(4), &["greater than zero"]);
    let e = err_of(&with("rate = \"40Mbit\"", "rate = \"40MB\""));
    check(&e, Some("link.rate"), Some(4), &["unknown unit \"MB\""]);
}

#[test]
fn buffer_of_zero() {
    let e = err_of(&with("buffer = \"0.25bdp\"", "buffer = \"0\""));
    check(
        &e,
        Some("link.buffer"),
        Some(6),
        &[
            "expected a buffer of at least one datagram, like \"300KB\", \"100pkt\" or \"0.25bdp\"",
            "got \"0\"",
        ],
    );
    assert!(
        e.to_string()
            .starts_with("scenarios/t.toml: link.buffer (line 6): expected a buffer"),
        "{e}"
    );
    let e = err_of(&with("buffer = \"0.25bdp\"", "buffer = \"0pkt\""));
    check(&e, Some("link.buffer"), Some(6), &["at least one datagram"]);
}

#[test]
fn buffer_below_one_datagram() {
    let e = err_of(&with("buffer = \"0.25bdp\"", "buffer = \"1KB\""));
    check(
        &e,
        Some("link.buffer"),
        Some(6),
        &[
            "at least one datagram",
            "1000 bytes is less than one 1500-byte datagram",
        ],
    );
    let e = err_of(&with("buffer = \"0.25bdp\"", "buffer = \"0.001bdp\""));
    check(
        &e,
        Some("link.buffer"),
        Some(6),
        &[
            "500 bytes, less than one 1500-byte datagram",
            "the BDP is 500000 bytes",
        ],
    );
    // A smaller datagram makes the same buffer valid.
    let text = format!(
        "{}[transport]\ndatagram = \"500B\"\n",
        with("buffer = \"0.25bdp\"", "buffer = \"1KB\"")
    );
    from_str(&text, origin(), &[]).unwrap();
}

#[test]
fn buffer_in_bdp_without_link_rtt() {
    let text =
        with("rtt = \"100ms\"\n", "").replace("cc = \"bbr\"", "cc = \"bbr\"\nrtt = \"10ms\"");
    let e = err_of(&text);
    check(
        &e,
        Some("link.buffer"),
        Some(5),
        &["a buffer in bdp needs link.rtt"],
    );
}

#[test]
fn loss_outside_zero_one() {
    for bad in [
        "loss = \"100%\"",
        "loss = 1.5",
        "loss = 1",
        "loss = \"-1%\"",
        "loss = \"150%\"",
    ] {
        let e = err_of(&with(
            "buffer = \"0.25bdp\"",
            &format!("buffer = \"0.25bdp\"\n{bad}"),
        ));
        check(
            &e,
            Some("link.loss"),
            Some(7),
            &["expected a probability in [0, 1)"],
        );
    }
    let e = err_of(&format!(
        "{BASE}[link.loss]\nmodel = \"gilbert-elliott\"\np = 0.1\nr = 2\n"
    ));
    check(
        &e,
        Some("link.loss.r"),
        Some(12),
        &["expected a probability in [0, 1]", "got 2"],
    );
    let e = err_of(&format!("{BASE}[link.loss]\np = 0.1\n"));
    check(&e, Some("link.loss.r"), Some(9), &["missing required key"]);
    let e = err_of(&format!(
        "{BASE}[link.loss]\nmodel = \"gilbert-elliott\"\np = 1\nr = 0\n"
    ));
    check(&e, Some("link.loss"), Some(9), &["loses every packet"]);
    let e = err_of(&format!(
        "{BASE}[link.loss]\nmodel = \"bernoulli\"\np = 0.1\nr = 0.5\n"
    ));
    check(&e, Some("link.loss.r"), Some(12), &["takes only `p`"]);
    let e = err_of(&format!("{BASE}[link.loss]\nmodel = \"markov\"\n"));
    check(
        &e,
        Some("link.loss.model"),
        Some(10),
        &["\"gilbert-elliott\" or \"bernoulli\""],
    );
}

#[test]
fn missing_trace_file() {
    let text = with("rate = \"40Mbit\"", "trace = \"no/such/trace.down\"");
    let e = err_of(&text);
    check(
        &e,
        Some("link.trace"),
        Some(4),
        &["trace file not found", "scenarios/no/such/trace.down"],
    );
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("scenario-tests")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn malformed_mahimahi_trace_names_its_line() {
    let dir = tmp_dir("bad-mahimahi");
    std::fs::write(dir.join("bad.down"), "1\n2\nthree\n4\n").unwrap();
    let scenario_path = dir.join("s.toml");
    let text = with("rate = \"40Mbit\"", "trace = \"bad.down\"");
    let e = from_str(&text, &scenario_path, &[]).unwrap_err();
    let shown = e.to_string();
    assert_eq!(e.key.as_deref(), Some("link.trace"), "{shown}");
    assert_eq!(e.line, Some(4), "{shown}");
    assert!(shown.contains("bad.down:3:"), "{shown}");
    assert!(shown.contains("\"three\""), "{shown}");
}

#[test]
fn malformed_irish5g_trace_is_reported() {
    let dir = tmp_dir("bad-irish");
    std::fs::write(dir.join("bad.csv"), "not,a,header\n1,2,3\n").unwrap();
    let text = with("rate = \"40Mbit\"", "trace = \"bad.csv\"");
    let e = from_str(&text, &dir.join("s.toml"), &[]).unwrap_err();
    let shown = e.to_string();
    assert_eq!(e.key.as_deref(), Some("link.trace"), "{shown}");
    assert!(
        shown.contains("irish5g") && shown.contains("bad.csv"),
        "{shown}"
    );
}

#[test]
fn trace_path_that_is_a_directory() {
    let dir = tmp_dir("dir-trace");
    let text = with("rate = \"40Mbit\"", "trace = \".\"");
    let e = from_str(&text, &dir.join("s.toml"), &[]).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn unknown_trace_format() {
    let text = with(
        "rate = \"40Mbit\"",
        "trace = \"x.down\"\ntrace_format = \"pcap\"",
    );
    let e = err_of(&text);
    check(
        &e,
        Some("link.trace_format"),
        Some(5),
        &["\"mahimahi\" or \"irish5g\"", "got \"pcap\""],
    );
    let e = err_of(&with(
        "rate = \"40Mbit\"",
        "rate = \"40Mbit\"\ntrace_format = \"mahimahi\"",
    ));
    check(
        &e,
        Some("link.trace_format"),
        Some(5),
        &["only meaningful with link.trace"],
    );
}

#[test]
fn unknown_algorithm_lists_known_ones() {
    let e = err_of(&with("cc = \"bbr\"", "cc = \"vegas\""));
    check(
        &e,
        Some("flow[0].cc"),
        Some(8),
        &["unknown algorithm `vegas`", "bbr", "cubic", "reno"],
    );
}

#[test]
fn bad_parameter_in_cc_spec() {
    let e = err_of(&with("cc = \"bbr\"", "cc = \"cubic:beta=1.5\""));
    check(
        &e,
        Some("flow[0].cc"),
        Some(8),
        &["beta", "expected a number in"],
    );
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr:mu=2\""));
    check(
        &e,
        Some("flow[0].cc"),
        Some(8),
        &["no parameter `mu`", "valid parameters"],
    );
    let e = err_of(&with("cc = \"bbr\"", "cc = 3"));
    check(
        &e,
        Some("flow[0].cc"),
        Some(8),
        &["expected an algorithm spec like \"bbr\"", "got 3"],
    );
}

#[test]
fn bad_duration() {
    let e = err_of(&with("duration = \"60s\"", "duration = \"60\""));
    check(
        &e,
        Some("duration"),
        Some(2),
        &[
            "expected a duration like \"100ms\"",
            "a number needs a unit",
        ],
    );
    let e = err_of(&with("duration = \"60s\"", "duration = \"1 minute\""));
    check(&e, Some("duration"), Some(2), &["unknown unit \"minute\""]);
    let e = err_of(&with("duration = \"60s\"", "duration = \"0s\""));
    check(&e, Some("duration"), Some(2), &["greater than zero"]);
    let e = err_of(&with("rtt = \"100ms\"", "rtt = true"));
    check(
        &e,
        Some("link.rtt"),
        Some(5),
        &["expected a duration", "got true"],
    );
}

#[test]
fn toml_syntax_error_has_line_and_column() {
    let e = err_of(&with("rtt = \"100ms\"", "rtt = \"100ms"));
    assert_eq!(e.key, None);
    assert_eq!(e.line, Some(5), "{e}");
    assert!(e.column.is_some(), "{e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with("scenarios/t.toml (line 5, column "),
        "{shown}"
    );
    assert!(shown.contains("TOML syntax error"), "{shown}");
    let e = err_of("name = \"x\"\nname = \"y\"\n");
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn missing_required_keys() {
    let e = err_of(&with("name = \"t\"\n", ""));
    check(
        &e,
        Some("name"),
        None,
        &["missing required key", "name = \"bbr-shallow\""],
    );
    let e = err_of(&with("duration = \"60s\"\n", ""));
    check(
        &e,
        Some("duration"),
        None,
        &["missing required key", "duration = \"60s\""],
    );
    let e = err_of(&with("buffer = \"0.25bdp\"\n", ""));
    check(
        &e,
        Some("link.buffer"),
        Some(3),
        &["missing required key", "\"300KB\""],
    );
    let e = err_of(&with("rate = \"40Mbit\"\n", ""));
    check(&e, Some("link"), Some(3), &["give one of `rate`"]);
    let e = err_of(&with("rtt = \"100ms\"\n", "").replace("0.25bdp", "300KB"));
    check(
        &e,
        Some("link.rtt"),
        Some(3),
        &["missing required key", "flow[0] gives no rtt"],
    );
    let e = err_of(&with("cc = \"bbr\"", "start = \"1s\""));
    check(
        &e,
        Some("flow[0].cc"),
        Some(7),
        &["missing required key", "\"bbr\""],
    );
    let e = err_of("name = \"x\"\nduration = \"1s\"\n[[flow]]\ncc = \"bbr\"\n");
    check(&e, Some("link"), None, &["missing required table [link]"]);
}

#[test]
fn link_rtt_may_be_left_out_when_every_flow_gives_one() {
    let text = with("rtt = \"100ms\"\n", "")
        .replace("0.25bdp", "300KB")
        .replace("cc = \"bbr\"", "cc = \"bbr\"\nrtt = \"20ms\"");
    let s = from_str(&text, origin(), &[]).unwrap();
    assert_eq!(s.config.flows[0].rtt, std::time::Duration::from_millis(20));
}

#[test]
fn schedule_must_start_at_zero_and_increase() {
    let sched = |s: &str| with("rate = \"40Mbit\"", &format!("schedule = {s}"));
    let e = err_of(&sched("[[\"1s\", \"10Mbit\"]]"));
    check(
        &e,
        Some("link.schedule[0][0]"),
        Some(4),
        &["the first step must be at \"0s\", got \"1s\""],
    );
    let e = err_of(&sched(
        "[[\"0s\", \"10Mbit\"], [\"5s\", \"1Mbit\"], [\"5s\", \"2Mbit\"]]",
    ));
    check(
        &e,
        Some("link.schedule[2][0]"),
        Some(4),
        &["strictly increase", "\"5s\""],
    );
    let e = err_of(&sched("[[\"0s\", \"10Mbit\"], [\"5s\"]]"));
    check(
        &e,
        Some("link.schedule[1]"),
        Some(4),
        &["a [time, rate] pair"],
    );
    let e = err_of(&sched("[]"));
    check(
        &e,
        Some("link.schedule"),
        Some(4),
        &["an array of [time, rate] pairs", "an empty array"],
    );
    let e = err_of(&sched("[[\"0s\", \"10\"]]"));
    check(
        &e,
        Some("link.schedule[0][1]"),
        Some(4),
        &["expected a rate"],
    );
    let e = err_of(&sched("[[\"0s\", \"0bit\"]]"));
    check(
        &e,
        Some("link.schedule"),
        Some(4),
        &["every rate in the schedule is zero"],
    );
    // Zero steps are allowed (an outage); the buffer's BDP uses the first rate.
    let text = sched("[[\"0s\", \"10Mbit\"], [\"5s\", \"0bit\"], [\"6s\", \"10Mbit\"]]");
    from_str(&text, origin(), &[]).unwrap();
}

#[test]
fn multi_line_schedule_points_at_the_bad_step() {
    let text = with(
        "rate = \"40Mbit\"",
        "schedule = [\n  [\"0s\", \"10Mbit\"],\n  [\"5s\", \"1Mbit\"],\n  [\"4s\", \"2Mbit\"],\n]",
    );
    let e = err_of(&text);
    check(
        &e,
        Some("link.schedule[2][0]"),
        Some(7),
        &["strictly increase"],
    );
}

#[test]
fn both_rate_and_trace() {
    let e = err_of(&with(
        "rate = \"40Mbit\"",
        "rate = \"40Mbit\"\ntrace = \"x.down\"",
    ));
    check(
        &e,
        Some("link.trace"),
        Some(5),
        &["give only one of", "link.rate and link.trace"],
    );
    let e = err_of(&with(
        "rate = \"40Mbit\"",
        "rate = \"40Mbit\"\nschedule = [[\"0s\", \"1Mbit\"]]",
    ));
    check(
        &e,
        Some("link.schedule"),
        Some(5),
        &["link.rate and link.schedule"],
    );
}

#[test]
fn zero_flows() {
    let e = err_of(&with("[[flow]]\ncc = \"bbr\"\n", ""));
    check(
        &e,
        Some("flow"),
        None,
        &["at least one flow is required", "[[flow]]"],
    );
    let e = err_of(&format!(
        "flow = []\n{}",
        with("[[flow]]\ncc = \"bbr\"\n", "")
    ));
    check(
        &e,
        Some("flow"),
        Some(1),
        &["at least one flow is required"],
    );
    let e = err_of(&with("[[flow]]\ncc = \"bbr\"\n", "[flow]\ncc = \"bbr\"\n"));
    check(&e, Some("flow"), Some(7), &["write [[flow]], not [flow]"]);
}

#[test]
fn count_zero() {
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\ncount = 0"));
    check(
        &e,
        Some("flow[0].count"),
        Some(9),
        &["a whole number of identical flows from 1 to 10000", "got 0"],
    );
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\ncount = \"2\""));
    check(&e, Some("flow[0].count"), Some(9), &["got \"2\""]);
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\ncount = 1.5"));
    check(&e, Some("flow[0].count"), Some(9), &["got 1.5"]);
}

#[test]
fn warmup_not_shorter_than_duration() {
    let e = err_of(&with(
        "duration = \"60s\"",
        "duration = \"60s\"\nwarmup = \"60s\"",
    ));
    check(
        &e,
        Some("warmup"),
        Some(3),
        &["must be shorter than the duration"],
    );
    let e = err_of(&with(
        "duration = \"60s\"",
        "duration = \"60s\"\nwarmup = \"2min\"",
    ));
    check(&e, Some("warmup"), Some(3), &["120s", "60s"]);
}

#[test]
fn sample_interval_zero() {
    let e = err_of(&with(
        "duration = \"60s\"",
        "duration = \"60s\"\nsample_interval = \"0ms\"",
    ));
    check(&e, Some("sample_interval"), Some(3), &["greater than zero"]);
    let e = err_of(&with(
        "duration = \"60s\"",
        "duration = \"60s\"\nsample_interval = 0",
    ));
    check(&e, Some("sample_interval"), Some(3), &["greater than zero"]);
}

#[test]
fn flow_starting_after_the_end() {
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\nstart = \"60s\""));
    check(
        &e,
        Some("flow[0].start"),
        Some(9),
        &["at or after the end of the run"],
    );
}

#[test]
fn other_bad_values() {
    let e = err_of(&with("name = \"t\"", "name = \"\""));
    check(&e, Some("name"), Some(1), &["a non-empty string"]);
    let e = err_of(&with("name = \"t\"", "name = \"t\"\nseed = -1"));
    check(
        &e,
        Some("seed"),
        Some(2),
        &["a non-negative integer", "got -1"],
    );
    let e = err_of(&with(
        "name = \"t\"",
        "name = \"t\"\nstop_when_done = \"yes\"",
    ));
    check(&e, Some("stop_when_done"), Some(2), &["true or false"]);
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\nsize = \"0\""));
    check(&e, Some("flow[0].size"), Some(9), &["greater than zero"]);
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\nburst = \"lots\"",
    ));
    check(
        &e,
        Some("link.burst"),
        Some(7),
        &["expected a size like \"300KB\""],
    );
    let e = err_of(&format!("{BASE}[transport]\nack_policy = \"sometimes\"\n"));
    check(
        &e,
        Some("transport.ack_policy"),
        Some(10),
        &["\"every-2\"", "\"every-packet\""],
    );
    let e = err_of(&format!("{BASE}[transport]\ndatagram = \"40B\"\n"));
    check(&e, Some("transport.datagram"), Some(10), &["above 52B"]);
    let e = err_of(&format!("{BASE}[transport]\nack_policy = \"every-1000\"\n"));
    check(
        &e,
        Some("transport.ack_policy"),
        Some(10),
        &["\"every-N\" with N from 3 to 100"],
    );
    let e = err_of(&format!("{BASE}[transport]\npacing_timer = \"1s\"\n"));
    check(
        &e,
        Some("transport.pacing_timer"),
        Some(10),
        &["at most 100ms"],
    );
    let e = err_of(&format!("{BASE}[transport]\npacing_timer = \"soon\"\n"));
    check(&e, Some("transport.pacing_timer"), Some(10), &["duration"]);
    let e = err_of(&format!("{BASE}[transport]\nreceive_window = \"1KB\"\n"));
    check(
        &e,
        Some("transport.receive_window"),
        Some(10),
        &["at least two datagrams' payload (2896B)", "\"1KB\""],
    );
    let e = err_of(&format!("{BASE}[transport]\nreceive_window = \"lots\"\n"));
    check(&e, Some("transport.receive_window"), Some(10), &["size"]);
    let e = err_of(&format!("{BASE}[transport]\npacer_ack_credit = \"yes\"\n"));
    check(
        &e,
        Some("transport.pacer_ack_credit"),
        Some(10),
        &["true or false"],
    );
    let e = err_of(&format!("{BASE}[transport]\ninitial_window = 1\n"));
    check(
        &e,
        Some("transport.initial_window"),
        Some(10),
        &["from 2 to 1000"],
    );
    let e = err_of(&format!("{BASE}[transport]\ninitial_window = \"32\"\n"));
    check(
        &e,
        Some("transport.initial_window"),
        Some(10),
        &["from 2 to 1000"],
    );
    let e = err_of(&with("[link]", "link = 3\n[other]"));
    check(&e, Some("link"), Some(3), &["a table of link settings"]);
}

#[test]
fn cannot_read_scenario_file() {
    let e = scenario::load(Path::new("/no/such/dir/s.toml"), &[]).unwrap_err();
    assert_eq!(e.key, None);
    assert!(
        e.to_string()
            .starts_with("/no/such/dir/s.toml: cannot read scenario file"),
        "{e}"
    );
}

// ----- overrides -----

#[test]
fn override_of_a_missing_flow_names_the_override() {
    let e = err_with(BASE, &["flow.5.cc=cubic"]);
    assert_eq!(e.key.as_deref(), Some("flow.5.cc"));
    assert_eq!(e.line, None);
    let shown = e.to_string();
    assert!(shown.contains("--set flow.5.cc=cubic"), "{shown}");
    assert!(
        shown.contains("no `flow[5]`") && shown.contains("1 `flow` entry"),
        "{shown}"
    );
}

#[test]
fn override_of_an_unknown_key_names_the_override() {
    let e = err_with(BASE, &["link.nosuch=3"]);
    assert_eq!(e.key.as_deref(), Some("link.nosuch"));
    let shown = e.to_string();
    assert!(
        shown.contains("--set link.nosuch=3") && shown.contains("valid keys"),
        "{shown}"
    );
    let e = err_with(BASE, &["speed=3"]);
    assert!(e.to_string().contains("unknown key `speed`"), "{e}");
}

#[test]
fn bad_overridden_value_names_the_override_not_a_line() {
    let e = err_with(BASE, &["link.buffer=0"]);
    assert_eq!(e.key.as_deref(), Some("link.buffer"));
    assert_eq!(e.line, None);
    let shown = e.to_string();
    assert!(
        shown.contains("at least one datagram") && shown.contains("(set by --set link.buffer=0)"),
        "{shown}"
    );
    // Untouched keys keep their lines even when an override adds lines before them.
    let text = format!("{}[[flow]]\ncc = \"vegas\"\n", BASE);
    let e = err_with(&text, &["link.loss=1%", "link.burst=10KB"]);
    assert_eq!(e.key.as_deref(), Some("flow[1].cc"));
    assert_eq!(e.line, Some(10), "{e}");
}

#[test]
fn bad_override_syntax() {
    assert!("seed".parse::<Override>().is_err());
    let e = "seed".parse::<Override>().unwrap_err().to_string();
    assert!(e.contains("key=value"), "{e}");
}

#[test]
fn a_run_that_would_record_too_many_samples_is_refused_before_it_allocates() {
    let started = std::time::Instant::now();
    let e = err_with(BASE, &["sample_interval=1ns", "duration=1s"]);
    assert!(started.elapsed().as_secs() < 5);
    check(
        &e,
        Some("sample_interval"),
        None,
        &[
            "time-series rows",
            "at most 20000000",
            "use a longer sample_interval",
        ],
    );
    // The default interval over an hour is fine.
    from_str(
        &with("name = \"t\"", "name = \"t\"\nduration = \"3600s\""),
        origin(),
        &[],
    )
    .ok();
}

/// BASE's flow as a live stream, with `extra` lines in its `[flow.live]`.
fn live(flow_lines: &str, live_lines: &str) -> String {
    format!("{BASE}{flow_lines}[flow.live]\n{live_lines}")
}

#[test]
fn live_streams_and_copilot_are_validated() {
    let ok = from_str(
        &live(
            "app = \"live\"\ncopilot = \"lsquic\"\n",
            "bitrate = \"2Mbit\"\n",
        ),
        origin(),
        &[],
    )
    .unwrap();
    assert!(matches!(
        ok.config.flows[0].app,
        sim::app::Application::Live(_)
    ));
    assert!(ok.config.flows[0].copilot.unwrap().probe_rtt_app_limited);

    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\napp = \"video\""));
    check(
        &e,
        Some("flow[0].app"),
        Some(9),
        &["expected \"bulk\", \"live\" or \"dash\"", "\"video\""],
    );
    let e = err_of(&with("cc = \"bbr\"", "cc = \"bbr\"\ncopilot = \"maybe\""));
    check(&e, Some("flow[0].copilot"), Some(9), &["\"lsquic\""]);
    let e = err_of(&live("", "bitrate = \"2Mbit\"\n"));
    check(&e, Some("flow[0].live"), Some(9), &["needs app = \"live\""]);
    let e = err_of(&live("app = \"live\"\nsize = \"1MB\"\n", ""));
    check(&e, Some("flow[0].size"), Some(10), &["has no size"]);
    let e = err_of(&live("app = \"live\"\n", "bitrate = \"0Mbit\"\n"));
    check(
        &e,
        Some("flow[0].live.bitrate"),
        Some(11),
        &["greater than zero"],
    );
    let e = err_of(&live("app = \"live\"\n", "gop = \"10ms\"\n"));
    check(
        &e,
        Some("flow[0].live.gop"),
        Some(11),
        &["at least one frame_interval"],
    );
    let e = err_of(&live("app = \"live\"\n", "frame_sizes = \"wavy\"\n"));
    check(
        &e,
        Some("flow[0].live.frame_sizes"),
        Some(11),
        &["\"constant\" or \"gop\""],
    );
    let e = err_of(&live("app = \"live\"\n", "i_frame_ratio = 3\n"));
    check(
        &e,
        Some("flow[0].live.i_frame_ratio"),
        Some(11),
        &["needs frame_sizes = \"gop\""],
    );
    let e = err_of(&live(
        "app = \"live\"\n",
        "frame_sizes = \"gop\"\ni_frame_ratio = 0.5\n",
    ));
    check(
        &e,
        Some("flow[0].live.frame_sizes"),
        Some(11),
        &["at least 1"],
    );
    let e = err_of(&live("app = \"live\"\n", "fps = 30\n"));
    assert!(e.to_string().contains("fps"), "{e}");
}

/// BASE's flow as a DASH session, with `dash_lines` in its `[flow.dash]`
/// (line 10 onwards).
fn dash(dash_lines: &str) -> String {
    format!("{BASE}app = \"dash\"\n[flow.dash]\n{dash_lines}")
}

#[test]
fn dash_sessions_are_validated() {
    let ok = from_str(
        &dash("ladder = [\"1Mbit\", \"5Mbit\"]\nabr = \"bola\"\nvideo = \"60s\"\n"),
        origin(),
        &[],
    )
    .unwrap();
    let sim::app::Application::Dash(d) = &ok.config.flows[0].app else {
        panic!("not a DASH flow");
    };
    assert_eq!(d.ladder.len(), 2);
    assert_eq!(d.abr, sim::app::dash::AbrStrategy::Bola);
    assert_eq!(d.segment_count(), 15);
    // Without a table: the oBBR paper's video.
    let plain = from_str(
        &with("cc = \"bbr\"", "cc = \"bbr\"\napp = \"dash\""),
        origin(),
        &[],
    )
    .unwrap();
    assert!(
        matches!(plain.config.flows[0].app, sim::app::Application::Dash(ref d) if d.ladder.len() == 10 && d.fast_switching && d.abandon_requests)
    );
    // dash.js's fast switching and request abandonment, each turned off.
    let off = from_str(
        &dash("fast_switching = false\nabandon_requests = false\n"),
        origin(),
        &[],
    )
    .unwrap();
    assert!(
        matches!(off.config.flows[0].app, sim::app::Application::Dash(ref d) if !d.fast_switching && !d.abandon_requests)
    );

    let e = err_of(&format!("{BASE}[flow.dash]\nvideo = \"60s\"\n"));
    check(&e, Some("flow[0].dash"), Some(9), &["needs app = \"dash\""]);
    let e = err_of(&format!("{BASE}app = \"dash\"\nsize = \"1MB\"\n"));
    check(&e, Some("flow[0].size"), Some(10), &["video"]);
    let e = err_of(&dash("ladder = [\"5Mbit\", \"1Mbit\"]\n"));
    check(
        &e,
        Some("flow[0].dash.ladder[1]"),
        Some(11),
        &["increasing order"],
    );
    let e = err_of(&dash("ladder = [\"1Mbit\", \"fast\"]\n"));
    check(&e, Some("flow[0].dash.ladder[1]"), Some(11), &["\"fast\""]);
    let e = err_of(&dash("ladder = []\n"));
    check(
        &e,
        Some("flow[0].dash.ladder"),
        Some(11),
        &["non-empty array"],
    );
    let e = err_of(&dash("abr = \"mpc\"\n"));
    check(
        &e,
        Some("flow[0].dash.abr"),
        Some(11),
        &["\"throughput\", \"bola\" or \"dynamic\"", "\"mpc\""],
    );
    let e = err_of(&dash("segment = \"10s\"\nvideo = \"5s\"\n"));
    check(
        &e,
        Some("flow[0].dash.video"),
        Some(12),
        &["at least one segment"],
    );
    let e = err_of(&dash("stable_buffer = \"40s\"\n"));
    check(
        &e,
        Some("flow[0].dash.top_quality_buffer"),
        Some(10),
        &["at least stable_buffer"],
    );
    let e = err_of(&dash("insufficient_buffer_rule = \"yes\"\n"));
    check(
        &e,
        Some("flow[0].dash.insufficient_buffer_rule"),
        Some(11),
        &["true or false"],
    );
    let e = err_of(&dash("switch_history_rule = \"no\"\n"));
    check(
        &e,
        Some("flow[0].dash.switch_history_rule"),
        Some(11),
        &["true or false"],
    );
    let e = err_of(&dash("abandon_requests = 1\n"));
    check(
        &e,
        Some("flow[0].dash.abandon_requests"),
        Some(11),
        &["true or false"],
    );
    let e = err_of(&dash("fast_switching = \"on\"\n"));
    check(
        &e,
        Some("flow[0].dash.fast_switching"),
        Some(11),
        &["true or false"],
    );
    let e = err_of(&dash("buffer_time = \"12s\"\n"));
    assert!(e.to_string().contains("buffer_time"), "{e}");
}

#[test]
fn a_dash_player_is_the_model_or_dashjs_and_dashjs_is_not_simulable() {
    let model = from_str(&dash("player = \"model\"\n"), origin(), &[]).unwrap();
    let sim::app::Application::Dash(d) = &model.config.flows[0].app else {
        panic!("not a DASH flow");
    };
    assert_eq!(d.player, sim::app::dash::PlayerKind::Model);
    assert!(model.check_simulable().is_ok());
    // dash.js loads (an emulated run plays it) but the simulator refuses it.
    let real = from_str(&dash("player = \"dashjs\"\n"), origin(), &[]).unwrap();
    let sim::app::Application::Dash(d) = &real.config.flows[0].app else {
        panic!("not a DASH flow");
    };
    assert_eq!(d.player, sim::app::dash::PlayerKind::DashJs);
    let e = real.check_simulable().unwrap_err();
    check(
        &e,
        Some("flow[0].dash.player"),
        Some(11),
        &[
            "player = \"dashjs\"",
            "only under --emulate",
            "player = \"model\"",
        ],
    );
    // Set on the command line, as scripts/dash-xval.py does.
    let over: Vec<Override> = vec!["flow.0.dash.player=dashjs".parse().unwrap()];
    let set = from_str(&dash("video = \"8s\"\n"), origin(), &over).unwrap();
    assert!(set.check_simulable().is_err());
    let over: Vec<Override> = vec!["flow.0.live.client=chromium".parse().unwrap()];
    let set = from_str(
        &format!("{BASE}app = \"live\"\n[flow.live]\n"),
        origin(),
        &over,
    )
    .unwrap();
    assert!(set.check_simulable().is_err());
    let e = err_of(&dash("player = \"shaka\"\n"));
    check(
        &e,
        Some("flow[0].dash.player"),
        Some(11),
        &["\"model\"", "\"dashjs\"", "\"shaka\""],
    );
    let e = err_of(&dash("player = 1\n"));
    check(&e, Some("flow[0].dash.player"), Some(11), &["\"dashjs\""]);
    // A player plays a DASH session only.
    let e = err_of(&format!(
        "{BASE}app = \"live\"\n[flow.dash]\nplayer = \"dashjs\"\n"
    ));
    check(
        &e,
        Some("flow[0].dash"),
        Some(10),
        &["needs app = \"dash\""],
    );
}

#[test]
fn a_live_client_is_bbrlab_or_chromium_and_chromium_is_not_simulable() {
    let text = |client: &str| format!("{BASE}app = \"live\"\n[flow.live]\nclient = {client}\n");
    let own = from_str(&text("\"bbrlab\""), origin(), &[]).unwrap();
    assert!(own.check_simulable().is_ok());
    let real = from_str(&text("\"chromium\""), origin(), &[]).unwrap();
    let sim::app::Application::Live(l) = &real.config.flows[0].app else {
        panic!("not a live flow");
    };
    assert_eq!(l.client, sim::app::live::LiveClient::Chromium);
    let e = real.check_simulable().unwrap_err();
    check(
        &e,
        Some("flow[0].live.client"),
        Some(11),
        &[
            "client = \"chromium\"",
            "only under --emulate",
            "client = \"bbrlab\"",
        ],
    );
    let e = err_of(&text("\"firefox\""));
    check(
        &e,
        Some("flow[0].live.client"),
        Some(11),
        &["\"bbrlab\"", "\"chromium\"", "\"firefox\""],
    );
}

#[test]
fn uplinks_and_trace_starts_are_validated() {
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\nuplink_rate = \"0Mbit\"",
    ));
    check(
        &e,
        Some("link.uplink_rate"),
        Some(7),
        &["greater than zero"],
    );
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\nuplink_rate = \"1Mbit\"\nuplink_trace = \"x.up\"",
    ));
    check(&e, Some("link.uplink_trace"), Some(8), &["only one of"]);
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\nuplink_trace = \"nope.up\"",
    ));
    check(
        &e,
        Some("link.uplink_trace"),
        Some(7),
        &["trace file not found"],
    );
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\ntrace_start = \"10s\"",
    ));
    check(
        &e,
        Some("link.trace_start"),
        Some(7),
        &["only meaningful with link.trace"],
    );
}

#[test]
fn acks_behind_the_data_queue_is_a_boolean_and_excludes_an_uplink() {
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\nacks_share_queue = \"yes\"",
    ));
    check(
        &e,
        Some("link.acks_share_queue"),
        Some(7),
        &["true or false"],
    );
    let e = err_of(&with(
        "buffer = \"0.25bdp\"",
        "buffer = \"0.25bdp\"\nacks_share_queue = true\nuplink_rate = \"10Mbit\"",
    ));
    check(
        &e,
        Some("link.acks_share_queue"),
        Some(7),
        &["link.uplink_rate / link.uplink_trace, not both"],
    );
    let ok = from_str(
        &with(
            "buffer = \"0.25bdp\"",
            "buffer = \"0.25bdp\"\nacks_share_queue = true",
        ),
        origin(),
        &[],
    );
    assert!(ok.is_ok(), "{:?}", ok.err());
}

#[test]
fn a_kernel_flow_loads_but_is_not_simulable() {
    let text = format!("{BASE}[[flow]]\ncc = \"linux:bbr\"\n");
    let s = from_str(&text, origin(), &[]).expect("a kernel flow is a valid scenario");
    assert!(s.has_kernel_flows());
    let flow = &s.config.flows[1];
    assert_eq!(flow.kernel.as_deref(), Some("bbr"));
    assert_eq!(
        flow.cc.name(),
        "bbr",
        "the project's model of the same name"
    );
    assert_eq!(flow.cc_label(), "linux:bbr");
    assert_eq!(s.config.flows[0].kernel, None);
    let e = s.check_simulable().unwrap_err();
    check(
        &e,
        Some("flow[1].cc"),
        Some(10),
        &[
            "cc = \"linux:bbr\" is the kernel's TCP and runs only under --emulate",
            "the simulator's own `bbr` is the faithful model of it",
        ],
    );
    // A name the project has no model of: cubic stands in, never run.
    let s = from_str(&with("cc = \"bbr\"", "cc = \"linux:htcp\""), origin(), &[]).unwrap();
    assert_eq!(s.config.flows[0].cc.name(), "cubic");
    let e = s.check_simulable().unwrap_err();
    check(
        &e,
        Some("flow[0].cc"),
        Some(8),
        &["\"linux:htcp\"", "no model of it"],
    );
    // Set on the command line: the key, and the override that set it.
    let over: Vec<Override> = vec!["flow.0.cc=linux:cubic".parse().unwrap()];
    let s = from_str(BASE, origin(), &over).unwrap();
    let e = s.check_simulable().unwrap_err();
    check(
        &e,
        Some("flow[0].cc"),
        None,
        &["--set flow.0.cc=linux:cubic"],
    );
    assert!(from_str(BASE, origin(), &[])
        .unwrap()
        .check_simulable()
        .is_ok());
}

#[test]
fn a_kernel_flow_takes_a_plain_name_and_no_options() {
    let e = err_of(&with("cc = \"bbr\"", "cc = \"linux:bbr:cwnd_gain=2\""));
    check(
        &e,
        Some("flow[0].cc"),
        Some(8),
        &["take no options", "write cc = \"linux:bbr\""],
    );
    for bad in ["linux:", "linux:BBR", "linux:bb-r"] {
        let e = err_of(&with("cc = \"bbr\"", &format!("cc = \"{bad}\"")));
        check(
            &e,
            Some("flow[0].cc"),
            Some(8),
            &["lower-case letters, digits and _"],
        );
    }
}
