"""The real-data workflow: bootstrap a search, calibrate on known relations, rank all other
pairs (thesis §6.2.1; docs/design.md §9.3).

"A relatively small, unbiased sample of the causal relationships … which we call a
calibration training set": the calibrator learned on a scientist's known relations turns
the bootstrap edge-type frequencies of every other pair into calibrated probabilities.
This module only wires the stages together: the bootstrap
(:class:`~causalcal.bootstrap.BootstrapSettings`) and the calibrate stage
(:mod:`causalcal.edgecal`), which holds every calibration rule.
"""

from __future__ import annotations

import copy
import functools
import logging
import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from causalcal.bootstrap import BootstrapSettings
from causalcal.data import DiscreteData, missing_summary
from causalcal.edgecal import (
    PairInputs,
    SimulatedCausalPairs,
    SimulatedPairs,
    check_fit_options,
    estimate_adjacent_pairs,
    feature_groups,
    fit_edge_calibrator,
    known_calibration_set,
)
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities, pair_from_index
from causalcal.errors import InputError
from causalcal.knowledge import Knowledge, check_known_relations
from causalcal.relations_io import read_known_pairs
from causalcal.workflow.causal import CausalDiscoveryResult, discover_causal
from causalcal.workflow.result import DiscoveryResult, simulations_diagnostics
from causalcal.workflow.simulations import check_simulations, given_or_simulated

__all__ = ["RANK_COLUMNS", "RELATIONS", "DiscoveryResult", "discover", "read_known_pairs"]

BOOT_COLUMNS = tuple(c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS)
#: What the candidates can be ranked by: P(adjacent) = 1 − p_none (an arc, oriented or
#: not in the CPDAG), or P(directed) = p_forward + p_backward.
RANK_COLUMNS = ("p_adjacent", "p_directed")
#: What ``discover`` calibrates: edge types of the CPDAG, or causal (ancestral) relations.
RELATIONS = ("edges", "causal")
log = logging.getLogger(__name__)


def _load_inputs(data, known, probabilities):
    if not isinstance(data, DiscreteData):
        data = (DiscreteData.from_frame(data) if isinstance(data, pd.DataFrame)
                else DiscreteData.from_csv(data))
    pairs = None if known is None else read_known_pairs(known, data.names)
    if probabilities is not None and not isinstance(probabilities, EdgeProbabilities):
        probabilities = EdgeProbabilities.load(probabilities)
    if probabilities is not None and probabilities.names != data.names:
        raise InputError("the probabilities were computed for other variables than the data's")
    return data, pairs, probabilities


def _edges_table(probabilities: EdgeProbabilities, Q: np.ndarray, known_keys: np.ndarray,
                 rank_by: str) -> pd.DataFrame:
    """One row per unknown pair: calibrated and bootstrap probabilities, ranked."""
    keep = np.ones(probabilities.n_pairs, dtype=bool)
    keep[known_keys] = False
    P = probabilities.dense(np.float64)[keep]
    Q = Q[keep]
    i, j = pair_from_index(np.flatnonzero(keep), probabilities.n_vars)
    names = np.asarray(probabilities.names, dtype=object)
    edges = pd.DataFrame({"a": names[i], "b": names[j],
                          "p_adjacent": 1.0 - Q[:, 0], "p_directed": Q[:, 1] + Q[:, 2]})
    for k, col in enumerate(PROBABILITY_COLUMNS):
        edges[col] = Q[:, k]
    for k, col in enumerate(BOOT_COLUMNS):
        edges[col] = P[:, k]
    order = np.argsort(-edges[rank_by].to_numpy(), kind="stable")
    return edges.iloc[order].reset_index(drop=True)


