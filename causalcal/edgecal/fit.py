"""Fitting a calibrator of pairs' relations: the one function that does it
(docs/design.md §9.6).

:func:`fit_edge_calibrator` alone decides, from the calibration set and the
:class:`~causalcal.edgecal.CalibrationSettings`, every rule a fit follows; the relation
kind (:mod:`.kinds`) supplies what differs between edge types and causal relations:

* the log floor ``eps`` (half the smallest step of a frequency) of calibrators with one;
* swap equivariance: with the selection corrected (``selection="design"``, and always for
  known relations) the calibrator is wrapped in :class:`SwapEquivariant` with the kind's
  swap, and then the two directions' strata of a drawn design are pooled so the offsets
  are symmetric;
* the selection correction: a drawn set's design gives logit offsets (§9.2); known
  relations get their inclusion rates estimated by EM (§9.3) and the fitted map is
  shrunk towards the bootstrap where no known pair gives evidence (``EvidenceBlend``)
  and shaped by the kind (for edge types P(adjacent) keeps the bootstrap's order,
  ``MonotoneAdjacency``);
* the do-no-harm choice of the map written (:func:`~.crossval.choose_map`);
* the fallback to inverse-inclusion weights for a calibrator that takes no offsets.

``study``, ``discover`` and ``causalcal calibrate`` call it and hold no rule of their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from sklearn.model_selection import StratifiedKFold

from causalcal.calibration import N_BINS, SelectionDesign, probability_bins
from causalcal.edgecal.answers import AnswerDesign
from causalcal.edgecal.calset import CalibrationSet, enough_answers
from causalcal.edgecal.crossval import (
    CalibrationTest,
    LineFit,
    MapChoice,
    choose_map,
    cross_validated_losses,
    known_pair_losses,
)
from causalcal.edgecal.known import (
    MIN_KNOWN,
    EvidenceBlend,
    KnownRelationsFit,
    fit_known_relations,
)
from causalcal.edgecal.model import (
    BootstrapIdentity,
    edge_calibrator,
    fit_with_offsets,
    floored_probabilities,
)
from causalcal.edgecal.noisy import answer_rates, stratum_shares, wrong_posterior
from causalcal.edgecal.report import Sensitivity
from causalcal.edgecal.settings import CalibrationSettings
from causalcal.edgecal.simulated import SimulatedPairs
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.errors import InputError

__all__ = ["EdgeCalibration", "fit_edge_calibrator"]


@dataclass
class EdgeCalibration:
    """A fitted calibrator of pairs' relations and what went into it.

    Attributes
    ----------
    model : the fitted estimator (``predict_proba`` on input rows)
    calibration_set : the :class:`CalibrationSet` it was fitted on
    settings : the :class:`CalibrationSettings` and ``seed`` it was fitted with
    design : the selection design the fit corrected for (drawn, pooled when
        equivariant; or the EM estimate for known relations), or None
    offsets : (n, k) training offsets of the calibration pairs (None without correction)
    em : for known relations, the EM's result (related pairs assumed, steps, converged);
        None when only answers to suggested pairs were fitted
    answers : the :class:`~.designed.AnswerDesign` of answered suggested pairs, or None
    answer_errors : the answered suggested pairs' ``(e0, e1)`` (:mod:`.noisy`; None:
        taken as right), in the order of the calibration set's answered rows
    answers_estimate : the related pairs estimated from the answers and its standard
        error, allowing for their errors (docs/design.md §9.12, §9.14), or None
    answer_p_wrong : each answered suggested pair's probability of being wrong under the
        map fitted on the answers (:func:`~.noisy.wrong_posterior`), or None when the
        answers are taken as right
    choice : for known relations, the :class:`~.crossval.MapChoice`: which map was
        written (``"identity"``, the bootstrap frequencies; ``"calibrated"``; or
        ``"simulated"``) and the held-out evidence
    """

    model: object
    calibration_set: CalibrationSet
    settings: CalibrationSettings
    seed: int
    design: SelectionDesign | None = None
    offsets: np.ndarray | None = None
    em: KnownRelationsFit | None = None
    choice: MapChoice | None = None
    answers: AnswerDesign | None = None
    answer_errors: np.ndarray | None = None
    answers_estimate: tuple[float, float] | None = None
    answer_p_wrong: np.ndarray | None = None

    @property
    def related_pairs(self) -> float:
        """Related pairs assumed in the population: the EM's pin, else the answers'
        estimate (:attr:`answers_estimate`)."""
        return self.em.expected_edges if self.em is not None else self.answers_estimate[0]

    def predict_all(self, dtype=np.float32) -> np.ndarray:
        """Calibrated (V(V−1)/2, k) probabilities of every pair, in pair order."""
        return self.calibration_set.inputs.predict_all(self.model, dtype)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Calibrated probabilities of input rows ``X``."""
        return self.model.predict_proba(X)

    def calibrated_probabilities(self) -> EdgeProbabilities:
        """Every pair's calibrated edge-type probabilities, rows renormalised to sum to 1
        (what ``causalcal calibrate`` writes)."""
        probs = self.calibration_set.inputs.probabilities
        dense = self.predict_all(np.float64)
        dense /= dense.sum(axis=1, keepdims=True)
        i, j = pair_from_index(np.arange(probs.n_pairs), probs.n_vars)
        return EdgeProbabilities(probs.names, np.column_stack([i, j]), dense,
                                 n_boot=probs.n_boot)

    def sensitivity(self, X: np.ndarray) -> Sensitivity:
        """P(related) of input rows ``X`` at half and double the assumed number of related
        pairs: the calibrated map refitted under each (a written bootstrap or simulated
        map assumes none, so it does not move)."""
        out = {}
        for label, factor in (("half", 0.5), ("double", 2.0)):
            assumed = min(self.related_pairs * factor,
                          self.calibration_set.inputs.probabilities.n_pairs - 0.5)
            fit = self
            if self.choice.chosen == "calibrated":
                settings = replace(self.settings, related_pairs=assumed, map="calibrated",
                                   simulations=0)
                fit = fit_edge_calibrator(self.calibration_set.subset(self._own()), settings,
                                          self.seed, cross_validate=False)
            out[label] = (1.0 - fit.predict_proba(X)[:, 0]).tolist()
            out[f"{label}_related"] = assumed
        return Sensitivity(**out)

    def _own(self) -> np.ndarray:
        """The known pairs the scientist added (not answers to suggested pairs)."""
        rates = self.calibration_set.rates
        return np.ones(len(self.calibration_set), bool) if rates is None else np.isnan(rates)


