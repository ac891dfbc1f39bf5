"""BDeu score: causal-learn's numbers, hand-derived terms, weights, batched counting."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from causallearn.score.LocalScoreFunction import local_score_BDeu

from causalcal.bootstrap import BDeuScore
from causalcal.bootstrap.score.discrete.family_gains import batch_layout, family_gains
from causalcal.data import DiscreteData
from causalcal.graph import PDAG, dag_to_cpdag


def _data(seed=0, n=300, v=6):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, size=(n, v))
    x[:, 1] = (x[:, 0] + rng.integers(0, 2, n)) % 3
    x[:, 4] = rng.integers(0, 2, n)
    x[:, 5] = (x[:, 4] + (rng.random(n) < 0.2)) % 2
    return x, DiscreteData(x)


def _brute_bdeu(codes, arities, y, parents, weights, alpha=1.0, beta=1.0):
    """Textbook weighted BDeu from dictionaries (independent of the vectorised code)."""
    v = codes.shape[1]
    q = math.prod(int(arities[p]) for p in parents)
    r = int(arities[y])
    nj, njk = Counter(), Counter()
    for row, w in zip(codes, weights):
        j = tuple(row[p] for p in parents)
        nj[j] += w
        njk[j, row[y]] += w
    s = sum(math.lgamma(alpha / q) - math.lgamma(c + alpha / q) for c in nj.values())
    s += sum(math.lgamma(c + alpha / (r * q)) - math.lgamma(alpha / (r * q)) for c in njk.values())
    vm, k = v - 1, len(parents)
    return s + k * math.log(beta / vm) + (vm - k) * math.log(1 - beta / vm)


@pytest.mark.parametrize("parents", [[], [0], [2, 0], [0, 1, 2], [0, 1, 2, 3, 5]])
def test_matches_causallearn_local_score(parents):
    x, d = _data()
    s = BDeuScore(d)
    for y in (3, 4):
        if y in parents:
            continue
        assert s.local_score(y, parents) == pytest.approx(
            local_score_BDeu(x, y, parents), rel=1e-12, abs=1e-9
        )


def test_real_weights_match_brute_force_and_repetition():
    x, d = _data(1, n=120)
    rng = np.random.default_rng(3)
    w = rng.random(120) * 3
    s = BDeuScore(d, weights=w, sample_prior=2.5, structure_prior=0.5)
    for y, pa in [(1, []), (1, [0]), (3, [0, 2, 5])]:
        assert s.local_score(y, pa) == pytest.approx(
            _brute_bdeu(x, d.arities, y, pa, w, 2.5, 0.5), rel=1e-10
        )
    wi = rng.integers(0, 4, 120)
    rep = np.repeat(np.arange(120), wi)
    a = BDeuScore(d, weights=wi)
    b = BDeuScore(DiscreteData(x[rep], arities=d.arities))
    assert a.local_score(3, [0, 1]) == pytest.approx(b.local_score(3, [0, 1]), rel=1e-12)


def test_rows_of_weight_zero_are_dropped():
    """A bootstrap replicate's rows of weight 0 are left out: every score, pairwise gain and
    family gain equals that of the data without those rows."""
    x, d = _data(2, n=200)
    w = np.random.default_rng(5).multinomial(200, np.full(200, 1 / 200))
    keep = w > 0
    a = BDeuScore(d, weights=w)
    b = BDeuScore(DiscreteData(x[keep], arities=d.arities), weights=w[keep])
    assert a.n_samples == b.n_samples == int(keep.sum()) < 200
    for y, pa in [(0, []), (2, [1]), (4, [0, 3, 5])]:
        assert a.local_score(y, pa) == b.local_score(y, pa)
    for got, want in zip(a.pairwise_gains(top=3), b.pairwise_gains(top=3)):
        np.testing.assert_array_equal(got, want)
    reqs = [(1, frozenset({0})), (3, frozenset({2, 4}))]
    for got, want in zip(family_gains(a, reqs, -np.inf), family_gains(b, reqs, -np.inf)):
        np.testing.assert_array_equal(got, want)


def test_structure_prior_term_and_switch():
    x, d = _data()
    s1 = BDeuScore(d, structure_prior=1.0)
    s0 = BDeuScore(d, structure_prior=0.0)
    vm = d.n_vars - 1
    for k, pa in enumerate([[], [0], [0, 2]]):
        term = k * math.log(1 / vm) + (vm - k) * math.log(1 - 1 / vm)
        assert s1.local_score(1, pa) - s0.local_score(1, pa) == pytest.approx(term, abs=1e-9)


def test_batch_equals_single_scores_dense_and_sparse_paths():
    x, d = _data(2, n=200, v=8)
    batch = BDeuScore(d)
    single = BDeuScore(d)
    for y, pa in [(0, []), (3, [1]), (7, [0, 1, 2, 4])]:  # the last one is sparse
        cands = [c for c in range(8) if c != y and c not in pa]
        got = batch.local_scores_batch(y, pa, cands)
        want = [single.local_score(y, pa + [c]) for c in cands]
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("weighted", ["none", "int", "real"])
def test_pairwise_gains_equal_local_score_differences(weighted):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, size=(150, 7))
    x[:, 2] = rng.integers(0, 4, 150)  # mixed arities
    x[:, 3] = (x[:, 2] + (rng.random(150) < 0.3)) % 4
    x[:, 5:] = 0  # two constant columns (arity 1) pair with every other arity
    d = DiscreteData(x)
    assert list(d.arities[5:]) == [1, 1]
    w = {"none": None, "int": rng.integers(0, 3, 150), "real": rng.random(150)}[weighted]
    gi, gj, gain = BDeuScore(d, weights=w).pairwise_gains(min_gain=-np.inf)
    assert len(gi) == 21 and np.all(gi < gj)
    ref = BDeuScore(d, weights=w)
    for i, j, g in zip(gi, gj, gain):
        assert g == pytest.approx(ref.local_score_diff(i, j, []), abs=1e-8)
        assert g == pytest.approx(ref.local_score_diff(j, i, []), abs=1e-8)  # score equivalence
    pos = BDeuScore(d, weights=w).pairwise_gains()
    assert set(zip(pos[0], pos[1])) == {(i, j) for i, j, g in zip(gi, gj, gain) if g > 0}


def test_score_dag_and_pdag_are_equal_over_the_class():
    x, d = _data()
    s = BDeuScore(d)
    dag = PDAG.from_edges(6, directed=[(0, 1), (1, 3), (4, 5)])
    other = PDAG.from_edges(6, directed=[(1, 0), (3, 1), (5, 4)])  # same class
    assert s.score_dag(dag) == pytest.approx(s.score_dag(other), rel=1e-12)
    assert s.score_pdag(dag_to_cpdag(dag)) == pytest.approx(s.score_dag(dag), rel=1e-12)
    with pytest.raises(ValueError, match="DAG"):
        s.score_dag(dag_to_cpdag(dag))


def test_errors_name_the_problem():
    x, d = _data()
    with pytest.raises(ValueError, match="shape"):
        BDeuScore(d, weights=np.ones(3))
    with pytest.raises(ValueError, match=r"weights\[2\]"):
        w = np.ones(300)
        w[2] = -1
        BDeuScore(d, weights=w)
    with pytest.raises(ValueError, match="sum to zero"):
        BDeuScore(d, weights=np.zeros(300))
    with pytest.raises(ValueError, match="structure_prior"):
        BDeuScore(d, structure_prior=5)
    with pytest.raises(ValueError, match="sample_prior"):
        BDeuScore(d, sample_prior=0)
    with pytest.raises(ValueError, match="DiscreteData"):
        BDeuScore(x)
    big = DiscreteData(np.arange(30).reshape(-1, 1) % 25 * np.ones((1, 3), dtype=int))
    with pytest.raises(ValueError, match="'X0'.*max_arity"):
        BDeuScore(big)
    with pytest.raises(ValueError, match="own parent"):
        BDeuScore(d).local_score(1, [1])


def test_constant_column_and_single_row():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(50, 4))
    x[:, 1] = 0
    d = DiscreteData(x)  # the constant column gets arity 1, as from_frame gives it
    assert d.arities[1] == 1
    s = BDeuScore(d)
    # a constant (arity-1) child or parent changes only the structure-prior term
    prior = s.structure_term(1) - s.structure_term(0)
    assert prior < 0
    assert s.local_score_diff(0, 1, []) == pytest.approx(prior, abs=1e-9)
    assert s.local_score_diff(1, 0, [2]) == pytest.approx(prior, abs=1e-9)
    one = BDeuScore(DiscreteData(x[:1], arities=[2, 2, 2, 2]))
    assert np.isfinite(one.local_score(0, [1, 2]))


def test_torch_path_gives_the_same_pairwise_gains():
    pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    x = rng.integers(0, 3, size=(200, 6))
    x[:, 1] = (x[:, 0] + (rng.random(200) < 0.3)) % 3
    d = DiscreteData(x)
    w = rng.integers(0, 3, 200)
    a = BDeuScore(d, weights=w).pairwise_gains(min_gain=-np.inf)
    b = BDeuScore(d, weights=w, device="cpu").pairwise_gains(min_gain=-np.inf)
    for u, t in zip(a, b):
        np.testing.assert_allclose(u, t, rtol=1e-12)


@pytest.mark.parametrize("weighted", ["none", "int", "real"])
def test_family_gains_equal_local_score_differences(weighted):
    """The stacked count products give s(y | P ∪ {x}) − s(y | P) for every x, with mixed
    arities (one of them constant, one beyond a missing arity) and every kind of weights."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, size=(300, 12))
    x[:, 5] = rng.integers(0, 2, 300)
    x[:, 7] = (x[:, 5] + rng.integers(0, 3, 300)) % 4
    x[:, 9] = 0
    d = DiscreteData(x, arities=[3] * 5 + [2, 3, 4, 3, 1, 3, 6])  # no arity 5
    w = {"none": None, "int": rng.integers(0, 3, 300), "real": rng.random(300) * 2}[weighted]
    s, ref = BDeuScore(d, weights=w), BDeuScore(d, weights=w)
    requests = [(0, frozenset()), (7, frozenset({1})), (3, frozenset({1, 2, 5})),
                (9, frozenset({0})), (5, frozenset({7, 9, 11})),
                # one target's requests share the counts of the union of their parents
                (4, frozenset()), (4, frozenset({6})), (4, frozenset({6, 8})), (4, frozenset({2}))]
    ks, xs, gains = family_gains(s, requests, min_gain=-np.inf)
    assert np.all(np.diff(ks) >= 0)
    for k, (y, pa) in enumerate(requests):
        got = dict(zip(xs[ks == k].tolist(), gains[ks == k].tolist()))
        assert sorted(got) == [j for j in range(12) if j != y and j not in pa]
        for j, g in got.items():
            assert g == pytest.approx(ref.local_score_diff(j, y, pa), abs=1e-8)
    pos = family_gains(s, requests)
    assert len(pos[0]) == int(np.sum(gains > 0))
    some = [11, 0, 3, 7, 9, 5]  # a subset of candidates (counted from gathered columns)
    sk, sx, sg = family_gains(s, requests, min_gain=-np.inf, candidates=some)
    keep = np.isin(xs, some)
    np.testing.assert_array_equal(sk, ks[keep])
    np.testing.assert_array_equal(sx, xs[keep])
    np.testing.assert_allclose(sg, gains[keep], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 10, 16, 17, 100, 129, 130, 300, 1100])
