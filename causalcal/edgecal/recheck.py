"""Answers to recheck: the answers to suggested pairs that are likeliest wrong, and what
each changes if it is (docs/design.md §9.14; issue 48 item 2).

An answer's probability of being wrong combines what the calibrated map says of its pair
with the answer's error rates (:func:`~.noisy.wrong_posterior`); the answers are named in
that order. For each one named the fit is run again with the answer reversed — a
relation stated becomes none, none becomes a relation (edge types: an arc of either
direction; causal relations: the direction the bootstrap favours) — and the estimated
related pairs, the calibrated P(related) of the pairs the bootstrap never relates and the
map written are set beside the run's. The words are what the numbers support: an answer
is "least likely by the calibrated map", never "contradicted by the data"; the data's
own marginal association is stated beside it (:mod:`causalcal.association`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from causalcal.calibration import probability_bins
from causalcal.edgecal.fit import EdgeCalibration, fit_edge_calibrator
from causalcal.edgecal.simulated import SimulatedPairs

__all__ = ["RECHECK_SHOWN", "IfWrong", "Recheck", "answers_to_recheck", "if_wrong"]

#: The answers the summary names for a recheck (the likeliest wrong first).
RECHECK_SHOWN = 5


@dataclass(frozen=True)
class IfWrong:
    """What changes if an answer is reversed: each value as answered and if wrong."""

    related_pairs: tuple[float, float]
    floor: tuple[float, float]
    floor_pairs: int
    map: tuple[str, str]

    def as_dict(self) -> dict:
        """The fields as JSON values (``floor`` None where no pair is never related)."""
        d = asdict(self)
        if not self.floor_pairs:
            d["floor"] = None
        return d


@dataclass(frozen=True)
class Recheck:
    """An answered suggested pair and how likely its answer is wrong.

    Attributes
    ----------
    row : the answer's row among the calibration set's pairs
    p_wrong : the probability that the answer is wrong (None when the answers are taken
        as right: then the answers are ordered by ``p_stated`` alone)
    p_stated, boot_stated : the calibrated and the bootstrap's probability of what it
        states
    """

    row: int
    p_wrong: float | None
    p_stated: float
    boot_stated: float


def answers_to_recheck(fit: EdgeCalibration, Q: np.ndarray) -> tuple[Recheck, ...]:
    """The answered suggested pairs of ``fit``, the likeliest wrong first (module).
    ``Q``: every pair's written probabilities (pair order)."""
    calset = fit.calibration_set
    if fit.answers is None or calset.rates is None:
        return ()
    k = calset.inputs.kind.n_classes
    rows = np.flatnonzero(~np.isnan(calset.rates))
    Y, X = calset.Y[rows], calset.X[rows]
    p_stated = (Q[calset.keys[rows]][:, :k] * Y).sum(axis=1)
    boot_stated = (X[:, :k] * Y).sum(axis=1)
    p_wrong = fit.answer_p_wrong
    order = (np.argsort(p_stated, kind="stable") if p_wrong is None else
             np.argsort(-p_wrong, kind="stable"))
    return tuple(Recheck(int(rows[m]), None if p_wrong is None else float(p_wrong[m]),
                         float(p_stated[m]), float(boot_stated[m])) for m in order)


def if_wrong(fit: EdgeCalibration, row: int, simulated: SimulatedPairs | None = None
             ) -> IfWrong:
    """What changes if the answer at ``row`` of the calibration set is wrong: ``fit``
    refitted with it reversed (``simulated``: the simulated pairs the fit used)."""
    before, after = _outcome(fit), _outcome(_reversed_fit(fit, row, simulated))
    return IfWrong((before[0], after[0]), (before[1], after[1]), before[2],
                   (before[3], after[3]))


def _outcome(fit: EdgeCalibration) -> tuple[float, float, int, str]:
    """The related pairs estimated from the answers, the mean calibrated P(related) of
    the pairs the bootstrap never relates and their number, the map written."""
    rows, counts = fit.calibration_set.inputs.population()
    never = rows[:, 0] >= 1.0
    n = int(counts[never].sum())
    floor = (float(np.average(1.0 - fit.predict_proba(rows[never])[:, 0],
                              weights=counts[never])) if n else float("nan"))
    return fit.answers_estimate[0], floor, n, fit.choice.chosen


def _reversed_fit(fit: EdgeCalibration, row: int, simulated: SimulatedPairs | None
                  ) -> EdgeCalibration:
    """``fit`` refitted with the answer at ``row`` of its calibration set reversed."""
    calset, answers = fit.calibration_set, fit.answers
    kind = calset.inputs.kind
    Y = calset.Y.copy()
    was_related = not Y[row, 0]
    Y[row] = kind.reversed_answer(Y[row], calset.X[row])
    stratum = int(probability_bins(1.0 - calset.X[row:row + 1, 0])[0])
    related = answers.related.copy()
    related[stratum] += -1 if was_related else 1
    labels = calset.labels.copy()
    labels[row] = Y[row].argmax() if Y[row].sum() == 1 else -1
    return fit_edge_calibrator(replace(calset, Y=Y, labels=labels), fit.settings, fit.seed,
                               simulated=simulated, answers=replace(answers, related=related))
