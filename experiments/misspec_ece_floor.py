"""What issue 39's strong lines ask of 40 answers: the ECE a perfectly calibrated forecaster
still shows, and what a monotone map fitted on the 40 answers themselves reaches
(docs/results.md "What the strong lines can ask").

For every cached case of the misspecification benchmark (docs/design.md §9.11) and both
relation kinds — P(adjacent) over unordered pairs, P(A causes B) over ordered pairs (pairs
in a cycle left out), as ``studies.misspec.calibrated`` measures them — over all pairs:

- ``raw_ece``: the raw bootstrap's ECE (10 equal-count bins);
- ``insample_ece``: the issue's oracle, the isotonic map of the raw probability fitted on
  the truth itself and judged on the same pairs (≈ 0 by construction);
- ``crossfit_ece``: that oracle fitted on a random half of the pairs and judged on the
  other half (both ways, pooled; mean of ``SPLITS`` splits) — the oracle out of sample;
- ``floor_ece``: the expected ECE of a perfectly calibrated forecaster on this many pairs:
  the in-sample oracle's values taken as the true probabilities q, labels drawn from
  Bernoulli(q) ``FLOOR_DRAWS`` times, ECE(labels, q) averaged;
- ``zero_share``, ``zero_rate``: the share of pairs the bootstrap never related (raw
  probability 0) and the true rate among them; ``zero_ece``: their part of the raw ECE
  (share × rate: the bins they fill predict 0); ``zero_answers``: the answers among them
  that an estimate of their rate needs before its expected error, about
  √(2 rate / (π k)) for k answers, falls below the rate itself (the raw's error there):
  k > 2 / (π · rate);
- ``zero_gain_auroc`` (edge types): how well a pair's marginal association — its BDeu
  pairwise gain, the pair feature of thesis §6.2.6 — ranks the never-related pairs'
  true adjacency (AUROC; None where they are all of one kind);
- per draw of 40 suggested pairs (``suggest_pairs`` seeded as the study seeds it, the
  equal allocation of sessions 13–14 with which the records were made), the
  isotonic map of the raw probability fitted on the 40 answers from the truth, weighted by
  1 / inclusion rate, judged on the held-out pairs: ``iso40_better`` (share of draws whose
  Brier is below raw), ``iso40_ece`` and ``iso40_raw_ece`` (means over draws).

    python -m experiments.misspec_ece_floor            # resumes; one JSON line per case
    python -m experiments.misspec_ece_floor --summary  # the table by kind, family and n
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from sklearn.isotonic import IsotonicRegression

from causalcal.bootstrap.pair_features import pairwise_gain_all
from causalcal.edgecal import relation_kind, suggest_pairs
from causalcal.metrics import brier_score, expected_calibration_error, roc_auc
from causalcal.pairs import pair_index
from studies.discover_known.cases import stable_seed
from studies.misspec.cases import BOTH_WAYS, CACHE, all_cases, load_case

RECORDS = Path(__file__).resolve().parents[1] / "results" / "misspec" / "ece_floor.jsonl"
SPLITS = 20
FLOOR_DRAWS = 200
DRAWS = 10
BINS = 10


def _isotonic(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> IsotonicRegression:
    return IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p, y, w)


def _ordered(kind: str, unordered: np.ndarray, raw, edge_truth, causal_truth):
    """``(y, p)`` of the pair keys ``unordered`` as the study measures them."""
    if kind == "edges":
        return ((np.asarray(edge_truth)[unordered] != 0).astype(int),
                1.0 - raw.dense(np.float64)[unordered, 0])
    t = np.asarray(causal_truth)[unordered]
    unordered = unordered[t != BOTH_WAYS]
    t = t[t != BOTH_WAYS]
    P = raw.dense(np.float64)[unordered]
    return (np.concatenate([t == 1, t == 2]).astype(int),
            np.concatenate([P[:, 1], P[:, 2]]))


def floors(y: np.ndarray, p: np.ndarray, rng: np.random.Generator) -> dict:
    """In-sample, cross-fitted and noise-floor ECE of ``p`` against ``y`` (module doc)."""
    q = _isotonic(p, y).predict(p)
    crossfit = []
    for _ in range(SPLITS):
        half = rng.permutation(len(y)) < len(y) // 2
        out = np.empty(len(y))
        for side in (half, ~half):
            out[~side] = _isotonic(p[side], y[side]).predict(p[~side])
        crossfit.append(expected_calibration_error(y, out, n_bins=BINS))
    floor = [expected_calibration_error((rng.random(len(q)) < q).astype(int), q, n_bins=BINS)
             for _ in range(FLOOR_DRAWS)]
    zero = p == 0
    rate = float(y[zero].mean()) if zero.any() else 0.0
    return {"raw_ece": expected_calibration_error(y, p, n_bins=BINS),
            "zero_share": float(zero.mean()), "zero_rate": rate,
            "zero_ece": float(zero.mean()) * rate,
            "zero_answers": 2 / (np.pi * rate) if rate else None,
            "raw_brier": brier_score(y, p),
            "insample_ece": expected_calibration_error(y, q, n_bins=BINS),
            "crossfit_ece": float(np.mean(crossfit)), "floor_ece": float(np.mean(floor)),
            "pairs": len(y)}


def _gain_ranking(data, y: np.ndarray, p: np.ndarray) -> dict:
    """``zero_gain_auroc`` (module doc)."""
    zero = p == 0
    gain = pairwise_gain_all(data).astype(np.float64)[zero]
    ok = 0 < y[zero].sum() < zero.sum()
    return {"zero_gain_auroc": roc_auc(y[zero], gain) if ok else None}


def answers_map(case: str, kind: str, raw, edge_truth, causal_truth) -> dict:
    """The isotonic map fitted on 40 suggested pairs' true answers, per draw (module doc)."""
    better, ece, raw_ece = [], [], []
    for draw in range(DRAWS):
        ask = suggest_pairs(raw, 40, seed=stable_seed(case, kind, draw), allocation="equal")
        index = {n: k for k, n in enumerate(raw.names)}
        a, b = ask["a"].map(index).to_numpy(), ask["b"].map(index).to_numpy()
        asked = pair_index(np.minimum(a, b), np.maximum(a, b), raw.n_vars)
        weight = ask["stratum_pairs"].to_numpy() / ask["stratum_drawn"].to_numpy()
        y_a, p_a = _ordered(kind, asked, raw, edge_truth, causal_truth)
        if kind == "causal":  # the asked pairs in a cycle drop out with their weights
            t = np.asarray(causal_truth)[asked]
            weight = np.tile(weight[t != BOTH_WAYS], 2)
        held = np.setdiff1d(np.arange(raw.n_pairs), asked)
        y, p = _ordered(kind, held, raw, edge_truth, causal_truth)
        q = _isotonic(p_a, y_a, weight).predict(p)
        better.append(brier_score(y, q) < brier_score(y, p))
        ece.append(expected_calibration_error(y, q, n_bins=BINS))
        raw_ece.append(expected_calibration_error(y, p, n_bins=BINS))
    return {"iso40_better": float(np.mean(better)), "iso40_ece": float(np.mean(ece)),
            "iso40_raw_ece": float(np.mean(raw_ece))}


