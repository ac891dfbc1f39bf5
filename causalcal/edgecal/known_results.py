"""The known relations' own results: what the bootstrap and the calibrated map say of the
pairs the scientist stated (docs/design.md §9.3, §9.14; issue 41 item 2, issue 48 item 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from causalcal.association import Association, dependence_words
from causalcal.edgecal.calset import CalibrationSet

__all__ = ["least_found_line", "known_results", "stated_relations"]

#: the known relations the summary names as found least often by the bootstrap
LEAST_FOUND_SHOWN = 3


def known_results(calset: CalibrationSet, Q: np.ndarray, pairs: pd.DataFrame,
                  associations: list[Association] | None = None) -> pd.DataFrame:
    """One row per known pair of the fit: ``stated`` (the relation as written), ``source``
    (``answer`` for an answer to a suggested pair, ``own`` for a pair the scientist
    added), ``p_stated`` and ``boot_stated`` (the calibrated and bootstrap probability of
    the classes the statement allows: for ``a -> b`` "a → b or a — b", for ``none`` "no
    edge", for ``a causes b`` "a causes b"), ``association_p`` (the data's test of the
    pair's marginal independence, :mod:`causalcal.association`; NaN without
    ``associations``), then the kind's table columns of the pair
    (:meth:`RelationKind.frame`). Sorted by ``boot_stated``, the relations the bootstrap
    finds least often first. ``Q``: every pair's calibrated probabilities, pair order."""
    kind, raw = calset.inputs.kind, calset.inputs.probabilities
    frame = kind.frame(raw, Q, calset.keys)
    k = kind.n_classes
    stated = stated_relations(pairs)
    answered = (np.zeros(len(calset), bool) if calset.rates is None
                else ~np.isnan(calset.rates))
    frame.insert(2, "stated", stated)
    frame.insert(3, "source", np.where(answered, "answer", "own"))
    frame.insert(4, "p_stated", (Q[calset.keys][:, :k] * calset.Y).sum(axis=1))
    frame.insert(5, "boot_stated", (calset.X[:, :k] * calset.Y).sum(axis=1))
    frame.insert(6, "association_p", np.nan if associations is None else
                 [a.p_value for a in associations])
    order = np.argsort(frame["boot_stated"].to_numpy(), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def stated_relations(pairs: pd.DataFrame) -> list[str]:
    """Each known pair's relation as the scientist wrote it (``a -> b``; a causal pair's
    statements joined by a semicolon)."""
    return [rel if "; " in rel else f"{a} {rel} {b}"
            for a, b, rel in zip(pairs["a"], pairs["b"], pairs["relation"].astype(str),
                                 strict=True)]


def least_found_line(results: pd.DataFrame) -> str | None:
    """The summary line naming the scientist's own known relations the bootstrap finds
    least often (in fewer than half of the replicates), with the data's marginal
    association of each: a relation the search misses is not one the data contradict
    (answers to suggested pairs have their own recheck list); None without own pairs."""
    own = results[results["source"] == "own"]
    if not len(own):
        return None
    low = own[own["boot_stated"] < 0.5]
    if not len(low):
        return ("known relations: the bootstrap finds each of them in at least half of the "
                "replicates")
    shown = "; ".join(f"{r.stated} {r.boot_stated:.2f} (calibrated {r.p_stated:.2f}"
                      + ("" if not np.isfinite(r.association_p) else
                         f"; {dependence_words(r.association_p)}") + ")"
                      for r in low.head(LEAST_FOUND_SHOWN).itertuples(index=False))
    n = len(low)
    which = (f"{n} of {len(own)} below 0.5" if n <= LEAST_FOUND_SHOWN else
             f"{n} of {len(own)} below 0.5, the {LEAST_FOUND_SHOWN} lowest shown")
    return (f"known relations the bootstrap finds least often (its frequency of the "
            f"relation as stated; {which}): {shown}")
