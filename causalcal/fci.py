"""FCI's adjacency search, colliders (R0), Possible-D-SEP step and orientation, on any
conditional-independence test (Spirtes, Glymour & Scheines 2000 §6.7; Zhang 2008;
GFCI: Ogarrio, Spirtes & Ramsey 2016; docs/design.md §5.1).

The test is a callable ``independent(x, y, s) -> bool`` over node indices (``s`` a
tuple): a G² test on data (:mod:`causalcal.bootstrap.search.gfci`) or a d-separation
oracle (:mod:`causalcal.simulate.latent_truth`). :func:`fci` starts from any supergraph
of the skeleton — the complete graph (FCI) or FGES's adjacencies (GFCI) — and returns
the PAG. Background knowledge (a :class:`causalcal.knowledge.BoundKnowledge`) keeps
required adjacencies, drops pairs with both arcs excluded, puts an arrowhead at ``a``
on every edge whose arc ``a → b`` is excluded and ``a --> b`` on required arcs and on
edges from a context column to a system variable (JCI1–2, docs/design.md §5.2), and no
rule ever orients against it (Tetrad's FCI with knowledge).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from causalcal.fci_rules import Marks, apply_rules
from causalcal.pag import PAG, Mark

__all__ = ["Sepsets", "adjacency_search", "fci", "orient", "possible_dsep"]

Independence = Callable[[int, int, tuple[int, ...]], bool]
_C, _A, _T = int(Mark.CIRCLE), int(Mark.ARROW), int(Mark.TAIL)


@dataclass
class Sepsets:
    """Separating sets found so far, by unordered pair. A pair that was never separated
    (not adjacent in the start graph) is searched on demand over subsets of either
    node's adjacencies in ``graph`` (for R4), up to ``depth`` nodes."""

    independent: Independence
    depth: int | None = None
    found: dict[frozenset, tuple[int, ...]] = field(default_factory=dict)
    graph: PAG | None = None

    def record(self, x: int, y: int, s: tuple[int, ...]) -> None:
        self.found[frozenset((x, y))] = tuple(sorted(s))

    def known(self, x: int, y: int) -> tuple[int, ...] | None:
        return self.found.get(frozenset((x, y)))

    def __call__(self, x: int, y: int) -> tuple[int, ...] | None:
        key = frozenset((x, y))
        if key not in self.found and self.graph is not None:
            for z, other in ((x, y), (y, x)):
                near = [v for v in self.graph.adjacencies(z) if v != other]
                s = _separating(self.independent, z, other, near, self.depth)
                if s is not None:
                    self.found[key] = tuple(sorted(s))
                    break
            else:
                self.found[key] = None
        return self.found[key]


def _separating(independent: Independence, x: int, y: int, among: list[int],
                depth: int | None, size: int | None = None) -> tuple[int, ...] | None:
    """The first subset of ``among`` (by size, then index order) that separates x and y;
    ``size``: only subsets of that size."""
    sizes = [size] if size is not None else range(len(among) + 1)
    for k in sizes:
        if depth is not None and k > depth:
            break
        for s in combinations(among, k):
            if independent(x, y, s):
                return s
    return None


def _keeps(knowledge, x: int, y: int) -> bool:
    return knowledge is not None and knowledge.requires_adjacent(x, y)


def adjacency_search(g: PAG, sepsets: Sepsets, knowledge=None) -> None:
    """PC-stable's adjacency phase from ``g``'s edges (in place): at level ℓ = 0, 1, …
    remove x — y when some ℓ-subset of x's adjacencies (fixed at the level's start)
    separates them; record the set."""
    level = 0
    while True:
        adj = [g.adjacencies(v) for v in range(g.n_vars)]
        if all(len(a) - 1 < level for a in adj) or (
                sepsets.depth is not None and level > sepsets.depth):
            return
        for x in range(g.n_vars):
            for y in adj[x]:
                if not g.adjacent(x, y) or _keeps(knowledge, x, y):
                    continue
                near = [v for v in adj[x] if v != y]
                if len(near) < level:
                    continue
                s = _separating(sepsets.independent, x, y, near, None, size=level)
                if s is not None:
                    g.remove_edge(x, y)
                    sepsets.record(x, y, s)
        level += 1


def orient_colliders(g: PAG, sepsets: Sepsets, knowledge=None,
                     reference: Callable[[int, int, int], bool] | None = None) -> None:
    """R0 on ``g`` (all marks circles, in place): an unshielded a *-* b *-* c is a
    collider when a separating set of a and c lacks b — the set found, or for a pair
    never separated one searched on demand (once ``sepsets.graph`` is set) — and, where
    no set is known, when ``reference(a, b, c)`` says so (GFCI: a → b ← c in FGES's
    CPDAG)."""
    k = Marks(g, knowledge)
    arrows = []
    for b in range(g.n_vars):
        for a, c in combinations(g.adjacencies(b), 2):
            if g.adjacent(a, c):
                continue
            s = sepsets.known(a, c)
            if s is None and sepsets.graph is not None:
                s = sepsets(a, c)
            if (b not in s) if s is not None else (reference is not None and reference(a, b, c)):
                if k.allowed(a, b, _A) and k.allowed(c, b, _A):
                    arrows += [(a, b), (c, b)]
    for a, b in arrows:
        k.orient(a, b, _A)