def test_block_and_segment_sums_equal_reduceat_bit_for_bit(n):
    """The family sums replace ``np.add.reduceat`` (slow on short segments of many rows):
    the same sums bit for bit, so the gains, and every CPDAG, are those of before."""
    from causalcal.bootstrap.score.discrete.lngamma_sums import _segment_sums
    from causalcal.bootstrap.score.discrete.lngamma_sums import block_sums as _block_sums

    rng = np.random.default_rng(n)
    cuts = np.unique(np.r_[0, rng.integers(0, n, 4)])
    for rows in (1, 3, 750):
        x = rng.standard_normal((rows, n)) * 10.0 ** rng.integers(0, 6, n)
        want = np.add.reduceat(x, cuts, axis=-1)
        np.testing.assert_array_equal(np.stack(_segment_sums(x, cuts), axis=-1), want)
        np.testing.assert_array_equal(_block_sums(x, cuts, exact=False), want)
        counts = rng.integers(0, 500, (rows, n)).astype(np.float32)  # exact in float32
        np.testing.assert_array_equal(_block_sums(counts, cuts, exact=True),
                                      np.add.reduceat(counts, cuts, axis=-1))


@pytest.mark.parametrize("weighted", ["int", "real"])
def test_torch_path_gives_the_same_family_gains(weighted):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 3, size=(250, 10))
    x[:, 4] = (x[:, 2] + (rng.random(250) < 0.2)) % 3
    d = DiscreteData(x)
    w = rng.integers(0, 3, 250) if weighted == "int" else rng.random(250) * 2
    requests = [(0, frozenset()), (4, frozenset({2})), (4, frozenset({2, 7})), (6, frozenset({1}))]
    for cands in (None, [1, 3, 5, 7, 9]):
        a = family_gains(BDeuScore(d, weights=w), requests, -np.inf, cands)
        b = family_gains(BDeuScore(d, weights=w, device="cpu"), requests, -np.inf, cands)
        for u, t in zip(a, b):
            if weighted == "int":  # exact counts: the same gains bit for bit
                np.testing.assert_array_equal(u, t)
            np.testing.assert_allclose(u, t, rtol=1e-12)


