"""The compiled counts and lnΓ sums (:mod:`causalcal.bootstrap.score.discrete.kernel`) give the
numpy code's numbers bit for bit, so the fallback without numba finds the same CPDAGs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from causalcal.bootstrap import BDeuScore, bootstrap_weights, fges
from causalcal.bootstrap.score.discrete import kernel
from causalcal.bootstrap.score.discrete.family_gains import family_gains
from causalcal.data import DiscreteData
from causalcal.simulate import random_network

pytestmark = pytest.mark.skipif(not kernel.KERNEL, reason="numba kernel turned off")


def _with_and_without_kernel(monkeypatch, run):
    monkeypatch.setattr(kernel, "KERNEL", False)
    numpy_result = run()
    monkeypatch.setattr(kernel, "KERNEL", True)
    return numpy_result, run()


def _mixed_data(n=2000, seed=3):
    """Arities 1 to 6 (one missing), dependent columns, families of over 128 cells."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, size=(n, 14))
    x[:, 5] = rng.integers(0, 2, n)
    x[:, 7] = (x[:, 5] + rng.integers(0, 3, n)) % 4
    x[:, 9] = 0
    x[:, 11] = (x[:, 0] + x[:, 1] + rng.integers(0, 2, n)) % 6
    x[:, 12] = (x[:, 11] + (rng.random(n) < 0.3)) % 3
    arities = [3] * 5 + [2, 3, 4, 3, 1, 3, 6, 3, 3]
    return DiscreteData(x, arities=arities), rng


@pytest.mark.parametrize("cands", [None, [13, 0, 3, 7, 9, 5, 11, 12]])
def test_family_gains_bit_for_bit(monkeypatch, cands):
    """Single and stacked families (one target's requests share their finest partition),
    small and large (> 128 columns: numpy's pairwise sum), all variables or a subset."""
    data, rng = _mixed_data()
    w = rng.integers(0, 4, data.n_samples)
    requests = [(0, frozenset()), (7, frozenset({1})), (3, frozenset({1, 2, 5})),
                (9, frozenset({0})), (5, frozenset({7, 9, 11})),
                (12, frozenset({0, 1, 2, 11})),  # 3·3·3·6 configurations × 3: pairwise
                (4, frozenset()), (4, frozenset({6})), (4, frozenset({6, 8})),
                (4, frozenset({2})), (4, frozenset({2, 6, 8, 10}))]

    def run():
        return family_gains(BDeuScore(data, weights=w), requests, -np.inf, cands)

    before, after = _with_and_without_kernel(monkeypatch, run)
    assert len(before[0]) > 50
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)


def test_one_hot_rows_equal(monkeypatch):
    from causalcal.bootstrap.score.discrete.family_gains import batch_layout

    data, rng = _mixed_data(n=300)
    score = BDeuScore(data, weights=rng.integers(0, 4, data.n_samples))
    lay = batch_layout(score)
    for r0, r1, dtype in [(0, score.n_samples, None), (17, 150, np.uint8)]:
        before, after = _with_and_without_kernel(
            monkeypatch, lambda r0=r0, r1=r1, dtype=dtype: lay.encode(r0, r1, dtype))
        np.testing.assert_array_equal(before, after)
        assert before.dtype == after.dtype and before.sum() > 0


def test_family_rows_bit_for_bit(monkeypatch):
    """Labels, totals and configuration starts of 400 random families (up to 7 parents,
    some with unobserved (configuration, y) rows, some past the compiled size limit)."""
    from causalcal.bootstrap.score.discrete.family_gains import _family_rows

    data, rng = _mixed_data(n=300)
    score = BDeuScore(data, weights=rng.integers(0, 4, data.n_samples))
    for _ in range(400):
        y = int(rng.integers(14))
        others = [j for j in range(14) if j != y]
        pa = sorted(rng.choice(others, int(rng.integers(0, 8)), replace=False).tolist())
        before, after = _with_and_without_kernel(
            monkeypatch, lambda y=y, pa=pa: _family_rows(score, y, pa))
        for a, b in zip(before, after):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


@pytest.mark.parametrize("top", [None, 5])
def test_pairwise_gains_bit_for_bit(monkeypatch, top):
    data, rng = _mixed_data(n=700)
    w = rng.integers(0, 4, data.n_samples)
    before, after = _with_and_without_kernel(
        monkeypatch, lambda: BDeuScore(data, weights=w).pairwise_gains(-np.inf, top=top))
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", [1, 5, 8, 9, 16, 127, 128, 129, 130, 257, 300, 1100, 4099])
def test_pairwise_sum_is_numpys(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n + 7) * 10.0 ** rng.integers(-3, 6, n + 7)
    stack, sums = np.zeros((64, 3), np.int64), np.zeros(64)
    for a in (0, 7):
        got = kernel._pairwise(x, a, min(n, len(x) - a), stack, sums)
        assert got == x[a : a + min(n, len(x) - a)].sum()


@pytest.mark.parametrize("k", [1, 3])
def test_counts_equal_the_sparse_product(k):
    rng = np.random.default_rng(k)
    n, width, n_rows = 300, 40, 11
    onehot = (rng.random((n, width)) < 0.4).astype(np.uint8)
    rows = rng.integers(0, n_rows, n * k)
    w = rng.integers(1, 5, n).astype(np.float32)
    z = sparse.csc_matrix((np.repeat(w, k), rows, np.arange(0, n * k + 1, k)),
                          shape=(n_rows, n))
    want = z @ onehot.astype(np.float32)
    np.testing.assert_array_equal(kernel.count_rows(onehot, rows, k, w, n_rows), want)


@pytest.mark.parametrize("k, n, top_weight", [(1, 64, 1), (1, 300, 7), (3, 129, 40)])
def test_bit_counts_equal_the_dense_product(k, n, top_weight):
    """Counts from bit sets (weights a binary digit at a time) for a subset of columns:
    the gathered dense product's numbers, at word boundaries and with large weights."""
    rng = np.random.default_rng(n)
    width, n_rows = 50, 9
    onehot_t = (rng.random((width, n)) < 0.4).astype(np.uint8)
    # stacked requests have their own rows: request i's are i·n_rows/k … (i+1)·n_rows/k − 1
    rows = rng.integers(0, n_rows // k, n * k) + np.tile(np.arange(k) * (n_rows // k), n)
    w = rng.integers(1, top_weight + 1, n)
    cols = np.sort(rng.choice(width, 17, replace=False))
    zt = np.zeros((n, n_rows), np.float32)
    for i in range(k):
        np.add.at(zt, (np.arange(n), rows[i::k]), w.astype(np.float32))
    want = onehot_t[cols].astype(np.float32) @ zt
    got = kernel.count_bits(kernel.pack_bits(onehot_t), cols, rows, k, w,
                                 int(w.max()).bit_length(), n_rows)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("v, seed", [(40, 0), (120, 1)])
def test_search_finds_the_same_cpdag(monkeypatch, v, seed):
    data = random_network(v, 2 * v, seed=seed).sample(500, seed=seed + 1)
    w = bootstrap_weights(data.n_samples, 0, seed)

    def run():
        g = fges(data, w, max_candidates=v // 4)  # a subset of candidates for each node
        h = fges(data, w)  # all candidates: the compiled count
        return [e.tolist() for e in (g.directed_edges(), g.undirected_edges(),
                                     h.directed_edges(), h.undirected_edges())]

    before, after = _with_and_without_kernel(monkeypatch, run)
    assert before == after
    assert len(before[2]) + len(before[3]) > v // 2
