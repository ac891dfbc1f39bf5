"""Features of a pair from the bootstrap's learned graphs (thesis §6.2.6, future work).

The thesis proposes conditioning the calibrator on "features extracted from the
structure of the predicted PDAG ..., such as the indegree of B when we are generating a
calibrated probability for the edge type A → B". Per pair (A, B), A < B, averaged over
the replicates:

``degree_a``, ``degree_b``
    number of neighbours of A and of B (directed and undirected edges);
``indegree_a``, ``indegree_b``
    number of arcs into A and into B;
``common_neighbours``
    number of nodes adjacent to both;
``v_structure``
    fraction of replicates in which A and B are non-adjacent parents of a common child
    (A → C ← B unshielded: a v-structure of the CPDAG);

and, from the original data once, ``pairwise_gain``: the BDeu gain of the arc A → B over
the empty graph (score equivalent, so symmetric), a marginal dependence strength.

The count of replicates in which the pair is adjacent but unoriented is the undirected
frequency itself (``p_undirected``), already a calibrator input; it is not repeated.

:class:`PairFeatureAccumulator` streams replicates given as sorted pair keys and labels
(what the bootstrap and its checkpoints hold), so no graph is kept: memory is two
float32 arrays of length V(V − 1)/2 plus per-node sums.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp

from causalcal.data import DiscreteData
from causalcal.edges import n_pairs, pair_from_index, pair_index
from causalcal.errors import InputError
from causalcal.knowledge import with_knowledge

from .checkpoint import feed_replicates
from .score.protocol import Score
from .score.registry import as_score, score_options

__all__ = [
    "FEATURE_NAMES",
    "FEATURE_SWAP",
    "PairFeatureAccumulator",
    "checkpoint_pair_features",
    "pair_features",
    "pairwise_gain_all",
]

#: Columns of the feature matrix, in order.
FEATURE_NAMES: tuple[str, ...] = (
    "degree_a", "degree_b", "indegree_a", "indegree_b",
    "common_neighbours", "v_structure", "pairwise_gain",
)
#: Column permutation of the features when a pair is read the other way round (B, A).
FEATURE_SWAP: tuple[int, ...] = (1, 0, 3, 2, 4, 5, 6)


class PairFeatureAccumulator:
    """Sums of the graph features of every pair over added replicates.

    ``add(keys, labels)`` takes one replicate's adjacent pairs (pair keys of
    :func:`causalcal.edges.pair_index`, labels 1 = i → j, 2 = j → i, 3 = i — j);
    :meth:`features` returns the per-replicate means.
    """

    def __init__(self, n_vars: int) -> None:
        self.n_vars = int(n_vars)
        self.n_graphs = 0
        self._degree = np.zeros(self.n_vars)
        self._indegree = np.zeros(self.n_vars)
        self._common = np.zeros(n_pairs(self.n_vars), dtype=np.float32)
        self._vstruct = np.zeros(n_pairs(self.n_vars), dtype=np.float32)

    def add(self, keys: np.ndarray, labels: np.ndarray) -> None:
        """Add one replicate (sorted unique pair keys and their labels 1–3)."""
        v = self.n_vars
        keys = np.asarray(keys, dtype=np.int64)
        labels = np.asarray(labels, dtype=np.int64)
        i, j = pair_from_index(keys, v)
        self._degree += np.bincount(np.concatenate([i, j]), minlength=v)
        parent = np.where(labels == 1, i, j)[labels != 3]
        child = np.where(labels == 1, j, i)[labels != 3]
        self._indegree += np.bincount(child, minlength=v)
        ones = np.ones(len(i), dtype=np.float32)
        adjacency = sp.coo_matrix((ones, (i, j)), shape=(v, v)).tocsr()
        adjacency = adjacency + adjacency.T
        self._add_upper(self._common, adjacency @ adjacency, None)
        arcs = sp.coo_matrix((np.ones(len(parent), dtype=np.float32), (parent, child)),
                             shape=(v, v)).tocsr()
        self._add_upper(self._vstruct, arcs @ arcs.T, keys)
        self.n_graphs += 1

    def _add_upper(self, total: np.ndarray, matrix: sp.spmatrix, exclude: np.ndarray | None):
        """``total[pair] += matrix[i, j]`` over its entries i < j; with ``exclude`` (sorted
        keys of adjacent pairs) those pairs are skipped and each entry counts as one."""
        m = sp.triu(matrix, k=1).tocoo()
        keys = pair_index(m.row, m.col, self.n_vars)
        values = m.data
        if exclude is not None:
            keep = ~np.isin(keys, exclude, assume_unique=False)
            keys, values = keys[keep], np.ones(int(keep.sum()), dtype=np.float32)
        total[keys] += values  # keys are unique: plain fancy-index addition is exact

    def features(self, pairwise_gain: np.ndarray | None = None) -> np.ndarray:
        """(V(V − 1)/2, len(FEATURE_NAMES)) float32 means per replicate, pairs in
        :func:`pair_index` order; ``pairwise_gain`` (one value per pair) fills the last
        column (zeros when ``None``)."""
        if self.n_graphs == 0:
            raise InputError("no replicate added")
        n = float(self.n_graphs)
        i, j = _all_pairs(self.n_vars)
        out = np.empty((len(i), len(FEATURE_NAMES)), dtype=np.float32)
        out[:, 0], out[:, 1] = self._degree[i] / n, self._degree[j] / n
        out[:, 2], out[:, 3] = self._indegree[i] / n, self._indegree[j] / n
        out[:, 4] = self._common / n
        out[:, 5] = self._vstruct / n
        out[:, 6] = 0.0 if pairwise_gain is None else pairwise_gain
        return out


def _all_pairs(v: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j), i < j, in :func:`pair_index` order (int32, without a search)."""
    per_row = np.arange(v - 1, -1, -1)
    i = np.repeat(np.arange(v, dtype=np.int32), per_row)
    start = np.concatenate([[0], np.cumsum(per_row)[:-1]])
    j = np.arange(len(i), dtype=np.int64) - start[i] + i + 1
    return i, j.astype(np.int32)


