"""Edge-type evaluation at V = 5000 (12.5 M pairs): sampler, calibration of all pairs, metrics.

Synthetic bootstrap probabilities (counts / 200 for ~150 K stored pairs, the rest implicit
(1, 0, 0, 0)) and truth labels with Table 31's V = 5K, E = 10K class counts. Prints the
wall time and peak resident memory of each step of one study run (thesis §6.2.4 steps 6–9).

    python benchmarks/evaluate_scale.py [--nodes 5000] [--calibrator snn]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from causalcal.edges import EdgeProbabilities, n_pairs, pair_from_index
from causalcal.evaluate import evaluate_run


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--calibrator", default="snn")
    parser.add_argument("--n-cal", type=int, default=120)
    args = parser.parse_args()
    v = args.nodes
    m = n_pairs(v)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    scale = m / 12_497_500
    n_dir, n_und = int(9142 * scale) + 60, int(857 * scale) + 60
    truth = np.zeros(m, dtype=np.int8)
    edges = rng.choice(m, n_dir + n_und, replace=False)
    truth[edges[: n_dir // 2]] = 1
    truth[edges[n_dir // 2: n_dir]] = 2
    truth[edges[n_dir:]] = 3
    # stored rows: every true edge and 12x as many spurious pairs, counts out of 200
    spurious = rng.choice(np.flatnonzero(truth == 0), 12 * len(edges), replace=False)
    keys = np.sort(np.concatenate([edges, spurious]))
    alpha = np.full((len(keys), 4), 0.3)
    alpha[np.arange(len(keys)), truth[keys]] += 1.0
    alpha[:, 0] += 2.0 * (truth[keys] == 0)
    counts = np.stack([rng.multinomial(200, rng.dirichlet(a)) for a in alpha])
    i, j = pair_from_index(keys, v)
    probs = EdgeProbabilities.from_counts([f"X{k}" for k in range(v)],
                                          np.column_stack([i, j]), counts, 200)
    print(f"V={v}: {m} pairs, {len(probs)} stored; set-up {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    dense = probs.dense(np.float32)
    print(f"dense float32: {time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    rec = evaluate_run(probs, truth, args.n_cal, calibrator=args.calibrator, sample_seed=1,
                       calibrator_seed=2, dense=dense)
    total = time.perf_counter() - start
    print(f"one run (sampler + fit + calibrate all pairs + before/after metrics): {total:.1f} s"
          f"  [fit {rec['fit_seconds']:.2f} s, predict {rec['predict_seconds']:.2f} s]")
    print(f"before overall MCE {rec['before_overall_mce']:.3f}, "
          f"after {rec['after_overall_mce']:.3f}")
    print(f"peak RSS {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
