"""Answers that may be wrong: the label-noise model of the answers' map (docs/design.md
§9.14; issue 48).

A scientist's answer to a suggested pair is wrong with probability ε (the answer's error
rate: stated per row by its ``confidence``, else the run's ``answer_error``). Wrong means
the relatedness the answer states is flipped: an unrelated pair said related, or a related
pair denied (for causal relations each direction an answer settles is flipped). So an
answer says "related" with probability

    s = ε + (1 − 2ε) q,   q = P(related | the pair's bootstrap probability),

the classical misclassification model of a binary response (Copas 1988, robust logistic
regression; Natarajan et al. 2013 for the unbiased losses below). Three consequences the
answers' map uses:

* the map's likelihood is that of ``s`` (:func:`noisy_terms`): one answer's pull on the
  fit is bounded by (1 − 2ε)/ε instead of growing without bound where q → 0, so a single
  wrong "related" among the pairs the bootstrap never joins cannot lift thousands of pairs
  by itself;
* a loss that is affine in the label — the Brier score p² + y(1 − 2p) and the log-loss of
  a binary label are — has an unbiased estimate on noisy labels when y is replaced by
  ``(y − ε) / (1 − 2ε)`` (:func:`corrected_labels`): the judge of the maps and the
  Horvitz–Thompson count of related pairs use it;
* the probability that an answer is wrong given what the calibrated map says of its
  pair (:func:`wrong_posterior`) orders the answers to recheck.

With ε = 0 every function here reduces to the plain logistic model, bit for bit.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["MAX_ERROR", "corrected_labels", "noisy_terms", "wrong_posterior"]

#: An error rate must stay below one half: at 1/2 an answer carries no information.
MAX_ERROR = 0.5


def noisy_terms(z: np.ndarray, y: np.ndarray, errors: np.ndarray | float | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per answer: the negative log-likelihood of the observed label ``y`` (0/1) when the
    map gives logit ``z`` and the answer errs with probability ``errors``, and its first
    and second derivatives in ``z``. Where the error rate is 0 these are the logistic
    model's ``log(1 + e^z) − y z``, ``σ(z) − y`` and ``σ(z)(1 − σ(z))``, computed as the
    plain model computes them."""
    z = np.asarray(z, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    q = expit(z)
    v = q * (1 - q)
    nll, d1, d2 = np.logaddexp(0, z) - y * z, q - y, v
    if errors is None:
        return nll, d1, d2
    eps = np.broadcast_to(np.asarray(errors, dtype=np.float64), z.shape)
    noisy = eps > 0
    if not noisy.any():
        return nll, d1, d2
    e, zz, qq, vv, yy = eps[noisy], z[noisy], q[noisy], v[noisy], y[noisy] > 0.5
    c = 1 - 2 * e
    # s = e + c q; 1 - s = e + c (1 - q), computed from expit(-z) to keep its precision
    s, t = e + c * qq, e + c * expit(-zz)
    bend = vv * (1 - 2 * qq)
    nll, d1, d2 = nll.copy(), d1.copy(), d2.copy()
    nll[noisy] = -np.where(yy, np.log(s), np.log(t))
    d1[noisy] = np.where(yy, -c * vv / s, c * vv / t)
    d2[noisy] = np.where(yy, -c * (bend / s - c * vv ** 2 / s ** 2),
                         c * (bend / t + c * vv ** 2 / t ** 2))
    return nll, d1, d2


def corrected_labels(y: np.ndarray, errors: np.ndarray | float | None) -> np.ndarray:
    """``(y − ε) / (1 − 2ε)``: a label whose expectation, over the answer's errors, is
    the true label — so a loss affine in the label, evaluated at it, is an unbiased
    estimate of the loss on the truth. ``y`` itself where ε = 0."""
    y = np.asarray(y, dtype=np.float64)
    if errors is None:
        return y
    eps = np.broadcast_to(np.asarray(errors, dtype=np.float64), y.shape)
    return np.where(eps > 0, (y - eps) / (1 - 2 * eps), y)


def wrong_posterior(p_stated: np.ndarray, errors: np.ndarray | float) -> np.ndarray:
    """The probability that an answer is wrong, given the calibrated probability
    ``p_stated`` of what it states and its error rate ε (Bayes' rule on the answer's
    own noise: ε (1 − p) / (ε (1 − p) + (1 − ε) p))."""
    p = np.clip(np.asarray(p_stated, dtype=np.float64), 0.0, 1.0)
    eps = np.asarray(errors, dtype=np.float64)
    wrong, right = eps * (1 - p), (1 - eps) * p
    total = wrong + right
    return np.divide(wrong, total, out=np.full(np.broadcast(wrong, right).shape, 0.5),
                     where=total > 0)
