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

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from causalcal.edgecal.known import selected_posterior
from causalcal.edgecal.model import fit_with_offsets, floored_probabilities

__all__ = ["ALPHA", "CANDIDATES", "MAPS", "Z", "Z_CAUSAL", "CalibrationTest", "Candidate",
           "LineFit", "MapChoice", "Score", "choose_map", "cross_validated_losses",
           "known_pair_losses"]

#: The maps a fit on known relations can write, the first being the bootstrap itself;
#: ``designed``: the map fitted on answers to suggested pairs (docs/design.md §9.12).
CANDIDATES = ("identity", "calibrated", "simulated", "designed")
#: What ``fit_edge_calibrator(map=…)`` may be asked for: ``auto`` lets the held-out
#: evidence choose among the candidates.
MAPS = ("auto", *CANDIDATES)
#: Standard errors by which a candidate must beat the bootstrap. The simulation-informed
#: map needs two: its errors sit in the middle of the probability range, where known
#: pairs are few, so a handful of them can make a harmful map look better by one (seen
#: on the discover_known harness, docs/results.md).
Z = {"calibrated": 1.0, "simulated": 2.0, "designed": 1.0}
#: The same for causal relations. Their calibrated map is written whole (the direction
#: split included, where the edge-type map keeps the bootstrap's), so it changes more
#: and must show more: two standard errors, as the simulation-informed map. With one,
#: 8 of 151 acceptance lines of the discover_known harness failed (7 of them overall
#: MCE, where a map written in 1 of 10 draws raised a setting's mean); with two, none
#: (docs/results.md, "Causal relations on the discover_known harness").
#: The map fitted on answers to suggested pairs is two parameters of each direction's
#: P(a causes b), judged on pairs that represent the population: one, as for edge types.
Z_CAUSAL = {"calibrated": 2.0, "simulated": 2.0, "designed": 1.0}
#: The level of the calibration test (Cox 1958) that makes the map fitted on answers to
#: suggested pairs a candidate: the answers must show the bootstrap miscalibrated, and its
#: held-out improvement must be positive (docs/design.md §9.12). Judged by held-out Brier
#: alone, as the other maps are, it was written in 11 % of the benchmark's edge draws
#: though it helped in most of them when forced: 40 answers weighted by 1 / rate give too
#: noisy a Brier score to see a gain the map has. With "above −1 SE" instead of
#: "positive" it was written more often and harmed more draws (edges: 21 % against 14 %).
ALPHA = 0.05


