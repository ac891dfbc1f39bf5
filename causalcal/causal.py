"""Three-class causal probabilities of every variable pair (docs/design.md §6.1).

:class:`CausalProbabilities` is the causal counterpart of
:class:`~causalcal.edges.EdgeProbabilities`: for every unordered pair (A, B),
index(A) < index(B), the probabilities of "neither causes the other", "A causes B" and
"B causes A" (columns in :class:`~causalcal.pairs.CausalType` order), dense in row-major
pair order. The raw ones come from a bootstrap's ancestral counts
(:func:`~causalcal.ancestry.raw_causal_probabilities`); calibrated ones from the calibrate
stage (:mod:`causalcal.edgecal`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalcal.ancestry import AncestralCounts, raw_causal_probabilities
from causalcal.errors import InputError
from causalcal.pairs import CAUSAL_SWAP, n_pairs, pair_arguments, pair_index

__all__ = ["CausalProbabilities"]


class CausalProbabilities:
    """Probabilities (neither, A causes B, B causes A) of every pair, in pair order.

    Parameters
    ----------
    names : variable names.
    probs : (V(V−1)/2, 3) rows summing to 1, stored as float32.
    n_boot : bootstrap replicates behind them (0 if unknown).
    """

    #: columns per pair
    n_classes = 3
    #: values a replicate can add to a class: 1 (definite) or ½ (possible only)
    counts_per_replicate = 2
    #: the swap of the columns when a pair is written the other way round
    swap = CAUSAL_SWAP

    def __init__(self, names: Sequence[str], probs: np.ndarray, n_boot: int = 0) -> None:
        self.names = [str(n) for n in names]
        probs = np.asarray(probs, dtype=np.float32)
        if probs.shape != (n_pairs(len(self.names)), 3):
            raise InputError(f"causal probabilities must have shape "
                             f"({n_pairs(len(self.names))}, 3), got {probs.shape}")
        if not np.all(np.isfinite(probs)) or np.any(probs < 0) or (
                len(probs) and np.max(np.abs(probs.sum(axis=1) - 1.0)) > 1e-4):
            raise InputError("causal probabilities must be rows of non-negative numbers "
                             "summing to 1")
        self.probs = probs
        self.n_boot = int(n_boot)

    @classmethod
    def from_counts(cls, counts: AncestralCounts, names: Sequence[str]) -> CausalProbabilities:
        """The raw probabilities of every pair from a bootstrap's ancestral counts."""
        if counts.definite.shape[0] != len(names):
            raise InputError(f"ancestral counts are of {counts.definite.shape[0]} variables, "
                             f"not {len(names)}")
        i, j = np.triu_indices(len(names), 1)
        return cls(names, raw_causal_probabilities(counts, i, j), counts.n_boot)

    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def n_pairs(self) -> int:
        return n_pairs(self.n_vars)

    def __len__(self) -> int:
        """Rows stored: every pair (dense)."""
        return len(self.probs)

    def __repr__(self) -> str:
        return f"CausalProbabilities(n_vars={self.n_vars}, n_boot={self.n_boot})"

    def dense(self, dtype: type = np.float32) -> np.ndarray:
        """All pairs' rows (V(V−1)/2, 3) in row-major pair order."""
        return self.probs.astype(dtype, copy=True)

    def column(self, k: int) -> np.ndarray:
        """Class ``k``'s probability of every pair (float32, pair order)."""
        return self.probs[:, k]

    def distinct_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct rows of all pairs (float64), how many pairs have each, and which
        row each pair has (pair order)."""
        unique, inverse, counts = np.unique(self.probs.astype(np.float64), axis=0,
                                            return_inverse=True, return_counts=True)
        return unique, counts.astype(np.int64), np.asarray(inverse).reshape(-1)

    def scatter(self, values: np.ndarray, inverse: np.ndarray, dtype=np.float32) -> np.ndarray:
        """Every pair's row (pair order) of ``values`` given per distinct row."""
        return values[inverse].astype(dtype)

    def lookup(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Rows (…, 3) of pairs (i, j), i ≠ j, in either order: for ``i > j`` the two
        directions are swapped, so column 1 is always "i causes j"."""
        i, j, shape = pair_arguments(i, j, self.n_vars)
        out = self.probs[pair_index(np.minimum(i, j), np.maximum(i, j), self.n_vars)]
        out = out.astype(np.float64)
        swap = i > j
        out[swap] = out[swap][:, list(CAUSAL_SWAP)]
        return out.reshape(*shape, 3)
