"""PDAGs: CPDAGs, Meek's rules, DAG → CPDAG, pair labels (docs/design.md §3).

A :class:`PDAG` keeps three adjacency sets per node (parents, children, undirected
neighbours), so memory grows with V + E, never V². Conventions follow causal-learn
and Tetrad: in the V × V matrix form ``M[i, j] = 1, M[j, i] = 0`` means ``i → j`` and
``M[i, j] = M[j, i] = 1`` means ``i — j``. Conversions to and from causal-learn, networkx
and pgmpy graphs are functions of :mod:`causalcal.graph_io`.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np

from causalcal._validation import check_unique_names
from causalcal.errors import InputError
from causalcal.pairs import EdgeType

__all__ = [
    "PDAG",
    "apply_meek_rules",
    "dag_to_cpdag",
    "pdag_to_dag",
    "structural_hamming_distance",
]


class PDAG:
    """A graph over ``n_vars`` nodes with directed and undirected edges.

    Nodes are integers ``0 … n_vars − 1``; ``names`` label them.
    """

    def __init__(self, n_vars: int, names: Sequence[str] | None = None) -> None:
        if n_vars < 0:
            raise InputError("n_vars must be non-negative")
        self.names = [f"X{k}" for k in range(n_vars)] if names is None else list(map(str, names))
        if len(self.names) != n_vars:
            raise InputError(f"{len(self.names)} names for {n_vars} nodes")
        check_unique_names(self.names, "node name")  # a networkx graph would merge such nodes
        self._parents: list[set[int]] = [set() for _ in range(n_vars)]
        self._children: list[set[int]] = [set() for _ in range(n_vars)]
        self._neighbors: list[set[int]] = [set() for _ in range(n_vars)]

    # ----------------------------------------------------------- builders
    @classmethod
    def from_edges(
        cls,
        n_vars: int,
        directed: Iterable[tuple[int, int]] = (),
        undirected: Iterable[tuple[int, int]] = (),
        names: Sequence[str] | None = None,
    ) -> PDAG:
        """A graph with the given directed ``(i, j)`` (i → j) and undirected edges."""
        g = cls(n_vars, names)
        for i, j in directed:
            g.add_directed(int(i), int(j))
        for i, j in undirected:
            g.add_undirected(int(i), int(j))
        return g

    @classmethod
    def from_matrix(cls, matrix: np.ndarray, names: Sequence[str] | None = None) -> PDAG:
        """Read the V × V matrix form (see module docstring)."""
        m = np.asarray(matrix)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise InputError(f"adjacency matrix must be square, got shape {m.shape}")
        if np.any(np.diag(m) != 0):
            raise InputError("adjacency matrix has a self-loop on the diagonal")
        bad = (m != 0) & (m != 1)
        if np.any(bad):
            i, j = np.argwhere(bad)[0]
            raise InputError(
                f"adjacency matrix entry [{i}, {j}] = {m[i, j].item()!r}: entries must be 0 or 1 "
                "(causal-learn's -1/1 endpoint encoding is not this form)"
            )
        m = m != 0
        both = m & m.T
        one = m & ~m.T
        directed = np.argwhere(one)
        undirected = np.argwhere(np.triu(both, 1))
        return cls.from_edges(m.shape[0], directed, undirected, names)

    def copy(self) -> PDAG:
        g = PDAG(self.n_vars, self.names)
        g._parents = [set(s) for s in self._parents]
        g._children = [set(s) for s in self._children]
        g._neighbors = [set(s) for s in self._neighbors]
        return g

    # ------------------------------------------------------------ queries
    @property
    def n_vars(self) -> int:
        return len(self._parents)

    @property
    def n_edges(self) -> int:
        return self.n_directed + self.n_undirected

    @property
    def n_directed(self) -> int:
        return sum(len(c) for c in self._children)

    @property
    def n_undirected(self) -> int:
        return sum(len(n) for n in self._neighbors) // 2

    def parents(self, v: int) -> set[int]:
        """Nodes ``u`` with ``u → v`` (a live view; do not modify)."""
        return self._parents[v]

    def children(self, v: int) -> set[int]:
        """Nodes ``u`` with ``v → u`` (a live view; do not modify)."""
        return self._children[v]

    def neighbors(self, v: int) -> set[int]:
        """Nodes ``u`` with ``v — u`` (a live view; do not modify)."""
        return self._neighbors[v]

    def adjacent(self, v: int) -> set[int]:
        """All nodes joined to ``v`` by any edge (a new set)."""
        return self._parents[v] | self._children[v] | self._neighbors[v]

    def is_adjacent(self, i: int, j: int) -> bool:
        return j in self._parents[i] or j in self._children[i] or j in self._neighbors[i]

    def has_directed(self, i: int, j: int) -> bool:
        """True if ``i → j``."""
        return j in self._children[i]

    def has_undirected(self, i: int, j: int) -> bool:
        return j in self._neighbors[i]

    def edge_type(self, i: int, j: int) -> EdgeType:
        """The :class:`EdgeType` of the pair read as (i, j): FORWARD means ``i → j``."""
        if j in self._children[i]:
            return EdgeType.FORWARD
        if j in self._parents[i]:
            return EdgeType.BACKWARD
        if j in self._neighbors[i]:
            return EdgeType.UNDIRECTED
        return EdgeType.NONE

    def directed_edges(self) -> np.ndarray:
        """Array (m, 2) of directed edges ``(i, j)`` meaning ``i → j``, sorted."""
        rows = [(i, j) for i, ch in enumerate(self._children) for j in ch]
        return np.array(sorted(rows), dtype=np.int64).reshape(-1, 2)

    def undirected_edges(self) -> np.ndarray:
        """Array (m, 2) of undirected edges ``(i, j)`` with ``i < j``, sorted."""
        rows = [(i, j) for i, nb in enumerate(self._neighbors) for j in nb if i < j]
        return np.array(sorted(rows), dtype=np.int64).reshape(-1, 2)

    def pair_labels(self) -> tuple[np.ndarray, np.ndarray]:
        """Edge types of all adjacent pairs: ``(pairs (m, 2) with i < j, labels (m,))``.

        Pairs not listed are :attr:`EdgeType.NONE`.
        """
        d = self.directed_edges()
        u = self.undirected_edges()
        lo = np.minimum(d[:, 0], d[:, 1])
        hi = np.maximum(d[:, 0], d[:, 1])
        labels_d = np.where(d[:, 0] < d[:, 1], EdgeType.FORWARD, EdgeType.BACKWARD)
        pairs = np.concatenate([np.column_stack([lo, hi]), u]).astype(np.int64)
        labels = np.concatenate([labels_d, np.full(len(u), EdgeType.UNDIRECTED)]).astype(np.int8)
        order = np.lexsort((pairs[:, 1], pairs[:, 0]))
        return pairs[order], labels[order]

    def is_dag(self) -> bool:
        """True if every edge is directed and there is no directed cycle."""
        return self.n_undirected == 0 and self.topological_order() is not None

    def topological_order(self) -> list[int] | None:
        """A topological order of the directed part, or ``None`` if it has a cycle."""
        indeg = [len(p) for p in self._parents]
        queue = deque(v for v in range(self.n_vars) if indeg[v] == 0)
        order = []
        while queue:
            v = queue.popleft()
            order.append(v)
            for c in self._children[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    queue.append(c)
        return order if len(order) == self.n_vars else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PDAG):
            return NotImplemented
        return (
            self.n_vars == other.n_vars
            and self._children == other._children
            and self._neighbors == other._neighbors
        )

    def __repr__(self) -> str:
        return (
            f"PDAG(n_vars={self.n_vars}, directed={self.n_directed}, "
            f"undirected={self.n_undirected})"
        )

    # ------------------------------------------------------------ editing
    def _check_pair(self, i: int, j: int) -> None:
        if i == j:
            raise InputError(f"self-loop on node {i}")
        if not (0 <= i < self.n_vars and 0 <= j < self.n_vars):
            raise InputError(f"edge ({i}, {j}) outside 0..{self.n_vars - 1}")

    def add_directed(self, i: int, j: int) -> None:
        """Add ``i → j``; the pair must not already be adjacent."""
        self._check_pair(i, j)
        if self.is_adjacent(i, j):
            raise InputError(f"nodes {i} and {j} are already adjacent")
        self._children[i].add(j)
        self._parents[j].add(i)

    def add_undirected(self, i: int, j: int) -> None:
        """Add ``i — j``; the pair must not already be adjacent."""
        self._check_pair(i, j)
        if self.is_adjacent(i, j):
            raise InputError(f"nodes {i} and {j} are already adjacent")
        self._neighbors[i].add(j)
        self._neighbors[j].add(i)

    def remove_edge(self, i: int, j: int) -> None:
        """Remove whatever edge joins ``i`` and ``j`` (no error if none)."""
        self._children[i].discard(j)
        self._parents[j].discard(i)
        self._children[j].discard(i)
        self._parents[i].discard(j)
        self._neighbors[i].discard(j)
        self._neighbors[j].discard(i)

    def orient(self, i: int, j: int) -> None:
        """Turn the undirected edge ``i — j`` into ``i → j``."""
        if j not in self._neighbors[i]:
            raise InputError(f"no undirected edge {i} — {j} to orient")
        self._neighbors[i].discard(j)
        self._neighbors[j].discard(i)
        self._children[i].add(j)
        self._parents[j].add(i)

    def undirect(self, i: int, j: int) -> None:
        """Turn a directed edge between ``i`` and ``j`` (either way) into ``i — j``."""
        if not (self.has_directed(i, j) or self.has_directed(j, i)):
            raise InputError(f"no directed edge between {i} and {j}")
        self.remove_edge(i, j)
        self.add_undirected(i, j)

    def assign(self, other: PDAG) -> None:
        """Make this graph's edges those of ``other`` (same nodes), in place."""
        if other.n_vars != self.n_vars:
            raise InputError(f"cannot assign a graph over {other.n_vars} nodes to {self.n_vars}")
        self._parents = [set(s) for s in other._parents]
        self._children = [set(s) for s in other._children]
        self._neighbors = [set(s) for s in other._neighbors]

    # ------------------------------------------------------- conversions
    def to_matrix(self, dtype: type = np.int8) -> np.ndarray:
        """The V × V matrix form (dense: V² entries)."""
        m = np.zeros((self.n_vars, self.n_vars), dtype=dtype)
        d = self.directed_edges()
        u = self.undirected_edges()
        m[d[:, 0], d[:, 1]] = 1
        m[u[:, 0], u[:, 1]] = 1
        m[u[:, 1], u[:, 0]] = 1
        return m


