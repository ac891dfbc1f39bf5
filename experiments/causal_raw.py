"""How good are the raw bootstrap probabilities of causal relations (issue 30, before any
calibration)?

    python -m experiments.causal_raw [--networks sachs child insurance alarm]
        [--n 500 2000] [--n-boot 100]

For each shipped network sampled at each ``--n`` (seeded), the bootstrap counts, per
ordered pair, the replicates in which one variable is a definite and a possible ancestor
of the other (``ancestral=True``); the raw rule (docs/design.md §6.1) turns them into
P(a causes b), P(b causes a), P(neither) per unordered pair. Truth: the network's own DAG
(a causes b iff a is an ancestor of b). Printed per case, over all ordered pairs: Brier,
ECE (10 equal-count bins) and AUROC of P(a causes b), and the three-class overall MCE
(stacked columns, bins of 100), plus the share of truly causal ordered pairs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from causalcal.ancestry import ancestral_relations, raw_causal_probabilities
from causalcal.bootstrap import bootstrap_edge_probabilities
from causalcal.metrics import brier_score, calibration_bins, expected_calibration_error, roc_auc
from causalcal.simulate import load_network


def measure(network_name: str, n: int, n_boot: int) -> str:
    """One case's line."""
    network = load_network(network_name)
    data = network.sample(n, seed=n)
    start = time.perf_counter()
    probs = bootstrap_edge_probabilities(data, n_boot=n_boot, seed=0, ancestral=True,
                                         progress=False)
    seconds = time.perf_counter() - start
    truth = ancestral_relations(network.dag())[0]
    i, j = np.triu_indices(network.n_vars, 1)
    P = raw_causal_probabilities(probs.ancestral, i, j)
    Y = np.column_stack([~(truth[i, j] | truth[j, i]), truth[i, j], truth[j, i]])
    p = np.concatenate([P[:, 1], P[:, 2]])  # every ordered pair once
    y = np.concatenate([Y[:, 1], Y[:, 2]]).astype(int)
    bins = calibration_bins(Y.ravel().astype(int), P.ravel(), bin_size=100)
    mce = float(np.max(np.abs(bins.mean_pred - bins.frac_pos)))
    return (f"{network_name}-n{n}: {network.n_vars} variables, causal share {y.mean():.3f}; "
            f"P(a causes b) Brier {brier_score(y, p):.4f}, ECE "
            f"{expected_calibration_error(y, p, n_bins=10):.4f}, AUROC {roc_auc(y, p):.3f}; "
            f"three-class overall MCE {mce:.3f}; bootstrap {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=["sachs", "child", "insurance",
                                                          "alarm"])
    parser.add_argument("--n", nargs="+", type=int, default=[500, 2000], dest="sizes")
    parser.add_argument("--n-boot", type=int, default=100)
    args = parser.parse_args()
    for name in args.networks:
        for n in args.sizes:
            print(measure(name, n, args.n_boot), flush=True)


if __name__ == "__main__":
    main()
