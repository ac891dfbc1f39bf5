"""Definite and possible ancestors in a CPDAG, and causal probabilities (docs/design.md §3.1).

For a CPDAG G and nodes A ≠ B, A is a *possible* ancestor of B if A is an ancestor of B
in at least one DAG of G's Markov equivalence class, and a *definite* ancestor if in
every one. Both are read off G exactly, without enumerating the class:

possible
    there is a possibly directed path A ⇢ B (every edge ``→`` forwards or ``—``):
    Perković, Kalisch & Maathuis (2017), for CPDAGs Zhang (2006).
definite
    there is a directed path A → ⋯ → B, or A has two non-adjacent undirected neighbours
    U and W with uncovered possibly directed paths A — U ⋯ B and A — W ⋯ B (Zhang 2006;
    Roumpelaki et al. 2016; equivalently, the "critical set" of A for B is not a clique:
    Fang, Zhao, Liu & He 2022). Every DAG of the class orients A → U or A → W (U → A ← W
    would be a v-structure), and an uncovered path is then forced onwards by Meek's rule 1.

Two facts of CPDAGs make this cheap (Andersson, Madigan & Perlman 1997): the chain
components (connected by undirected edges) are chordal, and a node with an arc into one
node of a component has arcs into all of it. So once a path leaves A's component along
an arc, everything possibly reachable from there is reached in every DAG; only inside
A's own component do the uncovered paths matter. All relations of a graph are computed
at once as V × V boolean matrices (V = 5000: 25 MB each); see docs/design.md §3.1.

The graph must be a CPDAG (an output of GES, FGES or :func:`causalcal.graph.dag_to_cpdag`);
for a PDAG oriented further by background knowledge the definite relation is not exact.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag, pdag_to_dag
from causalcal.pairs import pair_index

__all__ = [
    "AncestralCounts",
    "ancestral_bounds_from_edges",
    "ancestral_relations",
    "ancestral_relations_from_edges",
    "pag_ancestral_bounds",
    "causal_truth",
    "raw_causal_probabilities",
]


def _reach_rows(n: int, src: np.ndarray, dst: np.ndarray,
                seed: np.ndarray | None) -> np.ndarray:
    """Rows ``R[x] = seed[x] | OR of R[y] over the nodes y reachable from x`` of the digraph
    ``src → dst`` on ``n`` nodes (``seed=None``: the identity), by dynamic programming over
    its strong components in reverse topological order (a component shares one row)."""
    graph = sp.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    rows = np.zeros((n_comp, n if seed is None else seed.shape[1]), dtype=bool)
    if seed is None:
        rows[label, np.arange(n)] = True
    else:
        size = np.bincount(label, minlength=n_comp)
        single = size[label] == 1
        rows[label[single]] = seed[single]
        for x in np.flatnonzero(~single):
            rows[label[x]] |= seed[x]
    cs, cd = label[src], label[dst]
    keep = cs != cd
    cond = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (cs[keep], cd[keep])),
                         shape=(n_comp, n_comp))
    cond.sum_duplicates()
    kids = np.split(cond.indices, cond.indptr[1:-1])
    indegree = np.bincount(cond.indices, minlength=n_comp)
    queue = deque(np.flatnonzero(indegree == 0).tolist())
    topo = []
    while queue:  # Kahn's order: parents before children
        c = queue.popleft()
        topo.append(c)
        for k in kids[c]:
            indegree[k] -= 1
            if indegree[k] == 0:
                queue.append(k)
    for c in reversed(topo):
        if len(kids[c]):
            rows[c] |= rows[kids[c]].any(axis=0)
    return rows[label]


def _is_adjacent(keys: np.ndarray, a: np.ndarray, b: np.ndarray, n_vars: int) -> np.ndarray:
    """Whether pairs (a, b), a ≠ b, are adjacent, given the sorted pair keys of all edges
    (at least one)."""
    k = pair_index(np.minimum(a, b), np.maximum(a, b), n_vars)
    return keys[np.minimum(np.searchsorted(keys, k), len(keys) - 1)] == k


def _uncovered_arcs(undirected: np.ndarray, keys: np.ndarray, n_vars: int):
    """The arcs (both ways) of the undirected edges and the steps ``(p, c) → (c, n)`` of
    uncovered paths: ``n ≠ p`` and ``n`` not adjacent to ``p``."""
    tail = np.concatenate([undirected[:, 0], undirected[:, 1]])
    head = np.concatenate([undirected[:, 1], undirected[:, 0]])
    by_tail = np.argsort(tail, kind="stable")
    first = np.searchsorted(tail[by_tail], np.arange(n_vars + 1))
    n_next = first[head + 1] - first[head]  # arcs leaving each arc's head
    s = np.repeat(np.arange(len(tail)), n_next)
    offset = np.arange(len(s)) - np.repeat(np.cumsum(n_next) - n_next, n_next)
    t = by_tail[first[head[s]] + offset]
    ok = head[t] != tail[s]
    ok[ok] = ~_is_adjacent(keys, tail[s][ok], head[t][ok], n_vars)
    return tail, head, s[ok], t[ok]


def ancestral_relations_from_edges(n_vars: int, directed: np.ndarray,
                                   undirected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(definite, possible)``: V × V boolean matrices, ``[a, b]`` true when a is a definite
    (possible) ancestor of b in the CPDAG with arcs ``directed`` (rows ``(i, j)``, i → j)
    and edges ``undirected`` (rows ``(i, j)``, i — j). Criteria: module docstring."""
    directed = np.asarray(directed, dtype=np.int64).reshape(-1, 2)
    undirected = np.asarray(undirected, dtype=np.int64).reshape(-1, 2)
    both = np.concatenate([directed, undirected])
    if len(both) and (both.min() < 0 or both.max() >= n_vars or np.any(both[:, 0] == both[:, 1])):
        raise InputError(f"edges must join two different nodes of 0..{n_vars - 1}")
    src = np.concatenate([directed[:, 0], undirected[:, 0], undirected[:, 1]])
    dst = np.concatenate([directed[:, 1], undirected[:, 1], undirected[:, 0]])
    possible = _reach_rows(n_vars, src, dst, None)  # reflexive for now
    definite = possible.copy()  # exact for nodes without undirected edges
    if len(undirected):
        _definite_in_components(n_vars, directed, undirected, possible, definite)
    np.fill_diagonal(possible, False)
    np.fill_diagonal(definite, False)
    return definite, possible


