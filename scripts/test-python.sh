#!/usr/bin/env bash
# Builds the Python package from this clone into a virtualenv under
# target/ and runs its tests (pytest), the example notebooks included.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/python-venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# The [test] extra brings pytest, Dask, nbclient, scikit-learn, matplotlib.
"$VENV/bin/python" -m pip install --quiet "./python[test]"
"$VENV/bin/python" -m pytest -q python/tests
