"""Reading and writing edge-probability files for :class:`causalcal.edges.EdgeProbabilities`.

``.npz`` holds everything exactly. A ``.csv`` is a plain table with one row for every
pair, in pair order, as bnlearn's ``boot.strength`` lists them (a pair never adjacent
reads ``1,0,0,0``; CSVs of earlier versions listed only the stored pairs and read as
before) that ``pandas.read_csv`` reads as it is; its metadata live in the JSON sidecar
``PATH.json``: ``format``, ``names`` (all variables, in order), ``n_boot`` and
``frequencies`` (true when every value is a multiple of 1/n_boot, which the reader
restores exactly from the 8 printed digits) and, for a bootstrap's result,
``provenance`` (the run that made it). CSVs of earlier versions, whose metadata were
leading ``#`` lines, and files without provenance still read.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
import zipfile
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write, check_npz_sizes, parse_json, read_csv_file, read_npz_arrays
from causalcal._own import file_digest
from causalcal.errors import InputError
from causalcal.pairs import EDGE_SWAP, PAG_SWAP

__all__ = ["PAG_PROBABILITY_COLUMNS", "PROBABILITY_COLUMNS", "SIDECAR_FORMAT", "read_csv",
           "read_npz", "seen_rows", "sidecar_path", "table_columns", "write_csv"]

PROBABILITY_COLUMNS = ("p_none", "p_forward", "p_backward", "p_undirected")
#: a PAG's edge types (causalcal.pairs.PAGEdgeType): the marks at a and at b
PAG_PROBABILITY_COLUMNS = ("p_none", "p_circle_circle", "p_circle_arrow", "p_arrow_circle",
                           "p_tail_arrow", "p_arrow_tail", "p_arrow_arrow")
#: each table's columns and their permutation when a pair is written the other way round
_SWAPS = {PROBABILITY_COLUMNS: EDGE_SWAP, PAG_PROBABILITY_COLUMNS: PAG_SWAP}
SIDECAR_FORMAT = "causalcal.edge_probabilities"


def sidecar_path(path: str | os.PathLike) -> Path:
    """The JSON metadata file beside a probabilities CSV: ``PATH.json``."""
    return Path(f"{path}.json")


def _entry(names: list[str], n_boot: int, frequencies: bool, digest: str, n_rows: int,
           provenance: dict | None = None) -> dict:
    entry = {"n_vars": len(names), "n_boot": int(n_boot), "frequencies": bool(frequencies),
             "sha256": digest, "n_rows": int(n_rows), "names": list(names)}
    if provenance is not None:
        entry["provenance"] = provenance
    return entry


def _handle_digest(handle) -> str:
    """SHA-256 of everything written to an open binary file."""
    handle.flush()
    digest = hashlib.sha256()
    with open(os.dup(handle.fileno()), "rb") as again:
        again.seek(0)
        while block := again.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _current_entry(path: Path) -> dict | None:
    """The sidecar entry that describes the CSV now at ``path`` (kept while it is
    replaced), or ``None``."""
    try:
        meta = _read_sidecar(path)
    except InputError:
        return None
    if meta is None or not path.exists():
        return None
    digest = file_digest(path)
    for entry in (meta, meta.get("previous")):
        if isinstance(entry, dict) and entry.get("sha256") in (digest, None):
            names, n_boot = entry.get("names", meta["names"]), int(entry.get("n_boot", 0))
            frequencies = bool(entry.get("frequencies"))
            if frequencies and entry.get("sha256") is None:  # version 1: by the values
                try:
                    frame = read_csv_file(path, comments=True, allow_nul=True)[1]
                except InputError:
                    frame = None
                frequencies = frame is not None and _on_frequency_grid(frame, n_boot)
            return _entry(names, n_boot, frequencies, digest, int(entry.get("n_rows", -1)),
                          entry.get("provenance"))
    return None


def _write_sidecar(path: Path, entry: dict, previous: dict | None,
                   columns: tuple[str, ...]) -> None:
    meta = {"format": SIDECAR_FORMAT, "version": 2, "file": path.name,
            "columns": ["a", "b", *columns], **entry}
    if previous is not None:
        meta["previous"] = previous
    with atomic_write(sidecar_path(path), "w", encoding="utf-8") as handle:
        json.dump(meta, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


@contextmanager
def _folder_lock(folder: Path):
    """An exclusive lock on ``folder`` (where the platform allows it): two processes
    saving into one folder take turns."""
    try:
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # releases the lock


def _read_sidecar(path: Path) -> dict | None:
    side = sidecar_path(path)
    if not side.exists():
        return None
    try:
        text = side.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{side}: not a JSON file ({err})") from None
    meta = parse_json(text, side)
    if not isinstance(meta, dict) or meta.get("format") != SIDECAR_FORMAT:
        raise InputError(f"{side}: not a causalcal metadata file (no format "
                         f"{SIDECAR_FORMAT!r})")
    for entry in (meta, meta.get("previous") or {}):
        names = entry.get("names", meta.get("names"))
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{side}: 'names' must list strings")
        n_boot = entry.get("n_boot", 0)
        if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
            raise InputError(f"{side}: 'n_boot' must be a whole number")
    return meta


def write_csv(path: str | os.PathLike, frames: Iterable, names: list[str], n_boot: int,
              frequencies: bool, provenance: dict | None = None,
              columns: tuple[str, ...] = PROBABILITY_COLUMNS) -> None:
    """Write the CSV ``path`` (the rows of ``frames``, one DataFrame after another under
    one header) and its sidecar as one unit.

    The CSV goes to a temporary file first; the sidecar is then replaced by one that
    describes both the new CSV and the one still in place (by SHA-256 of their bytes);
    only then is the CSV renamed over ``path``, and the sidecar trimmed to the new entry.
    A failure at any step leaves a pair that reads with its own values.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _folder_lock(path.parent):
        with atomic_write(path, "wb") as handle:
            rows = 0
            for frame in frames:
                frame.to_csv(handle, index=False, header=rows == 0, float_format="%.8g")
                rows += len(frame)
            entry = _entry(names, n_boot, frequencies, _handle_digest(handle), rows,
                           provenance)
            _write_sidecar(path, entry, _current_entry(path), columns)
        try:
            _write_sidecar(path, entry, None, columns)
        except OSError:
            pass  # the sidecar still describes the new CSV (and the old one)


