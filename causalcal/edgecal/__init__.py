"""The calibrate stage: from a bootstrap's frequencies and labelled pairs to calibrated
probabilities of every pair's relation (docs/design.md §9.6). ("edge" in the names of
this stage means a *pair* of variables and the relation it is calibrated for: the edge
types of the CPDAG or the causal relations, :mod:`.kinds`.)

The hand-off object is the :class:`CalibrationSet` (pairs, their inputs, label sets and
selection); :func:`fit_edge_calibrator` is the one function that fits a calibrator, with
:class:`CalibrationSettings`; the :class:`EdgeCalibration` it returns predicts every pair.

* :mod:`.kinds` — :class:`RelationKind`: what differs between edge types
  (:class:`EdgeTypes`), causal relations (:class:`CausalRelations`) and a PAG's edge
  types (:class:`PAGEdges`).
* :mod:`.inputs` — :class:`PairInputs`: probabilities (float64) and optional pair
  features (:mod:`.features`), transformed; predicting all pairs at once.
* :mod:`.sampling` — the thesis's stratified draw (N/4 per edge type, five bins).
* :mod:`.known` — known relations: set-valued labels, inclusion rates by EM,
  :class:`EvidenceBlend`, :class:`MonotoneAdjacency`.
* :mod:`.calset` — the calibration set from either source.
* :mod:`.model` — a calibrator of pairs (eps, swap equivariance) and the offsets fallback.
* :mod:`.settings` — :class:`CalibrationSettings`, checked once when made.
* :mod:`.fit` — :func:`fit_edge_calibrator`, which decides every rule.
* :mod:`.base_rate` — the number of related pairs estimated from the known pairs.
* :mod:`.crossval` — held-out evidence on known pairs and the do-no-harm
  :class:`MapChoice`.
* :mod:`.simulated` — the simulation-informed map of P(adjacent) or P(a causes b).
* :mod:`.report` — what a known-relations fit reports (:class:`FitReport`).
* :mod:`.respect` — calibrated output at 0 wherever the user's knowledge excludes a class.
* :mod:`.designed` — pairs the tool asks the scientist to check: the draw
  (:func:`suggest_pairs`), reading the answers with their design, the map fitted on them.
"""

from causalcal.edgecal.base_rate import estimate_adjacent_pairs
from causalcal.edgecal.calset import (
    CalibrationSet,
    drawn_calibration_set,
    enough_answers,
    known_calibration_set,
    label_counts,
)
from causalcal.edgecal.crossval import (
    CANDIDATES,
    MAPS,
    Candidate,
    LineFit,
    MapChoice,
    Score,
    choose_map,
    cross_validated_losses,
    known_pair_losses,
)
from causalcal.edgecal.designed import (
    DESIGN_COLUMNS,
    AnswerDesign,
    Answers,
    DesignedAdjacency,
    DesignedCausal,
    read_answers,
    suggest_pairs,
)
from causalcal.edgecal.features import (
    FEATURE_GROUPS,
    feature_columns,
    feature_groups,
    transform_features,
)
from causalcal.edgecal.fit import EdgeCalibration, fit_edge_calibrator
from causalcal.edgecal.inputs import PairInputs
from causalcal.edgecal.kinds import (
    CAUSAL_COLUMNS,
    KINDS,
    RANK_COLUMNS,
    CausalRelations,
    EdgeTypes,
    PAGEdges,
    RelationKind,
    kind_of,
    relation_kind,
)
from causalcal.edgecal.known import EvidenceBlend, MonotoneAdjacency, selected_posterior
from causalcal.edgecal.known_results import contradicted_line, known_results
from causalcal.edgecal.model import (
    BootstrapIdentity,
    edge_calibrator,
    fit_with_offsets,
    floored_probabilities,
)
from causalcal.edgecal.report import (
    FitReport,
    RelatedPairsEstimate,
    Sensitivity,
    SimulationsNote,
)
from causalcal.edgecal.respect import forced_by_knowledge, respect_knowledge
from causalcal.edgecal.sampling import (
    CalibrationSample,
    ClassTooSmallError,
    allocate_draws,
    stratified_calibration_set,
)
from causalcal.edgecal.settings import SELECTIONS, CalibrationSettings
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
    "CAUSAL_COLUMNS",
    "DESIGN_COLUMNS",
    "FEATURE_GROUPS",
    "KINDS",
    "MAPS",
    "RANK_COLUMNS",
    "SELECTIONS",
    "AnswerDesign",
    "Answers",
    "BootstrapIdentity",
    "CalibrationSample",
    "CalibrationSet",
    "CalibrationSettings",
    "Candidate",
    "CausalRelations",
    "ClassTooSmallError",
    "DesignedAdjacency",
    "DesignedCausal",
    "EdgeCalibration",
    "EdgeTypes",
    "EvidenceBlend",
    "FitReport",
    "LineFit",
    "LogitLinearMap",
    "MapChoice",
    "MonotoneAdjacency",
    "PAGEdges",
    "PairInputs",
    "RelatedPairsEstimate",
    "RelationKind",
    "Score",
    "Sensitivity",
    "SimulatedAdjacency",
    "SimulatedCausal",
    "SimulatedCausalPairs",
    "SimulatedPairs",
    "SimulationsNote",
    "allocate_draws",
    "choose_map",
    "contradicted_line",
    "count_causal_pairs",
    "count_pairs",
    "cross_validated_losses",
    "drawn_calibration_set",
    "edge_calibrator",
    "enough_answers",
    "estimate_adjacent_pairs",
    "feature_columns",
    "feature_groups",
    "fit_edge_calibrator",
    "fit_with_offsets",
    "floored_probabilities",
    "forced_by_knowledge",
    "kind_of",
    "known_calibration_set",
    "known_results",
    "known_pair_losses",
    "label_counts",
    "read_answers",
    "relation_kind",
    "respect_knowledge",
    "selected_posterior",
    "stratified_calibration_set",
    "suggest_pairs",
    "transform_features",
]
