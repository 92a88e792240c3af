//! `bbrlab shell`: a command in a network namespace of its own whose every
//! IP packet crosses the link model (see the `emu` crate's `shell`
//! module), like mahimahi's `mm-delay 50 mm-link up down -- CMD`.

use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Context;

/// The fastest link the shell keeps within 1% on this machine
/// (docs/BENCHMARKS.md, "The TUN shell").
pub const MAX_RATE_BPS: f64 = 1e9;

/// Where the link of `bbrlab shell` comes from, and the command.
#[derive(clap::Args, Debug)]
pub struct ShellArgs {
    /// Take the link from this scenario's [link], uplink, first flow's RTT
    /// and seed (its uplink is the simulator's ACK path: unlimited unless
    /// the scenario gives one).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rate", "trace", "rtt", "buffer", "loss", "burst", "uplink"])]
    scenario: Option<PathBuf>,
    /// Bottleneck rate, e.g. 40Mbit; counts whole IP packets.
    #[arg(long, conflicts_with = "trace")]
    rate: Option<String>,
    /// A capacity trace instead of a rate (mahimahi, or an Irish 5G .csv).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    #[command(flatten)]
    link: crate::emu::LinkOptions,
    /// The uplink (from the command out): `link` (default: the same link
    /// as the downlink, its own queue), `unlimited`, or a rate such as
    /// 10Mbit (the simulator's ACK path: no loss, no queue limit).
    #[arg(long, default_value = "link")]
    uplink: String,
    /// Print nothing but the command's own output.
    #[arg(long, short)]
    quiet: bool,
    /// The command and its arguments (after `--`).
    #[arg(required = true, last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Reads the link the options or the scenario describe.
fn shell_config(args: &ShellArgs) -> anyhow::Result<(emu::ShellConfig, String)> {
    let (scenario, mirrors) = match &args.scenario {
        Some(path) => (scenario::load(path, &[])?, false),
        None => {
            let capacity = match (&args.rate, &args.trace) {
                (_, Some(trace)) => {
                    let absolute = std::path::absolute(trace)
                        .with_context(|| format!("--trace {}", trace.display()))?;
                    format!("trace = {:?}\n", absolute.display().to_string())
                }
                (Some(rate), None) => format!("rate = {rate:?}\n"),
                (None, None) => "rate = \"100Mbit\"\n".to_string(),
            };
            let uplink = match args.uplink.as_str() {
                "link" | "unlimited" => String::new(),
                rate => format!("uplink_rate = {rate:?}\n"),
            };
            let scenario = args.link.scenario(&capacity, &uplink).map_err(|e| {
                match e.to_string().starts_with("--uplink") {
                    true => anyhow::anyhow!("{e} (or `link`, `unlimited`)"),
                    false => e,
                }
            })?;
            (scenario, args.uplink == "link")
        }
    };
    let link = crate::emu::emu_config(&scenario)?;
    let peak = peak_rate_bps(&link.link.rate);
    if peak > MAX_RATE_BPS {
        anyhow::bail!(
            "the link's rate peaks at {:.0} Mbit/s: the shell keeps a link's rate within 1% \
             up to {:.0} Mbit/s on this machine (docs/BENCHMARKS.md)",
            peak / 1e6,
            MAX_RATE_BPS / 1e6
        );
    }
    let description = match &args.scenario {
        Some(path) => format!("the link of {}", path.display()),
        None => format!(
            "{} / {} buffer{}{}, RTT {}; uplink: {}",
            args.rate.as_deref().unwrap_or(match &args.trace {
                Some(_) => "trace",
                None => "100Mbit",
            }),
            args.link.buffer,
            args.link
                .loss
                .as_ref()
                .map_or(String::new(), |l| format!(", {l} loss")),
            args.link
                .burst
                .as_ref()
                .map_or(String::new(), |b| format!(", {b} token bucket")),
            args.link.rtt,
            match args.uplink.as_str() {
                "link" => "the same link, its own queue",
                "unlimited" => "unlimited",
                rate => rate,
            }
        ),
    };
    Ok((
        emu::ShellConfig {
            link,
            uplink_mirrors_link: mirrors,
        },
        description,
    ))
}

/// The highest rate over the first ten minutes, every 100 ms.
fn peak_rate_bps(rate: &sim::link::RateModel) -> f64 {
    let capacity = sim::link::Capacity::new(rate);
    (0..6000u32)
        .map(|i| {
            capacity
                .rate_at(cc::Instant::ZERO + Duration::from_millis(100) * i)
                .as_bps_f64()
        })
        .fold(0.0, f64::max)
}

/// Runs the command in a shell and returns its exit code (128 + the
/// signal's number if a signal ended it).
pub fn shell(args: ShellArgs) -> anyhow::Result<i32> {
    let (config, description) = shell_config(&args)?;
    let shell = emu::Shell::start(&config).context("cannot start the shell")?;
    let (outer_device, _) = shell.device_names();
    if !args.quiet {
        eprintln!(
            "bbrlab shell: {description}; outside at {} ({} = {}, device {outer_device}), \
             inside at {}",
            shell.outer_addr(),
            emu::shell::BASE_VARIABLE,
            shell.outer_addr(),
            shell.inner_addr(),
        );
    }
    let program = &args.command[0];
    // The terminal's Ctrl-C reaches the command (same process group); the
    // shell outlives it to report and clean up.
    ignore_interrupts();
    let started = Instant::now();
    let status = shell
        .command(program)
        .args(&args.command[1..])
        .status()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                anyhow::anyhow!("{program}: command not found (looked up in PATH)")
            }
            _ => anyhow::anyhow!("cannot run {program}: {e}"),
        })?;
    let elapsed = started.elapsed();
    if !args.quiet {
        report(&shell, elapsed);
    }
    shell.stop().context("the shell's link failed")?;
    Ok(exit_code(status))
}

fn ignore_interrupts() {
    for signal in [libc::SIGINT, libc::SIGQUIT] {
        // SAFETY: setting a signal's disposition to ignore.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
}

fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

/// What crossed the link, printed when the command ends.
fn report(shell: &emu::Shell, elapsed: Duration) {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    for (name, stats) in [("downlink", &shell.down), ("uplink", &shell.up)] {
        let sent = stats.sent_bytes.load(Ordering::Relaxed);
        let delay = stats.queue_delay();
        eprintln!(
            "bbrlab shell: {name}: {} packets, {:.2} MB, {:.2} Mbit/s over {:.1} s; \
             queueing delay p50 {:.1} ms p95 {:.1} ms p99 {:.1} ms max {:.1} ms; \
             lost {}, overflowed {}, undeliverable {}",
            stats.sent.load(Ordering::Relaxed),
            sent as f64 / 1e6,
            sent as f64 * 8.0 / seconds / 1e6,
            seconds,
            delay.p50,
            delay.p95,
            delay.p99,
            delay.max,
            stats.lost.load(Ordering::Relaxed),
            stats.overflowed.load(Ordering::Relaxed),
            stats.undeliverable.load(Ordering::Relaxed),
        );
    }
    match shell.dropped_before_link() {
        Ok((0, 0)) => {}
        Ok((outer, inner)) => eprintln!(
            "bbrlab shell: the machine fell behind: {outer} packets dropped before the \
             downlink, {inner} before the uplink (outside the link model)"
        ),
        Err(e) => eprintln!("bbrlab shell: cannot read the devices' drop counters: {e}"),
    }
}