def fit_edge_calibrator(calset: CalibrationSet,
                        settings: CalibrationSettings | None = None, seed: int = 0, *,
                        cross_validate: bool = True,
                        simulated: SimulatedPairs | None = None,
                        answers: AnswerDesign | None = None) -> EdgeCalibration:
    """Fit a calibrator on ``calset`` (see the module for the rules).

    Parameters
    ----------
    calset : the labelled pairs (:func:`drawn_calibration_set` or
        :func:`known_calibration_set`).
    settings : the :class:`CalibrationSettings` (default: the SNN, selection corrected);
        ``seed`` the calibrator's ``random_state`` and the cross-validation's.
    cross_validate : known relations: compute the held-out evidence (needed by
        ``map="auto"``; ``False`` skips it for a forced map).
    simulated : known relations: labelled pairs of simulated data sets of the set's kind
        (:func:`causalcal.workflow.simulated_pairs`), which add the simulation-informed
        map as a candidate (docs/design.md §9.7, §9.9); default ``settings.simulations``
        when those are counted pairs.
    answers : known relations: the design of the answered suggested pairs among them
        (``calset.rates``), which makes the map fitted on them a candidate and the judge
        of every candidate (docs/design.md §9.12).
    """
    settings = CalibrationSettings() if settings is None else settings
    inputs, kind = calset.inputs, calset.inputs.kind
    if simulated is None and isinstance(settings.simulations, SimulatedPairs):
        simulated = settings.simulations
    kind.check_simulations(simulated)
    equivariant = settings.selection == "design"
    model = edge_calibrator(settings.calibrator, settings.params, seed, swap=kind.swap,
                            n_boot=inputs.n_boot, equivariant=equivariant,
                            feature_swap=inputs.swap,
                            eps=inputs.eps if inputs.n_boot else None)
    if calset.source == "known":
        if not equivariant:
            raise InputError("known relations are never a random sample: selection must "
                             "be 'design'")
        if settings.map == "simulated" and simulated is None:
            raise InputError("map='simulated' needs simulations (simulations=R, "
                             "--simulations R)")
        answered = answers is not None and enough_answers(calset.Y, calset.rates)
        if settings.map == "designed" and not answered:
            raise InputError("map='designed' needs answers to suggested pairs, at least 2 "
                             "related and 2 unrelated (causalcal suggest, then --known with "
                             "the answered file)")
        if answered:
            return _fit_with_answers(calset, model, settings, seed, simulated, answers)
        return _fit_known(calset, model, settings, seed, cross_validate, simulated)
    design = calset.design.pooled([1, 2]) if equivariant else None
    offsets = design.offsets(calset.X[:, :kind.n_classes]) if equivariant else None
    fit_with_offsets(model, calset.X, calset.y, offsets)
    return EdgeCalibration(model, calset, settings, seed, design, offsets)


