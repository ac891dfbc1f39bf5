"""kill -9 of ``causalcal bootstrap --jobs 2`` leaves no process behind (issue 16).

The command runs in its own session; after SIGKILL of the command alone (not its group)
every other live process of that session — the loky workers and their resource trackers
— must be gone (within a deadline generous enough for a loaded machine). Zombies (dead,
waiting to be reaped by init) do not count.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from causalcal.cli import main


def cpu_ticks(pid: int) -> int:
    """User + system CPU time of a process, in clock ticks (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


@pytest.mark.slow
def test_kill_9_leaves_no_worker_behind(tmp_path, session_processes, poll):
    assert main(["simulate", "--nodes", "40", "--edges", "60", "--samples", "1500", "--seed",
                 "1", "--out", str(tmp_path / "sim")]) == 0
    command = [sys.executable, "-m", "causalcal", "bootstrap", str(tmp_path / "sim" / "data.csv"),
               "--n-boot", "5000", "--jobs", "2", "--out", str(tmp_path / "p.npz"), "--quiet"]
    parent = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)

    def workers() -> dict:
        assert parent.poll() is None, "the bootstrap ended before it was killed"
        found = {pid: v for pid, v in session_processes(parent.pid).items()
                 if v[0] == parent.pid}
        return found if len(found) >= 2 else {}

    try:
        # generous deadlines: on a loaded machine starting the workers takes a while
        started = poll(workers, timeout=240, interval=0.2)
        assert len(started) >= 2, "the bootstrap did not start its worker processes"
        # two workers are busy: each used 3 s of CPU (imports done, replicates running),
        # however long that takes on a loaded machine (a resource tracker stays idle)
        def working() -> bool:
            ticks = [cpu_ticks(pid) for pid in workers()]
            return sum(t >= 3 * os.sysconf("SC_CLK_TCK") for t in ticks) >= 2

        busy = poll(working, timeout=300, interval=0.2)
        assert busy, "the workers did not start working"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        left = poll(lambda: not session_processes(parent.pid), timeout=180, interval=0.5)
        assert left, f"processes left 180 s after kill -9: {session_processes(parent.pid)}"
    finally:
        for pid in session_processes(parent.pid):
            os.kill(pid, signal.SIGKILL)
