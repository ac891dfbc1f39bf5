"""Edge types of an unordered variable pair, the row-major list of all pairs, and a pair
written the other way round.

Thesis §6.2.3: for every pair (A, B) the bootstrap counts four edge classes,
``A ⋯ B``, ``A → B``, ``B → A`` and ``A — B``. docs/design.md §3 fixes their order. This
module sits below :mod:`causalcal.graph` and :mod:`causalcal.edges` (docs/design.md §2),
which re-exports its names.

Writing a pair the other way round (docs/design.md §3): the edge type of (B, A) is that
of (A, B) with forward and backward swapped, the permutation σ = (0, 2, 1, 3) of
``(none, A → B, B → A, A — B)``; σ is its own inverse (:data:`EDGE_SWAP`,
:func:`swap_directions`, :func:`swap_labels`; :data:`CAUSAL_SWAP` for the causal classes).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from causalcal.errors import InputError

__all__ = ["CAUSAL_RELATION_SYMBOLS", "CAUSAL_SWAP", "EDGE_SWAP", "RELATION_SYMBOLS", "CausalType",
           "EdgeType", "PAG_EDGE_SYMBOLS", "PAG_SWAP", "PAGEdgeType", "n_pairs",
           "pair_arguments", "pair_from_index", "pair_index", "swap_directions", "swap_labels"]

RELATION_SYMBOLS = ("none", "->", "<-", "--")
#: Relations of known causal statements in ``a,b,relation`` files (docs/design.md §3):
#: a causes b (directly or through other variables), a has no causal effect on b.
CAUSAL_RELATION_SYMBOLS = ("causes", "not-causes")


class EdgeType(IntEnum):
    """Edge type of the unordered pair (A, B) with index(A) < index(B)."""

    NONE = 0
    FORWARD = 1
    BACKWARD = 2
    UNDIRECTED = 3

    @property
    def symbol(self) -> str:
        """The relation string used in CSV files: ``none``, ``->``, ``<-`` or ``--``."""
        return RELATION_SYMBOLS[self.value]

    @classmethod
    def from_symbol(cls, text: str) -> EdgeType:
        """Parse ``none``, ``->``, ``<-`` or ``--`` (surrounding blanks ignored)."""
        key = str(text).strip().lower()
        if key not in RELATION_SYMBOLS:
            raise InputError(
                f"unknown relation {text!r}; expected one of {', '.join(RELATION_SYMBOLS)}"
            )
        return cls(RELATION_SYMBOLS.index(key))


#: The PAG edge types of a pair (A, B) in Tetrad's notation, read from A to B
#: (docs/design.md §5.1): no edge, then the six edges a PAG without selection bias has.
PAG_EDGE_SYMBOLS = ("none", "o-o", "o->", "<-o", "-->", "<--", "<->")


class PAGEdgeType(IntEnum):
    """PAG edge type of the unordered pair (A, B) with index(A) < index(B) (issue 40):
    the marks at both ends. Without selection bias a tail at one end comes with an
    arrowhead at the other, so these seven are all there are (Zhang 2008)."""

    NONE = 0
    CIRCLE_CIRCLE = 1  # A o-o B
    CIRCLE_ARROW = 2   # A o-> B
    ARROW_CIRCLE = 3   # A <-o B
    TAIL_ARROW = 4     # A --> B
    ARROW_TAIL = 5     # A <-- B
    ARROW_ARROW = 6    # A <-> B

    @property
    def symbol(self) -> str:
        return PAG_EDGE_SYMBOLS[self.value]


class CausalType(IntEnum):
    """Causal relation of the unordered pair (A, B) with index(A) < index(B)
    (docs/design.md §3.1): A causes B when A is an ancestor of B in the DAG, directly or
    through other variables. The order mirrors :class:`EdgeType`: "neither" first, then
    the two directions, which swap when the pair is written the other way round."""

    NEITHER = 0
    FORWARD = 1   # A causes B
    BACKWARD = 2  # B causes A


def pair_arguments(i, j, n_vars: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """``i`` and ``j`` broadcast together and flattened (int64), and their shape; an
    ``InputError`` for a pair of one variable or an index outside ``0..n_vars − 1``."""
    i, j = np.broadcast_arrays(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64))
    shape = i.shape
    i, j = i.ravel(), j.ravel()
    if np.any(i == j):
        raise InputError("a pair needs two different variables")
    if i.size and (min(i.min(), j.min()) < 0 or max(i.max(), j.max()) >= n_vars):
        raise InputError(f"variable index outside 0..{n_vars - 1}")
    return i, j, shape


def n_pairs(n_vars: int) -> int:
    """Number of unordered pairs of ``n_vars`` variables."""
    return n_vars * (n_vars - 1) // 2


def pair_index(i: np.ndarray, j: np.ndarray, n_vars: int) -> np.ndarray:
    """Row-major position of pairs (i, j), i < j, in the list of all pairs.

    Pair (0, 1) is at 0, (0, 2) at 1, …, (0, V−1) at V−2, (1, 2) at V−1, …
    The caller guarantees ``0 <= i < j < n_vars`` (not checked, for speed).
    """
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    return i * (2 * n_vars - i - 1) // 2 + (j - i - 1)


def pair_from_index(k: np.ndarray, n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`pair_index`: the pairs (i, j), i < j, at positions ``k``.

    ``k`` may be a scalar or an array (the results then have its shape); every
    position must lie in ``0 … n_pairs(n_vars) − 1``.
    """
    k = np.asarray(k, dtype=np.int64)
    if k.size and (k.min() < 0 or k.max() >= n_pairs(n_vars)):
        bad = k.ravel()[np.flatnonzero((k.ravel() < 0) | (k.ravel() >= n_pairs(n_vars)))[0]]
        raise InputError(f"pair position {bad} outside 0..{n_pairs(n_vars) - 1}")
    # rows start at s(i) = i*(2V-i-1)/2; solve s(i) <= k with the quadratic formula.
    b = 2 * n_vars - 1
    disc = np.maximum(b * b - 8.0 * k, 0.0)
    i = np.asarray(np.floor((b - np.sqrt(disc)) / 2), dtype=np.int64)
    # float rounding can put i one off at large V; correct both ways.
    i = np.where(i * (2 * n_vars - i - 1) // 2 > k, i - 1, i)
    i = np.where((i + 1) * (2 * n_vars - i - 2) // 2 <= k, i + 1, i)
    j = k - i * (2 * n_vars - i - 1) // 2 + i + 1
    return i, j


#: The edge-type columns of a pair written the other way round: forward <-> backward.
EDGE_SWAP = (0, 2, 1, 3)
#: The causal-relation columns (neither, A causes B, B causes A) of a pair written the
#: other way round (docs/design.md §3.1).
CAUSAL_SWAP = (0, 2, 1)
#: The PAG edge-type columns of a pair written the other way round (o-> <-> <-o, --> <-> <--).
PAG_SWAP = (0, 1, 3, 2, 5, 4, 6)


def swap_directions(probs: np.ndarray) -> np.ndarray:
    """``probs`` (…, 4) with its forward and backward columns exchanged (a copy)."""
    return np.asarray(probs)[..., list(EDGE_SWAP)]


def swap_labels(labels: np.ndarray) -> np.ndarray:
    """Edge-type labels of the pairs written the other way round."""
    return np.asarray(EDGE_SWAP)[np.asarray(labels)]