def ancestral_bounds_from_edges(n_vars: int, directed: np.ndarray,
                                undirected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(definite, possible)`` bounds for a CPDAG oriented further by background
    knowledge (a maximally oriented PDAG): ``definite`` only where a is an ancestor of b
    in every DAG of the graph's class, ``possible`` wherever it is in at least one
    (docs/design.md §3.1).

    The DAGs consistent with the graph are members of the Markov equivalence class of any
    of its DAG extensions (same skeleton and v-structures) that keep its arcs. So a
    relation definite in that class (exact, on its CPDAG) or along a directed path of the
    graph is definite in all of them; a relation possible in them needs both a possibly
    directed path of the graph and possibility in the class. Without knowledge's arcs the
    bounds are the exact relations."""
    directed = np.asarray(directed, dtype=np.int64).reshape(-1, 2)
    undirected = np.asarray(undirected, dtype=np.int64).reshape(-1, 2)
    graph = PDAG.from_edges(n_vars, directed=[tuple(e) for e in directed],
                            undirected=[tuple(e) for e in undirected])
    definite, possible = ancestral_relations(dag_to_cpdag(pdag_to_dag(graph)))
    src = np.concatenate([directed[:, 0], undirected[:, 0], undirected[:, 1]])
    dst = np.concatenate([directed[:, 1], undirected[:, 1], undirected[:, 0]])
    possible &= _reach_rows(n_vars, src, dst, None)
    definite |= _reach_rows(n_vars, directed[:, 0], directed[:, 1], None)
    np.fill_diagonal(definite, False)
    return definite, possible


def _definite_in_components(n_vars: int, directed: np.ndarray, undirected: np.ndarray,
                            possible: np.ndarray, definite: np.ndarray) -> None:
    """Fill ``definite`` for the nodes with undirected edges (module docstring): ``leave[k]``
    is what node ``sib[k]`` reaches in every DAG along its own arcs; ``via[s]`` for an arc
    s = (A, U) what the uncovered paths A — U ⋯ reach in every DAG that orients A → U."""
    sib = np.unique(undirected)
    leave = np.zeros((len(sib), n_vars), dtype=bool)
    leave[np.arange(len(sib)), sib] = True
    order = np.argsort(directed[:, 0], kind="stable")
    cut = np.searchsorted(directed[order, 0], np.arange(n_vars + 1))
    for k, x in enumerate(sib):
        children = directed[order[cut[x]:cut[x + 1]], 1]
        if len(children):
            leave[k] |= possible[children].any(axis=0)
    edges = np.concatenate([directed, undirected])
    keys = np.sort(pair_index(edges.min(axis=1), edges.max(axis=1), n_vars))
    tail, head, s, t = _uncovered_arcs(undirected, keys, n_vars)
    via = _reach_rows(len(tail), s, t, leave[np.searchsorted(sib, head)])
    by_tail = np.argsort(tail, kind="stable")
    first = np.searchsorted(tail[by_tail], np.arange(n_vars + 1))
    for k, a in enumerate(sib):
        arcs = by_tail[first[a]:first[a + 1]]
        definite[a] = leave[k]
        if len(arcs) < 2:
            continue
        u, w = np.triu_indices(len(arcs), 1)
        far = ~_is_adjacent(keys, head[arcs[u]], head[arcs[w]], n_vars)
        if far.any():  # b reached via two non-adjacent U, W: rows[:, b]ᵀ·apart·rows[:, b] > 0
            apart = np.zeros((len(arcs), len(arcs)), dtype=np.float32)
            apart[u[far], w[far]] = 1.0
            rows = via[arcs].astype(np.float32)
            definite[a] |= ((apart @ rows) * rows).sum(axis=0) > 0


#: the PAG edge types (causalcal.pairs.PAGEdgeType) of a pair i < j with no arrowhead at
#: i (a possibly directed edge i ⇢ j), at j (j ⇢ i), with a circle at i, at j, and -->, <--
_PAG_OPEN_AT_I, _PAG_OPEN_AT_J = (1, 2, 4), (1, 3, 5)
_PAG_CIRCLE_AT_I, _PAG_CIRCLE_AT_J = (1, 2), (1, 3)


def pag_ancestral_bounds(n_vars: int, pairs: np.ndarray,
                         labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(definite, possible)`` bounds of the ancestral relations of a PAG given as pairs
    ``(i, j)``, i < j, and :class:`~causalcal.pairs.PAGEdgeType` labels (docs/design.md
    §6.1): ``definite[a, b]`` only where a is an ancestor of b in every MAG the PAG
    represents, ``possible[a, b]`` wherever it is in at least one.

    possible: a possibly directed path a ⇢ b (no arrowhead at the near end of any edge;
    Zhang 2006, pcalg's ``possAn``). definite: a directed path a --> ⋯ --> b, or (to a
    fixed point) a node with a circle on its edges to two non-adjacent nodes u, w that
    are both definite ancestors of b (or b itself): a MAG with arrowheads at a on both
    would add the unshielded collider u *-> a <-* w, so it orients a --> u or a --> w.
    The definite bound misses some relations forced along uncovered paths (Roumpelaki et
    al. 2016); both are sound. A searched PAG may be no PAG of any MAG (a directed cycle,
    a possibly directed path against a definite relation): a pair each of whose nodes
    would be a definite ancestor of the other keeps neither as definite, and a is no
    possible ancestor of b where b is a definite one of a."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    labels = np.asarray(labels, dtype=np.int64).reshape(-1)
    i, j = pairs[:, 0], pairs[:, 1]
    fwd, back = np.isin(labels, _PAG_OPEN_AT_I), np.isin(labels, _PAG_OPEN_AT_J)
    possible = _reach_rows(n_vars, np.concatenate([i[fwd], j[back]]),
                           np.concatenate([j[fwd], i[back]]), None)
    arc_src = np.concatenate([i[labels == 4], j[labels == 5]])
    arc_dst = np.concatenate([j[labels == 4], i[labels == 5]])
    definite = _reach_rows(n_vars, arc_src, arc_dst, None)  # reflexive for now
    circled = [[] for _ in range(n_vars)]  # circle at the node on its edge to the other
    for a, b in zip(i[np.isin(labels, _PAG_CIRCLE_AT_I)].tolist(),
                    j[np.isin(labels, _PAG_CIRCLE_AT_I)].tolist()):
        circled[a].append(b)
    for a, b in zip(j[np.isin(labels, _PAG_CIRCLE_AT_J)].tolist(),
                    i[np.isin(labels, _PAG_CIRCLE_AT_J)].tolist()):
        circled[a].append(b)
    adjacent = np.zeros((n_vars, n_vars), dtype=bool)
    adjacent[i, j] = adjacent[j, i] = True
    apart = {a: [(u, w) for k, u in enumerate(nb) for w in nb[k + 1:] if not adjacent[u, w]]
             for a, nb in enumerate(circled) if len(nb) > 1}
    changed = bool(apart)
    while changed:
        seed = definite.copy()
        for a, splits in apart.items():
            for u, w in splits:
                seed[a] |= definite[u] & definite[w]
        changed = not np.array_equal(seed, definite)
        definite = _reach_rows(n_vars, arc_src, arc_dst, seed) if changed else definite
    np.fill_diagonal(definite, False)
    possible |= definite  # already so: a directed path is possibly directed
    # a searched PAG may hold a directed cycle, where both of a pair would be definite
    # ancestors of the other: neither is then definite; and a is no possible ancestor of a
    # definite ancestor of its own (the members are acyclic), so each replicate's
    # relations of a pair stay one distribution (docs/design.md §6.1)
    definite &= ~definite.T
    possible &= ~definite.T
    np.fill_diagonal(possible, False)
    return definite, possible


def ancestral_relations(graph: PDAG) -> tuple[np.ndarray, np.ndarray]:
    """``(definite, possible)`` ancestor matrices of a CPDAG (docs/design.md §3.1):
    ``definite[a, b]`` when a is an ancestor of b in every DAG of its Markov equivalence
    class, ``possible[a, b]`` when in at least one (Perković et al. 2017; Zhang 2006)."""
    return ancestral_relations_from_edges(graph.n_vars, graph.directed_edges(),
                                          graph.undirected_edges())


class AncestralCounts:
    """Per ordered pair (a, b), in how many of ``n_boot`` bootstrap CPDAGs a is a definite
    and a possible ancestor of b (V × V unsigned integer matrices; docs/design.md §6.1)."""

    def __init__(self, definite: np.ndarray, possible: np.ndarray, n_boot: int) -> None:
        definite, possible = np.asarray(definite), np.asarray(possible)
        if definite.shape != possible.shape or definite.ndim != 2 or (
                definite.shape[0] != definite.shape[1]):
            raise InputError(f"definite {definite.shape} and possible {possible.shape} counts "
                             "must be square matrices of one shape")
        if np.any(definite > possible) or np.any(possible > n_boot):
            raise InputError(f"counts must satisfy definite ≤ possible ≤ n_boot ({n_boot})")
        self.definite, self.possible, self.n_boot = definite, possible, int(n_boot)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AncestralCounts):
            return NotImplemented
        return (self.n_boot == other.n_boot and np.array_equal(self.definite, other.definite)
                and np.array_equal(self.possible, other.possible))

    def half_steps(self, where) -> np.ndarray:
        """The raw rule of §6.1 in half-replicates, for the ordered pairs ``where`` selects
        (an ``(i, j)`` tuple of index arrays or a V × V boolean mask): a replicate where a
        is a definite ancestor of b adds 2 (it is also a possible one), one where it is a
        possible ancestor only adds 1; P(a causes b) = half_steps / (2 n_boot)."""
        return self.definite[where].astype(np.int64) + self.possible[where]


def raw_causal_probabilities(counts: AncestralCounts, i: Sequence[int] | np.ndarray,
                             j: Sequence[int] | np.ndarray) -> np.ndarray:
    """Raw three-class probabilities ``(n, 3)`` of the pairs (i, j) in
    :class:`~causalcal.pairs.CausalType` order: neither, i causes j, j causes i
    (docs/design.md §6.1). A replicate where i is a definite ancestor of j counts 1 for
    "i causes j"; one where it is a possible but not a definite ancestor counts ½ (the
    class holds DAGs with and without the relation). "neither" takes the rest."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    v = counts.definite.shape[0]
    if i.shape != j.shape or np.any(i == j) or np.any((i < 0) | (i >= v) | (j < 0) | (j >= v)):
        raise InputError(f"pairs must be two equal-length lists of distinct nodes of 0..{v - 1}")
    if counts.n_boot < 1:
        raise InputError("no replicate counted (n_boot = 0)")
    out = np.empty((len(i), 3))
    out[:, 1] = counts.half_steps((i, j)) / (2 * counts.n_boot)
    out[:, 2] = counts.half_steps((j, i)) / (2 * counts.n_boot)
    out[:, 0] = np.maximum(1.0 - out[:, 1] - out[:, 2], 0.0)  # ≥ 0 up to rounding
    return out


def causal_truth(dag: PDAG) -> np.ndarray:
    """The true :class:`~causalcal.pairs.CausalType` (int8) of every pair of a DAG, in
    row-major pair order: FORWARD where i is an ancestor of j (i < j), BACKWARD where j is
    one of i, else NEITHER."""
    if dag.undirected_edges().size:
        raise InputError("causal truth needs a DAG (no undirected edges)")
    ancestor, _ = ancestral_relations(dag)
    i, j = np.triu_indices(dag.n_vars, 1)
    out = np.zeros(len(i), dtype=np.int8)
    out[ancestor[i, j]] = 1
    out[ancestor[j, i]] = 2
    return out
