"""Reading true or known relations (``a,b,relation`` CSV) as dense edge-type labels."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from causalcal.edges import EdgeType, n_pairs, pair_from_index, pair_index
from causalcal.errors import InputError

__all__ = ["pairs_frame", "truth_frame", "truth_from_csv"]


def truth_from_csv(path: str | os.PathLike | pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """Dense int8 :class:`EdgeType` label of every pair of ``names`` (row-major pair order).

    ``path`` holds columns ``a,b,relation`` with relation ``->``, ``<-``, ``--`` or ``none``
    (as ``causalcal simulate`` writes ``truth.csv``); pairs not listed are NONE. Every
    variable of ``names`` must appear in some row (a variable without any edge in a
    ``none`` row, see :func:`truth_frame`): a file covering fewer variables would
    silently count all their pairs as NONE. Unknown or missing variables, unknown
    relations and conflicting duplicates are errors naming the file.
    """
    from causalcal.workflow.discover import read_known_pairs

    names = list(names)
    pairs = read_known_pairs(path, names)
    listed = np.zeros(len(names), dtype=bool)
    listed[pairs["i"].to_numpy()] = listed[pairs["j"].to_numpy()] = True
    if len(names) > 1 and not listed.all():
        source = "truth" if isinstance(path, pd.DataFrame) else str(path)
        absent = [names[k] for k in np.flatnonzero(~listed)]
        shown = ", ".join(map(repr, absent[:5])) + (" …" if len(absent) > 5 else "")
        raise InputError(
            f"{source}: covers {int(listed.sum())} of the {len(names)} variables ({len(absent)} "
            f"never appear: {shown}); their pairs would all count as 'none'. Use the truth "
            "of these variables, or list a variable without any edge in a row with "
            "relation none (as causalcal simulate does)"
        )
    labels = np.zeros(n_pairs(len(names)), dtype=np.int8)
    keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), len(names))
    labels[keys] = pairs["label"].to_numpy(np.int8)
    return labels


def pairs_frame(keys: np.ndarray, labels: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """``a,b,relation`` rows for pair positions ``keys`` with edge types ``labels``."""
    i, j = pair_from_index(np.asarray(keys, dtype=np.int64), len(names))
    arr = np.asarray(names, dtype=object)
    symbols = np.array([t.symbol for t in EdgeType], dtype=object)
    return pd.DataFrame({"a": arr[i], "b": arr[j], "relation": symbols[np.asarray(labels)]})


def truth_frame(keys: np.ndarray, labels: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """The ``truth.csv`` table of a graph: its adjacent pairs (positions ``keys``, see
    :func:`~causalcal.edges.pair_index`) with their ``labels``, plus one ``none`` row for
    each variable without any edge (paired with the first other variable), so that the
    file names every variable; in pair order."""
    n_vars = len(names)
    keys = np.asarray(keys, dtype=np.int64)
    labels = np.asarray(labels, dtype=np.int64)
    i, j = pair_from_index(keys, n_vars)
    isolated = np.setdiff1d(np.arange(n_vars), np.concatenate([i, j])) if n_vars > 1 else []
    if len(isolated):
        partner = np.where(isolated == 0, 1, 0)
        lo, hi = np.minimum(isolated, partner), np.maximum(isolated, partner)
        extra = np.setdiff1d(pair_index(lo, hi, n_vars), keys)
        keys = np.concatenate([keys, extra])
        labels = np.concatenate([labels, np.zeros(len(extra), dtype=np.int64)])
    order = np.argsort(keys, kind="stable")
    return pairs_frame(keys[order], labels[order], names)
