"""The calibrator's inputs of pairs (docs/design.md §9.6).

A pair's input row is its raw probabilities in float64 — the bootstrap edge-type vector
``(p_none, p_forward, p_backward, p_undirected)`` or, for causal relations, the
three-class vector ``(p_neither, p_a_causes_b, p_b_causes_a)``
(:class:`~causalcal.causal.CausalProbabilities`) — optionally followed by pair features
(:mod:`.features`), for the kinds that take them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalcal.causal import CausalProbabilities
from causalcal.edgecal.features import feature_columns, feature_groups, transform_features
from causalcal.edgecal.kinds import RelationKind, kind_of
from causalcal.edges import EdgeProbabilities, pair_from_index, pair_index
from causalcal.errors import InputError

__all__ = ["PairInputs"]


class PairInputs:
    """Every pair's calibrator input: its raw probabilities (float64), then the chosen
    pair-feature groups, transformed.

    Parameters
    ----------
    probabilities : the raw probabilities of every pair: the bootstrap's
        :class:`EdgeProbabilities` (four edge types) or
        :class:`~causalcal.causal.CausalProbabilities` (three causal classes); with
        ``groups`` it must carry ``pair_features``
        (``bootstrap_edge_probabilities(..., features=True)``).
    groups : feature groups of :data:`~causalcal.edgecal.FEATURE_GROUPS` (empty:
        probabilities only); only for a kind that takes them.
    kind : the :class:`~causalcal.edgecal.RelationKind` of the probabilities (default:
        the one whose raw probabilities they are, :func:`~causalcal.edgecal.kinds.kind_of`).

    Attributes
    ----------
    features : (V(V−1)/2, f) transformed features in pair order, or None
    swap : their permutation when a pair is read the other way round, or None
    """

    def __init__(self, probabilities: EdgeProbabilities | CausalProbabilities,
                 groups: Sequence[str] = (), kind: RelationKind | None = None) -> None:
        self.probabilities = probabilities
        self.kind = kind_of(probabilities) if kind is None else kind
        self.groups = feature_groups(groups)
        self.features: np.ndarray | None = None
        self.swap: tuple[int, ...] | None = None
        if self.groups:
            if not self.kind.takes_features:
                raise InputError(f"pair features are for edge types; {self.kind.name} "
                                 "relations are calibrated from their probabilities alone")
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
            rows, counts, _ = self.probabilities.distinct_rows()
            return rows, counts
        dense = self.probabilities.dense(np.float64)
        return np.hstack([dense, self.features]), np.ones(len(dense), dtype=np.int64)

    def predict_all(self, model, dtype=np.float32, chunk: int = 1 << 18) -> np.ndarray:
        """``model``'s (V(V−1)/2, k) probabilities of every pair, in pair order.

        Without features the model is evaluated once per *distinct* probability row
        (``distinct_rows()`` of the probabilities: rows are counts / n_boot and repeat a lot; every
        never-adjacent pair is (1, 0, 0, 0)) and scattered: identical to
        ``model.predict_proba`` on the dense array at a fraction of the cost for
        V = 5000. With features every pair is its own row, predicted in chunks.
        """
        probs = self.probabilities
        if self.features is not None:
            return self._predict_with_features(model, dtype, chunk)
        unique, _, inverse = probs.distinct_rows()
        calibrated = np.asarray(model.predict_proba(unique), dtype=np.float64)
        _check_output(model, calibrated, unique.shape, "")
        return probs.scatter(calibrated, inverse, dtype)

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