def discover(
    data: DiscreteData | pd.DataFrame | str | os.PathLike,
    known: pd.DataFrame | str | os.PathLike,
    *,
    n_boot: int = 200,
    calibrator: str = "snn",
    calibrator_params: dict | None = None,
    expected_edges: float | None = None,
    rank_by: str = "p_adjacent",
    search: str = "fges",
    n_jobs: int = 1,
    seed: int = 0,
    checkpoint: str | os.PathLike | None = None,
    probabilities: EdgeProbabilities | str | os.PathLike | None = None,
    progress: bool = True,
    knowledge=None,
    features: bool | Sequence[str] = False,
    evidence_strength: float = 5.0,
    map: str = "auto",
    simulations: int | SimulatedPairs = 0,
    bootstrap: BootstrapSettings | None = None,
    relations: str = "edges",
    **search_options,
) -> DiscoveryResult | CausalDiscoveryResult:
    """Calibrated edge-type probabilities for every pair not in ``known`` (thesis §6.2).

    data : discrete data (DiscreteData, DataFrame or CSV path with a header row). The
        command line's ``--missing``, ``--discretize`` and ``--drop-columns`` are
        :meth:`DiscreteData.from_csv`'s ``missing``, ``discretize_bins`` and
        ``drop_columns`` (``from_frame`` takes ``missing``); rows dropped for missing
        values and untiered variables are reported in the summary.
    known : relations known from the literature, columns ``a, b, relation``: ``->`` (the
        true DAG has the arc a → b; as a CPDAG edge type "a → b or a — b"), ``<-``,
        ``--`` (adjacent, direction unknown), ``none`` (not adjacent). At least 5 arcs
        and 5 ``none`` pairs. They are not taken for a random sample: their inclusion
        rates are estimated (:mod:`causalcal.edgecal.known`). A known relation that the
        ``knowledge`` contradicts (an arc it excludes, ``none`` where it requires an arc)
        is an ``InputError`` naming the pair and the rule, before any work.
    expected_edges : adjacent pairs assumed in the population (default: the bootstrap's
        own Σ(1 − p_none)); the summary shows the top candidates at half and double it.
    rank_by : ``"p_adjacent"`` (1 − p_none, default) or ``"p_directed"``.
    n_boot, search, n_jobs, seed, checkpoint, progress, knowledge, search_options : the
        bootstrap's arguments (:func:`causalcal.bootstrap.bootstrap_edge_probabilities`;
        ``knowledge``: a :class:`causalcal.Knowledge`), or all of them at once as
        ``bootstrap=``:class:`~causalcal.bootstrap.BootstrapSettings` (which then wins).
        ``seed`` also seeds the calibrator.
    calibrator : registry name of a multi-class calibrator (``snn``, ``dirichlet``,
        ``softmax``, ``temperature``, ``ovr-isotonic`` …), made swap-equivariant.
    evidence_strength : known pairs a P(adjacent) bin needs for half weight on the
        calibrated value (:class:`~causalcal.edgecal.EvidenceBlend`).
    map : ``"auto"`` (default): the ``p_*`` columns hold a calibrated map only if it
        beats the bootstrap frequencies on known pairs it was not fitted on (the
        calibrated map cross-validated, by more than one standard error; the simulated
        one, and for causal relations both, by more than two), else the bootstrap
        frequencies themselves, and
        the summary says so; ``"calibrated"``, ``"simulated"`` or ``"identity"`` force one.
    simulations : R > 0 also simulates R data sets of the data's size from a network
        fitted to the data and its bootstrap, bootstraps each with the same settings (R
        more bootstraps: R + 1 times the work) and offers the map of P(adjacent) learnt
        on their pairs as a candidate, written only if the known pairs confirm it
        (docs/design.md §9.7); or the :class:`~causalcal.edgecal.SimulatedPairs` of an
        earlier :func:`causalcal.workflow.simulated_pairs` call for the same data.
    probabilities : precomputed bootstrap probabilities, or the path of a file of them
        (``.npz`` or ``.csv``, read with :meth:`EdgeProbabilities.load`); skips the bootstrap.
    features : also give the calibrator features of the learned graphs (``True``: every
        group of :data:`causalcal.edgecal.FEATURE_GROUPS`, or a list of groups), computed
        with the bootstrap (given ``probabilities`` need them, from ``features=True``, or
        the ``checkpoint`` they were computed with).

    relations : ``"edges"`` (default) or ``"causal"``: "a causes b, possibly through
        other variables" (docs/design.md §9.9). ``known`` then holds ``causes`` and
        ``not-causes`` (``->`` counts as ``causes``, ``--`` as "one causes the other";
        ``none`` rows are ignored), at least 5 causally related pairs and 5 stated without
        an effect; the bootstrap counts ancestral relations (given ``probabilities`` need
        them: ``ancestral=True``); no features yet. ``simulations`` then offer a map of
        P(a causes b) learnt on the simulated worlds' ordered pairs (§9.9), or take the
        :class:`~causalcal.edgecal.SimulatedCausalPairs` of
        ``simulated_pairs(..., ancestral=True)``. Returns a
        :class:`~causalcal.workflow.causal.CausalDiscoveryResult` whose table has columns
        ``a, b, p_a_causes_b, p_b_causes_a, p_neither`` (calibrated) and ``boot_…``
        (bootstrap), ranked by the larger causal probability.

    Returns a :class:`DiscoveryResult` whose ``edges`` DataFrame has one row per unknown
    pair: ``a, b, p_adjacent, p_directed, p_none, p_forward, p_backward, p_undirected``
    (calibrated; ``p_forward`` is P(a → b)) and ``boot_none … boot_undirected``
    (bootstrap frequencies), sorted by ``rank_by`` descending.
    """
    _check_options(rank_by, evidence_strength, map, simulations, relations, features)
    if bootstrap is None:
        bootstrap = BootstrapSettings(
            n_boot=n_boot, search=search, options=search_options, knowledge=knowledge,
            seed=seed, n_jobs=n_jobs, checkpoint=checkpoint, progress=progress)
    if relations == "causal":
        data, _, probabilities = _load_inputs(data, None, probabilities)
        return discover_causal(data, known, bootstrap, probabilities, calibrator=calibrator,
                               calibrator_params=calibrator_params,
                               expected_edges=expected_edges,
                               evidence_strength=evidence_strength, map=map,
                               simulations=simulations)
    groups = feature_groups(features)
    data, pairs, probabilities = _load_inputs(data, known, probabilities)
    knowledge = _checked_knowledge(bootstrap, pairs, known)
    inputs = PairInputs(_probabilities(data, probabilities, groups, bootstrap), groups)
    calset = known_calibration_set(inputs, pairs)
    simulated = given_or_simulated(simulations, data, inputs.probabilities, bootstrap)
    if bootstrap.progress:  # the steps below take seconds to minutes and show no bar
        log.info("calibrating on %d known pairs: inclusion rates by EM, the map "
                 "cross-validated against the bootstrap, sensitivity refits …", len(pairs))
    fit = functools.partial(fit_edge_calibrator, calset, calibrator, calibrator_params,
                            bootstrap.seed, evidence_strength=evidence_strength)
    result = fit(expected_edges=expected_edges, map=map, simulated=simulated)
    edges = _edges_table(inputs.probabilities, result.predict_all(np.float64), calset.keys,
                         rank_by)
    diagnostics = _diagnostics(result, calibrator, rank_by, bootstrap.seed, simulated)
    diagnostics["input"] = _input_notes(data, knowledge, pairs.attrs.get("ignored_causal", 0))
    refit = (None if result.choice["chosen"] != "calibrated" else  # the others assume none
             lambda assumed: fit(expected_edges=assumed, map="calibrated",
                                 cross_validate=False))
    diagnostics["sensitivity"] = _sensitivity(refit or (lambda _: result),
                                              result.em.expected_edges, inputs, edges.head(10))
    return DiscoveryResult(edges, inputs.probabilities, result, pairs, diagnostics)


