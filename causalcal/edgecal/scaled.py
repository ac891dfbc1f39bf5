"""A low-capacity map of P(adjacent): ``logit q = a · logit p + b``, fitted on known pairs
and shrunk towards the identity (docs/design.md §9.3).

The full calibrator can bend the middle of the probability range where known pairs are
few; this map can only stretch and shift the bootstrap's log-odds, so it keeps the
ranking (AUROC) and moves the middle only as much as the ends demand. Known pairs are
often perfectly separated (non-arcs at 0, arcs near 1), so the fit is penalised by
``strength · ((a − 1)² + b²)``: no evidence, no change. It is fitted with the known
pairs' selection offsets (the EM's inclusion rates), as the full calibrator is, and is a
candidate of the do-no-harm choice (:func:`causalcal.edgecal.crossval.choose_map`).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logit
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from causalcal.calibration._multiclass import check_label_sets
from causalcal.errors import InputError

__all__ = ["LogitLinearAdjacency", "ScaledAdjacency"]


class LogitLinearAdjacency(BaseEstimator):
    """P(adjacent) ``expit(a · logit p + b)`` (``p`` floored at ``eps``) and, for a pair the
    bootstrap never found adjacent, a fitted split ``split_`` over forward, backward and
    undirected; fitted attributes ``slope_``, ``intercept_``, ``split_``. Wrap it in
    :class:`~causalcal.edgecal.model.KeepDirectionSplit` to keep the bootstrap's split
    where it has one."""

    def __init__(self, eps: float = 1e-3) -> None:
        self.eps = eps

    def _logit(self, p_adj: np.ndarray) -> np.ndarray:
        if not 0 < self.eps < 0.5:
            raise InputError(f"eps must be in (0, 0.5), got {self.eps!r}")
        return logit(np.clip(p_adj, self.eps, 1.0 - self.eps))

    def adjacency(self, X) -> np.ndarray:
        """The map's P(adjacent) of input rows ``X`` (bootstrap vectors first)."""
        check_is_fitted(self)
        p_adj = 1.0 - np.asarray(X, dtype=np.float64)[:, 0]
        return expit(self.slope_ * self._logit(p_adj) + self.intercept_)

    def predict_proba(self, X) -> np.ndarray:
        """``(1 − a, a · split)`` with ``a`` the map's P(adjacent)."""
        a = self.adjacency(X)
        return np.column_stack([1.0 - a, a[:, None] * self.split_[None, :]])


class ScaledAdjacency(LogitLinearAdjacency):
    """:class:`LogitLinearAdjacency` fitted on known pairs (see the module).

    Parameters
    ----------
    eps : floor of P(adjacent) before the logit (half a bootstrap count).
    strength : weight of the penalty ``(a − 1)² + b²`` towards the identity.
    """

    def __init__(self, eps: float = 1e-3, strength: float = 1.0) -> None:
        super().__init__(eps)
        self.strength = strength

    def fit(self, X, y, offsets=None, sample_weight=None) -> ScaledAdjacency:
        """Fit on bootstrap rows ``X`` with labels ``y`` (class indices or label sets of
        the four edge types); ``offsets`` (n, 4): the selection's logit offsets."""
        X = np.asarray(X, dtype=np.float64)
        Y = check_label_sets(y, len(X), 4)
        adjacent = ~Y[:, 0]
        if adjacent.all() or not adjacent.any():
            raise InputError("the scaled map needs adjacent and non-adjacent known pairs")
        x = self._logit(1.0 - X[:, 0])
        shift = np.zeros(len(X)) if offsets is None else offsets[:, 1] - offsets[:, 0]
        w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
        sign = np.where(adjacent, 1.0, -1.0)

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            z = theta[0] * x + theta[1] + shift
            nll = -np.sum(w * log_expit(sign * z))
            g = -w * sign * expit(-sign * z)
            penalty = self.strength * ((theta[0] - 1.0) ** 2 + theta[1] ** 2)
            grad = np.array([g @ x, g.sum()]) + 2 * self.strength * (theta - [1.0, 0.0])
            return nll + penalty, grad

        theta = minimize(loss, np.array([1.0, 0.0]), jac=True, method="L-BFGS-B").x
        self.slope_, self.intercept_ = float(theta[0]), float(theta[1])
        split = X[adjacent, 1:4].sum(axis=0)
        split = np.array([split[:2].mean(), split[:2].mean(), split[2]]) + 1.0
        self.split_ = split / split.sum()
        return self
