"""Batched BDeu gains from one-hot count products (thesis §6.2.2; docs/design.md §5).

Counting is the hot path of every score-based search here, and counting many families at
once is a matrix product.  Let ``X`` be the n × ΣA one-hot encoding of all variables.

* :func:`.pair_gains.pairwise_gains` — ``Xᵀ diag(w) X`` holds the r_i × r_j count tables
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
are exact, lnΓ comes from lookup tables (:mod:`.lngamma_sums`), and the counts and sums run
as the compiled loops of :mod:`.kernel` (same numbers, bit for bit).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from . import kernel
from .device import DeviceCounts
from .lngamma_sums import block_likelihoods as _block_likelihoods
from .lngamma_sums import block_sums

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
        self._onehot_u8: np.ndarray | None = None
        self._bits: np.ndarray | None = None
        self._all: _Columns | None = None  # the _Columns of all variables
        self._transposed: np.ndarray | None = None
        self._buffer: np.ndarray | None = None
        self._columns: dict[bytes, _Columns] = {}
        self._device: DeviceCounts | None = None
        w = np.ones(score.n_samples) if score.weights is None else score.weights
        self.weights = w.astype(self.dtype)
        # for count_bits: the weights as integers and their number of binary digits
        self.int_weights = w.astype(np.int64) if self.exact else None
        self.n_planes = max(1, int(w.max()).bit_length()) if self.exact else 0
        self.samples = np.arange(score.n_samples)
        self.table_size = int(round(score.total_weight)) + 1 if self.exact else 0
        # a family's lnΓ tables: one pair per arity of a candidate (1: none; see
        # lngamma_sums._lookup_tables), at 2·table_size × its index
        self.table_arities = tuple(sorted({1, *self.arities}))
        self.table_index = {r: i for i, r in enumerate(self.table_arities)}
        self.flag = np.zeros(score.n_vars, dtype=bool)  # scratch of :meth:`_Columns.members`
        self.kernel_arities = np.array(self.table_arities, dtype=np.intp)

    def encode(self, r0: int, r1: int, dtype=None) -> np.ndarray:
        """Reduced one-hot of samples ``r0 … r1 − 1`` (sorted variable order), in the count
        type unless ``dtype`` is given."""
        x = np.zeros((r1 - r0, self.width), dtype=dtype or self.dtype)
        if kernel.KERNEL:
            kernel.encode(self.score._codes, self.order, self.par, self.cols, r0, x)
            return x
        codes = self.score._codes[self.order, r0:r1]  # sorted variables × samples
        hit = codes < (self.par - 1)[:, None]
        at = self.cols[:-1, None] + codes + (np.arange(r1 - r0) * self.width)[None, :]
        x.ravel()[at[hit]] = 1
        return x

    @property
    def onehot(self) -> np.ndarray:
        if self._onehot is None:
            self._onehot = self.encode(0, self.score.n_samples)
        return self._onehot

    @property
    def onehot_u8(self) -> np.ndarray:
        """The one-hot matrix as uint8, for the compiled count (:mod:`.kernel`)."""
        if self._onehot_u8 is None:
            self._onehot_u8 = self.encode(0, self.score.n_samples, np.uint8)
        return self._onehot_u8

    @property
    def bits(self) -> np.ndarray:
        """The transposed one-hot's rows as bit sets (:func:`.kernel.pack_bits`)."""
        if self._bits is None:
            self._bits = kernel.pack_bits(self.transposed)
        return self._bits

    @property
    def device(self) -> DeviceCounts | None:
        """The one-hot matrix on the score's torch device (None: numpy products)."""
        if self._device is None and self.score.device is not None:
            self._device = DeviceCounts(self, self.score.device)
        return self._device

    @property
    def transposed(self) -> np.ndarray:
        """The one-hot matrix as (columns × samples), for gathering columns."""
        if self._transposed is None:
            self._transposed = np.ascontiguousarray(self.onehot.T, dtype=np.uint8)
        return self._transposed

    def columns(self, candidates) -> _Columns:
        """The :class:`_Columns` of ``candidates`` (remembered for up to 2V + 64 lists:
        searches ask for each node's own candidates again and again)."""
        if candidates is None:
            if self._all is None:
                self._all = _Columns(self, self.order, np.array(self.groups, np.intp), None)
            return self._all
        key = np.asarray(candidates, dtype=np.intp).tobytes()
        hit = self._columns.get(key)
        if hit is None:
            if len(self._columns) > 2 * len(self.order) + 64:
                self._columns.clear()
            pos = np.unique(self.position[np.asarray(candidates, dtype=np.intp)])
            hit = self._columns[key] = _subset_columns(self, pos[None])[0]
        return hit

    def remember_columns(self, candidates: np.ndarray) -> None:
        """Prepare the :class:`_Columns` of every row of ``candidates`` (distinct variables
        per row) at once."""
        made = _subset_columns(self, np.sort(self.position[candidates], axis=1))
        for row, cs in zip(candidates, made):
            self._columns[np.ascontiguousarray(row, dtype=np.intp).tobytes()] = cs

    def gather(self, cols: np.ndarray) -> np.ndarray:
        """Rows ``cols`` of the transposed one-hot in the count type, in a buffer reused
        from call to call (valid until the next call)."""
        if self._buffer is None or len(self._buffer) < len(cols):
            self._buffer = np.empty((max(len(cols), 256), self.score.n_samples), self.dtype)
        out = self._buffer[: len(cols)]
        out[...] = self.transposed[cols]
        return out

    def nbytes(self) -> int:
        return self.score.n_samples * self.width * np.dtype(self.dtype).itemsize


