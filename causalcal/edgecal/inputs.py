"""The calibrator's inputs of pairs (docs/design.md §9.6).

A pair's input row is its bootstrap edge-type vector ``(p_none, p_forward, p_backward,
p_undirected)`` in float64 — or, for causal relations, its three-class vector
``(p_neither, p_a_causes_b, p_b_causes_a)`` (:class:`~causalcal.causal.CausalProbabilities`)
— optionally followed by features of the learned graphs
(thesis §6.2.6; computed by :mod:`causalcal.bootstrap.pair_features`), transformed for the
calibrator: ``log1p`` of the counts, the v-structure fraction as it is and
``sign · log1p(|gain|)`` of the pairwise gain. Features are chosen by group (a node
feature comes for A and B together); writing a pair the other way round permutes them
(:func:`feature_columns` gives that permutation for :class:`SwapEquivariant`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalcal.bootstrap.pair_features import FEATURE_NAMES, FEATURE_SWAP
from causalcal.causal import CausalProbabilities
from causalcal.edges import EdgeProbabilities, pair_from_index, pair_index
from causalcal.errors import InputError

__all__ = [
    "FEATURE_GROUPS",
    "PairInputs",
    "distinct_rows",
    "feature_columns",
    "feature_groups",
    "transform_features",
]

#: Feature groups, the unit of selection: a node feature comes for A and B together.
FEATURE_GROUPS: dict[str, tuple[int, ...]] = {
    "degree": (0, 1), "indegree": (2, 3), "common_neighbours": (4,),
    "v_structure": (5,), "pairwise_gain": (6,),
}


def transform_features(F: np.ndarray, names: tuple[str, ...] = FEATURE_NAMES) -> np.ndarray:
    """Calibrator inputs from raw features: ``log1p`` of the counts, the v-structure
    fraction as it is, ``sign · log1p(|gain|)`` of the pairwise gain (heavy-tailed)."""
    F = np.asarray(F, dtype=np.float64)
    out = np.empty_like(F)
    for k, name in enumerate(names):
        col = F[:, k]
        if name == "v_structure":
            out[:, k] = col
        elif name == "pairwise_gain":
            out[:, k] = np.sign(col) * np.log1p(np.abs(col))
        else:
            out[:, k] = np.log1p(col)
    return out


def feature_columns(groups: Sequence[str]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Columns of the feature ``groups`` (in ``FEATURE_NAMES`` order) and the swap
    permutation of that selection (for :class:`SwapEquivariant`)."""
    unknown = [g for g in groups if g not in FEATURE_GROUPS]
    if unknown:
        raise InputError(f"unknown pair feature group {unknown[0]!r}; choose from "
                         f"{', '.join(FEATURE_GROUPS)}")
    cols = np.array(sorted({c for g in groups for c in FEATURE_GROUPS[g]}), dtype=np.int64)
    where = {int(c): k for k, c in enumerate(cols)}
    return cols, tuple(where[FEATURE_SWAP[int(c)]] for c in cols)


def feature_groups(features: bool | Sequence[str] | None) -> tuple[str, ...]:
    """Feature groups asked for: ``True`` every group, ``False``/``None`` none, or the
    named groups (checked)."""
    if features is True:
        return tuple(FEATURE_GROUPS)
    groups = tuple(features or ())
    feature_columns(groups)  # unknown groups are an error now, not after the bootstrap
    return groups


