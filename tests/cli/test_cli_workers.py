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


_LATE_SIGTERM_RUNNER = """
import os, sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
import causalcal.cli as cli

gate = Path({gate!r})
release = cli._release_workers

def held_release():
    # the command has finished and written its output; hold here until the test has sent
    # SIGTERM (a gate: no race with the signal, however loaded the machine)
    (gate / "ready").touch()
    deadline = time.monotonic() + 600
    while not (gate / "open").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    release()

cli._release_workers = held_release
sys.exit(cli.main(["bootstrap", {data!r}, "--n-boot", "6", "--jobs", "2", "--search",
                   "test_bootstrap:threshold_search", "--out", {out!r}, "-q"]))
"""


@pytest.mark.slow
def test_sigterm_after_the_output_was_written_exits_cleanly(tmp_path, poll, session_processes):
    """Issue 42 item 5: SIGTERM while a finished ``bootstrap --jobs 2`` stops its loky
    workers is one line saying the output is complete, exit 143, no leaked-semaphore
    warnings, no process left; the output is the uninterrupted result."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bootstrap"))
    from test_bootstrap import chain_data, threshold_search

    from causalcal.bootstrap import bootstrap_edge_probabilities
    from causalcal.edges import EdgeProbabilities

    data = chain_data()
    data.to_frame().to_csv(tmp_path / "data.csv", index=False)
    gate = tmp_path / "gate"
    gate.mkdir()
    out = tmp_path / "p.npz"
    code = _LATE_SIGTERM_RUNNER.format(tests=str(Path(__file__).resolve().parents[1] /
                                                 "bootstrap"),
                                       gate=str(gate), data=str(tmp_path / "data.csv"),
                                       out=str(out))
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert poll(lambda: (gate / "ready").exists() or proc.poll() is not None,
                    timeout=300, interval=0.02)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)  # the runner alone, as `kill PID` does
        (gate / "open").touch()
        stdout, stderr = proc.communicate(timeout=300)
        assert poll(lambda: not session_processes(proc.pid), timeout=180, interval=0.1)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
    assert proc.returncode == 143, stderr
    assert stderr.strip() == ("causalcal bootstrap: terminated (SIGTERM) after it had "
                              "finished; the files it wrote are complete")
    assert "wrote" in stdout
    expected = bootstrap_edge_probabilities(data, n_boot=6, search=threshold_search,
                                            progress=False)
    assert EdgeProbabilities.load(out) == expected
