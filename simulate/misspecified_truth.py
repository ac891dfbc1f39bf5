"""The truth of a misspecified data set relative to its observed variables (issue 39).

A generator of :mod:`causalcal.simulate.misspecified` draws data from a *full* generating
graph (hidden variables, continuous mechanisms, pooled conditions) and keeps only the
observed variables. Its truth (docs/design.md §9.11):

- **observed DAG**: A → B for observed A, B when A causes B not through another observed
  variable — a directed path A ⇝ B of the full graph whose inner nodes are all hidden (the
  latent projection's directed part); a pair joined only by a hidden common cause has no
  arc. It is acyclic because the full graph is.
- **edge types**: the CPDAG of the observed DAG, dense per pair (``EdgeType`` int8).
- **causal relations**: ancestry in the full graph restricted to the observed pairs
  (``CausalType`` int8, dense per pair in :func:`causalcal.pairs.pair_index` order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from causalcal.data import DiscreteData
from causalcal.edges import dense_labels
from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag


@dataclass(frozen=True)
class MisspecifiedData:
    """A data set no discrete BN over its observed variables generated, with its truth."""

    #: the observed variables' data
    data: DiscreteData
    #: the observed DAG (arcs only) over the data's variables, in the data's column order
    dag: PDAG
    #: ``EdgeType`` (int8) of every pair: the observed DAG's CPDAG, row-major pair order
    edge_truth: np.ndarray
    #: ``CausalType`` (int8) of every pair: ancestry in the full generating graph
    causal_truth: np.ndarray
    #: what generated it, in words
    description: str
    #: free-form details (hidden variables, targets, …), JSON-friendly
    details: dict = field(default_factory=dict)
    #: the full generating graph (each node's parents) and the observed nodes' positions
    #: in it, in the data's column order (for the true PAG:
    #: :func:`causalcal.simulate.latent_truth.pag_labels`)
    full_parents: tuple[tuple[int, ...], ...] = ()
    observed: tuple[int, ...] = ()

    @property
    def names(self) -> list[str]:
        """The observed variables' names."""
        return list(self.data.names)


def _children_lists(parents: Sequence[Sequence[int]]) -> list[list[int]]:
    children: list[list[int]] = [[] for _ in parents]
    for v, pa in enumerate(parents):
        for p in pa:
            children[int(p)].append(v)
    return children


def observed_arcs(parents: Sequence[Sequence[int]], observed: Sequence[int]) -> np.ndarray:
    """Arcs (cause, effect) between observed nodes, as positions in ``observed``: A → B
    when the full graph (``parents`` per node) has a directed path A ⇝ B whose inner
    nodes are all hidden (not in ``observed``)."""
    children = _children_lists(parents)
    position = {int(v): k for k, v in enumerate(observed)}
    if len(position) != len(observed):
        raise InputError("an observed node is listed twice")
    arcs = []
    for a in observed:
        stack, seen = list(children[int(a)]), set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in position:
                arcs.append((position[int(a)], position[v]))
            else:
                stack.extend(children[v])
    return np.asarray(sorted(arcs), dtype=np.int64).reshape(-1, 2)


def ancestor_matrix(parents: Sequence[Sequence[int]]) -> np.ndarray:
    """``M[a, b]``: a is an ancestor of b (a directed path a ⇝ b of length ≥ 1)."""
    children = _children_lists(parents)
    n = len(parents)
    out = np.zeros((n, n), dtype=bool)
    for a in range(n):
        stack = list(children[a])
        while stack:
            v = stack.pop()
            if not out[a, v]:
                out[a, v] = True
                stack.extend(children[v])
    return out


def dense_causal(ancestor: np.ndarray) -> np.ndarray:
    """``CausalType`` (int8) of every pair of a V × V ancestor matrix, row-major pair
    order (``causalcal.ancestry.causal_truth``'s convention)."""
    i, j = np.triu_indices(ancestor.shape[0], 1)
    out = np.zeros(len(i), dtype=np.int8)
    out[ancestor[i, j]] = 1
    out[ancestor[j, i]] = 2
    return out


def edge_truth_of(n_vars: int, arcs: np.ndarray) -> np.ndarray:
    """``EdgeType`` (int8) of every pair: the CPDAG of the DAG of ``arcs``."""
    dag = PDAG.from_edges(n_vars, [tuple(map(int, a)) for a in arcs])
    pairs, labels = dag_to_cpdag(dag).pair_labels()
    return dense_labels(pairs, labels, n_vars)


def truth_from_full(data: DiscreteData, parents: Sequence[Sequence[int]],
                    observed: Sequence[int], description: str,
                    details: dict | None = None) -> MisspecifiedData:
    """The :class:`MisspecifiedData` of ``data`` (the ``observed`` nodes' columns, in
    that order) drawn from the full graph of ``parents``."""
    observed = np.asarray(observed, dtype=np.int64)
    if data.n_vars != len(observed):
        raise InputError(f"{data.n_vars} columns for {len(observed)} observed nodes")
    arcs = observed_arcs(parents, observed)
    dag = PDAG.from_edges(len(observed), [tuple(map(int, a)) for a in arcs],
                          names=list(data.names))
    ancestor = ancestor_matrix(parents)[np.ix_(observed, observed)]
    return MisspecifiedData(data, dag, edge_truth_of(len(observed), arcs),
                            dense_causal(ancestor), description, dict(details or {}),
                            tuple(tuple(int(p) for p in pa) for pa in parents),
                            tuple(int(v) for v in observed))


def quantile_codes(x: np.ndarray, n_bins: int = 3) -> np.ndarray:
    """Codes 0 … n_bins−1 of a continuous column cut at its empirical quantiles."""
    edges = np.quantile(x, np.arange(1, n_bins) / n_bins)
    return np.searchsorted(edges, x, side="right").astype(np.int8)
