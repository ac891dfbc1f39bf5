"""A Bayesian network fitted to a data set and its bootstrap (docs/design.md §9.7).

Simulation-informed calibration needs a world like the user's: the same variables,
arities and sample size, a density like the one the search found, and dependencies as
strong as the data's. :func:`fitted_network` builds it in two steps:

* **Structure** (:func:`network_parents`): the ``n_edges`` pairs the bootstrap found
  adjacent most often (default: as many as the bootstrap graphs hold on average,
  Σ P(adjacent)), each oriented the way the replicates oriented it more often, taken in
  order of P(adjacent); an arc that would close a directed cycle, or that the background
  knowledge forbids, is reversed (or left out if that is excluded too). Required arcs
  come first. The result is a DAG, so a simulated world always exists.
* **Parameters** (:func:`dirichlet_cpts`): each CPT row is the posterior mean under a
  BDeu Dirichlet prior of equivalent sample size ``prior`` (``α = prior / (q·r)`` per
  cell, q parent configurations, r states): ``(N_jk + α) / (N_j + r·α)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.graph import PDAG, pdag_to_dag
from causalcal.knowledge import BoundKnowledge, Knowledge, bind_knowledge

from .network import BayesianNetwork

__all__ = ["dirichlet_cpts", "fit_network", "fitted_network", "network_parents"]


def _add_arc(graph: nx.DiGraph, a: int, b: int, knowledge: BoundKnowledge | None) -> bool:
    """Add ``a → b`` unless it closes a cycle or the knowledge forbids it."""
    if knowledge is not None and knowledge.forbids(a, b):
        return False
    if nx.has_path(graph, b, a):
        return False
    graph.add_edge(a, b)
    return True


def network_parents(probabilities: EdgeProbabilities, n_edges: int | None = None,
                    knowledge: Knowledge | BoundKnowledge | None = None) -> list[list[int]]:
    """Parent lists of the DAG described in the module (variable indices, ascending)."""
    P = np.asarray(probabilities.probs, dtype=np.float64)  # the pairs ever adjacent
    p_adj = 1.0 - P[:, 0]
    if n_edges is None:
        n_edges = int(round(p_adj.sum()))
    if isinstance(n_edges, bool) or not 0 <= int(n_edges) <= probabilities.n_pairs:
        raise InputError(f"n_edges must be in 0..{probabilities.n_pairs}, got {n_edges!r}")
    bound = bind_knowledge(knowledge, probabilities.names)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(probabilities.n_vars))
    for a, b in sorted(bound.required) if bound is not None else ():
        _add_arc(graph, a, b, None)
    order = np.argsort(-p_adj, kind="stable")
    order = order[p_adj[order] > 0][: int(n_edges)]
    i, j = probabilities.pairs[order, 0], probabilities.pairs[order, 1]
    for k, a, b in zip(order, i.tolist(), j.tolist()):
        if graph.has_edge(a, b) or graph.has_edge(b, a):
            continue
        first, second = ((a, b), (b, a)) if P[k, 1] >= P[k, 2] else ((b, a), (a, b))
        if not _add_arc(graph, *first, bound):
            _add_arc(graph, *second, bound)
    return [sorted(graph.predecessors(x)) for x in range(probabilities.n_vars)]


def dirichlet_cpts(data: DiscreteData, parents: Sequence[Sequence[int]],
                   prior: float = 1.0) -> list[np.ndarray]:
    """Posterior-mean CPTs of ``data`` for the given parent lists (BDeu prior, see module)."""
    if not (np.isfinite(prior) and prior > 0):
        raise InputError(f"prior (equivalent sample size) must be a positive number, got "
                         f"{prior!r}")
    codes = data.codes.astype(np.int64)
    arities = data.arities
    cpts = []
    for v, pa in enumerate(parents):
        config = np.zeros(data.n_samples, dtype=np.int64)
        q = 1
        for p in sorted(pa):  # the last parent varies fastest (BayesianNetwork's order)
            config = config * arities[p] + codes[:, p]
            q *= int(arities[p])
        r = int(arities[v])
        counts = np.bincount(config * r + codes[:, v], minlength=q * r).reshape(q, r)
        alpha = prior / (q * r)
        cpts.append((counts + alpha) / (counts.sum(axis=1, keepdims=True) + r * alpha))
    return cpts


def fitted_network(data: DiscreteData, probabilities: EdgeProbabilities,
                   n_edges: int | None = None, knowledge: Knowledge | None = None,
                   prior: float = 1.0) -> BayesianNetwork:
    """The network of the module: structure from ``probabilities`` (the bootstrap of
    ``data``), CPTs estimated from ``data``."""
    if probabilities.names != list(data.names):
        raise InputError("the probabilities were computed for other variables than the data's")
    parents = network_parents(probabilities, n_edges, knowledge)
    return BayesianNetwork(data.names, data.arities, parents,
                           dirichlet_cpts(data, parents, prior), data.categories,
                           meta={"generator": "fitted_network", "prior": prior})


def fit_network(data: DiscreteData, graph: PDAG, ess: float = 1.0) -> BayesianNetwork:
    """Parameters for a structure (bnlearn's ``bn.fit`` with ``method="bayes"``): the
    network of ``graph``'s DAG extension (:func:`causalcal.graph.pdag_to_dag`, Dor & Tarsi;
    ``graph`` may be a CPDAG or the averaged network) with the CPTs of
    :func:`dirichlet_cpts` (posterior means under a BDeu prior of equivalent sample size
    ``ess``, split evenly over each node's parent configurations and states), and the
    data's category labels in their order.  ``graph``'s names must be the data's (any
    order); ``meta`` records ``ess``.  A graph with no DAG extension (a directed cycle
    where the replicates disagree) is an ``InputError`` naming the conflict."""
    index = {name: k for k, name in enumerate(data.names)}
    if sorted(graph.names) != sorted(data.names):
        other = sorted(set(graph.names) ^ set(data.names))
        raise InputError("the graph's variables are not the data's (in one, not the other: "
                         f"{', '.join(other[:5])}{' …' if len(other) > 5 else ''})")
    dag = pdag_to_dag(graph)
    at = {name: k for k, name in enumerate(dag.names)}
    parents = [sorted(index[dag.names[p]] for p in dag.parents(at[name]))
               for name in data.names]
    return BayesianNetwork(data.names, data.arities, parents,
                           dirichlet_cpts(data, parents, ess), data.categories,
                           meta={"generator": "fit_network", "ess": float(ess)})
