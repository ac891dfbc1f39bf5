"""Simulation-informed calibration: a map of P(adjacent), or of P(a causes b), learnt from
simulated worlds like the user's (docs/design.md §9.7, §9.9).

Known relations are few and sit at the ends of the probability range. Pairs of data sets
simulated from a network fitted to the user's data (:func:`causalcal.simulate.fitted_network`),
bootstrapped with the same search, are many, labelled by the simulated network, and
spread over the whole range. They give a smooth monotone map of the bootstrap's
probability: ``logit q = a · logit p + b`` (``p`` floored at ``eps``), fitted by logistic
regression on every simulated pair (:class:`LogitLinearMap`). A monotone map keeps the
bootstrap's ranking.

* Edge types (:class:`SimulatedPairs`, :func:`count_pairs`, :class:`SimulatedAdjacency`):
  p = P(adjacent) against the simulated network's CPDAG.
* Causal relations (:class:`SimulatedCausalPairs`, :func:`count_causal_pairs`,
  :class:`SimulatedCausal`): p = the raw P(a causes b) of §6.1 of every ordered pair
  against "a is an ancestor of b" in the simulated network's DAG; each direction is
  mapped alone.

A simulated world is not the real one (it is as dense as the averaged bootstrap graph
and carries no misspecification), so the map is a candidate, not the answer: it is
written only when the known pairs, which it was not fitted on, confirm it
(:func:`causalcal.edgecal.crossval.choose_map`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import expit, logit
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from causalcal.edges import EdgeProbabilities, pair_index
from causalcal.errors import InputError

__all__ = ["LogitLinearMap", "SimulatedAdjacency", "SimulatedCausal", "SimulatedCausalPairs",
           "SimulatedPairs", "count_causal_pairs", "count_pairs"]


@dataclass
class SimulatedPairs:
    """Every pair of ``n_simulations`` simulated data sets, counted by how often their
    bootstrap found the pair adjacent and by its true edge type: all the map needs.

    Attributes
    ----------
    table : (n_boot + 1, 4) int64; row k counts the pairs adjacent in k of the n_boot
        replicates, column t those whose true CPDAG edge type is t (:class:`EdgeType`)
    n_simulations : simulated data sets
    n_edges : edges of the simulated network
    seconds : time the simulations and their bootstraps took
    """

    #: steps a replicate's count can take per pair (the table has n_boot · this + 1 rows)
    counts_per_replicate: ClassVar[int] = 1

    table: np.ndarray
    n_simulations: int
    n_edges: int
    seconds: float = 0.0

    @property
    def n_boot(self) -> int:
        """Bootstrap replicates per simulated data set."""
        return (len(self.table) - 1) // self.counts_per_replicate


@dataclass
class SimulatedCausalPairs(SimulatedPairs):
    """Every ordered pair (a, b) of ``n_simulations`` simulated data sets, counted by the
    raw P(a causes b) of their bootstrap and by whether a is an ancestor of b in the
    simulated network's DAG (docs/design.md §9.9).

    Attributes
    ----------
    table : (2 n_boot + 1, 2) int64; row k counts the ordered pairs with raw
        P(a causes b) = k / (2 n_boot) (§6.1: a definite ancestor counts 2 half-steps, a
        possible one 1), column 1 those where a is a true ancestor of b, column 0 the rest
    n_simulations, n_edges, seconds : as :class:`SimulatedPairs`
    """

    counts_per_replicate: ClassVar[int] = 2


def count_pairs(probabilities: EdgeProbabilities, truth_pairs: np.ndarray,
                truth_labels: np.ndarray) -> np.ndarray:
    """The :attr:`SimulatedPairs.table` of one simulated data set from its bootstrap
    ``probabilities`` and its network's adjacent pairs ``truth_pairs`` (m, 2), i < j, with
    their CPDAG edge types ``truth_labels`` (m,); no V × V array is made."""
    n, v = probabilities.n_boot, probabilities.n_vars
    seen = pair_index(probabilities.pairs[:, 0], probabilities.pairs[:, 1], v)
    order = np.argsort(seen, kind="stable")
    seen = seen[order]
    hits = np.rint((1.0 - np.asarray(probabilities.probs, dtype=np.float64)[order, 0]) * n)
    true_keys = pair_index(truth_pairs[:, 0], truth_pairs[:, 1], v)
    truth_labels = np.asarray(truth_labels, dtype=np.int64)
    where = np.minimum(np.searchsorted(seen, true_keys), max(len(seen) - 1, 0))
    found = (seen[where] == true_keys) if len(seen) else np.zeros(len(true_keys), bool)
    label = np.zeros(len(seen), dtype=np.int64)
    label[where[found]] = truth_labels[found]
    table = np.zeros((n + 1, 4), dtype=np.int64)
    np.add.at(table, (hits.astype(np.int64), label), 1)
    np.add.at(table, (0, truth_labels[~found]), 1)  # true pairs the bootstrap never joined
    table[0, 0] += probabilities.n_pairs - len(seen) - int((~found).sum())
    return table


def count_causal_pairs(probabilities: EdgeProbabilities, ancestor: np.ndarray) -> np.ndarray:
    """The :attr:`SimulatedCausalPairs.table` of one simulated data set from its bootstrap
    ``probabilities`` (with ancestral counts) and the V × V boolean ``ancestor`` of its
    network's DAG (``[a, b]``: a is an ancestor of b), over every ordered pair a ≠ b."""
    counts = probabilities.ancestral
    if counts is None:
        raise InputError("counting causal pairs needs the bootstrap's ancestral counts "
                         "(ancestral=True)")
    v = probabilities.n_vars
    ancestor = np.asarray(ancestor, dtype=bool)
    if ancestor.shape != (v, v):
        raise InputError(f"ancestor must be a {v} × {v} boolean matrix, got {ancestor.shape}")
    steps = SimulatedCausalPairs.counts_per_replicate * counts.n_boot
    off = ~np.eye(v, dtype=bool)
    table = np.bincount(2 * counts.half_steps(off) + ancestor[off], minlength=2 * (steps + 1))
    return table.reshape(steps + 1, 2).astype(np.int64)


