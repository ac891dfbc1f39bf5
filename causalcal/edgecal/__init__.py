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
  :class:`MapChoice`; :mod:`.choice_words` — the summary's words for it.
* :mod:`.simulated` — the simulation-informed map of P(adjacent) or P(a causes b).
* :mod:`.report` — what a known-relations fit reports (:class:`FitReport`).
* :mod:`.respect` — calibrated output at 0 wherever the user's knowledge excludes a class.
* :mod:`.draws` — pairs the tool asks the scientist to check, drawn in rounds with known
  inclusion rates (:func:`draw_round`, :func:`suggest_pairs`, :class:`Draw`).
* :mod:`.answer_file` — the suggested file and its design record; :mod:`.answer_rows` —
  an answer file read row by row, its design checked; :mod:`.answers` — the answers with
  their design (:func:`read_answers`, :class:`Answers`, :class:`AnswerDesign`).
* :mod:`.designed` — the map fitted on the answers and its calibration test.
* :mod:`.noisy` — answers that may be wrong: the label-noise model of the answers' map.
* :mod:`.recheck` — the answers likeliest wrong, and what each changes if it is.
"""

from causalcal.edgecal.answer_file import describe_suggested, read_draw, write_suggested
from causalcal.edgecal.answers import CONFIDENCE_ERRORS, AnswerDesign, Answers, read_answers
from causalcal.edgecal.base_rate import estimate_adjacent_pairs
from causalcal.edgecal.calset import (
    CalibrationSet,
    check_known_counts,
    drawn_calibration_set,
    enough_answers,
    known_calibration_set,
    label_counts,
)
from causalcal.edgecal.choice_words import CANDIDATE_NAMES, map_lines, map_sentence
from causalcal.edgecal.crossval import (
    CANDIDATES,
    MAPS,
    CalibrationTest,
    Candidate,
    LineFit,
    MapChoice,
    Score,
    choose_map,
    cross_validated_losses,
    known_pair_losses,
)
from causalcal.edgecal.designed import DesignedAdjacency, DesignedCausal
from causalcal.edgecal.draws import (
    ALLOCATIONS,
    ANSWER_COLUMNS,
    DESIGN_COLUMNS,
    Draw,
    Round,
    draw_round,
    round_draws,
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
from causalcal.edgecal.known_results import known_results, least_found_line, stated_relations
from causalcal.edgecal.model import (
    BootstrapIdentity,
    edge_calibrator,
    fit_with_offsets,
    floored_probabilities,
)
from causalcal.edgecal.recheck import (
    RECHECK_SHOWN,
    IfWrong,
    Recheck,
    answers_to_recheck,
    if_wrong,
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
    "ALLOCATIONS",
    "ANSWER_COLUMNS",
    "CANDIDATES",
    "CANDIDATE_NAMES",
    "CONFIDENCE_ERRORS",
    "CAUSAL_COLUMNS",
    "RECHECK_SHOWN",
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
    "CalibrationTest",
    "Candidate",
    "CausalRelations",
    "ClassTooSmallError",
    "DesignedAdjacency",
    "DesignedCausal",
    "Draw",
    "EdgeCalibration",
    "EdgeTypes",
    "EvidenceBlend",
    "FitReport",
    "IfWrong",
    "LineFit",
    "LogitLinearMap",
    "MapChoice",
    "MonotoneAdjacency",
    "PAGEdges",
    "PairInputs",
    "Recheck",
    "RelatedPairsEstimate",
    "RelationKind",
    "Round",
    "Score",
    "Sensitivity",
    "SimulatedAdjacency",
    "SimulatedCausal",
    "SimulatedCausalPairs",
    "SimulatedPairs",
    "SimulationsNote",
    "allocate_draws",
    "answers_to_recheck",
    "check_known_counts",
    "choose_map",
    "count_causal_pairs",
    "count_pairs",
    "cross_validated_losses",
    "describe_suggested",
    "draw_round",
    "drawn_calibration_set",
    "edge_calibrator",
    "enough_answers",
    "estimate_adjacent_pairs",
    "feature_columns",
    "feature_groups",
    "fit_edge_calibrator",
    "fit_with_offsets",
    "if_wrong",
    "floored_probabilities",
    "forced_by_knowledge",
    "kind_of",
    "known_calibration_set",
    "known_results",
    "known_pair_losses",
    "least_found_line",
    "label_counts",
    "map_lines",
    "map_sentence",
    "read_answers",
    "read_draw",
    "relation_kind",
    "respect_knowledge",
    "round_draws",
    "selected_posterior",
    "stated_relations",
    "stratified_calibration_set",
    "suggest_pairs",
    "transform_features",
    "write_suggested",
]
