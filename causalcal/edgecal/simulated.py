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

from causalcal.errors import InputError

__all__ = ["SimulatedAdjacency", "SimulatedPairs"]


@dataclass
class SimulatedPairs:
    """Every pair of ``n_simulations`` simulated data sets: bootstrap frequencies and truth.

    Attributes
    ----------
    probs : (m, 4) bootstrap edge-type frequencies of the pairs, data sets stacked
    labels : (m,) the simulated network's CPDAG edge type of each pair
    n_boot : bootstrap replicates per simulated data set
    n_simulations : simulated data sets
    n_edges : edges of the simulated network
    seconds : time the simulations and their bootstraps took
    """

    probs: np.ndarray
    labels: np.ndarray
    n_boot: int
    n_simulations: int
    n_edges: int
    seconds: float = 0.0


class SimulatedAdjacency(BaseEstimator):
    """The map of the module: P(adjacent) ``expit(a · logit p + b)``, and for a pair the
    bootstrap never found adjacent, the simulated adjacent pairs' split over forward,
    backward (pooled, so symmetric) and undirected. Wrap it in
    :class:`~causalcal.edgecal.model.KeepDirectionSplit` to keep the bootstrap's split
    where it has one.

    Parameters
    ----------
    eps : floor of P(adjacent) before the logit (default: half a count of ``n_boot``).
    """

    def __init__(self, eps: float = 1e-3) -> None:
        self.eps = eps

    def _logit(self, X) -> np.ndarray:
        p_adj = 1.0 - np.asarray(X, dtype=np.float64)[:, 0]
        return logit(np.clip(p_adj, self.eps, 1.0 - self.eps))[:, None]

    def fit(self, X, labels) -> SimulatedAdjacency:
        """Fit the slope and intercept on simulated pairs ``X`` (m, ≥ 4) with CPDAG edge
        types ``labels`` (m,)."""
        if not 0 < self.eps < 0.5:
            raise InputError(f"eps must be in (0, 0.5), got {self.eps!r}")
        X = np.asarray(X, dtype=np.float64)
        labels = np.asarray(labels, dtype=np.int64)
        adjacent = labels != 0
        if adjacent.all() or not adjacent.any():
            raise InputError("the simulated pairs need adjacent and non-adjacent pairs")
        model = LogisticRegression(C=1e4).fit(self._logit(X), adjacent)
        self.slope_ = float(model.coef_[0, 0])
        self.intercept_ = float(model.intercept_[0])
        unseen = adjacent & (X[:, 0] >= 1.0)
        types = np.bincount(labels[unseen], minlength=4)[1:].astype(np.float64)
        directed = (types[0] + types[1]) / 2
        split = np.array([directed, directed, types[2]]) + 1.0  # add-one: never empty
        self.split_ = split / split.sum()
        return self

    def adjacency(self, X) -> np.ndarray:
        """The map's P(adjacent) of input rows ``X``."""
        check_is_fitted(self)
        return expit(self.slope_ * self._logit(X)[:, 0] + self.intercept_)

    def predict_proba(self, X) -> np.ndarray:
        """``(1 − a, a · split)`` with ``a`` the map's P(adjacent)."""
        a = self.adjacency(X)
        return np.column_stack([1.0 - a, a[:, None] * self.split_[None, :]])