class LogitLinearMap(BaseEstimator):
    """``q = expit(a · logit p + b)`` of a bootstrap probability ``p`` floored at ``eps``:
    the simulation-informed map's shape (docs/design.md §9.7), monotone for a > 0.

    Subclasses say which probability is ``p`` and which pairs are positive; the fit is a
    logistic regression of the label on ``logit p`` over a table's rows (row k of n + 1 is
    ``p = k / n``), weighted by the counts: the same likelihood as over every pair.

    Parameters
    ----------
    eps : floor of ``p`` before the logit (``fit_edge_calibrator`` passes half a
        bootstrap count for edge types, a quarter count for causal relations: its eps).
    """

    def __init__(self, eps: float = 1e-3) -> None:
        self.eps = eps

    def _logit(self, p: np.ndarray) -> np.ndarray:
        return logit(np.clip(np.asarray(p, dtype=np.float64), self.eps, 1.0 - self.eps))

    def _fit_counts(self, positive: np.ndarray, negative: np.ndarray, what: str) -> None:
        """Fit ``slope_`` and ``intercept_`` on ``positive`` and ``negative`` counts per
        table row (``what``: the two kinds, for the error)."""
        if not positive.sum() or not negative.sum():
            raise InputError(f"the simulated pairs need {what} pairs")
        p = np.arange(len(positive)) / (len(positive) - 1)
        self._fit_samples(np.concatenate([p, p]), np.repeat([1, 0], len(positive)),
                          np.concatenate([positive, negative]).astype(np.float64), what)

    def _fit_samples(self, p: np.ndarray, y: np.ndarray, weights: np.ndarray | None,
                     what: str, errors: np.ndarray | None = None) -> None:
        """Fit ``slope_`` and ``intercept_`` by logistic regression of labels ``y`` on
        ``logit p`` with sample ``weights`` (``what``: the two kinds, for the error;
        ``errors``: each label's error rate, for a map that models them)."""
        if not 0 < self.eps < 0.5:
            raise InputError(f"eps must be in (0, 0.5), got {self.eps!r}")
        w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
        if not (w * y).sum() or not (w * (1 - y)).sum():
            raise InputError(f"the map needs {what} pairs")
        solved = (self._solve(self._logit(p), np.asarray(y), w) if errors is None else
                  self._solve(self._logit(p), np.asarray(y), w, errors))
        self.intercept_, self.slope_ = solved

    def _solve(self, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
        """``(intercept, slope)`` of the weighted logistic regression of ``y`` on ``x``."""
        model = LogisticRegression(C=1e4).fit(x[:, None], y, sample_weight=w)
        return float(model.intercept_[0]), float(model.coef_[0, 0])

    def map(self, p: np.ndarray) -> np.ndarray:
        """The fitted map of probabilities ``p`` (any shape)."""
        check_is_fitted(self)
        return expit(self.slope_ * self._logit(p) + self.intercept_)


class SimulatedAdjacency(LogitLinearMap):
    """The map of P(adjacent) (module), and for a pair the bootstrap never found
    adjacent, the simulated adjacent pairs' split over forward, backward (pooled, so
    symmetric) and undirected. Wrap it in
    :class:`~causalcal.edgecal.model.KeepDirectionSplit` to keep the bootstrap's split
    where it has one."""

    def fit(self, pairs: SimulatedPairs) -> SimulatedAdjacency:
        """Fit the slope and intercept on the simulated pairs (adjacent or not)."""
        table = np.asarray(pairs.table, dtype=np.float64)
        self._fit_counts(table[:, 1:].sum(axis=1), table[:, 0], "adjacent and non-adjacent")
        directed = (table[0, 1] + table[0, 2]) / 2  # adjacent pairs the bootstrap never saw
        split = np.array([directed, directed, table[0, 3]]) + 1.0  # add-one: never empty
        self.split_ = split / split.sum()
        return self

    def adjacency(self, X) -> np.ndarray:
        """The map's P(adjacent) of input rows ``X`` (bootstrap vectors first)."""
        return self.map(1.0 - np.asarray(X, dtype=np.float64)[:, 0])

    def predict_proba(self, X) -> np.ndarray:
        """``(1 − a, a · split)`` with ``a`` the map's P(adjacent)."""
        a = self.adjacency(X)
        return np.column_stack([1.0 - a, a[:, None] * self.split_[None, :]])


class SimulatedCausal(LogitLinearMap):
    """The map of P(a causes b) (module; docs/design.md §9.9): each direction of a pair's
    raw three-class row (neither, a causes b, b causes a) mapped alone, the two scaled
    down together where they sum above 1, and "neither" the rest. Swapping the pair swaps
    the two directions of the output (swap-equivariant by construction)."""

    def fit(self, pairs: SimulatedCausalPairs) -> SimulatedCausal:
        """Fit the slope and intercept on the simulated ordered pairs (a ancestor of b or
        not)."""
        table = np.asarray(pairs.table, dtype=np.float64)
        self._fit_counts(table[:, 1], table[:, 0], "causally related and unrelated")
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``(neither, q(a causes b), q(b causes a))`` of input rows ``X`` (the raw causal
        row first, in :class:`~causalcal.pairs.CausalType` order)."""
        q = self.map(np.asarray(X, dtype=np.float64)[:, 1:3])
        total = q.sum(axis=1)
        q /= np.maximum(total, 1.0)[:, None]  # only where the two sum above 1
        return np.column_stack([np.maximum(1.0 - q.sum(axis=1), 0.0), q])
