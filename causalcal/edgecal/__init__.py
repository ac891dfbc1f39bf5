"""The calibrate stage: from bootstrap edge-type frequencies and labelled pairs to
calibrated probabilities of every pair (docs/design.md §9.6).

The hand-off object is the :class:`CalibrationSet` (pairs, their inputs, label sets and
selection); :func:`fit_edge_calibrator` is the one function that fits an edge
calibrator; the :class:`EdgeCalibration` it returns predicts every pair.

* :mod:`.inputs` — :class:`PairInputs`: probabilities (float64) and optional pair
  features, transformed; predicting all pairs at once.
* :mod:`.sampling` — the thesis's stratified draw (N/4 per edge type, five bins).
* :mod:`.known` — known relations: set-valued labels, inclusion rates by EM,
  :class:`EvidenceBlend`, :class:`MonotoneAdjacency`.
* :mod:`.calset` — the calibration set from either source.
* :mod:`.model` — an edge calibrator (eps, swap equivariance) and the offsets fallback.
* :mod:`.fit` — :func:`fit_edge_calibrator`, which decides every rule.
* :mod:`.base_rate` — the number of adjacent pairs estimated from the known pairs.
* :mod:`.crossval` — held-out evidence on known pairs and the do-no-harm choice.
* :mod:`.simulated` — the simulation-informed map of P(adjacent) or P(a causes b).
"""

from causalcal.edgecal.base_rate import estimate_adjacent_pairs
from causalcal.edgecal.calset import (
    CalibrationSet,
    drawn_calibration_set,
    known_calibration_set,
    label_counts,
)
from causalcal.edgecal.crossval import (
    CANDIDATES,
    MAPS,
    choose_map,
    cross_validated_losses,
    known_pair_losses,
)
from causalcal.edgecal.fit import (
    SELECTIONS,
    EdgeCalibration,
    check_fit_options,
    fit_edge_calibrator,
)
from causalcal.edgecal.inputs import (
    FEATURE_GROUPS,
    PairInputs,
    distinct_rows,
    feature_columns,
    feature_groups,
    transform_features,
)
from causalcal.edgecal.known import EvidenceBlend, MonotoneAdjacency, selected_posterior
from causalcal.edgecal.model import BootstrapIdentity, edge_calibrator, fit_with_offsets
from causalcal.edgecal.sampling import (
    CalibrationSample,
    ClassTooSmallError,
    allocate_draws,
    stratified_calibration_set,
)
from causalcal.edgecal.simulated import (
    LogitLinearMap,
    SimulatedAdjacency,
    SimulatedCausal,
    SimulatedCausalPairs,
    SimulatedPairs,
    count_causal_pairs,
    count_pairs,
)

__all__ = [
    "CANDIDATES",
    "FEATURE_GROUPS",
    "MAPS",
    "BootstrapIdentity",
    "SELECTIONS",
    "CalibrationSample",
    "CalibrationSet",
    "ClassTooSmallError",
    "EdgeCalibration",
    "EvidenceBlend",
    "MonotoneAdjacency",
    "PairInputs",
    "LogitLinearMap",
    "SimulatedAdjacency",
    "SimulatedCausal",
    "SimulatedCausalPairs",
    "SimulatedPairs",
    "allocate_draws",
    "check_fit_options",
    "count_causal_pairs",
    "count_pairs",
    "choose_map",
    "cross_validated_losses",
    "distinct_rows",
    "drawn_calibration_set",
    "edge_calibrator",
    "estimate_adjacent_pairs",
    "feature_columns",
    "feature_groups",
    "fit_edge_calibrator",
    "fit_with_offsets",
    "known_calibration_set",
    "known_pair_losses",
    "label_counts",
    "selected_posterior",
    "stratified_calibration_set",
    "transform_features",
]