SHOWN = ("raw_ece", "floor_ece", "crossfit_ece", "zero_share", "zero_rate", "zero_ece",
         "zero_answers", "iso40_raw_ece", "iso40_ece", "iso40_better")


def summary(records: list[dict]) -> str:
    """Means over the seeds of a family and n (markdown), and how many settings with raw
    ECE > 0.01 a perfectly calibrated forecaster (``floor_ece``) or the cross-fitted
    oracle would fail the half-gap line ECE ≤ ECE_raw / 2 by."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        family, n = (r["case"], "") if r["case"].startswith("sachs") else \
            tuple(r["case"].rsplit("-", 2)[:2])
        groups.setdefault((r["kind"], family, n), []).append(r)
    lines = ["| kind | family | n | " + " | ".join(SHOWN) + " |",
             "|" + "---|" * (len(SHOWN) + 3)]
    fails = {"floor_ece": 0, "crossfit_ece": 0, "settings": 0}
    for key, rs in sorted(groups.items()):
        mean = {k: np.mean([r[k] for r in rs]) for k in SHOWN if k != "zero_answers"}
        # the median over seeds, none where the never-related pairs hold no related one
        mean["zero_answers"] = np.median([r["zero_answers"] or np.inf for r in rs])
        lines.append("| " + " | ".join(key) + " | " + " | ".join(
            f"{mean[k]:.0%}" if k == "iso40_better" else "—" if np.isinf(mean[k])
            else f"{mean[k]:.0f}" if k == "zero_answers" else f"{mean[k]:.4f}"
            for k in SHOWN) + " |")
        if mean["raw_ece"] > 0.01:
            fails["settings"] += 1
            for k in ("floor_ece", "crossfit_ece"):
                fails[k] += bool(mean[k] > mean["raw_ece"] / 2)
    return "\n".join(lines) + (
        f"\n\nsettings with raw ECE > 0.01: {fails['settings']}; a perfectly calibrated "
        f"forecaster's expected ECE above ECE_raw / 2 in {fails['floor_ece']}, the "
        f"cross-fitted oracle's in {fails['crossfit_ece']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--summary", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary([json.loads(line) for line in args.records.open()]))
        return
    done = set()
    if args.records.exists():
        done = {(r["case"], r["kind"]) for r in map(json.loads, args.records.open())}
    args.records.parent.mkdir(parents=True, exist_ok=True)
    for case in all_cases():
        if not (CACHE / f"{case}.npz").exists():
            continue
        data, probs, edge_truth, causal_truth = load_case(case)
        for kind in ("edges", "causal"):
            if (case, kind) in done:
                continue
            raw = relation_kind(kind).raw(probs)
            y, p = _ordered(kind, np.arange(raw.n_pairs), raw, edge_truth, causal_truth)
            record = {"case": case, "kind": kind,
                      **floors(y, p, np.random.default_rng(stable_seed(case, kind))),
                      **(_gain_ranking(data, y, p) if kind == "edges" else {}),
                      **answers_map(case, kind, raw, edge_truth, causal_truth)}
            with args.records.open("a") as out:
                out.write(json.dumps(record) + "\n")
            print(case, kind, {k: round(v, 4) for k, v in record.items()
                               if isinstance(v, float)}, flush=True)


if __name__ == "__main__":
    main()
