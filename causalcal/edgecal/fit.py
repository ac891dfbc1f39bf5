"""Fitting an edge-type calibrator: the one function that does it (docs/design.md §9.6).

:func:`fit_edge_calibrator` alone decides, from the calibration set, every rule a fit of
edge types follows:

* the log floor ``eps = 0.5 / n_boot`` (half a bootstrap count) of calibrators with one;
* swap equivariance: with the selection corrected (``selection="design"``, and always for
  known relations) the calibrator is wrapped in :class:`SwapEquivariant`, and then the
  forward and backward strata of a drawn design are pooled so the offsets are symmetric;
* the selection correction: a drawn set's design gives logit offsets (§9.2); known
  relations get their inclusion rates estimated by EM (§9.3) and the fitted map is
  shrunk towards the bootstrap where no known pair gives evidence (``EvidenceBlend``)
  and, for edge types, its P(adjacent) made a non-decreasing function of the bootstrap's
  (``MonotoneAdjacency``);
* the fallback to inverse-inclusion weights for a calibrator that takes no offsets.

``study``, ``discover`` and ``causalcal calibrate`` call it and hold no rule of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from causalcal.calibration.selection import SelectionDesign
from causalcal.edgecal.calset import CalibrationSet
from causalcal.edgecal.crossval import (
    MAPS,
    Z_CAUSAL,
    choose_map,
    cross_validated_losses,
    known_pair_losses,
)
from causalcal.edgecal.known import (
    EvidenceBlend,
    KnownRelationsFit,
    MonotoneAdjacency,
    fit_known_relations,
)
from causalcal.edgecal.model import (
    BootstrapIdentity,
    KeepDirectionSplit,
    edge_calibrator,
    fit_with_offsets,
)
from causalcal.edgecal.simulated import (
    SimulatedAdjacency,
    SimulatedCausal,
    SimulatedCausalPairs,
    SimulatedPairs,
)
from causalcal.errors import InputError

__all__ = ["SELECTIONS", "EdgeCalibration", "check_fit_options", "fit_edge_calibrator"]

#: ``"design"``: correct for how the calibration pairs were selected (and fit
#: swap-equivariant); ``"none"``: fit as if they were a random sample, as the thesis did.
SELECTIONS = ("design", "none")


@dataclass
class EdgeCalibration:
    """A fitted edge-type calibrator and what went into it.

    Attributes
    ----------
    model : the fitted estimator (``predict_proba`` on input rows)
    calibration_set : the :class:`CalibrationSet` it was fitted on
    design : the selection design the fit corrected for (drawn, pooled when
        equivariant; or the EM estimate for known relations), or None
    offsets : (n, k) training offsets of the calibration pairs (None without correction)
    em : for known relations, the EM's result (expected adjacent pairs, steps, converged)
    choice : for known relations, which map was written (``"identity"``, the bootstrap
        frequencies; ``"calibrated"``; or ``"simulated"``) and the held-out evidence
        (:func:`~causalcal.edgecal.crossval.choose_map`)
    """

    model: object
    calibration_set: CalibrationSet
    design: SelectionDesign | None = None
    offsets: np.ndarray | None = None
    em: KnownRelationsFit | None = None
    choice: dict | None = None

    def predict_all(self, dtype=np.float32) -> np.ndarray:
        """Calibrated (V(V−1)/2, k) probabilities of every pair, in pair order."""
        return self.calibration_set.inputs.predict_all(self.model, dtype)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Calibrated probabilities of input rows ``X``."""
        return self.model.predict_proba(X)


