"""Structure searches on random networks: quality, speed and memory (issue 14; docs/design.md §11).

Each case runs in a fresh one-core subprocess (n = 1000 samples, data generation not
timed).  After the searches the subprocess times the *reference*: the one-hot all-pairs
count product
``Xᵀ X`` (float32, n × ΣA, best of 3) — the physical floor of counting every pairwise
table once — and reports every search's time (best of ``--repeat`` runs, 2 by default:
on a shared machine single runs vary by ±10 %) as a ratio to it, so machine load
cancels out as far as possible ("1st ref" is the first, cold run of the product, for
comparison with single measurements).

Searches: ``default`` = :func:`fges` (GES's neighbourhood; candidate parents bounded only
beyond V = 1001), ``full`` = ``fges(max_candidates=None)`` (GES at any V),
``faithful`` = ``fges(faithfulness_assumed=True)`` (Tetrad's heuristic, the old default),
``boss`` = :func:`boss` (best order search from the default's result).  Columns: BDeu
score minus the default's, adjacency and arrowhead precision/recall against the true
CPDAG, SHD to it, seconds, ratio to the reference product.

The ``v5000-boot`` case is one bootstrap replicate (weights of replicate 0, seed 0) of the
default search at V = 5000, E = 10000, with the subprocess's peak resident memory during
the search and tracemalloc's peak of a second, separately run search.

    .venv/bin/python benchmarks/fges.py                      # everything (~25 min)
    .venv/bin/python benchmarks/fges.py --cases v1000-e2000 --searches default full
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = {
    "v1000-e1000": (1000, 1000, False),
    "v1000-e2000": (1000, 2000, False),
    "v1000-e3000": (1000, 3000, False),
    "v5000-e10000": (5000, 10000, False),
    "v5000-boot": (5000, 10000, True),
}
SEARCHES = ("default", "full", "faithful", "boss")


def _reference_seconds(data) -> tuple[float, float]:
    """First and best of 3 runs of the float32 one-hot all-pairs product ``Xᵀ X``."""
    import numpy as np

    offs = np.concatenate([[0], np.cumsum(data.arities)])
    x = np.zeros((data.n_samples, int(offs[-1])), dtype=np.float32)
    rows = np.arange(data.n_samples)
    for j in range(data.n_vars):
        x[rows, offs[j] + data.codes[:, j]] = 1
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        x.T @ x
        runs.append(time.perf_counter() - t)
    return runs[0], min(runs)


def compare(graph, truth) -> dict:
    """Adjacency and arrowhead precision/recall and SHD of ``graph`` against ``truth``."""
    from causalcal.graph import structural_hamming_distance

    def skeleton(g):
        edges = g.directed_edges().tolist() + g.undirected_edges().tolist()
        return {tuple(sorted(e)) for e in edges}

    def arrows(g):
        return {tuple(e) for e in g.directed_edges().tolist()}

    def ratio(a, b):
        return len(a & b) / len(a) if a else 0.0

    sg, st, ag, at = skeleton(graph), skeleton(truth), arrows(graph), arrows(truth)
    return {
        "adj_p": ratio(sg, st), "adj_r": ratio(st, sg),
        "arr_p": ratio(ag, at), "arr_r": ratio(at, ag),
        "shd": structural_hamming_distance(graph, truth),
    }


def _run_case(name: str, searches: list[str], seed: int, repeat: int) -> list[dict]:
    import resource
    import tracemalloc

    from causalcal.bootstrap import BDeuScore, bootstrap_weights, fges
    from causalcal.bootstrap.search.boss import boss
    from causalcal.simulate import random_network

    v, e, boot = CASES[name]
    net = random_network(v, e, seed=seed)
    data = net.sample(1000, seed=seed + 1)
    weights = bootstrap_weights(data.n_samples, 0, 0) if boot else None
    run = {
        "default": lambda: fges(data, weights),
        "full": lambda: fges(data, weights, max_candidates=None),
        "faithful": lambda: fges(data, weights, faithfulness_assumed=True),
        "boss": lambda: boss(data, weights),
    }
    if boot:
        searches = ["default"]
    truth, score = net.cpdag(), BDeuScore(data, weights)
    rows = []
    for s in searches:
        times = []
        for k in range(repeat):
            t = time.perf_counter()
            g = run[s]()
            times.append(time.perf_counter() - t)
            if boot and k == 0:  # the peak of one search
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        rows.append({"case": name, "search": s, "time": min(times),
                     "score": score.score_pdag(g), "edges": g.n_edges, **compare(g, truth)})
        if boot:
            rows[-1]["peak_mb"] = peak
    cold, reference = _reference_seconds(data)
    for r in rows:
        r["reference"], r["cold"] = reference, cold
    if boot:
        tracemalloc.start()
        run["default"]()
        rows[-1]["traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    p.add_argument("--searches", nargs="*", default=list(SEARCHES), choices=SEARCHES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=2,
                   help="time each search as the best of this many runs")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(_run_case(args.child, args.searches, args.seed, args.repeat)))
        return 0
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    head = (f"{'case':<13}{'search':<9}{'Δscore':>10}{'edges':>7}{'adj P':>7}{'adj R':>7}"
            f"{'arr P':>7}{'arr R':>7}{'SHD':>6}{'time s':>9}{'ref s':>7}{'ratio':>7}"
            f"{'1st ref':>8}  memory")
    print(head)
    print("-" * len(head))
    for name in args.cases:
        cmd = [sys.executable, __file__, "--child", name, "--seed", str(args.seed),
               "--repeat", str(args.repeat),
               "--searches", *args.searches]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            print(f"{name}: failed\n{res.stderr}")
            continue
        rows = json.loads(res.stdout.strip().splitlines()[-1])
        base = next((r["score"] for r in rows if r["search"] == "default"), rows[0]["score"])
        for r in rows:
            mem = ""
            if "peak_mb" in r:
                mem = f"peak RSS {r['peak_mb']:.0f} MB, traced {r['traced_mb']:.0f} MB"
            print(f"{r['case']:<13}{r['search']:<9}{r['score'] - base:>10.1f}{r['edges']:>7}"
                  f"{r['adj_p']:>7.3f}{r['adj_r']:>7.3f}{r['arr_p']:>7.3f}{r['arr_r']:>7.3f}"
                  f"{r['shd']:>6}{r['time']:>9.2f}{r['reference']:>7.3f}"
                  f"{r['time'] / r['reference']:>7.1f}{r['cold']:>8.3f}  {mem}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
