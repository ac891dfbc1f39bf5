"""Fast Greedy Equivalence Search with the BDeu score (thesis §6.2.2; SPEC §5).

Ramsey, Glymour, Sanchez-Romero & Glymour (2017), "A million variables and more: the
fast greedy equivalence search algorithm ...", on top of Chickering (2002), "Optimal
structure identification with greedy search":

* The state is a CPDAG. The forward phase applies Insert(X, Y, T) (add ``X → Y``, orient
  ``T — Y`` as ``T → Y``), valid iff ``NaYX ∪ T`` is a clique and every semi-directed path
  ``Y ⇝ X`` meets ``NaYX ∪ T`` (Chickering's Theorem 15); its score change is
  ``s(Y | NaYX ∪ T ∪ Pa_Y ∪ {X}) − s(Y | NaYX ∪ T ∪ Pa_Y)``. The backward phase applies
  Delete(X, Y, H) (remove the edge, orient ``Y — h``/``X — h`` into ``h`` for ``h ∈ H``),
  valid iff ``NaYX \\ H`` is a clique (Theorem 17), score change
  ``s(Y | NaYX \\ H ∪ Pa_Y \\ {X}) − s(Y | NaYX \\ H ∪ Pa_Y ∪ {X})``.
* As in FGES, the best operator for every ordered pair is cached in a priority queue
  ("arrows") and only the arrows whose context changed are rescored after a step;
  an arrow remembers a version stamp of its target's context and is discarded when it
  moves on (or when a rescoring replaced its best option).  Candidate parents of a
  target that share a conditioning set are scored in one batched count
  (:meth:`BDeuScore.local_scores_batch`).
* After each operator the CPDAG is restored locally: only edges into ``Y`` and nodes
  semi-directed reachable from ``Y`` can change status (a compelled label depends only on
  the ancestors of its head, Chickering 1995), so those edges are reset to the pattern
  (v-structures kept) and Meek's rules are re-applied from there.
* ``faithfulness_assumed=True`` (the default; Tetrad's one-edge faithfulness heuristic):
  candidate pairs are those whose empty-set gain ``s(Y | {X}) − s(Y | ∅)`` is positive
  ("effect edges"); as in Tetrad's ``Fges.search`` a second forward + backward pass then
  also admits pairs two steps apart through a non-collider ("cover non-colliders").
  It can miss edges whose marginal dependence is weak, so its score can fall below
  GES's.  ``faithfulness_assumed=False`` runs the full GES neighbourhood (every
  non-adjacent pair, exactly Chickering's GES; it reproduces causal-learn's GES result)
  at a much higher cost for large V.  Ties are broken by ``(X, Y)`` index order, so a run
  is a pure function of data, weights and options.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from causalcal.data import DEFAULT_MAX_ARITY, DiscreteData
from causalcal.graph import PDAG, apply_meek_rules, dag_to_cpdag, pdag_to_dag

from .bdeu import BDeuScore

__all__ = ["fges", "FGES"]

_EPS = 1e-10  # bumps must exceed this to count as improvements
_BULK_CANDIDATES = 64  # score this many same-context candidates of a target as arrays


def fges(
    data: DiscreteData,
    weights: np.ndarray | Sequence[float] | None = None,
    *,
    sample_prior: float = 1.0,
    structure_prior: float = 1.0,
    max_degree: int | None = None,
    faithfulness_assumed: bool = True,
    verbose: bool = False,
    device: str | None = None,
    max_arity: int = DEFAULT_MAX_ARITY,
) -> PDAG:
    """Run FGES with the BDeu score on ``data`` (rows weighted by ``weights``).

    Returns the CPDAG (names = ``data.names``). ``max_degree`` bounds the number of
    adjacencies of any node during the forward phase (``None``: unbounded).
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
        score, max_degree=max_degree, faithfulness_assumed=faithfulness_assumed, verbose=verbose
    ).search()


def _cliques_within(g: PDAG, base: frozenset[int], cands: list[int]) -> list[tuple[int, ...]]:
    """All subsets S of ``cands`` (sorted tuples) with ``base ∪ S`` a clique of ``g``.

    ``base`` is assumed to be a clique already.
    """
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


def _is_clique(g: PDAG, nodes: Sequence[int]) -> bool:
    for i in range(len(nodes)):
        adj = g.adjacent(nodes[i])
        for j in range(i + 1, len(nodes)):
            if nodes[j] not in adj:
                return False
    return True


