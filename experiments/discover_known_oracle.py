"""Can any map of P(adjacent) meet issue 26's overall-MCE line?  Oracle maps, fitted on
the very pairs they are scored on.

    python -m experiments.discover_known_oracle [--networks …] [--n 500 2000]

(from the repository root). For every case of the harness ``python -m
studies.discover_known`` (its cached 200-replicate bootstraps) three maps of
the bootstrap's P(adjacent) are fitted on the true adjacency of all pairs, the bootstrap's
split over forward / backward / undirected kept (as ``discover`` writes it):

* ``shift``: one shift of logit P(adjacent) so that its mean is the true share of
  adjacent pairs (the base-rate lever of issue 26, item 3);
* ``logit-linear``: ``logit q = a · logit p + b`` by logistic regression (the smooth
  monotone map the issue asks to prefer);
* ``isotonic``: isotonic regression of adjacency on P(adjacent).

No known-pairs fit can know more than these. The script prints, raw → oracle, the Brier
score of P(adjacent) and the four-class overall MCE (bins of 100, as the harness), and
counts the cases where the oracle's MCE is above the bootstrap's: a map of P(adjacent),
however good, can raise the MCE of the four stacked columns (docs/results.md, "Why the
overall-MCE line still fails").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logit
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from causalcal.evaluate import edge_type_metrics
from studies.discover_known import cases as cases_mod
from studies.discover_known.cli import RESULTS

CACHE = RESULTS / "cache"
NETWORKS = ("sachs", "child", "insurance", "water", "alarm", "hailfinder", "hepar2",
            "win95pts", "andes", cases_mod.SACHS)
MAPS = ("shift", "logit-linear", "isotonic")


def with_adjacency(P: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``P`` with P(adjacent) replaced by ``q`` and the bootstrap's split of it kept (a
    pair never found adjacent splits ``q`` evenly)."""
    Q = np.empty_like(P)
    Q[:, 0] = 1.0 - q
    p = 1.0 - P[:, 0]
    own = p > 0
    Q[own, 1:] = P[own, 1:] * (q[own] / p[own])[:, None]
    Q[~own, 1:] = q[~own, None] / 3.0
    return Q


def oracle_maps(P: np.ndarray, adjacent: np.ndarray, eps: float) -> dict[str, np.ndarray]:
    """P(adjacent) of every pair under each oracle map (:data:`MAPS`)."""
    p = 1.0 - P[:, 0]
    z = logit(np.clip(p, eps, 1.0 - eps))
    shift = brentq(lambda d: expit(z + d).mean() - adjacent.mean(), -30.0, 30.0)
    line = LogisticRegression(C=1e6).fit(z[:, None], adjacent)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0).fit(p, adjacent)
    return {"shift": expit(z + shift), "logit-linear": line.predict_proba(z[:, None])[:, 1],
            "isotonic": iso.predict(p)}


def scores(P: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Brier score of P(adjacent) and the four-class overall MCE (bins of 100)."""
    brier = float(np.mean((1.0 - P[:, 0] - (y != 0)) ** 2))
    return brier, float(edge_type_metrics(P, y, bin_size=100)["overall_mce"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS))
    parser.add_argument("--n", nargs="+", type=int, default=[500, 2000])
    parser.add_argument("--cache", type=Path, default=CACHE)
    args = parser.parse_args(argv)
    cases, messages = cases_mod.load_cases(args.networks, args.n)
    for message in messages:
        print(message)
    print("| case | raw Brier / MCE | " + " | ".join(f"{m} Brier / MCE" for m in MAPS) + " |")
    print("|---|---|" + "---|" * len(MAPS))
    rises = dict.fromkeys(MAPS, 0)
    for case in cases:
        probs, _ = cases_mod.cached_bootstrap(case, 200, args.cache)
        P = probs.dense(np.float64)
        y = case.truth.astype(np.int64)
        raw = scores(P, y)
        cells = [f"{raw[0]:.4f} / {raw[1]:.4f}"]
        for name, q in oracle_maps(P, (y != 0).astype(int), 0.5 / probs.n_boot).items():
            brier, mce = scores(with_adjacency(P, q), y)
            rises[name] += mce > raw[1]
            cells.append(f"{brier:.4f} / {mce:.4f}{' ↑' if mce > raw[1] else ''}")
        print(f"| {case.name} | " + " | ".join(cells) + " |", flush=True)
    print("\nCases whose overall MCE rises (↑) under the oracle map: "
          + ", ".join(f"{name} {count} of {len(cases)}" for name, count in rises.items()))


if __name__ == "__main__":
    main()
