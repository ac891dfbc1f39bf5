"""Discrete BIC: hand counts, pgmpy's BIC, weights, the batched paths, score equivalence."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from test_bdeu import _data

from causalcal.bootstrap import BDeuScore, BICScore
from causalcal.bootstrap.score.discrete import kernel
from causalcal.bootstrap.score.discrete.family_gains import family_gains
from causalcal.bootstrap.score.registry import get_score
from causalcal.data import DiscreteData
from causalcal.errors import InputError


def _brute_bic(codes, arities, y, parents, weights, c=1.0):
    """Σ N_jk ln(N_jk / N_j) − c (ln n / 2) q (r − 1) from dictionaries."""
    nj, njk = Counter(), Counter()
    for row, w in zip(codes, weights):
        j = tuple(row[p] for p in parents)
        nj[j] += w
        njk[j, row[y]] += w
    loglik = sum(cnt * math.log(cnt / nj[j]) for (j, _), cnt in njk.items() if cnt > 0)
    q = math.prod(int(arities[p]) for p in parents)
    return loglik - c * math.log(sum(weights)) / 2 * q * (int(arities[y]) - 1)


def test_hand_case():
    """Two binary columns, n = 4: a = 0 0 1 1, b = 0 1 1 1.  ln L(b | a) = 2 ln ½ (a = 0:
    one of each) + 2 ln 1; q (r − 1) = 2; penalty (ln 4 / 2) · 2 = ln 4."""
    d = DiscreteData(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]))
    s = BICScore(d)
    assert s.local_score(1, [0]) == pytest.approx(2 * math.log(0.5) - math.log(4), abs=1e-12)
    # b alone: 1 zero, 3 ones; one free parameter
    assert s.local_score(1, []) == pytest.approx(
        math.log(1 / 4) + 3 * math.log(3 / 4) - math.log(4) / 2, abs=1e-12)
    assert BICScore(d, penalty_discount=2).local_score(1, [0]) == pytest.approx(
        2 * math.log(0.5) - 2 * math.log(4), abs=1e-12)


@pytest.mark.parametrize("parents", [[], [0], [2, 0], [0, 1, 2], [0, 1, 2, 3, 5]])
def test_matches_brute_force_with_weights(parents):
    x, d = _data(1, n=150)
    w = np.random.default_rng(2).integers(0, 4, 150).astype(float)
    s = BICScore(d, weights=w, penalty_discount=1.5)
    for y in (3, 4):
        if y not in parents:
            assert s.local_score(y, parents) == pytest.approx(
                _brute_bic(x, d.arities, y, parents, w, 1.5), rel=1e-12)


def test_matches_pgmpy_bic():
    pytest.importorskip("pgmpy")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.estimators import BIC
    x, d = _data()
    frame = pd.DataFrame(x, columns=d.names).astype(str)  # every category occurs
    ref = BIC(frame)
    s = BICScore(d)
    for y, pa in [(1, []), (1, [0]), (3, [0, 2]), (5, [4, 1, 2])]:
        assert s.local_score(y, pa) == pytest.approx(
            ref.local_score(d.names[y], [d.names[p] for p in pa]), rel=1e-12)


@pytest.mark.parametrize("compiled", [False, True])
def test_batched_paths_equal_local_scores(monkeypatch, compiled):
    if compiled and not kernel.KERNEL:
        pytest.skip("numba kernel turned off")
    monkeypatch.setattr(kernel, "KERNEL", compiled)
    x, d = _data(3, n=200, v=7)
    w = np.random.default_rng(4).integers(0, 3, 200).astype(float)
    ref = BICScore(d, weights=w)
    i, j, gain = BICScore(d, weights=w).pairwise_gains(min_gain=-np.inf)
    for a, b, g in zip(i, j, gain):
        assert g == pytest.approx(ref.local_score(b, [a]) - ref.local_score(b, []), abs=1e-8)
        assert g == pytest.approx(ref.local_score(a, [b]) - ref.local_score(a, []), abs=1e-8)
    requests = [(3, frozenset({1, 5})), (6, frozenset()), (2, frozenset({0}))]
    ks, xs, gs = family_gains(BICScore(d, weights=w), requests, min_gain=-np.inf)
    assert len(ks) == sum(7 - 1 - len(pa) for _, pa in requests)
    for k, x_, g in zip(ks, xs, gs):
        y, pa = requests[k]
        assert g == pytest.approx(ref.local_score(y, pa | {x_}) - ref.local_score(y, pa),
                                  abs=1e-8)
    batch = BICScore(d, weights=w).local_scores_batch(4, [2], [0, 1, 5, 6])
    assert batch == pytest.approx([ref.local_score(4, [2, c]) for c in (0, 1, 5, 6)])


def test_real_weights_equal_repeated_rows():
    x, d = _data(5, n=80)
    w = np.random.default_rng(6).integers(0, 3, 80)
    rows = np.repeat(np.arange(80), w)
    repeated = BICScore(DiscreteData(x[rows], arities=d.arities))
    weighted = BICScore(d, weights=w * 1.0)
    for y, pa in [(0, []), (1, [0]), (5, [4, 3])]:
        assert weighted.local_score(y, pa) == pytest.approx(repeated.local_score(y, pa))


def _dag_score(score, parents_of):
    return sum(score.local_score(y, pa) for y, pa in parents_of.items())


def test_score_equivalence():
    """a → b → c, a ← b ← c and a ← b → c are Markov equivalent: one BIC; the collider
    a → b ← c is not."""
    rng = np.random.default_rng(7)
    n = 500
    a = rng.integers(0, 3, n)
    b = (a + (rng.random(n) < 0.3)) % 2
    c = (b + rng.integers(0, 3, n) * (rng.random(n) < 0.4)) % 3
    s = BICScore(DiscreteData(np.column_stack([a, b, c])))
    chain = _dag_score(s, {0: [], 1: [0], 2: [1]})
    assert _dag_score(s, {0: [1], 1: [2], 2: []}) == pytest.approx(chain, abs=1e-9)
    assert _dag_score(s, {0: [1], 1: [], 2: [1]}) == pytest.approx(chain, abs=1e-9)
    assert abs(_dag_score(s, {0: [], 1: [0, 2], 2: []}) - chain) > 1e-3


def test_scores_by_name_and_errors():
    _, d = _data()
    assert type(get_score("bdeu").build(d)) is BDeuScore
    score = get_score("BIC", penalty_discount=2)
    assert type(score.build(d)) is BICScore and score.build(d).penalty_discount == 2
    assert str(score) == "bic(penalty_discount=2.0)"
    with pytest.raises(InputError, match="unknown score 'aic'"):
        get_score("aic")
    with pytest.raises(InputError, match="score 'bic' has no parameter 'sample_prior'; it "
                                         "takes penalty_discount"):
        get_score("bic", sample_prior=2)
    with pytest.raises(InputError, match="penalty_discount must be a positive number"):
        get_score("bic", penalty_discount=0)
    with pytest.raises(InputError, match="penalty_discount"):
        BICScore(d, penalty_discount=0)
