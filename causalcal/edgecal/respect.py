"""Calibrated output that never contradicts the user's background knowledge
(docs/design.md §9.10; issue 41 item 1)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from causalcal.edgecal.kinds import RelationKind
from causalcal.knowledge import Knowledge
from causalcal.pairs import pair_from_index

__all__ = ["forced_by_knowledge", "respect_knowledge"]


def respect_knowledge(kind: RelationKind, Q: np.ndarray, knowledge: Knowledge | None,
                      names: list[str]) -> np.ndarray:
    """Every pair's probabilities ``Q`` (pair order) with the classes the background
    knowledge excludes (:meth:`RelationKind.excluded`) at exactly 0, their mass shared by
    the allowed classes in proportion (evenly where those have none): no output
    contradicts the user's own constraints, whatever map was written."""
    if knowledge is None or knowledge.is_empty:
        return Q
    i, j = pair_from_index(np.arange(len(Q)), len(names))
    excluded = kind.excluded(knowledge.bind(names), i, j)
    rows = np.flatnonzero(excluded.any(axis=1))
    if not len(rows):
        return Q
    Q = np.array(Q, dtype=np.float64)
    kept = np.where(excluded[rows], 0.0, Q[rows])
    mass = kept.sum(axis=1)
    allowed = (~excluded[rows]).astype(np.float64)
    even = allowed / np.maximum(allowed.sum(axis=1, keepdims=True), 1.0)
    Q[rows] = np.where(mass[:, None] > 0, kept / np.where(mass > 0, mass, 1.0)[:, None], even)
    return Q


def forced_by_knowledge(kind: RelationKind, pairs: pd.DataFrame, knowledge: Knowledge | None,
                        names: list[str]) -> np.ndarray:
    """(n,) bool: the known relations ``pairs`` (as the kind reads them) that the
    background knowledge already forces: every class it leaves possible is one the
    statement allows (``none`` between two variables whose arcs are both forbidden). Such
    a statement is no evidence about the bootstrap (docs/design.md §9.3)."""
    if knowledge is None or knowledge.is_empty or not len(pairs):
        return np.zeros(len(pairs), dtype=bool)
    allowed = kind.label_sets(pairs)[1]
    i, j = pairs["i"].to_numpy(np.int64), pairs["j"].to_numpy(np.int64)
    possible = ~kind.excluded(knowledge.bind(names), i, j)
    return ~(possible & ~allowed).any(axis=1)
