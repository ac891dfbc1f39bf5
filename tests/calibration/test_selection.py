"""Selection-aware calibration (issue 13): inclusion rates, logit offsets, set-valued labels,
swap equivariance, the anchored SNN."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import approx_fprime, minimize, minimize_scalar
from scipy.special import logsumexp, softmax

from causalcal.calibration import (
    AnchoredSNNCalibrator,
    DirichletCalibration,
    SelectionDesign,
    SwapEquivariant,
    TemperatureScaling,
    get,
)
from causalcal.calibration._multiclass import fit_multinomial, set_label_loss
from causalcal.calibration.selection import inclusion_weights, probability_bins
from causalcal.edgecal import edge_calibrator, fit_with_offsets, stratified_calibration_set
from causalcal.metrics import ece_micro

EYE4 = ((0,), (1,), (2,), (3,))


# ------------------------------------------------------------------ the design
def test_offsets_are_log_inclusion_rates_of_a_hand_made_design():
    drawn = np.array([[2, 2, 0, 2, 2], [1, 1, 1, 1, 1], [3, 0, 0, 0, 2], [2, 2, 2, 2, 2]])
    available = np.array([[100, 50, 0, 20, 1000], [4, 4, 4, 4, 4], [9, 5, 0, 0, 8],
                          [2, 4, 8, 16, 32]])
    design = SelectionDesign(drawn, available, EYE4)
    rates = design.rates
    # a stratum with draws: drawn / available
    assert rates[0, 0] == pytest.approx(2 / 100) and rates[3, 4] == pytest.approx(2 / 32)
    # no draws (2, 1) or no members (0, 2): the class's overall rate
    assert rates[2, 1] == pytest.approx(5 / 22) and rates[0, 2] == pytest.approx(8 / 1170)
    P = np.array([[0.9, 0.1, 0.0, 0.0], [0.1, 0.5, 0.3, 0.1], [0.5, 0.0, 0.25, 0.25]])
    bins = probability_bins(P)
    expect = np.log(rates[np.arange(4)[None, :], bins])
    np.testing.assert_allclose(design.offsets(P), expect)
    # stratifying every class by 1 - p_none: all columns read the same bin
    adj = SelectionDesign(drawn, available, ((1, 2, 3),) * 4)
    b = probability_bins(1 - P[:, 0])
    np.testing.assert_allclose(adj.offsets(P), np.log(adj.rates[:, b].T))


def test_pooling_forward_and_backward_makes_the_design_symmetric():
    rng = np.random.default_rng(0)
    available = rng.integers(5, 50, size=(4, 5))
    drawn = np.minimum(rng.integers(0, 5, size=(4, 5)), available)
    drawn[:, 0] += 1
    sym = SelectionDesign(drawn, available, EYE4).pooled([1, 2])
    P = rng.dirichlet(np.ones(4), size=30)
    swap = [0, 2, 1, 3]
    np.testing.assert_allclose(sym.offsets(P[:, swap]), sym.offsets(P)[:, swap])


@pytest.mark.parametrize("drawn, available, match", [
    (np.ones((4, 5)), np.zeros((4, 5)), "class 0 has no draws or no members"),
    (np.full((4, 5), 3), np.full((4, 5), 2), r"drew 3 of only 2"),
    (np.ones((3, 5)), np.ones((3, 5)) * 2, r"shape \(4, 5\)"),
])
def test_design_refuses_impossible_counts(drawn, available, match):
    with pytest.raises(ValueError, match=match):
        SelectionDesign(drawn, available, EYE4)


def test_sampler_reports_its_design():
    rng = np.random.default_rng(1)
    m = 3000
    truth = rng.choice(4, size=m, p=[0.9, 0.04, 0.04, 0.02])
    P = rng.dirichlet(np.ones(4), size=m)
    cal, test, design = stratified_calibration_set(P, truth, 40, seed=2)
    np.testing.assert_array_equal(design.drawn.sum(axis=1), [10, 10, 10, 10])
    for c in range(4):
        members = truth == c
        counts = np.bincount(probability_bins(P[members, c]), minlength=5)
        np.testing.assert_array_equal(design.available[c], counts)
        drawn = np.bincount(probability_bins(P[cal][truth[cal] == c, c]), minlength=5)
        np.testing.assert_array_equal(design.drawn[c], drawn)


# -------------------------------------------------------- correcting for the design
def _population(rng, m=40_000):
    """A rare-class population whose scores are miscalibrated (too flat)."""
    truth = rng.choice(4, size=m, p=[0.94, 0.025, 0.025, 0.01])
    logits = rng.normal(size=(m, 4)) * 0.8
    logits[np.arange(m), truth] += 2.5
    true_post = softmax(logits + np.log([0.94, 0.025, 0.025, 0.01]), axis=1)
    raw = softmax(0.5 * np.log(true_post), axis=1)  # under-confident reports
    return raw, truth


@pytest.mark.parametrize("name", ["snn", "dirichlet", "softmax", "ovr-isotonic"])
def test_corrected_fit_is_better_calibrated_than_raw_and_uncorrected(name):
    rng = np.random.default_rng(5)
    raw, truth = _population(rng)
    cal, test, design = stratified_calibration_set(raw, truth, 200, seed=3)
    P, y = raw[cal], truth[cal]
    model = get(name, **({"random_state": 0} if name == "snn" else {}))
    corrected = fit_with_offsets(model, P, y, design.offsets(P)).predict_proba(raw[test])
    plain = get(name, **({"random_state": 0} if name == "snn" else {})).fit(P, y)
    uncorrected = plain.predict_proba(raw[test])
    ece = {key: ece_micro(truth[test], Q, bin_size=100)
           for key, Q in (("raw", raw[test]), ("corrected", corrected),
                          ("uncorrected", uncorrected))}
    assert ece["corrected"] < 0.5 * ece["raw"], ece
    if name != "ovr-isotonic":  # per-class isotonic maps are nearly balance-free
        assert ece["corrected"] < ece["uncorrected"], ece


def test_offsets_become_inverse_inclusion_weights_without_logits():
    rng = np.random.default_rng(2)
    P = rng.dirichlet(np.ones(4), size=60)
    y = np.repeat(np.arange(4), 15)
    O = np.log(rng.uniform(0.01, 1, size=(60, 4)))
    Y = np.eye(4, dtype=bool)[y]
    w = inclusion_weights(O, Y)
    np.testing.assert_allclose(w, (1 / np.exp(O[np.arange(60), y])) * 60
                               / (1 / np.exp(O[np.arange(60), y])).sum())
    a = get("ovr-isotonic").fit(P, y, offsets=O).predict_proba(P)
    b = get("ovr-isotonic").fit(P, y, sample_weight=w).predict_proba(P)
    np.testing.assert_allclose(a, b)


# -------------------------------------------------------------- set-valued labels
def _brute_set_loss(Z, Y):
    return -sum(logsumexp(z[s]) - logsumexp(z) for z, s in zip(Z, Y))


def test_set_label_loss_and_gradient_against_brute_force():
    rng = np.random.default_rng(3)
    S = rng.normal(size=(7, 4))
    Y = rng.random((7, 4)) < 0.5
    Y[np.arange(7), rng.integers(0, 4, 7)] = True
    w = np.ones(7)
    loss, G = set_label_loss(S, Y, w)
    assert loss == pytest.approx(_brute_set_loss(S, Y))
    num = approx_fprime(S.ravel(), lambda s: _brute_set_loss(s.reshape(7, 4), Y), 1e-7)
    np.testing.assert_allclose(G.ravel(), num, atol=1e-5)


@pytest.mark.slow
def test_temperature_with_set_labels_matches_a_grid_search():
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(3) * 0.5, size=12)
    sharp = P**2 / (P**2).sum(axis=1, keepdims=True)  # the truth is sharper than P
    Y = np.zeros((12, 3), bool)
    Y[np.arange(12), [rng.choice(3, p=q) for q in sharp]] = True
    Y[:4, 0] = True  # some labels allow two classes
    t = TemperatureScaling(eps=1e-6).fit(P, Y).temperature_
    logP = np.log(np.maximum(P, 1e-6))
    # a grid of log T, then the brute-force loss minimised between the best point's
    # neighbours
    grid = np.linspace(np.log(0.05), np.log(20), 201)
    k = int(np.argmin([_brute_set_loss(logP / np.exp(u), Y) for u in grid]))
    best = minimize_scalar(lambda u: _brute_set_loss(logP / np.exp(u), Y), method="bounded",
                           bounds=(grid[max(k - 1, 0)], grid[min(k + 1, 200)]),
                           options={"xatol": 1e-9})
    assert t == pytest.approx(np.exp(best.x), rel=1e-4)


@pytest.mark.slow
def test_multinomial_fit_with_set_labels_and_offsets_is_the_optimum():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(25, 3))
    Y = rng.random((25, 3)) < 0.4
    Y[np.arange(25), rng.integers(0, 3, 25)] = True
    O = rng.normal(size=(25, 3))
    W, b, _ = fit_multinomial(X, Y, np.ones(25), offsets=O, coef_penalty=0.5)

    def objective(theta):
        Wt, bt = theta[:9].reshape(3, 3), theta[9:]
        return _brute_set_loss(X @ Wt + bt + O, Y) + 0.25 * np.sum(Wt**2)

    ref = minimize(objective, np.zeros(12), method="BFGS", options={"gtol": 1e-9})
    ours = objective(np.concatenate([W.ravel(), b]))
    assert ours <= ref.fun + 1e-7
    np.testing.assert_allclose(np.concatenate([W.ravel(), b]), ref.x, atol=1e-4)


# ----------------------------------------------------------------- equivariance
@pytest.mark.parametrize("name", ["snn", "snn_thesis", "dirichlet", "ovr-isotonic"])
def test_swap_equivariant_calibrators(name):
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(4), size=80)
    y = rng.integers(0, 4, 80)
    params = {"n_models": 3, "n_epochs": 5} if name == "snn_thesis" else {}
    model = edge_calibrator(name, params, seed=0, n_boot=50).fit(P, y)
    Q = rng.dirichlet(np.ones(4), size=50)
    swap = [0, 2, 1, 3]
    np.testing.assert_allclose(model.predict_proba(Q[:, swap]),
                               model.predict_proba(Q)[:, swap], atol=1e-12)


def test_swap_equivariant_refuses_a_non_involution():
    with pytest.raises(ValueError, match="not its own inverse"):
        SwapEquivariant(DirichletCalibration(), permutation=(1, 2, 0, 3)).fit(
            np.full((4, 4), 0.25), [0, 1, 2, 3])


# ------------------------------------------------------------------ anchored SNN
def test_anchored_snn_gradient_is_exact():
    captured = {}
    import causalcal.calibration.anchored_snn as module

    real = module.minimize

    def spy(fun, x0, **kw):
        captured["fun"], captured["x0"] = fun, x0
        return real(fun, x0, **kw)

    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(4), size=30)
    P[:4] = np.eye(4)
    Y = rng.random((30, 4)) < 0.3
    Y[np.arange(30), rng.integers(0, 4, 30)] = True
    X = np.hstack([P, rng.normal(size=(30, 2))])
    module.minimize = spy
    try:
        AnchoredSNNCalibrator(n_models=2, n_classes=4, random_state=0, max_iter=1).fit(
            X, Y, offsets=rng.normal(size=(30, 4)), sample_weight=rng.uniform(0.5, 2, 30))
    finally:
        module.minimize = real
    fun = captured["fun"]
    theta = captured["x0"] + rng.normal(scale=0.3, size=captured["x0"].shape)
    num = approx_fprime(theta, lambda t: fun(t)[0], 1e-6)
    np.testing.assert_allclose(fun(theta)[1], num, rtol=1e-4, atol=1e-4)


def test_anchored_snn_stays_at_the_input_without_evidence():
    rng = np.random.default_rng(8)
    P = rng.dirichlet(np.ones(4), size=40)
    y = rng.integers(0, 4, 40)
    stiff = AnchoredSNNCalibrator(identity_penalty=1e6, intercept_penalty=1e6,
                                  hidden_penalty=1e6, eps=1e-3, random_state=0).fit(P, y)
    Q = rng.dirichlet(np.ones(4), size=20)
    np.testing.assert_allclose(stiff.predict_proba(Q), (Q + 1e-3) / (1 + 4e-3), atol=1e-4)


def test_unnamed_class_keeps_the_identity_split():
    """Labels "1 or 3" only: the split between 1 and 3 is not identifiable; it stays put."""
    rng = np.random.default_rng(9)
    P = rng.dirichlet(np.ones(4), size=60)
    Y = np.zeros((60, 4), bool)
    Y[:30, 0] = True
    Y[30:, [1, 3]] = True
    model = AnchoredSNNCalibrator(random_state=0).fit(P, Y)
    Q = model.predict_proba(P)
    eps = model.eps_
    ratio_in = (P[:, 1] + eps) / (P[:, 3] + eps)
    np.testing.assert_allclose(Q[:, 1] / Q[:, 3], ratio_in, rtol=0.2)


def _overconfident(n, rng):
    z = rng.normal(0, 1.0, size=(n, 4)) + np.array([1.0, 0.0, 0.0, -0.5])
    q = softmax(z, axis=1)
    y = (rng.random(n)[:, None] > np.cumsum(q, axis=1)).sum(axis=1).clip(max=3)
    return softmax(2 * z, axis=1), y


def test_default_snn_improves_overconfident_scores():
    """An ordinary multi-class task (no selection): the default SNN lowers the held-out
    cross-entropy of over-confident scores (measured 0.89x at N = 300)."""
    rng = np.random.default_rng(0)
    P, y = _overconfident(300, rng)
    Pt, yt = _overconfident(20_000, rng)

    def ce(Q):
        return -np.mean(np.log(np.clip(Q[np.arange(len(yt)), yt], 1e-12, 1)))

    calibrated = get("snn", random_state=0).fit(P, y).predict_proba(Pt)
    assert ce(calibrated) <= 0.97 * ce(Pt)


def test_swap_equivariant_with_pair_features():
    rng = np.random.default_rng(8)
    X = np.hstack([rng.dirichlet(np.ones(4), size=80), rng.normal(size=(80, 3))])
    y = rng.integers(0, 4, 80)
    fswap = [1, 0, 2]  # feature of A <-> feature of B; the third is symmetric
    model = edge_calibrator("snn", {"n_models": 2}, seed=0, n_boot=50,
                            feature_swap=fswap).fit(X, y)
    Q = np.hstack([rng.dirichlet(np.ones(4), size=40), rng.normal(size=(40, 3))])
    R = Q[:, [0, 2, 1, 3, 5, 4, 6]]
    np.testing.assert_allclose(model.predict_proba(R), model.predict_proba(Q)[:, [0, 2, 1, 3]],
                               atol=1e-12)
    # without the feature swap the features are not reversed: equivariance fails
    plain = edge_calibrator("snn", {"n_models": 2}, seed=0, n_boot=50).fit(X, y)
    assert not np.allclose(plain.predict_proba(R), plain.predict_proba(Q)[:, [0, 2, 1, 3]])
    with pytest.raises(ValueError, match="feature_permutation has 2 entries for 3"):
        edge_calibrator("snn", {"n_models": 2}, seed=0, feature_swap=[1, 0]).fit(X, y)


def test_predict_all_with_features_matches_dense_predict():
    from causalcal.edgecal import FEATURE_GROUPS, PairInputs, feature_columns, transform_features
    from causalcal.edges import EdgeProbabilities

    rng = np.random.default_rng(9)
    v = 9
    pairs = np.array([[0, 1], [2, 5], [3, 8]])
    counts = np.array([[5, 2, 1], [0, 0, 10], [3, 3, 0]])
    probs = EdgeProbabilities.from_counts([f"x{i}" for i in range(v)], pairs, counts, 10)
    probs.pair_features = rng.uniform(0, 3, size=(probs.n_pairs, 7))
    groups = ("degree", "v_structure")
    cols, swap = feature_columns(groups)
    X = np.hstack([rng.dirichlet(np.ones(4), size=60), rng.normal(size=(60, len(cols)))])
    model = edge_calibrator("snn", {"n_models": 2}, seed=0, feature_swap=swap).fit(
        X, rng.integers(0, 4, 60))
    got = PairInputs(probs, groups).predict_all(model, np.float64, chunk=7)
    F = transform_features(probs.pair_features)[:, cols]
    want = model.predict_proba(np.hstack([probs.dense(np.float64), F]))
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert set(groups) <= set(FEATURE_GROUPS)
