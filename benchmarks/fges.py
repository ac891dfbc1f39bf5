"""FGES speed and memory (SPEC §11), each case in a fresh one-core subprocess.

Cases (n = 1000 samples each):

* ``alarm``   — the 37-node ALARM network; target ≤ 0.25 s, and the ratio to causal-learn's
  GES on the same data measured in the same run (skip it with ``--no-peer``; ~1 min);
* ``v1000``   — random network, V = 1000, E = 2000; target ≤ 3 s on one core;
* ``v5000``   — random network, V = 5000, E = 10000; target ≤ 30 s and ≤ 2 GB.

Times cover ``fges(data)`` only (BDeu set-up, pairwise gains, forward and backward
phases); data generation is excluded. "peak MB" is the subprocess's maximum resident
set size (Python, numpy and the data included); "traced MB" is tracemalloc's peak during
a second, separately run search.

    .venv/bin/python benchmarks/fges.py                 # all cases
    .venv/bin/python benchmarks/fges.py --no-peer --cases alarm v1000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = {
    "alarm": ("alarm", 37, 46),
    "v1000": ("random", 1000, 2000),
    "v5000": ("random", 5000, 10000),
}
TARGETS = {"alarm": 0.25, "v1000": 3.0, "v5000": 30.0}


def _run_case(name: str, peer: bool, n: int, seed: int) -> dict:
    import resource
    import tracemalloc

    from causalcal.bootstrap import fges
    from causalcal.graph import structural_hamming_distance
    from causalcal.simulate import load_network, random_network

    kind, v, e = CASES[name]
    net = load_network("alarm") if kind == "alarm" else random_network(v, e, seed=seed)
    data = net.sample(n, seed=seed + 1)
    t = time.perf_counter()
    g = fges(data)
    elapsed = time.perf_counter() - t
    out = {
        "case": name,
        "V": net.n_vars,
        "E": net.n_edges,
        "time": elapsed,
        "edges": g.n_edges,
        "shd_truth": structural_hamming_distance(g, net.cpdag()),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    tracemalloc.start()
    fges(data)
    out["traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    if peer and name == "alarm":
        from causalcal.bootstrap.searches import ges_causallearn

        t = time.perf_counter()
        ges_causallearn(data)
        out["peer_time"] = time.perf_counter() - t
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    p.add_argument("--no-peer", action="store_true", help="skip causal-learn's GES on alarm")
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(_run_case(args.child, not args.no_peer, args.n, args.seed)))
        return 0
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    head = (
        f"{'case':<7}{'V':>6}{'E':>7} {'time s':>8} {'target':>7} {'edges':>6} "
        f"{'SHD':>6} {'peak MB':>8} {'traced MB':>10}  peer"
    )
    print(head)
    print("-" * len(head))
    for name in args.cases:
        cmd = [sys.executable, __file__, "--child", name, "--n", str(args.n)]
        cmd += ["--seed", str(args.seed)] + (["--no-peer"] if args.no_peer else [])
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            print(f"{name}: failed\n{res.stderr}")
            continue
        r = json.loads(res.stdout.strip().splitlines()[-1])
        peer = ""
        if "peer_time" in r:
            peer = f"causal-learn GES {r['peer_time']:.1f} s ({r['peer_time'] / r['time']:.0f}x)"
        print(
            f"{r['case']:<7}{r['V']:>6}{r['E']:>7} {r['time']:>8.3f} {TARGETS[name]:>7.2f} "
            f"{r['edges']:>6} {r['shd_truth']:>6} {r['peak_mb']:>8.0f} {r['traced_mb']:>10.0f}  "
            f"{peer}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
