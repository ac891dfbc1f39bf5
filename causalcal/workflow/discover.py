"""The real-data workflow: bootstrap a search, calibrate on known relations, rank all other
pairs (thesis §6.2.1; docs/design.md §9.3, §9.9, §9.10).

"A relatively small, unbiased sample of the causal relationships … which we call a
calibration training set": the calibrator learned on a scientist's known relations turns
the bootstrap frequencies of every other pair into calibrated probabilities. This module
only wires the stages together, in one sequence of steps for every kind of relation: the
bootstrap (:class:`~causalcal.bootstrap.BootstrapSettings`) and the calibrate stage
(:mod:`causalcal.edgecal`, :class:`~causalcal.edgecal.CalibrationSettings`), which holds
every calibration rule; the :class:`~causalcal.edgecal.RelationKind` supplies what
differs between edge types and causal relations.
"""

from __future__ import annotations

import copy
import logging
import os

import numpy as np
import pandas as pd

from causalcal.bootstrap import BootstrapSettings
from causalcal.data import DISCRETE, DiscreteData, MixedData, missing_summary
from causalcal.edgecal import (
    Answers,
    CalibrationSettings,
    EdgeCalibration,
    FitReport,
    PairInputs,
    RelationKind,
    SimulationsNote,
    estimate_adjacent_pairs,
    fit_edge_calibrator,
    forced_by_knowledge,
    known_calibration_set,
    known_results,
    read_answers,
    relation_kind,
    respect_knowledge,
)
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.knowledge import Knowledge
from causalcal.pag_edges import PAGEdgeProbabilities
from causalcal.workflow.result import DiscoveryResult
from causalcal.workflow.simulations import given_or_simulated

__all__ = ["DiscoveryResult", "discover"]

log = logging.getLogger(__name__)


