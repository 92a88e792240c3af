"""Shared fixtures: the repository's scenarios, and small scenarios as dicts."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def small() -> dict:
    """A 6-second, 20 Mbit/s scenario with one BBR flow."""
    return {
        "name": "small",
        "duration": "6s",
        "warmup": "1s",
        "link": {"rate": "20Mbit", "rtt": "40ms", "buffer": "1bdp"},
        "flow": [{"cc": "bbr"}],
    }


@pytest.fixture
def small_sweep(small) -> dict:
    return {**small, "sweep": {"flow.0.cc": ["bbr", "cubic"], "link.buffer": ["0.5bdp", "2bdp"], "seeds": [1, 2]}}
