"""Random discrete Bayesian networks as in thesis §6.2.4 step 1 (docs/design.md §4).

"We set the number of nodes in the BN to be 1000 or 5000 … the average edge per node
to be 1, 2, or 3 … the nodes … might take two or three values randomly. We parametrize
the CPTs … by uniformly randomly sampling the probability distribution for the child
given each state of its parents."

Generator convention (checked against thesis Table 31 by ``benchmarks/table31.py``):
a uniformly random topological order; exactly ``n_edges`` distinct pairs drawn
uniformly from the ``V(V−1)/2`` pairs and oriented along that order (a uniform
random DAG with ``n_edges`` edges given the order); no degree bound. This plain
convention already reproduces Table 31's mean directed / undirected CPDAG edge
counts within a few percent, so no Tetrad-style degree bound is applied by default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from causalcal._progress import progress as progress_report
from causalcal.edges import n_pairs, pair_from_index
from causalcal.errors import InputError
from causalcal.simulate.network import (
    PROGRESS_MIN_VARS,
    BayesianNetwork,
    SeedLike,
    _check_count,
)

__all__ = ["DEFAULT_MAX_CPT_ENTRIES", "random_dag", "random_network"]

#: Largest CPT (parent configurations × arity, float64 entries) that
#: :func:`random_network` builds: 2**26 entries = 512 MiB. Thesis-sized networks
#: (V = 5000, E = 15000, arities 2–3, no degree bound) have a largest CPT of about
#: 2 M entries (median); 2.5 % of them exceed 2**24 but none of 200 seeds exceeded 2**26.
DEFAULT_MAX_CPT_ENTRIES = 2**26


def _max_edges(n_nodes: int, max_in_degree: int | None) -> int:
    """Most edges a DAG on ``n_nodes`` nodes can have with the in-degree bound."""
    if max_in_degree is None or max_in_degree >= n_nodes - 1:
        return n_pairs(n_nodes)
    k = max_in_degree
    # node at topological position p can have min(p, k) parents.
    return k * (k - 1) // 2 + k * (n_nodes - k) if n_nodes > k else n_pairs(n_nodes)


def _bounded_edges(
    n_nodes: int, n_edges: int, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(lo, hi)`` (lo < hi in topological order) of ``n_edges`` edges, in-degree ≤ k.

    Pairs are chosen one at a time uniformly among those still allowed (not yet
    chosen, child below the bound); the loop runs over batches of uniform draws,
    accepting in draw order, which realises exactly that sequential process.
    """
    total = n_pairs(n_nodes)
    indeg = np.zeros(n_nodes, dtype=np.int64)
    chosen = np.zeros(0, dtype=np.int64)
    lo_parts: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    hi_parts: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    need = n_edges
    positions = np.arange(n_nodes, dtype=np.int64)
    while need > 0:
        eligible = int(np.sum(np.where(indeg < k, positions - indeg, 0)))
        if eligible * 20 < total:
            # Few allowed pairs left: enumerate them and process a random permutation.
            free = np.flatnonzero(indeg < k)
            his = np.repeat(free, free)  # every (lo, hi) with hi free
            los = np.concatenate([np.arange(h, dtype=np.int64) for h in free]) if len(free) else his
            keys = los * n_nodes + his
            taken = np.isin(keys, chosen)
            los, his = los[~taken], his[~taken]
            perm = rng.permutation(len(los))
            cand_lo, cand_hi = los[perm], his[perm]
        else:
            batch = max(2 * need * total // max(eligible, 1), 1024)
            idx = rng.integers(0, total, size=batch)
            # keep first occurrences in draw order
            _, first = np.unique(idx, return_index=True)
            idx = idx[np.sort(first)]
            # internal position pairs: pair_from_index gives (i, j) with i < j
            cand_lo, cand_hi = pair_from_index(idx, n_nodes)
            keys = cand_lo * n_nodes + cand_hi
            fresh = ~np.isin(keys, chosen)
            cand_lo, cand_hi = cand_lo[fresh], cand_hi[fresh]
        # rank of each candidate among earlier candidates with the same child
        order = np.argsort(cand_hi, kind="stable")
        sorted_hi = cand_hi[order]
        starts = np.r_[0, np.flatnonzero(sorted_hi[1:] != sorted_hi[:-1]) + 1]
        group_start = np.repeat(starts, np.diff(np.r_[starts, len(sorted_hi)]))
        rank = np.empty(len(cand_hi), dtype=np.int64)
        rank[order] = np.arange(len(sorted_hi)) - group_start
        accept = np.flatnonzero(indeg[cand_hi] + rank < k)[:need]
        a_lo, a_hi = cand_lo[accept], cand_hi[accept]
        np.add.at(indeg, a_hi, 1)
        chosen = np.union1d(chosen, a_lo * n_nodes + a_hi)
        lo_parts.append(a_lo)
        hi_parts.append(a_hi)
        need -= len(accept)
    return np.concatenate(lo_parts), np.concatenate(hi_parts)


def random_dag(
    n_nodes: int,
    n_edges: int,
    seed: SeedLike = None,
    max_in_degree: int | None = None,
) -> list[np.ndarray]:
    """Parent sets of a random DAG: random topological order, ``n_edges`` uniform forward pairs.

    Without ``max_in_degree`` the edge set is uniform over all ``n_edges``-subsets of
    the ``V(V−1)/2`` pairs (oriented along a uniformly random order). With it, edges
    are added one at a time, each uniform among the pairs whose child is still below
    the bound. Returns sorted parent-index arrays, one per node.
    """
    n_nodes = _check_count(n_nodes, "n_nodes")
    n_edges = _check_count(n_edges, "n_edges", minimum=0)
    if max_in_degree is not None:
        max_in_degree = _check_count(max_in_degree, "max_in_degree", minimum=0)
    limit = _max_edges(n_nodes, max_in_degree)
    if n_edges > limit:
        bound = "" if max_in_degree is None else f" with max_in_degree={max_in_degree}"
        raise InputError(
            f"n_edges={n_edges} is more than a DAG on {n_nodes} nodes can have{bound} "
            f"(at most {limit})"
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(n_nodes)
    if max_in_degree is None or max_in_degree >= n_nodes - 1:
        idx = rng.choice(n_pairs(n_nodes), size=n_edges, replace=False) if n_edges else []
        lo, hi = pair_from_index(np.asarray(idx, dtype=np.int64), n_nodes)
    else:
        lo, hi = _bounded_edges(n_nodes, n_edges, max_in_degree, rng)
    parent, child = order[lo], order[hi]
    sort = np.lexsort((parent, child))
    parent, child = parent[sort], child[sort]
    bounds = np.searchsorted(child, np.arange(n_nodes + 1))
    return [parent[bounds[v]:bounds[v + 1]].astype(np.int64) for v in range(n_nodes)]


def random_network(
    n_nodes: int,
    n_edges: int,
    arities: int | Sequence[int] = (2, 3),
    seed: SeedLike = None,
    max_in_degree: int | None = None,
    max_cpt_entries: int = DEFAULT_MAX_CPT_ENTRIES,
    progress: bool | None = False,
) -> BayesianNetwork:
    """A random discrete Bayesian network as in thesis §6.2.4 (see module docstring).

    Parameters
    ----------
    n_nodes : number of variables V ≥ 1 (named ``X0 … X{V−1}``; their index order is
        independent of the random causal order).
    n_edges : exact number of edges, 0 ≤ E ≤ V(V−1)/2 (or the in-degree-bounded maximum).
    arities : the allowed arities (each ≥ 2); every node's arity is drawn uniformly
        from them. An int means all nodes have that arity.
    seed : int, ``SeedSequence`` or ``Generator``; the same seed gives the same network.
    max_in_degree : optional bound on the number of parents of every node.
    max_cpt_entries : refuse a CPT with more entries (parent configurations × arity)
        than this (default :data:`DEFAULT_MAX_CPT_ENTRIES` = 2**26); pass
        ``max_in_degree`` (or raise the cap) when a dense network hits it.
    progress : tqdm bar over nodes while drawing CPTs (``None``: only for V ≥ 1000).

    Each CPT row (one per parent configuration) is an independent draw from the flat
    Dirichlet(1, …, 1) — the uniform distribution on the probability simplex —
    realised as i.i.d. Exp(1) variables divided by their sum.
    """
    n_nodes = _check_count(n_nodes, "n_nodes")
    n_edges = _check_count(n_edges, "n_edges", minimum=0)
    choices = _check_arities(arities)
    max_cpt_entries = _check_count(max_cpt_entries, "max_cpt_entries")
    rng = np.random.default_rng(seed)
    graph_seed, arity_seed, cpt_seed = rng.spawn(3) if hasattr(rng, "spawn") else (rng, rng, rng)
    parents = random_dag(n_nodes, n_edges, seed=graph_seed, max_in_degree=max_in_degree)
    ar = choices[np.random.default_rng(arity_seed).integers(0, len(choices), size=n_nodes)]
    # Check every CPT size before allocating any.
    log_rows = np.array([float(np.sum(np.log2(ar[pa]))) for pa in parents])
    log_size = log_rows + np.log2(ar)
    worst = int(np.argmax(log_size)) if n_nodes else 0
    if n_nodes and log_size[worst] > math.log2(max_cpt_entries) + 1e-9:
        size = int(np.prod(ar[parents[worst]], dtype=object)) * int(ar[worst])
        hint = (
            "pass a smaller max_in_degree"
            if max_in_degree is not None
            else "pass max_in_degree to bound the number of parents"
        )
        raise InputError(
            f"node X{worst} has {len(parents[worst])} parents and a CPT of {size:,} entries, "
            f"more than max_cpt_entries={max_cpt_entries:,}; {hint} or raise max_cpt_entries"
        )
    cpt_rng = np.random.default_rng(cpt_seed)
    cpts = []
    for v in progress_report(range(n_nodes), desc="CPTs", unit="var", leave=False,
                             enabled=progress, min_total=PROGRESS_MIN_VARS):
        rows = int(np.prod(ar[parents[v]], dtype=np.int64))
        draws = cpt_rng.standard_exponential((rows, int(ar[v])))
        draws /= draws.sum(axis=1, keepdims=True)
        cpts.append(draws)
    meta = {
        "generator": "causalcal.simulate.random_network",
        "n_nodes": n_nodes,
        "n_edges": n_edges,
        "arities": [int(a) for a in choices],
        "max_in_degree": max_in_degree,
        "seed": int(seed) if isinstance(seed, (int, np.integer)) else None,
    }
    return BayesianNetwork([f"X{k}" for k in range(n_nodes)], ar, parents, cpts, meta=meta)


def _check_arities(arities: int | Sequence[int]) -> np.ndarray:
    if isinstance(arities, (int, np.integer)) and not isinstance(arities, bool):
        arities = [int(arities)]
    try:
        values = [a for a in arities]  # noqa: C416 - accept any iterable
    except TypeError:
        raise InputError(f"arities must be an int or a sequence of ints, got {arities!r}") from None
    if not values:
        raise InputError("arities must list at least one arity")
    out = []
    for a in values:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise InputError(f"arities must be integers, got {a!r}")
        if a < 2:
            raise InputError(f"every arity must be >= 2, got {a}")
        out.append(int(a))
    return np.asarray(out, dtype=np.int64)