# ---------------------------------------------------------------- Meek's rules
def _undirected_around(g: PDAG, nodes: Iterable[int]) -> Iterable[tuple[int, int]]:
    for v in nodes:
        for w in g.neighbors(v):
            yield (v, w)


def _meek_orientation(g: PDAG, a: int, b: int) -> bool:
    """True if one of Meek's rules R1–R4 orients the undirected edge ``a — b`` as ``a → b``."""
    # R1: c → a, c not adjacent to b.
    for c in g.parents(a):
        if not g.is_adjacent(c, b):
            return True
    # R2: a → c → b.
    if g.children(a) & g.parents(b):
        return True
    nb_a = g.neighbors(a)
    # R3: a — c → b, a — d → b, c and d not adjacent.
    cands = [c for c in g.parents(b) if c in nb_a]
    for x in range(len(cands)):
        for y in range(x + 1, len(cands)):
            if not g.is_adjacent(cands[x], cands[y]):
                return True
    # R4: a — d → c → b, a adjacent to c, d not adjacent to b.
    for c in g.parents(b):
        if not g.is_adjacent(a, c):
            continue
        for d in g.parents(c):
            if d in nb_a and not g.is_adjacent(d, b):
                return True
    return False


def _orientation(g: PDAG, a: int, b: int, knowledge) -> bool | None:
    """``True``: orient ``a → b``; ``False``: ``b → a``; ``None``: leave ``a — b``.

    With ``knowledge`` (a :class:`causalcal.knowledge.BoundKnowledge`) an edge the
    knowledge compels is oriented so, and a rule never orients against it (Meek 1995,
    background knowledge)."""
    if knowledge is None:
        if _meek_orientation(g, a, b):
            return True
        return False if _meek_orientation(g, b, a) else None
    if knowledge.compels(a, b):
        return True
    if knowledge.compels(b, a):
        return False
    if not knowledge.forbids(a, b) and _meek_orientation(g, a, b):
        return True
    if not knowledge.forbids(b, a) and _meek_orientation(g, b, a):
        return False
    return None


