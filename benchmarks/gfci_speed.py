"""GFCI against FGES: one search and a small bootstrap at V = 1000, n = 1000 (issue 40,
acceptance line 5: GFCI within 3× FGES's time; docs/design.md §11).

Data: a random network (``random_network``, V = ``--v``, E = ``--edges``, seeded), ``--n``
rows, optionally with a share ``--hidden`` of its nodes with two or more children hidden
(the misspecification benchmark's hidden family). Printed: one search of each (wall
seconds, the best of ``--repeat`` after an untimed warm-up), then ``--n-boot`` bootstrap
replicates of each on the same resamples (``bootstrap_weights``; a joblib loop on
``--jobs`` processes, started by an untimed round first), with the ratio GFCI / FGES;
``--profile`` adds cProfile's 25 costliest calls of one GFCI search (cumulative).

    .venv/bin/python -m benchmarks.gfci_speed                  # about 2 minutes on 2 cores
    .venv/bin/python -m benchmarks.gfci_speed --hidden 0.1 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _replicate(search: str, data, seed: int, b: int) -> int:
    """The number of edges of one bootstrap search (so nothing large travels back)."""
    from causalcal.bootstrap import bootstrap_weights, fges, gfci

    graph = (gfci if search == "gfci" else fges)(data, bootstrap_weights(data.n_samples, seed, b))
    return graph.n_edges


def _bootstrap(search: str, data, args, reps) -> float:
    from joblib import Parallel, delayed

    start = time.perf_counter()
    Parallel(n_jobs=args.jobs)(delayed(_replicate)(search, data, args.seed, b) for b in reps)
    return time.perf_counter() - start


def _best(fn, data, repeat: int) -> float:
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(data)
        walls.append(time.perf_counter() - start)
    return min(walls)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--v", type=int, default=1000, help="variables")
    p.add_argument("--edges", type=int, default=2000, help="edges of the random network")
    p.add_argument("--n", type=int, default=1000, help="rows")
    p.add_argument("--hidden", type=float, default=0.0, help="share of the nodes hidden (0: none)")
    p.add_argument("--n-boot", type=int, default=10, help="bootstrap replicates (0: none)")
    p.add_argument("--jobs", type=int, default=2, help="bootstrap processes")
    p.add_argument("--repeat", type=int, default=2, help="single searches: the best of this")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", action="store_true", help="profile one GFCI search")
    args = p.parse_args(argv)
    from causalcal.bootstrap import fges, gfci
    from causalcal.simulate import random_network
    from causalcal.simulate.misspecified import hidden_benchmark

    net = random_network(args.v, args.edges, seed=args.seed)
    data = (hidden_benchmark(net, args.n, seed=args.seed, fraction=args.hidden).data
            if args.hidden else net.sample(args.n, seed=args.seed + 1))
    print(f"random V = {args.v}, E = {args.edges}, {data.n_vars} observed, n = {args.n}; "
          "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    fges(data), gfci(data)  # numba's compilation
    t_fges, t_gfci = _best(fges, data, args.repeat), _best(gfci, data, args.repeat)
    print(f"one search: FGES {t_fges:.2f} s, GFCI {t_gfci:.2f} s, GFCI / FGES "
          f"{t_gfci / t_fges:.2f}", flush=True)
    if args.n_boot:
        _bootstrap("fges", data, args, range(args.jobs))  # start the workers
        b_fges = _bootstrap("fges", data, args, range(args.n_boot))
        b_gfci = _bootstrap("gfci", data, args, range(args.n_boot))
        print(f"bootstrap of {args.n_boot} on {args.jobs} processes: FGES {b_fges:.1f} s, "
              f"GFCI {b_gfci:.1f} s, GFCI / FGES {b_gfci / b_fges:.2f}", flush=True)
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(gfci, data)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
