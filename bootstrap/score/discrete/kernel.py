"""The counting steps of the BDeu search as compiled loops (issue 29; docs/design.md §5
and §11).

With integer weights every number here is the numpy code's, **bit for bit**:

* :func:`encode` — the reduced one-hot rows of :meth:`.family_gains._Layout.encode`;
* :func:`family_rows` — a family's row per sample, row totals and configuration starts
  (:func:`.family_gains._family_rows`);
* :func:`count_rows` — the counts of all candidates, ``Zᵀ X``, a sample's row of bytes
  added into its row of floats (instead of scipy's sparse product over float32);
* :func:`count_bits` — the counts of a subset of candidates from bit sets, a weight a
  binary digit at a time (instead of gathering their columns for a dense BLAS product);
* :func:`block_likelihoods` — the BDeu likelihood of ``s(y | P ∪ {x})`` for every
  candidate ``x``, lookups in the lnΓ tables of :func:`.lngamma_sums._lookup_tables` in one
  loop (instead of some 40 array operations in :func:`.lngamma_sums.block_likelihoods`),
  the terms added in numpy's order (category by category, then numpy's pairwise
  summation over a family's columns, :func:`_pairwise`);
* :func:`select_gains` — a family's candidates whose gain exceeds the threshold;
* :func:`pair_terms` — the pairs' lnΓ sums of :mod:`.pair_gains`, cell by cell.

Counts are exact integers either way.  Without numba, or with ``CAUSALCAL_NO_NUMBA=1``
(``KERNEL`` False), the numpy code runs and gives the same numbers.
"""

from __future__ import annotations

import os

import numpy as np

try:  # numba is a dependency; the numpy code is the fallback (same results)
    from numba import njit
except ImportError:  # pragma: no cover - exercised where numba is missing
    njit = None

__all__ = [
    "KERNEL", "block_likelihoods", "count_bits", "count_rows", "encode", "family_rows",
    "pack_bits", "pair_terms", "select_gains",
]

#: whether the compiled kernel is used (``CAUSALCAL_NO_NUMBA=1`` turns it off)
KERNEL = njit is not None and os.environ.get("CAUSALCAL_NO_NUMBA", "") in ("", "0")

_PAIRWISE_BLOCK = 128  # numpy's pairwise summation: below this, 8 accumulators


def _leaf(x, a, n):
    """numpy's sum of ``x[a:a + n]`` for ``n`` ≤ 128: in order below 8 terms, else 8
    accumulators combined as a tree, then the remainder."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += x[a + i]
        return res
    r0, r1, r2, r3 = x[a], x[a + 1], x[a + 2], x[a + 3]
    r4, r5, r6, r7 = x[a + 4], x[a + 5], x[a + 6], x[a + 7]
    m = n - n % 8
    for i in range(8, m, 8):
        r0 += x[a + i]
        r1 += x[a + i + 1]
        r2 += x[a + i + 2]
        r3 += x[a + i + 3]
        r4 += x[a + i + 4]
        r5 += x[a + i + 5]
        r6 += x[a + i + 6]
        r7 += x[a + i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(m, n):
        res += x[a + i]
    return res


def _pairwise(x, a, n, stack, sums):
    """``x[a:a + n].sum()`` in numpy's pairwise order, bit for bit: above 128 terms numpy
    halves the range (the first half a multiple of 8) and adds the halves' sums.  Done
    with an explicit ``stack`` (64 × 3 int64: start, size, state) and its partial ``sums``
    (64): a recursive compiled function cannot be loaded from numba's cache."""
    if n <= _PAIRWISE_BLOCK:
        return _leaf(x, a, n)
    top, n_sums = 0, 0
    stack[0, 0], stack[0, 1], stack[0, 2] = a, n, 0
    while top >= 0:
        s, m, state = stack[top, 0], stack[top, 1], stack[top, 2]
        if m <= _PAIRWISE_BLOCK:
            sums[n_sums] = _leaf(x, s, m)
            n_sums += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if state == 2:  # both halves summed: add them
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            top -= 1
            continue
        stack[top, 2] = state + 1
        top += 1
        stack[top, 0] = s if state == 0 else s + half
        stack[top, 1] = half if state == 0 else m - half
        stack[top, 2] = 0
    return sums[0]


