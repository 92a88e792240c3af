#!/usr/bin/env bash
# The whole test suite. Simulation tests are heavy, so they run in the
# release profile: the README's main command (`cargo run --release`) has
# already built every dependency there, and nothing is compiled twice.
# Each phase's wall time is printed at the end (docs/BENCHMARKS.md keeps
# where the suite's time goes).
set -euo pipefail
cd "$(dirname "$0")/.."

PHASES=()
# Runs one phase of the suite and records its wall time.
phase() {
    local name=$1 start=$SECONDS
    shift
    "$@"
    PHASES+=("$(printf '%5d s  %s' $((SECONDS - start)) "$name")")
}
report() {
    echo "test.sh: wall time by phase" >&2
    printf '  %s\n' "${PHASES[@]}" >&2
    printf '%7d s  total\n' "$SECONDS" >&2
}
trap report EXIT

# The report's browser check needs Debian's Chromium and playwright-core.
phase "browser setup" ./scripts/setup-browser.sh
phase "rustfmt check" cargo fmt --all -- --check
# Every test binary is built first, then run in lanes (scripts/test-lanes.py):
# the real-time ones (emulated links, QUIC, kernel TCP, Chromium) in a lane
# of their own beside the CPU-bound ones, which run at the lowest priority so a
# real-time test still gets the CPU the moment it needs it. The CPU lane ends
# with the doctests and the Python package (built from this clone into a
# virtualenv with maturin in the release profile, reusing the build above,
# then its tests). Arguments are libtest filters given to every binary
# (the Python package's tests are then skipped).
# CI runs this on a clean checkout, where cargo has not made target/ yet.
mkdir -p target
ARTIFACTS=target/test-artifacts.json
phase "Rust test build" sh -c "cargo test --workspace --locked --release --no-run \
    --message-format=json-render-diagnostics > $ARTIFACTS"
phase "tests in lanes (Rust, doctests, Python)" ./scripts/test-lanes.py "$ARTIFACTS" "$@"
# The simulator's speed against the stored baseline (crates/sim/tests/speed_check.rs:
# a ratio to a calibration loop timed in the same thread, which a loaded machine
# moves by a few percent at most); run alone, after the other tests.
phase "speed check" cargo test --release --locked -p bbrlab-sim --test speed_check -- --ignored
