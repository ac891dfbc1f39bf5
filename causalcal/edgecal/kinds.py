"""The kinds of relation a pair is calibrated for, and all that differs between them
(docs/design.md §9.10).

``discover`` and the calibrate stage run one sequence of steps for every kind; a
:class:`RelationKind` supplies the rest (classes, swap, known relations and their
knowledge check, raw probabilities, the judged Brier score, the maps, table and words).

* :class:`EdgeTypes` — the four edge types of the CPDAG (none, →, ←, —), §9.3.
* :class:`CausalRelations` — neither, a causes b, b causes a (ancestry), §9.9.
* :class:`~causalcal.edgecal.pag_kind.PAGEdges` — a PAG's seven edge types, §9.13.

Adding a kind is a new subclass and the counting of its raw probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from causalcal.ancestry import ancestral_relations_from_edges
from causalcal.causal import CausalProbabilities
from causalcal.edgecal.crossval import Z_CAUSAL, Z
from causalcal.edgecal.designed import DesignedCausal
from causalcal.edgecal.features import feature_groups
from causalcal.edgecal.kind_base import (
    RelationKind,
    StatedEdges,
    pair_table,
    ranked,
    unknown_rows,
)
from causalcal.edgecal.known import MIN_KNOWN
from causalcal.edgecal.model import KeepDirectionSplit
from causalcal.edgecal.noisy import corrected_labels, direction_rates
from causalcal.edgecal.pag_kind import GroupedPAG, PAGEdges
from causalcal.edgecal.report import Words
from causalcal.edgecal.simulated import (
    SimulatedAdjacency,
    SimulatedCausal,
    SimulatedCausalPairs,
    SimulatedPairs,
    count_causal_pairs,
    count_pairs,
)
from causalcal.edges import PROBABILITY_COLUMNS, EdgeProbabilities
from causalcal.errors import InputError
from causalcal.known_causal_checks import check_known_causal_relations
from causalcal.pag_edges import PAGEdgeProbabilities
from causalcal.relations_io import read_known_causal_pairs

__all__ = ["CAUSAL_COLUMNS", "KINDS", "RANK_COLUMNS", "CausalRelations", "EdgeTypes",
           "PAGEdges", "RelationKind", "StatedEdges", "Words", "kind_of", "relation_kind"]

#: What edge types can be ranked by: P(adjacent) = 1 − p_none (an arc, oriented or not
#: in the CPDAG), or P(directed) = p_forward + p_backward.
RANK_COLUMNS = ("p_adjacent", "p_directed")
#: The calibrated columns of the causal ranking, then the bootstrap's (``boot_…``).
CAUSAL_COLUMNS = ("p_a_causes_b", "p_b_causes_a", "p_neither")


@dataclass(frozen=True)
class EdgeTypes(StatedEdges):
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

    def raw(self, probabilities, knowledge=None):
        if isinstance(probabilities, PAGEdgeProbabilities):
            raise InputError("the probabilities are a PAG search's edge types (gfci); "
                             "calibrate them with relations='pag' (--relations pag)")
        return probabilities

    def simulated_map(self, pairs, eps):
        sim = SimulatedAdjacency(eps=eps).fit(pairs)
        return sim, KeepDirectionSplit(sim)

    def simulation_counter(self, network):
        truth_pairs, truth_labels = network.edge_labels()
        return lambda run: count_pairs(run, truth_pairs, truth_labels)

    def table(self, raw, Q, known_keys):
        table = self.frame(raw, Q, unknown_rows(raw.n_pairs, known_keys))
        return ranked(table, table[self.rank_by].to_numpy())

    def frame(self, raw, Q, keys):
        Q = Q[keys]
        return pair_table(raw, keys, PROBABILITY_COLUMNS, Q, raw.dense(np.float64)[keys],
                          p_adjacent=1.0 - Q[:, 0], p_directed=Q[:, 1] + Q[:, 2])

    def related(self, table):
        return table["p_adjacent"].to_numpy()

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

    def read_known(self, known, names, source=None):
        return read_known_causal_pairs(known, names, source)

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

    def reversed_answer(self, Y, x):
        out = np.zeros_like(Y)
        if Y[0]:  # one causes the other, the way the bootstrap favours
            out[1 + int(np.argmax(x[1:3]))] = True
        else:
            out[0] = True
        return out

    def _too_few(self, related, unrelated):
        return (f"causal calibration needs at least {MIN_KNOWN} pairs known to be causally "
                f"related (causes, ->, <- or --) and {MIN_KNOWN} stated without a causal "
                f"effect (not-causes); you have {related} and {unrelated}")

    def label_counts(self, labels):
        counts = np.bincount(labels + 1, minlength=4)
        return {"neither": int(counts[1]), "causes": int(counts[2]),
                "caused-by": int(counts[3]), "several": int(counts[0])}

    def raw(self, probabilities, knowledge=None):
        if probabilities.ancestral is None:
            raise InputError("the probabilities carry no ancestral counts: compute them with "
                             "ancestral=True (causalcal bootstrap --ancestral --out FILE.npz)")
        return CausalProbabilities.from_counts(probabilities.ancestral, probabilities.names)

    def known_brier(self, S, Y, errors=None):
        # P(a causes b) and P(b causes a), summed over the directions the label settles
        known = Y.sum(axis=1, keepdims=True) == 1  # one class: both directions settled
        settled = known | ~Y[:, 1:]  # a direction is settled false where it is not allowed
        if errors is None:
            return (settled * (S[:, 1:] - Y[:, 1:] * known) ** 2).sum(axis=1)
        p = S[:, 1:]
        y = corrected_labels(Y[:, 1:] & known, direction_rates(errors)[:, None, :])
        return (settled * (p ** 2 + y * (1 - 2 * p))).sum(axis=1)

    def simulated_map(self, pairs, eps):
        sim = SimulatedCausal(eps=eps).fit(pairs)
        return sim, sim  # causal labels settle directions: the map is written whole

    def designed_map(self, X, Y, weights, eps, rows, counts, errors=None):
        fitted = DesignedCausal(eps=eps).fit(X, Y, weights, errors)
        return fitted, fitted

    def simulation_counter(self, network):
        ancestor = ancestral_relations_from_edges(network.n_vars, network.edges(),
                                                  np.empty((0, 2), np.int64))[0]
        return lambda run: count_causal_pairs(run, ancestor)

    def table(self, raw, Q, known_keys):
        table = self.frame(raw, Q, unknown_rows(raw.n_pairs, known_keys))
        return ranked(table, self.related(table))

    def frame(self, raw, Q, keys):
        return pair_table(raw, keys, CAUSAL_COLUMNS, Q[keys][:, _ORDER],
                          raw.probs[keys][:, _ORDER])

    def related(self, table):
        return np.maximum(table["p_a_causes_b"], table["p_b_causes_a"]).to_numpy()

    def excluded(self, bound, i, j):
        # "a causes b" needs a chain of arcs the knowledge allows from a to b (tiers,
        # forbidden arcs, context columns: JCI) and no chain of required arcs from b to
        # a; "neither" is excluded by a chain of required arcs (docs/design.md §9.3, §5.2)
        may, reach = bound.may_cause(), bound.causes_required()
        forward = ~may[i, j] | reach[j, i]
        backward = ~may[j, i] | reach[i, j]
        return np.column_stack([reach[i, j] | reach[j, i], forward, backward])

    def report(self, fit):
        return {
            "relations": self.name, "calibrator": fit.calibrator,
            "known_related": fit.known_related, "known_unrelated": fit.known_unrelated,
            "known_none_ignored": fit.known_ignored, "expected_related": fit.related_pairs,
            **fit.shared_entries(), "related_pairs_estimate": fit.estimate.as_dict(),
            "knowledge_bounds": fit.knowledge_bounds,
            **({"pag_bounds": True} if fit.pag_bounds else {}),
            "simulations": fit.simulations and fit.simulations.as_dict(),
            **({"input": list(fit.input_notes)} if fit.input_notes else {}),
        }

    def candidate_line(self, row):
        return (f"  {row.a} - {row.b}   P({row.a} causes {row.b})={row.p_a_causes_b:.3f}, "
                f"P({row.b} causes {row.a})={row.p_b_causes_a:.3f}, neither "
                f"{row.p_neither:.3f} (bootstrap {row.boot_a_causes_b:.3f} / "
                f"{row.boot_b_causes_a:.3f})")


#: The kinds by their ``relations=`` word.
KINDS: dict[str, type[RelationKind]] = {"edges": EdgeTypes, "causal": CausalRelations,
                                        "pag": PAGEdges}


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
    return {EdgeProbabilities: EdgeTypes, CausalProbabilities: CausalRelations,
            GroupedPAG: PAGEdges}[type(probabilities)]()