def batch_layout(score) -> _Layout:
    """The score's one-hot layout (built once, kept on the score)."""
    if getattr(score, "_batch_layout", None) is None:
        score._batch_layout = _Layout(score)
    return score._batch_layout


class _Columns:
    """The candidate ``variables`` of a :func:`family_gains` call and their arity groups,
    rows ``(arity, first, end, first column)`` of ``group_table`` in local positions (a
    group may be empty).  All variables (``cols`` None): counts come from a sparse product
    with the one-hot matrix; a subset: from a dense product with its rows ``cols`` of the
    transposed one-hot (a cheap gather).  With integer weights the compiled
    :mod:`.kernel` counts instead (bytes into floats; bit sets for a subset), with
    the same numbers."""

    def __init__(self, lay: _Layout, variables: np.ndarray, group_table: np.ndarray,
                 cols) -> None:
        self.lay, self.variables, self.group_table, self.cols = lay, variables, group_table, cols
        self.width = lay.width if cols is None else len(cols)

    @property
    def groups(self) -> list[tuple[int, int, int, int]]:
        """The non-empty arity groups as tuples."""
        return [(int(r), int(p0), int(p1), int(c0))
                for r, p0, p1, c0 in self.group_table.tolist() if p1 > p0]

    def members(self, variables: list[int]) -> np.ndarray:
        """Mask over the candidates (local positions): which are among ``variables``."""
        flag = self.lay.flag  # all False between calls
        flag[variables] = True
        out = flag[self.variables]
        flag[variables] = False
        return out

    def count(self, labels: list[np.ndarray], sizes: list[int]) -> np.ndarray:
        """Weighted counts (columns × stacked rows) of stacked requests whose samples carry
        the row ``labels`` (one array per request, ``sizes`` rows each)."""
        lay, k = self.lay, len(labels)
        w, n = lay.weights, len(lay.weights)
        if k == 1:
            rows = labels[0]
        else:
            offs = np.cumsum([0] + sizes[:-1])
            rows = np.stack([lab + o for lab, o in zip(labels, offs)], axis=1).ravel()
        if lay.device is not None:
            return lay.device.count(self.cols, rows, k, sum(sizes))
        if lay.exact and kernel.KERNEL:
            if self.cols is not None:
                return kernel.count_bits(lay.bits, self.cols, rows, k, lay.int_weights,
                                              lay.n_planes, sum(sizes))
            counts = kernel.count_rows(lay.onehot_u8, rows, k, w, sum(sizes))
            return np.ascontiguousarray(counts.T)
        if self.cols is None:
            z = sparse.csc_matrix(
                (np.repeat(w, k), rows, np.arange(0, len(rows) + 1, k)), shape=(sum(sizes), n)
            )
            return np.ascontiguousarray((z @ lay.onehot).T)
        zt = np.zeros((n, sum(sizes)), dtype=lay.dtype)
        if k == 1:
            zt[lay.samples, rows] = w
        else:
            zt[np.repeat(lay.samples, k), rows] = np.repeat(w, k)
        return lay.gather(self.cols) @ zt


