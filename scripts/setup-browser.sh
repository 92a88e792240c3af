#!/usr/bin/env bash
# Installs what the report browser check (tests/browser, crates/report/tests/browser.rs)
# needs: Debian's Chromium and the pinned playwright-core from the lockfile.
# Idempotent and quiet on success, so CI can call it unconditionally.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=/usr/bin/chromium
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# Runs a command with its output captured; the output is shown only on failure
# so a successful setup prints nothing.
quiet() {
    if ! "$@" >"$LOG" 2>&1; then
        cat "$LOG" >&2
        echo "error: setup-browser: '$*' failed" >&2
        exit 1
    fi
}

if [ ! -x "$CHROMIUM" ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: $CHROMIUM is missing and apt-get is not available; install Chromium so that $CHROMIUM exists" >&2
        exit 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: $CHROMIUM is missing; installing it needs root: run 'sudo $0' or 'sudo apt-get install chromium'" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    quiet apt-get update
    quiet apt-get install -y --no-install-recommends chromium
    if [ ! -x "$CHROMIUM" ]; then
        echo "error: the chromium package was installed but $CHROMIUM does not exist" >&2
        exit 1
    fi
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "error: npm is missing; install Node.js 20 or newer (with npm)" >&2
    exit 1
fi
# npm ci installs exactly the lockfile; playwright-core never downloads a browser.
quiet npm ci --prefix tests/browser --no-audit --no-fund
