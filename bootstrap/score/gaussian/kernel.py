"""The Gaussian scores' hot loops compiled (numba; docs/design.md §5.4, §11): the gains of
many candidate parents of one continuous family, a family's log-determinant, partial
correlations, from the covariance matrix by a small Cholesky factor and forward
substitutions (O(b²) per column for b parents) — no gathers and no BLAS or LAPACK call per
family (their threads cost milliseconds on small matrices on a loaded machine).

Without numba (or ``CAUSALCAL_NO_NUMBA=1``) the same loops run as Python (slowly).
"""

from __future__ import annotations

import math

import numpy as np

from ..discrete.kernel import KERNEL, njit
from .moments import SINGULAR_TOL

__all__ = ["KERNEL", "factor", "ldet_given", "partial_correlation", "unit_gains", "whiten"]


def _cholesky(matrix, cols, own, out):
    """``out`` ← the lower Cholesky factor of ``matrix[cols, cols]``; False when a pivot
    falls below ``SINGULAR_TOL`` of ``own`` (the columns' own variances)."""
    b = len(cols)
    for i in range(b):
        for j in range(i + 1):
            s = matrix[cols[i], cols[j]]
            for k in range(j):
                s -= out[i, k] * out[j, k]
            if i == j:
                if s <= SINGULAR_TOL * own[i]:
                    return False
                out[i, i] = math.sqrt(s)
            else:
                out[i, j] = s / out[j, j]
    return True


def _own(cov, cols):
    out = np.empty(len(cols))
    for i in range(len(cols)):
        out[i] = cov[cols[i], cols[i]]
    return out


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


def _whiten(factor, cov, base, cols, out):
    """``out`` ← ``L⁻¹ cov[base, cols]`` (b × len(cols)), a column at a time."""
    b = len(base)
    for t in range(len(cols)):
        x = cols[t]
        for i in range(b):
            s = cov[base[i], x]
            for k in range(i):
                s -= factor[i, k] * out[k, t]
            out[i, t] = s / factor[i, i]


def _ldet_given(cov, base, cols):
    """``ln det`` of the covariance of ``cols`` given ``base`` (their least-squares
    residuals'), NaN when a fit is singular."""
    b, a = len(base), len(cols)
    factor = np.empty((b, b))
    if not _cholesky(cov, base, _own(cov, base), factor):
        return math.nan
    g = np.empty((b, a))
    _whiten(factor, cov, base, cols, g)
    part = np.empty((a, a))
    for i in range(a):
        for j in range(i + 1):
            s = cov[cols[i], cols[j]]
            for k in range(b):
                s -= g[k, i] * g[k, j]
            part[i, j] = s
            part[j, i] = s
    inner = np.empty((a, a))
    if not _cholesky(part, np.arange(a), _own(cov, cols), inner):
        return math.nan
    total = 0.0
    for i in range(a):
        total += 2.0 * math.log(inner[i, i])
    return total


def _partial_correlation(cov, base, x, y):
    """The partial correlation of columns x and y given ``base`` (NaN when singular)."""
    b = len(base)
    factor = np.empty((b, b))
    if not _cholesky(cov, base, _own(cov, base), factor):
        return math.nan
    gx = np.empty(b)
    gy = np.empty(b)
    pv_x = cov[x, x] - _forward(factor, cov, base, x, gx)
    pv_y = cov[y, y] - _forward(factor, cov, base, y, gy)
    if pv_x <= SINGULAR_TOL * cov[x, x] or pv_y <= SINGULAR_TOL * cov[y, y]:
        return math.nan
    c = cov[x, y]
    for k in range(b):
        c -= gx[k] * gy[k]
    return c / math.sqrt(pv_x * pv_y)


def _unit_gains(cov, base, y, cands, n, per, out):
    b = len(base)
    factor = np.empty((b, b))
    gy = np.empty(b)
    gx = np.empty(b)
    if not _cholesky(cov, base, _own(cov, base), factor):
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
    _own = njit(cache=True, nogil=True)(_own)
    _forward = njit(cache=True, nogil=True)(_forward)
    _whiten = njit(cache=True, nogil=True)(_whiten)
    _ldet_given = njit(cache=True, nogil=True)(_ldet_given)
    _partial_correlation = njit(cache=True, nogil=True)(_partial_correlation)
    _unit_gains = njit(cache=True, nogil=True)(_unit_gains)


def factor(cov: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """The lower Cholesky factor of ``cov[cols, cols]``, ``None`` when a column's variance
    left given the ones before it is below ``SINGULAR_TOL`` of its own."""
    out = np.zeros((len(cols), len(cols)))
    return out if _cholesky(cov, cols, _own(cov, cols), out) else None


def whiten(lower: np.ndarray, cov: np.ndarray, base: np.ndarray,
           cols: np.ndarray) -> np.ndarray:
    """``L⁻¹ cov[base, cols]`` for the factor ``L`` of ``cov[base, base]``."""
    out = np.empty((len(base), len(cols)))
    _whiten(lower, cov, base, cols, out)
    return out


def ldet_given(cov: np.ndarray, base: np.ndarray, cols: np.ndarray) -> float:
    """``ln det C_{cols|base}``, the log-determinant of the residual covariance of the
    columns' least-squares fits on ``base``; NaN when a fit is singular."""
    return float(_ldet_given(cov, base, cols))


def partial_correlation(cov: np.ndarray, base: np.ndarray, x: int, y: int) -> float:
    """The partial correlation of columns ``x`` and ``y`` given ``base`` (NaN: singular)."""
    return float(_partial_correlation(cov, base, int(x), int(y)))


def unit_gains(cov: np.ndarray, base: np.ndarray, y: int, cands: np.ndarray, n: float,
               per: float) -> np.ndarray:
    """``−(n/2) ln(1 − r²) − per`` for every column ``x`` of ``cands``, ``r`` the partial
    correlation of x and ``y`` given the columns ``base``: the gain of x as a new parent
    of a continuous ``y`` whose parents are ``base`` (all continuous); NaN where a fit is
    singular."""
    out = np.empty(len(cands))
    _unit_gains(cov, base, int(y), cands, float(n), float(per), out)
    return out
