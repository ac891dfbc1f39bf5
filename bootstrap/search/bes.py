"""GES's backward phase: best Delete first while one improves the score (Chickering 2002,
backward equivalence search; thesis §6.2.2; docs/design.md §5).

A mixin of :class:`.fges.FGES`: it uses the search state's graph, score, queue
(``heap``, ``options``, ``in_stamp``), knowledge and the operators of
:class:`.ges_operators.GESState`.
"""

from __future__ import annotations

import heapq

from .ges_operators import MIN_GAIN, cliques_within

__all__ = ["BackwardPhase"]


class BackwardPhase:
    """Delete(X, Y, H) operators, queued by bump like the forward phase's arrows."""

    def _eval_delete_into(self, y: int, sources: list[int]) -> None:
        """Best Delete(x, y, H) for each ``x`` adjacent to ``y`` by ``x → y`` or ``x — y``."""
        g = self.graph
        nb = g.neighbors(y)
        pa = frozenset(g.parents(y))
        sc = self.score
        sy = self.in_stamp[y]
        for x in sources:
            if not (x in pa or x in nb):
                self.options.pop((x, y), None)
                continue
            naxy = sorted(nb & g.adjacent(x))
            best = None
            for k_set in cliques_within(g, frozenset(), naxy):
                kept = frozenset(k_set)
                cond = (kept | pa) - {x}
                bump = sc.local_score(y, cond) - sc.local_score(y, cond | {x})
                h = tuple(sorted(set(naxy) - kept))
                if self.knowledge is not None and not self.knowledge.allows_delete(x, y, h):
                    continue
                if bump > MIN_GAIN and (best is None or (bump, -len(h)) > (best[0], -len(best[1]))):
                    best = (bump, h)
            if best is None:
                self.options.pop((x, y), None)
                continue
            self.options[(x, y)] = [best]
            heapq.heappush(self.heap, (-best[0], x, y, sy))

    def _backward(self) -> None:
        """The backward phase: best Delete first while one improves the score."""
        g = self.graph
        for y in range(g.n_vars):
            self._eval_delete_into(y, sorted(g.parents(y) | g.neighbors(y)))
        heap = self.heap
        while heap:
            negb, x, y, sy = heapq.heappop(heap)
            if sy != self.in_stamp[y]:
                continue
            opts = self.options.get((x, y))
            if not opts or -negb != opts[0][0]:
                continue
            if not (g.has_directed(x, y) or g.has_undirected(x, y)):
                continue
            bump, h = opts[0]
            if self.knowledge is None or self.keeps_knowledge(self.apply_delete, x, y, h):
                self._delete(x, y, h, bump)

    def _delete(self, x: int, y: int, h: tuple[int, ...], bump: float) -> None:
        g = self.graph
        self.n_steps += 1
        self.log_step("DELETE", x, y, h, bump)
        touched = self.apply_delete(x, y, h)
        for u in touched:
            self.in_stamp[u] += 1
        # (a Delete arrow src → w with src ∈ {x, y} changes only if w was adjacent to both,
        # and those common neighbours are in ``touched``)
        for u in sorted(touched):
            self._eval_delete_into(u, sorted(g.parents(u) | g.neighbors(u)))
