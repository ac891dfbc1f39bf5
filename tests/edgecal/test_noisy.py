"""The label-noise model of answers that may be wrong (docs/design.md §9.14): derivatives
against finite differences, the plain model at ε = 0, unbiased losses by exact
expectation, the fit against a brute-force optimum, and consistency under noise."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit

from causalcal.edgecal.designed import calibration_test, identity_prior_mode
from causalcal.edgecal.noisy import (
    answer_rates,
    corrected_labels,
    noisy_terms,
    wrong_posterior,
)


@settings(max_examples=200, deadline=None)
@given(z=st.floats(-12, 12), y=st.integers(0, 1), e0=st.floats(0.001, 0.45),
       e1=st.floats(0.0, 0.45))
def test_noisy_terms_derivatives_match_finite_differences(z, y, e0, e1):
    h = 1e-4
    f = lambda t: noisy_terms(np.array([t]), np.array([y]), np.array([e0, e1]))  # noqa: E731
    nll, d1, d2 = f(z)
    s = e0 + (1 - e0 - e1) * expit(z)
    assert nll[0] == pytest.approx(-np.log(s if y else 1 - s), rel=1e-10, abs=1e-12)
    assert d1[0] == pytest.approx((f(z + h)[0][0] - f(z - h)[0][0]) / (2 * h),
                                  rel=1e-6, abs=1e-7)
    assert d2[0] == pytest.approx((f(z + h)[1][0] - f(z - h)[1][0]) / (2 * h),
                                  rel=1e-6, abs=1e-7)


def test_zero_error_is_the_plain_logistic_model_bit_for_bit():
    z = np.linspace(-30, 30, 61)
    y = (np.arange(61) % 2).astype(float)
    plain = noisy_terms(z, y, None)
    for errors in (np.zeros(2), np.zeros((61, 2))):
        for a, b in zip(noisy_terms(z, y, errors), plain, strict=True):
            assert np.array_equal(a, b)
    q = expit(z)
    assert np.array_equal(plain[1], q - y) and np.array_equal(plain[2], q * (1 - q))
    assert np.array_equal(corrected_labels(y, np.zeros(2)), y)


def test_mixed_rows_keep_the_plain_terms_where_the_error_is_zero():
    z, y = np.array([-3.0, 2.0, 0.5]), np.array([1.0, 0.0, 1.0])
    errors = np.array([[0.0, 0.0], [0.2, 0.1], [0.0, 0.0]])
    mixed = noisy_terms(z, y, errors)
    plain = noisy_terms(z, y, None)
    noisy = noisy_terms(z, y, np.array([0.2, 0.1]))
    for m, p, n in zip(mixed, plain, noisy, strict=True):
        assert m[0] == p[0] and m[2] == p[2] and m[1] == n[1]


@pytest.mark.parametrize("e0, e1", [(0.05, 0.05), (0.2, 0.05), (0.02, 0.4)])
def test_corrected_brier_is_unbiased_by_exact_expectation(e0, e1):
    # E over the answer's errors of p² + ỹ(1 − 2p) equals the clean Brier (p − y)²
    rates = np.array([e0, e1])
    for p in np.linspace(0, 1, 11):
        for y in (0, 1):
            flip = e1 if y else e0  # P(the answer says the other)
            expected = sum(prob * (p ** 2 + corrected_labels(np.array(obs, float), rates)
                                   * (1 - 2 * p))
                           for obs, prob in ((y, 1 - flip), (1 - y, flip)))
            assert expected == pytest.approx((p - y) ** 2, abs=1e-12)


def test_wrong_posterior_is_bayes_rule():
    # "related" at e0 = 0.1 on a pair the map gives 0.05: odds 0.1·0.95 : (1 − e1)·0.05
    rates = np.array([[0.1, 0.3]])
    assert wrong_posterior(np.array([0.05]), [True], rates)[0] == pytest.approx(
        0.095 / (0.095 + 0.7 * 0.05))
    # "unrelated" where the map gives P(unrelated) 0.2: odds e1·0.8 : (1 − e0)·0.2
    assert wrong_posterior(np.array([0.2]), [False], rates)[0] == pytest.approx(
        0.24 / (0.24 + 0.9 * 0.2))
    assert wrong_posterior(np.array([1.0]), [True], rates)[0] == 0.0
    assert wrong_posterior(np.array([0.3]), [True], np.zeros((1, 2)))[0] == 0.0


def test_answer_rates_share_the_wrong_answers_between_the_two_kinds():
    related = np.array([True] * 8 + [False] * 32)
    rates = answer_rates(related, 0.2)
    # 8 wrong answers: 4 invented among 32 unrelated, 4 denied among 8 related
    assert rates[0].tolist() == [0.125, 0.45]  # 4 / 8 = 0.5 capped at MAX_RATE
    assert rates[-1].tolist() == [0.125, 0.45]
    assert answer_rates(related, 0.0) is None
    stated = np.full(40, np.nan)
    stated[3] = 0.02
    own = answer_rates(related, 0.1, stated)
    assert own[3].tolist() == [0.02, 0.02] and own[0].tolist() == [0.0625, 0.25]


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.25])
def test_identity_prior_mode_matches_a_brute_force_optimum(eps):
    rng = np.random.default_rng(3)
    x = rng.normal(-2, 2, 60)
    y = (rng.random(60) < expit(0.7 * x + 0.5)).astype(float)
    w = rng.uniform(0.5, 3, 60)

    def objective(theta):
        z = theta[0] + theta[1] * x
        s = eps + (1 - 2 * eps) * expit(z)
        nll = -(y * np.log(s) + (1 - y) * np.log(1 - s))
        return w @ nll + ((theta[0] ** 2) + (theta[1] - 1) ** 2) / 8

    brute = minimize(objective, [0.0, 1.0], method="Nelder-Mead",
                     options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000}).x
    theta, value, _ = identity_prior_mode(x, y, w, 2.0, np.array([eps, eps]) if eps else None)
    assert theta == pytest.approx(brute, abs=1e-5)
    assert value == pytest.approx(objective(brute), rel=1e-9)


@pytest.mark.slow
def test_the_noise_model_recovers_the_map_that_flipped_labels_bias():
    # labels from q = expit(0.8 x − 1) flipped at 15 %: the plain fit flattens the map,
    # the fit with the error rate stated recovers it
    rng = np.random.default_rng(11)
    x = rng.normal(0, 2.5, 20000)
    y = (rng.random(20000) < expit(0.8 * x - 1.0)).astype(float)
    flip = rng.random(20000) < 0.15
    y[flip] = 1 - y[flip]
    w = np.ones(20000)
    plain = identity_prior_mode(x, y, w, 2.0)[0]
    noisy = identity_prior_mode(x, y, w, 2.0, np.array([0.15, 0.15]))[0]
    assert noisy == pytest.approx([-1.0, 0.8], abs=0.06)
    assert abs(plain[1] - 0.8) > 0.2  # the plain slope is far flatter


def test_calibration_test_under_noise_holds_its_level_and_sees_a_distortion():
    # labels from the identity map with 20 % of them flipped: the noise-aware test keeps
    # about its 5 % level, the plain one rejects the (right) bootstrap nearly always
    rng = np.random.default_rng(5)
    rejected = {"noisy": 0, "plain": 0}
    for _ in range(200):
        x = rng.normal(-1, 2, 200)
        y = (rng.random(200) < expit(x)).astype(float)
        flip = rng.random(200) < 0.2
        y[flip] = 1 - y[flip]
        w = np.ones(200)
        for name, eps in (("noisy", np.array([0.2, 0.2])), ("plain", None)):
            b, a = identity_prior_mode(x, y, w, 100.0, eps)[0]
            rejected[name] += calibration_test(x, y, w, a, b, errors=eps) < 0.05
    assert rejected["noisy"] <= 20  # about 10 expected at a 5 % level
    assert rejected["plain"] >= 150
    x = rng.normal(-1, 2, 300)
    y = (rng.random(300) < expit(0.3 * x + 1)).astype(float)  # a distorted bootstrap
    flip = rng.random(300) < 0.1
    y[flip] = 1 - y[flip]
    b, a = identity_prior_mode(x, y, np.ones(300), 100.0, np.array([0.1, 0.1]))[0]
    assert calibration_test(x, y, np.ones(300), a, b, errors=np.array([0.1, 0.1])) < 0.01


def test_the_default_share_is_the_one_the_help_states():
    import argparse

    from causalcal.cli.discover import add_arguments
    from causalcal.edgecal.settings import ANSWER_ERROR, CalibrationSettings

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    help_text = next(a.help for a in parser._actions if "--answer-error" in a.option_strings)
    assert f"default {ANSWER_ERROR:g}," in help_text
    assert CalibrationSettings().answer_error == ANSWER_ERROR
    for bad in (-0.1, 0.5, True, "0.1"):
        with pytest.raises(Exception, match="share of wrong answers"):
            CalibrationSettings(answer_error=bad)
    with pytest.raises(Exception, match="answer_guard"):
        CalibrationSettings(answer_guard=-1)
