"""Fixtures shared by the test packages (tests/core, calibration, simulate, bootstrap,
evaluate, cli)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest


def _run_causalcal(*args, cwd=None) -> subprocess.CompletedProcess:
    """``python -m causalcal ARGS`` in a subprocess, text output captured."""
    return subprocess.run([sys.executable, "-m", "causalcal", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


@pytest.fixture(scope="session")
def causalcal_cli():
    """Run the command line in a subprocess: ``causalcal_cli("demo", "--help", cwd=…)``."""
    return _run_causalcal


def _main_in_process(*args, cwd=None) -> subprocess.CompletedProcess:
    """``causalcal ARGS`` through :func:`causalcal.cli.main`, the function that ``python -m
    causalcal`` exits with, in this process and in folder ``cwd``: exit code and text
    output as from :func:`_run_causalcal`, without a fresh interpreter's imports (seconds
    per command on a 2-core machine)."""
    from causalcal.cli import main

    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as stop:  # argparse: usage errors, --help
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["causalcal", *map(str, args)], code, out.getvalue(),
                                       err.getvalue())


@pytest.fixture(scope="session")
def causalcal_main():
    """``causalcal_main("discover", …, cwd=…)``: as :func:`causalcal_cli`, but in this
    process. For tests of what a command does; tests of the process itself (the console
    script, signals, worker clean-up) use :func:`causalcal_cli` or ``subprocess``."""
    return _main_in_process


def _session_processes(sid: int) -> dict[int, tuple[int, str]]:
    """Live processes of session ``sid`` (from /proc): pid -> (parent pid, state).
    Zombies (dead, waiting to be reaped) do not count."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        state, ppid, session = fields[0], int(fields[1]), int(fields[3])
        if session == sid and state not in ("Z", "X"):
            found[int(entry.name)] = (ppid, state)
    return found


def wait_until(condition, timeout: float, interval: float = 0.05):
    """Poll ``condition()`` until it returns something true or ``timeout`` seconds pass;
    its last value. Tests wait on conditions with generous deadlines, never fixed sleeps,
    so that a loaded machine slows them down without failing them."""
    deadline = time.monotonic() + timeout
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(interval)
    return value


@pytest.fixture(scope="session")
def session_processes():
    """``session_processes(sid)``: the live processes of session ``sid`` (Linux /proc)."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads the process table from /proc")
    return _session_processes


@pytest.fixture(scope="session")
def poll():
    """``poll(condition, timeout)``: wait for a condition (see :func:`wait_until`)."""
    return wait_until