def known_pair_losses(Q: np.ndarray, Y: np.ndarray, offsets: np.ndarray,
                      brier: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> dict:
    """Per-pair losses of population probabilities ``Q`` (n, k) on known pairs with label
    sets ``Y``: turned into the known pairs' own (selected) distribution with the
    inclusion rates ``exp(offsets)`` first, so no map is penalised for the selection
    itself. ``{"brier": brier(S, Y), "log_loss": log-loss of the label set}``; the relation
    kind says what the Brier score is of (:meth:`RelationKind.known_brier
    <causalcal.edgecal.kinds.RelationKind.known_brier>`: P(adjacent) for edge types;
    P(a causes b) and P(b causes a) over the directions a causal label settles)."""
    S = selected_posterior(Q, offsets)
    log_loss = -np.log(np.clip((S * Y).sum(axis=1), 1e-12, 1))
    return {"brier": brier(S, Y), "log_loss": log_loss}


def cross_validated_losses(model, X: np.ndarray, Y: np.ndarray, offsets: np.ndarray,
                           eps: float, brier: Callable, seed: int = 0) -> dict:
    """Per-pair held-out losses (:func:`known_pair_losses`) of the bootstrap and of
    ``model`` on known pairs.

    Up to 5 folds stratified by adjacency; each fold fits a clone of ``model`` with the
    given offsets. The bootstrap's Brier score (``brier``, :func:`known_pair_losses`) uses
    its frequencies as they are, its log-loss its zeros floored at ``eps``. Returns
    ``{"folds": k, "brier": {"identity": …, "calibrated": …}, "log_loss": {…}}``, arrays of
    n; ``folds`` is 0 (and the arrays NaN) with too few pairs.
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
        raw = known_pair_losses(boot, Y[test], offsets[test], brier)
        floored = known_pair_losses(floored_probabilities(boot, eps), Y[test], offsets[test],
                                    brier)
        cal = known_pair_losses(fitted.predict_proba(X[test]), Y[test], offsets[test], brier)
        out["brier"]["identity"][test] = raw["brier"]
        out["log_loss"]["identity"][test] = floored["log_loss"]
        for loss in ("brier", "log_loss"):
            out[loss]["calibrated"][test] = cal[loss]
    return out


@dataclass(frozen=True)
class Score:
    """A loss's mean over the known pairs and its standard error."""

    mean: float
    se: float

    @classmethod
    def of(cls, values: np.ndarray, weights: np.ndarray | None = None) -> Score:
        """The mean of ``values`` and its standard error; with ``weights`` (inverse
        inclusion rates) the weighted mean and the ratio estimator's standard error."""
        n = len(values)
        if weights is None:
            se = float(np.std(values, ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
            return cls(float(values.mean()), se)
        w = np.asarray(weights, dtype=np.float64)
        mean = float((w * values).sum() / w.sum())
        se = (float(np.sqrt((w ** 2 * (values - mean) ** 2).sum() * n / (n - 1)) / w.sum())
              if n > 1 else float("inf"))
        return cls(mean, se)


@dataclass(frozen=True)
class Candidate:
    """A candidate map's held-out scores; for all but the bootstrap itself, its Brier
    improvement over the bootstrap, that improvement's standard error and the standard
    errors ``z`` it needed (the threshold)."""

    brier: Score
    log_loss: Score
    improvement: float | None = None
    improvement_se: float | None = None
    z: float | None = None
    calibration_p: float | None = None
    slope: float | None = None

    @property
    def passes(self) -> bool:
        """Whether it beats the bootstrap by more than ``z`` standard errors; a map with a
        calibration test (``calibration_p``): whether the test rejects the bootstrap at
        :data:`ALPHA` and the held-out improvement is positive."""
        if self.calibration_p is not None:
            return self.calibration_p < ALPHA and self.improvement > 0
        return self.improvement > max(self.z * self.improvement_se, 0.0)

    def as_dict(self) -> dict:
        d = {"brier": asdict(self.brier), "log_loss": asdict(self.log_loss)}
        if self.z is not None:
            d.update(improvement=self.improvement, improvement_se=self.improvement_se, z=self.z)
        if self.calibration_p is not None:
            d.update(calibration_p=self.calibration_p, slope=self.slope)
        return d


@dataclass(frozen=True)
class CalibrationTest:
    """Cox's calibration test of the bootstrap on answered pairs: its p-value and the
    slope of the map fitted on them (a slope ≤ 0 counts only when it is below 0 by two
    standard errors, :func:`~causalcal.edgecal.designed.calibration_test`)."""

    p_value: float
    slope: float


@dataclass(frozen=True)
class LineFit:
    """The simulation-informed map's ``logit q = slope · logit p + intercept``."""

    slope: float
    intercept: float


@dataclass(frozen=True)
class MapChoice:
    """Which map a known-relations fit wrote, and the held-out evidence behind it.

    Attributes
    ----------
    asked : ``"auto"`` (the evidence chose) or the map forced
    folds : cross-validation folds over the known pairs (0: too few to judge)
    candidates : each candidate's :class:`Candidate` scores (``identity`` first)
    chosen : the map written (``identity``, ``calibrated`` or ``simulated``)
    criterion : the loss that decides (``"brier"``)
    simulated_map : the simulation-informed map's line, when simulations were run
    held_back : the answers (rows among the answered suggested pairs) likeliest wrong
        without which the map fitted on the answers would not have been written: it
        was held back for them (docs/design.md §9.14)
    """

    asked: str
    folds: int
    candidates: dict[str, Candidate]
    chosen: str
    criterion: str = "brier"
    simulated_map: LineFit | None = None
    held_back: tuple[int, ...] = ()

    def as_dict(self) -> dict:
        """The report's (``OUT.json``) layout."""
        d = {"asked": self.asked, "folds": self.folds, "criterion": self.criterion,
             "candidates": {k: c.as_dict() for k, c in self.candidates.items()},
             "chosen": self.chosen, "held_back": list(self.held_back)}
        if self.simulated_map is not None:
            d["simulated_map"] = asdict(self.simulated_map)
        return d


def choose_map(losses: dict, asked: str = "auto", z: dict | None = None,
               simulated_map: LineFit | None = None,
               weights: np.ndarray | None = None, tests: dict | None = None) -> MapChoice:
    """The map to write and its evidence.

    ``losses``: ``{"folds": k, "brier": {candidate: per-pair array}, "log_loss": {…}}`` with
    ``identity`` among the candidates (and ``observed``: the Brier scores shown, where those
    that decide are corrected for the answers' errors). With ``asked="auto"`` a candidate is
    eligible only if its held-out Brier score is lower than the bootstrap's by more than
    ``z[candidate]`` (default :data:`Z`) standard errors of the paired per-pair difference;
    the eligible candidate with the largest improvement is chosen, else (and without known
    pairs to judge by) the bootstrap frequencies stay. The Brier score decides because it is
    bounded and needs no floor: the log-loss of the bootstrap's zeros depends on the floor
    chosen for them, so a map that merely moves known pairs away from 0 and 1 would win by
    it. ``weights``: the pairs' inverse inclusion rates, when they are answers to suggested
    pairs (their weighted mean estimates the population's). ``tests``: a candidate's
    :class:`CalibrationTest` (the map fitted on answers, :data:`ALPHA`), which then decides
    whether it is eligible.
    """
    z = {**Z, **(z or {})}
    folds = losses["folds"]
    candidates: dict[str, Candidate] = {}
    best, best_gain = "identity", -np.inf
    scores = losses.get("brier", {})
    shown = losses.get("observed", scores)  # the answers as given, when errors correct them
    raw = scores.get("identity")
    for name, brier in scores.items():
        if not folds or np.isnan(brier).any():
            continue
        own = {"brier": Score.of(shown[name], weights),
               "log_loss": Score.of(losses["log_loss"][name], weights)}
        if name == "identity":
            candidates[name] = Candidate(**own)
            continue
        gain = Score.of(raw - brier, weights)
        test = (tests or {}).get(name)
        candidates[name] = c = Candidate(**own, improvement=gain.mean,
                                         improvement_se=gain.se, z=z[name],
                                         calibration_p=test and test.p_value,
                                         slope=test and test.slope)
        if c.passes and gain.mean > best_gain:
            best, best_gain = name, gain.mean
    return MapChoice(asked, folds, candidates, best if asked == "auto" else asked,
                     simulated_map=simulated_map)
