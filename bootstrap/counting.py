"""Counting edge types per pair over many graphs (docs/design.md §6, §6.2).

:class:`EdgeTypeCounter` is the bootstrap's main sink: each replicate arrives as the
sorted pair keys and labels of its adjacent pairs (O(E), never V × V), coded key · 8 +
label and merged into sorted unique codes with counts, so the counts are exact integers
whatever order replicates arrive in. A CPDAG's labels are 1–3 (→, ←, —), a PAG's 1–6
(:class:`~causalcal.pairs.PAGEdgeType`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from causalcal.edges import EdgeProbabilities, pair_from_index, pair_index
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.pag import PAG
from causalcal.pag_edges import PAGEdgeProbabilities

__all__ = ["EdgeTypeCounter", "edge_probabilities_from_graphs", "graph_to_keys"]


def graph_to_keys(graph: PDAG | PAG, n_vars: int,
                   table: type[EdgeProbabilities] = EdgeProbabilities,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Sorted pair keys (int64) and labels (int8) of the adjacent pairs of ``graph``: edge
    types 1–3 of a PDAG, 1–6 of a PAG (:class:`~causalcal.pairs.PAGEdgeType`), which
    must be the graph ``table`` counts."""
    if not isinstance(graph, table.graph_type):
        got = "None" if graph is None else f"a {type(graph).__module__}.{type(graph).__qualname__}"
        raise InputError(f"the search returned {got}, not a causalcal "
                         f"{table.graph_type.__name__} (causalcal.graph.PDAG; a networkx graph "
                         "converts with causalcal.graph_io.from_networkx)")
    if graph.n_vars != n_vars:
        raise InputError(f"the search returned a graph over {graph.n_vars} nodes, not the "
                         f"data's {n_vars}")
    pairs, labels = graph.pair_labels()
    keys = pair_index(pairs[:, 0], pairs[:, 1], n_vars)
    order = np.argsort(keys, kind="stable")
    return keys[order].astype(np.int64), labels[order].astype(np.int8)


class EdgeTypeCounter:
    """Sparse counts of edge types per pair over many graphs.

    Each added graph contributes its (pair key, label) codes; codes are merged into a
    sorted unique array with counts whenever ``flush_size`` are pending, so memory is
    O(distinct adjacent pairs), never V × V. ``table``: what the labels are edge types of
    (:class:`EdgeProbabilities`, labels 1–3, or
    :class:`~causalcal.pag_edges.PAGEdgeProbabilities`, 1–6).
    """

    def __init__(self, n_vars: int, flush_size: int = 1 << 21,
                 table: type[EdgeProbabilities] = EdgeProbabilities) -> None:
        self.n_vars = int(n_vars)
        self.table = table
        self.n_graphs = 0
        self._flush_size = int(flush_size)
        self._codes = np.empty(0, dtype=np.int64)  # key * 8 + label, sorted unique
        self._counts = np.empty(0, dtype=np.int64)
        self._pending: list[np.ndarray] = []
        self._n_pending = 0

    def add(self, keys: np.ndarray, labels: np.ndarray) -> None:
        """Add one graph given by sorted pair keys and labels (1 … n_classes − 1)."""
        labels = np.asarray(labels, dtype=np.int64)
        if len(labels) and (labels.min() < 1 or labels.max() >= self.table.n_classes):
            raise InputError(f"edge-type labels must be 1 to {self.table.n_classes - 1} for "
                             f"{self.table.__name__}, got {labels.min()} to {labels.max()}")
        codes = np.asarray(keys, dtype=np.int64) * 8 + labels
        self._pending.append(codes)
        self._n_pending += len(codes)
        self.n_graphs += 1
        if self._n_pending >= self._flush_size:
            self._flush()

    def add_graph(self, graph: PDAG | PAG) -> None:
        self.add(*graph_to_keys(graph, self.n_vars, self.table))

    def _flush(self) -> None:
        if not self._pending:
            return
        new = np.concatenate(self._pending)
        self._pending, self._n_pending = [], 0
        codes = np.concatenate([self._codes, new])
        weights = np.concatenate([self._counts, np.ones(len(new), dtype=np.int64)])
        uniq, inverse = np.unique(codes, return_inverse=True)
        counts = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(counts, inverse.reshape(-1), weights)
        self._codes, self._counts = uniq, counts

    def pair_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(pairs (m, 2) with i < j, counts (m, n_classes − 1))``: each edge type but
        none (FORWARD, BACKWARD, UNDIRECTED of a CPDAG)."""
        self._flush()
        keys = self._codes >> 3
        labels = (self._codes & 7).astype(np.int64)
        uniq, row = np.unique(keys, return_inverse=True)
        counts = np.zeros((len(uniq), self.table.n_classes - 1), dtype=np.int64)
        counts[row.reshape(-1), labels - 1] = self._counts
        i, j = pair_from_index(uniq, self.n_vars)
        return np.column_stack([i, j]), counts

    def probabilities(self, names: Sequence[str], n_boot: int | None = None) -> EdgeProbabilities:
        """Counts / ``n_boot`` (default: the number of graphs added)."""
        n_boot = self.n_graphs if n_boot is None else int(n_boot)
        pairs, counts = self.pair_counts()
        return self.table.from_counts(names, pairs, counts, n_boot)


def edge_probabilities_from_graphs(
    graphs: Iterable[PDAG | PAG], names: Sequence[str] | None = None
) -> EdgeProbabilities:
    """Edge-type frequencies over ``graphs`` (all over the same nodes; PAGs give
    :class:`~causalcal.pag_edges.PAGEdgeProbabilities`)."""
    counter: EdgeTypeCounter | None = None
    for g in graphs:
        if counter is None:
            table = PAGEdgeProbabilities if isinstance(g, PAG) else EdgeProbabilities
            counter = EdgeTypeCounter(g.n_vars, table=table)
            names = g.names if names is None else names
        counter.add_graph(g)
    if counter is None:
        raise InputError("no graphs given")
    return counter.probabilities(names)