def pair_features(replicates: Iterable[tuple[np.ndarray, np.ndarray]], n_vars: int,
                  pairwise_gain: np.ndarray | None = None) -> np.ndarray:
    """:meth:`PairFeatureAccumulator.features` of the replicates ``(keys, labels)``."""
    acc = PairFeatureAccumulator(n_vars)
    for keys, labels in replicates:
        acc.add(keys, labels)
    return acc.features(pairwise_gain)


def pairwise_gain_all(data: DiscreteData, score: Score | str = "bdeu",
                      **_other_search_options) -> np.ndarray:
    """The search's score's gain of A → B over the empty graph for every pair, float32 in
    pair order (the search's options may be passed whole: only ``score`` is used)."""
    i, j, gain = as_score(score).build(data).pairwise_gains(min_gain=-np.inf)
    out = np.zeros(n_pairs(data.n_vars), dtype=np.float32)
    out[pair_index(i, j, data.n_vars)] = gain
    return out


def checkpoint_pair_features(data: DiscreteData, checkpoint, *, n_boot: int, seed: int,
                             search="fges", knowledge=None, **search_options) -> np.ndarray:
    """Pair features of a finished bootstrap, read from its checkpoint folder (the same
    arguments as the :func:`~causalcal.bootstrap.bootstrap_edge_probabilities` call that
    wrote it); no search is run. The pairwise gain is the search's score's."""
    search_options = score_options(search_options)
    options = with_knowledge(data.names, knowledge, search_options)
    acc = PairFeatureAccumulator(data.n_vars)
    feed_replicates(checkpoint, data, acc, n_boot=n_boot, seed=seed, search=search,
                    search_options=options)
    return acc.features(pairwise_gain_all(data, **search_options))
