"""The Gaussian scores' hot loops compiled (numba; docs/design.md §5.4, §11): the gains of
many candidate parents of one continuous family, and a family's residual variance, from
the covariance matrix by a small Cholesky factor and one forward substitution per
candidate (O(b²) each for b parents) — no gathers, no library calls per family.

Without numba (or ``CAUSALCAL_NO_NUMBA=1``) the same loops run as Python (slowly).
"""

from __future__ import annotations

import math

import numpy as np

from ..discrete.kernel import KERNEL, njit
from .moments import SINGULAR_TOL

__all__ = ["KERNEL", "residual_variance", "unit_gains"]


def _cholesky(cov, cols, out):
    """``out`` ← the lower Cholesky factor of ``cov[cols, cols]``; False when a pivot
    falls below ``SINGULAR_TOL`` of its column's variance."""
    b = len(cols)
    for i in range(b):
        for j in range(i + 1):
            s = cov[cols[i], cols[j]]
            for k in range(j):
                s -= out[i, k] * out[j, k]
            if i == j:
                if s <= SINGULAR_TOL * cov[cols[i], cols[i]]:
                    return False
                out[i, i] = math.sqrt(s)
            else:
                out[i, j] = s / out[j, j]
    return True


def _forward(factor, cov, cols, x, out):
    """``out`` ← ``L⁻¹ cov[cols, x]``; returns ``Σ out²`` (the part of x's variance the
    columns explain)."""
    total = 0.0
    for i in range(len(cols)):
        s = cov[cols[i], x]
        for k in range(i):
            s -= factor[i, k] * out[k]
        out[i] = s / factor[i, i]
        total += out[i] * out[i]
    return total


def _residual_variance(cov, base, y):
    b = len(base)
    factor = np.empty((b, b))
    if not _cholesky(cov, base, factor):
        return math.nan
    g = np.empty(b)
    rest = cov[y, y] - _forward(factor, cov, base, y, g)
    return rest if rest > SINGULAR_TOL * cov[y, y] else math.nan


def _unit_gains(cov, base, y, cands, n, per, out):
    b = len(base)
    factor = np.empty((b, b))
    gy = np.empty(b)
    gx = np.empty(b)
    if not _cholesky(cov, base, factor):
        out[:] = math.nan
        return
    pv_y = cov[y, y] - _forward(factor, cov, base, y, gy)
    if pv_y <= SINGULAR_TOL * cov[y, y]:
        out[:] = math.nan
        return
    for t in range(len(cands)):
        x = cands[t]
        pv_x = cov[x, x] - _forward(factor, cov, base, x, gx)
        if pv_x <= SINGULAR_TOL * cov[x, x]:
            out[t] = math.nan
            continue
        c = cov[x, y]
        for k in range(b):
            c -= gx[k] * gy[k]
        r2 = c * c / (pv_x * pv_y)
        if (1.0 - r2) * pv_x <= SINGULAR_TOL * cov[x, x]:
            out[t] = math.nan
            continue
        out[t] = -0.5 * n * math.log1p(-r2) - per


if KERNEL:
    _cholesky = njit(cache=True, nogil=True)(_cholesky)
    _forward = njit(cache=True, nogil=True)(_forward)
    _residual_variance = njit(cache=True, nogil=True)(_residual_variance)
    _unit_gains = njit(cache=True, nogil=True)(_unit_gains)


def residual_variance(cov: np.ndarray, base: np.ndarray, y: int) -> float:
    """The variance of column ``y`` left after its least-squares fit on columns ``base``
    (``C_yy − C_yB C_BB⁻¹ C_By``); NaN when the fit is singular."""
    return float(_residual_variance(cov, base, int(y)))


def unit_gains(cov: np.ndarray, base: np.ndarray, y: int, cands: np.ndarray, n: float,
               per: float) -> np.ndarray:
    """``−(n/2) ln(1 − r²) − per`` for every column ``x`` of ``cands``, ``r`` the partial
    correlation of x and ``y`` given the columns ``base``: the gain of x as a new parent
    of a continuous ``y`` whose parents are ``base`` (all continuous); NaN where a fit is
    singular."""
    out = np.empty(len(cands))
    _unit_gains(cov, base, int(y), cands, float(n), float(per), out)
    return out