class FGES:
    """The search state; use :func:`fges` unless you need the scorer afterwards."""

    def __init__(
        self,
        score: BDeuScore,
        max_degree: int | None = None,
        faithfulness_assumed: bool = True,
        verbose: bool = False,
    ) -> None:
        if max_degree is not None and (int(max_degree) != max_degree or max_degree < 0):
            raise ValueError(f"max_degree must be a non-negative integer or None, got {max_degree}")
        self.score = score
        self.max_degree = None if max_degree is None else int(max_degree)
        self.faithfulness_assumed = bool(faithfulness_assumed)
        self.verbose = bool(verbose)
        v = score.n_vars
        self.graph = PDAG(v, score.data.names)
        self.in_stamp = [0] * v
        self.heap: list[tuple] = []
        self.options: dict[tuple[int, int], list[tuple[float, tuple[int, ...]]]] = {}
        self.parked: set[tuple[int, int, int]] = set()
        self.effect: list[set[int]] = [set() for _ in range(v)]
        self.mode = "effect"
        self.n_steps = 0
        self.check_cpdag = False

    # -------------------------------------------------------------- search
    def search(self) -> PDAG:
        gi, gj, gain = self.score.pairwise_gains(min_gain=_EPS)
        for i, j in zip(gi.tolist(), gj.tolist()):
            self.effect[i].add(j)
            self.effect[j].add(i)
        # first step: every positive pair both ways, T = ∅, scored by the batched gains
        for i, j, b in zip(gi.tolist(), gj.tolist(), gain.tolist()):
            for a, t in ((i, j), (j, i)):
                self.options[(a, t)] = [(b, ())]
                heapq.heappush(self.heap, (-b, a, t, 0))
        if not self.faithfulness_assumed:
            # full GES: every non-adjacent pair is a candidate from the start
            self.mode = "all"
            self._run_phases(initial=False)
            return self.graph
        # Tetrad's schedule: effect edges only, then also "cover non-colliders"
        # (pairs two steps apart through a non-collider), each a forward + backward pass.
        self.mode = "effect"
        self._run_phases(initial=False)
        self.mode = "cover"
        self._run_phases(initial=True)
        return self.graph

    def _reset_queue(self) -> None:
        self.heap.clear()
        self.options.clear()
        self.parked.clear()

    def _run_phases(self, initial: bool) -> None:
        if initial:
            self._reset_queue()
            for y in range(self.score.n_vars):
                self._eval_insert_into(y, self._candidates(y))
        self._forward()
        self._reset_queue()
        self._backward()
        self._reset_queue()

    # ---------------------------------------------------------- utilities
    def _candidates(self, r: int) -> list[int]:
        g = self.graph
        adj = g.adjacent(r)
        if self.mode == "all":
            pool = range(self.score.n_vars)
        elif self.mode == "effect":
            pool = self.effect[r]
        else:  # cover non-colliders: m with m - n - r and not m -> n <- r, plus effect
            pool = set(self.effect[r])
            for n in adj:
                r_into_n = n in g.children(r)
                for m in g.adjacent(n):
                    if r_into_n and n in g.children(m):
                        continue
                    pool.add(m)
        return sorted(w for w in pool if w != r and w not in adj)

    def _degree_ok(self, a: int, b: int) -> bool:
        if self.max_degree is None:
            return True
        g = self.graph
        return len(g.adjacent(a)) < self.max_degree and len(g.adjacent(b)) < self.max_degree

    def _semidirected_blocked(self, start: int, goal: int, cond: set[int]) -> bool:
        """True iff every semi-directed path ``start ⇝ goal`` passes through ``cond``."""
        g = self.graph
        seen = {start}
        stack = [start]
        while stack:
            t = stack.pop()
            for nxt in (g.children(t), g.neighbors(t)):
                for c in nxt:
                    if c in seen or c in cond:
                        continue
                    if c == goal:
                        return False
                    seen.add(c)
                    stack.append(c)
        return True

    def _snapshot(self, nodes) -> dict[int, tuple[frozenset, frozenset]]:
        g = self.graph
        return {u: (frozenset(g.parents(u)), frozenset(g.neighbors(u))) for u in nodes}

    def _reach(self, y: int, skip: set[int]) -> set[int]:
        """Nodes semi-directed reachable from ``y`` (``y`` included), not leaving ``y``
        through ``skip`` in the first step."""
        g = self.graph
        seen = {y}
        stack = [y]
        first = True
        while stack:
            t = stack.pop()
            for nxt in (g.children(t), g.neighbors(t)):
                for c in nxt:
                    if c in seen or (first and c in skip):
                        continue
                    seen.add(c)
                    stack.append(c)
            first = False
        return seen

    def _complete(self, y: int, skip: set[int]) -> set[int]:
        """Restore the CPDAG after an operator at target ``y``; return the nodes whose
        parents or neighbours changed."""
        g = self.graph
        region = self._reach(y, skip)
        if self.check_cpdag:
            everything = self._snapshot(range(g.n_vars))
        # edges into / around the region may change type: their other ends change too
        watch = set(region)
        for b in region:
            watch |= g.parents(b)
            watch |= g.neighbors(b)
        before = self._snapshot(watch)
        for b in region:
            pa = list(g.parents(b))
            if not pa:
                continue
            keep = set()
            for i in range(len(pa)):
                adj_i = g.adjacent(pa[i])
                for j in range(i + 1, len(pa)):
                    if pa[j] not in adj_i:
                        keep.add(pa[i])
                        keep.add(pa[j])
            for a in pa:
                if a not in keep:
                    g.undirect(a, b)
        apply_meek_rules(g, region)
        if self.check_cpdag:  # debugging aid used by the tests: compare with a global rebuild
            full = dag_to_cpdag(pdag_to_dag(g))
            if full != g:
                raise AssertionError("local CPDAG completion disagrees with the global one")
        after = self._snapshot(watch)
        changed = {u for u in watch if before[u] != after[u]}
        if self.check_cpdag:
            now = self._snapshot(range(g.n_vars))
            if {u for u in now if now[u] != everything[u]} != changed:
                raise AssertionError("a node changed outside the watched region")
        return changed

    # ------------------------------------------------------------ operators
    def apply_insert(self, x: int, y: int, t: Sequence[int]) -> set[int]:
        """Apply Insert(x, y, T) to the CPDAG and re-complete it (no validity check).

        Returns the nodes whose local context changed (for rescoring).
        """
        g = self.graph
        naxy = g.neighbors(y) & g.adjacent(x)
        common_before = g.neighbors(x) & g.neighbors(y)
        g.add_directed(x, y)
        for k in t:
            g.orient(k, y)
        changed = self._complete(y, set(naxy))
        common = (g.neighbors(x) & g.neighbors(y)) | common_before
        return changed | {x, y} | set(t) | common

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
        changed = self._complete(y, set())
        changed |= self._complete(x, set())
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
        return _is_clique(g, sorted(cond)) and self._semidirected_blocked(y, x, cond)

    def delete_is_valid(self, x: int, y: int, h: Sequence[int]) -> bool:
        """Chickering's Theorem 17: ``x → y`` or ``x — y``, ``H ⊆ NaYX`` and ``NaYX − H``
        a clique."""
        g = self.graph
        if not (g.has_directed(x, y) or g.has_undirected(x, y)):
            return False
        naxy = g.neighbors(y) & g.adjacent(x)
        if not set(h) <= naxy:
            return False
        return _is_clique(g, sorted(naxy - set(h)))

    # ------------------------------------------------------------ forward
    def _eval_insert_into(self, b: int, cands: list[int]) -> None:
        """Score the best Insert(a, b, T) options for every candidate ``a``."""
        g = self.graph
        nb = g.neighbors(b)
        pa_b = frozenset(g.parents(b))
        sb = self.in_stamp[b]
        if self.max_degree is not None and len(g.adjacent(b)) >= self.max_degree:
            for a in cands:
                self.options.pop((a, b), None)
            return
        if len(cands) >= _BULK_CANDIDATES:
            # candidates adjacent to no neighbour of b share NaYX = ∅ and T-neighbours N(b):
            # score them together as arrays, the few others one by one below
            near = set().union(*(g.adjacent(u) for u in nb)) if nb else set()
            generic = [a for a in cands if a not in near]
            if len(generic) >= _BULK_CANDIDATES:
                self._eval_generic_into(b, generic)
                cands = [a for a in cands if a in near]
        requests: dict[frozenset, list[int]] = {}
        per_a: list[tuple[int, list[tuple[tuple[int, ...], frozenset]]]] = []
        clique_cache: dict[tuple[frozenset, tuple[int, ...]], list[tuple[int, ...]]] = {}
        for a in cands:
            adj_a = g.adjacent(a)
            naxy = frozenset(nb & adj_a)
            if naxy and not _is_clique(g, sorted(naxy)):
                self.options.pop((a, b), None)
                continue
            tn = tuple(sorted(nb - adj_a))
            key = (naxy, tn)
            subsets = clique_cache.get(key)
            if subsets is None:
                subsets = _cliques_within(g, naxy, list(tn))
                clique_cache[key] = subsets
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
            vals = sc.local_scores_batch(b, cond, xs)
            for x, val in zip(xs, vals.tolist()):
                with_x[(cond, x)] = val
        for a, opts in per_a:
            scored = []
            for s, cond in opts:
                bump = with_x[(cond, a)] - base[cond]
                if bump > _EPS:
                    scored.append((bump, s))
            if not scored:
                self.options.pop((a, b), None)
                continue
            scored.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
            self.options[(a, b)] = scored
            heapq.heappush(self.heap, (-scored[0][0], a, b, sb))

    def _eval_generic_into(self, b: int, cands: list[int]) -> None:
        """:meth:`_eval_insert_into` for candidates not adjacent to any neighbour of ``b``."""
        g = self.graph
        pa_b = frozenset(g.parents(b))
        subsets = _cliques_within(g, frozenset(), sorted(g.neighbors(b)))
        sc = self.score
        bumps = np.empty((len(subsets), len(cands)))
        for k, s in enumerate(subsets):
            cond = pa_b | frozenset(s)
            bumps[k] = sc.local_scores_batch(b, cond, cands, use_cache=False) - sc.local_score(
                b, cond
            )
        good = bumps > _EPS
        any_good = good.any(axis=0).tolist()
        sb = self.in_stamp[b]
        for col, a in enumerate(cands):
            if not any_good[col]:
                self.options.pop((a, b), None)
                continue
            scored = [(float(bumps[k, col]), subsets[k]) for k in np.flatnonzero(good[:, col])]
            scored.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
            self.options[(a, b)] = scored
            heapq.heappush(self.heap, (-scored[0][0], a, b, sb))

    def _forward(self) -> None:
        g = self.graph
        heap = self.heap
        while heap:
            negb, a, b, sb = heapq.heappop(heap)
            if sb != self.in_stamp[b] or g.is_adjacent(a, b):
                continue
            opts = self.options.get((a, b))
            if not opts or -negb != opts[0][0]:
                continue
            if not self._degree_ok(a, b):
                continue
            naxy = g.neighbors(b) & g.adjacent(a)
            chosen = None
            for k, (_bump, s) in enumerate(opts):
                if self._semidirected_blocked(b, a, naxy | set(s)):
                    chosen = k
                    break
            if chosen is None:
                self.parked.add((a, b, sb))
                continue
            if chosen > 0:
                # a lower-scoring option is the best valid one: requeue in its place
                self.parked.add((a, b, sb))
                self.options[(a, b)] = opts[chosen:]
                heapq.heappush(heap, (-opts[chosen][0], a, b, sb))
                continue
            bump, t = opts[0]
            self._insert(a, b, t, naxy, bump)

    def _insert(self, x: int, y: int, t: tuple[int, ...], naxy: set[int], bump: float) -> None:
        g = self.graph
        self.n_steps += 1
        if self.verbose:
            print(f"INSERT {g.names[x]} -> {g.names[y]} T={[g.names[k] for k in t]} {bump:.4f}")
        touched = self.apply_insert(x, y, t)
        for u in touched:
            self.in_stamp[u] += 1
        for u in sorted(touched):
            self._eval_insert_into(u, self._candidates(u))
        # an untouched target w sees the new adjacency src — other only through
        # NaYX(src, w) = N(w) ∩ adj(src), i.e. when other is a neighbour of w
        for src, other in ((x, y), (y, x)):
            for w in sorted(g.neighbors(other) - touched):
                if w != src and not g.is_adjacent(src, w) and src in self._candidates(w):
                    self._eval_insert_into(w, [src])
        # arrows that failed the path test may have become valid: requeue them
        parked = self.parked
        self.parked = set()
        for a, b, sb in sorted(parked):
            opts = self.options.get((a, b))
            # requeue only if the target's context (hence the options) is unchanged;
            # otherwise the target was rescored and requeued already
            if opts and sb == self.in_stamp[b] and not g.is_adjacent(a, b):
                heapq.heappush(self.heap, (-opts[0][0], a, b, sb))

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
            for k_set in _cliques_within(g, frozenset(), naxy):
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

    def _backward(self) -> None:
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
            self._delete(x, y, h, bump)

    def _delete(self, x: int, y: int, h: tuple[int, ...], bump: float) -> None:
        g = self.graph
        self.n_steps += 1
        if self.verbose:
            print(f"DELETE {g.names[x]} - {g.names[y]} H={[g.names[k] for k in h]} {bump:.4f}")
        touched = self.apply_delete(x, y, h)
        for u in touched:
            self.in_stamp[u] += 1
        # (a Delete arrow src → w with src ∈ {x, y} changes only if w was adjacent to both,
        # and those common neighbours are in ``touched``)
        for u in sorted(touched):
            self._eval_delete_into(u, sorted(g.parents(u) | g.neighbors(u)))
