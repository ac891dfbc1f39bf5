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

from causalcal.association import marginal_association
from causalcal.bootstrap import BootstrapSettings
from causalcal.data import DiscreteData, MixedData, missing_summary
from causalcal.edgecal import (
    Answers,
    CalibrationSettings,
    EdgeCalibration,
    FitReport,
    PairInputs,
    RelationKind,
    SimulationsNote,
    answers_to_recheck,
    check_known_counts,
    enough_answers,
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
from causalcal.pairs import pair_from_index
from causalcal.workflow.inputs import as_data, check_search, decided_pairs, given_probabilities
from causalcal.workflow.result import DiscoveryResult
from causalcal.workflow.simulations import given_or_simulated

__all__ = ["DiscoveryResult", "discover"]

log = logging.getLogger(__name__)


def discover(
    data: DiscreteData | MixedData | pd.DataFrame | str | os.PathLike,
    known: pd.DataFrame | str | os.PathLike | list,
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
        before any work. Or the answered files of :func:`causalcal.suggest` — a list of
        them for its rounds, which form one design (docs/design.md §9.12) —, with rows
        of the scientist's own added; an optional ``confidence`` column states how sure
        each answer is (``sure``, ``likely``, ``guess`` or an error rate).
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
    data = as_data(data, bootstrap, calibration.simulations)
    given, data = given_probabilities(probabilities, data)
    check_search(kind, given, bootstrap)
    answers = read_answers(known, data.names, kind)
    source = ", ".join(answers.sources)
    _refuse_decided(answers, kind, bootstrap.knowledge, data.names)
    kind.check_known(bootstrap.knowledge, answers.pairs, data.names, source)
    answers, forced = _without_forced(answers, kind, bootstrap.knowledge, data.names)
    _check_counts(kind, answers, forced)  # all before the first replicate
    _check_settings_apply(answers, kind, calibration, source)
    pairs = answers.pairs
    boot = _bootstrap(data, given, kind, bootstrap)
    inputs = PairInputs(kind.raw(boot, bootstrap.knowledge), kind.features, kind)
    calset = known_calibration_set(inputs, pairs, answers.rates, answers.errors)
    simulated = given_or_simulated(calibration.simulations, data, boot, bootstrap, kind)
    if bootstrap.progress:  # the steps below take seconds to minutes and show no bar
        log.info("calibrating on %d %s: inclusion rates by EM, the map cross-validated "
                 "against the bootstrap …", len(pairs), kind.words.known)
    fit = fit_edge_calibrator(calset, calibration, bootstrap.seed, simulated=simulated,
                              answers=answers.design)
    Q = respect_knowledge(kind, fit.predict_all(np.float64), bootstrap.knowledge, data.names)
    table = kind.table(inputs.probabilities, Q, calset.keys)
    associations = marginal_association(data, pairs["i"].to_numpy(), pairs["j"].to_numpy())
    own = known_results(calset, Q, pairs, associations)
    recheck = answers_to_recheck(fit, Q)
    report = _report(fit, kind, data, bootstrap.knowledge, answers, simulated, table, forced,
                     isinstance(boot, PAGEdgeProbabilities))
    return DiscoveryResult(kind, table, boot, fit, pairs, report, own, recheck, associations,
                           simulated, bootstrap)


def _check_counts(kind: RelationKind, answers: Answers, forced: tuple[str, ...]) -> None:
    """Enough known pairs to calibrate on, before any work: an ``InputError`` that names
    the pairs the knowledge forces out and the rows the kind ignores, and the way out."""
    try:
        check_known_counts(kind, kind.label_sets(answers.pairs)[1],
                           answers.rates if len(answers.rates) else None)
    except InputError as error:
        notes = []
        if forced:
            shown = "; ".join(forced[:5]) + (" …" if len(forced) > 5 else "")
            notes.append(f"{len(forced)} more left out: the background knowledge already "
                         f"forces them ({shown})")
        ignored = kind.ignored_note(kind.ignored_rows(answers.pairs))
        if ignored:
            notes.append(ignored)
        extra = f" ({'; '.join(notes)})" if notes else ""
        raise InputError(f"{error}{extra}; or let the tool pick pairs for you to answer: "
                         "causalcal suggest DATA --n 40 --out ask.csv (their answers need "
                         "only 2 of each kind)") from None


def _refuse_decided(answers: Answers, kind: RelationKind, knowledge,
                    names: list[str]) -> None:
    """A suggested pair the background knowledge decides: the draw was made without that
    knowledge, and the design counts such a pair as evidence it is not — refused, before
    any work (docs/design.md §9.12)."""
    if answers.draw is None:
        return
    decided = np.intersect1d(answers.draw.keys, decided_pairs(kind, knowledge, names))
    if len(decided):
        i, j = pair_from_index(decided[:5], len(names))
        shown = ", ".join(f"{names[a]},{names[b]}" for a, b in zip(i, j, strict=True))
        raise InputError(f"{', '.join(answers.sources)}: {len(decided)} suggested pairs are "
                         f"decided by the background knowledge ({shown}"
                         f"{' …' if len(decided) > 5 else ''}), so the draw was made without "
                         "it: its answer is known and its bootstrap frequency forced, no "
                         "evidence; suggest again with the same knowledge (--knowledge, "
                         "--tiers, --context), which leaves such pairs out")


def _without_forced(answers: Answers, kind: RelationKind, knowledge, names: list[str]
                    ) -> tuple[Answers, tuple[str, ...]]:
    """The answers less the known pairs whose statement the background knowledge already
    forces (no evidence, docs/design.md §9.3), and those pairs as stated. (An answer to a
    suggested pair that settles relatedness is forced only where the knowledge decides the
    pair, refused before: :func:`_refuse_decided`.)"""
    drop = forced_by_knowledge(kind, answers.pairs, knowledge, names)
    rows = answers.pairs[drop]
    stated = tuple(f"{r.a} {r.relation} {r.b}" for r in rows.itertuples(index=False))
    return (answers.without(drop), stated) if drop.any() else (answers, ())


def _check_settings_apply(answers: Answers, kind: RelationKind,
                          calibration: CalibrationSettings, source: str) -> None:
    """Before any work: with enough answers to suggested pairs, the calibrator and its
    settings apply only to the scientist's own known pairs beside them
    (:meth:`CalibrationSettings.check_with_answers`)."""
    if answers.design is None:
        return
    _, Y = kind.label_sets(answers.pairs)
    if enough_answers(Y, answers.rates):
        calibration.check_with_answers(*kind.known_counts(Y[np.isnan(answers.rates)]), source)


def _calibrator_words(fit: EdgeCalibration) -> str:
    """The calibrator as the summary names it: with answers to suggested pairs the map
    fitted on them is logit-linear, and the calibrator fits only the map of the
    scientist's own known pairs (when they are enough to make one)."""
    if fit.answers is None:
        return str(fit.settings.calibrator)
    own = f"; {fit.settings.calibrator} on your own known pairs" if fit.em is not None else ""
    return f"the answers' logit-linear map{own}"


def _bootstrap(data: DiscreteData | MixedData, given: EdgeProbabilities | None,
               kind: RelationKind,
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
        calibrator=_calibrator_words(fit), known_related=related,
        known_unrelated=unrelated, known_ignored=ignored,
        related_pairs=fit.related_pairs, em_iterations=em.n_iter if em else 0,
        em_converged=em.converged if em else True,
        design=em.design.describe() if em else None, map=fit.choice,
        answers=answers.design, unknown_answers=answers.unknown,
        answers_estimate=fit.answers_estimate, answer_error=fit.settings.answer_error,
        blank_answers=answers.blank, removed_answers=answers.removed,
        answer_files=answers.files if answers.design is not None else (),
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
