"""Core types and metrics at the project's scale (docs/design.md §3, §8).

1. ``dag_to_cpdag`` and ``pdag_to_dag`` on a random DAG with V = 5000, E = 15000; the peer
   is causal-learn's ``dag2cpdag`` on a smaller DAG (V = 60, E = 180), timed beside ours.
2. ``ece_micro`` / ``mce_micro`` on 12.5 M pairs × 4 classes (50 M stacked entries, bins
   of 100) and ``hand_till_auc`` on the same; the peer is the ECE computed with an
   ``argsort`` of the stacked entries and a pandas groupby for the tie groups.
3. ``roc_auc`` on 10^7 items; the peer is scikit-learn's ``roc_auc_score``.

Usage::

    python benchmarks/core_metrics.py            # full (about a minute, ~3 GB memory)
    python benchmarks/core_metrics.py --quick    # 1/10 of the sizes

Timings on a shared machine are only indicative; say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from causalcal import metrics  # noqa: E402
from causalcal.edges import n_pairs, pair_from_index  # noqa: E402
from causalcal.graph import PDAG, dag_to_cpdag, pdag_to_dag  # noqa: E402


def timed(label: str, fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    dt = time.perf_counter() - t0
    print(f"{label:<48s} {dt:8.3f} s")
    return out, dt


def random_dag(rng: np.random.Generator, v: int, e: int) -> PDAG:
    keys = rng.choice(n_pairs(v), size=e, replace=False)
    order = rng.permutation(v)
    i, j = pair_from_index(keys, v)
    return PDAG.from_edges(v, np.column_stack([order[i], order[j]]))


def bench_graph(rng: np.random.Generator, v: int, e: int) -> None:
    dag = random_dag(rng, v, e)
    cp, _ = timed(f"dag_to_cpdag V={v} E={e}", dag_to_cpdag, dag)
    print(f"    {cp}")
    timed(f"pdag_to_dag V={v}", pdag_to_dag, cp)

    from causallearn.graph.Dag import Dag
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.utils.DAG2CPDAG import dag2cpdag

    small = random_dag(rng, 60, 180)
    nodes = [GraphNode(f"X{k}") for k in range(60)]
    cl = Dag(nodes)
    for a, b in small.directed_edges():
        cl.add_directed_edge(nodes[a], nodes[b])
    _, t_cl = timed("peer: causal-learn dag2cpdag V=60 E=180", dag2cpdag, cl)
    _, t_us = timed("ours: dag_to_cpdag V=60 E=180", dag_to_cpdag, small)
    print(f"    ratio causal-learn / ours at V=60: {t_cl / t_us:.0f}x")


def bench_metrics(rng: np.random.Generator, pairs: int, n_auc: int) -> None:
    P = rng.dirichlet(np.ones(4), size=pairs).astype(np.float32)
    y = rng.integers(0, 4, pairs)
    print(f"stacked entries: {4 * pairs:,}")
    ece, t_ece = timed("ece_micro (bins of 100)", metrics.ece_micro, y, P, bin_size=100)
    timed("mce_micro (10 bins)", metrics.mce_micro, y, P)
    timed("hand_till_auc", metrics.hand_till_auc, y, P)
    timed("multiclass_brier_score", metrics.multiclass_brier_score, y, P)

    def argsort_ece(P, y):
        import pandas as pd

        flat = P.ravel().astype(np.float64)
        onehot = (y[:, None] == np.arange(4)).ravel().astype(np.float64)
        order = np.argsort(flat, kind="stable")
        flat, onehot = flat[order], onehot[order]
        # tie groups share their positives: labels replaced by their tie-group mean
        smooth = pd.Series(onehot).groupby(flat, sort=False).transform("mean").to_numpy()
        starts = np.arange(0, flat.size, 100)
        counts = np.diff(np.append(starts, flat.size))
        e = np.add.reduceat(flat, starts) / counts
        o = np.add.reduceat(smooth, starts) / counts
        return float(np.sum(counts * np.abs(o - e)) / flat.size)

    ref, t_ref = timed("peer: ECE via argsort + pandas groupby", argsort_ece, P, y)
    print(f"    same value: {abs(ref - ece) < 1e-9}; ratio peer / ours: {t_ref / t_ece:.1f}x")
    del P, y

    from sklearn.metrics import roc_auc_score

    s = rng.random(n_auc)
    z = (rng.random(n_auc) < s).astype(np.int8)
    a, t_a = timed(f"roc_auc n={n_auc:,}", metrics.roc_auc, z, s)
    b, t_b = timed(f"peer: sklearn roc_auc_score n={n_auc:,}", roc_auc_score, z, s)
    print(f"    same value: {abs(a - b) < 1e-12}; ratio sklearn / ours: {t_b / t_a:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/10 of the sizes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    scale = 10 if args.quick else 1
    bench_graph(rng, 5000 // scale, 15000 // scale)
    bench_metrics(rng, 12_500_000 // scale, 10_000_000 // scale)


if __name__ == "__main__":
    main()