def _fit_known(calset: CalibrationSet, model, settings: CalibrationSettings, seed: int,
               cross_validate: bool, simulated: SimulatedPairs | None) -> EdgeCalibration:
    """Known relations: EM-estimated inclusion rates, the evidence blend, and the
    do-no-harm choice among the bootstrap frequencies, the calibrated map and (with
    simulations) the simulation-informed map."""
    inputs, kind = calset.inputs, calset.inputs.kind
    k = kind.n_classes
    rows, counts = inputs.population()
    blend = kind.shaped(EvidenceBlend(model, settings.evidence_strength, k), rows, counts)
    em = fit_known_relations(blend, calset.X, calset.Y, rows, counts, settings.related_pairs)
    offsets = em.design.offsets(calset.X[:, :k])
    losses = ({"folds": 0} if not (cross_validate or settings.map == "auto") else
              cross_validated_losses(em.model, calset.X, calset.Y, offsets, inputs.eps,
                                     kind.known_brier, seed))
    maps = {"identity": BootstrapIdentity(k).fit(calset.X), "calibrated": kind.written(em.model)}
    line = None
    if simulated is not None:
        sim, maps["simulated"] = kind.simulated_map(simulated, inputs.eps)
        line = LineFit(sim.slope_, sim.intercept_)
        if losses["folds"]:  # none of the known pairs went into it: judged on all of them
            scored = known_pair_losses(maps["simulated"].predict_proba(calset.X), calset.Y,
                                       offsets, kind.known_brier)
            for loss, values in scored.items():
                losses[loss]["simulated"] = values
    choice = choose_map(losses, settings.map, kind.z, line)
    return EdgeCalibration(maps[choice.chosen], calset, settings, seed, em.design, offsets,
                           em, choice)


