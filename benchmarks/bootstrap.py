"""Benchmark: bootstrapped edge-type probabilities (SPEC §11, issue 7).

1. ``n_boot`` (200) bootstrap searches at V = 1000, E = 2000, n = 1000 on ``--jobs`` (2)
   processes: wall time, peak memory of the whole process tree, and the peer figure —
   one search on the full data in this process — with the parallel overhead ratio
   ``wall / (n_boot × t_single / jobs)``. Target: ≤ 5 min on 2 cores.
2. V = 5000, E = 10000, n = 1000: time per replicate over a few replicates (run one at a
   time, then ``--jobs`` at once) and the extrapolation to 200 replicates on ``--jobs``
   processes, with the peak memory.

Usage::

    python benchmarks/bootstrap.py            # full (takes minutes)
    python benchmarks/bootstrap.py --quick    # small sizes, seconds

Data come from :func:`causalcal.simulate.random_network` (thesis §6.2.4 random networks).
Timings on a shared machine are only indicative; say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class PeakMemory:
    """Peak resident memory (MiB) of this process plus all its descendants, sampled."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> float:
        try:
            import psutil
        except ImportError:  # fall back to this process's own high-water mark
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        me = psutil.Process()
        total = 0
        for p in [me, *me.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total / 2**20

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakMemory:
        self.peak = self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


def make_data(n_vars: int, n_edges: int, n: int, seed: int):
    from causalcal.simulate import random_network

    t = time.perf_counter()
    net = random_network(n_vars, n_edges, seed=seed)
    data = net.sample(n, seed=seed + 1)
    print(f"  simulated V={n_vars} E={n_edges} n={n} in {time.perf_counter() - t:.1f} s")
    return data


def single_search(data, search: str) -> float:
    from causalcal.bootstrap import bootstrap_weights
    from causalcal.bootstrap.searches import get_search

    fn = get_search(search)
    t = time.perf_counter()
    g = fn(data, bootstrap_weights(data.n_samples, 0, 0))
    elapsed = time.perf_counter() - t
    print(f"  one {search} search on a replicate in this process: {elapsed:.2f} s "
          f"({g.n_directed} directed, {g.n_undirected} undirected edges)")
    return elapsed


def run_bootstrap(data, n_boot: int, jobs: int, search: str, checkpoint: bool) -> tuple:
    from causalcal.bootstrap import bootstrap_edge_probabilities

    with tempfile.TemporaryDirectory() as tmp, PeakMemory() as mem:
        t = time.perf_counter()
        probs = bootstrap_edge_probabilities(
            data, n_boot=n_boot, search=search, n_jobs=jobs, seed=0,
            checkpoint=os.path.join(tmp, "ck") if checkpoint else None, progress=True,
        )
        elapsed = time.perf_counter() - t
    return probs, elapsed, mem.peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--large-reps", type=int, default=4,
                        help="replicates timed at V = 5000 (default 4)")
    parser.add_argument("--search", default="fges")
    parser.add_argument("--skip-large", action="store_true", help="only the V = 1000 part")
    args = parser.parse_args(argv)

    if args.quick:
        medium, large, n_boot, large_reps = (200, 400, 500), (1000, 2000, 500), 20, 2
    else:
        medium, large, n_boot, large_reps = (1000, 2000, 1000), (5000, 10000, 1000), \
            args.n_boot, args.large_reps
    jobs = args.jobs
    print(f"bootstrap benchmark ({'quick' if args.quick else 'full'}), search={args.search}, "
          f"jobs={jobs}, cpus={os.cpu_count()}, python {sys.version.split()[0]}")

    # ---------------------------------------------------------------- part 1
    v, e, n = medium
    print(f"\n[1] {n_boot} replicates at V={v}, E={e}, n={n} on {jobs} jobs (checkpointed)")
    data = make_data(v, e, n, seed=0)
    t1 = single_search(data, args.search)
    probs, wall, peak = run_bootstrap(data, n_boot, jobs, args.search, checkpoint=True)
    ideal = n_boot * t1 / jobs
    print(f"  wall {wall:.1f} s ({wall / 60:.2f} min; target ≤ 5 min at full size), "
          f"{wall / n_boot:.3f} s per replicate overall")
    print(f"  peer: n_boot × single search / jobs = {ideal:.1f} s → overhead ratio "
          f"{wall / ideal:.2f}")
    print(f"  peak memory (process tree): {peak:.0f} MiB; {len(probs)} pairs stored")

    if args.skip_large:
        return 0
    # ---------------------------------------------------------------- part 2
    v, e, n = large
    print(f"\n[2] V={v}, E={e}, n={n}: {large_reps} replicates, extrapolated to 200")
    data = make_data(v, e, n, seed=0)
    with PeakMemory() as mem:
        t1 = single_search(data, args.search)
    print(f"  peak memory, one search in this process: {mem.peak:.0f} MiB")
    probs, wall, peak = run_bootstrap(data, large_reps, jobs, args.search, checkpoint=False)
    per_rep = wall / large_reps
    print(f"  {large_reps} replicates on {jobs} jobs: {wall:.1f} s = {per_rep:.2f} s per "
          f"replicate (wall, incl. worker start-up); peak memory {peak:.0f} MiB")
    est = 200 * max(per_rep, t1 / jobs)
    print(f"  extrapolation to 200 replicates on {jobs} jobs: ≈ {est:.0f} s "
          f"({est / 60:.1f} min) [200 × max(wall per replicate, single search / jobs)]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
