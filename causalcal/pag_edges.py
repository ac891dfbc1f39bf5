"""Bootstrapped PAG edge-type probabilities (docs/design.md §6.2; issue 40, item 2).

:class:`PAGEdgeProbabilities` is :class:`~causalcal.edges.EdgeProbabilities` with the
seven edge types of a PAG (:class:`~causalcal.pairs.PAGEdgeType`: none, ``o-o``,
``o->``, ``<-o``, ``-->``, ``<--``, ``<->``, read from a to b) as its columns: the same
sparse storage, lookups, ``.npz`` and CSV files (columns
:data:`~causalcal._edges_io.PAG_PROBABILITY_COLUMNS`). Tetrad's bootstrap of GFCI reports
the same frequencies (its "edge type probabilities"); its averaged graph is a PAG.
"""

from __future__ import annotations

import numpy as np

from causalcal._edges_io import PAG_PROBABILITY_COLUMNS
from causalcal.edges import EdgeProbabilities, adjacent_at
from causalcal.errors import InputError
from causalcal.pag import PAG
from causalcal.pairs import PAG_SWAP, PAGEdgeType

__all__ = ["PAGEdgeProbabilities"]


class PAGEdgeProbabilities(EdgeProbabilities):
    """Seven-class PAG edge-type probabilities for all pairs of ``names``: rows
    ``(i, j, p_none, p_circle_circle, p_circle_arrow, p_arrow_circle, p_tail_arrow,
    p_arrow_tail, p_arrow_arrow)`` with ``i < j`` (the marks at i and at j)."""

    n_classes = 7
    columns = PAG_PROBABILITY_COLUMNS
    swap = PAG_SWAP
    graph_type = PAG

    def averaged_network(self, threshold: float | str = 0.5) -> PAG:
        """The averaged PAG: the pairs whose P(adjacent) reaches ``threshold`` (or, with
        ``"estimated"``, exceeds bnlearn's L1 threshold or is 1), each with its most
        frequent edge type (the first of equals in :class:`PAGEdgeType` order: Tetrad's
        "highest probability" ensemble)."""
        keep = adjacent_at(1.0 - self.probs[:, 0], self.n_pairs, threshold)
        labels = 1 + np.argmax(self.probs[keep, 1:], axis=1)
        return PAG.from_pair_labels(self.n_vars, self.pairs[keep], labels, self.names)

    def edge_strengths(self, graph, known=None):
        raise InputError("edge strengths are drawn for a CPDAG; a PAG's edges carry their "
                         "edge-type probabilities in the table")

    def p_arc(self) -> np.ndarray:
        """P(an arc): every pair's probability (pair order) of an edge other than
        ``<->`` — what a stated "a -> b", "a <- b" or "a -- b" allows (docs/design.md
        §9.13)."""
        dense = self.dense(np.float64)
        return 1.0 - dense[:, PAGEdgeType.NONE] - dense[:, PAGEdgeType.ARROW_ARROW]