def _check_options(rank_by: str, evidence_strength: float, map: str, simulations: int,
                   relations: str = "edges", features=False) -> None:
    """What ``discover`` refuses before any work."""
    if rank_by not in RANK_COLUMNS:
        raise InputError(f"rank_by must be one of {', '.join(RANK_COLUMNS)}, got {rank_by!r}")
    if relations not in RELATIONS:
        raise InputError(f"relations must be one of {', '.join(RELATIONS)}, got {relations!r}")
    if relations == "causal":
        given = [name for name, used in (("features", features),
                                         ("rank_by", rank_by != "p_adjacent")) if used]
        if given:
            raise InputError(f"relations='causal' takes no {given[0]} (causal pairs are "
                             "ranked by their larger causal probability)")
    if isinstance(simulations, SimulatedPairs):
        if isinstance(simulations, SimulatedCausalPairs) != (relations == "causal"):
            raise InputError(f"relations={relations!r} needs simulated pairs of "
                             + ("causal relations (simulated_pairs(..., ancestral=True))"
                                if relations == "causal" else "edge types"))
    else:
        check_simulations(simulations)
    check_fit_options(evidence_strength=evidence_strength, map=map,
                      simulated=isinstance(simulations, SimulatedPairs) or simulations > 0)


def _probabilities(data: DiscreteData, probabilities: EdgeProbabilities | None,
                   groups: tuple[str, ...], bootstrap: BootstrapSettings) -> EdgeProbabilities:
    """Bootstrap (unless ``probabilities`` are given); pair features come with the
    bootstrap or, for given probabilities without them, from the checkpoint they were
    computed with (refused if their recorded run is not the checkpoint's)."""
    if probabilities is None:
        return bootstrap.run(data, features=bool(groups))
    if groups and probabilities.pair_features is None:
        if bootstrap.checkpoint is None:
            raise InputError("features need the bootstrap's pair features: pass probabilities "
                             "computed with features=True, or checkpoint= the folder they "
                             "were computed with")
        features = bootstrap.checkpoint_features(data, probabilities)  # same run only
        probabilities = copy.copy(probabilities)  # the caller's object stays as it was
        probabilities.pair_features = features
    return probabilities


