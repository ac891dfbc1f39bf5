"""Simulation-informed calibration: a map of P(adjacent) learnt from simulated worlds like
the user's (docs/design.md §9.7).

Known relations are few and sit at the ends of the probability range. Pairs of data sets
simulated from a network fitted to the user's data (:func:`causalcal.simulate.fitted_network`),
bootstrapped with the same search, are many, labelled by the simulated network's CPDAG,
and spread over the whole range. They give a smooth monotone map of P(adjacent):
``logit q = a · logit p + b`` (``p`` floored at half a bootstrap count), fitted by
logistic regression on every simulated pair. A monotone map keeps the bootstrap's ranking.

A simulated world is not the real one (it is as dense as the averaged bootstrap graph
and carries no misspecification), so the map is a candidate, not the answer: it is
written only when the known pairs, which it was not fitted on, confirm it
(:func:`causalcal.edgecal.crossval.choose_map`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from causalcal.edges import EdgeProbabilities, pair_index
from causalcal.errors import InputError

__all__ = ["SimulatedAdjacency", "SimulatedPairs", "count_pairs"]


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

    table: np.ndarray
    n_simulations: int
    n_edges: int
    seconds: float = 0.0

    @property
    def n_boot(self) -> int:
        """Bootstrap replicates per simulated data set."""
        return len(self.table) - 1


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


class SimulatedAdjacency(BaseEstimator):
    """The map of the module: P(adjacent) ``expit(a · logit p + b)``, and for a pair the
    bootstrap never found adjacent, the simulated adjacent pairs' split over forward,
    backward (pooled, so symmetric) and undirected. Wrap it in
    :class:`~causalcal.edgecal.model.KeepDirectionSplit` to keep the bootstrap's split
    where it has one.

    Parameters
    ----------
    eps : floor of P(adjacent) before the logit (``fit_edge_calibrator`` passes half a
        bootstrap count, ``0.5 / n_boot``).
    """

    def __init__(self, eps: float = 1e-3) -> None:
        self.eps = eps

    def _logit(self, p_adj: np.ndarray) -> np.ndarray:
        return logit(np.clip(p_adj, self.eps, 1.0 - self.eps))[:, None]

    def fit(self, pairs: SimulatedPairs) -> SimulatedAdjacency:
        """Fit the slope and intercept on the simulated pairs (a logistic regression of
        adjacency on logit P(adjacent), weighted by the counts of ``pairs.table``)."""
        if not 0 < self.eps < 0.5:
            raise InputError(f"eps must be in (0, 0.5), got {self.eps!r}")
        table = np.asarray(pairs.table, dtype=np.float64)
        adjacent, apart = table[:, 1:].sum(axis=1), table[:, 0]
        if not adjacent.sum() or not apart.sum():
            raise InputError("the simulated pairs need adjacent and non-adjacent pairs")
        x = self._logit(np.arange(len(table)) / (len(table) - 1))
        model = LogisticRegression(C=1e4).fit(
            np.vstack([x, x]), np.repeat([1, 0], len(table)),
            sample_weight=np.concatenate([adjacent, apart]))
        self.slope_ = float(model.coef_[0, 0])
        self.intercept_ = float(model.intercept_[0])
        directed = (table[0, 1] + table[0, 2]) / 2  # adjacent pairs the bootstrap never saw
        split = np.array([directed, directed, table[0, 3]]) + 1.0  # add-one: never empty
        self.split_ = split / split.sum()
        return self

    def adjacency(self, X) -> np.ndarray:
        """The map's P(adjacent) of input rows ``X`` (bootstrap vectors first)."""
        check_is_fitted(self)
        p_adj = 1.0 - np.asarray(X, dtype=np.float64)[:, 0]
        return expit(self.slope_ * self._logit(p_adj)[:, 0] + self.intercept_)

    def predict_proba(self, X) -> np.ndarray:
        """``(1 − a, a · split)`` with ``a`` the map's P(adjacent)."""
        a = self.adjacency(X)
        return np.column_stack([1.0 - a, a[:, None] * self.split_[None, :]])