def _candidate_values(counts, row0, r, t0, table, off, both_tot, cfg_starts, cell, rest, vals):
    """``vals[j]``: the summed lnΓ terms of column ``j`` (rows, then configurations) for
    a candidate of arity ``r`` whose reduced counts start at row ``row0`` of ``counts``:
    category by category, the last from the totals."""
    n_rows, n_cfgs = counts.shape[1], len(cfg_starts)
    for k in range(r - 1):
        for j in range(n_rows):
            cell[j] = np.int64(counts[row0 + k, j])
        for c in range(n_cfgs):
            s = 0
            for j in range(cfg_starts[c], cfg_starts[c + 1] if c + 1 < n_cfgs else n_rows):
                s += cell[j]
            cell[n_rows + c] = s
        for j in range(n_rows + n_cfgs):
            value = table[t0 + cell[j] + off[j]]
            if k == 0:
                rest[j] = cell[j]
                vals[j] = value
            else:
                rest[j] += cell[j]
                vals[j] += value
    for j in range(n_rows + n_cfgs):
        vals[j] += table[t0 + both_tot[j] - rest[j] + off[j]]


def _kernel(counts, cfg_starts, tot, off, table, step, arities, groups, cuts, n_fams,
            n_vars):
    """See :func:`block_likelihoods`.  Column ``n_vars`` of ``lik`` is each family's own
    likelihood (a constant candidate's: the arity-1 table); it is done first."""
    n_rows, n_cfgs = counts.shape[1], len(cfg_starts)
    ncols = n_rows + n_cfgs
    both_tot = np.zeros(ncols, np.int64)
    for c in range(n_cfgs):
        for j in range(cfg_starts[c], cfg_starts[c + 1] if c + 1 < n_cfgs else n_rows):
            both_tot[j] = np.int64(tot[j])
            both_tot[n_rows + c] += both_tot[j]
    arity, first, start = (np.ones(n_vars, np.int64), np.zeros(n_vars, np.int64),
                           np.zeros(n_vars, np.int64))
    for g in range(groups.shape[0]):
        r, p0, p1, c0 = groups[g, 0], groups[g, 1], groups[g, 2], groups[g, 3]
        tables = 2 * step * np.searchsorted(arities, r)  # where arity r's lnΓ tables start
        for v in range(p0, p1):
            arity[v], first[v], start[v] = r, c0 + (v - p0) * (r - 1), tables
    stack, sums = np.zeros((64, 3), np.int64), np.zeros(64)
    vals, rest, cell = np.empty(ncols), np.empty(ncols, np.int64), np.empty(ncols, np.int64)
    lik = np.empty((n_fams, n_vars + 1))
    for v in range(-1, n_vars):
        col = n_vars if v < 0 else v
        if v < 0:
            for j in range(ncols):  # the table's first part (arity 1)
                vals[j] = table[both_tot[j] + arities[0] * off[j]]
        elif arity[v] == 1:
            lik[:, v] = lik[:, n_vars]
            continue
        else:
            _candidate_values(counts, first[v], arity[v], start[v], table, off, both_tot,
                              cfg_starts, cell, rest, vals)
        # each family's columns added as lngamma_sums._Terms.per_family adds them (written
        # out here: a compiled call per candidate and family doubles the kernel's time)
        if n_fams == 1:
            lik[0, col] = (_leaf(vals, 0, ncols) if ncols <= _PAIRWISE_BLOCK
                           else _pairwise(vals, 0, ncols, stack, sums))
            continue
        for f in range(n_fams):
            for h in range(2):  # the rows segment, then the configurations segment
                a = cuts[h * n_fams + f]
                b = cuts[h * n_fams + f + 1] if h * n_fams + f + 1 < len(cuts) else ncols
                m = b - a - 1
                part = vals[a] + (_leaf(vals, a + 1, m) if m <= _PAIRWISE_BLOCK
                                  else _pairwise(vals, a + 1, m, stack, sums))
                lik[f, col] = part if h == 0 else lik[f, col] + part
    return lik[:, :n_vars], lik[:, n_vars]


def _count_rows(onehot, rows, k, weights, n_rows):
    """See :func:`count_rows`."""
    n, width = onehot.shape
    out = np.zeros((n_rows, width), np.float32)
    for s in range(n):
        w = weights[s]
        for i in range(k):
            r = rows[s * k + i]
            for c in range(width):  # vectorised: a row of bytes into a row of floats
                out[r, c] += w * onehot[s, c]
    return out


