"""The G² conditional-independence test on the BDeu score's counts (issue 40;
docs/design.md §5.1).

``G² = 2 Σ N_sxy ln(N_sxy N_s / (N_sx N_sy))`` over the weighted table of
``(S configuration, x, y)``, counted with the score's own machinery (its codes with the
rows of weight 0 dropped, its configuration index, one ``bincount``), so a bootstrap
replicate's weights are row multiplicities here too. Degrees of freedom as causal-learn's
``gsq`` test computes them (``causallearn.utils.cit.Chisq_or_Gsq``): over the observed
configurations s of S, Σ_s (r_x − 1 − zero rows of s) (r_y − 1 − zero columns of s),
and p = 1 when that is 0. Tetrad's G² test also drops empty rows and columns.

The table's seen cells (their counts and expected counts) and the degrees of freedom come
from one compiled loop (:func:`_cells_compiled`, numba) where the counts are exact integers
(no weights, or integer weights: a bootstrap's), else from numpy (:func:`_cells_numpy`);
both give the same numbers, bit for bit (the counts and their margins are exact, each
expected count is the same product and quotient), and numpy sums the G² terms either way.
"""

from __future__ import annotations

import numpy as np
from scipy.special import chdtrc

from ..protocol import DEFAULT_ALPHA, CachedTest
from .kernel import KERNEL

__all__ = ["DEFAULT_ALPHA", "GSquareTest"]


class GSquareTest(CachedTest):
    """``test(x, y, s)`` → whether x ⊥ y | s is accepted at level ``alpha`` (the G² p-value
    exceeds it); p-values are cached by ``(x, y, S)``; ``score`` is a
    :class:`~.bdeu.BDeuScore` (its codes and weights are counted)."""

    def _compute(self, x: int, y: int, s: list[int]) -> float:
        self.n_tests += 1
        sc = self.score
        rx, ry = int(sc.arities[x]), int(sc.arities[y])
        cfg, size = sc._config_index(s)
        if KERNEL and sc.integral_weights:
            weights = _NO_WEIGHTS if sc.weights is None else sc.weights
            observed, expected, dof = _cells_compiled(cfg, sc._codes[x], sc._codes[y], weights,
                                                      size, rx, ry)
        else:
            observed, expected, dof = _cells_numpy(cfg, sc._codes[x], sc._codes[y], sc.weights,
                                                   size, rx, ry)
        g2 = 2.0 * float((observed * np.log(observed / expected)).sum())
        return 1.0 if dof <= 0 else float(chdtrc(dof, g2))  # chi2.sf's own function


_NO_WEIGHTS = np.empty(0)


def _cells_numpy(cfg, cx, cy, weights, size: int, rx: int, ry: int):
    """The counts N_sxy > 0 and their expected counts N_sx N_sy / N_s (configurations s in
    index order, then x, then y), and the degrees of freedom."""
    n_sxy = np.bincount((cfg * rx + cx) * ry + cy, weights=weights, minlength=size * rx * ry)
    n_sxy = n_sxy.reshape(size, rx, ry)
    n_s = n_sxy.sum(axis=(1, 2))
    if size > 1:  # with S empty its one configuration is seen
        n_sxy, n_s = n_sxy[n_s > 0], n_s[n_s > 0]
    n_sx, n_sy = n_sxy.sum(axis=2), n_sxy.sum(axis=1)
    expected = n_sx[:, :, None] * n_sy[:, None, :] / n_s[:, None, None]
    seen = n_sxy > 0
    dof = int(((rx - 1 - (n_sx == 0).sum(axis=1)) * (ry - 1 - (n_sy == 0).sum(axis=1))).sum())
    return n_sxy[seen], expected[seen], dof


def _cells_compiled(cfg, cx, cy, weights, size, rx, ry):
    """:func:`_cells_numpy` in one loop; ``weights`` empty: every row counts 1."""
    n = np.zeros((size, rx, ry))
    for i in range(len(cfg)):
        n[cfg[i], cx[i], cy[i]] += weights[i] if len(weights) else 1.0
    n_sx, n_sy, n_s = np.zeros((size, rx)), np.zeros((size, ry)), np.zeros(size)
    m = 0
    for c in range(size):
        for a in range(rx):
            for b in range(ry):
                v = n[c, a, b]
                n_sx[c, a] += v
                n_sy[c, b] += v
                n_s[c] += v
                m += v > 0
    observed, expected = np.empty(m), np.empty(m)
    k = dof = 0
    for c in range(size):
        if n_s[c] == 0:
            continue
        free_x, free_y = rx - 1, ry - 1
        for a in range(rx):
            free_x -= n_sx[c, a] == 0
        for b in range(ry):
            free_y -= n_sy[c, b] == 0
        dof += free_x * free_y
        for a in range(rx):
            for b in range(ry):
                if n[c, a, b] > 0:
                    observed[k] = n[c, a, b]
                    expected[k] = n_sx[c, a] * n_sy[c, b] / n_s[c]
                    k += 1
    return observed, expected, dof


if KERNEL:
    from numba import njit

    _cells_compiled = njit(cache=True, nogil=True)(_cells_compiled)
