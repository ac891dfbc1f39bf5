"""Prototype (issue 29): the lnΓ sums of ``family_gains`` compiled with numba, checked and timed.

    python benchmarks/bdeu_kernel_numba.py [--v 1000 5000] [--seed 0]

With integer weights the BDeu likelihood of ``s(y | P ∪ {x})`` for every candidate ``x``
is a sum of lookups in lnΓ tables (``bdeu_batch._lookup_tables``); numpy does it in a
dozen array operations per call (``bdeu_batch._block_likelihoods``), whose overhead is
most of the time at a few hundred cells a call. :func:`block_likelihoods` does the same
lookups in one compiled loop, bit for bit: the cells are the same integers and the terms
are added in numpy's order (category by category, then numpy's pairwise summation over a
family's columns, reproduced by :func:`_pairwise`).

The script runs one default FGES search on replicate 0 of a random network (V, E = 2V,
n = 1000) and, at every call of ``_block_likelihoods``, also calls the kernel on the same
inputs: it prints the calls, the calls whose result is not identical bit for bit, and the
seconds of each (the kernel's first call includes compiling; run twice to use the disk
cache). It needs numba (not a dependency of causalcal: ``pip install numba``); measured
figures are in the closing note of session 9 and docs/design.md §11.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

try:
    from numba import njit
except ImportError:
    njit = None


def _leaf(x, a, n):
    """numpy's pairwise sum of ``x[a:a + n]`` for ``n`` ≤ 128: sequential below 8 terms,
    else 8 accumulators combined as a tree, then the remainder."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += x[a + i]
        return res
    r0, r1, r2, r3 = x[a], x[a + 1], x[a + 2], x[a + 3]
    r4, r5, r6, r7 = x[a + 4], x[a + 5], x[a + 6], x[a + 7]
    i = 8
    m = n - n % 8
    while i < m:
        r0 += x[a + i]
        r1 += x[a + i + 1]
        r2 += x[a + i + 2]
        r3 += x[a + i + 3]
        r4 += x[a + i + 4]
        r5 += x[a + i + 5]
        r6 += x[a + i + 6]
        r7 += x[a + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += x[a + i]
        i += 1
    return res


def _pairwise(x, a, n):
    """``x[a:a + n].sum()`` in numpy's pairwise order, bit for bit: above 128 terms numpy
    halves the range (the first half a multiple of 8) and adds the halves' sums; done here
    with an explicit stack (a recursive compiled function cannot be cached)."""
    if n <= 128:
        return _leaf(x, a, n)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    state = np.zeros(64, np.int64)
    sums = np.empty(64)
    top, n_sums = 0, 0
    starts[0], sizes[0] = a, n
    while top >= 0:
        s, m = starts[top], sizes[top]
        if m <= 128:
            sums[n_sums] = _leaf(x, s, m)
            n_sums += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if state[top] == 2:  # both halves summed: add them
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            top -= 1
            continue
        child_start = s if state[top] == 0 else s + half
        child_size = half if state[top] == 0 else m - half
        state[top] += 1
        top += 1
        starts[top], sizes[top], state[top] = child_start, child_size, 0
    return sums[0]


def _family_sums(vals, cuts, out, k):
    """``out[:, k]``: per family the sum of its columns of ``vals`` as
    ``bdeu_batch._Terms.per_family`` adds them (one family: all columns; several:
    each rows segment and configurations segment as its first term plus the pairwise sum
    of the rest, then the two added)."""
    n_fams = out.shape[0]
    if n_fams == 1:
        out[0, k] = _pairwise(vals, 0, len(vals))
        return
    for f in range(n_fams):
        parts = np.empty(2)
        for h in range(2):
            s = f + h * n_fams
            a = cuts[s]
            b = cuts[s + 1] if s + 1 < len(cuts) else len(vals)
            parts[h] = vals[a] + _pairwise(vals, a + 1, b - a - 1)
        out[f, k] = parts[0] + parts[1]


def _kernel(counts, cfg_starts, tot, off, table, step, arities, groups, cuts,
            n_fams, n_vars):
    width, n_rows = counts.shape
    n_cfgs = len(cfg_starts)
    ncols = n_rows + n_cfgs
    cfg_end = np.empty(n_cfgs, np.int64)
    for c in range(n_cfgs):
        cfg_end[c] = cfg_starts[c + 1] if c + 1 < n_cfgs else n_rows
    both_tot = np.empty(ncols, np.int64)
    for j in range(n_rows):
        both_tot[j] = np.int64(tot[j])
    for c in range(n_cfgs):
        s = 0
        for j in range(cfg_starts[c], cfg_end[c]):
            s += both_tot[j]
        both_tot[n_rows + c] = s
    vals = np.empty(ncols)
    base = np.empty((n_fams, 1))
    for j in range(ncols):  # arity 1 (a constant candidate): the table's first part
        vals[j] = table[both_tot[j] + arities[0] * off[j]]
    _family_sums(vals, cuts, base, 0)
    lik = np.empty((n_fams, n_vars))
    cells = np.empty((arities[-1], ncols), np.int64)
    for g in range(groups.shape[0]):
        r, p0, p1, c0 = groups[g, 0], groups[g, 1], groups[g, 2], groups[g, 3]
        if r == 1:
            for v in range(p0, p1):
                lik[:, v] = base[:, 0]
            continue
        a = 0
        while arities[a] != r:
            a += 1
        start = a * 2 * step
        for v in range(p1 - p0):
            row0 = c0 + v * (r - 1)
            for k in range(r - 1):
                for j in range(n_rows):
                    cells[k, j] = np.int64(counts[row0 + k, j])
                for c in range(n_cfgs):
                    s = 0
                    for j in range(cfg_starts[c], cfg_end[c]):
                        s += cells[k, j]
                    cells[k, n_rows + c] = s
            for j in range(ncols):
                rest = 0
                for k in range(r - 1):
                    cells[k, j] += off[j]
                    rest += cells[k, j]
                value = table[start + cells[0, j]]
                for k in range(1, r - 1):
                    value += table[start + cells[k, j]]
                vals[j] = value + table[start + both_tot[j] + r * off[j] - rest]
            _family_sums(vals, cuts, lik, p0 + v)
    return lik, base[:, 0]


if njit is not None:
    _leaf = njit(cache=True, nogil=True)(_leaf)
    _pairwise = njit(cache=True, nogil=True)(_pairwise)
    _family_sums = njit(cache=True, nogil=True)(_family_sums)
    _kernel = njit(cache=True, nogil=True)(_kernel)


def block_likelihoods(counts: np.ndarray, cfg_starts: np.ndarray, tot: np.ndarray,
                      off: np.ndarray, table: np.ndarray, step: int,
                      arities: tuple[int, ...], groups: list, cuts: np.ndarray | None,
                      n_fams: int, n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """What ``bdeu_batch._block_likelihoods`` returns for integer weights: the
    likelihood parts ``(n_fams, n_vars)`` of every candidate and each family's own.

    ``counts`` (width × rows, exact) are the reduced counts, ``cfg_starts`` the rows'
    configuration starts, ``tot`` the row totals, ``off`` each column's place in the
    stacked ``table`` (``step`` entries a half), ``arities`` the table's arities
    (sorted, 1 first), ``groups`` the candidates' ``(arity, first, end, first column)``,
    ``cuts`` the family segments (None for one family)."""
    return _kernel(np.ascontiguousarray(counts), np.asarray(cfg_starts, np.int64),
                   np.asarray(tot, np.float64), np.asarray(off, np.int64), table, int(step),
                   np.asarray(arities, np.int64), np.asarray(groups, np.int64).reshape(-1, 4),
                   np.zeros(0, np.int64) if cuts is None else np.asarray(cuts, np.int64),
                   int(n_fams), int(n_vars))


def check_search(v: int, seed: int = 0) -> dict:
    """One default FGES search at V = ``v`` with every ``_block_likelihoods`` call also
    made by the kernel: calls, mismatches, seconds of each, the search's seconds."""
    import causalcal.bootstrap.bdeu_batch as batch
    from causalcal.bootstrap import bootstrap_weights, fges
    from causalcal.simulate import random_network

    data = random_network(v, 2 * v, seed=seed).sample(1000, seed=seed + 1)
    weights = bootstrap_weights(data.n_samples, 0, 0)
    numpy_version = batch._block_likelihoods
    stats = {"calls": 0, "mismatches": 0, "numpy_s": 0.0, "kernel_s": 0.0}

    def both(score, cs, fams, counts):
        start = time.perf_counter()
        lik, base = numpy_version(score, cs, fams, counts)
        stats["numpy_s"] += time.perf_counter() - start
        sizes, n_cfg, tot, cfg_starts = batch.stacked_rows(fams)
        terms = batch._Terms(score, cs.lay, fams, sizes, n_cfg)
        start = time.perf_counter()
        lik2, base2 = block_likelihoods(counts, cfg_starts, tot, terms.off, terms.table,
                                        terms.step, cs.lay.table_arities, cs.groups,
                                        terms.cuts, len(fams), len(cs.variables))
        stats["kernel_s"] += time.perf_counter() - start
        stats["calls"] += 1
        stats["mismatches"] += not (np.array_equal(lik, lik2) and np.array_equal(base, base2))
        return lik, base

    batch._block_likelihoods = both
    try:
        start = time.perf_counter()
        fges(data, weights)
        stats["search_s"] = time.perf_counter() - start
    finally:
        batch._block_likelihoods = numpy_version
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--v", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if njit is None:
        print("numba is not installed: pip install numba")
        return
    for v in args.v:
        s = check_search(v, args.seed)
        print(f"V={v}: {s['calls']} calls, {s['mismatches']} not identical; lnΓ sums numpy "
              f"{s['numpy_s']:.3f} s, kernel {s['kernel_s']:.3f} s "
              f"(search with both {s['search_s']:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
