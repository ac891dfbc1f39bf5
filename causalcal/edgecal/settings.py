"""How to calibrate, as one object (docs/design.md §9.6).

:class:`CalibrationSettings` holds everything the calibrate stage takes besides the
labelled pairs, checked once when it is made: ``discover`` and the command line build it
and pass it on whole, as they do :class:`~causalcal.bootstrap.BootstrapSettings`.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

import numpy as np

from causalcal.calibration import make_calibrator
from causalcal.edgecal.crossval import MAPS
from causalcal.edgecal.known import MIN_KNOWN
from causalcal.edgecal.simulated import SimulatedPairs
from causalcal.errors import InputError

__all__ = ["ANSWER_ERROR", "SELECTIONS", "CalibrationSettings"]

#: The error rate assumed of an answer to a suggested pair whose file states no
#: confidence (docs/design.md §9.14).
ANSWER_ERROR = 0.2

#: ``"design"``: correct for how the calibration pairs were selected (and fit
#: swap-equivariant); ``"none"``: fit as if they were a random sample, as the thesis did.
SELECTIONS = ("design", "none")


@dataclass(frozen=True)
class CalibrationSettings:
    """The calibrate stage's settings.

    Parameters
    ----------
    calibrator : a registry name (``causalcal.calibration.get``: ``snn``, ``dirichlet``,
        ``ovr-isotonic`` …) or an unfitted estimator with ``fit(X, y[, sample_weight][,
        offsets])`` and ``predict_proba``, cloned; made swap-equivariant.
    params : its hyper-parameters (``random_state`` comes from the seed).
    selection : ``"design"`` (default: correct for how the pairs were selected) or
        ``"none"`` (drawn sets only; known relations are never a random sample).
    related_pairs : known relations: related pairs assumed in the population (adjacent
        pairs for edge types; default the bootstrap's own mean).
    evidence_strength : known relations: known pairs a P(adjacent) bin needs for half
        weight on the calibrated value (0: the calibrated value everywhere).
    map : known relations: ``"auto"`` (the held-out evidence chooses, docs/design.md
        §9.3), or ``"calibrated"``, ``"simulated"``, ``"identity"`` forced.
    simulations : known relations: ``R`` simulated data sets whose map is a candidate
        (§9.7; 0: none), or the counted pairs of earlier ones
        (:class:`~causalcal.edgecal.SimulatedPairs`).
    answer_error : answers to suggested pairs: the share of the answers assumed wrong,
        half of them inventing a relation and half denying one, for answers whose file
        states no ``confidence`` (docs/design.md §9.14; default 0.2, chosen by
        measurement; 0: the answers are taken as right). In [0, 0.5).
    answer_guard : answers to suggested pairs: how many of the answers likeliest wrong
        the map fitted on them must be written without (docs/design.md §9.14; None: half
        the answers assumed wrong, rounded up; 0: no guard).

    Bad values are an ``InputError`` when the object is made, before any work.
    """

    calibrator: Any = "snn"
    params: dict = field(default_factory=dict)
    selection: str = "design"
    related_pairs: float | None = None
    evidence_strength: float = 5.0
    map: str = "auto"
    simulations: int | SimulatedPairs = 0
    answer_error: float = ANSWER_ERROR
    answer_guard: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", dict(self.params or {}))
        if self.map not in MAPS:
            raise InputError(f"map must be one of {', '.join(MAPS)}, got {self.map!r}")
        if self.selection not in SELECTIONS:
            raise InputError(f"selection must be one of {', '.join(SELECTIONS)}, "
                             f"got {self.selection!r}")
        if not self.evidence_strength >= 0:
            raise InputError(f"evidence_strength must be >= 0, got {self.evidence_strength!r}")
        if self.related_pairs is not None and not (
                isinstance(self.related_pairs, (int, float, np.number))
                and math.isfinite(self.related_pairs) and self.related_pairs > 0):
            raise InputError(f"the assumed number of related pairs must be a positive number, "
                             f"got {self.related_pairs!r}")
        if not isinstance(self.simulations, SimulatedPairs):
            if isinstance(self.simulations, bool) or not isinstance(
                    self.simulations, (int, np.integer)) or self.simulations < 0:
                raise InputError(f"simulations must be a whole number >= 0, "
                                 f"got {self.simulations!r}")
            object.__setattr__(self, "simulations", int(self.simulations))
        if isinstance(self.answer_error, bool) or not isinstance(
                self.answer_error, (int, float, np.number)) or not (
                0 <= self.answer_error < 0.5):
            raise InputError(f"the share of wrong answers must be a number in [0, 0.5), "
                             f"got {self.answer_error!r}")
        object.__setattr__(self, "answer_error", float(self.answer_error))
        if self.answer_guard is not None and (
                isinstance(self.answer_guard, bool) or not isinstance(
                    self.answer_guard, (int, np.integer)) or self.answer_guard < 0):
            raise InputError(f"answer_guard must be a whole number >= 0 or None, "
                             f"got {self.answer_guard!r}")
        if self.map == "simulated" and not self.simulations:
            raise InputError("map='simulated' needs simulations (simulations=R, "
                             "--simulations R)")
        if isinstance(self.calibrator, str):
            make_calibrator(self.calibrator, dict(self.params), 0)  # unknown names fail now

    def check_with_answers(self, related: int, unrelated: int, source: str) -> None:
        """With answers to suggested pairs (docs/design.md §9.12) the map fitted on them is
        logit-linear; the calibrator, its parameters, the evidence strength and the
        assumed number of related pairs shape only the map of the scientist's own known
        pairs beside them (``related``, ``unrelated``), a candidate when they hold
        :data:`MIN_KNOWN` of each. Without it, any of these changed from its default does
        not apply to the run: an ``InputError`` naming it, before any work."""
        if min(related, unrelated) >= MIN_KNOWN:
            return
        defaults = {f.name: f.default if f.default is not MISSING else f.default_factory()
                    for f in fields(self)}
        options = (("calibrator", "--calibrator"), ("params", "--param"),
                   ("evidence_strength", "--evidence-strength"),
                   ("related_pairs", "--expected-edges"))
        given = [f"{name}={getattr(self, name)!r} ({flag})" for name, flag in options
                 if not _same(getattr(self, name), defaults[name])]
        if self.map == "calibrated":
            given.append("map='calibrated' (--map calibrated)")
        if given:
            raise InputError(
                f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to this "
                f"run: {source} answers suggested pairs, whose map is fitted on the answers "
                "(logit-linear) and judged on them; the calibrator and its settings fit only "
                "a map of your own known pairs beside the answers, which needs "
                f"{MIN_KNOWN} related and {MIN_KNOWN} unrelated ones (you gave {related} and "
                f"{unrelated})")


def _same(value: Any, default: Any) -> bool:
    """Whether a setting is its default (a calibrator object never is)."""
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False
