"""kill -9 of ``causalcal bootstrap --jobs 2`` leaves no process behind (issue 16).

The command runs in its own session; after SIGKILL of the command alone (not its group)
every other live process of that session — the loky workers and their resource trackers
— must be gone within 20 s. Zombies (dead, waiting to be reaped by init) do not count.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from causalcal.cli import main

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads the process table from /proc")


def session_processes(sid: int) -> dict[int, tuple[int, str]]:
    """Live processes of session ``sid``: pid -> (parent pid, state)."""
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


@pytest.mark.slow
def test_kill_9_leaves_no_worker_behind(tmp_path):
    assert main(["simulate", "--nodes", "40", "--edges", "60", "--samples", "1500", "--seed",
                 "1", "--out", str(tmp_path / "sim")]) == 0
    command = [sys.executable, "-m", "causalcal", "bootstrap", str(tmp_path / "sim" / "data.csv"),
               "--n-boot", "5000", "--jobs", "2", "--out", str(tmp_path / "p.npz"), "--quiet"]
    parent = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        workers: dict = {}
        while time.monotonic() < deadline and parent.poll() is None:
            workers = {pid: v for pid, v in session_processes(parent.pid).items()
                       if v[0] == parent.pid}
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, "the bootstrap did not start its worker processes"
        time.sleep(1.0)  # the workers are busy with replicates
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 20
        left = session_processes(parent.pid)
        while left and time.monotonic() < deadline:
            time.sleep(0.5)
            left = session_processes(parent.pid)
        assert not left, f"processes left 20 s after kill -9: {left}"
    finally:
        for pid in session_processes(parent.pid):
            os.kill(pid, signal.SIGKILL)