def _popcount(x):
    """Set bits of a uint64 (the classic SWAR count; LLVM turns it into one instruction)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


def _count_bits(bits, cols, rows, k, weights, n_planes, n_rows):
    """See :func:`count_bits`."""
    n_words = bits.shape[1]
    masks = np.zeros((n_rows, n_planes, n_words), np.uint64)
    for s in range(len(weights)):
        word, bit = s >> 6, np.uint64(1) << np.uint64(s & 63)
        for i in range(k):
            r = rows[s * k + i]
            for p in range(n_planes):
                if (weights[s] >> p) & 1:
                    masks[r, p, word] |= bit
    out = np.empty((len(cols), n_rows), np.float32)
    for i in range(len(cols)):
        c = cols[i]
        for r in range(n_rows):
            total = 0
            for p in range(n_planes):
                hits = 0
                for j in range(n_words):
                    hits += _popcount(bits[c, j] & masks[r, p, j])
                total += hits << p
            out[i, r] = total
    return out


def _pair_terms(g, ma, mb, ra, rb, table, out):
    """See :func:`pair_terms`.  A row of pairs at a time, cell by cell: the pairs' sums are
    independent, so the processor overlaps them (a pair at a time waits on each addition)."""
    nb = out.shape[1]
    row = np.empty(nb, np.int64)
    col = np.empty((rb, nb), np.int64)
    for a in range(out.shape[0]):
        col[:, :] = 0
        for k in range(ra - 1):
            grow = a * (ra - 1) + k
            row[:] = 0
            for m in range(rb - 1):
                for b in range(nb):
                    cell = np.int64(g[grow, b * (rb - 1) + m])
                    row[b] += cell
                    col[m, b] += cell
                    out[a, b] += table[cell]
            for b in range(nb):  # the last category of b
                cell = ma[a, k] - row[b]
                col[rb - 1, b] += cell
                out[a, b] += table[cell]
        for m in range(rb):  # the last category of a
            for b in range(nb):
                out[a, b] += table[mb[b, m] - col[m, b]]


def _select_gains(lik, change, variables, excluded, min_gain):
    """See :func:`select_gains`."""
    xs, gains = np.empty(len(lik), np.int64), np.empty(len(lik))
    found = 0
    for i in range(len(lik)):
        g = lik[i] + change
        if g > min_gain:
            for v in excluded:
                if variables[i] == v:
                    break
            else:
                xs[found], gains[found] = variables[i], g
                found += 1
    return xs[:found].copy(), gains[:found].copy()


def _encode(codes, order, par, cols, r0, out):
    """See :func:`encode`."""
    for p in range(len(order)):
        j, last, c0 = order[p], par[p] - 1, cols[p]
        for s in range(out.shape[0]):
            c = codes[j, r0 + s]
            if c < last:
                out[s, c0 + c] = 1


def _family_rows(codes, parents, y, arities, weights, max_configs):
    """See :func:`family_rows`."""
    n, size, r = codes.shape[1], 1, arities[y]
    for p in parents:
        size *= arities[p]
        if size > max_configs:
            return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), False
    key = np.empty(n, np.int64)
    tot = np.zeros(size * r)
    for s in range(n):
        c = 0
        for p in parents:
            c = c * arities[p] + codes[p, s]
        key[s] = c * r + codes[y, s]
        tot[key[s]] += weights[s]
    rank = np.empty(size * r, np.int64)
    n_seen, n_cfgs, last = 0, 0, -1
    starts = np.empty(size, np.int64)
    for j in range(size * r):
        rank[j] = n_seen
        if tot[j] > 0:
            if j // r != last:
                last = j // r
                starts[n_cfgs] = n_seen
                n_cfgs += 1
            tot[n_seen] = tot[j]
            n_seen += 1
    for s in range(n):
        key[s] = rank[key[s]]
    return key, tot[:n_seen].copy(), starts[:n_cfgs].copy(), True


if KERNEL:
    _leaf = njit(cache=True, nogil=True)(_leaf)
    _pairwise = njit(cache=True, nogil=True)(_pairwise)
    _candidate_values = njit(cache=True, nogil=True, inline="always")(_candidate_values)
    _kernel = njit(cache=True, nogil=True)(_kernel)
    _count_rows = njit(cache=True, nogil=True)(_count_rows)
    _popcount = njit(cache=True, nogil=True)(_popcount)
    _count_bits = njit(cache=True, nogil=True)(_count_bits)
    _pair_terms = njit(cache=True, nogil=True)(_pair_terms)
    _family_rows = njit(cache=True, nogil=True)(_family_rows)
    _encode = njit(cache=True, nogil=True)(_encode)
    _select_gains = njit(cache=True, nogil=True)(_select_gains)


def pack_bits(onehot_t: np.ndarray) -> np.ndarray:
    """The rows of a 0/1 matrix (columns × samples, uint8) as bit sets (uint64 words,
    sample ``s`` at bit ``s mod 64`` of word ``s // 64``)."""
    n_words = (onehot_t.shape[1] + 63) // 64
    packed = np.packbits(onehot_t, axis=1, bitorder="little")
    out = np.zeros((onehot_t.shape[0], 8 * n_words), np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view("<u8")


def count_bits(bits: np.ndarray, cols: np.ndarray, rows: np.ndarray, k: int,
               weights: np.ndarray, n_planes: int, n_rows: int) -> np.ndarray:
    """The counts of :func:`count_rows` for the columns ``cols`` only (``len(cols)`` ×
    ``n_rows``, float32) from the bit sets ``bits`` of :func:`pack_bits`: a count is the
    number of samples in both the column's set and the row's, each weight (a non-negative
    integer, int64, of at most ``n_planes`` binary digits) taken a digit at a time.  Exact,
    like the dense product it replaces (a gather of the columns, then float32 BLAS), and
    faster for a few hundred columns."""
    return _count_bits(bits, cols, rows, k, weights, n_planes, n_rows)


def pair_terms(g: np.ndarray, ma: np.ndarray, mb: np.ndarray, ra: int, rb: int,
               table: np.ndarray, out: np.ndarray) -> None:
    """Add to ``out`` (a × b) each pair's Σ over its ``r_a × r_b`` count table of
    ``table[N]`` as :meth:`.pair_gains._PairGains._log_gammas` does, a cell at a time in
    the order of :func:`.pair_gains._pair_cells`: from the reduced product block ``g``
    (exact counts) and the integer marginals ``ma`` (a, ≥ r_a) and ``mb`` (b, ≥ r_b)."""
    _pair_terms(g, ma, mb, ra, rb, table, out)


def select_gains(lik: np.ndarray, change: float, variables: np.ndarray,
                 excluded: np.ndarray, min_gain: float) -> tuple[np.ndarray, np.ndarray]:
    """The candidates (``variables``, in their order) whose gain ``lik + change`` is above
    ``min_gain``, none of them in ``excluded``, and their gains."""
    return _select_gains(lik, change, variables, excluded, min_gain)


def encode(codes: np.ndarray, order: np.ndarray, par: np.ndarray, cols: np.ndarray,
           r0: int, out: np.ndarray) -> None:
    """Set the ones of the reduced one-hot rows of samples ``r0 …`` into ``out`` (zeros,
    samples × columns): variable ``order[p]`` (arity ``par[p]``) has columns ``cols[p] …``
    for all its categories but the last."""
    _encode(codes, order, par, cols, r0, out)


def family_rows(codes: np.ndarray, parents: np.ndarray, y: int, arities: np.ndarray,
                weights: np.ndarray, max_configs: int):
    """What :func:`.family_gains._family_rows` returns (a row label per sample, the rows'
    weighted totals, each configuration's first row) when the parents have at most
    ``max_configs`` configurations, and whether they had (if not: empty arrays)."""
    return _family_rows(codes, parents, y, arities, weights, max_configs)


def count_rows(onehot: np.ndarray, rows: np.ndarray, k: int, weights: np.ndarray,
               n_rows: int) -> np.ndarray:
    """Weighted counts ``Zᵀ X`` (``n_rows`` × columns, float32) of the 0/1 matrix
    ``onehot`` (samples × columns, uint8) for ``k`` stacked requests: sample ``s`` of
    request ``i`` is in row ``rows[s·k + i]`` with weight ``weights[s]`` (float32).  The
    same numbers as the sparse product when the weights are integers (exact sums)."""
    return _count_rows(onehot, rows, k, weights, n_rows)


def block_likelihoods(counts: np.ndarray, cfg_starts: np.ndarray, tot: np.ndarray,
                      off: np.ndarray, table: np.ndarray, step: int,
                      arities: np.ndarray, groups: np.ndarray, cuts: np.ndarray,
                      n_fams: int, n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`.lngamma_sums.block_likelihoods` returns for integer weights: the
    likelihood parts ``(n_fams, n_vars)`` of every candidate and each family's own.

    ``counts`` (width × rows, exact) are the reduced counts, ``cfg_starts`` the rows'
    configuration starts, ``tot`` the row totals, ``off`` each column's place in the
    stacked ``table`` (``step`` entries a half), ``arities`` the table's arities (int64,
    sorted, 1 first), ``groups`` the candidates' ``(arity, first, end, first column)``
    rows (int64), ``cuts`` the family segments (empty for one family)."""
    return _kernel(counts, cfg_starts, tot, off, table, step, arities, groups, cuts,
                   n_fams, n_vars)
