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
# The Python package: built from this clone into a virtualenv (maturin,
# release profile, so it reuses the build above), then its tests.
./scripts/test-python.sh
