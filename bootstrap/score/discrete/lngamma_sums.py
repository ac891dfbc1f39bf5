"""The lnΓ sums of stacked families from their counts (thesis §2.3.2; docs/design.md §5).

:func:`.family_gains.family_gains` counts; this module turns a block of counts into the
likelihood part of ``s(y | P ∪ {x})`` for every candidate ``x`` and of each ``s(y | P)``:
numpy array operations a table cell at a time, or for integer weights the compiled loop of
:mod:`.kernel`, which adds the same terms in the same order (bit for bit).
"""

from __future__ import annotations

import math

import numpy as np

from . import kernel

__all__ = ["block_likelihoods", "block_sums", "stacked_rows"]

_NO_CUTS = np.zeros(0, dtype=np.intp)


def _lookup_tables(score, keys: list[tuple[float, int]], arities: tuple[int, ...]) -> np.ndarray:
    """For each family key ``(q, r_y)`` and each arity ``r``: the table ``k ↦ lnΓ(k + b) −
    lnΓ(b)`` followed by ``k ↦ lnΓ(a) − lnΓ(k + a)`` (``a = α / (q r)``, ``b = a / r_y``,
    ``k = 0 … total weight``; integer weights only), stacked key by key, arity by arity."""
    cache = score._lgamma_tables
    if len(keys) > 1 and (tuple(keys), arities) in cache:  # several families: stacked once
        return cache[(tuple(keys), arities)]
    blocks = []
    for q, ry in keys:
        block = cache.get((q, ry, arities))
        if block is None:
            k = np.arange(int(round(score.total_weight)) + 1, dtype=np.float64)
            parts = []
            for r in arities:
                a = score.sample_prior / (q * r)
                b = a / ry
                parts += [score.cell_terms(k, b), -score.cell_terms(k, a)]
            block = cache[(q, ry, arities)] = np.concatenate(parts)
        blocks.append(block)
    if len(blocks) == 1:
        return blocks[0]
    stacked = cache[(tuple(keys), arities)] = np.concatenate(blocks)
    return stacked


class _Terms:
    """lnΓ terms of stacked families.  A cell array has one column per row of every family
    (``lnΓ(N + b) − lnΓ(b)``), then one per configuration (``lnΓ(a) − lnΓ(N + a)``), with
    ``a = α / (q r)`` for a variable of arity ``r`` and ``b = a / r_y`` (BDeu, thesis
    §2.3.2).  With integer weights a cell holds its count plus ``off``, the column's
    place in the stacked tables of :func:`_lookup_tables` (without, ``off`` is 0)."""

    def __init__(self, score, lay, fams: list, sizes: list, n_cfg: list) -> None:
        self.exact, self.score = lay.exact, score
        q = [math.exp(score._log_q(f[1])) for f in fams]
        ry = [int(score.arities[f[0]]) for f in fams]
        self.fam_q, self.fam_ry = np.array(q), np.array(ry)
        n_rows, n_cfgs = sum(sizes), sum(n_cfg)
        self.cuts = None if len(fams) == 1 else np.cumsum([0] + sizes + n_cfg[:-1])
        if not self.exact:
            self.dtype, self.off = np.float64, np.zeros(n_rows + n_cfgs, dtype=np.intp)
            self.alpha = score.sample_prior
            self.q = np.concatenate([np.repeat(q, sizes), np.repeat(q, n_cfg)])
            self.ry = np.concatenate([np.repeat(ry, sizes), np.ones(n_cfgs)])
            self.sign = np.repeat([1.0, -1.0], [n_rows, n_cfgs])
            return
        self.dtype = np.intp
        keys = list(zip(q, ry))
        distinct = sorted(set(keys))
        self.table = _lookup_tables(score, distinct, lay.table_arities)
        self.index, self.step = lay.table_index, lay.table_size
        step = self.step
        if len(distinct) == 1:
            self.off = np.zeros(n_rows + n_cfgs, dtype=np.intp)
            self.off[n_rows:] = step
            return
        at = np.array([distinct.index(k) for k in keys]) * (2 * step * len(lay.table_arities))
        self.off = np.concatenate([np.repeat(at, sizes), np.repeat(at + step, n_cfg)])

    def group(self, r: int, blk: np.ndarray, last: np.ndarray, out: np.ndarray) -> None:
        """Sum into ``out`` (families × variables) the terms of a block of variables of arity
        ``r``: ``blk`` (variables × r − 1 × columns) holds all but the last category, whose
        cells are ``last`` minus the others."""
        cells = [blk[:, k] for k in range(r - 1)]
        rest = cells[0] if len(cells) == 1 else sum(cells[1:], cells[0])
        cells.append(last - rest)
        vals = self.look(r, cells[0])
        for c in cells[1:]:
            vals += self.look(r, c)
        self.per_family(vals, out)

    def look(self, r: int, cells: np.ndarray) -> np.ndarray:
        """The terms of the ``cells`` of variables of arity ``r``."""
        if self.exact:
            return self.table[self.index[r] * 2 * self.step :][cells]
        p = self.alpha / (r * self.q) / self.ry
        return self.sign * self.score.cell_terms(cells, p)

    def per_family(self, terms: np.ndarray, out: np.ndarray) -> None:
        """Sum ``terms`` (… × columns) family by family into ``out`` (families × …)."""
        if self.cuts is None:
            terms.sum(axis=-1, out=out[0])
            return
        sums = _segment_sums(terms, self.cuts)
        f = len(sums) // 2
        np.add(sums[:f], sums[f:], out=out)


