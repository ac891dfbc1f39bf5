"""Held-out evidence of candidate maps on known pairs, and the do-no-harm choice it
supports (docs/design.md §9.3, §9.6, §9.7).

Known pairs are few and sit mostly at the ends of the probability range, so a map must
earn every change it makes: :func:`choose_map` keeps the bootstrap frequencies unless a
candidate predicts known pairs it was not fitted on better, by more than the uncertainty
of that difference. The candidates are the bootstrap frequencies (``identity``), the
calibrator fitted on the known pairs (``calibrated``, judged by cross-validation) and,
when simulations were run, the simulation-informed map (``simulated``, judged on every
known pair, since none of them went into it).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from causalcal.edgecal.known import selected_posterior
from causalcal.edgecal.model import fit_with_offsets

__all__ = ["CANDIDATES", "MAPS", "Z", "Z_CAUSAL", "choose_map", "cross_validated_losses",
           "known_pair_losses"]

#: The maps a fit on known relations can write, the first being the bootstrap itself.
CANDIDATES = ("identity", "calibrated", "simulated")
#: What ``fit_edge_calibrator(map=…)`` may be asked for: ``auto`` lets the held-out
#: evidence choose among the candidates.
MAPS = ("auto", *CANDIDATES)
#: Standard errors by which a candidate must beat the bootstrap. The simulation-informed
#: map needs two: its errors sit in the middle of the probability range, where known
#: pairs are few, so a handful of them can make a harmful map look better by one (seen
#: on the discover_known harness, docs/results.md).
Z = {"calibrated": 1.0, "simulated": 2.0}
#: The same for causal relations. Their calibrated map is written whole (the direction
#: split included, where the edge-type map keeps the bootstrap's), so it changes more
#: and must show more: two standard errors, as the simulation-informed map. With one,
#: 8 of 151 acceptance lines of the discover_known harness failed (7 of them overall
#: MCE, where a map written in 1 of 10 draws raised a setting's mean); with two, none
#: (docs/results.md, "Causal relations on the discover_known harness").
Z_CAUSAL = {"calibrated": 2.0, "simulated": 2.0}


def known_pair_losses(Q: np.ndarray, Y: np.ndarray, offsets: np.ndarray) -> dict:
    """Per-pair losses of population probabilities ``Q`` (n, k) on known pairs with label
    sets ``Y``: turned into the known pairs' own (selected) distribution with the
    inclusion rates ``exp(offsets)`` first, so no map is penalised for the selection
    itself. ``{"brier": …, "log_loss": log-loss of the label set}``.

    The Brier score is of P(adjacent) for the four edge types; for the three causal
    relations it is that of P(a causes b) and P(b causes a), summed over the directions
    whose truth the label settles (``causes``: both, ``not-causes``: the one denied,
    ``--``: neither), the question a scientist asks of a pair (docs/design.md §9.9)."""
    S = selected_posterior(Q, offsets)
    log_loss = -np.log(np.clip((S * Y).sum(axis=1), 1e-12, 1))
    if Y.shape[1] == 3:
        known = Y.sum(axis=1, keepdims=True) == 1  # one class: both directions settled
        settled = known | ~Y[:, 1:]  # a direction is settled false where it is not allowed
        brier = (settled * (S[:, 1:] - Y[:, 1:] * known) ** 2).sum(axis=1)
        return {"brier": brier, "log_loss": log_loss}
    adjacent = (~Y[:, 0]).astype(int)
    return {"brier": (1.0 - S[:, 0] - adjacent) ** 2, "log_loss": log_loss}


def cross_validated_losses(model, X: np.ndarray, Y: np.ndarray, offsets: np.ndarray,
                           eps: float, seed: int = 0) -> dict:
    """Per-pair held-out losses (:func:`known_pair_losses`) of the bootstrap and of
    ``model`` on known pairs.

    Up to 5 folds stratified by adjacency; each fold fits a clone of ``model`` with the
    given offsets. The bootstrap's Brier score uses its frequencies as they are, its
    log-loss its zeros floored at ``eps``. Returns ``{"folds": k, "brier": {"identity":
    …, "calibrated": …}, "log_loss": {…}}``, arrays of n; ``folds`` is 0 (and the
    arrays NaN) with too few pairs.
    """
    adjacent = (~Y[:, 0]).astype(int)
    folds = int(min(5, np.bincount(adjacent, minlength=2).min()))
    names = ("identity", "calibrated")
    out = {"folds": folds if folds >= 2 else 0,
           **{loss: {k: np.full(len(Y), np.nan) for k in names}
              for loss in ("brier", "log_loss")}}
    if folds < 2:
        return out
    split = StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, adjacent)
    for train, test in split:
        fitted = fit_with_offsets(clone(model), X[train], Y[train], offsets[train])
        boot = X[test][:, : Y.shape[1]]
        raw = known_pair_losses(boot, Y[test], offsets[test])
        floored = known_pair_losses((boot + eps) / (1 + Y.shape[1] * eps), Y[test],
                                    offsets[test])
        cal = known_pair_losses(fitted.predict_proba(X[test]), Y[test], offsets[test])
        out["brier"]["identity"][test] = raw["brier"]
        out["log_loss"]["identity"][test] = floored["log_loss"]
        for loss in ("brier", "log_loss"):
            out[loss]["calibrated"][test] = cal[loss]
    return out


def _mean_se(v: np.ndarray) -> dict:
    n = len(v)
    se = float(np.std(v, ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    return {"mean": float(v.mean()), "se": se}


def choose_map(losses: dict, asked: str = "auto", z: dict | None = None) -> dict:
    """The map to write and its evidence.

    ``losses``: ``{"folds": k, "brier": {candidate: per-pair array}, "log_loss": {…}}``
    with ``identity`` among the candidates. With ``asked="auto"`` a candidate is eligible
    only if its held-out Brier score of P(adjacent) is lower than the bootstrap's by more
    than ``z[candidate]`` (default :data:`Z`) standard errors of the paired per-pair
    difference; the eligible candidate
    with the largest improvement is chosen, else (and without known pairs to judge by)
    the bootstrap frequencies stay. The Brier score decides because it is bounded and
    needs no floor: the log-loss of the bootstrap's zeros depends on the floor chosen for
    them, so a map that merely moves known pairs away from 0 and 1 would win by it.
    Returns a plain dict: ``chosen``, ``asked``, ``folds``, ``criterion`` and per
    candidate (``candidates``) the mean and standard error of both losses and, but for
    the identity, the Brier improvement, its standard error and the ``z`` it needed.
    """
    z = {**Z, **(z or {})}
    folds = losses["folds"]
    evidence: dict = {"asked": asked, "folds": folds, "criterion": "brier", "candidates": {}}
    best, best_gain = "identity", 0.0
    scores = losses.get("brier", {})
    raw = scores.get("identity")
    for name, brier in scores.items():
        if not folds or np.isnan(brier).any():
            continue
        entry = {loss: _mean_se(losses[loss][name]) for loss in ("brier", "log_loss")}
        if name != "identity":
            gain = _mean_se(raw - brier)
            entry["improvement"], entry["improvement_se"] = gain["mean"], gain["se"]
            entry["z"] = z[name]
            if gain["mean"] > max(z[name] * gain["se"], 0.0) and gain["mean"] > best_gain:
                best, best_gain = name, gain["mean"]
        evidence["candidates"][name] = entry
    evidence["chosen"] = best if asked == "auto" else asked
    return evidence
