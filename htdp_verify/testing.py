"""pytest-facing helpers and the htdp-verify pytest plugin (registered through the ``pytest11`` entry point).

The plugin provides an ``rng`` fixture seeded from the test's node id, so every test gets its own
reproducible ``numpy.random.Generator`` without sharing a global stream.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest


def seed_from_text(text: str) -> int:
    """A stable 63-bit seed derived from ``text`` (e.g. a test id or a check name)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A ``numpy.random.Generator`` seeded from the test id (stable across runs and machines)."""
    return np.random.default_rng(seed_from_text(request.node.nodeid))
