"""Fixtures of the command-line tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def cli(causalcal_main):
    """``cli(ARGV)``: the exit code, standard output and standard error of ``causalcal
    ARGV`` run in this process."""
    def command(*argv) -> tuple[int, str, str]:
        done = causalcal_main(*argv)
        return done.returncode, done.stdout, done.stderr
    return command
