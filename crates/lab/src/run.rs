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
    let mut config = scenario.config.clone();
    config.record_series = series;
    std::panic::catch_unwind(|| sim::Simulation::new(config).run())
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
            Ok(result)
        })
}
