#!/usr/bin/env bash
# The whole test suite. Simulation tests are heavy, so they run in the
# release profile: the README's main command (`cargo run --release`) has
# already built every dependency there, and nothing is compiled twice.
set -euo pipefail
cd "$(dirname "$0")/.."
# The report's browser check needs Debian's Chromium and playwright-core.
./scripts/setup-browser.sh
cargo fmt --all -- --check
cargo test --workspace --locked --release "$@"
# The simulator's speed against the stored baseline (crates/sim/tests/speed_check.rs:
# a ratio to a calibration loop timed in the same thread, which a loaded machine
# moves by a few percent at most); run alone, after the other tests.
cargo test --release --locked -p bbrlab-sim --test speed_check -- --ignored
# The Python package: built from this clone into a virtualenv (maturin,
# release profile, so it reuses the build above), then its tests.
./scripts/test-python.sh
