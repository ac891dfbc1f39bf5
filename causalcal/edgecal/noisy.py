"""Answers that may be wrong: the label-noise model of the answers' map (docs/design.md
§9.14; issue 48).

An answer to a suggested pair states a relation or its absence; it may be wrong. Two
rates describe how: ``e0``, the probability that an unrelated pair is said to be related
(a relation invented), and ``e1``, the probability that a related pair is said to be
unrelated (a relation denied; for causal relations each direction an answer settles has
its own pair of rates). So an answer says "related" with probability

    s = e0 + (1 − e0 − e1) q,   q = P(related | the pair's bootstrap probability),

the classical misclassification model of a binary response (Copas 1988, robust logistic
regression; Natarajan et al. 2013 for the unbiased losses below). ``errors`` below is an
(n, 2) array of ``(e0, e1)`` per answer, or None for answers taken as right. Three
consequences the answers' map uses:

* the map's likelihood is that of ``s`` (:func:`noisy_terms`): one answer's pull on the
  fit is bounded (by (1 − e0 − e1)/e0 for a "related" answer) instead of growing without
  bound where q → 0, so a single wrong "related" among the pairs the bootstrap never
  joins cannot lift thousands of pairs by itself;
* a loss that is affine in the label — the Brier score p² + y(1 − 2p) and the log-loss of
  a binary label are — has an unbiased estimate on noisy labels when y is replaced by
  ``(y − e0) / (1 − e0 − e1)`` (:func:`corrected_labels`): the judge of the maps and the
  Horvitz–Thompson count of related pairs use it;
* the probability that an answer is wrong given what the calibrated map says of its
  pair (:func:`wrong_posterior`) orders the answers to recheck.

With both rates 0 every function here reduces to the plain logistic model, bit for bit.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["MAX_RATE", "answer_rates", "corrected_labels", "direction_rates", "noisy_terms",
           "stratum_shares", "wrong_posterior"]

#: The largest error rate of one kind an answer may be given: at e0 + e1 = 1 an answer
#: carries no information, and a rate near it none worth fitting.
MAX_RATE = 0.45


def _rates(errors, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(e0, e1)`` broadcast to ``shape`` from an (…, 2) array of rate pairs."""
    errors = np.asarray(errors, dtype=np.float64)
    return (np.broadcast_to(errors[..., 0], shape), np.broadcast_to(errors[..., 1], shape))