def read_npz(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, int, dict | None]:
    """Names, pairs, probabilities, n_boot and provenance (``None`` if not recorded)."""
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic not in (b"PK\x03\x04", b"PK\x05\x06"):
        what = "it is empty" if not magic else "it is not a zip archive"
        raise InputError(f"{path}: not a .npz file ({what})")
    try:
        shapes = check_npz_sizes(path)
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in ("pairs", "probs", "n_boot") if k not in z.files]
            if missing or not ({"names", "names_json"} & set(z.files)):
                raise InputError(f"{path}: not an edge-probabilities file (arrays "
                                 f"{', '.join(z.files) or 'none'})")
            _check_shapes(path, shapes, {"names", "names_json", "provenance_json", "n_boot"})
            if "names_json" in z.files:
                names = parse_json(str(z["names_json"]), f"{path}: 'names_json'")
                if not isinstance(names, list):
                    raise InputError(f"{path}: 'names_json' is not a JSON list of names")
            else:
                names = [str(n) for n in z["names"]]
            _check_shapes(path, shapes, set(shapes), len(names))
            provenance = (_provenance(parse_json(str(z["provenance_json"]),
                                                 f"{path}: 'provenance_json'"), path)
                          if "provenance_json" in z.files else None)
            return names, z["pairs"], z["probs"], int(z["n_boot"]), provenance
    except InputError:
        raise
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as err:
        reason = " ".join(str(err).split()) or type(err).__name__
        raise InputError(f"{path}: not a readable .npz file ({reason})") from None


#: the most bytes of names (and of provenance) an edge-probabilities .npz may declare
_MAX_TEXT_BYTES = 64 << 20
#: the most pair features a row may have
_MAX_FEATURES = 1024


def _expected_shapes(n_vars: int | None) -> dict[str, tuple]:
    """What each array of an edge-probabilities ``.npz`` may be: ``(ndim, columns or None,
    most rows or None)``, its size bounded by the number of variables (so that a crafted
    archive is refused before it is expanded)."""
    pairs = None if n_vars is None else n_vars * (n_vars - 1) // 2
    return {"probs": (2, (4, 7), pairs), "pairs": (2, (2,), pairs), "n_boot": (0, None, None),
            "pair_features": (2, None, pairs),
            "ancestral_definite": (2, (n_vars,), n_vars),
            "ancestral_possible": (2, (n_vars,), n_vars)}


