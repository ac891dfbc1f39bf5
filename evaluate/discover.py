"""The real-data workflow: bootstrap a search, calibrate on known relations, rank all other pairs.

Thesis §6.2.1: a scientist supplies data and "a relatively small, unbiased sample of the
causal relationships … which we call a calibration training set"; the calibrator learned
on it turns the bootstrap edge-type frequencies of every other pair into calibrated
probabilities.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcal.calibration.apply import (
    calibrate_all_pairs,
    distinct_rows,
    edge_calibrator,
    fit_calibrator,
)
from causalcal.calibration.known_relations import (
    EvidenceBlend,
    KnownRelationsFit,
    check_known_counts,
    fit_known_relations,
    relation_label_sets,
    selected_posterior,
)
from causalcal.data import DiscreteData
from causalcal.edges import (
    PROBABILITY_COLUMNS,
    EdgeProbabilities,
    EdgeType,
    pair_from_index,
    pair_index,
)
from causalcal.relations_io import read_known_pairs

__all__ = ["RANK_COLUMNS", "DiscoveryResult", "discover", "read_known_pairs"]

BOOT_COLUMNS = tuple(c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS)
#: What the candidates can be ranked by: P(adjacent) = 1 − p_none (an arc, oriented or
#: not in the CPDAG), or P(directed) = p_forward + p_backward.
RANK_COLUMNS = ("p_adjacent", "p_directed")


@dataclass
class DiscoveryResult:
    """What :func:`discover` returns: the ranked table and what went into it."""

    edges: pd.DataFrame
    probabilities: EdgeProbabilities
    calibrator: object
    known: pd.DataFrame
    diagnostics: dict = field(default_factory=dict)
    #: the known pairs' bootstrap rows ``P``, label sets ``Y``, selection ``offsets``, ``eps``
    known_fit: dict = field(default_factory=dict)

    def known_reliability(self, n_bins: int = 10) -> tuple[dict, dict]:
        """Reliability-diagram bins of P(no edge) on the known pairs, bootstrap and
        calibrated (in-sample), both as the known pairs' own selected distribution
        (corrected for how they were chosen): ``({"none": bins}, {"none": bins})`` for
        :func:`causalcal.evaluate.plots.plot_reliability`. Only "no edge" is an exact
        label there (a known arc is "→ or —")."""
        fit = self.known_fit
        P, Y, offsets, eps = fit["P"], fit["Y"], fit["offsets"], fit["eps"]
        raw = (P[:, :4] + eps) / (1 + 4 * eps)
        y = Y[:, 0].astype(np.float64)
        out = []
        for Q in (raw, self.calibrator.predict_proba(P)):
            p = selected_posterior(Q, offsets)[:, 0]
            b = np.minimum((p * n_bins).astype(np.int64), n_bins - 1)
            out.append({"none": {"count": np.bincount(b, minlength=n_bins).astype(float),
                                 "sum_p": np.bincount(b, p, minlength=n_bins),
                                 "sum_y": np.bincount(b, y, minlength=n_bins)}})
        return out[0], out[1]

    def network_probabilities(self, threshold: float = 0.0) -> EdgeProbabilities:
        """The calibrated probabilities of the candidate pairs with P(adjacent) ≥
        ``threshold``, and the known pairs as certain (``->`` is the arc, ``--`` an
        undirected edge, ``none`` no edge): what :meth:`averaged_network` and
        :func:`causalcal.evaluate.plots.plot_network` draw."""
        names = self.probabilities.names
        index = {n: k for k, n in enumerate(names)}
        top = self.edges[self.edges["p_adjacent"] >= threshold]
        pairs = np.column_stack([top["a"].map(index), top["b"].map(index)]).astype(np.int64)
        probs = top[list(PROBABILITY_COLUMNS)].to_numpy(np.float64)
        known = self.known[self.known["label"] != EdgeType.NONE]
        one_hot = np.eye(4)[known["label"].to_numpy(np.int64)]
        return EdgeProbabilities(
            names, np.concatenate([pairs, known[["i", "j"]].to_numpy(np.int64)]),
            np.concatenate([probs, one_hot]), self.probabilities.n_boot)

    def averaged_network(self, threshold: float = 0.5):
        """The averaged network of the calibrated probabilities (known pairs as given):
        :meth:`EdgeProbabilities.averaged_network` of :meth:`network_probabilities`."""
        return self.network_probabilities(threshold).averaged_network(threshold)

    def summary(self, top: int = 10) -> str:
        """A short report: the fit, counts above 0.5 / 0.9, the top candidates with their
        direction split, and how they move with the assumed number of adjacent pairs."""
        e, d = self.edges, self.diagnostics
        lines = [
            f"{len(e)} candidate pairs scored; {len(self.known)} known pairs used for "
            f"calibration ({d.get('calibrator', '?')}: {d.get('known_arcs', 0)} arcs, "
            f"{d.get('known_none', 0)} none).",
            f"assumed adjacent pairs in the population: {d['expected_edges']:.1f} "
            f"(EM {'converged' if d['em_converged'] else 'stopped'} after "
            f"{d['em_iterations']} steps)",
            f"pairs with P(adjacent) > 0.5: {int((e['p_adjacent'] > 0.5).sum())}, "
            f"> 0.9: {int((e['p_adjacent'] > 0.9).sum())}",
        ]
        cv = d.get("cross_validated_log_loss")
        if cv:
            lines.append(
                f"known pairs, {cv['folds']}-fold cross-validated log-loss (corrected for "
                f"their selection): bootstrap {cv['before']:.3f} -> calibrated "
                f"{cv['after']:.3f}"
            )
        lines.append(f"top {min(top, len(e))} candidates by {d.get('rank_by', 'p_adjacent')} "
                     "(P(adjacent) if half / double the assumed adjacent pairs):")
        sens = d.get("sensitivity", {})
        for k, row in enumerate(e.head(top).itertuples(index=False)):
            moved = ""
            if sens:
                moved = (f"  [{sens['half'][k]:.3f} / {sens['double'][k]:.3f}]")
            lines.append(
                f"  {row.a} - {row.b}   P(adjacent)={row.p_adjacent:.3f}  "
                f"(->{row.p_forward:.3f}, <-{row.p_backward:.3f}, --{row.p_undirected:.3f}; "
                f"bootstrap {1 - row.boot_none:.3f}){moved}"
            )
        return "\n".join(lines)


def _cross_validated_log_loss(model, P: np.ndarray, Y: np.ndarray, offsets: np.ndarray,
                              eps: float, seed: int) -> dict:
    """Held-out log-loss of bootstrap vs calibrated probabilities on the known pairs.

    Both are turned into the known pairs' own (selected) distribution with the fitted
    inclusion rates before scoring, so neither is penalised for the selection itself.
    """
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    adjacent = (~Y[:, 0]).astype(int)
    folds = int(min(5, np.bincount(adjacent, minlength=2).min()))
    if folds < 2:
        return {}
    before = after = 0.0
    split = StratifiedKFold(folds, shuffle=True, random_state=seed).split(P, adjacent)
    for train, test in split:
        fitted = fit_calibrator(clone(model), P[train], Y[train], offsets[train])
        raw = (P[test][:, :4] + eps) / (1 + 4 * eps)
        for Q, acc in ((raw, "before"), (fitted.predict_proba(P[test]), "after")):
            S = selected_posterior(Q, offsets[test])
            loss = -np.log(np.clip((S * Y[test]).sum(axis=1), 1e-12, 1)).sum()
            if acc == "before":
                before += loss
            else:
                after += loss
    return {"folds": folds, "before": before / len(Y), "after": after / len(Y)}


def _load_inputs(data, known, probabilities):
    if not isinstance(data, DiscreteData):
        data = (DiscreteData.from_frame(data) if isinstance(data, pd.DataFrame)
                else DiscreteData.from_csv(data))
    pairs = read_known_pairs(known, data.names)
    Y = relation_label_sets(pairs["label"].to_numpy(np.int64))
    check_known_counts(Y)
    if probabilities is not None and not isinstance(probabilities, EdgeProbabilities):
        probabilities = EdgeProbabilities.load(probabilities)
    if probabilities is not None and probabilities.names != data.names:
        raise ValueError("the probabilities were computed for other variables than the data's")
    return data, pairs, Y, probabilities


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
    **search_options,
) -> DiscoveryResult:
    """Calibrated edge-type probabilities for every pair not in ``known`` (thesis §6.2).

    data : discrete data (DiscreteData, DataFrame or CSV path with a header row).
    known : relations known from the literature, columns ``a, b, relation``: ``->`` (the
        true DAG has the arc a → b; as a CPDAG edge type "a → b or a — b"), ``<-``,
        ``--`` (adjacent, direction unknown), ``none`` (not adjacent). At least 5 arcs
        and 5 ``none`` pairs. They are not taken for a random sample: their inclusion
        rates are estimated (:mod:`causalcal.calibration.known_relations`).
    expected_edges : adjacent pairs assumed in the population (default: the bootstrap's
        own Σ(1 − p_none)); the summary shows the top candidates at half and double it.
    rank_by : ``"p_adjacent"`` (1 − p_none, default) or ``"p_directed"``.
    n_boot, search, n_jobs, seed, checkpoint, knowledge, search_options : passed to
        :func:`causalcal.bootstrap.bootstrap_edge_probabilities` (``knowledge``: a
        :class:`causalcal.Knowledge` of required/forbidden arcs and tiers).
    calibrator : registry name of a multi-class calibrator (``snn``, ``dirichlet``,
        ``softmax``, ``temperature``, ``ovr-isotonic`` …), made swap-equivariant.
    evidence_strength : known pairs a P(adjacent) bin needs for half weight on the
        calibrated value (:class:`~causalcal.calibration.known_relations.EvidenceBlend`).
    probabilities : precomputed bootstrap probabilities, or the path of a file of them
        (``.npz`` or ``.csv``, read with :meth:`EdgeProbabilities.load`); skips the bootstrap.
    features : also give the calibrator features of the learned graphs (``True``: every
        group of :data:`causalcal.bootstrap.pair_features.FEATURE_GROUPS`, or a list of
        groups), computed with the bootstrap (given ``probabilities`` need them, from
        ``features=True``, or the ``checkpoint`` they were computed with).

    Returns a :class:`DiscoveryResult` whose ``edges`` DataFrame has one row per unknown
    pair: ``a, b, p_adjacent, p_directed, p_none, p_forward, p_backward, p_undirected``
    (calibrated; ``p_forward`` is P(a → b)) and ``boot_none … boot_undirected``
    (bootstrap frequencies), sorted by ``rank_by`` descending.
    """
    _check_options(rank_by, evidence_strength)
    data, pairs, Y, probabilities = _load_inputs(data, known, probabilities)
    inputs = _pair_inputs(data, probabilities, _feature_groups(features), checkpoint,
                          progress=progress, n_boot=n_boot, search=search, n_jobs=n_jobs,
                          seed=seed, knowledge=knowledge, search_options=search_options)
    probabilities = inputs.probabilities
    known_keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), data.n_vars)
    X_known = inputs.rows(known_keys)
    rows, counts = inputs.population()

    def fit(edges_assumed):
        model = edge_calibrator(calibrator, calibrator_params, seed,
                                n_boot=probabilities.n_boot, feature_swap=inputs.swap)
        model = EvidenceBlend(model, evidence_strength)
        return fit_known_relations(model, X_known, Y, rows, counts, edges_assumed)

    result: KnownRelationsFit = fit(expected_edges)
    Q = calibrate_all_pairs(result.model, probabilities, dtype=np.float64,
                            features=inputs.features)
    edges = _edges_table(probabilities, Q, known_keys, rank_by)
    eps = 0.5 / probabilities.n_boot if probabilities.n_boot else 1e-6
    offsets = result.design.offsets(X_known[:, :4])
    diagnostics = _diagnostics(result, calibrator, rank_by, X_known, Y, offsets, eps, seed,
                               inputs.groups)
    diagnostics["sensitivity"] = _sensitivity(fit, result.expected_edges, inputs,
                                              edges.head(10))
    known_fit = {"P": X_known, "Y": Y, "offsets": offsets, "eps": eps}
    return DiscoveryResult(edges, probabilities, result.model, pairs, diagnostics, known_fit)


def _pair_inputs(data, probabilities, groups: tuple[str, ...], checkpoint, *, progress: bool,
                 n_boot: int, search, n_jobs: int, seed: int, knowledge,
                 search_options: dict) -> _PairInputs:
    """Bootstrap (unless ``probabilities`` are given) and the calibrator's pair inputs;
    pair features come with the bootstrap or, for given probabilities without them, from
    the ``checkpoint`` they were computed with."""
    if probabilities is None:
        from causalcal.bootstrap import bootstrap_edge_probabilities

        probabilities = bootstrap_edge_probabilities(
            data, n_boot=n_boot, search=search, n_jobs=n_jobs, seed=seed,
            checkpoint=checkpoint, progress=progress, knowledge=knowledge,
            features=bool(groups), **search_options)
    elif groups and probabilities.pair_features is None:
        if checkpoint is None:
            raise ValueError("features need the bootstrap's pair features: pass probabilities "
                             "computed with features=True, or checkpoint= the folder they "
                             "were computed with")
        from causalcal.bootstrap.pair_features import checkpoint_pair_features

        probabilities = copy.copy(probabilities)  # the caller's object stays as it was
        probabilities.pair_features = checkpoint_pair_features(
            data, checkpoint, n_boot=probabilities.n_boot, seed=seed, search=search,
            knowledge=knowledge, **search_options)
    return _PairInputs(probabilities, groups)


def _feature_groups(features: bool | Sequence[str]) -> tuple[str, ...]:
    from causalcal.bootstrap.pair_features import FEATURE_GROUPS, feature_columns

    if features is True:
        return tuple(FEATURE_GROUPS)
    groups = tuple(features or ())
    feature_columns(groups)  # unknown groups are an error before the bootstrap
    return groups


class _PairInputs:
    """The calibrator's inputs of pairs: bootstrap probabilities, then (optionally) the
    chosen pair-feature groups, transformed."""

    def __init__(self, probabilities: EdgeProbabilities, groups: tuple[str, ...]) -> None:
        self.probabilities, self.groups = probabilities, groups
        self.features, self.swap = None, None
        if groups:
            from causalcal.bootstrap.pair_features import feature_columns, transform_features

            cols, self.swap = feature_columns(groups)
            self.features = transform_features(probabilities.pair_features)[:, cols]

    def rows(self, keys: np.ndarray) -> np.ndarray:
        """Inputs of the pairs at ``keys`` (pair order, i < j)."""
        i, j = pair_from_index(keys, self.probabilities.n_vars)
        P = self.probabilities.lookup(i, j)
        return P if self.features is None else np.hstack([P, self.features[keys]])

    def population(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct input rows of all pairs and how many pairs have each (every pair its
        own row when there are features)."""
        if self.features is None:
            rows, counts, _ = distinct_rows(self.probabilities)
            return rows, counts
        dense = self.probabilities.dense(np.float64)
        return np.hstack([dense, self.features]), np.ones(len(dense), dtype=np.int64)


