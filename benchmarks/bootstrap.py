"""Benchmark: bootstrapped edge-type probabilities (docs/design.md §11, issues 7 and 29).

1. ``n_boot`` (200) bootstrap searches at V = 1000, E = 2000, n = 1000 on ``--jobs`` (2)
   processes: wall time, peak memory of the whole process tree, and the peer figure —
   one search on the full data in this process — with the parallel overhead ratio
   ``wall / (n_boot × t_single / jobs)``. Target: ≤ 5 min on 2 cores (issue 29: ≤ 100 s).
2. V = 5000, E = 10000, n = 1000: time per replicate over a few replicates (run one at a
   time, then ``--jobs`` at once) and the extrapolation to 200 replicates on ``--jobs``
   processes (workers started before timing), with the peak memory.

At both sizes one replicate (weights of replicate 0) is also timed in this process as the
best of ``--repeat`` runs against the floor — the one-hot all-pairs count product
``Xᵀ X`` (float32, best of 3; see ``benchmarks/fges.py``) measured right after it — with
their ratio (issue 29 target at V = 5000: ≤ 2×) and this process's peak RSS; the last
lines repeat every figure of the run.

Usage::

    python -m benchmarks.bootstrap            # full (takes minutes)
    python -m benchmarks.bootstrap --quick    # small sizes, seconds

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
    """Peak resident memory (MiB), sampled: ``peak`` of this process plus all its
    descendants together, ``peak_one`` of the largest single process."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peak = 0.0
        self.peak_one = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        try:
            import psutil
        except ImportError:  # fall back to this process's own high-water mark
            own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            self.peak, self.peak_one = max(self.peak, own), max(self.peak_one, own)
            return
        me = psutil.Process()
        sizes = []
        for p in [me, *me.children(recursive=True)]:
            try:
                sizes.append(p.memory_info().rss / 2**20)
            except psutil.Error:
                pass
        self.peak = max(self.peak, sum(sizes))
        self.peak_one = max(self.peak_one, max(sizes))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakMemory:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


def tree_cpu_seconds() -> float:
    """CPU time (user + system) used so far by this process and its live descendants."""
    try:
        import psutil
    except ImportError:
        return time.process_time()
    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def shutdown_workers() -> None:
    """Stop joblib's reusable loky workers so the next measurement starts clean."""
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)


def _import_search() -> int:
    import causalcal.bootstrap.search.registry  # noqa: F401

    return os.getpid()


def warm_workers(jobs: int) -> None:
    """Start the loky workers and import the search there (not timed)."""
    from joblib import Parallel, delayed

    pids = Parallel(n_jobs=jobs)(delayed(_import_search)() for _ in range(4 * jobs))
    print(f"  {len(set(pids))} workers started")


def make_data(n_vars: int, n_edges: int, n: int, seed: int):
    from causalcal.simulate import random_network

    t = time.perf_counter()
    net = random_network(n_vars, n_edges, seed=seed)
    data = net.sample(n, seed=seed + 1)
    print(f"  simulated V={n_vars} E={n_edges} n={n} in {time.perf_counter() - t:.1f} s")
    return data


def single_search(data, search: str) -> float:
    from causalcal.bootstrap import bootstrap_weights
    from causalcal.bootstrap.search.registry import get_search

    fn = get_search(search)
    t, cpu = time.perf_counter(), time.process_time()
    g = fn(data, bootstrap_weights(data.n_samples, 0, 0))
    elapsed, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"  one {search} search on a replicate in this process: {elapsed:.2f} s wall, "
          f"{cpu:.2f} s CPU ({g.n_directed} directed, {g.n_undirected} undirected edges)")
    return elapsed


def replicate_vs_floor(data, search: str, repeat: int, **options) -> dict:
    """Best of ``repeat`` searches on replicate 0 in this process, then the floor (the
    one-hot all-pairs product, best of 3), their ratio and the peak RSS (sampled) of this
    process during the searches."""
    from benchmarks.fges import _reference_seconds
    from causalcal.bootstrap import bootstrap_weights
    from causalcal.bootstrap.search.registry import get_search

    fn, w = get_search(search), bootstrap_weights(data.n_samples, 0, 0)
    best = float("inf")
    with PeakMemory() as mem:
        for _ in range(repeat):
            t = time.perf_counter()
            fn(data, w, **options)
            best = min(best, time.perf_counter() - t)
    floor = _reference_seconds(data)[1]
    rss = mem.peak_one
    print(f"  replicate {best:.2f} s (best of {repeat}), floor {floor:.3f} s, ratio "
          f"{best / floor:.1f}x; peak RSS during the searches {rss:.0f} MiB")
    return {"V": data.n_vars, "replicate": best, "floor": floor, "rss": rss}


