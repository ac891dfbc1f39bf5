"""Writing a pair the other way round (docs/design.md §3): the edge type of (B, A) is that
of (A, B) with forward and backward swapped, the permutation σ = (0, 2, 1, 3) of
``(none, A → B, B → A, A — B)``; σ is its own inverse."""

from __future__ import annotations

import numpy as np

__all__ = ["CAUSAL_SWAP", "EDGE_SWAP", "swap_directions", "swap_labels"]

#: The edge-type columns of a pair written the other way round: forward <-> backward.
EDGE_SWAP = (0, 2, 1, 3)
#: The causal-relation columns (neither, A causes B, B causes A) of a pair written the
#: other way round (docs/design.md §3.1).
CAUSAL_SWAP = (0, 2, 1)


def swap_directions(probs: np.ndarray) -> np.ndarray:
    """``probs`` (…, 4) with its forward and backward columns exchanged (a copy)."""
    return np.asarray(probs)[..., list(EDGE_SWAP)]


def swap_labels(labels: np.ndarray) -> np.ndarray:
    """Edge-type labels of the pairs written the other way round."""
    return np.asarray(EDGE_SWAP)[np.asarray(labels)]
