"""A PAG's edge types as a relation kind (docs/design.md §9.13; issue 40, item 3).

A scientist states edges, not marks: "a -> b" (a causes b directly) allows the PAG
edges that leave a an ancestor of b and b none of a — ``o-o``, ``o->``, ``-->``; "none"
(no arc) allows no edge and ``<->`` (a hidden common cause only); "a -- b" any edge but
``<->``. So a stated edge settles the same four groups of the seven PAG edge types that
it settles of the CPDAG's four (:data:`GROUP_OF`):

=============  ==========================  ===========================
group          PAG edge types              allowed by
=============  ==========================  ===========================
no arc         none, ``<->``               ``none``
a → b          ``o->``, ``-->``            ``->``, ``--``
b → a          ``<-o``, ``<--``            ``<-``, ``--``
undecided      ``o-o``                     ``->``, ``<-``, ``--``
=============  ==========================  ===========================

The calibrate stage fits the map on the groups' probabilities (:class:`GroupedPAG`) as
for the CPDAG's edge types (P(arc) kept monotone, the bootstrap's split between the arc
groups kept), and the table spreads each group's calibrated probability over its PAG
edge types in the bootstrap's proportions (evenly where the bootstrap gave the group
none).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from causalcal._edges_io import PAG_PROBABILITY_COLUMNS
from causalcal.edgecal.crossval import Z
from causalcal.edgecal.kind_base import StatedEdges, pair_table, ranked, unknown_rows
from causalcal.edgecal.report import Words
from causalcal.edgecal.simulated import SimulatedPairs
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.errors import InputError
from causalcal.pag_edges import PAGEdgeProbabilities
from causalcal.pairs import EDGE_SWAP, PAG_EDGE_SYMBOLS

__all__ = ["GROUP_OF", "GroupedPAG", "PAGEdges"]

#: the group (an :class:`~causalcal.edges.EdgeType` column: none, forward, backward,
#: undirected) of each PAG edge type (:class:`~causalcal.pairs.PAGEdgeType` order)
GROUP_OF = np.array([0, 3, 1, 2, 1, 2, 0])
_SUM = np.eye(4)[GROUP_OF]  # (7, 4): a PAG row times this is its groups' row


class GroupedPAG(EdgeProbabilities):
    """A PAG bootstrap's edge types summed by :data:`GROUP_OF` (four columns, what the
    calibrate stage fits), with the seven-type table kept as :attr:`pag`; ``context``:
    the positions of the context columns (JCI, docs/design.md §5.2), whose edges to a
    system variable are ``-->``."""

    def __init__(self, pag: PAGEdgeProbabilities, context: Iterable[int] = ()) -> None:
        super().__init__(pag.names, pag.pairs, pag.probs @ _SUM, pag.n_boot)
        #: the PAG edge-type probabilities the groups sum
        self.pag = pag
        self.context = frozenset(int(c) for c in context)
        self.provenance = pag.provenance

    def spread(self, Q: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """Seven-type rows of the pairs at ``keys`` from their groups' rows ``Q`` (n, 4):
        each group's probability split as the bootstrap splits it (evenly if it gave
        the group nothing)."""
        P = self.pag.dense(np.float64)[keys]
        mass = (P @ _SUM)[:, GROUP_OF]
        size = _SUM.sum(axis=0)[GROUP_OF]
        share = np.where(mass > 0, P / np.where(mass > 0, mass, 1.0), 1.0 / size)
        if self.context:  # an edge from a context column to a system variable is -->
            i, j = pair_from_index(np.asarray(keys, dtype=np.int64), self.n_vars)
            ctx = np.isin(np.arange(self.n_vars), list(self.context))
            for rows, circle, definite in ((ctx[i] & ~ctx[j], 2, 4), (ctx[j] & ~ctx[i], 3, 5)):
                share[rows, circle], share[rows, definite] = 0.0, 1.0
        return np.asarray(Q, dtype=np.float64)[:, GROUP_OF] * share


@dataclass(frozen=True)
class PAGEdges(StatedEdges):
    """A PAG's edge types (``--search gfci``), calibrated from stated edges (module doc)."""

    name: ClassVar[str] = "pag"
    n_classes: ClassVar[int] = 4  # the groups the map is fitted on
    swap: ClassVar[tuple[int, ...]] = EDGE_SWAP
    z: ClassVar[dict] = Z
    simulated_type: ClassVar[type] = SimulatedPairs
    ancestral: ClassVar[bool] = False
    words: ClassVar[Words] = Words("known pairs", "arcs", "none", "pairs with an arc",
                                   "P(arc)", "P(arc)")
    columns: ClassVar[tuple[str, ...]] = ("p_arc", *PAG_PROBABILITY_COLUMNS)
    sensitivity_rows: ClassVar[int] = 10

    @property
    def ranked_by(self):
        return "p_arc"

    def check_simulations(self, simulations) -> None:
        if simulations:
            raise InputError("simulation-informed calibration is of CPDAG edge types and "
                             "causal relations; PAG edge types are calibrated from known "
                             "and suggested pairs")

    def raw(self, probabilities, knowledge=None):
        if not isinstance(probabilities, PAGEdgeProbabilities):
            raise InputError("relations='pag' calibrates a PAG search's edge types: "
                             "bootstrap with search='gfci' (--search gfci)")
        context = () if knowledge is None else knowledge.bind(probabilities.names).context
        return GroupedPAG(probabilities, context)

    def table(self, raw, Q, known_keys):
        table = self.frame(raw, Q, unknown_rows(raw.n_pairs, known_keys))
        return ranked(table, table["p_arc"].to_numpy())

    def frame(self, raw, Q, keys):
        Q7 = raw.spread(Q[keys], keys)
        return pair_table(raw, keys, PAG_PROBABILITY_COLUMNS, Q7,
                          raw.pag.dense(np.float64)[keys], p_arc=Q7[:, 1:6].sum(axis=1))

    def related(self, table):
        return table["p_arc"].to_numpy()

    def report(self, fit):
        return {
            "relations": self.name, "calibrator": fit.calibrator,
            "known_arcs": fit.known_related, "known_none": fit.known_unrelated,
            "expected_arcs": fit.related_pairs, **fit.shared_entries(),
            "arc_pairs_estimate": fit.estimate.as_dict(),
            "input": list(fit.input_notes),
            "sensitivity": fit.sensitivity and fit.sensitivity.as_dict(),
        }

    def candidate_line(self, row):
        marks = ", ".join(f"{s} {getattr(row, c):.3f}" for s, c in
                          zip(PAG_EDGE_SYMBOLS[1:], PAG_PROBABILITY_COLUMNS[1:]))
        boot = 1 - row.boot_none - row.boot_arrow_arrow
        return (f"  {row.a} - {row.b}   P(arc)={row.p_arc:.3f}  ({marks}; "
                f"bootstrap P(arc) {boot:.3f})")
