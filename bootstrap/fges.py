"""Fast Greedy Equivalence Search with the BDeu score (thesis §6.2.2; SPEC §5).

Ramsey, Glymour, Sanchez-Romero & Glymour (2017), "A million variables and more: the
fast greedy equivalence search algorithm ...", on top of Chickering's (2002) GES; the
operators and the CPDAG maintenance are in :mod:`.ges_ops`.

* As in FGES, the best operator for every ordered pair is cached in a priority queue
  ("arrows"); an arrow carries a version stamp of its target's context and is dropped
  when that moves on.  An arrow whose best options fail the semi-directed path test is
  parked with the paths that refuted them, and re-queued only when one of those paths is
  cut by a newly directed edge.
* Which candidate parents are rescored after a step is the ``mode``:

  ``"sweep"`` (default)
      after a step, the touched nodes rescore only their *pool* (pairs with a positive
      pairwise gain, as in FGES's one-edge faithfulness heuristic, plus every pair found
      positive so far); once the queue runs dry, every node whose context changed since
      it was last fully scored is rescored against *all* candidates in one stacked count
      product (:func:`.bdeu_batch.family_gains`), and the search goes on until such a
      sweep finds nothing.  Forward and backward phases alternate until a backward
      phase deletes nothing.  The result is a local optimum of the full GES
      neighbourhood, like GES's, at a fraction of its cost.  With more than
      ``sweep_candidates`` other variables, a sweep scores each node's
      ``sweep_candidates`` best partners by pairwise gain (this bounds the work at large V).
  ``"ges"``
      every touched node rescores every candidate after every step: exactly
      Chickering's GES (it reproduces causal-learn's GES), at a much higher cost.
  ``"faithful"``
      Tetrad's heuristic: only pairs with a positive pairwise gain, then a second
      forward + backward pass that also admits pairs two steps apart through a
      non-collider.  The fastest; it misses edges whose marginal dependence is weak.

Ties are broken by ``(X, Y)`` index order, so a run is a pure function of data, weights
and options.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData
from causalcal.graph import PDAG

from .bdeu import BDeuScore
from .bdeu_batch import family_gains
from .ges_ops import GESState, cliques_within, is_clique

__all__ = ["fges", "FGES", "MODES"]

MODES = ("sweep", "ges", "faithful")
_EPS = 1e-10  # bumps must exceed this to count as improvements
_BULK_CANDIDATES = 64  # from this many candidates of a target, score them as stacked products
SWEEP_CANDIDATES = 2000  # default bound on the candidates per node in a sweep


def fges(
    data: DiscreteData,
    weights: np.ndarray | Sequence[float] | None = None,
    *,
    sample_prior: float = 1.0,
    structure_prior: float = 1.0,
    max_degree: int | None = None,
    mode: str = "sweep",
    sweep_candidates: int = SWEEP_CANDIDATES,
    verbose: bool = False,
    device: str | None = None,
    max_arity: int = DEFAULT_MAX_ARITY,
) -> PDAG:
    """Run FGES with the BDeu score on ``data`` (rows weighted by ``weights``).

    Returns the CPDAG (names = ``data.names``). ``max_degree`` bounds the number of
    adjacencies of any node during the forward phase (``None``: unbounded); ``mode`` is
    ``"sweep"`` (default), ``"ges"`` or ``"faithful"`` (see the module docstring).
    ``device`` (e.g. ``"cuda"``) runs the pairwise count products with torch; a variable
    with more than ``max_arity`` categories is a ``ValueError`` naming the column.
    """
    score = BDeuScore(
        data,
        weights,
        sample_prior=sample_prior,
        structure_prior=structure_prior,
        max_arity=max_arity,
        device=device,
    )
    return FGES(
        score, max_degree=max_degree, mode=mode, sweep_candidates=sweep_candidates,
        verbose=verbose,
    ).search()


class FGES(GESState):
    """The search state; use :func:`fges` unless you need the scorer afterwards."""

    def __init__(
        self,
        score: BDeuScore,
        max_degree: int | None = None,
        mode: str = "sweep",
        sweep_candidates: int = SWEEP_CANDIDATES,
        verbose: bool = False,
    ) -> None:
        if max_degree is not None and (int(max_degree) != max_degree or max_degree < 0):
            raise ValueError(f"max_degree must be a non-negative integer or None, got {max_degree}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if int(sweep_candidates) != sweep_candidates or sweep_candidates < 1:
            raise ValueError(f"sweep_candidates must be a positive integer, got {sweep_candidates}")
        super().__init__(score.n_vars, score.data.names)
        self.score = score
        self.max_degree = None if max_degree is None else int(max_degree)
        self.mode = mode
        self.sweep_candidates = int(sweep_candidates)
        self.verbose = bool(verbose)
        v = score.n_vars
        self.in_stamp = [0] * v
        self.heap: list[tuple] = []
        self.options: dict[tuple[int, int], list[tuple[float, tuple[int, ...]]]] = {}
        self.parked: dict[tuple[int, int], int] = {}
        self.blockers: dict[tuple[int, int], set[tuple[int, int]]] = {}
        self.pool: list[set[int]] = [set() for _ in range(v)]
        self.ranked: list[np.ndarray] | None = None
        self.dirty: set[int] = set()
        self.stage = "effect"  # "faithful" mode's second pass: "cover"
        self.n_steps = 0

    # -------------------------------------------------------------- search
    def search(self) -> PDAG:
        self._seed_pairwise()
        if self.mode == "ges":
            self._forward()
            self._reset_queue()
            self._backward()
        elif self.mode == "faithful":
            self._forward()
            self._reset_queue()
            self._backward()
            self.stage = "cover"
            self._rearm()
            self._forward()
            self._reset_queue()
            self._backward()
        else:
            while True:
                self._forward_with_sweeps()
                self._reset_queue()
                if not self._backward():
                    break
                self._rearm()
        return self.graph

    def _seed_pairwise(self) -> None:
        """First step: every pair with a positive gain, both ways, ``T = ∅``."""
        sc = self.score
        limit = self.sweep_candidates if self.mode == "sweep" else None
        if limit is not None and limit < sc.n_vars - 1:
            gi, gj, gain, self.ranked = sc.pairwise_gains(min_gain=_EPS, top=limit)
        else:
            gi, gj, gain = sc.pairwise_gains(min_gain=_EPS)
        for i, j, b in zip(gi.tolist(), gj.tolist(), gain.tolist()):
            self.pool[i].add(j)
            self.pool[j].add(i)
            for a, t in ((i, j), (j, i)):
                self.options[(a, t)] = [(b, ())]
                heapq.heappush(self.heap, (-b, a, t, 0))

    def _reset_queue(self) -> None:
        self.heap.clear()
        self.options.clear()
        self.parked.clear()
        self.blockers.clear()

    def _rearm(self) -> None:
        """Fresh arrows for every node over its candidates (after a backward phase)."""
        self._reset_queue()
        for y in range(self.score.n_vars):
            self._eval_insert_into(y, self._candidates(y))

    def _forward_with_sweeps(self) -> None:
        while True:
            self._forward()
            if not self.dirty:
                return
            nodes, self.dirty = self.dirty, set()
            self._rescore_full(nodes)

    # ---------------------------------------------------------- candidates
    def _candidates(self, r: int) -> list[int]:
        g = self.graph
        adj = g.adjacent(r)
        if self.mode == "ges":
            pool = range(self.score.n_vars)
        elif self.stage == "cover":  # m with m - n - r and not m -> n <- r, plus the pool
            pool = set(self.pool[r])
            for n in adj:
                r_into_n = n in g.children(r)
                for m in g.adjacent(n):
                    if not (r_into_n and n in g.children(m)):
                        pool.add(m)
        else:
            pool = self.pool[r]
        return sorted(w for w in pool if w != r and w not in adj)

    def _all_candidates(self, r: int) -> np.ndarray:
        """Every non-adjacent variable, or those among the ``sweep_candidates`` best partners
        of ``r`` (sorted)."""
        if self.ranked is None:
            keep = np.ones(self.score.n_vars, dtype=bool)
        else:
            keep = np.zeros(self.score.n_vars, dtype=bool)
            keep[self.ranked[r]] = True
        keep[list(self.graph.adjacent(r))] = False
        keep[r] = False
        return np.flatnonzero(keep)

    def _room(self, b: int) -> bool:
        return self.max_degree is None or len(self.graph.adjacent(b)) < self.max_degree

    # --------------------------------------------------------- forward scoring
    def _eval_insert_into(self, b: int, cands: list[int]) -> None:
        """Score the best Insert(a, b, T) options for every candidate ``a``."""
        if len(cands) >= _BULK_CANDIDATES:
            self._rescore_full([b], cands)
        else:
            self._score_each(b, cands)

    def _score_each(self, b: int, cands: list[int]) -> None:
        """:meth:`_eval_insert_into` one candidate at a time (batched per conditioning set)."""
        g = self.graph
        nb = g.neighbors(b)
        pa_b = frozenset(g.parents(b))
        if not self._room(b):
            for a in cands:
                self.options.pop((a, b), None)
            return
        requests: dict[frozenset, list[int]] = {}
        per_a: list[tuple[int, list[tuple[tuple[int, ...], frozenset]]]] = []
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
            opts = []
            for s in subsets:
                cond = naxy | pa_b | frozenset(s)
                requests.setdefault(cond, []).append(a)
                opts.append((s, cond))
            per_a.append((a, opts))
        sc = self.score
        with_x: dict[tuple[frozenset, int], float] = {}
        base: dict[frozenset, float] = {}
        for cond, xs in requests.items():
            base[cond] = sc.local_score(b, cond)
            for x, val in zip(xs, sc.local_scores_batch(b, cond, xs).tolist()):
                with_x[(cond, x)] = val
        for a, opts in per_a:
            scored = [(with_x[(cond, a)] - base[cond], s) for s, cond in opts]
            self._set_options(a, b, [(v, s) for v, s in scored if v > _EPS])

    def _set_options(self, a: int, b: int, scored: list[tuple[float, tuple[int, ...]]]) -> None:
        if not scored:
            self.options.pop((a, b), None)
            return
        scored.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
        self.options[(a, b)] = scored
        heapq.heappush(self.heap, (-scored[0][0], a, b, self.in_stamp[b]))

    def _rescore_full(self, nodes, cands: list[int] | None = None) -> None:
        """Score every candidate of each node (``cands`` for a single node; default all).

        Candidates adjacent to no neighbour of their target share ``NaYX = ∅`` and the
        cliques of its neighbours as ``T``: all ``(target, Pa ∪ T)`` families are counted
        in stacked products; the few others are scored one by one."""
        g = self.graph
        requests: list[tuple[int, frozenset[int]]] = []
        plan = []
        for y in sorted(nodes):
            if not self._room(y):
                continue
            pool = self._all_candidates(y) if cands is None else np.asarray(cands, dtype=np.intp)
            generic = np.zeros(self.score.n_vars, dtype=bool)
            generic[pool] = True
            nb = g.neighbors(y)
            if nb:
                near = np.zeros_like(generic)
                near[list(set().union(*(g.adjacent(u) for u in nb)))] = True
                self._score_each(y, pool[near[pool]].tolist())
                generic &= ~near
            subsets = cliques_within(g, frozenset(), sorted(nb))
            plan.append((y, generic, subsets, len(requests)))
            pa = frozenset(g.parents(y))
            requests.extend((y, pa | frozenset(s)) for s in subsets)
        if not requests:
            return
        ks, xs, gains = family_gains(self.score, requests, min_gain=_EPS)
        bounds = np.searchsorted(ks, np.arange(len(requests) + 1))
        for y, generic, subsets, k0 in plan:
            found: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
            for k, s in enumerate(subsets):
                lo, hi = bounds[k0 + k], bounds[k0 + k + 1]
                sel = generic[xs[lo:hi]]
                for x, v in zip(xs[lo:hi][sel].tolist(), gains[lo:hi][sel].tolist()):
                    found.setdefault(x, []).append((v, s))
            for a in sorted(found):
                self._set_options(a, y, found[a])
                if self.mode == "sweep":
                    self.pool[y].add(a)
                    self.pool[a].add(y)

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
        if self.verbose:
            print(f"INSERT {g.names[x]} -> {g.names[y]} T={[g.names[k] for k in t]} {bump:.4f}")
        touched = self.apply_insert(x, y, t)
        for u in touched:
            self.in_stamp[u] += 1
        if self.mode == "ges":
            self._rescore_full(touched)
        else:
            for u in sorted(touched):
                self._eval_insert_into(u, self._candidates(u))
            if self.mode == "sweep":
                self.dirty |= touched
        # an untouched target w sees the new adjacency src — other only through
        # NaYX(src, w) = N(w) ∩ adj(src), i.e. when other is a neighbour of w
        for src, other in ((x, y), (y, x)):
            for w in sorted(g.neighbors(other) - touched):
                if w != src and not g.is_adjacent(src, w) and self._watches(w, src):
                    self._eval_insert_into(w, [src])
        self._unpark()

    def _watches(self, w: int, src: int) -> bool:
        if self.mode == "faithful":
            return src in self._candidates(w)
        return self.ranked is None or src in self.pool[w] or src in set(self.ranked[w].tolist())

    # ----------------------------------------------------------- backward
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
                if bump > _EPS and (best is None or (bump, -len(h)) > (best[0], -len(best[1]))):
                    best = (bump, h)
            if best is None:
                self.options.pop((x, y), None)
                continue
            self.options[(x, y)] = [best]
            heapq.heappush(self.heap, (-best[0], x, y, sy))

    def _backward(self) -> int:
        """The backward phase; returns the number of deletions."""
        g = self.graph
        for y in range(g.n_vars):
            self._eval_delete_into(y, sorted(g.parents(y) | g.neighbors(y)))
        heap = self.heap
        done = 0
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
            self._delete(x, y, h, bump)
            done += 1
        return done

    def _delete(self, x: int, y: int, h: tuple[int, ...], bump: float) -> None:
        g = self.graph
        self.n_steps += 1
        if self.verbose:
            print(f"DELETE {g.names[x]} - {g.names[y]} H={[g.names[k] for k in h]} {bump:.4f}")
        touched = self.apply_delete(x, y, h)
        for u in touched:
            self.in_stamp[u] += 1
        if self.mode == "sweep":
            self.dirty |= touched
        # (a Delete arrow src → w with src ∈ {x, y} changes only if w was adjacent to both,
        # and those common neighbours are in ``touched``)
        for u in sorted(touched):
            self._eval_delete_into(u, sorted(g.parents(u) | g.neighbors(u)))