def stacked_rows(fams: list) -> tuple[list[int], list[int], np.ndarray, np.ndarray]:
    """Of stacked families ``(y, P, rows)``: rows and configurations per family, the row
    totals and the configuration starts, all families' rows one after another."""
    sizes = [len(f[2][1]) for f in fams]
    n_cfg = [len(f[2][2]) for f in fams]
    if len(fams) == 1:
        return sizes, n_cfg, fams[0][2][1], fams[0][2][2]
    tot = np.concatenate([f[2][1] for f in fams])
    row0 = np.cumsum([0] + sizes[:-1])
    cfg_starts = np.concatenate([f[2][2] + o for f, o in zip(fams, row0)])
    return sizes, n_cfg, tot, cfg_starts


def block_likelihoods(score, cs, fams: list, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Likelihood parts of ``s(y | P ∪ {x})`` for stacked families ``(y, P, rows)`` and every
    candidate ``x`` of ``cs`` (a :class:`.family_gains._Columns`; local positions) from their
    reduced counts ``counts`` (width × stacked rows), a category of ``x`` at a time, and
    of each ``s(y | P)`` from its row totals (a constant candidate leaves the likelihood
    as it is)."""
    sizes, n_cfg, tot, cfg_starts = stacked_rows(fams)
    terms = _Terms(score, cs.lay, fams, sizes, n_cfg)
    if terms.exact and kernel.KERNEL:  # the same sums in one compiled loop
        lik, base = kernel.block_likelihoods(
            counts, cfg_starts, tot, terms.off, terms.table, terms.step,
            cs.lay.kernel_arities, cs.group_table, _NO_CUTS if terms.cuts is None
            else terms.cuts, len(fams), len(cs.variables))
    else:
        lik, base = _numpy_likelihoods(terms, cs, counts, cfg_starts, tot, len(fams))
    score.add_penalties(lik, base, terms.fam_q, terms.fam_ry, cs.variables)
    return lik, base


def _numpy_likelihoods(terms: _Terms, cs, counts: np.ndarray, cfg_starts: np.ndarray,
                       tot: np.ndarray, n_fams: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`block_likelihoods` without the compiled kernel."""
    off = terms.off
    # rows, then (configuration, x) counts: the cells of both lnΓ sums side by side
    both = np.concatenate([counts, block_sums(counts, cfg_starts, terms.exact)], axis=1)
    both = both.astype(terms.dtype)
    both += off
    tot = tot.astype(terms.dtype)
    both_tot = np.concatenate([tot, np.add.reduceat(tot, cfg_starts)])
    # the totals plus r·off: the last category's cells (arity r) before the others'
    # (each holding count + off) are subtracted
    last = both_tot + np.multiply.outer(np.array(cs.lay.table_arities), off)
    base = np.empty((n_fams, 1))
    terms.per_family(terms.look(1, last[:1]), base)
    lik = np.empty((n_fams, len(cs.variables)))
    for r, p0, p1, c0 in cs.groups:
        if r == 1:
            lik[:, p0:p1] = base
            continue
        blk = both[c0 : c0 + (p1 - p0) * (r - 1)].reshape(p1 - p0, r - 1, len(off))
        terms.group(r, blk, last[cs.lay.table_index[r]], lik[:, p0:p1])
    return lik, base[:, 0]


def block_sums(x: np.ndarray, starts: np.ndarray, exact: bool) -> np.ndarray:
    """``np.add.reduceat(x, starts, axis=1)``: for ``exact`` integer counts (in floats,
    any order exact) one product with the blocks' 0/1 membership, much faster."""
    if not exact:
        return np.add.reduceat(x, starts, axis=1)
    member = np.zeros((x.shape[1], len(starts)), dtype=x.dtype)
    member[np.arange(x.shape[1]), np.cumsum(np.bincount(starts[1:], minlength=x.shape[1]))] = 1
    return x @ member


def _segment_sums(x: np.ndarray, cuts: np.ndarray) -> list[np.ndarray]:
    """``np.add.reduceat(x, cuts, axis=-1)`` bit for bit (each segment's first element plus
    numpy's pairwise sum of the rest), a segment at a time: reduceat is slow on short
    segments of many rows."""
    ends = np.append(cuts[1:], x.shape[-1]).tolist()
    return [x[..., a] + x[..., a + 1 : b].sum(axis=-1) for a, b in zip(cuts.tolist(), ends)]
