"""The G² conditional-independence test on the BDeu score's counts (issue 40;
docs/design.md §5.1).

``G² = 2 Σ N_sxy ln(N_sxy N_s / (N_sx N_sy))`` over the weighted table of
``(S configuration, x, y)``, counted with the score's own machinery (its codes with the
rows of weight 0 dropped, its configuration index, one ``bincount``), so a bootstrap
replicate's weights are row multiplicities here too. Degrees of freedom as causal-learn's
``gsq`` test computes them (``causallearn.utils.cit.Chisq_or_Gsq``): over the observed
configurations s of S, Σ_s (r_x − 1 − zero rows of s) (r_y − 1 − zero columns of s),
and p = 1 when that is 0. Tetrad's G² test also drops empty rows and columns.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2

from causalcal.errors import InputError

from .bdeu import BDeuScore

__all__ = ["DEFAULT_ALPHA", "GSquareTest"]

#: the significance level of GFCI's tests unless told
DEFAULT_ALPHA = 0.01


class GSquareTest:
    """``test(x, y, s)`` → whether x ⊥ y | s is accepted at level ``alpha`` (the G² p-value
    exceeds it); p-values are cached by ``(x, y, S)``."""

    def __init__(self, score: BDeuScore, alpha: float = DEFAULT_ALPHA) -> None:
        if not 0 < alpha < 1:
            raise InputError(f"alpha must be in (0, 1), got {alpha}")
        self.score = score
        self.alpha = float(alpha)
        self._cache: dict[tuple[int, int, tuple[int, ...]], float] = {}
        self.n_tests = 0

    def __call__(self, x: int, y: int, s: tuple[int, ...]) -> bool:
        return self.p_value(x, y, s) > self.alpha

    def p_value(self, x: int, y: int, s: tuple[int, ...] = ()) -> float:
        """The G² test's p-value of x ⊥ y | s."""
        x, y = min(x, y), max(x, y)
        key = (x, y, tuple(sorted(s)))
        p = self._cache.get(key)
        if p is None:
            p = self._cache[key] = self._compute(x, y, list(key[2]))
        return p

    def _compute(self, x: int, y: int, s: list[int]) -> float:
        self.n_tests += 1
        sc = self.score
        rx, ry = int(sc.arities[x]), int(sc.arities[y])
        cfg, size = sc._config_index(s)
        idx = (cfg * rx + sc._codes[x]) * ry + sc._codes[y]
        n_sxy = np.bincount(idx, weights=sc.weights, minlength=size * rx * ry)
        n_sxy = n_sxy.reshape(size, rx, ry)
        n_s = n_sxy.sum(axis=(1, 2))
        n_sxy = n_sxy[n_s > 0]
        n_s = n_s[n_s > 0]
        n_sx, n_sy = n_sxy.sum(axis=2), n_sxy.sum(axis=1)
        expected = n_sx[:, :, None] * n_sy[:, None, :] / n_s[:, None, None]
        seen = n_sxy > 0
        g2 = 2.0 * float(np.sum(n_sxy[seen] * np.log(n_sxy[seen] / expected[seen])))
        dof = int(np.sum((rx - 1 - (n_sx == 0).sum(axis=1)) * (ry - 1 - (n_sy == 0).sum(axis=1))))
        return 1.0 if dof <= 0 else float(chi2.sf(g2, dof))