def _subset_columns(lay: _Layout, pos: np.ndarray) -> list[_Columns]:
    """The :class:`_Columns` of each row of ``pos`` (sorted layout positions, as many per
    row), computed for all rows at once."""
    par = lay.par[pos]  # sorted: the layout orders variables by arity
    local = np.zeros((len(pos), pos.shape[1] + 1), dtype=np.intp)
    np.cumsum(par - 1, axis=1, out=local[:, 1:])
    arities = np.array(lay.arities, dtype=np.intp)
    ends = (par[:, :, None] <= arities).sum(axis=1)  # each row's arity groups, as ends
    firsts = np.zeros_like(ends)
    firsts[:, 1:] = ends[:, :-1]
    table = np.stack([np.broadcast_to(arities, ends.shape), firsts, ends,
                      np.take_along_axis(local, firsts, axis=1)], axis=2)
    widths = local[:, -1]
    starts = np.concatenate([[0], np.cumsum(widths)])
    cols = np.repeat((lay.cols[pos] - local[:, :-1]).ravel(), (par - 1).ravel())
    cols += np.arange(len(cols)) - np.repeat(starts[:-1], widths)
    variables = lay.order[pos]
    return [_Columns(lay, variables[i], table[i], cols[starts[i] : starts[i + 1]])
            for i in range(len(pos))]


def _family_rows(score, y: int, parents: list[int]):
    """Observed (config, y) groups: row label per sample, weighted totals, config starts."""
    if kernel.KERNEL and score.weights is not None:  # the same arrays, compiled
        found = kernel.family_rows(score._codes, np.array(parents, dtype=np.intp), y,
                                        score.arities, score.weights, 4 * score.n_samples)
        if found[3]:
            return found[:3]
    r = int(score.arities[y])
    cfg, size = score._config_index(parents)
    key = cfg * r + score._codes[y]
    tot = np.bincount(key, weights=score.weights, minlength=size * r)  # weights > 0
    seen = tot > 0
    if seen.all():  # every (configuration, y) occurs: the keys are the rows
        return key, tot, np.arange(0, size * r, r)
    u = np.flatnonzero(seen)
    inv = (np.cumsum(seen) - 1)[key]
    tot = tot[u]
    c = u // r
    change = np.empty(len(c), dtype=bool)
    change[0] = True
    np.not_equal(c[1:], c[:-1], out=change[1:])
    return inv, tot, np.nonzero(change)[0]


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


def _coarsen(counts: np.ndarray, to: np.ndarray, exact: bool) -> np.ndarray:
    """Sum the columns of ``counts`` that map to the same column ``to[i]`` (all hit)."""
    order = np.argsort(to, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(to[order]) != 0])
    return block_sums(counts[:, order], starts, exact)


def _flush(score, cs: _Columns, min_gain: float, found: list, units: list) -> None:
    """Count a block of units and append its improving ``(k, x, gain)`` to ``found``."""
    counts = cs.count([u[0] for u in units], [u[1] for u in units])
    ks, fams, pieces = [], [], []
    for (_, g, members), o in zip(units, itertools.accumulate([u[1] for u in units], initial=0)):
        for k, fam, to in members:
            ks.append(k)
            fams.append(fam)
            part = counts[:, o : o + g]
            pieces.append(part if to is None else _coarsen(part, to, cs.lay.exact))
    counts = pieces[0] if len(pieces) == 1 else np.concatenate(pieces, axis=1)
    gain, base = _block_likelihoods(score, cs, fams, counts)
    for row, (y, pa, _) in enumerate(fams):  # s(y | P) from the same rows, if not cached
        own = score._cache.setdefault(
            (y, frozenset(pa)), float(base[row]) + score.structure_term(len(pa))
        )
        change = score.structure_term(len(pa) + 1) - own
        xs, g = _select(cs, gain[row], change, pa + [y], min_gain)
        found.append((np.full(len(xs), ks[row]), xs, g))


def _select(cs: _Columns, lik: np.ndarray, change: float, excluded: list[int],
            min_gain: float) -> tuple[np.ndarray, np.ndarray]:
    """The candidates (in their local order) whose gain ``lik + change`` exceeds
    ``min_gain``, none of ``excluded``, and their gains."""
    if kernel.KERNEL:  # the same selection in one compiled pass
        return kernel.select_gains(lik, change, cs.variables,
                                        np.array(excluded, np.intp), min_gain)
    gain = lik + change
    keep = (gain > min_gain) & ~cs.members(excluded)
    return cs.variables[keep], gain[keep]


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
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    if len(requests) == 1:  # the search's usual call: one family, one unit
        y, pa = int(requests[0][0]), sorted(requests[0][1])
        fam = (y, pa, _family_rows(score, y, pa))
        _flush(score, cs, min_gain, found, [(fam[2][0], len(fam[2][1]), [(0, fam, None)])])
        order = np.argsort(found[0][1], kind="stable")
        return tuple(a[order] for a in found[0])
    cap = max(1, _BLOCK_BYTES // (8 * (cs.width + len(cs.variables))))
    flush = functools.partial(_flush, score, cs, min_gain, found)

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