def possible_dsep(g: PAG, x: int) -> list[int]:
    """Possible-D-SEP(x): nodes v with a path x … v on which every inner node t of a
    subpath <s, t, u> is a collider or s, t, u form a triangle (Spirtes et al. 2000
    §6.7). Searched over edges, as pcalg's ``qreach``: walks count too, so the set can
    be larger than the paths' (more candidate sets, never a wrong removal)."""
    m = g.marks
    seen_edges = {(x, int(v)) for v in g.adjacencies(x)}
    queue = list(seen_edges)
    reached = {v for _, v in queue}
    while queue:
        s, t = queue.pop()
        for u in g.adjacencies(t):
            if u == s or (t, u) in seen_edges:
                continue
            if (m[s, t] == _A and m[u, t] == _A) or m[s, u]:
                seen_edges.add((t, int(u)))
                queue.append((t, int(u)))
                reached.add(int(u))
    reached.discard(x)
    return sorted(reached)


def possible_dsep_step(g: PAG, sepsets: Sepsets, knowledge=None,
                       max_size: int | None = None) -> bool:
    """Remove x — y when a subset of Possible-D-SEP(x) or of Possible-D-SEP(y) (computed
    on the collider-oriented graph before any removal; at most ``max_size`` nodes, and at
    most the sepsets' depth) separates them; whether any edge went."""
    depths = [d for d in (sepsets.depth, max_size) if d is not None]
    depth = min(depths) if depths else None
    pds = [possible_dsep(g, v) for v in range(g.n_vars)]
    removed = False
    for x, y in zip(*np.nonzero(np.triu(g.marks))):
        x, y = int(x), int(y)
        if _keeps(knowledge, x, y):
            continue
        for z, other in ((x, y), (y, x)):
            near = [v for v in pds[z] if v != other]
            s = _separating(sepsets.independent, z, other, near, depth)
            if s is not None:
                g.remove_edge(x, y)
                sepsets.record(x, y, s)
                removed = True
                break
    return removed


def _knowledge_marks(g: PAG, knowledge) -> None:
    """Arrowheads and tails the knowledge fixes (before R0)."""
    if knowledge is None:
        return
    for a, b in zip(*np.nonzero(g.marks)):
        a, b = int(a), int(b)
        if knowledge.forbids(a, b):
            g.marks[b, a] = _A  # a is no ancestor of b: an arrowhead at a
        if (a, b) in knowledge.required or knowledge.context_arc(a, b):
            g.marks[b, a], g.marks[a, b] = _T, _A


def _start(start: PAG | np.ndarray, names, knowledge) -> PAG:
    skeleton = start.skeleton() if isinstance(start, PAG) else np.asarray(start, dtype=bool)
    n = skeleton.shape[0]
    g = PAG(n, names if names is not None else getattr(start, "names", None))
    g.marks[skeleton | skeleton.T] = _C
    np.fill_diagonal(g.marks, 0)
    if knowledge is not None:
        for a, b in zip(*np.nonzero(np.triu(g.marks))):
            if knowledge.forbids(int(a), int(b)) and knowledge.forbids(int(b), int(a)):
                g.remove_edge(int(a), int(b))
        for a, b in knowledge.required:
            g.marks[a, b] = g.marks[b, a] = _C
    return g


def orient(g: PAG, sepsets: Sepsets, knowledge=None,
           reference: Callable[[int, int, int], bool] | None = None) -> PAG:
    """The marks of ``g``'s skeleton (in place; returns ``g``): the knowledge's marks,
    colliders (R0), then R1–R4 and R8–R10 with ``sepsets`` serving R4."""
    g.marks[g.marks != 0] = _C
    _knowledge_marks(g, knowledge)
    sepsets.graph = g
    orient_colliders(g, sepsets, knowledge, reference)
    return apply_rules(g, sepsets, knowledge)


def fci(start: PAG | np.ndarray, independent: Independence, *, names: Iterable[str] | None = None,
        knowledge=None, reference: Callable[[int, int, int], bool] | None = None,
        depth: int | None = None, pds_step: bool = True, pds_depth: int | None = None) -> PAG:
    """FCI from the adjacencies of ``start`` (a boolean V × V matrix or a PAG; the
    complete graph gives FCI itself): adjacency search, colliders, Possible-D-SEP step
    (``pds_step``), then :func:`orient` on the final skeleton. ``reference(a, b, c)``
    adds GFCI's colliders from FGES's graph; ``depth`` bounds the size of conditioning
    sets, ``pds_depth`` those of the Possible-D-SEP step (its cost grows as 2^|PDS|)."""
    g = _start(start, None if names is None else list(names), knowledge)
    sepsets = Sepsets(independent, depth)
    adjacency_search(g, sepsets, knowledge)
    if pds_step:
        _knowledge_marks(g, knowledge)
        orient_colliders(g, sepsets, knowledge, reference)
        possible_dsep_step(g, sepsets, knowledge, pds_depth)
    return orient(g, sepsets, knowledge, reference)
