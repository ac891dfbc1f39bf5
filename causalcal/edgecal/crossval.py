"""Held-out evidence of a fit on known relations (docs/design.md §9.3)."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from causalcal.edgecal.fit import EdgeCalibration
from causalcal.edgecal.known import selected_posterior
from causalcal.edgecal.model import fit_with_offsets

__all__ = ["cross_validated_log_loss"]


def cross_validated_log_loss(fit: EdgeCalibration, seed: int = 0) -> dict:
    """Held-out log-loss of bootstrap vs calibrated probabilities on the known pairs.

    Up to 5 folds stratified by adjacency; each fold's model is a clone of ``fit.model``
    fitted with the fit's offsets. Both probabilities are turned into the known pairs'
    own (selected) distribution with the fitted inclusion rates before scoring, so
    neither is penalised for the selection itself. Returns ``{}`` with too few pairs.
    """
    calset, offsets = fit.calibration_set, fit.offsets
    P, Y, eps = calset.X, calset.Y, calset.inputs.eps
    adjacent = (~Y[:, 0]).astype(int)
    folds = int(min(5, np.bincount(adjacent, minlength=2).min()))
    if folds < 2:
        return {}
    before = after = 0.0
    split = StratifiedKFold(folds, shuffle=True, random_state=seed).split(P, adjacent)
    for train, test in split:
        fitted = fit_with_offsets(clone(fit.model), P[train], Y[train], offsets[train])
        raw = (P[test][:, :4] + eps) / (1 + 4 * eps)
        for Q, acc in ((raw, "before"), (fitted.predict_proba(P[test]), "after")):
            S = selected_posterior(Q, offsets[test])
            loss = -np.log(np.clip((S * Y[test]).sum(axis=1), 1e-12, 1)).sum()
            if acc == "before":
                before += loss
            else:
                after += loss
    return {"folds": folds, "before": before / len(Y), "after": after / len(Y)}