def _fit_with_answers(calset: CalibrationSet, model, settings: CalibrationSettings,
                      seed: int, simulated: SimulatedPairs | None,
                      answers: AnswerDesign) -> EdgeCalibration:
    """Known relations among which some answer suggested pairs (docs/design.md §9.12):
    every candidate is judged on the answered pairs, weighted by their inverse inclusion
    rates (the map fitted on them cross-validated, the others not fitted on them); the
    candidates are the bootstrap, the map fitted on the answers, the calibrated map of
    the scientist's own pairs (when there are enough, its EM pinned at the answers'
    estimate of the related pairs) and the simulation-informed map."""
    inputs, kind = calset.inputs, calset.inputs.kind
    k, eps = kind.n_classes, inputs.eps
    rows, counts = inputs.population()
    d = ~np.isnan(calset.rates)
    X, Y, w = calset.X[d], calset.Y[d], 1.0 / calset.rates[d]
    errors = answer_rates(~Y[:, 0], settings.answer_error,
                          None if calset.errors is None else calset.errors[d])
    estimate = answers_estimate(answers, X, ~Y[:, 0], errors)
    losses = designed_losses(kind, X, Y, w, eps, rows, counts, seed, errors)
    fitted, written = kind.designed_map(X, Y, w, eps, rows, counts, errors)
    maps = {"identity": BootstrapIdentity(k).fit(calset.X), "designed": written}
    own, em = calset.subset(~d), None
    related, unrelated = kind.known_counts(own.Y)
    if min(related, unrelated) >= MIN_KNOWN:
        pin = settings.related_pairs or estimate[0]
        blend = kind.shaped(EvidenceBlend(model, settings.evidence_strength, k), rows, counts)
        em = fit_known_relations(blend, own.X, own.Y, rows, counts, pin)
        maps["calibrated"] = kind.written(em.model)
    line = None
    if simulated is not None:
        sim, maps["simulated"] = kind.simulated_map(simulated, eps)
        line = LineFit(sim.slope_, sim.intercept_)
    for name in ("calibrated", "simulated"):
        if name in maps and losses["folds"]:  # not fitted on the answers: judged on all
            Q = maps[name].predict_proba(X)
            losses["log_loss"][name] = known_pair_losses(Q, Y, np.zeros((len(X), k)),
                                                         kind.known_brier)["log_loss"]
            for loss, values in answer_briers(kind, {name: Q}, Y, errors).items():
                losses[loss].update(values)
    if settings.map not in ("auto", *maps):
        raise InputError(f"map={settings.map!r} is not a candidate here (the candidates: "
                         f"{', '.join(maps)})")
    choice = choose_map(losses, settings.map, kind.z, line, weights=w,
                        tests={"designed": CalibrationTest(fitted.calibration_p_, fitted.slope_)})
    p_wrong = (None if errors is None else
               wrong_posterior((written.predict_proba(X)[:, :k] * Y).sum(axis=1), ~Y[:, 0],
                               errors))
    guard = (math.ceil(settings.answer_error * len(X) / 2) if settings.answer_guard is None
             else settings.answer_guard)
    if choice.chosen == "designed" and settings.map == "auto" and guard and p_wrong is not None:
        held = _held_back(kind, X, Y, answers.sizes, eps, rows, counts, seed, errors,
                          p_wrong, guard)
        if held:
            choice = replace(choice, chosen="identity", held_back=held)
    return EdgeCalibration(maps[choice.chosen], calset, settings, seed,
                           em.design if em else None, np.zeros((len(calset), k)), em,
                           choice, answers, errors, estimate, p_wrong)


def _held_back(kind, X: np.ndarray, Y: np.ndarray, sizes: np.ndarray, eps: float,
               rows: np.ndarray, counts: np.ndarray, seed: int, errors: np.ndarray,
               p_wrong: np.ndarray, guard: int) -> tuple[int, ...]:
    """The answers likeliest wrong (the ``guard`` highest ``p_wrong``) without which the
    map fitted on the answers would not be written, or () when it would (docs/design.md
    §9.14): the map must not rest on the answers the data make least likely."""
    drop = np.argsort(-p_wrong, kind="stable")[:guard]
    keep = np.ones(len(X), dtype=bool)
    keep[drop] = False
    related = ~Y[keep, 0]
    if min(int(related.sum()), int((~related).sum())) < 2:
        return tuple(int(r) for r in drop)
    strata = probability_bins(1.0 - X[keep, 0])
    answered = np.bincount(strata, minlength=N_BINS)
    w = sizes[strata] / answered[strata]
    losses = designed_losses(kind, X[keep], Y[keep], w, eps, rows, counts, seed, errors[keep])
    fitted = kind.designed_map(X[keep], Y[keep], w, eps, rows, counts, errors[keep])[0]
    again = choose_map(losses, "auto", kind.z, weights=w,
                       tests={"designed": CalibrationTest(fitted.calibration_p_, fitted.slope_)})
    return () if again.chosen == "designed" else tuple(int(r) for r in drop)


