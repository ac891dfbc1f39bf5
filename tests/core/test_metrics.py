"""Tests of causalcal.metrics against scikit-learn, hand-computed bins and brute force."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal import metrics as M

# ------------------------------------------------------------------ references


def tie_group_means(y, p):
    """Every label replaced by the mean label of the instances with the same prediction."""
    groups = {}
    for pi, yi in zip(map(float, p), map(int, y)):
        groups.setdefault(pi, []).append(yi)
    return [float(np.mean(groups[float(pi)])) for pi in p]


def brute_bins(y, p, n_bins=10, bin_size=None):
    """Reference binning: tie-group mean labels, Python sort, np.array_split."""
    pairs = sorted(zip(map(float, p), tie_group_means(y, p)))
    k = n_bins if bin_size is None else max(1, len(pairs) // bin_size)
    groups = [g for g in np.array_split(np.arange(len(pairs)), k) if len(g)]
    mean_pred = [np.mean([pairs[k][0] for k in g]) for g in groups]
    frac_pos = [np.mean([pairs[k][1] for k in g]) for g in groups]
    counts = [len(g) for g in groups]
    return np.array(mean_pred), np.array(frac_pos), np.array(counts)


def brute_ece_mce(y, p, n_bins=10, bin_size=None):
    e, o, c = brute_bins(y, p, n_bins, bin_size)
    gaps = np.abs(o - e)
    return float(np.sum(c * gaps) / np.sum(c)), float(np.max(gaps))


def brute_auc(y, s):
    """Mann–Whitney by all pairs: P(s_pos > s_neg) + ½ P(tie)."""
    y = np.asarray(y)
    s = np.asarray(s, dtype=float)
    pos, neg = s[y == 1], s[y == 0]
    diff = pos[:, None] - neg[None, :]
    return float(np.mean((diff > 0) + 0.5 * (diff == 0)))


def brute_hand_till(y, P):
    classes = np.unique(y)
    total = []
    for x in range(len(classes)):
        for z in range(x + 1, len(classes)):
            a, b = classes[x], classes[z]
            m = (y == a) | (y == b)
            a_ab = brute_auc((y[m] == a).astype(int), P[m, a])
            b_ab = brute_auc((y[m] == b).astype(int), P[m, b])
            total.append((a_ab + b_ab) / 2)
    return float(np.mean(total))


def random_binary(seed, n, decimals=None):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if decimals is not None:
        p = np.round(p, decimals)
    y = (rng.random(n) < p).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return y, p


def random_multiclass(seed, n, k, decimals=None):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    if decimals is not None:
        P = np.round(P, decimals)
        P[:, -1] = 1 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0, 1)
        P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in P])
    y[:k] = np.arange(k)  # every class present
    return y, P


# -------------------------------------------------------------- hand-made ECE/MCE


def test_equal_frequency_bins_of_unequal_size_by_hand():
    p = [0.3, 0.1, 0.5, 0.2, 0.4]
    y = [1, 0, 1, 0, 0]
    # n = 5, 2 bins -> sizes 3, 2: {0.1, 0.2, 0.3} vs {0.4, 0.5}
    e, o, c = M.calibration_bins(y, p, n_bins=2)
    np.testing.assert_allclose(e, [0.2, 0.45])
    np.testing.assert_allclose(o, [1 / 3, 0.5])
    np.testing.assert_array_equal(c, [3, 2])
    assert M.ece(y, p, n_bins=2) == pytest.approx(3 / 5 * (1 / 3 - 0.2) + 2 / 5 * 0.05)
    assert M.ece(y, p, n_bins=2) == pytest.approx(0.1)
    assert M.mce(y, p, n_bins=2) == pytest.approx(1 / 3 - 0.2)


def test_fixed_bin_size_spreads_the_remainder_by_hand():
    # 7 instances, bins of 3: K = 2 bins of 4 and 3 (no tail bin of 1)
    p = [0.0, 0.1, 0.2, 0.6, 0.7, 0.8, 0.9]
    y = [0, 0, 1, 1, 1, 0, 1]
    e, o, c = M.calibration_bins(y, p, bin_size=3)
    np.testing.assert_array_equal(c, [4, 3])
    np.testing.assert_allclose(e, [0.225, 0.8])
    np.testing.assert_allclose(o, [0.5, 2 / 3])
    assert M.ece(y, p, bin_size=3) == pytest.approx((4 * 0.275 + 3 * (0.8 - 2 / 3)) / 7)
    assert M.mce(y, p, bin_size=3) == pytest.approx(0.275)
    # bin_size overrides n_bins; fewer instances than bin_size give one bin
    assert M.ece(y, p, n_bins=5, bin_size=3) == M.ece(y, p, bin_size=3)
    np.testing.assert_array_equal(M.calibration_bins(y, p, bin_size=100).counts, [7])


def test_tie_group_cut_by_a_boundary_shares_its_positives():
    # a constant, perfectly calibrated predictor: whatever the sample order, ECE = 0
    p = [0.5, 0.5, 0.5, 0.5]
    for y in ([1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]):
        e, o, c = M.calibration_bins(y, p, n_bins=2)
        np.testing.assert_allclose(e, [0.5, 0.5])
        np.testing.assert_allclose(o, [0.5, 0.5])
        assert M.ece(y, p, n_bins=2) == 0.0
        assert M.mce(y, p, n_bins=2) == 0.0
    # 0.2 (y=1) | 0.4, 0.4, 0.4 (y=0,1,0: one positive) | 0.9 (y=1); 2 bins of 3 and 2.
    # Bin 1 holds 2 of the 3 tied instances, so it is credited 2/3 of their positive.
    for order in ([0, 1, 2, 3, 4], [4, 2, 0, 3, 1], [3, 1, 4, 0, 2]):
        y = np.array([1, 1, 0, 1, 0])[order]
        p = np.array([0.9, 0.4, 0.4, 0.2, 0.4])[order]
        e, o, c = M.calibration_bins(y, p, n_bins=2)
        np.testing.assert_array_equal(c, [3, 2])
        np.testing.assert_allclose(e, [(0.2 + 0.4 + 0.4) / 3, (0.4 + 0.9) / 2])
        np.testing.assert_allclose(o, [(1 + 2 / 3) / 3, (1 / 3 + 1) / 2])
        gaps = np.abs(np.array([5 / 9, 2 / 3]) - np.array([1 / 3, 0.65]))
        assert M.ece(y, p, n_bins=2) == pytest.approx(0.6 * gaps[0] + 0.4 * gaps[1])
        assert M.mce(y, p, n_bins=2) == pytest.approx(gaps.max())
    # a tie group spanning several whole bins: 10 × 0.1 with 4 positives, bins of 3
    y = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    e, o, c = M.calibration_bins(y, [0.1] * 10, bin_size=3)
    np.testing.assert_array_equal(c, [4, 3, 3])
    np.testing.assert_allclose(o, [0.4] * 3)
    assert M.mce(y, [0.1] * 10, bin_size=3) == pytest.approx(0.3)


def test_fewer_samples_than_bins_and_single_sample():
    e, o, c = M.calibration_bins([1, 0, 1], [0.9, 0.2, 0.6], n_bins=10)
    np.testing.assert_array_equal(c, [1, 1, 1])
    np.testing.assert_allclose(e, [0.2, 0.6, 0.9])
    np.testing.assert_allclose(o, [0, 1, 1])
    assert M.ece([1], [0.75]) == pytest.approx(0.25)
    assert M.mce([1], [0.75]) == pytest.approx(0.25)


def test_eleven_samples_three_bins_sizes_4_4_3():
    y, p = random_binary(0, 11)
    assert list(M.calibration_bins(y, p, n_bins=3).counts) == [4, 4, 3]
    assert list(M.calibration_bins(y, p, n_bins=11).counts) == [1] * 11


def test_reliability_curve_is_the_bins():
    y, p = random_binary(1, 300)
    a = M.reliability_curve(y, p, n_bins=7)
    b = M.calibration_bins(y, p, n_bins=7)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert a.mean_pred is a[0] and a.counts is a[2]


def test_negative_zero_and_float32_inputs():
    y = [0, 1, 0, 1]
    a = M.calibration_bins(y, np.array([-0.0, 0.0, 0.5, 1.0]), n_bins=2)
    np.testing.assert_allclose(a.mean_pred, [0.0, 0.75])
    np.testing.assert_allclose(a.frac_pos, [0.5, 0.5])
    y, p = random_binary(2, 500)
    p32 = p.astype(np.float32)
    assert M.ece(y, p32) == pytest.approx(brute_ece_mce(y, p32.astype(float))[0], abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 200),
    st.integers(0, 2**31 - 1),
    st.sampled_from([None, 1, 2]),
    st.integers(1, 15),
    st.booleans(),
)
def test_bins_match_brute_force(n, seed, decimals, k, by_size):
    y, p = random_binary(seed, n, decimals)
    kwargs = {"bin_size": k} if by_size else {"n_bins": k}
    e, o, c = M.calibration_bins(y, p, **kwargs)
    e2, o2, c2 = brute_bins(y, p, **kwargs)
    np.testing.assert_array_equal(c, c2)
    np.testing.assert_allclose(e, e2, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(o, o2, rtol=1e-12)
    ece, mce = brute_ece_mce(y, p, **kwargs)
    assert M.ece(y, p, **kwargs) == pytest.approx(ece, abs=1e-12)
    assert M.mce(y, p, **kwargs) == pytest.approx(mce, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 2**31 - 1), st.sampled_from([None, 1, 2]),
       st.integers(1, 20))
def test_ece_at_most_mce_and_permutation_invariance(n, seed, decimals, n_bins):
    y, p = random_binary(seed, n, decimals)
    ece = M.ece(y, p, n_bins=n_bins)
    mce = M.mce(y, p, n_bins=n_bins)
    assert 0 <= ece <= mce + 1e-12 <= 1 + 1e-12
    perm = np.random.default_rng(seed).permutation(n)
    assert M.ece(y[perm], p[perm], n_bins=n_bins) == ece
    assert M.mce(y[perm], p[perm], n_bins=n_bins) == mce
    assert M.ece(y[perm], p[perm], bin_size=n_bins) == M.ece(y, p, bin_size=n_bins)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 10), min_size=1, max_size=11), st.integers(0, 2**31 - 1))
def test_perfectly_calibrated_bins_have_zero_error(positives, seed):
    """Groups of 10 equal predictions c/10 holding exactly c positives: ECE = MCE = 0.

    Groups may share a prediction; their positives are then shared across their bins.
    """
    b = 10
    positives = sorted(positives)
    y, p = [], []
    for c in positives:
        y += [1] * c + [0] * (b - c)
        p += [c / b] * b
    perm = np.random.default_rng(seed).permutation(len(y))
    y, p = np.array(y)[perm], np.array(p)[perm]
    assert M.ece(y, p, bin_size=b) == pytest.approx(0, abs=1e-12)
    assert M.mce(y, p, bin_size=b) == pytest.approx(0, abs=1e-12)
    assert M.ece(y, p, n_bins=len(positives)) == pytest.approx(0, abs=1e-12)


# ------------------------------------------------------------ vs scikit-learn


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 400), st.integers(0, 2**31 - 1), st.sampled_from([None, 1, 2]))
def test_binary_scores_match_sklearn(n, seed, decimals):
    y, p = random_binary(seed, n, decimals)
    assert M.roc_auc(y, p) == pytest.approx(skm.roc_auc_score(y, p), abs=1e-12)
    assert M.brier_score(y, p) == pytest.approx(skm.brier_score_loss(y, p), abs=1e-12)
    assert M.root_mean_squared_error(y, p) == pytest.approx(
        np.sqrt(skm.mean_squared_error(y, p)), abs=1e-12
    )
    pc = np.clip(p, 1e-6, 1 - 1e-6)
    assert M.log_loss(y, pc) == pytest.approx(skm.log_loss(y, pc), rel=1e-10)
    assert M.accuracy(y, p) == pytest.approx(skm.accuracy_score(y, (p > 0.5).astype(int)))


def test_auc_brute_force_ties_and_arbitrary_scores():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(2, 60))
        y = rng.integers(0, 2, n)
        y[0], y[1] = 0, 1
        s = rng.integers(-3, 4, n) * 1.7  # scores outside [0, 1], many ties
        assert M.roc_auc(y, s) == pytest.approx(brute_auc(y, s))
        assert M.roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s))
    assert M.roc_auc([0, 1], [0.3, 0.3]) == 0.5
    assert M.roc_auc([0, 0, 1], [0.1, 0.2, 0.9]) == 1.0
    assert M.roc_auc([1, 1, 0], [0.1, 0.2, 0.9]) == 0.0


def test_log_loss_clips_and_accuracy_threshold():
    # 1 - 1e-15 is not exact in floating point, hence the loose tolerance
    assert M.log_loss([1, 0], [0.0, 1.0], eps=1e-15) == pytest.approx(-np.log(1e-15), rel=1e-3)
    assert np.isfinite(M.log_loss([1], [0.0]))
    assert M.accuracy([0, 1, 1], [0.5, 0.5000001, 0.9]) == 1.0
    assert M.accuracy([True, False], [0.2, 0.8]) == 0.0


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 6), st.integers(8, 200), st.integers(0, 2**31 - 1),
       st.sampled_from([None, 1, 2]))
def test_multiclass_scores_match_sklearn(k, n, seed, decimals):
    y, P = random_multiclass(seed, max(n, k), k, decimals)
    assert M.hand_till_auc(y, P) == pytest.approx(
        skm.roc_auc_score(y, P, multi_class="ovo"), abs=1e-12
    )
    assert M.hand_till_auc(y, P) == pytest.approx(brute_hand_till(y, P), abs=1e-12)
    assert M.multiclass_accuracy(y, P) == pytest.approx(
        skm.accuracy_score(y, np.argmax(P, axis=1))
    )
    onehot = np.eye(k)[y]
    assert M.multiclass_brier_score(y, P) == pytest.approx(
        np.mean(np.sum((P - onehot) ** 2, axis=1)), abs=1e-12
    )
    assert M.multiclass_brier_score(y, P) == pytest.approx(
        skm.brier_score_loss(y, P, labels=np.arange(k)), abs=1e-12
    )
    Pc = np.clip(P, 1e-9, 1)
    Pc /= Pc.sum(axis=1, keepdims=True)
    assert M.cross_entropy(y, Pc) == pytest.approx(
        skm.log_loss(y, Pc, labels=np.arange(k)), rel=1e-10
    )
    ece, mce = brute_ece_mce(onehot.ravel(), P.ravel(), n_bins=10)
    assert M.ece_micro(y, P) == pytest.approx(ece, abs=1e-12)
    assert M.mce_micro(y, P) == pytest.approx(mce, abs=1e-12)
    ece, mce = brute_ece_mce(onehot.ravel(), P.ravel(), bin_size=7)
    assert M.ece_micro(y, P, bin_size=7) == pytest.approx(ece, abs=1e-12)
    assert M.mce_micro(y, P, bin_size=7) == pytest.approx(mce, abs=1e-12)


def test_two_class_multiclass_agrees_with_binary():
    y, p = random_binary(7, 200)
    P = np.column_stack([1 - p, p])
    assert M.multiclass_brier_score(y, P) == pytest.approx(2 * M.brier_score(y, p))
    assert M.hand_till_auc(y, P) == pytest.approx(M.roc_auc(y, p))
    assert M.cross_entropy(y, P) == pytest.approx(M.log_loss(y, p))
    assert M.multiclass_accuracy(y, P) == M.accuracy(y, p)


def test_hand_till_skips_absent_classes():
    y, P = random_multiclass(3, 120, 3)
    P4 = np.column_stack([P * 0.9, np.full(len(y), 0.1)])  # class 3 never occurs
    assert M.hand_till_auc(y, P4) == pytest.approx(brute_hand_till(y, P4))
    with pytest.raises(ValueError, match="two classes"):
        M.hand_till_auc(np.zeros(5, int), np.full((5, 3), 1 / 3))


def test_multiclass_float_labels_and_float32_matrix():
    y, P = random_multiclass(4, 100, 4)
    P32 = P.astype(np.float32)
    assert M.multiclass_brier_score(y.astype(float), P32) == pytest.approx(
        M.multiclass_brier_score(y, P32.astype(float)), abs=1e-12
    )
    assert M.ece_micro(y, P32) == pytest.approx(
        brute_ece_mce(np.eye(4)[y].ravel(), P32.astype(float).ravel())[0], abs=1e-12
    )


# ------------------------------------------------------------------- errors

BINARY = [M.ece, M.mce, M.calibration_bins, M.brier_score, M.root_mean_squared_error,
          M.log_loss, M.accuracy, M.roc_auc, M.reliability_curve]
MULTI = [M.multiclass_accuracy, M.multiclass_brier_score, M.cross_entropy, M.hand_till_auc,
         M.ece_micro, M.mce_micro]


@pytest.mark.parametrize("f", BINARY)
def test_binary_input_errors(f):
    with pytest.raises(ValueError, match="empty"):
        f([], [])
    with pytest.raises(ValueError, match="entries"):
        f([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"y_true\[1\] = 2"):
        f([0, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="1-d"):
        f([[0, 1]], [[0.1, 0.2]])
    if f is not M.roc_auc:  # AUC only needs finite scores
        with pytest.raises(ValueError, match=r"y_prob\[1\] = 1.5.*\[0, 1\]"):
            f([0, 1], [0.1, 1.5])
        with pytest.raises(ValueError, match=r"y_prob\[0\]"):
            f([0, 1], [-0.1, 0.5])
    with pytest.raises(ValueError, match=r"y_prob\[1\] = nan"):
        f([0, 1], [0.1, np.nan])


@pytest.mark.parametrize("f", [M.ece, M.mce, M.calibration_bins, M.ece_micro, M.mce_micro])
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_bad_bin_arguments(f, bad):
    y, p = [0, 1], [0.2, 0.7]
    if f in (M.ece_micro, M.mce_micro):
        y, p = np.array([0, 1]), np.array([[0.8, 0.2], [0.3, 0.7]])
    with pytest.raises(ValueError, match="n_bins"):
        f(y, p, n_bins=bad)
    with pytest.raises(ValueError, match="bin_size"):
        f(y, p, bin_size=bad)


@pytest.mark.parametrize("f", MULTI)
def test_multiclass_input_errors(f):
    P = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    with pytest.raises(ValueError, match="rows"):
        f([0, 1], P)
    with pytest.raises(ValueError, match=r"y_true\[2\] = 2.*0\.\.1"):
        f([0, 1, 2], P)
    with pytest.raises(ValueError, match=r"y_true\[0\] = -1"):
        f([-1, 1, 0], P)
    with pytest.raises(ValueError, match="integers"):
        f([0.5, 1, 0], P)
    with pytest.raises(ValueError, match="row 1 sums to 1.1"):
        f([0, 1, 0], P + np.array([[0, 0], [0.1, 0], [0, 0]]))
    with pytest.raises(ValueError, match=r"prob\[\(0, 0\)\]"):
        f([0, 1, 0], np.array([[-0.2, 1.2], [0.6, 0.4], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="2-d"):
        f([0, 1], [0.2, 0.8])
    with pytest.raises(ValueError, match="2 class columns"):
        f([0, 0], [[1.0], [1.0]])
    with pytest.raises(ValueError, match="empty"):
        f(np.zeros(0, int), np.zeros((0, 3)))


def test_auc_needs_both_classes_and_eps_checked():
    with pytest.raises(ValueError, match="both positive and negative"):
        M.roc_auc([1, 1], [0.2, 0.3])
    with pytest.raises(ValueError, match="finite"):
        M.roc_auc([0, 1], [0.2, np.inf])
    with pytest.raises(ValueError, match="eps"):
        M.log_loss([0, 1], [0.2, 0.3], eps=0.7)
    with pytest.raises(ValueError, match="eps"):
        M.cross_entropy([0, 1], [[0.2, 0.8], [0.3, 0.7]], eps=-1)


def test_large_stacked_input_is_vectorised():
    """4 × 250k stacked entries against the same computation on the explicit stack."""
    rng = np.random.default_rng(11)
    n = 250_000
    P = rng.dirichlet(np.ones(4), size=n).astype(np.float32)
    y = rng.integers(0, 4, n)
    onehot = np.eye(4, dtype=np.uint8)[y].ravel()
    flat = P.ravel().astype(np.float64)
    order = np.argsort(flat, kind="stable")
    flat, onehot = flat[order], onehot[order].astype(float)
    # tie-group mean labels (pandas groupby as an independent route)
    import pandas as pd

    smooth = pd.Series(onehot).groupby(flat).transform("mean").to_numpy()
    bins = np.array_split(np.arange(len(flat)), 10)
    gaps = [abs(flat[b].mean() - smooth[b].mean()) for b in bins]
    assert M.ece_micro(y, P) == pytest.approx(np.mean(gaps), abs=1e-9)
    assert M.mce_micro(y, P) == pytest.approx(max(gaps), abs=1e-9)
