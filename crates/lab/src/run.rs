//! One run: a scenario through the simulator, with a panic inside the
//! simulation turned into an error that names it, so one bad point of a
//! sweep cannot take the others down.

use sim::RunResult;

/// Simulates `scenario` and returns its result with its time series, or an
/// error if the simulation panicked or its result breaks physics.
pub fn simulate(scenario: &scenario::Scenario) -> anyhow::Result<RunResult> {
    simulate_with(scenario, true)
}

/// Like [`simulate`], keeping the time series only when `series` is set;
/// without them memory stays flat however long the run.
pub fn simulate_with(scenario: &scenario::Scenario, series: bool) -> anyhow::Result<RunResult> {
    simulate_traced(scenario, series, None)
}

/// Like [`simulate_with`], writing a qlog trace per flow into `qlog_dir`
/// (created if missing) when given; a trace that could not be written is
/// an error naming its file, after the run. A scenario with a kernel TCP
/// flow (`cc = "linux:NAME"`) is refused, naming its file and key: only an
/// emulated run carries one.
pub fn simulate_traced(
    scenario: &scenario::Scenario,
    series: bool,
    qlog_dir: Option<&std::path::Path>,
) -> anyhow::Result<RunResult> {
    scenario.check_simulable()?;
    let mut config = scenario.config.clone();
    config.record_series = series;
    if let Some(dir) = qlog_dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            anyhow::anyhow!("cannot create the qlog directory {}: {e}", dir.display())
        })?;
    }
    std::panic::catch_unwind(|| {
        let simulation = sim::Simulation::new(config);
        match qlog_dir {
            Some(dir) => simulation.with_qlog(dir.to_path_buf()),
            None => simulation,
        }
        .run()
    })
    .map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".to_string());
        anyhow::anyhow!("{}: simulation panicked: {what}", scenario.name)
    })
    .and_then(|result| {
        let broken = result.invariant_violations();
        anyhow::ensure!(
            broken.is_empty(),
            "{} (seed {}): the result breaks physics, which is a simulator bug \
             (please report it with the scenario file):\n  {}",
            scenario.name,
            result.seed,
            broken.join("\n  ")
        );
        anyhow::ensure!(
            result.trace_errors.is_empty(),
            "{}: qlog traces not written:\n  {}",
            scenario.name,
            result.trace_errors.join("\n  ")
        );
        Ok(result)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_kernel_flow_is_refused_with_its_file_and_key() {
        let text = "name = \"k\"\nduration = \"2s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\n\
                    buffer = \"1bdp\"\n[[flow]]\ncc = \"linux:cubic\"\n";
        let s = scenario::from_str(text, std::path::Path::new("k.toml"), &[]).unwrap();
        let err = super::simulate_with(&s, false).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "k.toml: flow[0].cc (line 8): cc = \"linux:cubic\" is the kernel's TCP"
            ),
            "{err}"
        );
    }
}
