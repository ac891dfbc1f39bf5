"""Benchmark: ancestral counts in the bootstrap pass (docs/design.md §3.1, §6.1; issue 30).

1. V = 1000, E = 2000, n = ``--samples``: ``--n-boot`` (200) replicates in this one
   process, interleaved: the FGES search of replicate b, the edge-type counter's ``add``,
   then the ancestral accumulator's ``add`` on the same (keys, labels). Prints the summed
   times and the ratio ancestral / (search + counter) — the added time of
   ``ancestral=True`` on one core (with ``n_jobs`` > 1 the sink runs in the parent while
   workers search, so the wall-clock share is at most this). Target: ≤ 10 %.
2. A bad case for the definite relation: the CPDAG of a random tree (every edge
   undirected, one chordal component of V nodes), time per ``add`` at V = 1000 and 5000.
3. Memory at V = 5000: the accumulator's peak (numpy allocations, ``tracemalloc``) over
   ``--big-reps`` FGES replicates of a V = 5000, E = 10000 network (0: the true DAG's
   CPDAG and the tree CPDAG instead), and the process's peak RSS.

Usage::

    python benchmarks/ancestral.py                 # full (tens of minutes on 2 cores)
    python benchmarks/ancestral.py --quick         # seconds

Timings on a shared machine are only indicative; quote the load with them.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from causalcal.bootstrap import EdgeTypeCounter, bootstrap_weights  # noqa: E402
from causalcal.bootstrap.ancestral import AncestralAccumulator  # noqa: E402
from causalcal.bootstrap.search.registry import get_search  # noqa: E402
from causalcal.edges import pair_index  # noqa: E402
from causalcal.graph import PDAG, dag_to_cpdag  # noqa: E402
from causalcal.simulate import random_network  # noqa: E402


def _keys(g: PDAG) -> tuple[np.ndarray, np.ndarray]:
    pairs, labels = g.pair_labels()
    keys = pair_index(pairs[:, 0], pairs[:, 1], g.n_vars)
    order = np.argsort(keys)
    return keys[order], labels[order]


def interleaved(v: int, e: int, n: int, n_boot: int, seed: int) -> None:
    data = random_network(v, e, seed=seed).sample(n, seed=seed + 1)
    fges = get_search("fges")
    counter, acc = EdgeTypeCounter(v), AncestralAccumulator(v, n_boot)
    t_search = t_count = t_anc = 0.0
    undirected = []
    for b in range(n_boot):
        t0 = time.perf_counter()
        g = fges(data, bootstrap_weights(n, seed, b))
        keys, labels = _keys(g)
        t1 = time.perf_counter()
        counter.add(keys, labels)
        t2 = time.perf_counter()
        acc.add(keys, labels)
        t3 = time.perf_counter()
        t_search, t_count, t_anc = t_search + t1 - t0, t_count + t2 - t1, t_anc + t3 - t2
        undirected.append(g.n_undirected)
    t0 = time.perf_counter()
    counter.pair_counts()  # the counter's final merge belongs to the bootstrap
    t_count += time.perf_counter() - t0
    base = t_search + t_count
    print(f"V={v} E={e} n={n} n_boot={n_boot}: search {t_search:.1f} s, edge counter "
          f"{t_count:.2f} s, ancestral {t_anc:.2f} s ({1e3 * t_anc / n_boot:.1f} ms/replicate)"
          f"; added time {100 * t_anc / base:.2f} % of the bootstrap (target ≤ 10 %); "
          f"undirected edges per CPDAG {np.mean(undirected):.0f} (max {max(undirected)})")


def tree_cpdag(v: int, seed: int) -> PDAG:
    """The CPDAG of a random tree: all edges undirected (no v-structure)."""
    rng = np.random.default_rng(seed)
    parent = [int(rng.integers(0, k)) for k in range(1, v)]
    return dag_to_cpdag(PDAG.from_edges(v, directed=[(p, k + 1) for k, p in enumerate(parent)]))


def time_add(g: PDAG, repeats: int = 3) -> float:
    acc = AncestralAccumulator(g.n_vars, repeats)
    keys, labels = _keys(g)
    t0 = time.perf_counter()
    for _ in range(repeats):
        acc.add(keys, labels)
    return (time.perf_counter() - t0) / repeats


def memory(v: int, e: int, n: int, big_reps: int, seed: int) -> None:
    if big_reps:
        data = random_network(v, e, seed=seed).sample(n, seed=seed + 1)
        fges = get_search("fges")
        graphs = (fges(data, bootstrap_weights(n, seed, b)) for b in range(big_reps))
    else:
        graphs = iter([random_network(v, e, seed=seed).cpdag(), tree_cpdag(v, seed)])
    acc, peak, count = None, 0, 0
    for g in graphs:  # the searches themselves are not traced
        keys, labels = _keys(g)
        tracemalloc.start()
        if acc is None:
            acc = AncestralAccumulator(v, 200)
        t0 = time.perf_counter()
        acc.add(keys, labels)
        dt = time.perf_counter() - t0
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()  # the accumulator's counts stay allocated (untraced from here)
        count += 1
        print(f"  V={v}: {g}, add {dt:.2f} s")
    state = acc._definite.nbytes + acc._possible.nbytes
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"V={v} memory over {count} replicates: counts {state / 2**20:.0f} MiB (uint16), "
          f"peak of accumulator + one replicate's work {peak / 2**20:.0f} MiB (tracemalloc; "
          f"first replicate), process peak RSS {rss:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--samples", type=int, default=120)
    parser.add_argument("--big-reps", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.quick:
        interleaved(100, 200, args.samples, 10, args.seed)
    else:
        interleaved(1000, 2000, args.samples, args.n_boot, args.seed)
    for v in (1000,) if args.quick else (1000, 5000):
        print(f"tree CPDAG V={v} (all {v - 1} edges undirected): "
              f"{time_add(tree_cpdag(v, args.seed)):.3f} s per add")
    if not args.quick:
        memory(5000, 10000, args.samples, args.big_reps, args.seed)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
