"""The reliability audit of issue 49, rerun: crafted and careless inputs to every command
(bad headers, edited files, files of the wrong kind, existing outputs, a full disk, kills,
concurrent runs), each run as a real ``python -m causalcal`` process and its outcome
classified as

- ``clean``: refused in one line that names what and where (the words the case expects),
  or accepted with the right result;
- ``vague``: refused, but the message lacks what the user needs (or something right was
  refused);
- ``silent``: accepted without a word where it should have refused or warned, or a wrong
  result;
- ``data loss``: a file the command did not make was replaced, altered or removed;
- ``internal``: a traceback, "an internal error", or an exit by a signal.

One JSON line per case goes to ``results/reliability/audit.jsonl``, the summary table to
``docs/results/reliability-audit.md`` (and standard output). The cases live in
:mod:`experiments.reliability_cases`; ``owner`` says which change of issue 49 answers a
case (``reliab``: outputs, fingerprints, options, PAGs, BIF, searches, limits;
``loop``: the answer file; ``earlier``: a check of earlier passes).

    python -m experiments.reliability_audit [--only SUBSTRING] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "results" / "reliability" / "audit.jsonl"
SUMMARY = ROOT / "docs" / "results" / "reliability-audit.md"
OUTCOMES = ("clean", "vague", "silent", "data loss", "internal")
#: seconds a single command may take before the audit kills it
TIMEOUT = 600


@dataclass
class Run:
    """One finished command: exit code (negative: killed by that signal), its output, the
    wall time and the largest resident memory of the process (MiB)."""

    code: int
    out: str
    err: str
    seconds: float
    rss_mb: float

    @property
    def error_line(self) -> str:
        lines = [ln for ln in self.err.splitlines() if ": error: " in ln]
        return lines[0] if lines else ""


@dataclass
class Case:
    """One audited situation.

    ``run`` does it in the folder given (a fresh copy of the shared files) and returns the
    :class:`Run` to judge (its own checks may fail it: a string is the problem, classified
    as ``silent``); ``expect`` is ``refuse`` (exit 1 or 2, one line with every one of
    ``words``), ``accept`` (exit 0) or ``warn`` (exit 0 and ``words`` on standard error);
    ``protect`` lists files (relative to the folder) that must end as they began (after
    ``setup``, a function of the folder that makes the case's own files)."""

    id: str
    owner: str
    kind: str
    run: object
    expect: str = "refuse"
    words: tuple[str, ...] = ()
    protect: tuple[str, ...] = ()
    check: object = None
    setup: object = None
    notes: list[str] = field(default_factory=list)


def causalcal(folder: Path, *argv, env: dict | None = None, timeout: float = TIMEOUT,
              preexec=None, measure: bool = False) -> Run:
    """``python -m causalcal ARGV`` in ``folder``: a :class:`Run` (``measure``: its
    memory measured by ``/usr/bin/time``, which a child forked from this large process
    would overstate)."""
    process = start(folder, *argv, env=env, preexec=preexec, measure=measure)
    return finish(process, timeout)


def start(folder: Path, *argv, env: dict | None = None, preexec=None,
          measure: bool = False) -> subprocess.Popen:
    """Start ``python -m causalcal ARGV`` in ``folder`` (output to files there)."""
    environment = {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}",
                   **(env or {})}
    tag = f"{time.monotonic_ns()}"
    out = open(folder / f".audit-{tag}.out", "w+", encoding="utf-8")
    err = open(folder / f".audit-{tag}.err", "w+", encoding="utf-8")
    command = [sys.executable, "-m", "causalcal", *map(str, argv)]
    timing = folder / f".audit-{tag}.rss"
    if measure and Path("/usr/bin/time").exists():
        command = ["/usr/bin/time", "-q", "-f", "%M", "-o", str(timing), *command]
    process = subprocess.Popen(command, cwd=folder, env=environment, stdout=out, stderr=err,
                               stdin=subprocess.DEVNULL, preexec_fn=preexec,
                               start_new_session=True)
    process._audit_files = (out, err)
    process._audit_rss = timing
    process._audit_start = time.perf_counter()
    return process


def finish(process: subprocess.Popen, timeout: float = TIMEOUT) -> Run:
    """Wait for ``process`` (killing its group after ``timeout`` s): its :class:`Run`."""
    timer = threading.Timer(timeout, lambda: _kill_group(process.pid, signal.SIGKILL))
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - process._audit_start
    texts = []
    for handle in process._audit_files:
        handle.seek(0)
        texts.append(handle.read())
        handle.close()
        os.unlink(handle.name)
    rss = usage.ru_maxrss / 1024
    if process._audit_rss.exists():  # measured by /usr/bin/time: the command's own
        try:
            rss = float(process._audit_rss.read_text().split()[-1]) / 1024
        except (ValueError, IndexError):
            pass
        process._audit_rss.unlink()
    return Run(process.returncode, texts[0], texts[1], seconds, rss)


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except OSError:
        pass


