"""What simulation-informed calibration costs: ``discover`` with and without
``simulations=R`` on one data set, in one process (issue 26).

    python -m experiments.discover_simulations_cost [--network alarm] [--n 1000]
        [--n-boot 50] [--simulations 2] [--jobs 1] [--repeats 2]

Data: ``--n`` rows sampled from a shipped benchmark network; known relations: 10 true
arcs and 10 non-adjacent pairs. Each repeat runs the plain ``discover`` and the one with
simulations back to back (seed 0, no cache), and prints both times and their ratio (best
of the repeats); the ratio is about R + 1 when the bootstrap dominates.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import CalibrationSettings
from causalcal.simulate import load_network


def known_pairs(network, k: int = 10) -> pd.DataFrame:
    """The first ``k`` true arcs (cause first) and ``k`` non-adjacent pairs."""
    names = network.names
    arcs = [(names[a], names[b], "->") for a, b in network.edges()[:k]]
    i, j = np.triu_indices(network.n_vars, 1)
    apart = np.flatnonzero(network.truth_dense() == 0)[:k]
    return pd.DataFrame(arcs + [(names[i[p]], names[j[p]], "none") for p in apart],
                        columns=["a", "b", "relation"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="alarm")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=50)
    parser.add_argument("--simulations", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    network = load_network(args.network)
    data = network.sample(args.n, seed=1)
    known = known_pairs(network)
    best = {0: np.inf, args.simulations: np.inf}
    for _ in range(args.repeats):
        for sims in best:
            start = time.perf_counter()
            result = causalcal.discover(
                data, known, bootstrap=BootstrapSettings(n_boot=args.n_boot, n_jobs=args.jobs,
                                                         progress=False),
                calibration=CalibrationSettings(simulations=sims))
            best[sims] = min(best[sims], time.perf_counter() - start)
            print(f"simulations={sims}: {best[sims]:.1f} s (best so far), map written: "
                  f"{result.report.map.chosen}", flush=True)
    plain, with_sims = best[0], best[args.simulations]
    print(f"{args.network}, n = {args.n}, {network.n_vars} variables, {args.n_boot} "
          f"replicates, {args.jobs} job(s): plain discover {plain:.1f} s, with "
          f"{args.simulations} simulations {with_sims:.1f} s, ratio {with_sims / plain:.2f}")


if __name__ == "__main__":
    main()
