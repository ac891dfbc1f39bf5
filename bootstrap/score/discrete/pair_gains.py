"""Gains of every pair as one count product (thesis §6.2.2; docs/design.md §5).

``Xᵀ diag(w) X`` over the reduced one-hot encoding ``X`` (each variable's last category
dropped, see :mod:`.family_gains`) holds the r_i × r_j count tables of all pairs, hence
``s(j | {i}) − s(j | ∅)`` for every pair (BDeu is score equivalent, so one gain serves
both directions).  The products run in blocks of rows, float32 BLAS for integer weights
(exact counts, lnΓ from lookup tables), torch on ``score.device`` if set.
"""

from __future__ import annotations

import numpy as np

from ..protocol import best_partners
from . import kernel
from .family_gains import batch_layout

__all__ = ["empty_families", "pairwise_gains"]


def _pair_cells(g, ma: np.ndarray, mb: np.ndarray, ra: int, rb: int) -> list:
    """The ``r_a × r_b`` cells of every pair's count table, one (a, b) array per cell, from
    the reduced product block ``g`` and the marginal counts ``ma`` (a, r_a), ``mb`` (b, r_b):
    the dropped last category of either variable is its marginal minus the other cells
    (with a constant variable, r = 1, a cell is a marginal: broadcast to (a, b))."""
    g = g.reshape(len(ma), ra - 1, len(mb), rb - 1)
    rows = []
    for k in range(ra - 1):
        row = [g[:, k, :, m] for m in range(rb - 1)]
        row.append(ma[:, k, None] - sum(row))
        rows.append(row)
    last = [mb[None, :, m] - sum(row[m] for row in rows) for m in range(rb)]
    shape = (len(ma), len(mb))
    return [np.broadcast_to(cell, shape) for cell in [c for row in rows for c in row] + last]