def noisy_terms(z: np.ndarray, y: np.ndarray, errors: np.ndarray | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per answer: the negative log-likelihood of the observed label ``y`` (0/1) when the
    map gives logit ``z`` and the answer errs at the rates ``errors`` ((n, 2): e0, e1),
    and its first and second derivatives in ``z``. Where both rates are 0 these are the
    logistic model's ``log(1 + e^z) − y z``, ``σ(z) − y`` and ``σ(z)(1 − σ(z))``,
    computed as the plain model computes them."""
    z = np.asarray(z, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    q = expit(z)
    v = q * (1 - q)
    nll, d1, d2 = np.logaddexp(0, z) - y * z, q - y, v
    if errors is None:
        return nll, d1, d2
    e0, e1 = _rates(errors, z.shape)
    noisy = (e0 > 0) | (e1 > 0)
    if not noisy.any():
        return nll, d1, d2
    a, b, zz, qq = e0[noisy], e1[noisy], z[noisy], q[noisy]
    said = y[noisy] > 0.5
    c = 1 - a - b
    # s = e0 + c q; 1 - s = e1 + c (1 - q), with 1 - q from expit(-z) to keep its
    # precision, in σ(1 − σ) too
    r = expit(-zz)
    vv = qq * r
    s, t = a + c * qq, b + c * r
    bend = vv * (1 - 2 * qq)
    nll, d1, d2 = nll.copy(), d1.copy(), d2.copy()
    nll[noisy] = -np.where(said, np.log(s), np.log(t))
    d1[noisy] = np.where(said, -c * vv / s, c * vv / t)
    d2[noisy] = np.where(said, -c * (bend / s - c * vv ** 2 / s ** 2),
                         c * (bend / t + c * vv ** 2 / t ** 2))
    return nll, d1, d2


def corrected_labels(y: np.ndarray, errors: np.ndarray | None) -> np.ndarray:
    """``(y − e0) / (1 − e0 − e1)``: a label whose expectation, over the answer's errors,
    is the true label — so a loss affine in the label, evaluated at it, is an unbiased
    estimate of the loss on the truth. ``y`` itself where both rates are 0."""
    y = np.asarray(y, dtype=np.float64)
    if errors is None:
        return y
    e0, e1 = _rates(errors, y.shape)
    noisy = (e0 > 0) | (e1 > 0)
    return np.where(noisy, (y - e0) / np.where(noisy, 1 - e0 - e1, 1.0), y)


def wrong_posterior(p_stated: np.ndarray, said_related: np.ndarray,
                    errors: np.ndarray) -> np.ndarray:
    """The probability that an answer is wrong, given the calibrated probability
    ``p_stated`` of what it states, whether it states a relation, and its rates
    ``errors`` ((n, 2): e0, e1): Bayes' rule on the answer's own noise,
    e (1 − p) / (e (1 − p) + (1 − e') p) with e the rate of the error it may be (e0 for a
    relation stated, e1 for one denied) and e' the other."""
    p = np.clip(np.asarray(p_stated, dtype=np.float64), 0.0, 1.0)
    e0, e1 = _rates(errors, p.shape)
    related = np.asarray(said_related, dtype=bool)
    own, other = np.where(related, e0, e1), np.where(related, e1, e0)
    wrong, right = own * (1 - p), (1 - other) * p
    total = wrong + right
    return np.divide(wrong, total, out=np.full(p.shape, 0.5), where=total > 0)


def answer_rates(related: np.ndarray, share: float, stated: np.ndarray | None = None
                 ) -> np.ndarray | None:
    """Each answer's ``(e0, e1)`` (docs/design.md §9.14): a share ``share`` of the answers
    is assumed wrong, half of the wrong answers inventing a relation and half denying one,
    so over the n answers, of which n₁ state a relation (``related``) and n₀ deny one,
    e0 = share · n / (2 n₀) and e1 = share · n / (2 n₁), each at most :data:`MAX_RATE`;
    an answer with a rate of its own in ``stated`` (its confidence; NaN where none) errs
    either way at that rate. None where every rate is 0."""
    related = np.asarray(related, dtype=bool)
    n, n1 = len(related), int(related.sum())
    half = share * n / 2
    e0 = min(half / (n - n1), MAX_RATE) if n > n1 else 0.0
    e1 = min(half / n1, MAX_RATE) if n1 else 0.0
    rates = np.tile([e0, e1], (n, 1))
    if stated is not None:
        own = ~np.isnan(np.asarray(stated, dtype=np.float64))
        rates[own] = np.asarray(stated, dtype=np.float64)[own, None]
    return rates if rates.any() else None


def direction_rates(errors: np.ndarray | None) -> np.ndarray | None:
    """Causal answers: the ``(e0, e1)`` of each direction an answer settles, from the
    answer's own: a relation denied or reversed makes its direction wrong (e1); a relation
    invented goes one of two ways (e0 / 2)."""
    return None if errors is None else np.asarray(errors, dtype=np.float64) * [0.5, 1.0]


def stratum_shares(strata: np.ndarray, related: np.ndarray, errors: np.ndarray | None,
                   n_strata: int) -> tuple[np.ndarray, np.ndarray]:
    """Each stratum's share of related pairs estimated from its answers (``strata`` of
    each answer, ``related`` what each states) when they may be wrong: the mean of the
    corrected labels (:func:`corrected_labels`, unbiased), clipped to [0, 1]; and the
    factor by which the noise inflates the share's variance, the mean of
    1 / (1 − e0 − e1)² over the stratum's answers (1 without answers)."""
    strata = np.asarray(strata, dtype=np.int64)
    y = corrected_labels(np.asarray(related, dtype=np.float64), errors)
    count = np.bincount(strata, minlength=n_strata).astype(np.float64)
    shares = np.divide(np.bincount(strata, y, minlength=n_strata), count,
                       out=np.zeros(n_strata), where=count > 0)
    spread = np.ones(len(y)) if errors is None else (
        1.0 / (1.0 - np.asarray(errors, dtype=np.float64).sum(axis=-1)) ** 2)
    inflation = np.divide(np.bincount(strata, spread, minlength=n_strata), count,
                          out=np.ones(n_strata), where=count > 0)
    return np.clip(shares, 0.0, 1.0), inflation