def apply_meek_rules(g: PDAG, start: Iterable[int] | None = None, knowledge=None) -> PDAG:
    """Orient undirected edges of ``g`` in place by Meek's rules R1–R4 until none applies.

    ``start`` limits the first sweep to undirected edges touching those nodes
    (an orientation then re-queues the edges around it); by default every
    undirected edge is checked. ``knowledge`` (a bound
    :class:`~causalcal.knowledge.Knowledge`) orients the edges it compels and keeps the
    rules from orienting against it. Returns ``g``.
    """
    nodes = range(g.n_vars) if start is None else start
    queue = deque(_undirected_around(g, nodes))
    queued = set(queue)
    while queue:
        a, b = queue.popleft()
        queued.discard((a, b))
        if not g.has_undirected(a, b):
            continue
        way = _orientation(g, a, b, knowledge)
        if way is None:
            continue
        if way:
            g.orient(a, b)
        else:
            g.orient(b, a)
            a, b = b, a
        # New arrow a → b: re-check undirected edges within two steps of it.
        touched = {a, b} | g.adjacent(a) | g.adjacent(b)
        for edge in _undirected_around(g, touched):
            if edge not in queued:
                queued.add(edge)
                queue.append(edge)
    return g


def dag_to_cpdag(dag: PDAG, knowledge=None) -> PDAG:
    """The CPDAG (essential graph) of a DAG: keep v-structures, then Meek's rules.

    Meek (1995) shows R1–R3 applied to the pattern of a DAG give its CPDAG; with
    ``knowledge`` (bound, and agreeing with the DAG) the result is the maximally oriented
    graph of the class members that agree with it (R1–R4 after the knowledge's arcs).
    """
    if not dag.is_dag():
        raise InputError("dag_to_cpdag needs a DAG (all edges directed, no cycle)")
    n = dag.n_vars
    compelled: set[tuple[int, int]] = set()
    for y in range(n):
        pa = sorted(dag.parents(y))
        for x in range(len(pa)):
            for z in range(x + 1, len(pa)):
                if not dag.is_adjacent(pa[x], pa[z]):
                    compelled.add((pa[x], y))
                    compelled.add((pa[z], y))
    directed = dag.directed_edges()
    cp = PDAG(n, dag.names)
    for i, j in directed:
        if (i, j) in compelled:
            cp.add_directed(int(i), int(j))
        else:
            cp.add_undirected(int(i), int(j))
    return apply_meek_rules(cp, knowledge=knowledge)


