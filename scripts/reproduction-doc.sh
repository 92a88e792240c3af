#!/usr/bin/env bash
# Runs the paper suites at default fidelity (resuming whatever out/ already
# holds) and regenerates docs/REPRODUCTION.md from their claims. About 12
# minutes on 2 cores from scratch; the reports are in out/<suite>/report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p bbrlab
bbrlab=target/release/bbrlab
suites=(obbr cws bbr2 copilot)
for suite in "${suites[@]}"; do
    "$bbrlab" reproduce "$suite" --out "out/$suite" "$@"
done
"$bbrlab" claims "${suites[@]/#/out/}" --markdown docs/REPRODUCTION.md
