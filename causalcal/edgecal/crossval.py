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
                           eps: float, seed: int = 0) -> dict:
    """Per-pair held-out losses of the bootstrap and of ``model`` on known pairs.

    Up to 5 folds stratified by adjacency; each fold fits a clone of ``model`` with the
    given offsets. Both probabilities are turned into the known pairs' own (selected)
    distribution with the inclusion rates ``exp(offsets)`` before scoring, so neither is
    penalised for the selection itself. Two losses per pair: the Brier score of
    P(adjacent) (the bootstrap's frequencies as they are) and the log-loss of the label
    set (the bootstrap's zeros floored at ``eps``). Returns ``{"folds": k, "brier":
    (raw, calibrated), "log_loss": (raw, calibrated)}``, arrays of n; ``folds`` is 0
    with too few pairs.
    """
    adjacent = (~Y[:, 0]).astype(int)
    folds = int(min(5, np.bincount(adjacent, minlength=2).min()))
    out = {"folds": folds if folds >= 2 else 0,
           "brier": (np.full(len(Y), np.nan), np.full(len(Y), np.nan)),
           "log_loss": (np.full(len(Y), np.nan), np.full(len(Y), np.nan))}
    if folds < 2:
        return out
    split = StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, adjacent)
    for train, test in split:
        fitted = fit_with_offsets(clone(model), X[train], Y[train], offsets[train])
        boot = X[test][:, :4]
        for k, Q in enumerate((boot, fitted.predict_proba(X[test]))):
            S = selected_posterior(Q, offsets[test])
            out["brier"][k][test] = (1.0 - S[:, 0] - adjacent[test]) ** 2
            if k == 0:
                S = selected_posterior((boot + eps) / (1 + 4 * eps), offsets[test])
            out["log_loss"][k][test] = -np.log(np.clip((S * Y[test]).sum(axis=1), 1e-12, 1))
    return out


def _mean_se(v: np.ndarray) -> dict:
    n = len(v)
    se = float(np.std(v, ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    return {"mean": float(v.mean()), "se": se}


def choose_map(losses: dict, asked: str = "auto", z: float = 1.0) -> dict:
    """The map to write and its evidence.

    With ``asked="auto"`` the calibrated map is chosen only if its held-out Brier score
    of P(adjacent) is lower than the bootstrap's by more than ``z`` standard errors of
    the paired per-pair difference; otherwise (and without enough pairs to
    cross-validate) the bootstrap frequencies stay. The Brier score decides because it
    is bounded and needs no floor: the log-loss of the bootstrap's zeros depends on the
    floor chosen for them, so a calibrator that merely moves known pairs away from 0 and
    1 would win by it. Returns a plain dict: ``chosen``, ``asked``, ``folds``, each
    candidate's mean and standard error of both losses, and the Brier improvement.
    """
    folds = losses["folds"]
    evidence: dict = {"asked": asked, "folds": folds, "criterion": "brier", "z": z}
    if folds:
        for k, name in enumerate(("identity", "calibrated")):
            evidence[name] = {loss: _mean_se(losses[loss][k]) for loss in ("brier", "log_loss")}
        gain = _mean_se(losses["brier"][0] - losses["brier"][1])
        evidence["improvement"], evidence["improvement_se"] = gain["mean"], gain["se"]
    if asked != "auto":
        evidence["chosen"] = asked
    elif folds and evidence["improvement"] > max(z * evidence["improvement_se"], 0.0):
        evidence["chosen"] = "calibrated"
    else:
        evidence["chosen"] = "identity"
    return evidence