def pdag_to_dag(pdag: PDAG) -> PDAG:
    """A consistent DAG extension of a PDAG (Dor & Tarsi 1992).

    Repeatedly removes a node ``x`` that is a sink among the remaining nodes and whose
    undirected neighbours are adjacent to every other node adjacent to ``x``, orienting
    its undirected edges into ``x``. The smallest such node is taken each time, so the
    result is deterministic. Only nodes adjacent to a removed node can change status, so
    a heap of candidates keeps the work near O(V log V + Σ deg²).
    Raises ``InputError`` if the PDAG admits none, naming the edges that conflict
    (:func:`_extension_conflict`).
    """
    work = pdag.copy()
    out = PDAG(pdag.n_vars, pdag.names)
    for i, j in pdag.directed_edges():
        out.add_directed(int(i), int(j))

    def removable(x: int) -> bool:
        if work.children(x):
            return False  # x must be a sink
        adj = work.adjacent(x)
        return all(adj - {y} <= work.adjacent(y) for y in work.neighbors(x))

    # Invariant: every removable node is in the heap (a node leaves it only when found
    # not removable, and it is pushed again when a neighbour of it is removed).
    heap = list(range(pdag.n_vars))
    in_heap = [True] * pdag.n_vars
    remaining = pdag.n_vars
    while remaining:
        found = None
        while heap:
            x = heapq.heappop(heap)
            in_heap[x] = False
            if removable(x):
                found = x
                break
        if found is None:
            raise InputError("the PDAG has no consistent DAG extension: "
                             + _extension_conflict(work))
        for y in list(work.neighbors(found)):
            out.add_directed(y, found)
        for y in list(work.adjacent(found)):
            work.remove_edge(found, y)
            if not in_heap[y]:
                in_heap[y] = True
                heapq.heappush(heap, y)
        remaining -= 1
    return out


