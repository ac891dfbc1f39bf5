"""Fixtures shared by the test packages (tests/core, calibration, simulate, bootstrap,
evaluate, cli)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run_causalcal(*args, cwd=None) -> subprocess.CompletedProcess:
    """``python -m causalcal ARGS`` in a subprocess, text output captured."""
    return subprocess.run([sys.executable, "-m", "causalcal", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


@pytest.fixture(scope="session")
def causalcal_cli():
    """Run the command line in a subprocess: ``causalcal_cli("demo", "--help", cwd=…)``."""
    return _run_causalcal
