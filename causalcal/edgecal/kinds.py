"""The kinds of relation a pair is calibrated for, and all that differs between them
(docs/design.md §9.10).

``discover`` and the calibrate stage run one sequence of steps for every kind; a
:class:`RelationKind` supplies the rest (classes, swap, known relations and their
knowledge check, raw probabilities, the judged Brier score, the maps, table and words).

* :class:`EdgeTypes` — the four edge types of the CPDAG (none, →, ←, —), §9.3.
* :class:`CausalRelations` — neither, a causes b, b causes a (ancestry), §9.9.

Adding a kind is a new subclass and the counting of its raw probabilities.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from causalcal.ancestry import ancestral_relations_from_edges
from causalcal.causal import CausalProbabilities
from causalcal.edgecal.crossval import Z_CAUSAL, Z
from causalcal.edgecal.designed import DesignedAdjacency, DesignedCausal
from causalcal.edgecal.features import feature_groups
from causalcal.edgecal.known import MIN_KNOWN, MonotoneAdjacency, relation_label_sets
from causalcal.edgecal.model import KeepDirectionSplit
from causalcal.edgecal.report import FitReport, Words
from causalcal.edgecal.simulated import (
    SimulatedAdjacency,
    SimulatedCausal,
    SimulatedCausalPairs,
    SimulatedPairs,
    count_causal_pairs,
    count_pairs,
)
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities, EdgeType, pair_from_index
from causalcal.errors import InputError
from causalcal.knowledge import (
    BoundKnowledge,
    check_known_causal_relations,
    check_known_relations,
)
from causalcal.relations_io import read_known_causal_pairs, read_known_pairs

__all__ = ["CAUSAL_COLUMNS", "KINDS", "RANK_COLUMNS", "CausalRelations", "EdgeTypes",
           "RelationKind", "Words", "kind_of", "relation_kind"]

#: What edge types can be ranked by: P(adjacent) = 1 − p_none (an arc, oriented or not
#: in the CPDAG), or P(directed) = p_forward + p_backward.
RANK_COLUMNS = ("p_adjacent", "p_directed")
#: The calibrated columns of the causal ranking, then the bootstrap's (``boot_…``).
CAUSAL_COLUMNS = ("p_a_causes_b", "p_b_causes_a", "p_neither")


class RelationKind:
    """What a kind of relation supplies to the one pipeline (see the module).

    Class attributes: ``name`` (the ``relations=`` word), ``n_classes``, ``swap`` (the
    columns of a pair written the other way round), ``z`` (standard errors a candidate map
    needs, :func:`~causalcal.edgecal.crossval.choose_map`), ``simulated_type`` (the
    counted simulated pairs it takes), ``ancestral`` (its raw probabilities need the
    bootstrap's ancestral counts), ``words``. Instances carry the kind's own options.
    """

    name: ClassVar[str]
    n_classes: ClassVar[int]
    swap: ClassVar[tuple[int, ...]]
    z: ClassVar[dict]
    simulated_type: ClassVar[type]
    ancestral: ClassVar[bool]
    words: ClassVar[Words]
    #: the calibrated table's columns (then the bootstrap's ``boot_…``)
    columns: ClassVar[tuple[str, ...]]
    #: top candidates whose probabilities are reported at half and double the assumed
    #: number of related pairs (0: none)
    sensitivity_rows: ClassVar[int] = 0
    #: whether the calibrator may also see pair features, and the groups it sees
    takes_features: ClassVar[bool] = False
    features: tuple[str, ...] = ()

    @property
    def ranked_by(self) -> str:
        """What the table is ranked by, in words."""
        raise NotImplementedError

    def check_simulations(self, simulations) -> None:
        """``InputError`` for counted simulated pairs of another kind."""
        if isinstance(simulations, SimulatedPairs) and type(simulations) is not \
                self.simulated_type:
            raise InputError(f"relations={self.name!r} needs simulated pairs of its own kind: "
                             f"{self.simulated_type.__name__}, from simulated_pairs(..., "
                             f"relations={self.name!r})")

    # -- known relations ------------------------------------------------------------
    def read_known(self, known: pd.DataFrame | str | os.PathLike,
                   names: list[str]) -> pd.DataFrame:
        """The known relations as one row per pair (``i, j`` and what the class needs)."""
        raise NotImplementedError

    def check_known(self, knowledge, pairs: pd.DataFrame, names: list[str],
                    source: str) -> None:
        """``InputError`` for a known relation the background knowledge contradicts."""
        raise NotImplementedError

    def ignored_rows(self, pairs: pd.DataFrame) -> int:
        """Rows of the known relations read that say nothing of this kind."""
        raise NotImplementedError

    def ignored_note(self, n: int) -> str | None:
        """The summary's line on ``n`` ignored rows (None for none)."""
        raise NotImplementedError

    def label_sets(self, pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, Y)``: each known pair's class as given (−1 for several) and its
        (n, k) allowed classes."""
        raise NotImplementedError

    def check_counts(self, Y: np.ndarray) -> None:
        """``InputError`` unless :data:`MIN_KNOWN` pairs of each kind are known."""
        related, unrelated = self.known_counts(Y)
        if related < MIN_KNOWN or unrelated < MIN_KNOWN:
            raise InputError(self._too_few(related, unrelated))

    def known_counts(self, Y: np.ndarray) -> tuple[int, int]:
        """Known pairs related (class 0 excluded) and stated unrelated."""
        raise NotImplementedError

    def _too_few(self, related: int, unrelated: int) -> str:
        raise NotImplementedError

    def label_counts(self, labels: np.ndarray) -> dict[str, int]:
        """How many pairs of each label."""
        raise NotImplementedError

    # -- probabilities ----------------------------------------------------------------
    def raw(self, probabilities: EdgeProbabilities) -> EdgeProbabilities | CausalProbabilities:
        """The raw probabilities of every pair from a bootstrap's result."""
        raise NotImplementedError

    def known_brier(self, S: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Per-pair Brier score of selected probabilities ``S`` on label sets ``Y``."""
        raise NotImplementedError

    def shaped(self, blend, rows: np.ndarray, counts: np.ndarray):
        """The known-relations map to fit, from the evidence blend (all pairs' ``rows``)."""
        return blend

    def written(self, model):
        """What a known-relations fit writes of its fitted ``model``."""
        return model

    def simulated_map(self, pairs: SimulatedPairs, eps: float) -> tuple[object, object]:
        """The simulation-informed map fitted on ``pairs`` and the model it writes."""
        raise NotImplementedError

    def designed_map(self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray, eps: float,
                     rows: np.ndarray, counts: np.ndarray) -> tuple[object, object]:
        """The map fitted on answered suggested pairs (inputs ``X``, label sets ``Y``,
        ``weights`` their inverse inclusion rates) and the model it writes (§9.12)."""
        raise NotImplementedError

    def simulation_counter(self, network):
        """A function of a simulated data set's bootstrap result that counts its pairs
        against ``network`` (:attr:`SimulatedPairs.table`)."""
        raise NotImplementedError

    def table(self, raw, Q: np.ndarray, known_keys: np.ndarray) -> pd.DataFrame:
        """One row per unknown pair: :meth:`frame`, ranked."""
        raise NotImplementedError

    def frame(self, raw, Q: np.ndarray, keys: np.ndarray) -> pd.DataFrame:
        """The pairs at ``keys`` (pair order, ``a`` before ``b``): names, calibrated ``Q``
        and raw columns."""
        raise NotImplementedError

    def excluded(self, bound: BoundKnowledge, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """(n, k) bool: the classes of the pairs (i, j), i < j, that the knowledge makes
        impossible."""
        raise NotImplementedError

    def related(self, table: pd.DataFrame) -> np.ndarray:
        """Each row's probability of being related (what the summary counts)."""
        raise NotImplementedError

    def candidate_line(self, row) -> str:
        """A top candidate's line of the summary."""
        raise NotImplementedError

    def report(self, fit: FitReport) -> dict:
        """``fit`` laid out as the report file's entries (its keys are the kind's words)."""
        raise NotImplementedError


def _unknown_rows(n_pairs: int, known_keys: np.ndarray) -> np.ndarray:
    keep = np.ones(n_pairs, dtype=bool)
    keep[known_keys] = False
    return np.flatnonzero(keep)


def _ranked(table: pd.DataFrame, score: np.ndarray) -> pd.DataFrame:
    return table.iloc[np.argsort(-score, kind="stable")].reset_index(drop=True)


@dataclass(frozen=True)
class EdgeTypes(RelationKind):
    """The edge types of the CPDAG (docs/design.md §9.3).

    Parameters
    ----------
    rank_by : ``"p_adjacent"`` (1 − p_none, default) or ``"p_directed"``.
    features : pair-feature groups the calibrator also sees (``True``: all of
        :data:`~causalcal.edgecal.FEATURE_GROUPS`); computed with the bootstrap.
    """

    name: ClassVar[str] = "edges"
    n_classes: ClassVar[int] = 4
    swap: ClassVar[tuple[int, ...]] = EdgeProbabilities.swap
    z: ClassVar[dict] = Z
    simulated_type: ClassVar[type] = SimulatedPairs
    ancestral: ClassVar[bool] = False
    words: ClassVar[Words] = Words("known pairs", "arcs", "none", "adjacent pairs",
                                   "P(adjacent)", "P(adjacent)")
    columns: ClassVar[tuple[str, ...]] = ("p_adjacent", "p_directed", *PROBABILITY_COLUMNS)
    sensitivity_rows: ClassVar[int] = 10
    takes_features: ClassVar[bool] = True

    rank_by: str = "p_adjacent"
    features: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.rank_by not in RANK_COLUMNS:
            raise InputError(f"rank_by must be one of {', '.join(RANK_COLUMNS)}, "
                             f"got {self.rank_by!r}")
        object.__setattr__(self, "features", feature_groups(self.features))

    @property
    def ranked_by(self):
        return self.rank_by

    def read_known(self, known, names):
        return read_known_pairs(known, names)

    def ignored_rows(self, pairs):
        return int(pairs.attrs.get("ignored_causal", 0))

    def ignored_note(self, n):
        return (f"known relations: {n} causes / not-causes rows ignored (they give no edge "
                "type; --relations causal calibrates them)") if n else None

    def check_known(self, knowledge, pairs, names, source):
        check_known_relations(knowledge, pairs[["a", "b", "relation"]].itertuples(index=False),
                              source)

    def label_sets(self, pairs):
        labels = pairs["label"].to_numpy(np.int64)
        return labels, relation_label_sets(labels)

    def known_counts(self, Y):
        return int((~Y[:, 0]).sum()), int((Y[:, 0] & ~Y[:, 1:].any(axis=1)).sum())

    def _too_few(self, related, unrelated):
        return (f"calibration needs at least {MIN_KNOWN} known arcs (->, <- or --) and "
                f"{MIN_KNOWN} known non-adjacent pairs (none); you have {related} arcs and "
                f"{unrelated} none")

    def label_counts(self, labels):
        counts = np.bincount(labels, minlength=4)
        return {t.symbol: int(counts[t]) for t in EdgeType}

    def raw(self, probabilities):
        return probabilities

    def known_brier(self, S, Y):
        return (1.0 - S[:, 0] - (~Y[:, 0]).astype(int)) ** 2

    def shaped(self, blend, rows, counts):
        return MonotoneAdjacency(blend, rows, counts)  # P(adjacent) keeps the bootstrap's order

    def written(self, model):
        return KeepDirectionSplit(model)  # known relations settle adjacency, not direction

    def simulated_map(self, pairs, eps):
        sim = SimulatedAdjacency(eps=eps).fit(pairs)
        return sim, KeepDirectionSplit(sim)

    def designed_map(self, X, Y, weights, eps, rows, counts):
        fitted = DesignedAdjacency(eps=eps).fit(X, (~Y[:, 0]).astype(int), weights, rows,
                                                counts)
        return fitted, KeepDirectionSplit(fitted, eps)

    def simulation_counter(self, network):
        truth_pairs, truth_labels = network.edge_labels()
        return lambda run: count_pairs(run, truth_pairs, truth_labels)

    def table(self, raw, Q, known_keys):
        table = self.frame(raw, Q, _unknown_rows(raw.n_pairs, known_keys))
        return _ranked(table, table[self.rank_by].to_numpy())

    def frame(self, raw, Q, keys):
        P = raw.dense(np.float64)[keys]
        Q = Q[keys]
        i, j = pair_from_index(keys, raw.n_vars)
        names = np.asarray(raw.names, dtype=object)
        table = pd.DataFrame({"a": names[i], "b": names[j],
                              "p_adjacent": 1.0 - Q[:, 0], "p_directed": Q[:, 1] + Q[:, 2]})
        for k, col in enumerate(PROBABILITY_COLUMNS):
            table[col] = Q[:, k]
        for k, col in enumerate(PROBABILITY_COLUMNS):
            table[col.replace("p_", "boot_")] = P[:, k]
        return table

    def related(self, table):
        return table["p_adjacent"].to_numpy()

    def excluded(self, bound, i, j):
        forward, backward = bound.forbids_arcs(i, j), bound.forbids_arcs(j, i)
        required = np.zeros(len(forward), dtype=bool)
        if bound.required:
            n = len(bound.tier)
            keys = np.fromiter((min(a, b) * n + max(a, b) for a, b in bound.required),
                               np.int64)
            required = np.isin(np.asarray(i) * n + np.asarray(j), keys)
        return np.column_stack([required, forward, backward, forward | backward])

    def report(self, fit):
        return {
            "calibrator": fit.calibrator, "rank_by": self.rank_by,
            "features": list(self.features), "known_arcs": fit.known_related,
            "known_none": fit.known_unrelated, "expected_edges": fit.related_pairs,
            **fit.shared_entries(), "adjacent_pairs_estimate": fit.estimate.as_dict(),
            "simulations": fit.simulations and fit.simulations.as_dict(),
            "input": list(fit.input_notes),
            "sensitivity": fit.sensitivity and fit.sensitivity.as_dict(),
        }

    def candidate_line(self, row):
        return (f"  {row.a} - {row.b}   P(adjacent)={row.p_adjacent:.3f}  "
                f"(->{row.p_forward:.3f}, <-{row.p_backward:.3f}, --{row.p_undirected:.3f}; "
                f"bootstrap {1 - row.boot_none:.3f})")


_ORDER = [1, 2, 0]  # CausalType columns (neither, forward, backward) in CAUSAL_COLUMNS order
#: The causal known-relations frame's columns of the classes allowed, in
#: :class:`~causalcal.pairs.CausalType` order.
ALLOWED_COLUMNS = ("neither", "forward", "backward")


@dataclass(frozen=True)
class CausalRelations(RelationKind):
    """Causal relations: "a causes b, possibly through other variables" (§9.9)."""

    name: ClassVar[str] = "causal"
    n_classes: ClassVar[int] = 3
    swap: ClassVar[tuple[int, ...]] = CausalProbabilities.swap
    z: ClassVar[dict] = Z_CAUSAL
    simulated_type: ClassVar[type] = SimulatedCausalPairs
    ancestral: ClassVar[bool] = True
    words: ClassVar[Words] = Words("known causal pairs", "causally related",
                                   "without an effect stated", "causally related pairs",
                                   "P(a causes b)", "P(a causes b or b causes a)")
    columns: ClassVar[tuple[str, ...]] = CAUSAL_COLUMNS

    @property
    def ranked_by(self):
        return "the larger causal probability"

    def read_known(self, known, names):
        return read_known_causal_pairs(known, names)

    def ignored_rows(self, pairs):
        return int(pairs.attrs.get("ignored_none", 0))

    def ignored_note(self, n):
        return (f"known relations: {n} 'none' rows ignored (not adjacent says nothing of "
                "causation)") if n else None

    def check_known(self, knowledge, pairs, names, source):
        check_known_causal_relations(knowledge, pairs, names, source)

    def label_sets(self, pairs):
        Y = pairs[list(ALLOWED_COLUMNS)].to_numpy(bool)
        return np.where(Y.sum(axis=1) == 1, Y.argmax(axis=1), -1).astype(np.int64), Y

    def known_counts(self, Y):
        return int((~Y[:, 0]).sum()), int((Y[:, 0] & ~Y.all(axis=1)).sum())

    def _too_few(self, related, unrelated):
        return (f"causal calibration needs at least {MIN_KNOWN} pairs known to be causally "
                f"related (causes, ->, <- or --) and {MIN_KNOWN} stated without a causal "
                f"effect (not-causes); you have {related} and {unrelated}")

    def label_counts(self, labels):
        counts = np.bincount(labels + 1, minlength=4)
        return {"neither": int(counts[1]), "causes": int(counts[2]),
                "caused-by": int(counts[3]), "several": int(counts[0])}

    def raw(self, probabilities):
        if probabilities.ancestral is None:
            raise InputError("the probabilities carry no ancestral counts: compute them with "
                             "ancestral=True (causalcal bootstrap --ancestral --out FILE.npz)")
        return CausalProbabilities.from_counts(probabilities.ancestral, probabilities.names)

    def known_brier(self, S, Y):
        # P(a causes b) and P(b causes a), summed over the directions the label settles
        known = Y.sum(axis=1, keepdims=True) == 1  # one class: both directions settled
        settled = known | ~Y[:, 1:]  # a direction is settled false where it is not allowed
        return (settled * (S[:, 1:] - Y[:, 1:] * known) ** 2).sum(axis=1)

    def simulated_map(self, pairs, eps):
        sim = SimulatedCausal(eps=eps).fit(pairs)
        return sim, sim  # causal labels settle directions: the map is written whole

    def designed_map(self, X, Y, weights, eps, rows, counts):
        fitted = DesignedCausal(eps=eps).fit(X, Y, weights)
        return fitted, fitted

    def simulation_counter(self, network):
        ancestor = ancestral_relations_from_edges(network.n_vars, network.edges(),
                                                  np.empty((0, 2), np.int64))[0]
        return lambda run: count_causal_pairs(run, ancestor)

    def table(self, raw, Q, known_keys):
        table = self.frame(raw, Q, _unknown_rows(raw.n_pairs, known_keys))
        return _ranked(table, self.related(table))

    def frame(self, raw, Q, keys):
        i, j = pair_from_index(keys, raw.n_vars)
        names = np.asarray(raw.names, dtype=object)
        table = pd.DataFrame({"a": names[i], "b": names[j]})
        boot = tuple(c.replace("p_", "boot_") for c in CAUSAL_COLUMNS)
        for col, values in zip(CAUSAL_COLUMNS + boot,
                               np.hstack([Q[keys][:, _ORDER], raw.probs[keys][:, _ORDER]]).T,
                               strict=True):
            table[col] = values.astype(np.float64)
        return table

    def related(self, table):
        return np.maximum(table["p_a_causes_b"], table["p_b_causes_a"]).to_numpy()

    def excluded(self, bound, i, j):
        # tiers decide only when every variable is tiered (an untiered one may mediate);
        # required arcs forming a path decide always (docs/design.md §9.3)
        tiers = bound.all_tiered
        reach = bound.causes_required()
        forward = (tiers & bound.tiers_forbid(i, j)) | reach[j, i]
        backward = (tiers & bound.tiers_forbid(j, i)) | reach[i, j]
        return np.column_stack([reach[i, j] | reach[j, i], forward, backward])

    def report(self, fit):
        return {
            "relations": self.name, "calibrator": fit.calibrator,
            "known_related": fit.known_related, "known_unrelated": fit.known_unrelated,
            "known_none_ignored": fit.known_ignored, "expected_related": fit.related_pairs,
            **fit.shared_entries(), "related_pairs_estimate": fit.estimate.as_dict(),
            "knowledge_bounds": fit.knowledge_bounds,
            "simulations": fit.simulations and fit.simulations.as_dict(),
            **({"input": list(fit.input_notes)} if fit.input_notes else {}),
        }

    def candidate_line(self, row):
        return (f"  {row.a} - {row.b}   P({row.a} causes {row.b})={row.p_a_causes_b:.3f}, "
                f"P({row.b} causes {row.a})={row.p_b_causes_a:.3f}, neither "
                f"{row.p_neither:.3f} (bootstrap {row.boot_a_causes_b:.3f} / "
                f"{row.boot_b_causes_a:.3f})")


#: The kinds by their ``relations=`` word.
KINDS: dict[str, type[RelationKind]] = {"edges": EdgeTypes, "causal": CausalRelations}


def relation_kind(relations: str | RelationKind) -> RelationKind:
    """The kind of ``relations``: a :class:`RelationKind`, or its word (``"edges"``,
    ``"causal"``) for the kind with default options."""
    if isinstance(relations, RelationKind):
        return relations
    if relations not in KINDS:
        raise InputError(f"relations must be one of {', '.join(KINDS)}, got {relations!r}")
    return KINDS[relations]()


def kind_of(probabilities: EdgeProbabilities | CausalProbabilities) -> RelationKind:
    """The kind (default options) whose raw probabilities ``probabilities`` are."""
    return {EdgeProbabilities: EdgeTypes, CausalProbabilities: CausalRelations}[
        type(probabilities)]()