def _check_shapes(path: Path, shapes: dict, which: set[str], n_vars: int | None = None
                  ) -> None:
    """Refuse (``InputError`` naming the array) an array of ``which`` whose declared shape
    an edge-probabilities file over ``n_vars`` variables cannot have, before loading it."""
    expected = _expected_shapes(n_vars)
    for name in sorted(which & set(shapes)):
        shape, dtype = shapes[name]
        if name in ("names", "names_json", "provenance_json"):
            size = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if size > _MAX_TEXT_BYTES or (name != "names" and shape != ()):
                raise InputError(f"{path}: array {name!r} declares shape {shape} of {dtype}; "
                                 "not the text of an edge-probabilities file")
            continue
        if name not in expected:
            continue
        ndim, columns, most = expected[name]
        if name == "n_boot" and shape in ((), (1,)):
            continue
        bad = (len(shape) != ndim or (columns is not None and shape[1] not in columns)
               or (most is not None and shape[0] > most)
               or (name == "pair_features" and shape[1] > _MAX_FEATURES))
        if bad:
            what = [f"at most {most} rows"] if most is not None else []
            what += [f"{' or '.join(map(str, columns))} columns"] if columns else []
            raise InputError(f"{path}: array {name!r} has shape {shape}; an edge-probabilities "
                             f"file over {n_vars} variables holds a {ndim}-d array there"
                             + (f" ({', '.join(what)})" if what else ""))
    if n_vars is not None and {"probs", "pairs"} <= set(shapes):
        if shapes["probs"][0][0] != shapes["pairs"][0][0]:
            raise InputError(f"{path}: {shapes['probs'][0][0]} rows of 'probs' for "
                             f"{shapes['pairs'][0][0]} 'pairs'")


def read_npz_features(path: Path, n_pairs: int) -> np.ndarray | None:
    """The optional ``pair_features`` array of an edge-probabilities ``.npz`` (one row per
    pair), or ``None``."""
    features = read_npz_arrays(path, optional=("pair_features",)).get("pair_features")
    if features is None:
        return None
    if features.ndim != 2 or len(features) != n_pairs:
        raise InputError(f"{path}: 'pair_features' must have one row per pair ({n_pairs}), "
                         f"got shape {features.shape}")
    return features


def _provenance(value, where) -> dict | None:
    """A recorded provenance (a JSON object), or an ``InputError`` naming ``where``."""
    if value is not None and not isinstance(value, dict):
        raise InputError(f"{where}: 'provenance' must be a JSON object")
    return value


def table_columns(header) -> tuple[str, ...]:
    """The probability columns of a table with the columns ``header``: a PAG's when it
    has them all, else the CPDAG's edge types."""
    return (PAG_PROBABILITY_COLUMNS if set(PAG_PROBABILITY_COLUMNS) <= set(header)
            else PROBABILITY_COLUMNS)


