"""The study's files: atomic writes, JSON records and the check that a folder was made
with the same settings (docs/design.md §9.5)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write
from causalcal.errors import InputError

__all__ = ["check_same", "dumps", "flat", "load_run", "run_path", "savez", "write_text"]


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_write(path, encoding="utf-8") as handle:
        handle.write(text)


def savez(path: Path, **arrays) -> None:
    """``numpy.savez_compressed`` to ``path`` atomically."""
    with atomic_write(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def dumps(obj) -> str:
    """The study's JSON text of ``obj`` (numpy scalars and arrays, paths as plain values)."""
    return json.dumps(obj, indent=1, default=_json_default, allow_nan=True)


def check_same(path: Path, stored: dict, wanted: dict) -> None:
    """``InputError`` naming ``path`` and every setting where ``stored`` and ``wanted`` differ."""
    wanted = json.loads(dumps(wanted))
    diff = [k for k in wanted if stored.get(k) != wanted[k]]
    if diff:
        details = ", ".join(f"{k}={stored.get(k)!r} (now {wanted[k]!r})" for k in diff)
        raise InputError(f"{path} was made with other settings: {details}; use another "
                         "--out directory or delete it")


def run_path(results: Path, v: int, e: int, n: int, r: int) -> Path:
    """The record file of the run (V, E, N, repeat r)."""
    return results / "runs" / f"V{v}_E{e}_N{n}_r{r}.json"


def load_run(path: Path, wanted: dict) -> dict | None:
    """A finished run's record, or ``None`` if there is none (or it cannot be read)."""
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text())
    except (json.JSONDecodeError, OSError):
        return None  # unreadable (should not happen with atomic writes): recompute
    check_same(path, record.get("settings", {}), wanted)
    return record


def flat(record: dict) -> dict:
    """The scalar fields of a record (no nested dicts or lists)."""
    return {k: v for k, v in record.items() if not isinstance(v, (dict, list))}
