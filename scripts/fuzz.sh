#!/usr/bin/env bash
# Long fuzz campaign over bbrlab's inputs: scenario files (through
# validation into short simulations), mahimahi and Irish 5G traces, spec
# strings and --set paths. The test suite runs a bounded campaign of 13 000
# inputs; this runs CASES per target (default 200 000) from SEED.
#
#   scripts/fuzz.sh                 # 200 000 inputs per target, seed = today's date
#   CASES=1000000 SEED=42 scripts/fuzz.sh --target scenario
#
# Crashing inputs are written to target/fuzz-crashes/; the exit status is 1
# if anything crashed. Record notable campaigns in docs/FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
CASES="${CASES:-200000}"
SEED="${SEED:-$(date +%Y%m%d)}"
cargo build --locked --release -p bbrlab-fuzz
echo "fuzzing with seed $SEED, $CASES inputs per target"
exec target/release/bbrlab-fuzz --cases "$CASES" --seed "$SEED" "$@"