def answers_estimate(answers: AnswerDesign, X: np.ndarray, related: np.ndarray,
                     errors: np.ndarray | None) -> tuple[float, float]:
    """The related pairs estimated from the answered suggested pairs (inputs ``X``,
    ``related`` what each states, ``errors`` their rates) and its standard error:
    :meth:`AnswerDesign.related_pairs`, each stratum's share corrected for the answers'
    errors (:func:`~.noisy.stratum_shares`; the answers' own shares without)."""
    if errors is None:
        return answers.related_pairs()
    strata = probability_bins(1.0 - X[:, 0])
    return answers.related_pairs(*stratum_shares(strata, related, errors, N_BINS))


def _brier(kind, errors: np.ndarray | None):
    """The kind's Brier score of known pairs, unbiased under their ``errors``."""
    return kind.known_brier if errors is None else (
        lambda S, Y: kind.known_brier(S, Y, errors))


def designed_losses(kind, X: np.ndarray, Y: np.ndarray, weights: np.ndarray, eps: float,
                    rows: np.ndarray, counts: np.ndarray, seed: int = 0,
                    errors: np.ndarray | None = None) -> dict:
    """Per-pair losses on answered suggested pairs (inputs ``X``, label sets ``Y``,
    ``weights`` their inverse inclusion rates, ``errors`` their error rates) of the
    bootstrap and, up to 5 folds stratified by relatedness, of the map fitted on the
    other folds' answers (:meth:`RelationKind.designed_map`). No offsets: the draw depends
    on a pair's probabilities alone. With ``errors`` the Brier scores that decide are
    unbiased under the answers' errors (:mod:`.noisy`) and ``observed`` holds those of the
    answers as given (what the summary shows); the log-losses are of the answers as given.
    ``{"folds": k, "brier": {…}, "log_loss": {…}[, "observed": {…}]}``."""
    k = kind.n_classes
    zero = np.zeros((len(X), k))
    scores = {"identity": X[:, :k]}
    floored = known_pair_losses(floored_probabilities(X[:, :k], eps), Y, zero,
                                kind.known_brier)
    out = {"folds": 0, "log_loss": {"identity": floored["log_loss"]}}
    related = (~Y[:, 0]).astype(int)
    folds = int(min(5, np.bincount(related, minlength=2).min()))
    if folds >= 2:
        designed, log_loss = np.full((len(X), k), np.nan), np.full(len(X), np.nan)
        split = StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, related)
        for train, test in split:
            writer = kind.designed_map(X[train], Y[train], weights[train], eps, rows, counts,
                                       None if errors is None else errors[train])[1]
            designed[test] = writer.predict_proba(X[test])
            log_loss[test] = known_pair_losses(designed[test], Y[test], zero[test],
                                               kind.known_brier)["log_loss"]
        scores["designed"], out["folds"] = designed, folds
        out["log_loss"]["designed"] = log_loss
    out.update(answer_briers(kind, scores, Y, errors))
    return out


def answer_briers(kind, predicted: dict[str, np.ndarray], Y: np.ndarray,
                  errors: np.ndarray | None) -> dict:
    """Each candidate's per-pair Brier score on the answers (``predicted``: its
    probabilities of them): ``{"brier": …}``, unbiased under the answers' ``errors``
    (:mod:`.noisy`), and with errors ``"observed"`` too, the scores of the answers as
    given."""
    zero = np.zeros((len(Y), kind.n_classes))
    out = {"brier": {name: known_pair_losses(Q, Y, zero, _brier(kind, errors))["brier"]
                     for name, Q in predicted.items()}}
    if errors is not None:
        out["observed"] = {name: known_pair_losses(Q, Y, zero, kind.known_brier)["brier"]
                           for name, Q in predicted.items()}
    return out