def _extension_conflict(work: PDAG, most: int = 12) -> str:
    """Why the edges left in ``work`` (no node removable) admit no DAG: a directed cycle,
    or at the first sink an undirected edge whose orientation would make a new
    v-structure; then the edges left (at most ``most``)."""
    names = work.names
    sinks = [x for x in range(work.n_vars) if work.adjacent(x) and not work.children(x)]
    if not sinks:  # every node left has a child: following children closes a cycle
        path, seen = [], {}
        x = next(x for x in range(work.n_vars) if work.children(x))
        while x not in seen:
            seen[x] = len(path)
            path.append(x)
            x = min(work.children(x))
        why = "directed cycle " + " -> ".join(names[v] for v in path[seen[x]:] + [x])
    else:
        x = sinks[0]
        y = min(y for y in work.neighbors(x) if not work.adjacent(x) - {y} <= work.adjacent(y))
        z = min(work.adjacent(x) - {y} - work.adjacent(y))
        why = (f"{names[y]} -- {names[x]} {'<-' if work.has_directed(z, x) else '--'} "
               f"{names[z]} with {names[y]}, {names[z]} not adjacent: a new v-structure "
               f"at {names[x]} or an arc out of it")
    left = ([f"{names[i]} -> {names[j]}" for i, j in work.directed_edges().tolist()]
            + [f"{names[i]} -- {names[j]}" for i, j in work.undirected_edges().tolist()])
    more = f", … ({len(left)} in all)" if len(left) > most else ""
    return f"{why}; the edges in conflict: {', '.join(left[:most])}{more}"


def structural_hamming_distance(a: PDAG, b: PDAG) -> int:
    """Number of node pairs whose edge type differs between ``a`` and ``b``."""
    if a.n_vars != b.n_vars:
        raise InputError("graphs have different numbers of nodes")
    pa, la = a.pair_labels()
    pb, lb = b.pair_labels()
    da = {(int(i), int(j)): int(t) for (i, j), t in zip(pa, la)}
    db = {(int(i), int(j)): int(t) for (i, j), t in zip(pb, lb)}
    return sum(da.get(k, 0) != db.get(k, 0) for k in set(da) | set(db))
