"""The Gaussian BIC of a family from a weighted covariance: SEM-BIC and the degenerate
Gaussian (docs/design.md §5.4).

A variable is a block of ``a`` float columns (:mod:`.moments`: one for a continuous
variable, the indicators of a discrete one). With ``B`` the columns of the parents
(``b`` of them) and ``C`` the replicate's weighted covariance over ``N = Σw`` rows,

    s(y | P) = −(N/2) · [ln det C_{YY|B} + a · (ln 2π + 1)] − c · (ln N / 2) · (a·b + a(a−1)/2),

``C_{YY|B} = C_YY − C_YB C_BB⁻¹ C_BY`` the residual covariance of the family's
least-squares fit (with intercept): the maximised Gaussian log-likelihood of the block
given its parents, minus ``c`` (``penalty_discount``) times half ``ln N`` per regression
coefficient of the chain rule (each column of the block on the parents and the block's
columns before it). For a continuous ``y`` (``a = 1``) this is SEM-BIC,
−(N/2)(ln 2πσ̂² + 1) − c·(k/2)·ln N with k parents; Tetrad 7.6.8's ``SemBicScore`` and
``DegenerateGaussianScore`` report twice these numbers (with the unbiased covariance,
``(N − 1)`` in place of ``N`` inside the logarithm: a constant per node). Score
equivalent.

Gains come from partial covariances: ``s(y | P ∪ {x}) − s(y | P) = −(N/2)[ln det
C_{XX|B∪Y} − ln det C_{XX|B}] − c·(ln N/2)·a·d`` for a candidate block ``X`` of ``d``
columns, so one triangular solve of the parents' Cholesky factor against every
candidate's columns scores them all; the gains of every pair are those of the whitened
covariance (for two continuous variables −(N/2)·ln(1 − ρ²) − c·(ln N)/2).

A family whose parents' (or block's) covariance is singular — a linear function of other
columns, an indicator equal to another in the replicate's rows — has score −∞ and a
candidate that would make it singular no gain: it is never chosen (Tetrad returns NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from causalcal.data import DiscreteData, MixedData

from ..protocol import GraphScores, best_partners
from .kernel import factor, ldet_given, unit_gains, whiten
from .moments import SINGULAR_TOL, check_nonsingular, embed, weighted_covariance

__all__ = ["GaussianScore"]

LOG_2PI_E = math.log(2 * math.pi) + 1.0
_ROWS_PER_BLOCK = 512  # rows of the pairs' gain matrix computed at once


class GaussianScore(GraphScores):
    """Gaussian BIC local scores over a weighted covariance (see the module docstring).

    Parameters
    ----------
    data : MixedData (or DiscreteData: every column embedded)
    weights : optional (n,) non-negative row weights (bootstrap multiplicities)
    penalty_discount : ``c > 0``
    continuous_only : refuse discrete columns (SEM-BIC)
    check : refuse a singular covariance, naming the columns (default: without
        ``weights``, i.e. on the data as given; a replicate's singular families are
        never chosen instead)
    """

    def __init__(self, data: MixedData | DiscreteData, weights=None,
                 penalty_discount: float = 1.0, continuous_only: bool = False,
                 check: bool | None = None, effective: bool = False) -> None:
        self.data = data
        self.n_vars = data.n_vars
        self.emb = embed(data, weights, continuous_only)
        self.cov, self.total_weight = weighted_covariance(self.emb)
        w = self.emb.weights
        #: N of the formulas: the total weight, or the weights' effective sample size
        #: (Σw)² / Σw² (Kish), about n/2 for a bootstrap replicate
        self.n = self.total_weight ** 2 / float(w @ w) if effective else self.total_weight
        if check if check is not None else weights is None:
            check_nonsingular(self.cov, self.emb, list(data.names))
        self.starts = self.emb.starts
        self.sizes = self.emb.sizes
        self.unit = bool(np.all(self.sizes == 1))
        self.penalty_discount = float(penalty_discount)
        self._per = self.penalty_discount * math.log(self.n) / 2
        self._diag = np.diag(self.cov).copy()
        self._cache: dict[tuple[int, frozenset[int]], float] = {}
        self.n_computed = 0

    # ------------------------------------------------------------ helpers
    def _cols(self, variables: Iterable[int]) -> np.ndarray:
        parts = [np.arange(self.starts[v], self.starts[v + 1]) for v in variables]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)

    def penalty(self, a, b):
        """``c · (ln N / 2) · (a·b + a(a − 1)/2)``: a block of ``a`` columns given ``b``."""
        return self._per * (a * b + a * (a - 1) / 2)

    def _factor(self, cols: np.ndarray) -> np.ndarray | None:
        """The Cholesky factor of ``C[cols, cols]``, or ``None`` when it is singular."""
        return factor(self.cov, cols)

    def _residual(self, lower: np.ndarray, base: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``G = L⁻¹ C[base, cols]``: the columns' covariances with the parents, whitened."""
        return whiten(lower, self.cov, base, cols)

    # --------------------------------------------------------------- API
    def local_score(self, y: int, parents: Iterable[int]) -> float:
        """``s(y | parents)`` (cached; −∞ for a singular family)."""
        key = (int(y), frozenset(int(p) for p in parents))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        self.n_computed += 1
        pa = sorted(key[1])
        a, base = int(self.sizes[y]), self._cols(pa)
        value = -math.inf
        if a == 0:
            value = 0.0
        else:
            ldet = self.ldet_given([y], base)
            if not math.isnan(ldet):
                value = (-0.5 * self.n * (ldet + a * LOG_2PI_E)
                         - self.penalty(a, len(base)))
        self._cache[key] = value
        return value

    def ldet_given(self, variables: Sequence[int], base: np.ndarray) -> float:
        """``ln det`` of the residual covariance of the variables' columns given the
        columns ``base`` (NaN when singular)."""
        return ldet_given(self.cov, base, self._cols(variables))

    def local_score_diff(self, x: int, y: int, parents: Iterable[int]) -> float:
        """``s(y | parents ∪ {x}) − s(y | parents)``."""
        pa = set(parents)
        return self.local_score(y, pa | {x}) - self.local_score(y, pa)

    def _gains(self, y: int, parents: Sequence[int], xs: np.ndarray) -> np.ndarray:
        """``s(y | P ∪ {x}) − s(y | P)`` for the candidates ``xs`` (NaN where singular)."""
        a = int(self.sizes[y])
        out = np.full(len(xs), np.nan)
        if a == 0:
            out[:] = 0.0
            return out
        base = self._cols(parents)
        self.local_score(y, parents)  # s(y | P), cached
        if self.unit:
            return unit_gains(self.cov, base, int(self.starts[y]), self.starts[xs], self.n,
                              self._per)
        both = np.concatenate([base, self._cols([y])])
        f_base, f_both = self._factor(base), self._factor(both)
        if f_base is None or f_both is None:
            return out
        sizes = self.sizes[xs]
        for d in np.unique(sizes):
            pick = np.flatnonzero(sizes == d)
            if d == 0:
                out[pick] = 0.0
                continue
            cols = (self.starts[xs[pick]][:, None] + np.arange(d)[None, :]).ravel()
            change = (self._block_ldets(cols, both, f_both, int(d))
                      - self._block_ldets(cols, base, f_base, int(d)))
            out[pick] = -0.5 * self.n * change - self._per * a * d
        return out

    def _block_ldets(self, cols: np.ndarray, base: np.ndarray, factor, d: int) -> np.ndarray:
        """``ln det C_{XX|base}`` of consecutive blocks of ``d`` columns of ``cols`` (NaN
        where one is determined by ``base``)."""
        g = self._residual(factor, base, cols)
        own = self._diag[cols]
        if d == 1:
            rest = own - np.einsum("ij,ij->j", g, g)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(rest > SINGULAR_TOL * own, np.log(rest), np.nan)
        k = len(cols) // d
        idx = cols.reshape(k, d)
        blocks = self.cov[idx[:, :, None], idx[:, None, :]]
        gx = g.reshape(len(base), k, d)
        blocks = blocks - np.einsum("bki,bkj->kij", gx, gx)
        scale = np.sqrt(own.reshape(k, d))
        sign, ldet = np.linalg.slogdet(blocks / (scale[:, :, None] * scale[:, None, :]))
        tiny = (sign <= 0) | (ldet <= d * math.log(SINGULAR_TOL))
        return np.where(tiny, np.nan, ldet + 2 * np.log(scale).sum(axis=1))

    def local_scores_batch(self, y: int, parents: Iterable[int],
                           candidates: Sequence[int]) -> np.ndarray:
        """``s(y | parents ∪ {x})`` for every ``x`` in ``candidates`` (−∞ where singular)."""
        pa = sorted(int(p) for p in parents)
        gains = self._gains(int(y), pa, np.asarray(candidates, dtype=np.intp))
        self.n_computed += len(candidates)
        return np.where(np.isnan(gains), -np.inf, gains + self.local_score(y, pa))

    def family_gains(self, requests, min_gain: float = 0.0, candidates=None):
        """``(k, x, g)`` of every request ``k = (y, P)`` and candidate ``x ∉ P ∪ {y}``
        with gain ``g > min_gain``, sorted by ``(k, x)``: one solve per request."""
        pool = (np.arange(self.n_vars) if candidates is None
                else np.unique(np.asarray(candidates, dtype=np.intp)))
        member = np.zeros(self.n_vars, dtype=bool)  # scratch: the family's own variables
        out_k, out_x, out_g = [], [], []
        for k, (y, pa) in enumerate(requests):
            pa = sorted(int(p) for p in pa)
            member[pa] = True
            member[int(y)] = True
            xs = pool[~member[pool]]
            member[pa] = False
            member[int(y)] = False
            gains = self._gains(int(y), pa, xs)
            keep = gains > min_gain
            out_k.append(np.full(int(keep.sum()), k, dtype=np.intp))
            out_x.append(xs[keep])
            out_g.append(gains[keep])
        self.n_computed += len(requests)
        if not out_k:
            z = np.zeros(0, dtype=np.intp)
            return z, z, np.zeros(0)
        return np.concatenate(out_k), np.concatenate(out_x), np.concatenate(out_g)

    def prepare_candidates(self, ranked: np.ndarray) -> None:
        """Nothing to prepare: every candidate's columns are in the covariance."""

    # ------------------------------------------------------------- pairs
    def pair_gain_matrix(self, rows: slice) -> np.ndarray:
        """The gains ``s(j | {i}) − s(j | ∅)`` of rows ``i`` of ``rows`` × every ``j``
        (symmetric; NaN on the diagonal)."""
        if self.unit:
            c = self.cov[rows]
            d = self._diag
            with np.errstate(invalid="ignore", divide="ignore"):
                rho2 = c * c / (d[rows][:, None] * d[None, :])
                out = -0.5 * self.n * np.log1p(-np.minimum(rho2, 1.0)) - self._per
        else:
            out = self._block_pair_gains(rows)
        idx = np.arange(rows.start, rows.stop)
        out[idx - rows.start, idx] = np.nan
        return out

    def _block_pair_gains(self, rows: slice) -> np.ndarray:
        """Pair gains of blocks: ``−(N/2) ln det(I − MᵀM) − c·(ln N/2)·a·d`` with ``M`` the
        whitened cross-covariance of the two blocks."""
        white = self._whitened()
        xs = np.arange(rows.start, rows.stop)
        out = np.full((len(xs), self.n_vars), np.nan)
        for d in np.unique(self.sizes[xs]):
            for a in np.unique(self.sizes):
                px = xs[self.sizes[xs] == d]
                py = np.flatnonzero(self.sizes == a)
                if d == 0 or a == 0:
                    out[np.ix_(px - rows.start, py)] = 0.0
                    continue
                cx = (self.starts[px][:, None] + np.arange(d)).ravel()
                cy = (self.starts[py][:, None] + np.arange(a)).ravel()
                m = white[np.ix_(cx, cy)].reshape(len(px), d, len(py), a).transpose(0, 2, 1, 3)
                eye = np.eye(min(d, a))
                prod = (np.einsum("xyia,xyja->xyij", m, m) if d <= a  # M Mᵀ or Mᵀ M
                        else np.einsum("xyia,xyib->xyab", m, m))
                sign, ldet = np.linalg.slogdet(eye - prod)
                gain = np.where(sign > 0, -0.5 * self.n * ldet, np.inf)
                out[np.ix_(px - rows.start, py)] = gain - self._per * a * d
        return out

    def _whitened(self) -> np.ndarray:
        """``D⁻¹ C D⁻ᵀ`` with ``D`` the blocks' own Cholesky factors (identity blocks)."""
        if getattr(self, "_white", None) is None:
            inv = np.zeros_like(self.cov)
            for v in range(self.n_vars):
                cols = self._cols([v])
                lower = self._factor(cols)
                if len(cols) and lower is not None:
                    inv[np.ix_(cols, cols)] = np.linalg.inv(lower)
            self._white = inv @ self.cov @ inv.T
        return self._white

    def pairwise_gains(self, min_gain: float = 0.0, top: int | None = None):
        """All pairs ``i < j`` whose gain exceeds ``min_gain`` (score equivalent: the
        same both ways), from the covariance in blocks of rows; with ``top`` also a
        (V, top) array of every variable's best partners, sorted by index."""
        v = self.n_vars
        dense = None if top is None else np.empty((v, v), dtype=np.float32)
        out_i, out_j, out_g = [], [], []
        for s in range(0, v, _ROWS_PER_BLOCK):
            rows = slice(s, min(v, s + _ROWS_PER_BLOCK))
            block = self.pair_gain_matrix(rows)
            if dense is not None:
                dense[rows] = np.nan_to_num(block, nan=-np.inf)
            upper = np.arange(v)[None, :] > np.arange(rows.start, rows.stop)[:, None]
            ii, jj = np.nonzero(upper & (block > min_gain))
            out_i.append(ii + s)
            out_j.append(jj)
            out_g.append(block[ii, jj])
        for y in range(v):
            self.local_score(y, ())
        found = (np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_g))
        if dense is None:
            return found
        return (*found, best_partners(dense, top))
