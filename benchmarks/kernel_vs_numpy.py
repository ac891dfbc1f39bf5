"""Benchmark: the compiled BDeu kernel against its numpy fallback (issue 29; docs/design.md §11).

    python benchmarks/kernel_vs_numpy.py [--v 1000 5000] [--repeat 3]

For each V: one default FGES search on replicate 0 of a random network (E = 2V,
n = 1000), best of ``--repeat`` runs with the numpy code (``kernel.KERNEL`` off) and
with the numba kernel (compiled before timing), in this process.  Prints both times,
their ratio, the time in the counting and the lnΓ sums of each, and whether the two
CPDAGs are the same (they must be: the kernel gives the numpy numbers bit for bit;
``tests/bootstrap/score/test_kernel.py`` checks every gain).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _timed_parts(batch) -> tuple[dict, callable]:
    """Wrap the count and the lnΓ sums of ``score.family_gains`` to add up their seconds."""
    spent = {"count": 0.0, "lnΓ sums": 0.0}
    count, sums = batch._Columns.count, batch._block_likelihoods

    def timed(fn, key):
        def run(*args):
            start = time.perf_counter()
            try:
                return fn(*args)
            finally:
                spent[key] += time.perf_counter() - start
        return run

    batch._Columns.count = timed(count, "count")
    batch._block_likelihoods = timed(sums, "lnΓ sums")

    def restore() -> None:
        batch._Columns.count, batch._block_likelihoods = count, sums

    return spent, restore


def compare(v: int, repeat: int, seed: int = 0) -> dict:
    """Best-of-``repeat`` search seconds with and without the kernel at V = ``v``."""
    import causalcal.bootstrap.score.discrete.family_gains as batch
    from causalcal.bootstrap import bootstrap_weights, fges
    from causalcal.bootstrap.score.discrete import kernel as compiled
    from causalcal.simulate import random_network

    data = random_network(v, 2 * v, seed=seed).sample(1000, seed=seed + 1)
    weights = bootstrap_weights(data.n_samples, 0, 0)
    out = {}
    for kernel in (False, True):
        compiled.KERNEL = kernel
        fges(data, weights)  # compiles the kernel (or loads it from numba's cache)
        best, parts = float("inf"), None
        for _ in range(repeat):
            spent, restore = _timed_parts(batch)
            start = time.perf_counter()
            graph = fges(data, weights)
            elapsed = time.perf_counter() - start
            restore()
            if elapsed < best:
                best, parts = elapsed, dict(spent)
        edges = (graph.directed_edges().tolist(), graph.undirected_edges().tolist())
        out["kernel" if kernel else "numpy"] = (best, parts, edges)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--v", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    from causalcal.bootstrap.score.discrete import kernel as compiled

    if not compiled.KERNEL:
        print("the numba kernel is off (numba missing or CAUSALCAL_NO_NUMBA set)")
        return 1
    same_everywhere = True
    for v in args.v:
        res = compare(v, args.repeat)
        (t_np, p_np, g_np), (t_k, p_k, g_k) = res["numpy"], res["kernel"]
        same = g_np == g_k
        same_everywhere &= same
        print(f"V={v}: numpy {t_np:.2f} s (count {p_np['count']:.2f}, lnΓ sums "
              f"{p_np['lnΓ sums']:.2f}), kernel {t_k:.2f} s (count {p_k['count']:.2f}, "
              f"lnΓ sums {p_k['lnΓ sums']:.2f}); kernel/numpy {t_k / t_np:.2f}; "
              f"CPDAGs {'identical' if same else 'DIFFERENT'}", flush=True)
    return 0 if same_everywhere else 1


if __name__ == "__main__":
    raise SystemExit(main())
