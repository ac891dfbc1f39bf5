"""The known relations' own results: what the bootstrap and the calibrated map say of the
pairs the scientist stated (docs/design.md §9.3; issue 41 item 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from causalcal.edgecal.calset import CalibrationSet

__all__ = ["contradicted_line", "known_results"]

#: the known relations the summary names as the most contradicted by the data
CONTRADICTED_SHOWN = 3


def known_results(calset: CalibrationSet, Q: np.ndarray, pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per known pair of the fit: ``stated`` (the relation as written), ``p_stated``
    and ``boot_stated`` (the calibrated and bootstrap probability of the classes the
    statement allows: for ``a -> b`` "a → b or a — b", for ``none`` "no edge", for
    ``a causes b`` "a causes b"), then the kind's table columns of the pair
    (:meth:`RelationKind.frame`). Sorted by ``boot_stated``, the relations the data
    contradict most first. ``Q``: every pair's calibrated probabilities, pair order."""
    kind, raw = calset.inputs.kind, calset.inputs.probabilities
    frame = kind.frame(raw, Q, calset.keys)
    k = kind.n_classes
    stated = [rel if "; " in rel else f"{a} {rel} {b}"
              for a, b, rel in zip(pairs["a"], pairs["b"], pairs["relation"].astype(str),
                                   strict=True)]
    frame.insert(2, "stated", stated)
    frame.insert(3, "p_stated", (Q[calset.keys][:, :k] * calset.Y).sum(axis=1))
    frame.insert(4, "boot_stated", (calset.X[:, :k] * calset.Y).sum(axis=1))
    order = np.argsort(frame["boot_stated"].to_numpy(), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def contradicted_line(results: pd.DataFrame) -> str:
    """The summary line naming the known relations the bootstrap contradicts most (those
    it finds in fewer than half of the replicates)."""
    low = results[results["boot_stated"] < 0.5].head(CONTRADICTED_SHOWN)
    if not len(low):
        return ("known relations: the bootstrap finds each of them in at least half of the "
                "replicates")
    shown = "; ".join(f"{r.stated} {r.boot_stated:.2f} (calibrated {r.p_stated:.2f})"
                      for r in low.itertuples(index=False))
    n = int((results["boot_stated"] < 0.5).sum())
    return (f"known relations the data contradict most (bootstrap frequency of the relation "
            f"as stated; {n} of {len(results)} below 0.5): {shown}")
