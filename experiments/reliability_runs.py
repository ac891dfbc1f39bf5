"""Cases of :mod:`experiments.reliability_audit` on processes: kills (SIGKILL, SIGTERM,
Ctrl-C) in the middle of a run, and runs at once on one output or one checkpoint. The
searches are slowed by the plug-in ``slowsearch:search`` (0.7 s a replicate), so that a
signal lands in the middle."""

from __future__ import annotations

import os
import signal
import time
import warnings
from pathlib import Path

from experiments.reliability_audit import Case, Run, causalcal, finish, start

SLOW = ("--search", "slowsearch:search", "--quiet")
PROBLEM = "audit-problem.txt"


def _note(folder: Path, problem: str) -> None:
    with open(folder / PROBLEM, "a", encoding="utf-8") as handle:
        handle.write(problem + "\n")


def noted(folder: Path, run: Run) -> str | None:
    """The check of these cases: the problems their runs noted."""
    path = folder / PROBLEM
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


def _wait(condition, seconds: float = 300.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.2)
    return False


def _group_alive(group: int) -> bool:
    """Whether a process of process group ``group`` (a run started in a session of its
    own: the command and its workers) is still alive."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _same_probabilities(folder: Path, a: str, b: str) -> None:
    from causalcal.edges import EdgeProbabilities

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            first, second = EdgeProbabilities.load(folder / a), EdgeProbabilities.load(folder / b)
        except (Warning, ValueError) as err:
            _note(folder, f"the result does not read back cleanly: {err}")
            return
    if first != second:
        _note(folder, f"{a} differs from the uninterrupted run's {b}")


def _temp_files(folder: Path) -> None:
    left = [p.name for p in folder.rglob(".tmp-*")]
    if left:
        _note(folder, f"temporary files left: {', '.join(left[:3])}")


def kill_and_resume(folder: Path) -> Run:
    """SIGKILL to the whole run while it searches with 2 workers; no process may be left;
    the same command resumes to the result of a run never interrupted."""
    argv = ("bootstrap", "sim/data.csv", "--n-boot", "6", "--jobs", "2", *SLOW,
            "--checkpoint", "ck", "--out", "k.npz")
    process = start(folder, *argv)
    if not _wait(lambda: len(list((folder / "ck").glob("rep-*.npz"))) >= 2):
        _note(folder, "no replicate was saved in time")
    os.kill(process.pid, signal.SIGKILL)  # the command, not its workers
    killed = finish(process)
    if not _wait(lambda: not _group_alive(process.pid), 60):
        _note(folder, "worker processes left a minute after kill -9")
    resumed = causalcal(folder, *argv)
    reference = causalcal(folder, *argv[:-4], "--out", "ref.npz")
    if killed.code != -9 or resumed.code or reference.code:
        _note(folder, f"exit codes {killed.code}, {resumed.code}, {reference.code}")
    else:
        _same_probabilities(folder, "k.npz", "ref.npz")
    return resumed


def signal_mid_run(sig: int, code: int):
    """SIGTERM or SIGINT while the search runs: the given exit code, the output it
    would replace (the run's own earlier file) as it was, no temporary file."""
    def run(folder: Path) -> Run:
        process = start(folder, "bootstrap", "sim/data.csv", "--n-boot", "8", "--jobs", "1",
                        *SLOW, "--checkpoint", "ck", "--out", "p.npz")
        if not _wait(lambda: any((folder / "ck").glob("rep-*.npz"))):
            _note(folder, "no replicate was saved in time")
        os.kill(process.pid, sig)
        result = finish(process)
        if result.code != code:
            _note(folder, f"exit {result.code}, not {code}")
        _temp_files(folder)
        return Run(0 if result.code == code else result.code, result.out, result.err,
                   result.seconds, result.rss_mb)
    return run


def writers_at_once(argv_a: tuple, argv_b: tuple, out: str, check):
    """Two commands at once onto one output: both finish (or one is refused naming what is
    in use); what is left reads back as one run's."""
    def run(folder: Path) -> Run:
        first, second = start(folder, *argv_a), start(folder, *argv_b)
        results = [finish(first), finish(second)]
        refused = [r for r in results if r.code == 2 and "in use" in r.err]
        if any(r.code not in (0, 2) for r in results) or len(refused) > 1 or \
                any(r.code == 2 and r not in refused for r in results):
            _note(folder, f"exit codes {[r.code for r in results]}: "
                          f"{' | '.join(r.error_line for r in results)}")
        check(folder, out)
        _temp_files(folder)
        worst = max(results, key=lambda r: r.code != 0)
        return Run(0, worst.out, "\n".join(r.err for r in results), worst.seconds,
                   max(r.rss_mb for r in results))
    return run


def _reads_back(folder: Path, out: str) -> None:
    from causalcal.edges import EdgeProbabilities

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            EdgeProbabilities.load(folder / out)
        except (Warning, ValueError) as err:
            _note(folder, f"{out} does not read back cleanly: {err}")


def _ranking_is_whole(folder: Path, out: str) -> None:
    from causalcal.cli._paths import RANKING, describe_file

    if describe_file(folder / out) != RANKING:
        _note(folder, f"{out} and its report do not match: {describe_file(folder / out)}")


def process_cases() -> list[Case]:
    boot = ("bootstrap", "sim/data.csv", "--n-boot", "3", "--jobs", "1", *SLOW)
    return [
        Case("kill-9-then-resume", "earlier", "processes", kill_and_resume, expect="accept",
             check=noted, protect=("sim/data.csv",)),
        Case("sigterm-mid-run", "earlier", "processes", signal_mid_run(signal.SIGTERM, 143),
             expect="accept", check=noted, protect=("p.npz",)),
        Case("ctrl-c-mid-run", "earlier", "processes", signal_mid_run(signal.SIGINT, 130),
             expect="accept", check=noted, protect=("p.npz",)),
        Case("two-bootstraps-one-csv", "earlier", "processes",
             writers_at_once((*boot, "--seed", "1", "--out", "p.csv"),
                             (*boot, "--seed", "2", "--out", "p.csv"), "p.csv", _reads_back),
             expect="accept", check=noted),
        Case("two-bootstraps-one-checkpoint", "earlier", "processes",
             writers_at_once((*boot, "--checkpoint", "ck", "--out", "a.npz"),
                             (*boot, "--checkpoint", "ck", "--out", "b.npz"), "a.npz",
                             lambda f, out: None),
             expect="accept", check=noted),
        Case("two-discovers-one-ranking", "earlier", "processes",
             writers_at_once(*[("discover", "sim/data.csv", "--known", "known.csv",
                                "--probabilities", "p.npz", "--quiet", "--out", "edges.csv",
                                "--seed", str(seed)) for seed in (1, 2)],
                             "edges.csv", _ranking_is_whole),
             expect="accept", check=noted),
    ]
