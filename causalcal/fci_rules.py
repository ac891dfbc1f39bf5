"""FCI's orientation rules R1–R4 and R8–R10 on a :class:`~causalcal.pag.PAG` (Zhang 2008,
"On the completeness of orientation rules for causal discovery in the presence of latent
confounders and selection bias", §3–4; docs/design.md §5.1).

Without selection bias R5–R7 never fire (they need tail–tail or tail–circle edges), so
R0 (colliders, in :mod:`causalcal.fci`), R1–R4 and R8–R10 give the PAG's complete
orientation. A rule only turns a circle into a tail or an arrowhead, and never against
background knowledge (:class:`Marks`). Notation: ``m[i, j]`` is the mark at ``j`` on the
edge ``i *-* j``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from causalcal.pag import PAG, Mark

__all__ = ["Marks", "apply_rules"]

_C, _A, _T = int(Mark.CIRCLE), int(Mark.ARROW), int(Mark.TAIL)

#: the separating set of two non-adjacent nodes, or ``None`` where none is known
SepsetLookup = Callable[[int, int], "tuple[int, ...] | None"]


class Marks:
    """Sets a circle on a PAG to a tail or arrowhead unless background knowledge forbids
    it: an arrowhead at ``j`` on ``i *-* j`` says j is no ancestor of i (refused where
    the arc ``j → i`` is required, or j is a context column and i is not); a tail at
    ``j`` says j is an ancestor of i (refused where the arc ``j → i`` is excluded:
    forbidden, against tiers or a required ``i → j``).
    ``knowledge`` is a :class:`causalcal.knowledge.BoundKnowledge` or ``None``."""

    def __init__(self, g: PAG, knowledge=None) -> None:
        self.g = g
        self.m = g.marks
        self.knowledge = knowledge

    def allowed(self, i: int, j: int, mark: int) -> bool:
        k = self.knowledge
        if k is None:
            return True
        if mark == _A:
            return (j, i) not in k.required and not k.context_arc(j, i)
        return not k.forbids(j, i)

    def orient(self, i: int, j: int, mark: int) -> bool:
        """Set the mark at ``j`` on ``i *-* j`` if it is a circle; whether it changed."""
        if self.m[i, j] != _C or not self.allowed(i, j, mark):
            return False
        self.m[i, j] = mark
        return True

    def adj(self, v: int) -> np.ndarray:
        return np.flatnonzero(self.m[v])

    def common(self, i: int, j: int) -> np.ndarray:
        """The nodes adjacent to both ``i`` and ``j``."""
        return np.flatnonzero((self.m[i] != 0) & (self.m[j] != 0))

    def parent(self, i: int, j: int) -> bool:
        """``i --> j``."""
        return self.m[j, i] == _T and self.m[i, j] == _A

    def pd_edge(self, i: int, j: int) -> bool:
        """The edge is potentially directed from ``i`` to ``j`` (no arrowhead at i, no
        tail at j)."""
        return self.m[i, j] not in (0, _T) and self.m[j, i] != _A


def _r1(k: Marks) -> bool:
    """R1: a *-> b o-* c, a and c not adjacent ⇒ b --> c."""
    m, changed = k.m, False
    for b in range(len(m)):
        adj = k.adj(b)
        for c in adj:
            if m[c, b] != _C:
                continue
            if any(m[a, b] == _A and not m[a, c] for a in adj if a != c):
                changed |= k.orient(c, b, _T)
                changed |= k.orient(b, c, _A)
    return changed


def _r2(k: Marks) -> bool:
    """R2: a --> b *-> c or a *-> b --> c, and a *-o c ⇒ a *-> c."""
    m, changed = k.m, False
    for a, c in zip(*np.nonzero(m == _C)):
        for b in k.common(a, c):
            if (k.parent(a, b) and m[b, c] == _A) or (m[a, b] == _A and k.parent(b, c)):
                changed |= k.orient(a, c, _A)
                break
    return changed


def _r3(k: Marks) -> bool:
    """R3: a *-> b <-* c, a *-o d o-* c, a and c not adjacent, d *-o b ⇒ d *-> b."""
    m, changed = k.m, False
    for d, b in zip(*np.nonzero(m == _C)):
        both = [v for v in k.common(b, d) if m[v, b] == _A and m[v, d] == _C]
        if any(not m[a, c] for x, a in enumerate(both) for c in both[x + 1:]):
            changed |= k.orient(d, b, _A)
    return changed


def _discriminated(k: Marks, a: int, b: int, c: int) -> int | None:
    """The start d of a discriminating path <d, …, a, b, c> for b (Zhang 2008, Def. 3.4):
    d not adjacent to c, every node between d and b a collider on the path and a parent
    of c; breadth first, so the shortest such path."""
    m = k.m
    queue = [(a, (b, a))]
    while queue:
        nxt = []
        for v, path in queue:
            for x in k.adj(v):
                if x == c or x in path or m[x, v] != _A:
                    continue
                if not m[x, c]:
                    return int(x)
                if k.parent(x, c) and m[v, x] == _A:
                    nxt.append((x, path + (x,)))
        queue = nxt
    return None


def _r4(k: Marks, sepset: SepsetLookup) -> bool:
    """R4: on a discriminating path <d, …, a, b, c> for b with b o-* c: b --> c if b is in
    the separating set of d and c, else a <-> b <-> c."""
    m, changed = k.m, False
    for c, b in zip(*np.nonzero(m == _C)):
        for a in k.common(b, c):
            if not (m[b, a] == _A and k.parent(a, c)):
                continue
            d = _discriminated(k, int(a), int(b), int(c))
            if d is None:
                continue
            s = sepset(d, int(c))
            if s is None:
                continue
            if b in s:
                changed |= k.orient(c, b, _T)
                changed |= k.orient(b, c, _A)
            else:
                changed |= k.orient(a, b, _A)
                changed |= k.orient(c, b, _A)
                changed |= k.orient(b, c, _A)
            break
    return changed


def _uncovered_firsts(k: Marks, a: int, target: int, avoid: int) -> set[int]:
    """The second nodes of the uncovered potentially directed paths from ``a`` to
    ``target`` that miss ``avoid`` (depth first over simple paths)."""
    m, found = k.m, set()
    for first in k.adj(a):
        if first == avoid or not k.pd_edge(a, first):
            continue
        if first == target:
            found.add(int(first))
            continue
        stack = [(a, int(first), frozenset((a, int(first))))]
        while stack:
            prev, v, on = stack.pop()
            hit = False
            for w in k.adj(v):
                if w in on or w == avoid or m[prev, w] or not k.pd_edge(v, w):
                    continue
                if w == target:
                    hit = True
                    break
                stack.append((v, int(w), on | {int(w)}))
            if hit:
                found.add(int(first))
                break
    return found


def _r8(k: Marks) -> bool:
    """R8: a --> b --> c or a -o b --> c, and a o-> c ⇒ a --> c."""
    m, changed = k.m, False
    for c, a in zip(*np.nonzero(m == _C)):
        if m[a, c] != _A:
            continue
        if any(m[b, a] == _T and m[a, b] in (_A, _C) and k.parent(b, c)
               for b in k.common(a, c)):
            changed |= k.orient(c, a, _T)
    return changed


def _r9(k: Marks) -> bool:
    """R9: a o-> c and an uncovered potentially directed path <a, b, …, c> with b and c
    not adjacent ⇒ a --> c."""
    m, changed = k.m, False
    for c, a in zip(*np.nonzero(m == _C)):
        if m[a, c] != _A:
            continue
        firsts = _uncovered_firsts(k, int(a), int(c), avoid=-1)
        if any(b != c and not m[b, c] for b in firsts):
            changed |= k.orient(c, a, _T)
    return changed


def _r10(k: Marks) -> bool:
    """R10: a o-> c, b --> c <-- d, uncovered potentially directed paths from a to b and
    from a to d whose second nodes are distinct and not adjacent ⇒ a --> c."""
    m, changed = k.m, False
    for c, a in zip(*np.nonzero(m == _C)):
        if m[a, c] != _A:
            continue
        parents = [v for v in k.adj(c) if v != a and k.parent(v, c)]
        if len(parents) < 2:
            continue
        firsts = [_uncovered_firsts(k, int(a), int(p), avoid=int(c)) for p in parents]
        if any(u != w and not m[u, w]
               for x, fu in enumerate(firsts) for fw in firsts[x + 1:]
               for u in fu for w in fw):
            changed |= k.orient(c, a, _T)
    return changed


def apply_rules(g: PAG, sepset: SepsetLookup, knowledge=None) -> PAG:
    """Apply R1–R4 until none fires, then R8–R10, and repeat until nothing changes
    (in place; returns ``g``). ``sepset`` serves R4."""
    k = Marks(g, knowledge)
    while True:
        while _r1(k) | _r2(k) | _r3(k) | _r4(k, sepset):
            pass
        if not (_r8(k) | _r9(k) | _r10(k)):
            return g
