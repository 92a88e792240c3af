#!/usr/bin/env bash
# Installs iperf3 (Debian's package), the traffic tool docs/EMULATION.md uses
# to show `bbrlab shell` at work. The project's own tests need only Python.
# Idempotent and quiet on success.
set -euo pipefail

if command -v iperf3 >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: iperf3 is missing and apt-get is not available; install iperf3" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "error: iperf3 is missing; installing it needs root: run 'sudo $0'" >&2
    exit 1
fi
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update && apt-get install -y --no-install-recommends iperf3; } >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "error: setup-network: installing iperf3 failed" >&2
    exit 1
fi