def _check_options(rank_by: str, evidence_strength: float) -> None:
    if rank_by not in RANK_COLUMNS:
        raise ValueError(f"rank_by must be one of {', '.join(RANK_COLUMNS)}, got {rank_by!r}")
    if not evidence_strength >= 0:
        raise ValueError(f"evidence_strength must be >= 0, got {evidence_strength!r}")


def _diagnostics(result: KnownRelationsFit, calibrator: str, rank_by: str, P_known, Y,
                 offsets, eps: float, seed: int, groups: tuple[str, ...]) -> dict:
    """What the summary reports of the fit: counts, EM, design, cross-validated log-loss."""
    return {
        "calibrator": calibrator, "rank_by": rank_by, "features": list(groups),
        "known_arcs": int((~Y[:, 0]).sum()), "known_none": int(Y[:, 0].sum()),
        "expected_edges": result.expected_edges, "em_iterations": result.n_iter,
        "em_converged": result.converged, "design": result.design.describe(),
        "cross_validated_log_loss": _cross_validated_log_loss(
            result.model, P_known, Y, offsets, eps, seed) or None,
    }


def _sensitivity(fit, expected: float, inputs: _PairInputs, top: pd.DataFrame) -> dict:
    """P(adjacent) of the ``top`` candidates when half and double ``expected`` adjacent
    pairs are assumed."""
    probabilities = inputs.probabilities
    index = {n: k for k, n in enumerate(probabilities.names)}
    i = top["a"].map(index).to_numpy(np.int64)
    j = top["b"].map(index).to_numpy(np.int64)
    P = inputs.rows(pair_index(i, j, probabilities.n_vars))  # the table has a < b
    out = {}
    for label, factor in (("half", 0.5), ("double", 2.0)):
        n_pairs = probabilities.n_pairs
        assumed = min(expected * factor, n_pairs - 0.5)
        model = fit(assumed).model
        out[label] = (1.0 - model.predict_proba(P)[:, 0]).tolist()
        out[f"{label}_expected_edges"] = assumed
    return out