def _checked_knowledge(bootstrap: BootstrapSettings, pairs: pd.DataFrame, known):
    """The bootstrap's background knowledge, after refusing known relations (``pairs``,
    read from ``known``) that it contradicts (docs/design.md §9.3)."""
    knowledge = bootstrap.knowledge or bootstrap.options.get("knowledge")
    source = "known relations" if isinstance(known, pd.DataFrame) else str(known)
    check_known_relations(knowledge, pairs[["a", "b", "relation"]].itertuples(index=False),
                          source)
    return knowledge


def _input_notes(data: DiscreteData, knowledge, ignored_causal: int = 0) -> list[str]:
    """Summary lines on the input: rows dropped for missing values, variables the tiers
    leave free, causal statements the edge types cannot use."""
    notes = [missing_summary(data.missing_report)] if data.missing_report else []
    if ignored_causal:
        notes.append(f"known relations: {ignored_causal} causes / not-causes rows ignored "
                     "(they give no edge type; --relations causal calibrates them)")
    untiered = knowledge.untiered(data.names) if isinstance(knowledge, Knowledge) else []
    if untiered:
        notes.append(f"tiers: {len(untiered)} of {data.n_vars} variables have no tier and "
                     f"may cause or be caused by any other: {', '.join(untiered)}")
    return notes


def _diagnostics(result, calibrator, rank_by: str, seed: int,
                 simulated: SimulatedPairs | None) -> dict:
    """What the summary reports of the fit: counts, EM, design, the map written and its
    held-out evidence, the simulations."""
    Y, em = result.calibration_set.Y, result.em
    return {
        "calibrator": calibrator, "rank_by": rank_by,
        "features": list(result.calibration_set.inputs.groups),
        "known_arcs": int((~Y[:, 0]).sum()), "known_none": int(Y[:, 0].sum()),
        "expected_edges": em.expected_edges, "em_iterations": em.n_iter,
        "em_converged": em.converged, "design": em.design.describe(),
        "map": result.choice,
        "adjacent_pairs_estimate": estimate_adjacent_pairs(result.calibration_set, seed=seed),
        "simulations": simulations_diagnostics(simulated),
    }


def _sensitivity(fit, expected: float, inputs: PairInputs, top: pd.DataFrame) -> dict:
    """P(adjacent) of the ``top`` candidates when half and double ``expected`` adjacent
    pairs are assumed (``fit(assumed)`` returns the fit under that assumption; the
    bootstrap frequencies, when written, do not move, so no refit is done then)."""
    probabilities = inputs.probabilities
    index = {n: k for k, n in enumerate(probabilities.names)}
    i = top["a"].map(index).to_numpy(np.int64)
    j = top["b"].map(index).to_numpy(np.int64)
    P = inputs.rows(inputs.keys(i, j))  # the table has a < b
    out = {}
    for label, factor in (("half", 0.5), ("double", 2.0)):
        assumed = min(expected * factor, probabilities.n_pairs - 0.5)
        out[label] = (1.0 - fit(assumed).predict_proba(P)[:, 0]).tolist()
        out[f"{label}_expected_edges"] = assumed
    return out
