"""Reading true or known relations (``a,b,relation`` CSV) as dense edge-type labels."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from causalcal.edges import EdgeType, n_pairs, pair_index

__all__ = ["pairs_frame", "truth_from_csv"]


def truth_from_csv(path: str | os.PathLike | pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """Dense int8 :class:`EdgeType` label of every pair of ``names`` (row-major pair order).

    ``path`` holds columns ``a,b,relation`` with relation ``->``, ``<-``, ``--`` or ``none``
    (as ``causalcal simulate`` writes ``truth.csv``); pairs not listed are NONE. Unknown
    variables, unknown relations and conflicting duplicates are errors naming the file.
    """
    from .discover import read_known_pairs

    pairs = read_known_pairs(path, list(names))
    labels = np.zeros(n_pairs(len(names)), dtype=np.int8)
    keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), len(names))
    labels[keys] = pairs["label"].to_numpy(np.int8)
    return labels


def pairs_frame(keys: np.ndarray, labels: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """``a,b,relation`` rows for pair positions ``keys`` with edge types ``labels``."""
    from causalcal.edges import pair_from_index

    i, j = pair_from_index(np.asarray(keys, dtype=np.int64), len(names))
    arr = np.asarray(names, dtype=object)
    symbols = np.array([t.symbol for t in EdgeType], dtype=object)
    return pd.DataFrame({"a": arr[i], "b": arr[j], "relation": symbols[np.asarray(labels)]})