def distinct_rows(probs: EdgeProbabilities | CausalProbabilities,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct probability rows of all pairs, how many pairs have each, and which
    row each stored pair has.

    Returns ``(rows (u, k), counts (u,), inverse)``. For edge types ``inverse[0]`` is the
    row of the implicit (1, 0, 0, 0) of every never-adjacent pair, ``inverse[1:]`` those
    of ``probs.probs`` in order; for causal probabilities (dense) ``inverse`` gives every
    pair's row in pair order.
    """
    if isinstance(probs, CausalProbabilities):
        unique, inverse, counts = np.unique(probs.probs.astype(np.float64), axis=0,
                                            return_inverse=True, return_counts=True)
        return unique, counts.astype(np.int64), np.asarray(inverse).reshape(-1)
    rows = np.vstack([[1.0, 0.0, 0.0, 0.0], probs.probs])
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    counts = np.bincount(inverse[1:], minlength=len(unique)).astype(np.int64)
    counts[inverse[0]] += probs.n_pairs - len(probs)
    return unique, counts, inverse


class PairInputs:
    """Every pair's calibrator input: the bootstrap probabilities (float64), then the
    chosen pair-feature groups, transformed.

    Parameters
    ----------
    probabilities : the bootstrap's :class:`EdgeProbabilities` (four edge types) or
        :class:`~causalcal.causal.CausalProbabilities` (three causal classes, no
        features); with ``groups`` it must carry ``pair_features``
        (``bootstrap_edge_probabilities(..., features=True)``).
    groups : feature groups of :data:`FEATURE_GROUPS` (empty: probabilities only).

    Attributes
    ----------
    features : (V(V−1)/2, f) transformed features in pair order, or None
    swap : their permutation when a pair is read the other way round, or None
    """

    def __init__(self, probabilities: EdgeProbabilities | CausalProbabilities,
                 groups: Sequence[str] = ()) -> None:
        self.probabilities = probabilities
        self.groups = feature_groups(groups)
        self.features: np.ndarray | None = None
        self.swap: tuple[int, ...] | None = None
        if self.groups:
            if isinstance(probabilities, CausalProbabilities):
                raise InputError("pair features are for edge types; causal relations are "
                                 "calibrated from their probabilities alone")
            if probabilities.pair_features is None:
                raise InputError("pair features were asked for, but the probabilities carry "
                                 "none: compute them with features=True (--features)")
            cols, self.swap = feature_columns(self.groups)
            self.features = transform_features(probabilities.pair_features)[:, cols]

    @property
    def n_boot(self) -> int:
        return self.probabilities.n_boot

    @property
    def n_classes(self) -> int:
        """Classes per pair: 4 edge types or 3 causal relations."""
        return self.probabilities.n_classes

    @property
    def causal(self) -> bool:
        """Whether the classes are causal relations (docs/design.md §3.1)."""
        return isinstance(self.probabilities, CausalProbabilities)

    @property
    def eps(self) -> float:
        """Half the smallest step of a frequency, the floor of a zero (docs/design.md §7):
        half a bootstrap count for edge types, a quarter for causal relations (a replicate
        adds ½ for a possible relation)."""
        steps = self.n_boot * self.probabilities.counts_per_replicate
        return 0.5 / steps if steps else 1e-6

    def keys(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Pair keys of the pairs (i, j), i < j."""
        return pair_index(np.asarray(i), np.asarray(j), self.probabilities.n_vars)

    def rows(self, keys: np.ndarray) -> np.ndarray:
        """Inputs (n, k + f) of the pairs at ``keys`` (pair order, i < j)."""
        i, j = pair_from_index(np.asarray(keys, dtype=np.int64), self.probabilities.n_vars)
        P = self.probabilities.lookup(i, j)
        return P if self.features is None else np.hstack([P, self.features[keys]])

    def population(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct input rows of all pairs and how many pairs have each (every pair its
        own row when there are features)."""
        if self.features is None:
            rows, counts, _ = distinct_rows(self.probabilities)
            return rows, counts
        dense = self.probabilities.dense(np.float64)
        return np.hstack([dense, self.features]), np.ones(len(dense), dtype=np.int64)

    def predict_all(self, model, dtype=np.float32, chunk: int = 1 << 18) -> np.ndarray:
        """``model``'s (V(V−1)/2, k) probabilities of every pair, in pair order.

        Without features the model is evaluated once per *distinct* probability row
        (:func:`distinct_rows`: rows are counts / n_boot and repeat a lot; every
        never-adjacent pair is (1, 0, 0, 0)) and scattered: identical to
        ``model.predict_proba`` on the dense array at a fraction of the cost for
        V = 5000. With features every pair is its own row, predicted in chunks.
        """
        probs = self.probabilities
        if self.features is not None:
            return self._predict_with_features(model, dtype, chunk)
        unique, _, inverse = distinct_rows(probs)
        calibrated = np.asarray(model.predict_proba(unique), dtype=np.float64)
        _check_output(model, calibrated, unique.shape, "")
        if self.causal:
            return calibrated[inverse].astype(dtype)
        out = np.empty((probs.n_pairs, 4), dtype=dtype)
        out[:] = calibrated[inverse[0]]
        if len(probs):
            out[pair_index(probs.pairs[:, 0], probs.pairs[:, 1], probs.n_vars)] = \
                calibrated[inverse[1:]]
        return out

    def _predict_with_features(self, model, dtype, chunk: int) -> np.ndarray:
        dense = self.probabilities.dense(np.float64)
        out = np.empty((len(dense), 4), dtype=dtype)
        for start in range(0, len(dense), chunk):
            rows = slice(start, start + chunk)
            Q = np.asarray(model.predict_proba(np.hstack([dense[rows], self.features[rows]])))
            _check_output(model, Q, (len(dense[rows]), 4), f" for pairs {start}..")
            out[rows] = Q
        return out


def _check_output(model, Q: np.ndarray, shape: tuple, where: str) -> None:
    if Q.shape != shape or not np.all(np.isfinite(Q)):
        raise RuntimeError(f"calibrator {type(model).__name__} returned invalid probabilities"
                           f"{where} (shape {Q.shape}, expected {shape})")
