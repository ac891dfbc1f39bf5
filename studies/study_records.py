"""The committed records of a ``causalcal study`` (Tables 33 and 34) and the study folder.

    python -m studies.study_records pack OUT DATA     # OUT/results/<calibrator>/runs/ -> DATA
    python -m studies.study_records unpack DATA OUT   # the reverse: a folder the study resumes

``causalcal study --out OUT`` writes each run's record as
``OUT/results/<calibrator>/runs/V…_E…_N…_r….json`` and, from them, the summaries
(``runs.csv``/``runs.json``, ``summary.*``, ``table.md``, ``config.json``). Only the
run records are data; the repository keeps them once, as ``DATA/<calibrator>.jsonl``
(``results/table33/``, ``results/table34/``): one line per run record, the JSON of its
file, in the order of the file names, with the study's ``study.json`` (its settings,
checked when it resumes) and ``timing.jsonl`` (wall time of each invocation) beside them.

``pack`` checks that ``unpack`` gives every run file back byte for byte. After
``unpack``, ``causalcal study --out OUT`` with the same settings finds every run done and
computes nothing (add ``--no-plots``: the reliability diagrams need the bootstraps, which
are not committed); it rewrites the summaries from the records.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from causalcal.evaluate.study_files import dumps, run_path, write_text

#: files of the study folder kept beside the records, byte for byte
STUDY_FILES = ("study.json", "timing.jsonl")


def _run_file(results: Path, record: dict) -> Path:
    return run_path(results, record["V"], record["E"], record["N"], record["repeat"])


def pack_calibrator(results: Path, path: Path) -> int:
    """``results/runs/*.json`` (one calibrator's folder) as the JSON-lines file ``path``;
    returns the number of runs."""
    lines = []
    for run in sorted(results.glob("runs/*.json")):
        text = run.read_text(encoding="utf-8")
        record = json.loads(text)
        if dumps(record) != text or _run_file(results, record) != run:
            raise ValueError(f"{run}: would not be unpacked to the same file")
        lines.append(json.dumps(record, allow_nan=True) + "\n")
    if not lines:
        raise FileNotFoundError(f"{results}: no runs/*.json records")
    write_text(path, "".join(lines))
    return len(lines)


def pack(out: Path, data: Path) -> None:
    """Every calibrator's run records of the study folder ``out`` into ``data``."""
    data.mkdir(parents=True, exist_ok=True)
    for results in sorted(p for p in (out / "results").iterdir() if (p / "runs").is_dir()):
        count = pack_calibrator(results, data / f"{results.name}.jsonl")
        print(f"{data / results.name}.jsonl: {count} runs")
    for name in STUDY_FILES:
        if (out / name).is_file():
            shutil.copyfile(out / name, data / name)


def unpack(data: Path, out: Path) -> None:
    """The run files (and ``study.json``, ``timing.jsonl``) of ``data`` under ``out``;
    an existing run file must already hold the same bytes."""
    for path in sorted(data.glob("*.jsonl")):
        if path.name in STUDY_FILES:
            continue
        results = out / "results" / path.stem
        lines = path.read_text(encoding="utf-8").splitlines()
        for line in lines:
            record = json.loads(line)
            run, text = _run_file(results, record), dumps(record)
            if run.exists() and run.read_text(encoding="utf-8") != text:
                raise FileExistsError(f"{run} exists with other contents")
            run.parent.mkdir(parents=True, exist_ok=True)
            write_text(run, text)
        print(f"{results}/runs: {len(lines)} runs")
    for name in STUDY_FILES:
        if (data / name).is_file() and not (out / name).exists():
            shutil.copyfile(data / name, out / name)


def main(argv: list[str] | None = None) -> None:
    """``pack OUT DATA`` or ``unpack DATA OUT``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] not in ("pack", "unpack"):
        raise SystemExit("usage: python -m studies.study_records pack OUT DATA | "
                         "unpack DATA OUT")
    (pack if args[0] == "pack" else unpack)(Path(args[1]), Path(args[2]))


if __name__ == "__main__":
    main()
