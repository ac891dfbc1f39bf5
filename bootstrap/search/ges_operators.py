"""Chickering's GES operators on a CPDAG and its local re-completion (thesis §6.2.2).

Chickering (2002), "Optimal structure identification with greedy search":

* Insert(X, Y, T) adds ``X → Y`` and orients ``T — Y`` as ``T → Y``; it is valid iff
  ``NaYX ∪ T`` is a clique and every semi-directed path ``Y ⇝ X`` meets ``NaYX ∪ T``
  (Theorem 15), and changes the score by
  ``s(Y | NaYX ∪ T ∪ Pa_Y ∪ {X}) − s(Y | NaYX ∪ T ∪ Pa_Y)``.
* Delete(X, Y, H) removes the edge and orients ``Y — h`` / ``X — h`` into ``h`` for
  ``h ∈ H``; it is valid iff ``NaYX \\ H`` is a clique (Theorem 17), and changes the
  score by ``s(Y | NaYX \\ H ∪ Pa_Y \\ {X}) − s(Y | NaYX \\ H ∪ Pa_Y ∪ {X})``.

After an operator only edges into ``Y`` and nodes semi-directed reachable from ``Y`` can
change status (a compelled label depends only on the ancestors of its head, Chickering
1995), so those edges are reset to the pattern (v-structures kept) and Meek's rules are
re-applied from there.  In a forward phase a directed edge never turns around (the new
class contains a DAG extending an old member), so only undirected edges that become
directed can block a semi-directed path: :attr:`GESState.oriented` lists them after each
Insert, for re-checking arrows that failed the path test.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from causalcal.errors import InputError
from causalcal.graph import PDAG, apply_meek_rules, dag_to_cpdag, pdag_to_dag

log = logging.getLogger(__name__)
__all__ = ["MIN_GAIN", "GESState", "candidate_limit", "cliques_within", "is_clique"]

MIN_GAIN = 1e-10  # an operator's bump (a score gain) must exceed this to count

CANDIDATE_PAIRS = 1_000_000  # "auto": V × max_candidates stays within this


def candidate_limit(n_vars: int, max_candidates: int | str | None = "auto") -> int | None:
    """The number of candidate parents per node (``None``: all of them) for an option value."""
    if max_candidates == "auto":
        max_candidates = max(1, math.ceil(CANDIDATE_PAIRS / max(n_vars, 1)))
    elif max_candidates is not None and (
        isinstance(max_candidates, bool)
        or not isinstance(max_candidates, (int, np.integer))
        or max_candidates < 1
    ):
        raise InputError(
            f"max_candidates must be a positive integer, 'auto' or None, got {max_candidates!r}"
        )
    if max_candidates is None or max_candidates >= n_vars - 1:
        return None
    return int(max_candidates)


def cliques_within(g: PDAG, base: frozenset[int], cands: list[int]) -> list[tuple[int, ...]]:
    """All subsets S of ``cands`` (sorted tuples) with ``base ∪ S`` a clique of ``g``.

    ``base`` is assumed to be a clique already.
    """
    if not cands:
        return [()]
    adj = [g.adjacent(c) for c in cands]
    ok = [k for k, a in enumerate(adj) if base <= a]
    out: list[tuple[int, ...]] = [()]

    def extend(prefix: list[int], start: int) -> None:
        for pos in range(start, len(ok)):
            k = ok[pos]
            if all(cands[k] in adj[m] for m in prefix):
                prefix.append(k)
                out.append(tuple(cands[m] for m in prefix))
                extend(prefix, pos + 1)
                prefix.pop()

    extend([], 0)
    return out


def is_clique(g: PDAG, nodes: Sequence[int]) -> bool:
    for i in range(len(nodes)):
        adj = g.adjacent(nodes[i])
        for j in range(i + 1, len(nodes)):
            if nodes[j] not in adj:
                return False
    return True


def _join(fwd: dict, bwd: dict, meet: int) -> list[int]:
    head = [meet]
    while fwd[head[-1]] is not None:
        head.append(fwd[head[-1]])
    tail = []
    node = bwd[meet]
    while node is not None:
        tail.append(node)
        node = bwd[node]
    return head[::-1] + tail


class _Recorder:
    """A PDAG seen through a proxy that records the edges :meth:`orient` directs."""

    def __init__(self, g: PDAG) -> None:
        self.g = g
        self.oriented: list[tuple[int, int]] = []

    def __getattr__(self, name: str):
        return getattr(self.g, name)

    def orient(self, i: int, j: int) -> None:
        self.g.orient(i, j)
        self.oriented.append((i, j))


class GESState:
    """A CPDAG with Chickering's operators; ``check_cpdag`` makes every re-completion
    compare itself with a global rebuild (a debugging aid used by the tests)."""

    def __init__(self, n_vars: int, names: Sequence[str]) -> None:
        self.graph = PDAG(n_vars, names)
        self.knowledge = None  # a BoundKnowledge: its arcs stay oriented in completions
        self.check_cpdag = False
        self.oriented: list[tuple[int, int]] = []

    def log_step(self, kind: str, x: int, y: int, s: Sequence[int], bump: float) -> None:
        """With ``verbose``: log an Insert(x, y, T) or Delete(x, y, H) at level INFO."""
        if getattr(self, "verbose", False):
            n = self.graph.names
            log.info("%s %s -> %s %s %.4f", kind, n[x], n[y], [n[k] for k in s], bump)

    def semidirected_path(self, start: int, goal: int, cond: set[int]) -> list[int] | None:
        """A semi-directed path ``start ⇝ goal`` (steps ``t → c`` or ``t — c``) avoiding
        ``cond``, or ``None``; searched from both ends, expanding the smaller frontier."""
        g = self.graph
        if start == goal:
            return [start]
        fwd: dict[int, int | None] = {start: None}
        bwd: dict[int, int | None] = {goal: None}
        ff, bf = [start], [goal]
        while ff and bf:
            forward = len(ff) <= len(bf)
            seen, other = (fwd, bwd) if forward else (bwd, fwd)
            nxt = []
            for t in ff if forward else bf:
                ahead = g.children(t) if forward else g.parents(t)
                for group in (ahead, g.neighbors(t)):
                    for c in group:
                        if c in seen or c in cond:
                            continue
                        seen[c] = t
                        if c in other:
                            return _join(fwd, bwd, c)
                        nxt.append(c)
            if forward:
                ff = nxt
            else:
                bf = nxt
        return None

    def _snapshot(self, nodes) -> dict[int, tuple[frozenset, frozenset]]:
        g = self.graph
        return {u: (frozenset(g.parents(u)), frozenset(g.neighbors(u))) for u in nodes}

    def _revert_into(self, b: int) -> list[int]:
        """Make the edges into ``b`` that are in no unshielded collider (and that the
        knowledge does not compel) undirected."""
        g = self.graph
        pa = sorted(g.parents(b))
        kn = self.knowledge
        keep = set() if kn is None else {a for a in pa if kn.compels(a, b)}
        for i in range(len(pa)):
            adj_i = g.adjacent(pa[i])
            for j in range(i + 1, len(pa)):
                if pa[j] not in adj_i:
                    keep.update((pa[i], pa[j]))
        undone = [a for a in pa if a not in keep]
        for a in undone:
            g.undirect(a, b)
        return undone

    def _complete(self, seeds: set[int]) -> set[int]:
        """Restore the CPDAG after an operator whose effects start at ``seeds``; return
        the nodes whose parents or neighbours changed (newly directed edges are added to
        :attr:`oriented`).

        Orientations can only be lost at the seeds and, in turn, at the children of a
        node that lost one (each Meek rule's conclusion has its head at or below its
        premises' heads); those edges are reset to the pattern and Meek's rules re-applied.
        """
        g = self.graph
        if self.knowledge is not None:
            return self._complete_globally()
        if self.check_cpdag:
            everything = self._snapshot(range(g.n_vars))
        queue = sorted(seeds, reverse=True)
        seen = set(seeds)
        reverted = []
        while queue:
            b = queue.pop()
            undone = self._revert_into(b)
            if undone:
                reverted.extend((a, b) for a in undone)
                for c in sorted(g.children(b), reverse=True):
                    if c not in seen:
                        seen.add(c)
                        queue.append(c)
        rec = _Recorder(g)
        apply_meek_rules(rec, sorted(seen), knowledge=self.knowledge)
        again = set(rec.oriented)
        was = set(reverted)
        moved = [e for e in reverted if e not in again]
        moved += [e for e in rec.oriented if e not in was]
        self.oriented.extend(e for e in rec.oriented if e not in was)
        changed = {u for e in moved for u in e}
        if self.check_cpdag:
            if dag_to_cpdag(pdag_to_dag(g), self.knowledge) != g:
                raise AssertionError("local CPDAG completion disagrees with the global one")
            now = self._snapshot(range(g.n_vars))
            if {u for u in now if now[u] != everything[u]} != changed:
                raise AssertionError("the changed nodes were not tracked")
        return changed

    def _complete_globally(self) -> set[int]:
        """With knowledge: the maximally oriented graph of a consistent extension's class
        given the knowledge (Meek 1995), rebuilt in O(V + E); same contract as
        :meth:`_complete`."""
        g = self.graph
        before = self._snapshot(range(g.n_vars))
        g.assign(dag_to_cpdag(pdag_to_dag(g), self.knowledge))
        now = self._snapshot(range(g.n_vars))
        changed = {u for u in now if now[u] != before[u]}
        self.oriented.extend(sorted((p, u) for u in changed for p in now[u][0] - before[u][0]
                                    if p in before[u][1]))
        return changed

    def force_required(self) -> set[int]:
        """Insert the knowledge's required arcs (before a search); return their heads."""
        kn = self.knowledge
        heads = set() if kn is None else set(kn.required_parents)
        for j in sorted(heads):
            for i in sorted(kn.required_parents[j]):
                self.graph.add_directed(i, j)
        return heads

    def keeps_knowledge(self, operator, *args) -> bool:
        """Whether ``operator(*args)`` (:meth:`apply_insert` or :meth:`apply_delete`) leaves
        a graph with a DAG extension, tried on a copy: an operator valid for the class may
        have no member that agrees with the knowledge (Tetrad's check)."""
        saved = self.graph
        self.graph = saved.copy()
        try:
            operator(*args)
            return True
        except ValueError:  # pdag_to_dag: no consistent extension
            return False
        finally:
            self.graph = saved
            self.oriented = []

    def apply_insert(self, x: int, y: int, t: Sequence[int]) -> set[int]:
        """Apply Insert(x, y, T) to the CPDAG and re-complete it (no validity check).

        Returns the nodes whose parents or neighbours changed (``y``, ``T``, ...) and the
        common neighbours of ``x`` and ``y`` (whose neighbours gained an adjacency);
        ``x`` only if its own context changed.
        """
        g = self.graph
        common_before = g.neighbors(x) & g.neighbors(y)
        g.add_directed(x, y)
        for k in t:
            g.orient(k, y)
        self.oriented = [(k, y) for k in sorted(t)]
        # v-structures appear at y and vanish at common children of x and y; the
        # non-adjacency of x and y premised rules only at y and their common neighbours
        changed = self._complete({y} | (g.adjacent(x) & g.adjacent(y)))
        common = (g.neighbors(x) & g.neighbors(y)) | common_before
        return changed | {y} | set(t) | common

    def apply_delete(self, x: int, y: int, h: Sequence[int]) -> set[int]:
        """Apply Delete(x, y, H) to the CPDAG and re-complete it (no validity check)."""
        g = self.graph
        common_before = g.adjacent(x) & g.adjacent(y)
        g.remove_edge(x, y)
        for k in h:
            if g.has_undirected(y, k):
                g.orient(y, k)
            if g.has_undirected(x, k):
                g.orient(x, k)
        self.oriented = []
        changed = self._complete({x, y} | g.children(x) | g.children(y) | common_before)
        return changed | {x, y} | set(h) | common_before

    def insert_is_valid(self, x: int, y: int, t: Sequence[int]) -> bool:
        """Chickering's Theorem 15: ``x, y`` non-adjacent, ``T ⊆`` neighbours of ``y`` not
        adjacent to ``x``, ``NaYX ∪ T`` a clique, every semi-directed path ``y ⇝ x`` blocked
        by ``NaYX ∪ T``."""
        g = self.graph
        if x == y or g.is_adjacent(x, y):
            return False
        t = set(t)
        if not t <= g.neighbors(y) or t & g.adjacent(x):
            return False
        cond = (g.neighbors(y) & g.adjacent(x)) | t
        return is_clique(g, sorted(cond)) and self.semidirected_path(y, x, cond) is None

    def delete_is_valid(self, x: int, y: int, h: Sequence[int]) -> bool:
        """Chickering's Theorem 17: ``x → y`` or ``x — y``, ``H ⊆ NaYX`` and ``NaYX − H``
        a clique."""
        g = self.graph
        if not (g.has_directed(x, y) or g.has_undirected(x, y)):
            return False
        naxy = g.neighbors(y) & g.adjacent(x)
        if not set(h) <= naxy:
            return False
        return is_clique(g, sorted(naxy - set(h)))
