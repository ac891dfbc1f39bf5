"""`discover` with knowledge as scientists have it, on standard benchmark networks (issue 13).

    python benchmarks/discover_known.py [--networks alarm hepar2 win95pts andes]
                                        [--repeats 3] [--n-boot 200] [--known 15]

For each network: n = 1000 samples, columns shuffled (no causal order), ``n_boot``
bootstrap searches; then per repeat ``--known`` true DAG arcs written cause first (``->``)
and as many non-adjacent pairs, drawn at random, go to :func:`causalcal.discover`. On the
held-out pairs it prints the overall MCE (100-instance bins) of the bootstrap and the
calibrated probabilities, the ECE and AUROC of P(adjacent) against true adjacency, and
directed F1. Issue 13's acceptance: calibrated MCE <= bootstrap + 0.02, ECE(adjacent)
<= bootstrap + 0.01, AUROC >= bootstrap - 0.01.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import causalcal
from causalcal.bootstrap import bootstrap_edge_probabilities
from causalcal.data import DiscreteData
from causalcal.edges import PROBABILITY_COLUMNS, pair_index
from causalcal.evaluate import edge_type_metrics
from causalcal.metrics import expected_calibration_error, roc_auc
from causalcal.simulate import load_network


def _setup(name: str, n_boot: int, jobs: int):
    net = load_network(name)
    data = net.sample(1000, seed=1)
    order = np.random.default_rng(0).permutation(data.n_vars)
    frame = data.to_frame().iloc[:, order]
    names = list(frame.columns)
    index = {n: k for k, n in enumerate(names)}
    start = time.perf_counter()
    probs = bootstrap_edge_probabilities(DiscreteData.from_frame(frame), n_boot=n_boot,
                                         n_jobs=jobs, seed=0, progress=False)
    seconds = time.perf_counter() - start
    v = len(names)
    truth = np.zeros(v * (v - 1) // 2, dtype=np.int64)  # CPDAG edge type, shuffled order
    labels = net.truth_dense()
    oi, oj = np.triu_indices(net.n_vars, 1)
    for a, b, label in zip(oi, oj, labels):
        i, j = index[net.names[a]], index[net.names[b]]
        truth[pair_index(min(i, j), max(i, j), v)] = label if i < j else (0, 2, 1, 3)[label]
    arcs = [(net.names[p], net.names[c]) for c, pa in enumerate(net.parents) for p in pa]
    return frame, names, index, probs, truth, arcs, seconds


def _known(names, arcs, n_known, rng) -> pd.DataFrame:
    chosen = [arcs[k] for k in rng.choice(len(arcs), n_known, replace=False)]
    adjacent = {frozenset(a) for a in arcs}
    none: list[tuple[str, str]] = []
    while len(none) < n_known:
        a, b = rng.choice(names, 2, replace=False)
        if frozenset((a, b)) not in adjacent:
            adjacent.add(frozenset((a, b)))
            none.append((a, b))
    rows = [(a, b, "->") for a, b in chosen] + [(a, b, "none") for a, b in none]
    return pd.DataFrame(rows, columns=["a", "b", "relation"])


def _scores(edges: pd.DataFrame, index, truth, v) -> dict:
    i = edges["a"].map(index).to_numpy()
    j = edges["b"].map(index).to_numpy()
    y = truth[pair_index(i, j, v)]
    adjacent = (y != 0).astype(int)
    out = {}
    boot = [c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS]
    for label, cols in (("boot", boot), ("cal", list(PROBABILITY_COLUMNS))):
        P = edges[cols].to_numpy()
        m = edge_type_metrics(P, y)
        out[label] = {"mce": m["overall_mce"], "dir_f1": m["directed_f1"],
                      "ece_adj": expected_calibration_error(adjacent, 1 - P[:, 0],
                                                            bin_size=100),
                      "auc_adj": roc_auc(adjacent, 1 - P[:, 0])}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+",
                        default=["alarm", "hepar2", "win95pts", "andes"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--known", type=int, default=15)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(f"{'network':9s} {'rep':>3} {'MCE boot':>9} {'cal':>6} {'ECEadj boot':>12} {'cal':>7}"
          f" {'AUC boot':>9} {'cal':>6} {'dirF1 boot':>11} {'cal':>6} {'seconds':>8}")
    for name in args.networks:
        frame, names, index, probs, truth, arcs, boot_s = _setup(name, args.n_boot, args.jobs)
        means = []
        for rep in range(args.repeats):
            known = _known(names, arcs, args.known, np.random.default_rng(100 + rep))
            start = time.perf_counter()
            result = causalcal.discover(frame, known, probabilities=probs, progress=False)
            s = _scores(result.edges, index, truth, len(names))
            b, c = s["boot"], s["cal"]
            print(f"{name:9s} {rep:3d} {b['mce']:9.3f} {c['mce']:6.3f} {b['ece_adj']:12.4f}"
                  f" {c['ece_adj']:7.4f} {b['auc_adj']:9.3f} {c['auc_adj']:6.3f}"
                  f" {b['dir_f1']:11.3f} {c['dir_f1']:6.3f}"
                  f" {time.perf_counter() - start:8.1f}", flush=True)
            means.append([b["mce"], c["mce"], b["ece_adj"], c["ece_adj"], b["auc_adj"],
                          c["auc_adj"]])
        m = np.mean(means, axis=0)
        print(f"{name:9s} {'mean':>3} {m[0]:9.3f} {m[1]:6.3f} {m[2]:12.4f} {m[3]:7.4f}"
              f" {m[4]:9.3f} {m[5]:6.3f}")
        print(f"  ({name}: {len(names)} variables, bootstrap {boot_s:.1f} s)")


if __name__ == "__main__":
    main()