def read_csv(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, int, dict | None]:
    """Names, pairs, probabilities (columns :func:`table_columns` of the file's header),
    n_boot and provenance."""
    # Only the leading '#' lines are comments: they are consumed here and pandas reads
    # the rest (its skiprows miscounts lines holding quotes), so a '#' inside a name
    # survives; names such as "NA" or "" stay names.
    comments, frame = read_csv_file(
        path, comments=True, allow_nul=True, dtype={"a": str, "b": str}, keep_default_na=False,
        na_values={c: ["", "nan", "NaN"] for c in set(PROBABILITY_COLUMNS)
                   | set(PAG_PROBABILITY_COLUMNS)},
    )
    columns = table_columns(frame.columns)
    names, n_boot = _csv_header(path, comments)
    meta = _sidecar_entry(path, frame)
    provenance = None
    if meta is not None:
        names, n_boot = meta["names"], int(meta.get("n_boot", 0))
        provenance = _provenance(meta.get("provenance"), sidecar_path(path))
    missing = [c for c in ("a", "b", *columns) if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing columns {', '.join(missing)}")
    blank = np.flatnonzero(frame[["a", "b"]].isna().any(axis=1).to_numpy())
    if len(blank):
        raise InputError(f"{path}: data row {blank[0] + 1} has no variable name in a or b")
    if names is None:
        both = np.column_stack([frame["a"].to_numpy(), frame["b"].to_numpy()]).ravel()
        names = list(dict.fromkeys(both.tolist()))
    index = {n: k for k, n in enumerate(names)}
    unknown = sorted(set(frame["a"]).union(frame["b"]) - set(index))
    if unknown:
        raise InputError(f"{path}: unknown variables {', '.join(map(repr, unknown[:10]))}")
    a = frame["a"].map(index).to_numpy(np.int64)
    b = frame["b"].map(index).to_numpy(np.int64)
    try:
        probs = frame[list(columns)].to_numpy(np.float64)
    except (TypeError, ValueError) as err:
        raise InputError(f"{path}: probability columns must be numbers: {err}") from None
    swap = a > b
    probs[swap] = probs[swap][:, list(_SWAPS[columns])]
    if meta is not None and meta.get("frequencies") and n_boot:
        probs = np.round(probs * n_boot) / n_boot  # multiples of 1/n_boot, printed to 8 digits
    pairs = np.column_stack([np.minimum(a, b), np.maximum(a, b)])
    seen = seen_rows(probs)
    return names, pairs[seen], probs[seen], n_boot, provenance


def seen_rows(probs: np.ndarray) -> np.ndarray:
    """Which rows differ from ``1, 0, 0, 0`` (never adjacent: every unlisted pair's row)."""
    return (probs[:, 0] != 1) | (probs[:, 1:] != 0).any(axis=1)


def _sidecar_entry(path: Path, frame) -> dict | None:
    """The sidecar's entry for the CSV at ``path`` as it is now. A sidecar written for
    other content (the CSV was edited, or replaced by another program) is stale: its
    names are kept if they cover the CSV's, its values are not rounded, with a warning."""
    meta = _read_sidecar(path)
    if meta is None:
        return None
    if "sha256" not in meta:  # version 1: no checksum, so the values are the check
        if not meta.get("frequencies") or _on_frequency_grid(frame, int(meta["n_boot"])):
            return meta
    else:
        digest = file_digest(path)
        for entry in (meta, meta.get("previous")):
            if isinstance(entry, dict) and entry.get("sha256") == digest:
                return entry
    written: set = set()
    if {"a", "b"} <= set(frame.columns):
        written = set(frame["a"].dropna()).union(frame["b"].dropna())
    warnings.warn(f"{sidecar_path(path)} does not belong to {path} (the CSV changed after it "
                  "was written); its values are read as written, not rounded to multiples "
                  "of 1/n_boot", UserWarning, stacklevel=4)
    names = meta["names"] if written <= set(meta["names"]) else None
    return {"names": names, "n_boot": meta.get("n_boot", 0), "frequencies": False}


def _on_frequency_grid(frame, n_boot: int) -> bool:
    """True if every probability in ``frame`` is a multiple of 1/``n_boot`` as
    :func:`write_csv` prints it (8 significant digits): what a version-1 sidecar's
    ``frequencies`` promises of the CSV it was written with."""
    import pandas as pd

    columns = table_columns(frame.columns)
    if n_boot < 1 or not set(columns) <= set(frame.columns):
        return False
    values = frame[list(columns)].apply(pd.to_numeric, errors="coerce")
    values = values.to_numpy(np.float64).ravel()
    values = values[~np.isnan(values)]
    printed = [float(f"{v:.8g}") for v in np.round(values * n_boot) / n_boot]
    return bool(np.array_equal(printed, values))


def _csv_header(path: Path, comments: list[str]) -> tuple[list[str] | None, int]:
    """Variable names and n_boot from the ``# names=…`` and ``# … n_boot=N`` lines."""
    names, n_boot = None, 0
    for line in comments:
        if line.startswith(" names="):
            value = line[len(" names="):]
            names = (parse_json(value, f"{path}: the '# names=' line")
                     if value.startswith("[") else value.split("\t"))
            if not all(isinstance(n, str) for n in names):
                raise InputError(f"{path}: the '# names=' line must list strings")
        elif "n_boot=" in line:
            value = line.split("n_boot=", 1)[1].split()
            if not value or not value[0].isdigit():
                raise InputError(f"{path}: the '# … n_boot=' line needs a whole number, "
                                 f"got {line.strip()!r}")
            n_boot = int(value[0])
    return names, n_boot
