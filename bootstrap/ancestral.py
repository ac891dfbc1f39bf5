"""Definite and possible ancestor counts over the bootstrap's CPDAGs (docs/design.md §6.1).

:class:`AncestralAccumulator` is a sink of the bootstrap pass beside the edge-type
counter: each replicate, given as the sorted pair keys and labels the bootstrap and its
checkpoints hold, is turned back into its CPDAG's arcs and undirected edges, its
definite and possible ancestor matrices are computed
(:func:`causalcal.ancestry.ancestral_relations_from_edges`; with background knowledge,
whose replicates are maximally oriented PDAGs, the sound bounds of
:func:`~causalcal.ancestry.ancestral_bounds_from_edges`) and added to two V × V counts;
no graph is kept. The counts are ``uint16`` for up to 65 535 replicates (else
``uint32``): 2 × 50 MB at V = 5000. Sums of integers, so the result does not depend on
the order replicates arrive in (hence not on ``n_jobs``).
"""

from __future__ import annotations

import numpy as np

from causalcal.ancestry import (
    AncestralCounts,
    ancestral_bounds_from_edges,
    ancestral_relations_from_edges,
    pag_ancestral_bounds,
)
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.errors import InputError
from causalcal.pag_edges import PAGEdgeProbabilities

from .checkpoint import feed_replicates
from .search.registry import search_table

__all__ = ["AncestralAccumulator", "checkpoint_ancestral_counts", "replicate_edges"]


def replicate_edges(keys: np.ndarray, labels: np.ndarray,
                    n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """``(arcs (m, 2) as (i, j) for i → j, undirected edges (k, 2))`` of one replicate given
    as pair keys and labels (1 = i → j, 2 = j → i, 3 = i — j for the pair i < j)."""
    i, j = pair_from_index(np.asarray(keys, dtype=np.int64), n_vars)
    labels = np.asarray(labels)
    forward, backward, undirected = labels == 1, labels == 2, labels == 3
    arcs = np.concatenate([np.column_stack([i[forward], j[forward]]),
                           np.column_stack([j[backward], i[backward]])])
    return arcs, np.column_stack([i[undirected], j[undirected]])


def _cpdag_relations(exact):
    def relations(n_vars, keys, labels):
        return exact(n_vars, *replicate_edges(keys, labels, n_vars))
    return relations


def _pag_relations(n_vars, keys, labels):
    i, j = pair_from_index(np.asarray(keys, dtype=np.int64), n_vars)
    return pag_ancestral_bounds(n_vars, np.column_stack([i, j]), labels)


class AncestralAccumulator:
    """Counts, per ordered pair (a, b), the replicates whose graph makes a a definite and a
    possible ancestor of b; ``add(keys, labels)`` as the other bootstrap sinks.
    ``knowledge``: the replicates were oriented further by background knowledge, so the
    counts are of the bounds (definite: at most, possible: at least the exact ones).
    ``table``: what the replicates' labels are edge types of; a PAG's relations are
    always counted as bounds (:func:`~causalcal.ancestry.pag_ancestral_bounds`)."""

    def __init__(self, n_vars: int, n_boot: int, knowledge: bool = False,
                 table: type[EdgeProbabilities] = EdgeProbabilities) -> None:
        if n_vars < 0 or n_boot < 1:
            raise InputError(f"need n_vars ≥ 0 and n_boot ≥ 1, got {n_vars}, {n_boot}")
        self.n_vars = int(n_vars)
        self.n_graphs = 0
        dtype = np.uint16 if n_boot <= np.iinfo(np.uint16).max else np.uint32
        self._max = int(n_boot)
        self._relations = (_pag_relations if issubclass(table, PAGEdgeProbabilities) else
                           _cpdag_relations(ancestral_bounds_from_edges if knowledge
                                            else ancestral_relations_from_edges))
        self._definite = np.zeros((self.n_vars, self.n_vars), dtype=dtype)
        self._possible = np.zeros((self.n_vars, self.n_vars), dtype=dtype)

    def add(self, keys: np.ndarray, labels: np.ndarray) -> None:
        """Add one replicate (sorted unique pair keys and their labels 1–3)."""
        if self.n_graphs >= self._max:
            raise InputError(f"more than the {self._max} replicates announced")
        definite, possible = self._relations(self.n_vars, keys, labels)
        self._definite += definite
        self._possible += possible
        self.n_graphs += 1

    def counts(self) -> AncestralCounts:
        """The counts so far, over :attr:`n_graphs` replicates."""
        return AncestralCounts(self._definite, self._possible, self.n_graphs)


def checkpoint_ancestral_counts(data: DiscreteData, checkpoint, *, n_boot: int, seed: int,
                                search="fges", **search_options) -> AncestralCounts:
    """The ancestral counts of a finished bootstrap, read from its checkpoint folder (the
    arguments of the :func:`~causalcal.bootstrap.bootstrap_edge_probabilities` call that
    wrote it); no search is run. Equal to that call's ``ancestral=True`` counts (with
    knowledge, of the bounds; docs/design.md §6.1)."""
    acc = AncestralAccumulator(data.n_vars, n_boot, search_options.get("knowledge") is not None,
                               search_table(search))
    feed_replicates(checkpoint, data, acc, n_boot=n_boot, seed=seed, search=search,
                    search_options=search_options)
    return acc.counts()