def discover(
    data: DiscreteData | MixedData | pd.DataFrame | str | os.PathLike,
    known: pd.DataFrame | str | os.PathLike,
    *,
    relations: str | RelationKind = "edges",
    bootstrap: BootstrapSettings | None = None,
    calibration: CalibrationSettings | None = None,
    probabilities: EdgeProbabilities | str | os.PathLike | None = None,
) -> DiscoveryResult:
    """Calibrated probabilities of the relation of every pair not in ``known``
    (thesis §6.2).

    data : the data (DiscreteData, DataFrame or CSV path with a header row; MixedData
        for the Gaussian scores, ``bootstrap.options["score"]``, which also read a
        DataFrame or a CSV as MixedData). The
        command line's ``--missing``, ``--discretize`` and ``--drop-columns`` are
        :meth:`DiscreteData.from_csv`'s ``missing``, ``discretize_bins`` and
        ``drop_columns``; rows dropped for missing values and untiered variables are
        reported in the summary.
    known : relations known from the literature, columns ``a, b, relation``. For edge
        types ``->`` (the true DAG has the arc a → b; as a CPDAG edge type "a → b or
        a — b"), ``<-``, ``--`` (adjacent, direction unknown), ``none`` (not adjacent): at
        least 5 arcs and 5 ``none``. For causal relations ``causes`` and ``not-causes``
        (``->`` counts as ``causes``, ``--`` as "one causes the other"; ``none`` rows are
        ignored): at least 5 causally related pairs and 5 stated without an effect. They
        are not taken for a random sample: their inclusion rates are estimated
        (:mod:`causalcal.edgecal.known`). A known relation that the bootstrap's
        ``knowledge`` contradicts is an ``InputError`` naming the pair and the rule,
        before any work.
    relations : what is calibrated: ``"edges"`` (default) or an
        :class:`~causalcal.edgecal.EdgeTypes` (``rank_by``: ``"p_adjacent"`` or
        ``"p_directed"``; ``features``: pair features for the calibrator, computed with
        the bootstrap), or ``"causal"`` / :class:`~causalcal.edgecal.CausalRelations`:
        "a causes b, possibly through other variables" (docs/design.md §9.9; the
        bootstrap then counts ancestral relations).
    bootstrap : the :class:`~causalcal.bootstrap.BootstrapSettings` (replicates, search,
        its options and background knowledge, seed, jobs, checkpoint, progress); the seed
        also seeds the calibrator.
    calibration : the :class:`~causalcal.edgecal.CalibrationSettings`: the calibrator,
        the assumed number of related pairs (default the bootstrap's mean; the summary
        shows the top candidates at half and double it), the evidence strength, the map
        (``"auto"``: the ``p_*`` columns hold a calibrated map only if it beats the
        bootstrap frequencies on known pairs it was not fitted on, else the bootstrap's
        and the summary says so) and ``simulations`` (R data sets simulated like the data
        whose map is one more candidate, docs/design.md §9.7).
    probabilities : precomputed bootstrap probabilities, or the path of a file of them
        (``.npz`` or ``.csv``, :meth:`EdgeProbabilities.load`); skips the bootstrap. For
        causal relations they must carry ancestral counts (``ancestral=True``); for
        features the pair features, or the bootstrap's ``checkpoint`` they came from.

    Returns a :class:`DiscoveryResult` whose ``table`` has one row per unknown pair, the
    calibrated columns (edge types: ``a, b, p_adjacent, p_directed, p_none, p_forward,
    p_backward, p_undirected``, ``p_forward`` being P(a → b), sorted by ``rank_by``;
    causal relations: ``a, b, p_a_causes_b, p_b_causes_a, p_neither``, sorted by the
    larger causal probability) then the bootstrap's (``boot_…``).
    """
    kind = relation_kind(relations)
    bootstrap = BootstrapSettings() if bootstrap is None else bootstrap
    calibration = CalibrationSettings() if calibration is None else calibration
    kind.check_simulations(calibration.simulations)
    data = _as_data(data, bootstrap, calibration.simulations)
    given = _given_probabilities(probabilities, data)
    answers = read_answers(known, data.names, kind)
    source = "known relations" if isinstance(known, pd.DataFrame) else str(known)
    kind.check_known(bootstrap.knowledge, answers.pairs, data.names, source)
    answers, forced = _without_forced(answers, kind, bootstrap.knowledge, data.names)
    pairs = answers.pairs
    boot = _bootstrap(data, given, kind, bootstrap)
    inputs = PairInputs(kind.raw(boot, bootstrap.knowledge), kind.features, kind)
    calset = _calibration_set(inputs, answers, forced)
    simulated = given_or_simulated(calibration.simulations, data, boot, bootstrap, kind)
    if bootstrap.progress:  # the steps below take seconds to minutes and show no bar
        log.info("calibrating on %d %s: inclusion rates by EM, the map cross-validated "
                 "against the bootstrap …", len(pairs), kind.words.known)
    fit = fit_edge_calibrator(calset, calibration, bootstrap.seed, simulated=simulated,
                              answers=answers.design)
    Q = respect_knowledge(kind, fit.predict_all(np.float64), bootstrap.knowledge, data.names)
    table = kind.table(inputs.probabilities, Q, calset.keys)
    own = known_results(calset, Q, pairs)
    report = _report(fit, kind, data, bootstrap.knowledge, answers, simulated, table, forced,
                     isinstance(boot, PAGEdgeProbabilities))
    return DiscoveryResult(kind, table, boot, fit, pairs, report, own)


def _calibration_set(inputs: PairInputs, answers: Answers, forced: tuple[str, ...]):
    """The known pairs' calibration set; too few pairs left once the forced ones are out
    is an ``InputError`` that says so."""
    try:
        return known_calibration_set(inputs, answers.pairs, answers.rates)
    except InputError as error:
        if not forced:
            raise
        raise InputError(f"{error} ({len(forced)} more left out: the background knowledge "
                         "already forces them)") from None


def _without_forced(answers: Answers, kind: RelationKind, knowledge, names: list[str]
                    ) -> tuple[Answers, tuple[str, ...]]:
    """The answers less the scientist's own known pairs that the background knowledge
    already forces (no evidence, docs/design.md §9.3), and those pairs as stated; answers
    to suggested pairs keep their place in the design."""
    drop = forced_by_knowledge(kind, answers.pairs, knowledge, names)
    if len(answers.rates):
        drop &= np.isnan(answers.rates)
    rows = answers.pairs[drop]
    stated = tuple(f"{r.a} {r.relation} {r.b}" for r in rows.itertuples(index=False))
    return (answers.without(drop), stated) if drop.any() else (answers, ())


def _as_data(data, bootstrap: BootstrapSettings, simulations) -> DiscreteData | MixedData:
    """The data as the search's score takes it (a Gaussian score: :class:`MixedData`);
    simulated worlds are discrete networks fitted to discrete data."""
    kind = getattr(bootstrap.options.get("score"), "data_kind", DISCRETE)
    if not isinstance(data, (DiscreteData, MixedData)):
        if kind == DISCRETE:
            data = (DiscreteData.from_frame(data) if isinstance(data, pd.DataFrame)
                    else DiscreteData.from_csv(data))
        else:
            data = (MixedData.from_frame(data, data_kind=kind)
                    if isinstance(data, pd.DataFrame) else MixedData.from_csv(data, kind))
    if isinstance(data, MixedData) and isinstance(simulations, int) and simulations:
        raise InputError("simulations fit discrete networks (CPTs) to the data; with "
                         "continuous or mixed columns leave them out")
    return data