def check_fit_options(selection: str = "design", evidence_strength: float = 5.0,
                      map: str = "auto", simulated: bool = True) -> None:
    """``InputError`` for a ``selection``, ``evidence_strength`` or ``map`` that
    :func:`fit_edge_calibrator` would refuse (for workflows that check before any work;
    ``simulated``: whether simulated pairs will be given)."""
    if map not in MAPS:
        raise InputError(f"map must be one of {', '.join(MAPS)}, got {map!r}")
    if map == "simulated" and not simulated:
        raise InputError("map='simulated' needs simulations (simulations=R, --simulations R)")
    if selection not in SELECTIONS:
        raise InputError(f"selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
    if not evidence_strength >= 0:
        raise InputError(f"evidence_strength must be >= 0, got {evidence_strength!r}")


def fit_edge_calibrator(
    calset: CalibrationSet,
    calibrator="snn",
    params: dict | None = None,
    seed: int = 0,
    *,
    selection: str = "design",
    expected_edges: float | None = None,
    evidence_strength: float = 5.0,
    map: str = "auto",
    cross_validate: bool = True,
    simulated: SimulatedPairs | None = None,
) -> EdgeCalibration:
    """Fit a calibrator of edge types on ``calset`` (see the module for the rules).

    Parameters
    ----------
    calset : the labelled pairs (:func:`drawn_calibration_set` or
        :func:`known_calibration_set`).
    calibrator : a registry name (``causalcal.calibration.get``) or an unfitted estimator
        with ``fit(X, y[, sample_weight][, offsets])`` and ``predict_proba``, cloned.
    params : hyper-parameters of the calibrator; ``seed`` its ``random_state``.
    selection : ``"design"`` (default) or ``"none"`` (drawn sets only).
    expected_edges : known relations: adjacent pairs assumed in the population (default
        the bootstrap's own Σ(1 − p_none)).
    evidence_strength : known relations: known pairs a P(adjacent) bin needs for half
        weight on the calibrated value (0: the calibrated value everywhere).
    map : known relations: ``"auto"`` (default) writes a candidate map only where it
        beats the bootstrap frequencies on known pairs it was not fitted on (Brier score
        of P(adjacent); for causal relations of P(a causes b)) by more than
        ``crossval.Z`` standard errors (one for the
        calibrated map, two for the simulated one; two for both with causal relations,
        ``crossval.Z_CAUSAL``), else the bootstrap frequencies;
        ``"calibrated"``, ``"simulated"`` or ``"identity"`` force one.
    cross_validate : known relations: compute the held-out evidence (needed by
        ``map="auto"``; ``False`` skips it for a forced map).
    simulated : known relations: labelled pairs of simulated data sets
        (:func:`causalcal.workflow.simulated_pairs`), which add the simulation-informed
        map as a candidate (docs/design.md §9.7); for causal relations their
        :class:`SimulatedCausalPairs` (``ancestral=True``; §9.9).
    """
    check_fit_options(selection, evidence_strength, map)
    inputs = calset.inputs
    k = inputs.n_classes
    if simulated is not None and inputs.causal != isinstance(simulated, SimulatedCausalPairs):
        raise InputError("simulated pairs must be of the relations calibrated: "
                         "simulated_pairs(..., ancestral=True) for causal relations, "
                         "without it for edge types")
    equivariant = selection == "design"
    model = edge_calibrator(calibrator, params, seed, n_boot=inputs.n_boot,
                            equivariant=equivariant, feature_swap=inputs.swap,
                            eps=inputs.eps if inputs.n_boot else None,
                            swap=inputs.probabilities.swap)
    if calset.source == "known":
        if not equivariant:
            raise InputError("known relations are never a random sample: selection must "
                             "be 'design'")
        return _fit_known(calset, model, expected_edges, evidence_strength, map,
                          cross_validate, seed, simulated)
    design = calset.design.pooled([1, 2]) if equivariant else None
    offsets = design.offsets(calset.X[:, :k]) if equivariant else None
    fit_with_offsets(model, calset.X, calset.y, offsets)
    return EdgeCalibration(model, calset, design, offsets)


def _fit_known(calset: CalibrationSet, model, expected_edges: float | None,
               evidence_strength: float, map: str, cross_validate: bool,
               seed: int, simulated: SimulatedPairs | None) -> EdgeCalibration:
    """Known relations: EM-estimated inclusion rates, the evidence blend, and the
    do-no-harm choice among the bootstrap frequencies, the calibrated map and (with
    simulations) the simulation-informed map."""
    check_fit_options(map=map, simulated=simulated is not None)
    k = calset.inputs.n_classes
    rows, counts = calset.inputs.population()
    blend = EvidenceBlend(model, evidence_strength, k)
    if not calset.inputs.causal:  # edge types: P(adjacent) keeps the bootstrap's order
        blend = MonotoneAdjacency(blend, rows, counts)
    em = fit_known_relations(blend, calset.X, calset.Y, rows, counts, expected_edges)
    offsets = em.design.offsets(calset.X[:, :k])
    losses = ({"folds": 0} if not (cross_validate or map == "auto") else
              cross_validated_losses(em.model, calset.X, calset.Y, offsets, calset.inputs.eps,
                                     seed))
    # causal labels settle directions (``causes``), so the whole calibrated map is written
    maps = {"identity": BootstrapIdentity(k).fit(calset.X),
            "calibrated": em.model if calset.inputs.causal else KeepDirectionSplit(em.model)}
    if simulated is not None:
        sim, maps["simulated"] = simulated_map(simulated, calset.inputs.eps)
        if losses["folds"]:  # none of the known pairs went into it: judged on all of them
            scored = known_pair_losses(maps["simulated"].predict_proba(calset.X), calset.Y,
                                       offsets)
            for loss, values in scored.items():
                losses[loss]["simulated"] = values
    choice = choose_map(losses, map, Z_CAUSAL if calset.inputs.causal else None)
    if simulated is not None:
        choice["simulated_map"] = {"slope": sim.slope_, "intercept": sim.intercept_}
    return EdgeCalibration(maps[choice["chosen"]], calset, em.design, offsets, em, choice)


def simulated_map(pairs: SimulatedPairs, eps: float
                  ) -> tuple[SimulatedAdjacency | SimulatedCausal, object]:
    """The simulation-informed map fitted on ``pairs`` and the model it writes: for edge
    types P(adjacent) mapped with the bootstrap's direction split kept (§9.7), for causal
    relations (:class:`SimulatedCausalPairs`) the map itself, whose labels settle
    directions (§9.9)."""
    if isinstance(pairs, SimulatedCausalPairs):
        sim = SimulatedCausal(eps=eps).fit(pairs)
        return sim, sim
    sim = SimulatedAdjacency(eps=eps).fit(pairs)
    return sim, KeepDirectionSplit(sim)
