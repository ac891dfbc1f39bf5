"""Batched BDeu gains from one-hot count products (thesis §6.2.2; docs/design.md §5).

Counting is the hot path of every score-based search here, and counting many families at
once is a matrix product.  Let ``X`` be the n × ΣA one-hot encoding of all variables.

* :func:`.bdeu_pairs.pairwise_gains` — ``Xᵀ diag(w) X`` holds the r_i × r_j count tables
  of all pairs (see that module).
* :func:`family_gains` — for requests ``(y, P)``, ``Zᵀ diag(w) X`` with ``Z`` the one-hot
  of the observed ``(configuration of P, y)`` values holds ``N(P, y, x)`` for every
  variable ``x`` at once, hence ``s(y | P ∪ {x}) − s(y | P)`` for all ``x``.  ``Z`` has
  one entry per sample, so stacked requests cost about n × width additions each (a
  sparse product); the requests of one target share the counts of their finest
  partition; for a subset of candidates their columns are gathered and multiplied densely.

Both products drop the last category of every variable from ``X`` (its counts are the
row totals minus the others), which shrinks the product by a factor of about
``(ΣA − V) / ΣA`` (its square for the pairs).  For integer weights the float32 products
are exact and lnΓ comes from lookup tables.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from scipy import sparse
from scipy.special import gammaln

__all__ = ["batch_layout", "family_gains"]

_BLOCK_BYTES = 64 << 20  # output block of a stacked product
_FINE_MAX_ROWS = 256  # requests of one target share a product up to this many rows


class _Layout:
    """Variables sorted by arity and their reduced one-hot columns (last category dropped).

    ``groups`` lists ``(arity, first position, end position, first column)``; ``order``
    maps sorted position → variable; :meth:`encode` builds rows of the reduced one-hot.
    """

    def __init__(self, score) -> None:
        self.score = score
        self.order = np.argsort(score.arities, kind="stable")
        self.position = np.empty_like(self.order)
        self.position[self.order] = np.arange(len(self.order))
        self.par = score.arities[self.order]
        self.cols = np.concatenate([[0], np.cumsum(self.par - 1)])
        self.groups = []
        for r in np.unique(self.par):
            p0 = int(np.searchsorted(self.par, r, "left"))
            p1 = int(np.searchsorted(self.par, r, "right"))
            self.groups.append((int(r), p0, p1, int(self.cols[p0])))
        self.arities = [g[0] for g in self.groups]
        self.width = int(self.cols[-1])
        self.exact = score.integral_weights and score.total_weight < (1 << 24)
        self.dtype = np.float32 if self.exact else np.float64
        self._onehot: np.ndarray | None = None
        self._transposed: np.ndarray | None = None
        self._columns: dict[bytes, _Columns] = {}
        w = np.ones(score.n_samples) if score.weights is None else score.weights
        self.weights = w.astype(self.dtype)

    def encode(self, r0: int, r1: int) -> np.ndarray:
        """Reduced one-hot of samples ``r0 … r1 − 1`` (sorted variable order)."""
        x = np.zeros((r1 - r0, self.width), dtype=self.dtype)
        rows = np.arange(r1 - r0)
        for p, j in enumerate(self.order):
            c = self.score._codes[j, r0:r1]
            hit = c < self.par[p] - 1
            x[rows[hit], self.cols[p] + c[hit]] = 1
        return x

    @property
    def onehot(self) -> np.ndarray:
        if self._onehot is None:
            self._onehot = self.encode(0, self.score.n_samples)
        return self._onehot

    @property
    def transposed(self) -> np.ndarray:
        """The one-hot matrix as (columns × samples), for gathering columns."""
        if self._transposed is None:
            self._transposed = np.ascontiguousarray(self.onehot.T)
        return self._transposed

    def columns(self, candidates) -> _Columns:
        """The :class:`_Columns` of ``candidates`` (remembered for up to 2V + 64 lists:
        searches ask for each node's own candidates again and again)."""
        if candidates is None:
            return _Columns(self, None)
        key = np.asarray(candidates, dtype=np.intp).tobytes()
        hit = self._columns.get(key)
        if hit is None:
            if len(self._columns) > 2 * len(self.order) + 64:
                self._columns.clear()
            hit = self._columns[key] = _Columns(self, candidates)
        return hit

    def nbytes(self) -> int:
        return self.score.n_samples * self.width * np.dtype(self.dtype).itemsize


def batch_layout(score) -> _Layout:
    """The score's one-hot layout (built once, kept on the score)."""
    if getattr(score, "_batch_layout", None) is None:
        score._batch_layout = _Layout(score)
    return score._batch_layout


class _Columns:
    """The candidate variables of a :func:`family_gains` call and their arity groups
    ``(arity, first, end, first column)`` in local positions.  All variables: counts come
    from a sparse product with the one-hot matrix; a subset: from a dense product with its
    rows of the transposed one-hot (a cheap gather)."""

    def __init__(self, lay: _Layout, candidates: np.ndarray | None) -> None:
        self.lay = lay
        self._by_index: np.ndarray | None = None
        if candidates is None:
            self.variables, self.groups, self.cols = lay.order, lay.groups, None
            self.width = lay.width
            return
        pos = np.sort(lay.position[np.asarray(candidates, dtype=np.intp)])
        if len(pos) > 1 and not np.all(pos[1:] > pos[:-1]):
            pos = np.unique(pos)
        self.variables = lay.order[pos]
        par = lay.par[pos]  # sorted: the layout orders variables by arity
        local = np.concatenate([[0], np.cumsum(par - 1)])
        ends = np.searchsorted(par, lay.arities, "right").tolist()
        self.groups = [(r, p0, p1, int(local[p0]))
                       for r, p0, p1 in zip(lay.arities, [0] + ends[:-1], ends) if p1 > p0]
        self.width = int(local[-1])
        self.cols = np.repeat(lay.cols[pos] - local[:-1], par - 1) + np.arange(self.width)

    def local_of(self, variables: list[int]) -> np.ndarray:
        """Local positions of those ``variables`` that are candidates."""
        if self.cols is None:
            return self.lay.position[variables]
        if self._by_index is None:
            self._by_index = np.argsort(self.variables)
        v = np.asarray(variables, dtype=np.intp)
        at = np.searchsorted(self.variables, v, sorter=self._by_index)
        at = self._by_index[np.minimum(at, len(self.variables) - 1)]
        return at[self.variables[at] == v]

    def count(self, labels: list[np.ndarray], sizes: list[int]) -> np.ndarray:
        """Weighted counts (columns × stacked rows) of stacked requests whose samples carry
        the row ``labels`` (one array per request, ``sizes`` rows each)."""
        w, n, k = self.lay.weights, len(self.lay.weights), len(labels)
        if k == 1:
            rows = labels[0]
        else:
            offs = np.cumsum([0] + sizes[:-1])
            rows = np.stack([lab + o for lab, o in zip(labels, offs)], axis=1).ravel()
        if self.cols is None:
            z = sparse.csc_matrix(
                (np.repeat(w, k), rows, np.arange(0, len(rows) + 1, k)), shape=(sum(sizes), n)
            )
            return np.ascontiguousarray((z @ self.lay.onehot).T)
        zt = np.zeros((n, sum(sizes)), dtype=self.lay.dtype)
        zt[np.repeat(np.arange(n), k), rows] = np.repeat(w, k)
        return self.lay.transposed[self.cols] @ zt


def stacked_tables(score, keys: list[tuple[float, int]]) -> tuple:
    """Stacked tables ``k ↦ lnΓ(k + b) − lnΓ(b)`` and ``k ↦ lnΓ(a) − lnΓ(k + a)`` with
    ``a = α / qr``, ``b = a / r_y`` for the distinct keys ``(qr, r_y)``
    (``k = 0 … total weight``; integer weights only), and each key's table offset
    (``None`` when there is one key)."""
    step = int(round(score.total_weight)) + 1
    distinct = sorted(set(keys))
    cache = score._lgamma_tables
    for qr, ry in distinct:
        if (qr, ry) not in cache:
            k = np.arange(step, dtype=np.float64)
            a = score.sample_prior / qr
            b = a / ry
            cache[(qr, ry)] = (gammaln(k + b) - gammaln(b), gammaln(a) - gammaln(k + a))
    if len(distinct) == 1:
        return (*cache[distinct[0]], None)
    tb = np.concatenate([cache[key][0] for key in distinct])
    ta = np.concatenate([cache[key][1] for key in distinct])
    where = {key: i * step for i, key in enumerate(distinct)}
    return tb, ta, np.array([where[key] for key in keys], dtype=np.intp)


def _family_rows(score, y: int, parents: list[int]):
    """Observed (config, y) groups: row label per sample, weighted totals, config starts."""
    r = int(score.arities[y])
    cfg, size = score._config_index(parents)
    key = cfg * r + score._codes[y]
    seen = np.zeros(size * r, dtype=bool)
    seen[key] = True
    u = np.flatnonzero(seen)
    rank = np.cumsum(seen) - 1
    inv = rank[key]
    tot = np.bincount(inv, weights=score.weights, minlength=len(u))
    c = u // r
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    return inv, tot, starts


def _cells(blk: np.ndarray, tot: np.ndarray) -> list[np.ndarray]:
    """The categories of every variable of a block (variables × r − 1 × rows) as arrays
    (variables × rows); the dropped last one is the row total minus the others."""
    cells = [blk[:, k] for k in range(blk.shape[1])]
    if not cells:  # arity 1: the one category holds the totals
        return [np.repeat(tot[None, :], blk.shape[0], axis=0)]
    rest = cells[0] if len(cells) == 1 else sum(cells[1:], cells[0])
    return cells + [tot - rest]


def _table_sum(table: np.ndarray, cells: list[np.ndarray], off) -> np.ndarray:
    """``Σ_c table[c + off]`` over the cells (``off`` None: no offset)."""
    out = table[cells[0] if off is None else cells[0] + off]
    for c in cells[1:]:
        out += table[c if off is None else c + off]
    return out


def _per_family(t: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sum the rows (last axis) of ``t`` family by family (``starts``): variables × families."""
    return t.sum(axis=1, keepdims=True) if len(starts) == 1 else np.add.reduceat(t, starts, axis=1)


def _family_terms(score, exact: bool, keys: list, sizes, n_cfg, cells, cfg_cells) -> tuple:
    """``Σ lnΓ(N + b) − lnΓ(b)`` over ``cells`` (… × rows) and ``Σ lnΓ(a) − lnΓ(N + a)``
    over ``cfg_cells`` (… × configurations) of families with prior keys ``(qr, r_y)``
    (``a = α / qr``, ``b = a / r_y``; ``sizes`` rows and ``n_cfg`` configurations each)."""
    if exact:
        tb, ta, off = stacked_tables(score, keys)
        one = off is None
        return (_table_sum(tb, cells, None if one else np.repeat(off, sizes)),
                _table_sum(ta, cfg_cells, None if one else np.repeat(off, n_cfg)))
    a = score.sample_prior / np.array([k[0] for k in keys])
    b = np.repeat(a / np.array([k[1] for k in keys]), sizes)
    a = np.repeat(a, n_cfg)
    return (sum(gammaln(c + b) - gammaln(b) for c in cells),
            sum(gammaln(a) - gammaln(c + a) for c in cfg_cells))


def _block_likelihoods(
    score, lay: _Layout, cs: _Columns, fams: list, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Likelihood parts of ``s(y | P ∪ {x})`` for stacked families ``(y, P, rows)`` and every
    variable (sorted positions) from their reduced counts ``counts`` (width × stacked rows),
    a category of ``x`` at a time, and of each ``s(y | P)`` from its row totals."""
    sizes = [len(f[2][1]) for f in fams]
    n_cfg = [len(f[2][2]) for f in fams]
    row0 = np.cumsum([0] + sizes[:-1])
    cfg0 = np.cumsum([0] + n_cfg[:-1])
    tot = np.concatenate([f[2][1] for f in fams]) if len(fams) > 1 else fams[0][2][1]
    cfg_starts = np.concatenate([f[2][2] + o for f, o in zip(fams, row0)])
    q = [math.exp(score._log_q(f[1])) for f in fams]
    ry = [int(score.arities[f[0]]) for f in fams]
    if lay.exact:
        counts = counts.astype(np.int32)
        tot = np.rint(tot).astype(np.int32)
    nj = np.add.reduceat(counts, cfg_starts, axis=1)  # (config, x) counts
    nj_tot = np.add.reduceat(tot, cfg_starts)
    lik = np.empty((len(fams), len(cs.variables)))
    for r, p0, p1, c0 in cs.groups:
        m = p1 - p0
        cells = _cells(counts[c0 : c0 + m * (r - 1)].reshape(m, r - 1, len(tot)), tot)
        cfg_cells = _cells(nj[c0 : c0 + m * (r - 1)].reshape(m, r - 1, len(nj_tot)), nj_tot)
        keys = [(qk * r, rk) for qk, rk in zip(q, ry)]
        t1, t2 = _family_terms(score, lay.exact, keys, sizes, n_cfg, cells, cfg_cells)
        lik[:, p0:p1] = (_per_family(t1, row0) + _per_family(t2, cfg0)).T
    keys = list(zip(q, ry))
    t1, t2 = _family_terms(score, lay.exact, keys, sizes, n_cfg, [tot[None]], [nj_tot[None]])
    return lik, (_per_family(t1, row0) + _per_family(t2, cfg0))[0]


def _units(score, requests: Sequence[tuple[int, frozenset[int]]], dense: bool):
    """Group the requests into product units ``(row labels, rows, members)``: consecutive
    requests of one target share the counts of their finest partition (the union of their
    parent sets) when that is cheaper — a sparse product costs the same for any number of
    rows (up to ``_FINE_MAX_ROWS``), a ``dense`` one grows with them.  A member is ``(k,
    family, fine row → its row or None)``."""
    n = score.n_samples
    for y, group in itertools.groupby(enumerate(requests), key=lambda t: int(t[1][0])):
        members = [(k, sorted(pa)) for k, (_, pa) in group]
        fams = [(y, pa, _family_rows(score, y, pa)) for _, pa in members]
        if len(members) > 1:
            fine = _family_rows(score, y, sorted(set().union(*(pa for _, pa in members))))
            worth = sum(len(f[2][1]) for f in fams) if dense else _FINE_MAX_ROWS + 1
            if len(fine[1]) < worth:
                rep = np.empty(len(fine[1]), dtype=np.intp)
                rep[fine[0]] = np.arange(n)
                maps = [(k, f, f[2][0][rep]) for (k, _), f in zip(members, fams)]
                yield fine[0], len(fine[1]), maps
                continue
        for (k, _), f in zip(members, fams):
            yield f[2][0], len(f[2][1]), [(k, f, None)]


def _coarsen(counts: np.ndarray, to: np.ndarray) -> np.ndarray:
    """Sum the columns of ``counts`` that map to the same column ``to[i]`` (all hit)."""
    order = np.argsort(to, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(to[order]) != 0])
    return np.add.reduceat(counts[:, order], starts, axis=1)


def family_gains(
    score,
    requests: Sequence[tuple[int, frozenset[int]]],
    min_gain: float = 0.0,
    candidates: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All ``(request k, variable x)`` with ``g = s(y_k | P_k ∪ {x}) − s(y_k | P_k) >
    min_gain`` (``x ∉ P_k ∪ {y_k}``; ``x`` among ``candidates`` if given) for requests
    ``(y_k, P_k)``.

    Returns arrays ``(k, x, g)`` sorted by ``(k, x)``.  The requests are counted in blocks:
    one product ``Xᵀ Z`` per block, ``Z`` holding one weighted entry per sample and request
    (sparse for all variables: about n × width additions per request; dense over the
    gathered columns of a subset).
    """
    lay = batch_layout(score)
    cs = lay.columns(candidates)
    cap = max(1, _BLOCK_BYTES // (8 * (cs.width + len(cs.variables))))
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def flush(units: list) -> None:
        counts = cs.count([u[0] for u in units], [u[1] for u in units])
        ks, fams, pieces = [], [], []
        for (_, g, members), o in zip(units, np.cumsum([0] + [u[1] for u in units[:-1]])):
            for k, fam, to in members:
                ks.append(k)
                fams.append(fam)
                part = counts[:, o : o + g]
                pieces.append(part if to is None else _coarsen(part, to))
        counts = pieces[0] if len(pieces) == 1 else np.concatenate(pieces, axis=1)
        gain, base = _block_likelihoods(score, lay, cs, fams, counts)
        for row, (y, pa, _) in enumerate(fams):  # s(y | P) from the same rows, if not cached
            own = score._cache.setdefault(
                (y, frozenset(pa)), float(base[row]) + score.structure_term(len(pa))
            )
            gain[row] += score.structure_term(len(pa) + 1) - own
            gain[row, cs.local_of(pa + [y])] = -np.inf
        kk, xs = np.nonzero(gain > min_gain)
        found.append((np.asarray(ks)[kk], cs.variables[xs], gain[kk, xs]))

    block: list = []
    n_rows = 0
    for unit in _units(score, requests, cs.cols is not None):
        size = unit[1] + sum(len(f[2][1]) for _, f, _ in unit[2])
        if block and n_rows + size > cap:
            flush(block)
            block, n_rows = [], 0
        block.append(unit)
        n_rows += size
    if block:
        flush(block)
    if not found:
        z = np.zeros(0, dtype=np.intp)
        return z, z, np.zeros(0)
    if len(found) == 1:
        out_k, out_x, out_g = found[0]
    else:
        out_k, out_x, out_g = (np.concatenate(a) for a in zip(*found))
    order = np.lexsort((out_x, out_k))
    return out_k[order], out_x[order], out_g[order]
