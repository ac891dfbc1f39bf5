"""Reading and writing edge-probability files for :class:`causalcal.edges.EdgeProbabilities`.

``.npz`` holds everything exactly. A ``.csv`` is a plain table (one row per stored pair)
that ``pandas.read_csv`` reads as it is; its metadata live in the JSON sidecar
``PATH.json``: ``format``, ``names`` (all variables, in order), ``n_boot`` and
``frequencies`` (true when every value is a multiple of 1/n_boot, which the reader
restores exactly from the 8 printed digits). CSVs of earlier versions, whose metadata
were leading ``#`` lines, still read.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from causalcal._edge_swap import swap_directions
from causalcal._io import atomic_write, read_csv_file
from causalcal.errors import InputError

__all__ = ["PROBABILITY_COLUMNS", "SIDECAR_FORMAT", "read_csv", "read_npz", "sidecar_path",
           "write_sidecar"]

PROBABILITY_COLUMNS = ("p_none", "p_forward", "p_backward", "p_undirected")
SIDECAR_FORMAT = "causalcal.edge_probabilities"


def sidecar_path(path: str | os.PathLike) -> Path:
    """The JSON metadata file beside a probabilities CSV: ``PATH.json``."""
    return Path(f"{path}.json")


def write_sidecar(path: str | os.PathLike, names: list[str], n_boot: int,
                  frequencies: bool) -> None:
    meta = {"format": SIDECAR_FORMAT, "version": 1, "file": Path(path).name,
            "n_vars": len(names), "n_boot": int(n_boot), "frequencies": bool(frequencies),
            "columns": ["a", "b", *PROBABILITY_COLUMNS], "names": list(names)}
    with atomic_write(sidecar_path(path), "w", encoding="utf-8") as handle:
        json.dump(meta, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


def _read_sidecar(path: Path) -> dict | None:
    side = sidecar_path(path)
    if not side.exists():
        return None
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise InputError(f"{side}: not a JSON file ({err})") from None
    if not isinstance(meta, dict) or meta.get("format") != SIDECAR_FORMAT:
        raise InputError(f"{side}: not a causalcal metadata file (no format "
                         f"{SIDECAR_FORMAT!r})")
    names = meta.get("names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(f"{side}: 'names' must list strings")
    n_boot = meta.get("n_boot", 0)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
        raise InputError(f"{side}: 'n_boot' must be a whole number")
    return meta


def read_npz(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, int]:
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic not in (b"PK\x03\x04", b"PK\x05\x06"):
        what = "it is empty" if not magic else "it is not a zip archive"
        raise InputError(f"{path}: not a .npz file ({what})")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in ("pairs", "probs", "n_boot") if k not in z.files]
            if missing or not ({"names", "names_json"} & set(z.files)):
                raise InputError(f"{path}: not an edge-probabilities file (arrays "
                                 f"{', '.join(z.files) or 'none'})")
            if "names_json" in z.files:
                names = json.loads(str(z["names_json"]))
                if not isinstance(names, list):
                    raise InputError(f"{path}: 'names_json' is not a JSON list of names")
            else:
                names = [str(n) for n in z["names"]]
            return names, z["pairs"], z["probs"], int(z["n_boot"])
    except InputError:
        raise
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as err:
        reason = " ".join(str(err).split()) or type(err).__name__
        raise InputError(f"{path}: not a readable .npz file ({reason})") from None


def read_npz_features(path: Path, n_pairs: int) -> np.ndarray | None:
    """The optional ``pair_features`` array of an edge-probabilities ``.npz`` (one row per
    pair), or ``None``."""
    with np.load(path, allow_pickle=False) as z:
        if "pair_features" not in z.files:
            return None
        features = z["pair_features"]
    if features.ndim != 2 or len(features) != n_pairs:
        raise InputError(f"{path}: 'pair_features' must have one row per pair ({n_pairs}), "
                         f"got shape {features.shape}")
    return features


def read_csv(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, int]:
    # Only the leading '#' lines are comments: they are consumed here and pandas reads
    # the rest (its skiprows miscounts lines holding quotes), so a '#' inside a name
    # survives; names such as "NA" or "" stay names.
    comments, frame = read_csv_file(
        path, comments=True, allow_nul=True, dtype={"a": str, "b": str}, keep_default_na=False,
        na_values={c: ["", "nan", "NaN"] for c in PROBABILITY_COLUMNS},
    )
    names, n_boot = _csv_header(path, comments)
    meta = _read_sidecar(path)
    if meta is not None:
        names, n_boot = meta["names"], int(meta.get("n_boot", 0))
    missing = [c for c in ("a", "b", *PROBABILITY_COLUMNS) if c not in frame.columns]
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
        probs = frame[list(PROBABILITY_COLUMNS)].to_numpy(np.float64)
    except (TypeError, ValueError) as err:
        raise InputError(f"{path}: probability columns must be numbers: {err}") from None
    swap = a > b
    probs[swap] = swap_directions(probs[swap])
    if meta is not None and meta.get("frequencies") and n_boot:
        probs = np.round(probs * n_boot) / n_boot  # multiples of 1/n_boot, printed to 8 digits
    return names, np.column_stack([np.minimum(a, b), np.maximum(a, b)]), probs, n_boot


def _csv_header(path: Path, comments: list[str]) -> tuple[list[str] | None, int]:
    """Variable names and n_boot from the ``# names=…`` and ``# … n_boot=N`` lines."""
    names, n_boot = None, 0
    for line in comments:
        if line.startswith(" names="):
            value = line[len(" names="):]
            try:
                names = json.loads(value) if value.startswith("[") else value.split("\t")
            except ValueError as err:
                raise InputError(f"{path}: the '# names=' line is not a JSON list "
                                 f"({err})") from None
            if not all(isinstance(n, str) for n in names):
                raise InputError(f"{path}: the '# names=' line must list strings")
        elif "n_boot=" in line:
            value = line.split("n_boot=", 1)[1].split()
            if not value or not value[0].isdigit():
                raise InputError(f"{path}: the '# … n_boot=' line needs a whole number, "
                                 f"got {line.strip()!r}")
            n_boot = int(value[0])
    return names, n_boot
