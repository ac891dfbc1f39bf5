"""The design record beside a file of suggested pairs, as a file (docs/design.md §9.12):
where it lies, how it is recognised and whether the file it describes is untouched.

``causalcal suggest --out ask.csv`` writes ``ask.csv`` and ``ask.csv.json``; the record
holds the SHA-256 of the CSV as written and a checksum of itself. This module knows only
that much (no numpy, no stage), so that the command line's file checks can tell a
suggested file from any other before the heavy imports; the record's content is
:mod:`causalcal.edgecal.answer_file`'s.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["FORMAT", "describe_suggested", "load_record", "record_checksum", "record_path"]

#: the ``format`` of a design record
FORMAT = "causalcal.suggest"
#: the largest design record read (a record of 10⁶ pairs left out is about 10 MB)
_MAX_BYTES = 256 << 20


def record_path(path: str | os.PathLike) -> Path:
    """The design record of the suggested file ``path``: ``PATH.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def record_checksum(doc: dict) -> str:
    """The SHA-256 of a record's canonical JSON, its ``checksum`` left out."""
    body = {k: v for k, v in doc.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


def load_record(record: Path) -> dict | None:
    """The record's document, or None where ``record`` is no design record."""
    try:
        if not record.is_file() or record.stat().st_size > _MAX_BYTES:
            return None
        doc = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == FORMAT else None


def describe_suggested(path: str | os.PathLike) -> str | None:
    """``"untouched"`` for a suggested file as ``suggest`` wrote it (its record holds its
    SHA-256), ``"answered"`` for one edited since (the scientist's answers), None for a
    file without a design record."""
    doc = load_record(record_path(path))
    if doc is None:
        return None
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "answered"  # unreadable: never taken for an untouched file
    return "untouched" if digest == doc.get("csv_sha256") else "answered"
