"""Fast Greedy Equivalence Search on any local score (thesis §6.2.2; docs/design.md §5).

Ramsey, Glymour, Sanchez-Romero & Glymour (2017), "A million variables and more", on
Chickering's (2002) GES; operators and CPDAG maintenance are in :mod:`.ges_operators`,
the backward phase in :mod:`.bes`.

* As in FGES, every ordered pair's best operator waits in a priority queue ("arrows"),
  stamped with its target's context; an arrow whose options fail the semi-directed path
  test is parked with the refuting paths until a newly directed edge cuts one.
* ``faithfulness_assumed=False`` (the default) searches GES's neighbourhood: after every
  step, each node whose context changed rescores *all* its candidate parents at once
  (the score's ``family_gains``: one stacked count product for BDeu), so the search is
  Chickering's GES (it reproduces causal-learn's GES result).  At large V each
  node's candidate parents are its ``max_candidates`` best partners by pairwise gain
  (``"auto"`` = ⌈10⁶ / V⌉: all up to V = 1001, 200 at V = 5000; ``None``: all); the
  pairwise gains are also every node's empty-parent family, so that one is never
  recounted.
* ``faithfulness_assumed=True`` is Tetrad's one-edge faithfulness heuristic: only pairs
  with a positive pairwise gain, then a second forward + backward pass that also admits
  pairs two steps apart through a non-collider (faster; can score well below GES).
* ``knowledge`` (:class:`causalcal.Knowledge`): required arcs go in first and are never
  deleted; operators adding an excluded arc are never considered (Tetrad's way).
* Ties are broken by ``(X, Y)`` index order: a run is a pure function of its inputs;
  ``verbose`` logs every step (logger ``causalcal.bootstrap.search.ges_operators``,
  level INFO).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData, MixedData
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.knowledge import BoundKnowledge, Knowledge, bind_knowledge

from ..score.discrete.pair_gains import empty_families
from ..score.protocol import LocalScore, Score
from ..score.registry import as_score
from .bes import BackwardPhase
from .ges_operators import MIN_GAIN, GESState, candidate_limit, cliques_within, is_clique

__all__ = ["fges", "FGES", "candidate_limit"]

_BULK_CANDIDATES = 64  # from this many candidates of a target, score them as stacked products


def fges(
    data: DiscreteData | MixedData,
    weights: np.ndarray | Sequence[float] | None = None,
    *,
    score: Score | str = "bdeu",
    max_degree: int | None = None,
    faithfulness_assumed: bool = False,
    max_candidates: int | str | None = "auto",
    verbose: bool = False,
    device: str | None = None,
    max_arity: int = DEFAULT_MAX_ARITY,
    knowledge: Knowledge | None = None,
) -> PDAG:
    """Run FGES on ``data`` (rows weighted by ``weights``) with the local score ``score``:
    a :class:`~causalcal.bootstrap.score.protocol.Score` (made with its parameters by
    :func:`~causalcal.bootstrap.score.registry.get_score`, e.g. ``get_score("bic",
    penalty_discount=2)``) or a score's name with its defaults (``"bdeu"``, ``"bic"``,
    ``"sem-bic"``, ``"dg-bic"``).

    Returns the CPDAG (names = ``data.names``). ``max_degree`` bounds the number of
    adjacencies of any node during the forward phase (``None``: unbounded);
    ``faithfulness_assumed`` and ``max_candidates`` are explained in the module docstring
    (the defaults give GES's result up to V = 1001 variables).
    ``device`` (e.g. ``"cuda"``) runs the discrete scores' count products with torch; a
    variable with more than ``max_arity`` categories is an ``InputError`` naming the column.
    ``knowledge`` (:class:`causalcal.Knowledge`) is enforced inside the search.
    """
    scorer = as_score(score).build(data, weights, device=device, max_arity=max_arity)
    return FGES(
        scorer, max_degree=max_degree, faithfulness_assumed=faithfulness_assumed,
        max_candidates=max_candidates, verbose=verbose, knowledge=knowledge,
    ).search()


class FGES(BackwardPhase, GESState):
    """The search state; use :func:`fges` unless you need the scorer afterwards."""

    def __init__(
        self,
        score: LocalScore,
        max_degree: int | None = None,
        faithfulness_assumed: bool = False,
        max_candidates: int | str | None = "auto",
        verbose: bool = False,
        knowledge: Knowledge | BoundKnowledge | None = None,
    ) -> None:
        if max_degree is not None and (int(max_degree) != max_degree or max_degree < 0):
            raise InputError(f"max_degree must be a non-negative integer or None, got {max_degree}")
        super().__init__(score.n_vars, score.data.names)
        self.knowledge = bind_knowledge(knowledge, score.data.names)
        self.score = score
        self.max_degree = None if max_degree is None else int(max_degree)
        self.faithful = bool(faithfulness_assumed)
        self.limit = None if self.faithful else candidate_limit(score.n_vars, max_candidates)
        self.verbose = bool(verbose)
        v = score.n_vars
        self.in_stamp = [0] * v
        self.heap: list[tuple] = []
        self.options: dict[tuple[int, int], list[tuple[float, tuple[int, ...]]]] = {}
        self.parked: dict[tuple[int, int], int] = {}
        self.blockers: dict[tuple[int, int], set[tuple[int, int]]] = {}
        self.effect: list[set[int]] = [set() for _ in range(v)]  # faithfulness heuristic
        self.flag = np.zeros(v, dtype=bool)  # scratch mask, all False between uses
        self.family_cache: dict[tuple[int, frozenset[int]], tuple[np.ndarray, np.ndarray]] = {}
        self.ranked: np.ndarray | None = None  # (V, limit) best partners, sorted
        self.cover = False  # the faithfulness heuristic's second pass
        self.n_steps = 0

    # -------------------------------------------------------------- search
    def search(self) -> PDAG:
        self._seed_pairwise()
        heads = self.force_required()  # the knowledge's required arcs go in first
        if heads:
            self._rescore_forward(heads)
        self._forward()
        self._reset_queue()
        self._backward()
        if self.faithful:  # Tetrad: a second pass that also admits "cover non-colliders"
            self.cover = True
            self._rearm()
            self._forward()
            self._reset_queue()
            self._backward()
        return self.graph

    def backward_from(self, cpdag: PDAG) -> PDAG:
        """GES's backward phase (BES) from ``cpdag`` (a CPDAG over the same variables)."""
        self.graph = cpdag.copy()
        self._reset_queue()
        self._backward()
        return self.graph

    def _seed_pairwise(self) -> None:
        """First step: every candidate pair with a positive gain, both ways, ``T = ∅``."""
        sc = self.score
        if self.limit is None:
            gi, gj, gain = sc.pairwise_gains(min_gain=MIN_GAIN)
        else:
            gi, gj, gain, self.ranked = sc.pairwise_gains(min_gain=MIN_GAIN, top=self.limit)
            sc.prepare_candidates(self.ranked)  # each node's candidates
        if self.faithful:  # the heuristic's candidates: pairs with a positive gain
            for i, j in zip(gi.tolist(), gj.tolist()):
                self.effect[i].add(j)
                self.effect[j].add(i)
        a = np.concatenate([gi, gj])
        t = np.concatenate([gj, gi])
        b = np.concatenate([gain, gain])
        if self.ranked is not None:  # keep the arrows a → t with a among t's candidates
            v = self.ranked.shape[0]
            allowed = (np.arange(v)[:, None] * v + self.ranked).ravel()  # sorted
            key = t * v + a
            at = np.minimum(np.searchsorted(allowed, key), len(allowed) - 1)
            keep = allowed[at] == key
            a, t, b = a[keep], t[keep], b[keep]
        if not self.faithful:
            self.family_cache.update(empty_families(a, t, b, self.score.n_vars))
        a, t, b = a.tolist(), t.tolist(), b.tolist()
        if self.knowledge is not None:  # no arc the knowledge excludes
            keep = [self.knowledge.allows_insert(x, y, ()) for x, y in zip(a, t)]
            a, t, b = ([v for v, k in zip(col, keep) if k] for col in (a, t, b))
        self.options = {(x, y): [(bump, ())] for x, y, bump in zip(a, t, b)}
        self.heap = [(-bump, x, y, 0) for x, y, bump in zip(a, t, b)]
        heapq.heapify(self.heap)

    def _rescore_forward(self, touched: set[int]) -> None:
        """New context stamps and Insert options for the nodes whose context changed."""
        for u in touched:
            self.in_stamp[u] += 1
        if self.faithful:
            for u in sorted(touched):
                self._rescore_full([u], self._candidates(u))
        else:
            self._rescore_full(touched)

    def _reset_queue(self) -> None:
        self.heap.clear()
        self.options.clear()
        self.parked.clear()
        self.blockers.clear()

    def _rearm(self) -> None:
        """Fresh arrows for every node over its candidates (after a backward phase)."""
        self._reset_queue()
        for y in range(self.score.n_vars):
            self._rescore_full([y], self._candidates(y))

    # ---------------------------------------------------------- candidates
    def _is_candidate(self, a: int, t: int) -> bool:
        """Whether ``a`` may become a parent of ``t`` (before adjacency)."""
        if self.faithful:
            return a in self._candidates(t)
        rank = self.ranked
        if rank is None:
            return True
        k = int(np.searchsorted(rank[t], a))
        return k < rank.shape[1] and rank[t, k] == a

    def _candidates(self, r: int) -> list[int]:
        """The faithfulness heuristic's candidates: positive pairwise gain, and in the
        second pass also m with m - n - r and not m -> n <- r."""
        g = self.graph
        adj = g.adjacent(r)
        pool = self.effect[r]
        if self.cover:
            pool = set(pool)
            for n in adj:
                r_into_n = n in g.children(r)
                for m in g.adjacent(n):
                    if not (r_into_n and n in g.children(m)):
                        pool.add(m)
        return sorted(w for w in pool if w != r and w not in adj)

    def _all_candidates(self, r: int) -> np.ndarray:
        """GES mode: every non-adjacent variable among ``r``'s candidates (sorted)."""
        adj = list(self.graph.adjacent(r))
        if self.ranked is not None:
            pool = self.ranked[r]
            if not adj:
                return pool
            self.flag[adj] = True
            keep = ~self.flag[pool]
            self.flag[adj] = False
            return pool[keep]
        keep = np.ones(self.score.n_vars, dtype=bool)
        keep[adj] = False
        keep[r] = False
        return np.flatnonzero(keep)

    def _room(self, b: int) -> bool:
        return self.max_degree is None or len(self.graph.adjacent(b)) < self.max_degree

    # --------------------------------------------------------- forward scoring
    def _score_each(self, b: int, cands: list[int]) -> None:
        """Insert options of a few candidates ``a`` of ``b``, counted one at a time (batched
        per conditioning set)."""
        g = self.graph
        nb = g.neighbors(b)
        pa_b = frozenset(g.parents(b))
        sc = self.score
        near = set().union(*(g.adjacent(u) for u in nb)) if nb else set()
        generic = [a for a in cands if a not in near]
        if generic:  # NaYX = ∅ and T any clique of N(b): the same conditioning sets
            subsets = cliques_within(g, frozenset(), sorted(nb))
            bumps = np.array([
                sc.local_scores_batch(b, pa_b | frozenset(t), generic)
                - sc.local_score(b, pa_b | frozenset(t))
                for t in subsets
            ])
            for a, col in zip(generic, bumps.T.tolist()):
                self._set_options(a, b, [(v, t) for v, t in zip(col, subsets) if v > MIN_GAIN])
            cands = [a for a in cands if a in near]
        per_a = self._near_conditions(b, cands)
        requests: dict[frozenset, list[int]] = {}
        for a, opts in per_a:
            for _, cond in opts:
                requests.setdefault(cond, []).append(a)
        with_x: dict[tuple[frozenset, int], float] = {}
        base: dict[frozenset, float] = {}
        for cond, xs in requests.items():
            base[cond] = sc.local_score(b, cond)
            for x, val in zip(xs, sc.local_scores_batch(b, cond, xs).tolist()):
                with_x[(cond, x)] = val
        for a, opts in per_a:
            scored = [(with_x[(cond, a)] - base[cond], s) for s, cond in opts]
            self._set_options(a, b, [(v, s) for v, s in scored if v > MIN_GAIN])

    def _near_conditions(self, b: int, cands: list[int]) -> list:
        """For candidates ``a`` adjacent to a neighbour of ``b``: ``(a, [(T, NaYX ∪ Pa(b) ∪
        T)])`` over the valid ``T`` (``NaYX ∪ T`` a clique of neighbours of ``b``, hence
        one of the families of :meth:`_rescore_full`); an ``a`` whose ``NaYX`` is no
        clique loses its options."""
        if not cands:
            return []
        g = self.graph
        nb = g.neighbors(b)
        pa_b = frozenset(g.parents(b))
        per_a = []
        clique_cache: dict[tuple[frozenset, tuple[int, ...]], list[tuple[int, ...]]] = {}
        for a in cands:
            adj_a = g.adjacent(a)
            naxy = frozenset(nb & adj_a)
            if naxy and not is_clique(g, sorted(naxy)):
                self.options.pop((a, b), None)
                continue
            tn = tuple(sorted(nb - adj_a))
            subsets = clique_cache.get((naxy, tn))
            if subsets is None:
                subsets = clique_cache[(naxy, tn)] = cliques_within(g, naxy, list(tn))
            per_a.append((a, [(t, naxy | pa_b | frozenset(t)) for t in subsets]))
        return per_a

    def _set_options(self, a: int, b: int, scored: list[tuple[float, tuple[int, ...]]]) -> None:
        if self.knowledge is not None:
            scored = [o for o in scored if self.knowledge.allows_insert(a, b, o[1])]
        if not scored:
            self.options.pop((a, b), None)
            return
        scored.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
        self.options[(a, b)] = scored
        heapq.heappush(self.heap, (-scored[0][0], a, b, self.in_stamp[b]))

    def _rescore_full(self, nodes, cands: list[int] | None = None) -> None:
        """Score every candidate of each node (``cands`` for a single node; default all,
        or the ``max_candidates`` best partners).

        Every valid ``NaYX ∪ T`` is a clique of the target's neighbours, so all options
        come from the families ``(target, Pa ∪ S)``, S such a clique.  In GES mode these
        are counted over all the target's candidates in stacked products (one per node
        when its candidates are a subset: their columns are gathered) and remembered; the
        faithfulness heuristic counts its few candidates one by one."""
        g = self.graph
        batch: list = []
        for y in sorted(nodes):
            if not self._room(y):
                for a in cands or ():
                    self.options.pop((a, y), None)
                continue
            pool = self._all_candidates(y) if cands is None else np.asarray(cands, dtype=np.intp)
            if self.faithful and len(pool) < _BULK_CANDIDATES:
                self._score_each(y, pool.tolist())  # few candidates: counting each is cheaper
                continue
            nb = g.neighbors(y)
            pa = frozenset(g.parents(y))
            subsets = cliques_within(g, frozenset(), sorted(nb))
            generic = np.zeros(self.score.n_vars, dtype=bool)
            generic[pool] = True
            near: list[int] = []
            if nb:
                mask = np.zeros_like(generic)
                mask[list(set().union(*(g.adjacent(u) for u in nb)))] = True
                near = pool[mask[pool]].tolist()
                generic &= ~mask
            batch.append((y, generic, [(y, pa | frozenset(s)) for s in subsets], subsets, near))
        if cands is not None and self.faithful:  # a given list: count it as it is
            for item in batch:
                self._take_gains([item], np.asarray(cands, dtype=np.intp))
        elif self.ranked is None:
            self._take_gains(batch, None)
        else:  # each node's own candidates: their columns are gathered
            for item in batch:
                self._take_gains([item], self.ranked[item[0]])

    def _take_gains(self, batch: list, candidates: np.ndarray | None) -> None:
        """Count the families of ``batch`` (target, generic mask, requests, subsets, near
        candidates) and set the options of every candidate with an improving one.

        The improving gains of a family over its target's own candidates never change, so
        they are remembered (GES mode: over the target's own candidates, a superset of any
        list asked for): a node rescored because its neighbours changed, or for one new
        candidate, recounts only the families it has not had before."""
        keep = candidates is None or self.ranked is not None
        requests = [r for item in batch for r in item[2]]
        todo = list(dict.fromkeys(r for r in requests if r not in self.family_cache))
        rows = {r: self.family_cache[r] for r in requests if r in self.family_cache}
        if todo and (candidates is None or len(candidates)):
            ks, xs, gains = self.score.family_gains(todo, MIN_GAIN, candidates)
            bounds = np.searchsorted(ks, np.arange(len(todo) + 1))
            counted = {r: (xs[bounds[k] : bounds[k + 1]], gains[bounds[k] : bounds[k + 1]])
                       for k, r in enumerate(todo)}
            rows.update(counted)
            if keep:
                self.family_cache.update(counted)
        none = (np.zeros(0, dtype=np.intp), np.zeros(0))
        for y, generic, reqs, subsets, near in batch:
            if len(reqs) == 1 and self.knowledge is None:  # one option a candidate, in order
                xs, gains = rows.get(reqs[0], none)
                sel = generic[xs]
                s, stamp = subsets[0], self.in_stamp[y]
                for x, v in zip(xs[sel].tolist(), gains[sel].tolist()):
                    self.options[(x, y)] = [(v, s)]
                    heapq.heappush(self.heap, (-v, x, y, stamp))
            found: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
            for r, s in zip(reqs if len(reqs) > 1 or self.knowledge is not None else (),
                            subsets):
                xs, gains = rows.get(r, none)
                sel = generic[xs]
                for x, v in zip(xs[sel].tolist(), gains[sel].tolist()):
                    found.setdefault(x, []).append((v, s))
            for a in sorted(found):
                self._set_options(a, y, found[a])
            for a, opts in self._near_conditions(y, near):  # their families were counted too
                scored = []
                for t, cond in opts:
                    xs, gains = rows.get((y, cond), none)
                    k = int(np.searchsorted(xs, a))
                    if k < len(xs) and xs[k] == a:
                        scored.append((float(gains[k]), t))
                self._set_options(a, y, scored)

    # ------------------------------------------------------------ forward
    def _forward(self) -> None:
        g = self.graph
        heap = self.heap
        while heap:
            negb, a, b, sb = heapq.heappop(heap)
            if sb != self.in_stamp[b] or g.is_adjacent(a, b):
                continue
            opts = self.options.get((a, b))
            if not opts or not self._room(a) or not self._room(b):
                continue
            naxy = g.neighbors(b) & g.adjacent(a)
            witnesses = []
            chosen = None
            for k, (_bump, s) in enumerate(opts):
                path = self.semidirected_path(b, a, naxy | set(s))
                if path is None:
                    chosen = k
                    break
                witnesses.append(path)
            if witnesses:
                self._park(a, b, sb, witnesses)
            if chosen is None:
                continue
            bump, t = opts[chosen]
            if bump != -negb:  # not this entry's option: queue it at its own score
                heapq.heappush(heap, (-bump, a, b, sb))
                continue
            if self.knowledge is not None and not self.keeps_knowledge(self.apply_insert, a, b, t):
                del opts[chosen]  # no member of the new class agrees with the knowledge
                if opts:
                    heapq.heappush(heap, (-opts[0][0], a, b, sb))
                continue
            self._insert(a, b, t, bump)

    def _park(self, a: int, b: int, sb: int, witnesses: list[list[int]]) -> None:
        """Remember that ``(a, b)``'s better options are refuted by these paths."""
        g = self.graph
        self.parked[(a, b)] = sb
        for path in witnesses:
            for u, v in zip(path[:-1], path[1:]):
                if g.has_undirected(u, v):
                    self.blockers.setdefault((u, v), set()).add((a, b))

    def _unpark(self) -> None:
        """Re-queue parked arrows one of whose refuting paths a new orientation cut."""
        for p, u in self.oriented:
            for a, b in sorted(self.blockers.pop((u, p), ())):
                sb = self.parked.pop((a, b), None)
                opts = self.options.get((a, b))
                if sb == self.in_stamp[b] and opts and not self.graph.is_adjacent(a, b):
                    heapq.heappush(self.heap, (-opts[0][0], a, b, sb))

    def _insert(self, x: int, y: int, t: tuple[int, ...], bump: float) -> None:
        g = self.graph
        self.n_steps += 1
        self.log_step("INSERT", x, y, t, bump)
        touched = self.apply_insert(x, y, t)
        if self.faithful:  # x's "cover" candidates depend on its adjacencies
            touched.add(x)
        self._rescore_forward(touched)
        # an untouched target w sees the new adjacency src — other only through
        # NaYX(src, w) = N(w) ∩ adj(src), i.e. when other is a neighbour of w
        for src, other in ((x, y), (y, x)):
            for w in sorted(g.neighbors(other) - touched):
                if w != src and not g.is_adjacent(src, w) and self._is_candidate(src, w):
                    self._rescore_full([w], [src])
        self._unpark()
