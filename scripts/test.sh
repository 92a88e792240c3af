#!/usr/bin/env bash
# The whole test suite. Simulation tests are heavy, so the test profile is
# built with optimisations (see [profile.test] in Cargo.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d ../shared/traces ]; then
    echo "error: ../shared/traces not found: the shared/ data directory must sit beside this repository" >&2
    exit 1
fi
# The report's browser check needs Debian's Chromium and playwright-core.
./scripts/setup-browser.sh
cargo fmt --all -- --check
cargo test --workspace --locked "$@"
