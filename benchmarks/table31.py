"""Check causalcal.simulate.random_network against thesis Table 31 and time sampling.

Table 31 (thesis §6.2.4) lists the mean number of directed and undirected edges of the
true CPDAG over 10 random networks per (V, E). For each row this script draws
``--networks`` networks with :func:`causalcal.simulate.random_network` (default
convention: uniform random DAG, arities 2–3, flat-Dirichlet CPTs), converts each DAG
to its CPDAG and prints the means next to the thesis's, with the relative differences
and the acceptance tolerances (5 % directed, 12 % undirected). It then times
``BayesianNetwork.sample`` (vectorised ancestral sampling) for n = 1000 at V = 5000.

Run:  python benchmarks/table31.py [--networks 10] [--quick]   (--quick: V = 1000 rows only)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from causalcal.simulate import random_network

# (V, E): (mean directed, mean undirected) from thesis Table 31.
TABLE31 = {
    (1000, 1000): (746.6, 253.4),
    (1000, 2000): (1833.1, 166.9),
    (1000, 3000): (2886.5, 113.5),
    (5000, 5000): (3718.4, 1281.6),
    (5000, 10000): (9142.5, 857.5),
    (5000, 15000): (14397.6, 602.4),
}
TOL_DIRECTED = 0.05
TOL_UNDIRECTED = 0.12


def cpdag_counts(n_nodes: int, n_edges: int, n_networks: int, seed: int = 0,
                 max_in_degree: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Directed and undirected CPDAG edge counts of ``n_networks`` random networks."""
    directed, undirected = [], []
    for seq in np.random.SeedSequence([seed, n_nodes, n_edges]).spawn(n_networks):
        net = random_network(n_nodes, n_edges, seed=seq, max_in_degree=max_in_degree)
        cp = net.cpdag()
        directed.append(cp.n_directed)
        undirected.append(cp.n_undirected)
    return np.asarray(directed, float), np.asarray(undirected, float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--networks", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="only the V = 1000 rows")
    args = parser.parse_args()

    print(f"Thesis Table 31 vs causalcal.simulate.random_network "
          f"(mean over {args.networks} networks per row; ± = std. error)")
    header = (f"{'V, E':>12} | {'directed':>17} {'thesis':>8} {'diff':>7} | "
              f"{'undirected':>15} {'thesis':>7} {'diff':>7} | ok")
    print(header)
    print("-" * len(header))
    all_ok = True
    for (v, e), (t_dir, t_und) in TABLE31.items():
        if args.quick and v > 1000:
            continue
        start = time.perf_counter()
        d, u = cpdag_counts(v, e, args.networks, args.seed)
        secs = time.perf_counter() - start
        rd = d.mean() / t_dir - 1
        ru = u.mean() / t_und - 1
        ok = abs(rd) <= TOL_DIRECTED and abs(ru) <= TOL_UNDIRECTED
        all_ok &= ok
        # d + u = E for every network, so both means share one standard error
        se = u.std(ddof=1) / np.sqrt(len(u)) if len(u) > 1 else float("nan")
        print(f"{v:>5}, {e:>5} | {d.mean():>9.1f} ± {se:>5.1f} {t_dir:>8.1f} {rd:>+7.1%} | "
              f"{u.mean():>7.1f} ± {se:>5.1f} {t_und:>7.1f} {ru:>+7.1%} | "
              f"{'yes' if ok else 'NO'}   ({secs:.1f} s)")
    print(f"tolerances: directed ±{TOL_DIRECTED:.0%}, undirected ±{TOL_UNDIRECTED:.0%}; "
          f"all rows within: {all_ok}")

    print("\nSampling speed (vectorised ancestral sampling; wall clock, machine may be shared)")
    for v, e in ((1000, 2000), (5000, 15000)):
        net = random_network(v, e, seed=1)
        net.sample(10, seed=0)  # warm the cumulative-CPT cache
        for n in (1000, 10000):
            start = time.perf_counter()
            net.sample(n, seed=0)
            secs = time.perf_counter() - start
            print(f"  V = {v:>5}, E = {e:>5}, n = {n:>6}: {secs:6.2f} s")


if __name__ == "__main__":
    main()
