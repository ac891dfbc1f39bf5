"""The harness's records: one JSON-lines file per tag, resumable by key.

``results/discover_known/TAG.jsonl`` holds one line per record, each line the record
itself (a JSON object). Its ``case``, ``scheme`` and ``draw`` fields are its key. A skip
record (``"skipped": true``, the reason a setting cannot be drawn) has no ``draw``; its
key ``(case, scheme, None)`` covers every draw of that setting.

A run appends the records it makes, one line at a time (flushed and synced to disk), and
skips the keys already in the file, so a run that is killed leaves every record it
finished and the next run resumes. The line that was being written when a run was
killed has no newline: reading ignores it, and the next append cuts it off first.

Until 2026-11 the records were one JSON file each, ``records/TAG/CASE/SCHEME_dNN.json``
(``SCHEME_skipped.json`` for a skip record); :func:`convert_folder` turns such a folder
into a JSON-lines file, record for record, in the order the files were read
(:func:`sort_key`), which is the order the summary reads the records in.

    python -m studies.discover_known.records OLD_FOLDER NEW.jsonl
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

Key = tuple[str, str, "int | None"]


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON: {type(value).__name__}")


def dumps(record: dict) -> str:
    """The record as one line of JSON (numpy scalars and arrays as plain values)."""
    return json.dumps(record, default=_json_default)


def record_key(record: dict) -> Key:
    """``(case, scheme, draw)``; ``draw`` is None for a skip record."""
    draw = None if record.get("skipped") else int(record["draw"])
    return record["case"], record["scheme"], draw


def sort_key(record: dict) -> tuple[str, str]:
    """The order the records are read in: by case, then by the name the record's file
    had (``SCHEME_dNN.json``, ``SCHEME_skipped.json``)."""
    case, scheme, draw = record_key(record)
    name = f"{scheme}_skipped.json" if draw is None else f"{scheme}_d{draw:02d}.json"
    return case, name


def read_records(path: Path) -> list[dict]:
    """Every record of the file ``path`` in file order ([] if there is none). A last
    line without its newline (a write that was killed) is left out; any other line that
    is not a JSON object is an error."""
    path = Path(path)
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    lines.pop()  # after the last newline: "" or the unfinished line
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: not a JSON record ({error})") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: not a JSON object")
        records.append(record)
    return records


def sorted_records(path: Path) -> list[dict]:
    """The file's records in :func:`sort_key` order."""
    return sorted(read_records(path), key=sort_key)


def _cut_unfinished_line(path: Path) -> None:
    """Cut off a last line without its newline (left by a run that was killed)."""
    with open(path, "rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)


class RecordFile:
    """The records of one tag: which keys exist, and appending new ones."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.keys: set[Key] = {record_key(r) for r in read_records(self.path)}

    def has(self, case: str, scheme: str, draw: int) -> bool:
        """Whether the draw is recorded, or its setting was skipped."""
        return (case, scheme, draw) in self.keys or (case, scheme, None) in self.keys

    def append(self, record: dict) -> None:
        """Add ``record`` as a line (flushed and synced before returning)."""
        self.append_all([record])

    def append_all(self, records: Iterable[dict]) -> None:
        """Add ``records``, a line each, each flushed and synced before the next."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_file():
            _cut_unfinished_line(self.path)
        with open(self.path, "a", encoding="utf-8") as handle:
            for record in records:
                handle.write(dumps(record) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
                self.keys.add(record_key(record))


def folder_records(folder: Path) -> list[dict]:
    """The records of a folder of the old layout (``CASE/SCHEME_dNN.json``), in the
    order of their paths; each file's name must be the one its record's key gives."""
    records = []
    for path in sorted(Path(folder).glob("*/*.json")):
        record = json.loads(path.read_text())
        if sort_key(record) != (path.parent.name, path.name):
            raise ValueError(f"{path}: the record's key gives {sort_key(record)}")
        records.append(record)
    return records


def convert_folder(folder: Path, path: Path) -> int:
    """Write the records of the old-layout ``folder`` to the new file ``path`` (which
    must not exist); returns how many. Every record is checked to read back with the
    same fields and values (floats bit for bit)."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} exists")
    records = folder_records(folder)
    RecordFile(path).append_all(records)
    if [dumps(r) for r in read_records(path)] != [dumps(r) for r in records]:
        raise AssertionError(f"{path}: the records do not read back equal")
    return len(records)


def main(argv: list[str] | None = None) -> None:
    """``OLD_FOLDER NEW.jsonl``: convert a folder of per-draw JSON files."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        raise SystemExit("usage: python -m studies.discover_known.records OLD_FOLDER NEW.jsonl")
    print(f"{args[1]}: {convert_folder(Path(args[0]), Path(args[1]))} records")


if __name__ == "__main__":
    main()