def run_bootstrap(data, n_boot: int, jobs: int, search: str, checkpoint: bool,
                  **options) -> tuple:
    from causalcal.bootstrap import bootstrap_edge_probabilities

    with tempfile.TemporaryDirectory() as tmp, PeakMemory() as mem:
        cpu = tree_cpu_seconds()
        t = time.perf_counter()
        probs = bootstrap_edge_probabilities(
            data, n_boot=n_boot, search=search, n_jobs=jobs, seed=0,
            checkpoint=os.path.join(tmp, "ck") if checkpoint else None, progress=True,
            **options,
        )
        elapsed = time.perf_counter() - t
        cpu = tree_cpu_seconds() - cpu
    shutdown_workers()
    print(f"  CPU time of the process tree: {cpu:.1f} s = {cpu / n_boot:.2f} s per replicate "
          f"→ contention-free estimate on {jobs} free cores: {cpu / jobs:.1f} s")
    return probs, elapsed, mem, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--large-reps", type=int, default=4,
                        help="replicates timed at V = 5000 (default 4)")
    parser.add_argument("--search", default="fges")
    parser.add_argument("--device", default=None,
                        help="torch device for the search's count products (e.g. cuda)")
    parser.add_argument("--repeat", type=int, default=2,
                        help="time the in-process replicate as the best of this many runs")
    parser.add_argument("--part", type=int, choices=(1, 2), default=None,
                        help="run only part 1 (V = 1000, n_boot runs) or part 2 (V = 5000)")
    args = parser.parse_args(argv)

    if args.quick:
        medium, large, n_boot, large_reps = (200, 400, 500), (1000, 2000, 500), 20, 2
    else:
        medium, large, n_boot, large_reps = (1000, 2000, 1000), (5000, 10000, 1000), \
            args.n_boot, args.large_reps
    jobs = args.jobs
    print(f"bootstrap benchmark ({'quick' if args.quick else 'full'}), search={args.search}, "
          f"jobs={jobs}, cpus={os.cpu_count()}, python {sys.version.split()[0]}")

    rows = []
    if args.part in (None, 1):
        rows += part1(args, medium, n_boot, jobs)
    if args.part in (None, 2):
        rows += part2(args, large, large_reps, jobs)
    print("\nsummary")
    for r in rows:
        if "floor" in r:
            print(f"  V={r['V']}: replicate {r['replicate']:.2f} s, floor {r['floor']:.3f} s, "
                  f"ratio {r['replicate'] / r['floor']:.1f}x, peak RSS {r['rss']:.0f} MiB")
        else:
            print(f"  {r['n_boot']} replicates at V={r['V']} on {r['jobs']} jobs: "
                  f"{r['wall']:.1f} s, peak RSS {r['peak']:.0f} MiB process tree, "
                  f"{r['peak_one']:.0f} MiB largest")
    return 0


def _options(args: argparse.Namespace) -> dict:
    return {} if args.device is None else {"device": args.device}


def part1(args: argparse.Namespace, sizes: tuple, n_boot: int, jobs: int) -> list[dict]:
    v, e, n = sizes
    print(f"\n[1] {n_boot} replicates at V={v}, E={e}, n={n} on {jobs} jobs (checkpointed)")
    data = make_data(v, e, n, seed=0)
    floor = replicate_vs_floor(data, args.search, args.repeat, **_options(args))
    t1 = single_search(data, args.search)
    probs, wall, mem, _ = run_bootstrap(data, n_boot, jobs, args.search, checkpoint=True,
                                        **_options(args))
    ideal = n_boot * t1 / jobs
    print(f"  wall {wall:.1f} s ({wall / 60:.2f} min; target ≤ 5 min at full size), "
          f"{wall / n_boot:.3f} s per replicate overall")
    print(f"  peer: n_boot × single search / jobs = {ideal:.1f} s → overhead ratio "
          f"{wall / ideal:.2f}")
    print(f"  peak memory: {mem.peak:.0f} MiB process tree, {mem.peak_one:.0f} MiB largest "
          f"process; {len(probs)} pairs stored")
    return [floor, {"V": v, "n_boot": n_boot, "jobs": jobs, "wall": wall, "peak": mem.peak,
                    "peak_one": mem.peak_one}]


def part2(args: argparse.Namespace, sizes: tuple, large_reps: int, jobs: int) -> list[dict]:
    v, e, n = sizes
    print(f"\n[2] V={v}, E={e}, n={n}: {large_reps} replicates, extrapolated to 200")
    data = make_data(v, e, n, seed=0)
    floor = replicate_vs_floor(data, args.search, args.repeat, **_options(args))
    with PeakMemory() as mem:
        single_search(data, args.search)
    print(f"  peak memory, one search in this process: {mem.peak_one:.0f} MiB")
    warm_workers(jobs)
    probs, wall, mem, cpu = run_bootstrap(data, large_reps, jobs, args.search,
                                          checkpoint=False, **_options(args))
    per_rep = wall / large_reps
    print(f"  {large_reps} replicates on {jobs} warm jobs: {wall:.1f} s = {per_rep:.2f} s wall "
          f"per replicate ({per_rep * jobs:.1f} s each in a worker); peak memory "
          f"{mem.peak:.0f} MiB process tree, {mem.peak_one:.0f} MiB largest process")
    est = 200 * per_rep
    print(f"  extrapolation to 200 replicates on {jobs} jobs: ≈ {est:.0f} s "
          f"({est / 60:.1f} min) = 200 × wall per replicate; contention-free ≈ "
          f"{200 * cpu / large_reps / jobs:.0f} s = 200 × CPU per replicate / {jobs}")
    return [floor]


if __name__ == "__main__":
    sys.exit(main())