def _digests(folder: Path, names: tuple[str, ...]) -> dict[str, bytes | None]:
    out = {}
    for name in names:
        path = folder / name
        out[name] = path.read_bytes() if path.is_file() else None
    return out


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def classify(case: Case, run: Run, before: dict, after: dict, problem: str | None) -> str:
    """The outcome of ``case`` (see the module docstring)."""
    text = run.err + run.out
    if ("Traceback (most recent call last)" in text or "internal error" in text
            or run.code < 0 or run.code not in (0, 1, 2, 130, 143)):
        return "internal"
    if any(before[name] != after[name] for name in before):
        return "data loss"
    if problem:
        return "silent"
    said = all(word.lower() in run.err.lower() for word in case.words)
    if case.expect == "refuse":
        if run.code == 0:
            return "silent"
        return "clean" if said and run.error_line else "vague"
    if case.expect == "warn":
        if run.code != 0:
            return "vague"
        return "clean" if said else "silent"
    if case.expect == "flag":  # refused naming it, or done with a warning naming it
        flagged = said and (run.error_line or "warning" in run.err)
        return "clean" if flagged else ("silent" if run.code == 0 else "vague")
    return "clean" if run.code == 0 else "vague"


def audit(cases: list[Case], shared: Path, keep: Path | None = None) -> list[dict]:
    """Run every case in a fresh copy of ``shared``; one record each."""
    records = []
    for case in cases:
        work = Path(tempfile.mkdtemp(prefix=f"audit-{case.id}-"))
        shutil.copytree(shared, work, dirs_exist_ok=True)
        if case.setup is not None:
            case.setup(work)
        before = _digests(work, case.protect)
        try:
            run = case.run(work)
            problem = case.check(work, run) if case.check is not None else None
        except Exception as err:  # the audit's own failure: say so, do not stop
            run, problem = Run(-1, "", f"audit error: {type(err).__name__}: {err}", 0, 0), None
        after = _digests(work, case.protect)
        outcome = classify(case, run, before, after, problem)
        record = {"id": case.id, "owner": case.owner, "kind": case.kind,
                  "expect": case.expect, "outcome": outcome, "exit_code": run.code,
                  "seconds": round(run.seconds, 2), "max_rss_mb": round(run.rss_mb, 1),
                  "message": (run.error_line or _last_line(run.err))[:400],
                  "problem": problem or "", "notes": case.notes}
        records.append(record)
        print(f"{outcome:>9}  {case.id:<44} exit {run.code:>4}  {run.seconds:6.1f} s  "
              f"{record['message'][:90]}", flush=True)
        if keep is not None and outcome != "clean":
            shutil.copytree(work, keep / case.id, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    return records


def summary(records: list[dict]) -> str:
    """The table: outcomes by owner and kind, then the cases that are not clean."""
    lines = ["| owner | kind | " + " | ".join(OUTCOMES) + " |",
             "|---|---|" + "---|" * len(OUTCOMES)]
    groups = Counter((r["owner"], r["kind"], r["outcome"]) for r in records)
    for owner, kind in sorted({(r["owner"], r["kind"]) for r in records}):
        lines.append(f"| {owner} | {kind} | "
                     + " | ".join(str(groups[(owner, kind, o)] or "") for o in OUTCOMES) + " |")
    total = Counter(r["outcome"] for r in records)
    lines.append("| **all** | " + f"{len(records)} cases | "
                 + " | ".join(f"**{total[o]}**" for o in OUTCOMES) + " |")
    others = [r for r in records if r["outcome"] != "clean"]
    if others:
        lines += ["", "Not clean:", ""]
        lines += [f"- `{r['id']}` ({r['owner']}): {r['outcome']} — "
                  f"{(r['problem'] or r['message'])[:200]}" for r in others]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from experiments.reliability_cases import all_cases, prepare

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run only the cases whose id holds this text")
    parser.add_argument("--keep", type=Path, help="keep the folders of cases not clean here")
    parser.add_argument("--no-write", action="store_true",
                        help="print only (no records, no summary file)")
    args = parser.parse_args(argv)
    shared = Path(tempfile.mkdtemp(prefix="audit-shared-"))
    try:
        started = time.perf_counter()
        prepare(shared)
        cases = [c for c in all_cases() if args.only is None or args.only in c.id]
        records = audit(cases, shared, args.keep)
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    table = summary(records)
    print(table)
    if not args.no_write and args.only is None:
        RECORDS.parent.mkdir(parents=True, exist_ok=True)
        with open(RECORDS, "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        SUMMARY.write_text(
            "# Reliability audit (issue 49)\n\n"
            "`python -m experiments.reliability_audit`: every case a real `python -m "
            "causalcal` process; records in `results/reliability/audit.jsonl`. Outcomes as "
            "`experiments/reliability_audit.py` defines them; owner `loop`: the answer "
            f"file's cases. Run in {time.perf_counter() - started:.0f} s.\n\n"
            + table + "\n", encoding="utf-8")
        print(f"records -> {RECORDS}; summary -> {SUMMARY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
