"""Best Order Score Search on any local score (thesis §6.2.2 searches; issue 14).

Andrews, Ramsey, Sanchez-Romero, Camchong & Kummerfeld (2023), "Fast scalable and
accurate discovery of DAGs using the best order score search and grow-shrink trees":

* A permutation ``π`` of the variables defines a DAG: each variable takes the parents a
  grow-shrink (GS) search finds among its predecessors — grow by adding the predecessor
  with the best positive gain while there is one, then shrink by removing the parent whose
  removal helps most while one does.  The order's score is the sum of those local scores.
* A grow-shrink tree (GST) per variable caches these searches: a tree node is a parent set
  reached by greedy additions, with its candidate additions sorted by gain; tracing a
  prefix walks down through the first branch in the prefix, so a trace costs a few set
  look-ups once the tree has grown.
* BOSS moves each variable in turn to the position in the order that maximises the total
  score (all positions are scored in one forward and one backward sweep, each variable
  re-traced only if the moved one appears among the branches on its GST path), until no
  move helps; then it runs GES's backward phase (BES) on the order's DAG and takes a
  topological order of the result, and repeats both until the score stops improving.

The search starts from a topological order of a DAG in the class found by GES (the
default :func:`fges`), keeps the best-scoring DAG it visits, and returns its CPDAG; for
large V each variable's candidate parents are bounded as in :func:`fges`
(``max_candidates``).  Deterministic: ties go to the current position, then index order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData, MixedData
from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag, pdag_to_dag
from causalcal.knowledge import Knowledge, bind_knowledge

from ..score.protocol import LocalScore, Score
from ..score.registry import as_score
from .fges import FGES, candidate_limit
from .ges_operators import MIN_GAIN

log = logging.getLogger(__name__)
__all__ = ["boss", "GrowShrinkTree"]

_TOL = 1e-9  # ... and a change of a total score this fraction of it (rounding of long sums)


class _Node:
    """A GST node: a parent set, its local score, its branches (additions with a positive
    gain, best first) and, once shrunk, the parents the shrink removes and its score."""

    __slots__ = ("score", "branches", "children", "names", "shrunk")

    def __init__(self, score: float) -> None:
        self.score = score
        self.branches: list[tuple[int, float]] | None = None
        self.children: dict[int, _Node] = {}
        self.names: frozenset[int] = frozenset()
        self.shrunk: tuple[float, tuple[int, ...]] | None = None


class GrowShrinkTree:
    """The grow-shrink searches of variable ``y`` over subsets of ``candidates``."""

    def __init__(self, score: LocalScore, y: int, candidates: np.ndarray,
                 required: frozenset[int] = frozenset()) -> None:
        self.score = score
        self.y = y
        self.candidates = candidates
        self.required = tuple(sorted(required))  # parents every trace starts from
        self.root = _Node(score.local_score(y, self.required))

    def _grow(self, node: _Node, parents: list[int], excluded: set[int]) -> None:
        pool = [int(c) for c in self.candidates if c not in excluded and c not in parents]
        branches: list[tuple[int, float]] = []
        if pool:
            _, xs, gains = self.score.family_gains([(self.y, frozenset(parents))], MIN_GAIN,
                                                   pool)
            order = np.lexsort((xs, -gains))
            branches = [(int(xs[k]), node.score + float(gains[k])) for k in order]
        node.branches = branches
        node.names = frozenset(a for a, _ in branches)

    def _shrink(self, node: _Node, parents: list[int]) -> tuple[float, tuple[int, ...]]:
        if node.shrunk is None:
            sc, y = self.score, self.y
            kept = set(parents)
            best = node.score
            while kept - set(self.required):
                drops = [(sc.local_score(y, kept - {p}), -p)
                         for p in sorted(kept - set(self.required))]
                value, neg = max(drops)
                if value <= best + MIN_GAIN:
                    break
                best = value
                kept.discard(-neg)
            node.shrunk = (best, tuple(sorted(set(parents) - kept)))
        return node.shrunk

    def trace(self, prefix: bytearray) -> tuple[float, tuple[int, ...], frozenset[int]]:
        """GS over the variables ``v`` with ``prefix[v]``: ``(local score, parents, the
        branch variables met on the way)`` — a variable outside the last set cannot change
        the result by entering or leaving the prefix."""
        node, parents, excluded = self.root, list(self.required), set()
        met: set[int] = set()
        while True:
            if node.branches is None:
                self._grow(node, parents, excluded)
            met |= node.names
            step = None
            for a, value in node.branches:
                if prefix[a]:
                    step = (a, value)
                    break
                excluded.add(a)
            if step is None:
                break
            a, value = step
            excluded.add(a)
            parents.append(a)
            child = node.children.get(a)
            if child is None:
                child = node.children[a] = _Node(value)
            node = child
        value, removed = self._shrink(node, parents)
        return value, tuple(sorted(set(parents) - set(removed))), frozenset(met)


def boss(
    data: DiscreteData | MixedData,
    weights: np.ndarray | Sequence[float] | None = None,
    *,
    score: Score | str = "bdeu",
    max_candidates: int | str | None = "auto",
    max_rounds: int = 50,
    verbose: bool = False,
    max_arity: int = DEFAULT_MAX_ARITY,
    knowledge: Knowledge | None = None,
) -> PDAG:
    """BOSS on ``data`` (rows weighted by ``weights``) with the local score ``score``
    (a :class:`~causalcal.bootstrap.score.protocol.Score` or a score's name, as for
    :func:`.fges.fges`); returns the CPDAG.

    ``max_candidates`` bounds each variable's candidate parents as in :func:`fges`;
    ``max_rounds`` bounds the rounds of moves + BES (each must improve the score).
    ``knowledge`` (:class:`causalcal.Knowledge`): excluded parents are no candidates,
    required parents start every grow-shrink search, an order never puts a required
    arc's head before its tail, and the start (FGES) and BES steps enforce it as well.
    """
    if int(max_rounds) != max_rounds or max_rounds < 1:
        raise InputError(f"max_rounds must be a positive integer, got {max_rounds}")
    scorer = as_score(score).build(data, weights, max_arity=max_arity)
    return BOSS(scorer, max_candidates=max_candidates, verbose=verbose,
                knowledge=knowledge).search(int(max_rounds))


class BOSS:
    """The order search state; use :func:`boss` unless you need the scorer afterwards."""

    def __init__(
        self, score: LocalScore, max_candidates: int | str | None = "auto", verbose: bool = False,
        knowledge: Knowledge | None = None,
    ) -> None:
        self.score = score
        self.verbose = bool(verbose)
        v = score.n_vars
        limit = candidate_limit(v, max_candidates)
        self.knowledge = kn = bind_knowledge(knowledge, score.data.names)
        self.ges = FGES(score, max_candidates=max_candidates, knowledge=kn)
        start = self.ges.search()
        everyone = np.arange(v)
        ranked = self.ges.ranked if limit is not None else None
        self.trees = []
        for y in range(v):
            cands = everyone[everyone != y] if ranked is None else ranked[y]
            if kn is not None:
                cands = np.array([c for c in cands if not kn.forbids(int(c), y)], dtype=np.intp)
            required = frozenset() if kn is None else kn.required_parents.get(y, frozenset())
            self.trees.append(GrowShrinkTree(score, y, cands, frozenset(required)))
        self.best = (score.score_pdag(start), start)
        self.order = pdag_to_dag(start).topological_order()
        self.local = [0.0] * v
        self.parents: list[tuple[int, ...]] = [()] * v
        self.met: list[frozenset[int]] = [frozenset()] * v

    # ------------------------------------------------------------- search
    def search(self, max_rounds: int = 50) -> PDAG:
        total = self._update(self.order)
        for _ in range(max_rounds):
            before = total
            moved = True
            while moved:
                moved = False
                for x in list(self.order):
                    moved |= self._move(x)
            self._keep()
            total = self._bes_order()
            if self.verbose:
                log.info("BOSS round: %.3f -> %.3f", before, total)
            if total - before <= _TOL * abs(before):
                break
        return self.best[1]

    def _update(self, variables) -> float:
        """Re-trace ``variables`` against their prefixes in the order; return the total."""
        prefix = bytearray(self.score.n_vars)
        todo = set(variables)
        for z in self.order:
            if z in todo:
                self.local[z], self.parents[z], self.met[z] = self.trees[z].trace(prefix)
            prefix[z] = 1
        return sum(self.local)

    def _dag(self) -> PDAG:
        g = PDAG(self.score.n_vars, self.score.data.names)
        for z in range(self.score.n_vars):
            for p in self.parents[z]:
                g.add_directed(p, z)
        return g

    def _keep(self, cpdag: PDAG | None = None) -> None:
        """Remember ``cpdag`` (default: the order's DAG's) if it scores best so far."""
        cpdag = dag_to_cpdag(self._dag(), self.knowledge) if cpdag is None else cpdag
        value = self.score.score_pdag(cpdag)
        if value - self.best[0] > _TOL * abs(self.best[0]):
            self.best = (value, cpdag)

    def _bes_order(self) -> float:
        """GES's backward phase from the order's DAG; continue from a topological order of
        the result."""
        cpdag = self.ges.backward_from(dag_to_cpdag(self._dag(), self.knowledge))
        self._keep(cpdag)
        self.order = pdag_to_dag(cpdag).topological_order()
        total = self._update(self.order)
        self._keep()
        return total

    def position_totals(self, x: int) -> tuple[list[int], int, np.ndarray]:
        """The order without ``x``, ``x``'s position in the order, and the order's total
        score with ``x`` inserted before each position of the rest (and at the end).

        One forward sweep: the rest's scores without and with ``x`` among their
        predecessors (a variable is re-traced only if ``x`` is among the branches on its GST
        path) and ``x``'s own score at each position (re-traced only when a variable on its
        path enters the prefix)."""
        order = self.order
        c = order.index(x)
        rest = order[:c] + order[c + 1 :]
        p = len(rest)
        without = np.empty(p)  # scores of rest[j] with x after it
        with_x = np.empty(p)  # ... with x before it
        at = np.empty(p + 1)  # x's score at each position
        prefix = bytearray(self.score.n_vars)
        tree_x = self.trees[x]
        value, _, met_x = tree_x.trace(prefix)
        at[0] = value
        for j, z in enumerate(rest):
            mine = self.local[z]
            if x in self.met[z]:
                prefix[x] = 1 if j < c else 0
                other = self.trees[z].trace(prefix)[0]
                prefix[x] = 0
            else:
                other = mine
            without[j], with_x[j] = (mine, other) if j < c else (other, mine)
            prefix[z] = 1
            if z in met_x:
                value, _, met_x = tree_x.trace(prefix)
            at[j + 1] = value
        head = np.concatenate([[0.0], np.cumsum(without)])
        tail = np.concatenate([np.cumsum(with_x[::-1])[::-1], [0.0]])
        return rest, c, head + at + tail

    def _move(self, x: int) -> bool:
        """Move ``x`` to the position of the order with the best total score (BOSS's
        "better mutation"); return whether it moved."""
        rest, c, totals = self.position_totals(x)
        if self.knowledge is not None:
            totals[~self._allowed_positions(x, rest)] = -np.inf
        best = int(np.argmax(totals))
        if totals[best] - totals[c] <= _TOL * abs(totals[c]):
            return False
        self.order = rest[:best] + [x] + rest[best:]
        toggled = rest[min(c, best) : max(c, best)]  # x entered or left their prefixes
        self._update([x] + [z for z in toggled if x in self.met[z]])
        return True

    def _allowed_positions(self, x: int, rest: list[int]) -> np.ndarray:
        """Positions of ``x`` in ``rest`` after its required parents and before its
        required children."""
        kn = self.knowledge
        at = {z: k for k, z in enumerate(rest)}
        after = [at[p] + 1 for p in kn.required_parents.get(x, ())]
        before = [at[c] for c, ps in kn.required_parents.items() if x in ps]
        ok = np.zeros(len(rest) + 1, dtype=bool)
        ok[max(after, default=0): min(before, default=len(rest)) + 1] = True
        return ok
