"""Does searching continuous data unbinned pay (issue 50)? The raw bootstrap's P(adjacent)
of the Gaussian scores beside the binned BDeu route, and the resampling schemes.

    python -m experiments.continuous_vs_binned [--kinds linear-gaussian mixed nonlinear]
        [--v 30 50] [--n 500 2000 8000] [--seeds 0 1 2] [--n-boot 30] [--jobs 2]
        [--out results/continuous/does_it_pay.jsonl]
    python -m experiments.continuous_vs_binned --summary results/continuous/*.jsonl

Per case (a random structural model of ``--kinds``, E = 1.5 V arcs, seeded, sampled at
``n``; :func:`causalcal.simulate.random_sem`) every route bootstraps ``--n-boot``
replicates and P(adjacent) = 1 − p_none is scored against the true skeleton (Brier, AUROC,
ECE of 10 equal-count bins):

* ``gaussian``: sem-bic (continuous data) or dg-bic (mixed), N the replicate's effective
  sample size (the default);
* ``gaussian-total``: the same with N the replicate's total weight (the plain bootstrap);
* ``gaussian-subsample``: the plain score on half-samples drawn without replacement
  (m = n/2 rows of weight 1; the replicate's seed as the bootstrap's);
* ``bdeu-tertiles``, ``bdeu-quintiles``: every continuous column binned by quantiles into
  3 or 5 (``discretize``), BDeu (α = 1, β = 1) — the route before issue 50.

Penalty discount 1 (the standard BIC). One JSON line per case and route (written at the
end, atomically); the printed summary counts, per kind and route, the cases where the
default Gaussian route has the lower Brier and the higher AUROC than the binned route.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write
from causalcal.bootstrap import bootstrap_edge_probabilities, fges, get_score
from causalcal.data import DiscreteData, MixedData, discretize
from causalcal.edges import pair_index
from causalcal.metrics import brier_score, expected_calibration_error, roc_auc
from causalcal.simulate import random_sem

ROUTES = ("gaussian", "gaussian-total", "gaussian-subsample", "bdeu-tertiles",
          "bdeu-quintiles")


def binned(data: MixedData, n_bins: int) -> DiscreteData:
    """Every continuous column of ``data`` cut into ``n_bins`` quantile bins."""
    frame = data.to_frame()
    names = [data.names[k] for k in data.continuous_columns]
    return DiscreteData.from_frame(discretize(frame, "quantile", n_bins, columns=names))


def subsample_probabilities(data: MixedData, score, n_boot: int, seed: int) -> np.ndarray:
    """P(adjacent) per pair from FGES on ``n_boot`` half-samples without replacement."""
    counts = np.zeros(data.n_vars * (data.n_vars - 1) // 2)
    for b in range(n_boot):
        rows = np.random.default_rng([seed, b]).choice(data.n_samples, data.n_samples // 2,
                                                       replace=False)
        weights = np.zeros(data.n_samples)
        weights[rows] = 1.0
        pairs, _ = fges(data, weights, score=score).pair_labels()
        if len(pairs):
            counts[pair_index(pairs[:, 0], pairs[:, 1], data.n_vars)] += 1
    return counts / n_boot


def route_probabilities(route: str, data: MixedData, n_boot: int, seed: int,
                        jobs: int) -> np.ndarray:
    name = "sem-bic" if data.kind == "continuous" else "dg-bic"
    if route == "gaussian-subsample":
        return subsample_probabilities(data, get_score(name, sample_size="total"), n_boot,
                                       seed)
    if route.startswith("bdeu"):
        table = binned(data, 3 if route == "bdeu-tertiles" else 5)
        probs = bootstrap_edge_probabilities(table, n_boot=n_boot, seed=seed, n_jobs=jobs,
                                             progress=False)
    else:
        score = get_score(name, sample_size="total" if route == "gaussian-total"
                          else "effective")
        probs = bootstrap_edge_probabilities(data, n_boot=n_boot, seed=seed, n_jobs=jobs,
                                             progress=False, score=score)
    return 1.0 - probs.dense()[:, 0]


def run_case(kind: str, v: int, n: int, seed: int, n_boot: int, jobs: int,
             routes: tuple[str, ...]) -> list[dict]:
    model = random_sem(v, int(1.5 * v), kind, seed=seed)
    data = model.sample(n, seed=seed + 1000)
    truth = (model.truth_dense() != 0).astype(int)
    records = []
    for route in routes:
        start = time.perf_counter()
        p = route_probabilities(route, data, n_boot, seed, jobs)
        records.append({"kind": kind, "V": v, "E": model.n_edges, "n": n, "seed": seed,
                        "route": route, "n_boot": n_boot,
                        "brier": float(brier_score(truth, p)),
                        "auroc": float(roc_auc(truth, p)),
                        "ece": float(expected_calibration_error(truth, p, n_bins=10)),
                        "seconds": round(time.perf_counter() - start, 2)})
        print(json.dumps(records[-1]), flush=True)
    return records


def summary(records: list[dict]) -> list[str]:
    """Per kind and binned route: cases where the default Gaussian route beats it."""
    lines = []
    cases: dict[tuple, dict[str, dict]] = {}
    for r in records:
        cases.setdefault((r["kind"], r["V"], r["n"], r["seed"]), {})[r["route"]] = r
    for kind in sorted({k[0] for k in cases}):
        mine = [c for k, c in cases.items() if k[0] == kind and "gaussian" in c]
        for other in [r for r in ROUTES if r != "gaussian"]:
            both = [c for c in mine if other in c]
            if not both:
                continue
            brier = sum(c["gaussian"]["brier"] < c[other]["brier"] for c in both)
            auroc = sum(c["gaussian"]["auroc"] > c[other]["auroc"] for c in both)
            wins = sum(c["gaussian"]["brier"] < c[other]["brier"]
                       and c["gaussian"]["auroc"] > c[other]["auroc"] for c in both)
            mean = np.mean([[c["gaussian"]["brier"], c[other]["brier"], c["gaussian"]["auroc"],
                             c[other]["auroc"]] for c in both], axis=0)
            lines.append(f"{kind}: gaussian vs {other}: lower Brier in {brier}/{len(both)}, "
                         f"higher AUROC in {auroc}/{len(both)}, both in {wins}/{len(both)}; "
                         f"mean Brier {mean[0]:.4f} vs {mean[1]:.4f}, mean AUROC "
                         f"{mean[2]:.4f} vs {mean[3]:.4f}")
    return lines


def summary_table(records: list[dict]) -> list[str]:
    """A markdown table per kind, V and n (over seeds): each route's mean Brier and AUROC
    of P(adjacent) ("–" where not run), and the cases where the default Gaussian route has
    both the lower Brier and the higher AUROC than each binned route."""
    cases: dict[tuple, dict[str, dict]] = {}
    for r in records:
        cases.setdefault((r["kind"], r["V"], r["n"], r["seed"]), {})[r["route"]] = r
    lines = ["| kind | V | n | cases | " + " | ".join(f"{r} Brier / AUROC" for r in ROUTES)
             + " | wins both vs tertiles | vs quintiles |",
             "|---|---|---|---|" + "---|" * (len(ROUTES) + 2)]
    for key in sorted({k[:3] for k in cases}):
        group = [c for k, c in cases.items() if k[:3] == key]
        cells = [f"{np.mean([c[r]['brier'] for c in group]):.4f} / "
                 f"{np.mean([c[r]['auroc'] for c in group]):.3f}"
                 if all(r in c for c in group) else "–" for r in ROUTES]
        wins = [sum(c["gaussian"]["brier"] < c[b]["brier"]
                    and c["gaussian"]["auroc"] > c[b]["auroc"] for c in group)
                for b in ("bdeu-tertiles", "bdeu-quintiles")]
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {len(group)} | " + " | ".join(cells)
                     + f" | {wins[0]}/{len(group)} | {wins[1]}/{len(group)} |")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=["linear-gaussian", "mixed",
                                                       "nonlinear"])
    parser.add_argument("--v", nargs="+", type=int, default=[30, 50])
    parser.add_argument("--n", nargs="+", type=int, default=[500, 2000, 8000])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--n-boot", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES)
    parser.add_argument("--out", default="results/continuous/does_it_pay.jsonl")
    parser.add_argument("--summary", nargs="+", metavar="JSONL",
                        help="print the summaries of these records and run nothing")
    args = parser.parse_args(argv)
    if args.summary:
        records = [json.loads(line) for path in args.summary
                   for line in Path(path).read_text(encoding="utf-8").splitlines() if line]
        print("\n".join(summary_table(records) + [""] + summary(records)))
        return
    records = []
    for kind in args.kinds:
        for v in args.v:
            for n in args.n:
                for seed in args.seeds:
                    records += run_case(kind, v, n, seed, args.n_boot, args.jobs,
                                        tuple(args.routes))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(out, encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)
    print("\n".join(summary(records)))


if __name__ == "__main__":
    main()
