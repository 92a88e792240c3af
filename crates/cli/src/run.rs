//! `bbrlab run`.

use std::path::PathBuf;

use anyhow::Context;

use lab::output;

use crate::RunArgs;

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let clock = lab::provenance::Clock::start(Some(crate::command_line()), false);
    let mut overrides = args.set.clone();
    if let Some(seed) = args.seed {
        overrides.push(scenario::Override::seed(seed));
    }
    let sweep = scenario::load_sweep(&args.scenario, &overrides)?;
    if !sweep.axes.is_empty() {
        anyhow::bail!(
            "{}: has a [sweep] table ({} runs); run it with `bbrlab sweep {}`",
            args.scenario.display(),
            sweep
                .count()
                .map_or("more than 2^64".to_string(), |n| n.to_string()),
            args.scenario.display()
        );
    }
    let scenario = scenario::load(&args.scenario, &overrides)?;
    if !args.emulate {
        scenario.check_simulable()?;
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(sanitize(&scenario.name)));
    std::fs::create_dir_all(&out)
        .with_context(|| format!("cannot create output directory {}", out.display()))?;
    let (result, mode) = if args.emulate {
        let options = quic::emulate::EmulateOptions {
            series: !args.no_series,
            qlog_dir: args.qlog.clone(),
            // dash.js sessions' records beside the summary.
            player_dir: Some(out.clone()),
        };
        let result = quic::emulate::run(&scenario.config, &options)
            .map_err(|e| anyhow::anyhow!("{}: cannot emulate: {e}", args.scenario.display()))?;
        (result, output::Mode::Emulated)
    } else {
        let result = lab::run::simulate_traced(&scenario, !args.no_series, args.qlog.as_deref())?;
        (result, output::Mode::Simulated)
    };
    output::write_all(
        &out,
        &scenario,
        &result,
        mode,
        (!args.no_series).then_some(args.series_format),
    )?;
    lab::provenance::write(&out, &clock.finish(0))?;
    if args.quiet {
        println!("{}", out.join("summary.json").display());
    } else {
        print!("{}", output::table(&scenario, &result, mode));
        println!("results in {}", out.display());
    }
    Ok(())
}

/// A scenario name as a directory name.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("run{s}")
    } else {
        s
    }
}