def test_candidate_columns_prepared_at_once_equal_those_made_on_demand():
    """``remember_columns`` (every node's candidate list at once, as FGES does after the
    pairwise ranking) gives the layout of each list that a single call builds, and the
    same gains; lists mix arities 1 to 4."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, size=(200, 16))
    x[:, 3] = 0
    x[:, 9] = (x[:, 2] + rng.integers(0, 2, 200)) % 2
    arities = [4, 3, 2, 1, 4, 2, 3, 4, 2, 2, 3, 3, 4, 2, 4, 3]
    x = x % np.maximum(arities, 1)
    d = DiscreteData(x, arities=arities)
    rows = np.sort(np.array([rng.choice(16, 7, replace=False) for _ in range(16)]), axis=1)
    on_demand, prepared = BDeuScore(d), BDeuScore(d)
    batch_layout(prepared).remember_columns(rows)
    for y, row in enumerate(rows):
        a, b = batch_layout(on_demand).columns(row), batch_layout(prepared).columns(row)
        np.testing.assert_array_equal(a.variables, b.variables)
        np.testing.assert_array_equal(a.cols, b.cols)
        assert a.groups == b.groups and a.width == b.width == int((d.arities[row] - 1).sum())
        assert sorted(a.variables.tolist()) == row.tolist()
        reqs = [(y, frozenset()), (y, frozenset({(y + 1) % 16}))]
        for got, want in zip(family_gains(prepared, reqs, -np.inf, row),
                             family_gains(on_demand, reqs, -np.inf, row)):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("weighted", [False, True])
def test_pairwise_top_partners_rank_all_gains(weighted):
    rng = np.random.default_rng(6)
    x = rng.integers(0, 3, size=(400, 15))
    for j in range(1, 15):
        x[:, j] = np.where(rng.random(400) < 0.15 * (j % 4), x[:, j - 1], x[:, j])
    d = DiscreteData(x)
    s = BDeuScore(d, weights=rng.integers(0, 3, 400) if weighted else None)
    gi, gj, gain, ranked = s.pairwise_gains(min_gain=-np.inf, top=4)
    full = np.full((15, 15), -np.inf)
    full[gi, gj] = full[gj, gi] = gain
    for v in range(15):
        want = np.argsort(-full[v], kind="stable")[:4]
        assert set(ranked[v].tolist()) == set(want.tolist())
        assert list(ranked[v]) == sorted(ranked[v])


def test_pairwise_gains_in_row_chunks():
    rng = np.random.default_rng(8)
    x = rng.integers(0, 3, size=(500, 9))
    x[:, 1] = (x[:, 0] + (rng.random(500) < 0.3)) % 3
    d = DiscreteData(x)
    w = rng.integers(0, 3, 500)
    whole = BDeuScore(d, weights=w).pairwise_gains(min_gain=-np.inf)
    chunked = BDeuScore(d, weights=w).pairwise_gains(min_gain=-np.inf, onehot_bytes=20_000)
    for u, t in zip(whole, chunked):
        np.testing.assert_allclose(u, t, rtol=1e-12)