def _given_probabilities(probabilities, data: DiscreteData | MixedData) -> EdgeProbabilities | None:
    if probabilities is not None and not isinstance(probabilities, EdgeProbabilities):
        probabilities = EdgeProbabilities.load(probabilities)
    if probabilities is not None and probabilities.names != data.names:
        raise InputError("the probabilities were computed for other variables than the data's")
    return probabilities


def _bootstrap(data: DiscreteData | MixedData, given: EdgeProbabilities | None, kind: RelationKind,
               bootstrap: BootstrapSettings) -> EdgeProbabilities:
    """The bootstrap's result (unless ``given``), counting what the kind needs; pair
    features come with the bootstrap or, for given probabilities without them, from the
    checkpoint they were computed with (refused if their recorded run is not the
    checkpoint's)."""
    if given is None:
        return bootstrap.run(data, features=bool(kind.features), ancestral=kind.ancestral)
    if kind.features and given.pair_features is None:
        if bootstrap.checkpoint is None:
            raise InputError("features need the bootstrap's pair features: pass probabilities "
                             "computed with features=True, or checkpoint= the folder they "
                             "were computed with")
        features = bootstrap.checkpoint_features(data, given)  # same run only
        given = copy.copy(given)  # the caller's object stays as it was
        given.pair_features = features
    return given


def _input_notes(data: DiscreteData | MixedData, knowledge, ignored: str | None,
                 forced: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Summary lines on the input: rows dropped for missing values, known relations the
    kind cannot use or the knowledge forces, variables the tiers leave free."""
    notes = [missing_summary(data.missing_report)] if data.missing_report else []
    if ignored:
        notes.append(ignored)
    if forced:
        shown = "; ".join(forced[:5]) + (f"; … ({len(forced) - 5} more)" if len(forced) > 5
                                         else "")
        notes.append(f"known relations: {len(forced)} left out of the fit, the background "
                     f"knowledge already forces them (no evidence): {shown}")
    untiered = knowledge.untiered(data.names) if isinstance(knowledge, Knowledge) else []
    if untiered:
        notes.append(f"tiers: {len(untiered)} of {data.n_vars} variables have no tier and "
                     f"may cause or be caused by any other: {', '.join(untiered)}")
    return tuple(notes)


def _report(fit: EdgeCalibration, kind: RelationKind, data: DiscreteData | MixedData, knowledge,
            answers: Answers, simulated, table: pd.DataFrame, forced: tuple[str, ...],
            pag: bool = False) -> FitReport:
    """What the summary and the report say: counts, EM, design, the answers, the map
    written and its held-out evidence, the simulations, the input, the top candidates'
    sensitivity."""
    calset, em = fit.calibration_set, fit.em
    related, unrelated = kind.known_counts(calset.Y)
    ignored = kind.ignored_rows(answers.pairs)
    return FitReport(
        calibrator=fit.settings.calibrator, known_related=related,
        known_unrelated=unrelated, known_ignored=ignored,
        related_pairs=fit.related_pairs, em_iterations=em.n_iter if em else 0,
        em_converged=em.converged if em else True,
        design=em.design.describe() if em else None, map=fit.choice,
        answers=answers.design, unknown_answers=answers.unknown,
        estimate=estimate_adjacent_pairs(calset, seed=fit.seed),
        simulations=SimulationsNote.of(simulated),
        input_notes=_input_notes(data, knowledge, kind.ignored_note(ignored), forced),
        known_forced=forced,
        sensitivity=fit.sensitivity(calset.inputs.rows(
            _keys(calset.inputs, table.head(kind.sensitivity_rows))))
        if kind.sensitivity_rows else None,
        knowledge_bounds=kind.ancestral and isinstance(knowledge, Knowledge)
        and not knowledge.is_empty, pag_bounds=kind.ancestral and pag)


def _keys(inputs: PairInputs, table: pd.DataFrame) -> np.ndarray:
    """Pair keys of the table's rows (its pairs have a before b)."""
    index = {n: k for k, n in enumerate(inputs.probabilities.names)}
    return inputs.keys(table["a"].map(index).to_numpy(np.int64),
                       table["b"].map(index).to_numpy(np.int64))
