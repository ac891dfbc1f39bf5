"""Held-out evidence of a fit on known relations, and the do-no-harm choice it supports
(docs/design.md §9.3, §9.6).

Known pairs are few and sit mostly at the ends of the probability range, so a calibrator
fitted on them must earn every change it makes: :func:`choose_map` keeps the bootstrap
frequencies unless the calibrated map predicts held-out known pairs better, by more than
the uncertainty of that difference.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from causalcal.edgecal.known import selected_posterior
from causalcal.edgecal.model import fit_with_offsets

__all__ = ["MAPS", "choose_map", "cross_validated_losses"]

#: What ``fit_edge_calibrator(map=…)`` may write for known relations: ``auto`` lets
#: cross-validation choose between the bootstrap (``identity``) and ``calibrated``.
MAPS = ("auto", "calibrated", "identity")


def cross_validated_losses(model, X: np.ndarray, Y: np.ndarray, offsets: np.ndarray,
                           eps: float, seed: int = 0) -> tuple[int, np.ndarray, np.ndarray]:
    """Per-pair held-out log-loss of the bootstrap and of ``model`` on known pairs.

    Up to 5 folds stratified by adjacency; each fold fits a clone of ``model`` with the
    given offsets. Both probabilities are turned into the known pairs' own (selected)
    distribution with the inclusion rates ``exp(offsets)`` before scoring, so neither is
    penalised for the selection itself; the bootstrap's zeros are floored at ``eps``.
    Returns ``(folds, raw (n,), calibrated (n,))``; ``folds`` is 0 with too few pairs.
    """
    adjacent = (~Y[:, 0]).astype(int)
    folds = int(min(5, np.bincount(adjacent, minlength=2).min()))
    raw, cal = np.full(len(Y), np.nan), np.full(len(Y), np.nan)
    if folds < 2:
        return 0, raw, cal
    split = StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, adjacent)
    for train, test in split:
        fitted = fit_with_offsets(clone(model), X[train], Y[train], offsets[train])
        boot = (X[test][:, :4] + eps) / (1 + 4 * eps)
        for Q, out in ((boot, raw), (fitted.predict_proba(X[test]), cal)):
            S = selected_posterior(Q, offsets[test])
            out[test] = -np.log(np.clip((S * Y[test]).sum(axis=1), 1e-12, 1))
    return folds, raw, cal


def choose_map(folds: int, raw: np.ndarray, cal: np.ndarray, asked: str = "auto",
               z: float = 1.0) -> dict:
    """The map to write and its evidence.

    With ``asked="auto"`` the calibrated map is chosen only if its mean held-out log-loss
    is lower than the bootstrap's by more than ``z`` standard errors of the paired
    per-pair difference; otherwise (and without enough pairs to cross-validate) the
    bootstrap frequencies stay. Returns a plain dict: ``chosen``, ``asked``, ``folds``,
    each candidate's mean loss and standard error, the mean improvement and its error.
    """
    evidence: dict = {"asked": asked, "folds": folds}
    if folds:
        diff = raw - cal
        n = len(diff)
        se = lambda v: float(np.std(v, ddof=1) / np.sqrt(n)) if n > 1 else float("inf")  # noqa: E731
        evidence.update({
            "identity": {"log_loss": float(raw.mean()), "se": se(raw)},
            "calibrated": {"log_loss": float(cal.mean()), "se": se(cal)},
            "improvement": float(diff.mean()), "improvement_se": se(diff), "z": z,
        })
    if asked != "auto":
        evidence["chosen"] = asked
    elif folds and evidence["improvement"] > max(z * evidence["improvement_se"], 0.0):
        evidence["chosen"] = "calibrated"
    else:
        evidence["chosen"] = "identity"
    return evidence
