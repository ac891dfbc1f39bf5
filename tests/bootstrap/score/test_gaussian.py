"""SEM-BIC and the degenerate-Gaussian BIC against least-squares fits of each family with
bootstrap weights, their gains, tests and singular designs (docs/design.md §5.4)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2, norm

from causalcal.bootstrap import bootstrap_weights, get_score
from causalcal.data import DiscreteData, MixedData
from causalcal.errors import InputError

LOG_2PI = math.log(2 * math.pi)


def _linear_data(seed: int, n: int = 250, v: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, v))
    for j in range(1, v):
        x[:, j] += x[:, :j] @ (rng.uniform(-1, 1, j) * (rng.random(j) < 0.5))
    return x * rng.uniform(0.5, 20, v) + rng.uniform(-5, 5, v)


def _wls_rss(y: np.ndarray, design: np.ndarray, w: np.ndarray) -> float:
    """Weighted residual sum of squares of y on an intercept and ``design``."""
    a = np.column_stack([np.ones(len(y)), design])
    root = np.sqrt(w)
    beta = np.linalg.lstsq(a * root[:, None], y * root, rcond=None)[0]
    return float(np.sum(w * (y - a @ beta) ** 2))


def _chain_score(child: np.ndarray, parents: np.ndarray, w: np.ndarray, c: float,
                 n: float | None = None) -> float:
    """Σ over the child's columns k of the Gaussian BIC of column k on the parents' columns
    and the child's columns before it (Tetrad's chain rule, halved), with ``n`` rows in
    the formula (default: the total weight)."""
    n = w.sum() if n is None else n
    total = 0.0
    for k in range(child.shape[1]):
        design = np.column_stack([parents, child[:, :k]])
        s2 = _wls_rss(child[:, k], design, w) / w.sum()
        total += -n / 2 * (LOG_2PI + math.log(s2) + 1) - c * design.shape[1] / 2 * math.log(n)
    return total


@pytest.mark.parametrize("seed", range(4))
def test_sem_bic_equals_weighted_least_squares(seed):
    x = _linear_data(seed)
    w = bootstrap_weights(len(x), seed, 3).astype(float)
    c = [1.0, 2.0, 0.5, 4.0][seed]
    data = MixedData.from_values(x)
    score = get_score("sem-bic", penalty_discount=c, sample_size="total").build(data, w)
    effective = get_score("sem-bic", penalty_discount=c).build(data, w)
    n_eff = w.sum() ** 2 / (w @ w)
    assert 0.4 * len(x) < n_eff < 0.6 * len(x)  # a bootstrap replicate: about n/2
    rng = np.random.default_rng(seed)
    for _ in range(20):
        y = int(rng.integers(6))
        parents = sorted(rng.choice([k for k in range(6) if k != y], rng.integers(0, 5),
                                    replace=False).tolist())
        ref = _chain_score(x[:, [y]], x[:, parents], w, c)
        assert score.local_score(y, parents) == pytest.approx(ref, rel=1e-8)
        ref = _chain_score(x[:, [y]], x[:, parents], w, c, n=n_eff)
        assert effective.local_score(y, parents) == pytest.approx(ref, rel=1e-8)


def test_gains_are_local_score_differences():
    x = _linear_data(7, v=8)
    w = bootstrap_weights(len(x), 0, 0)
    score = get_score("sem-bic").build(MixedData.from_values(x), w)
    fresh = get_score("sem-bic").build(MixedData.from_values(x), w)
    i, j, gain = score.pairwise_gains(min_gain=-np.inf)
    for a, b, g in zip(i, j, gain):
        assert g == pytest.approx(fresh.local_score(b, [a]) - fresh.local_score(b, []), abs=1e-7)
        assert g == pytest.approx(fresh.local_score(a, [b]) - fresh.local_score(a, []), abs=1e-7)
    requests = [(3, frozenset({0, 5})), (7, frozenset()), (1, frozenset({2, 4, 6}))]
    ks, xs, gs = score.family_gains(requests, min_gain=-np.inf)
    assert len(ks) == 5 + 7 + 4
    for k, xv, g in zip(ks, xs, gs):
        y, pa = requests[k]
        want = fresh.local_score(y, pa | {xv}) - fresh.local_score(y, pa)
        assert g == pytest.approx(want, rel=1e-9, abs=1e-8)
    batch = score.local_scores_batch(3, [0, 5], [1, 2])
    np.testing.assert_allclose(batch, [fresh.local_score(3, [0, 5, 1]),
                                       fresh.local_score(3, [0, 5, 2])], rtol=1e-12)
    ks2, xs2, _ = score.family_gains(requests, min_gain=5.0, candidates=[0, 1, 2])
    assert set(xs2) <= {0, 1, 2} and all(gs[(ks == k) & (xs == xv)][0] > 5.0
                                         for k, xv in zip(ks2, xs2))


def _mixed(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = rng.choice(["lo", "mid", "hi"], n, p=[0.3, 0.5, 0.2])
    c = a * 2 + (b == "hi") * 1.5 + rng.normal(size=n)
    d = np.where(c + rng.normal(size=n) > 0, "yes", "no")
    e = rng.choice(["p", "q", "r", "s"], n)
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})
    return frame, MixedData.from_frame(frame)


def _embedded(frame: pd.DataFrame, w: np.ndarray) -> dict[str, np.ndarray]:
    """Each column as floats: indicators of its categories with weight, but the last."""
    out = {}
    for name in frame:
        col = frame[name]
        if col.dtype.kind == "f":
            out[name] = col.to_numpy()[:, None]
            continue
        present = sorted(set(col[w > 0]))
        out[name] = np.column_stack([(col == c).to_numpy(float) for c in present[:-1]])
    return out


@pytest.mark.parametrize("seed", range(3))
def test_dg_bic_equals_the_chain_of_least_squares_fits(seed):
    frame, data = _mixed(seed)
    w = bootstrap_weights(len(frame), seed, 1).astype(float)
    c = [1.0, 1.5, 3.0][seed]
    score = get_score("dg-bic", penalty_discount=c, sample_size="total").build(data, w)
    cols = _embedded(frame, w)
    names = list(frame)
    rng = np.random.default_rng(seed)
    for _ in range(25):
        y = int(rng.integers(5))
        parents = sorted(rng.choice([k for k in range(5) if k != y], rng.integers(0, 4),
                                    replace=False).tolist())
        design = (np.column_stack([cols[names[p]] for p in parents]) if parents
                  else np.zeros((len(frame), 0)))
        ref = _chain_score(cols[names[y]], design, w, c)
        assert score.local_score(y, parents) == pytest.approx(ref, rel=1e-8)
    i, j, gain = score.pairwise_gains(min_gain=-np.inf)
    for a, b, g in zip(i, j, gain):
        assert g == pytest.approx(score.local_score(b, [a]) - score.local_score(b, []),
                                  rel=1e-8, abs=1e-7)
    ks, xs, gs = score.family_gains([(3, frozenset({0})), (1, frozenset({2, 4}))], -np.inf)
    for k, xv, g in zip(ks, xs, gs):
        y, pa = [(3, {0}), (1, {2, 4})][k]
        assert g == pytest.approx(score.local_score(y, pa | {xv}) - score.local_score(y, pa),
                                  rel=1e-8, abs=1e-7)


def test_dg_bic_on_continuous_data_has_sem_bic_gains():
    data = MixedData.from_values(_linear_data(3))
    sem = get_score("sem-bic").build(data)
    dg = get_score("dg-bic").build(data)
    for y, pa, x in [(0, [], 1), (2, [0, 1], 4), (5, [3], 0)]:
        assert (dg.local_score(y, pa + [x]) - dg.local_score(y, pa)) == pytest.approx(
            sem.local_score(y, pa + [x]) - sem.local_score(y, pa), rel=1e-12)


def test_a_category_absent_from_a_replicate_embeds_nothing():
    frame, data = _mixed(0, n=60)
    w = np.ones(60)
    w[frame["b"].to_numpy() == "hi"] = 0  # the replicate lacks one category of b
    score = get_score("dg-bic").build(data, w)
    assert score.sizes.tolist() == [1, 1, 1, 1, 3]


def test_singular_designs_named():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 4))
    x[:, 2] = 2 * x[:, 0] - x[:, 1] + 3
    data = MixedData(x, np.zeros((100, 0)), [True] * 4, ["a", "b", "c", "d"])
    with pytest.raises(InputError, match=r"columns 'a', 'b', 'c' are collinear.*leave one "
                                         r"out \(--drop-columns c\)"):
        get_score("sem-bic").build(data)
    flat = x.copy()
    flat[:, 3] = 1.0
    data = MixedData(flat[:, [0, 1, 3]], np.zeros((100, 0)), [True] * 3, ["a", "b", "d"])
    with pytest.raises(InputError, match="column 'd' is constant"):
        get_score("sem-bic").build(data)
    frame, _ = _mixed(1)
    frame["twin"] = frame["d"]
    with pytest.raises(InputError, match=r"columns 'd', 'twin' are collinear"):
        get_score("dg-bic").build(MixedData.from_frame(frame))


def test_a_singular_family_in_a_replicate_is_never_chosen():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(50, 3))
    w = np.zeros(50)
    w[:3] = 1  # three rows: three columns plus an intercept cannot all be fitted
    score = get_score("sem-bic").build(MixedData.from_values(x), w)
    assert score.local_score(0, [1, 2]) == -np.inf
    assert np.isnan(score._gains(0, [1], np.array([2]))).all()
    _, xs, _ = score.family_gains([(0, frozenset({1}))], min_gain=-np.inf)
    assert xs.tolist() == []


def test_fisher_z_matches_causal_learn_and_lrt_matches_least_squares():
    from causallearn.utils.cit import CIT

    x = _linear_data(5, n=400)
    data = MixedData.from_values(x)
    spec = get_score("sem-bic")
    fz = spec.independence_test(spec.build(data), 0.01)
    reference = CIT(x, "fisherz")
    for a, b, s in [(0, 1, ()), (2, 5, (0, 1)), (3, 4, (1,)), (1, 5, (0, 2, 3, 4))]:
        assert fz.p_value(a, b, s) == pytest.approx(reference(a, b, list(s)), rel=1e-9,
                                                    abs=1e-14)
    frame, mixed = _mixed(4)
    dg = get_score("dg-bic")
    lrt = dg.independence_test(dg.build(mixed), 0.01)
    w = np.ones(len(frame))
    cols = _embedded(frame, w)
    n = len(frame)
    for a, b, s in [(0, 2, ()), (2, 1, (0,)), (0, 3, (2,))]:  # a continuous end: one regression
        cont, other = (a, b) if frame.iloc[:, a].dtype.kind == "f" else (b, a)
        names = list(frame)
        given = [cols[names[k]] for k in s]
        small = np.column_stack(given) if given else np.zeros((n, 0))
        big = np.column_stack([small, cols[names[other]]])
        y = cols[names[cont]][:, 0]
        stat = n * math.log(_wls_rss(y, small, w) / _wls_rss(y, big, w))
        want = chi2.sf(stat, cols[names[other]].shape[1])
        assert lrt.p_value(a, b, s) == pytest.approx(want, rel=1e-7, abs=1e-15)
    assert norm.cdf(0) == 0.5  # scipy's normal, as causal-learn's


def test_scores_refuse_the_wrong_data_and_options():
    codes = DiscreteData(np.random.default_rng(0).integers(0, 2, (40, 3)))
    with pytest.raises(InputError, match="sem-bic.*column 'X0' is discrete"):
        get_score("sem-bic").build(codes)
    continuous = MixedData.from_values(_linear_data(0))
    with pytest.raises(InputError, match="score 'bdeu' takes discrete data"):
        get_score("bdeu").build(continuous)
    with pytest.raises(InputError, match="score 'sem-bic' runs on the CPU"):
        get_score("sem-bic").build(continuous, device="cuda")
    with pytest.raises(InputError, match="penalty_discount must be a positive number"):
        get_score("dg-bic", penalty_discount=-1)
    with pytest.raises(InputError, match="score 'sem-bic' has no parameter 'sample_prior'"):
        get_score("sem-bic", sample_prior=1)
    assert str(get_score("SEM_BIC", penalty_discount=2)) == "sem-bic(penalty_discount=2.0)"


def test_fewer_rows_than_columns_searched_with_proportional_pairs_named():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(20, 30))  # rank 19 < 30: singular whatever the data
    data = MixedData.from_values(x)
    score = get_score("sem-bic").build(data)
    assert np.isfinite(score.local_score(0, [1, 2, 3]))
    x[:, 7] = -3 * x[:, 2] + 1
    with pytest.raises(InputError, match=r"columns 'X2', 'X7' are collinear .*correlation "
                                         r"±1"):
        get_score("sem-bic").build(MixedData.from_values(x))
    wide = rng.normal(size=(40, 12))
    wide[:, 11] = wide[:, :11].sum(axis=1)
    with pytest.raises(InputError, match=r"columns 'X0', 'X1', 'X2', 'X3', 'X4', 'X5', "
                                         r"'X6', 'X7' and 4 more are collinear"):
        get_score("sem-bic").build(MixedData.from_values(wide))