class _PairGains:
    """Gains of all pairs by blocks of ``X'ᵀ diag(w) X'`` (see :func:`pairwise_gains`)."""

    def __init__(self, score, onehot_bytes: int) -> None:
        self.score = score
        self.lay = lay = batch_layout(score)
        n, par = score.n_samples, lay.par
        if lay._onehot is not None or lay.nbytes() <= onehot_bytes:
            self.chunks = [(0, n)]
        else:
            step = max(1, int(onehot_bytes // (lay.width * np.dtype(lay.dtype).itemsize)))
            self.chunks = [(r0, min(n, r0 + step)) for r0 in range(0, n, step)]
        self.torch = None
        if score.device is not None:  # the same products with torch (e.g. on a GPU)
            import torch

            self.torch = torch
        self.encoded = self.encode(0, n) if len(self.chunks) == 1 else None
        # the variables' weighted category counts, a bincount per chunk of variables (a
        # variable's bins get its samples in order, as a bincount of its column adds them)
        width = int(par.max())
        self.marg = np.zeros((len(par), width))
        step = max(1, (1 << 22) // n)
        for p0 in range(0, len(par), step):
            p1 = min(len(par), p0 + step)
            keys = score._codes[lay.order[p0:p1]] + (np.arange(p1 - p0) * width)[:, None]
            w = None if score.weights is None else np.tile(score.weights, p1 - p0)
            counts = np.bincount(keys.ravel(), weights=w, minlength=(p1 - p0) * width)
            self.marg[p0:p1] = counts.reshape(p1 - p0, width)
        self.imarg = np.rint(self.marg).astype(np.int32)
        # S = Σ_k lnΓ(N_k + α/r) − lnΓ(α/r) (a category beyond r adds 0): s(y | ∅) is
        # lnΓ(α) − lnΓ(N + α) + S, and each x adds −S_x to s(y | {x}) (thesis §2.3.2)
        alpha, b = score.sample_prior, score.sample_prior / par[:, None]
        per_category = score.cell_terms(self.marg, b)
        per_var = per_category.sum(axis=1)
        self.empty = -score.cell_terms(score.total_weight, alpha) + per_var
        score.add_penalties(None, self.empty, np.ones(len(par)), par, None)
        self.ax_terms = -per_var
        self.tables: dict[tuple[int, int], np.ndarray] = {}
        self.counts_range = np.arange(int(round(score.total_weight)) + 1)

    def encode(self, r0: int, r1: int):
        """Unweighted and weighted reduced one-hot rows (torch tensors with a device)."""
        lay, w = self.lay, self.score.weights
        oh = lay.onehot if len(self.chunks) == 1 else lay.encode(r0, r1)
        wt = oh if w is None else oh * w[r0:r1, None].astype(lay.dtype)
        if self.torch is not None:
            dev = self.score.device
            oh_t = self.torch.from_numpy(oh).to(dev)
            return oh_t, (oh_t if wt is oh else self.torch.from_numpy(wt).to(dev))
        return oh, wt

    def _log_gammas(self, g, ra: int, r0: int, r1: int, rb: int, c0: int, c1: int, out):
        """Add to ``out`` the Σ over the cells of each pair's table of lnΓ(N + c) − lnΓ(c),
        c = α/(r_a r_b), a cell at a time (integer counts: lnΓ from a table when the
        block is large)."""
        c = self.score.sample_prior / (ra * rb)
        exact = self.lay.exact
        table = self.tables.get((ra, rb)) if exact else None
        if exact and table is None:
            table = self.tables[(ra, rb)] = self.score.cell_terms(self.counts_range, c)
        if exact and kernel.KERNEL:  # the same sums in one compiled loop
            kernel.pair_terms(g, self.imarg[r0:r1], self.imarg[c0:c1], ra, rb, table, out)
            return
        marg = self.imarg if exact else self.marg
        if exact:
            g = g.astype(np.int32)
        cells = _pair_cells(g, marg[r0:r1, :ra], marg[c0:c1, :rb], ra, rb)
        if not exact or g.size <= len(self.counts_range):
            for cell in cells:
                out += self.score.cell_terms(cell, c)
            return
        looked = np.empty(out.shape)
        for cell in cells:  # into one buffer ("clip": no bounds-check copy; all in range)
            np.take(table, cell, out=looked, mode="clip")
            out += looked

    def block(self, s: int, e: int) -> np.ndarray:
        """Gains of the pairs (i, j) with sorted positions ``s ≤ i < e``, ``j ≥ s``."""
        lay, cols, v = self.lay, self.lay.cols, len(self.lay.order)
        b = np.empty((e - s, v - s), dtype=np.float64)
        pairs = [
            (ra, max(ga0, s), min(ga1, e), rb, max(gb0, s), gb1)
            for ra, ga0, ga1, _ in lay.groups
            for rb, gb0, gb1, _ in lay.groups
            if max(ga0, s) < min(ga1, e) and max(gb0, s) < gb1
        ]
        counts: list = [None] * len(pairs)
        for q0, q1 in self.chunks:  # Σ over row chunks of X'_cᵀ diag(w_c) X'_c
            oh, wt = self.encoded if self.encoded is not None else self.encode(q0, q1)
            for k, (_, r0, r1, _, c0, c1) in enumerate(pairs):
                part = wt[:, cols[r0] : cols[r1]].T @ oh[:, cols[c0] : cols[c1]]
                counts[k] = part if counts[k] is None else counts[k] + part
        b[...] = 0.0
        for (ra, r0, r1, rb, c0, c1), g in zip(pairs, counts):
            if self.torch is not None:
                g = g.cpu().numpy()
            self._log_gammas(g, ra, r0, r1, rb, c0, c1, b[r0 - s : r1 - s, c0 - s : c1 - s])
        d_prior = self.score.structure_term(1) - self.score.structure_term(0)
        b += self.ax_terms[s:e, None] - self.empty[None, s:] + d_prior
        self.score.add_pair_penalties(b, lay.par[s:e], lay.par[s:])
        return b


def pairwise_gains(
    score,
    min_gain: float = 0.0,
    top: int | None = None,
    block_bytes: int = 48 << 20,
    onehot_bytes: int = 256 << 20,
):
    """All pairs ``i < j`` with ``s(j | {i}) − s(j | ∅) > min_gain`` (BDeu is score
    equivalent, so the gain is the same for ``j → i``); see
    :meth:`BDeuScore.pairwise_gains <causalcal.bootstrap.BDeuScore.pairwise_gains>`.

    The count tables come from blocks of ``X'ᵀ diag(w) X'`` (reduced one-hot, float32
    BLAS for integer weights, built in row chunks of at most ``onehot_bytes``; torch on
    ``score.device`` if set).  With ``top``, also returns a (V, top) array of each
    variable's ``top`` best partners by gain, sorted by index.
    """
    pg = _PairGains(score, onehot_bytes)
    lay, v = pg.lay, score.n_vars
    dense = None if top is None else np.empty((v, v), dtype=np.float32)  # all written
    out_i, out_j, out_g = [], [], []
    per_var = max(1, int(block_bytes // (8 * int(lay.par.sum()) * int(lay.par.max()))))
    for s in range(0, v - 1, per_var):
        e = min(v, s + per_var)
        b = pg.block(s, e)
        if dense is not None:  # every gain of the block, both ways (score equivalence)
            dense[s:e, s:] = b
            dense[s:, s:e] = b.T
        upper = np.arange(s, v)[None, :] > np.arange(s, e)[:, None]
        ii, jj = np.nonzero((b > min_gain) & upper)
        out_i.append(ii + s)
        out_j.append(jj + s)
        out_g.append(b[ii, jj])
    p0 = score.structure_term(0)
    for p in range(v):
        score._cache.setdefault((int(lay.order[p]), frozenset()), float(pg.empty[p] + p0))
    oi = lay.order[np.concatenate(out_i)] if out_i else np.zeros(0, dtype=np.intp)
    oj = lay.order[np.concatenate(out_j)] if out_j else np.zeros(0, dtype=np.intp)
    gain = np.concatenate(out_g) if out_g else np.zeros(0)
    lo, hi = np.minimum(oi, oj), np.maximum(oi, oj)
    srt = np.lexsort((hi, lo))
    found = (lo[srt], hi[srt], gain[srt])
    if dense is None:
        return found
    return (*found, best_partners(dense, top, lay.order))


def empty_families(a: np.ndarray, t: np.ndarray, gain: np.ndarray, n_vars: int) -> dict:
    """The improving gains of every family ``(t, ∅)``, from the pairwise gains of the
    arrows ``a → t``: ``{(t, frozenset()): (sources sorted, gains)}`` for every variable,
    as :func:`.family_gains.family_gains` would return them."""
    order = np.lexsort((a, t))
    a, t, gain = a[order], t[order], gain[order]
    bounds = np.searchsorted(t, np.arange(n_vars + 1))
    return {(y, frozenset()): (a[bounds[y] : bounds[y + 1]], gain[bounds[y] : bounds[y + 1]])
            for y in range(n_vars)}
