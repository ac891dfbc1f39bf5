"""Sachs with 20 suggested pairs answered from the consensus network, 10 splits: the ECE
of the held-out predictions of all splits pooled (10 equal-count bins), raw and
calibrated — issue 39's Sachs line, quoted in docs/results.md ("Suggested pairs"; the
figures there of sessions 13–14 are ``--allocation equal``). ``--wrong K``: K of the
answers of each split made wrong (half inventing a relation, half denying or reversing
one: :func:`studies.misspec.fallible.corrupt`; issue 48's Sachs line is 2 of 20);
``--answer-error`` and ``--answer-guard`` set the calibration's (default the library's).

    python -m experiments.sachs_pooled_ece [--allocation equal] [--wrong 2]

Each line printed is also appended to ``results/misspec/sachs_pooled.jsonl`` as a record
(``--records`` another file).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import CalibrationSettings, relation_kind, suggest_pairs
from causalcal.errors import InputError
from causalcal.metrics import brier_score, expected_calibration_error, roc_auc
from causalcal.pairs import pair_index
from studies.discover_known.cases import stable_seed
from studies.misspec.calibrated import _held_out, _keys, answer
from studies.misspec.cases import load_case
from studies.misspec.fallible import corrupt

RECORDS = Path(__file__).resolve().parents[1] / "results" / "misspec" / "sachs_pooled.jsonl"


def pooled(case: str, kind: str, splits: int = 10, asked: int = 20,
           allocation: str = "proportional", wrong: int = 0,
           calibration: dict | None = None) -> dict:
    """The record of one setting: pooled held-out Brier, ECE and AUROC, raw and calibrated
    (``wrong`` answers of each split made wrong; ``calibration``: settings other than the
    library's)."""
    data, probs, edge_truth, causal_truth = load_case(case)
    raw = relation_kind(kind).raw(probs)
    ys, raws, cals, refused = [], [], [], 0
    for draw in range(splits):
        seed = stable_seed(case, kind, draw)
        ask = suggest_pairs(raw, asked, seed=seed, allocation=allocation)
        answered = answer(ask, data.names, kind, edge_truth, causal_truth,
                          np.random.default_rng(seed), 0.0, 0.0)
        if wrong:
            answered = corrupt(answered, wrong / asked, np.random.default_rng([seed, 48]))[0]
        try:
            result = causalcal.discover(data, answered, relations=kind, probabilities=probs,
                                        bootstrap=BootstrapSettings(seed=seed, progress=False),
                                        calibration=CalibrationSettings(**(calibration or {})))
        except InputError:  # e.g. too few answers of one kind: the split is refused
            refused += 1
            continue
        a, b = _keys(ask, data.names)
        keys = pair_index(np.minimum(a, b), np.maximum(a, b), data.n_vars)
        y, p_raw, p_cal = _held_out(kind, probs, result.fit.predict_all(np.float64), raw,
                                    edge_truth, causal_truth, keys)
        ys.append(y), raws.append(p_raw), cals.append(p_cal)
    y, p_raw, p_cal = np.concatenate(ys), np.concatenate(raws), np.concatenate(cals)
    record = {"case": case, "kind": kind, "asked": asked, "wrong": wrong, "splits": splits,
              "allocation": allocation, "refused": refused, "held_out": int(len(y)),
              **{f"setting_{k}": v for k, v in (calibration or {}).items()}}
    for name, p in (("raw", p_raw), ("cal", p_cal)):
        record.update({f"{name}_brier": brier_score(y, p),
                       f"{name}_ece": expected_calibration_error(y, p, n_bins=10),
                       f"{name}_auroc": roc_auc(y, p)})
    return record


def record_text(r: dict) -> str:
    """A record in the lines this module prints."""
    out = [f"{r['case']} {r['kind']}, {r['asked']} answers ({r['wrong']} wrong) x "
           f"{r['splits']} splits ({r['refused']} refused), {r['held_out']} held-out "
           "predictions:"]
    for name, key in (("raw", "raw"), ("calibrated", "cal")):
        out.append(f"  {name:10s} Brier {r[key + '_brier']:.4f}  ECE {r[key + '_ece']:.4f}"
                   f"  AUROC {r[key + '_auroc']:.3f}")
    return "\n".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--allocation", choices=("proportional", "equal"),
                        default="proportional")
    parser.add_argument("--wrong", type=int, default=0, help="wrong answers per split")
    parser.add_argument("--answer-error", type=float, default=None)
    parser.add_argument("--answer-guard", type=int, default=None)
    parser.add_argument("--records", type=Path, default=RECORDS)
    args = parser.parse_args()
    settings = {k: v for k, v in (("answer_error", args.answer_error),
                                  ("answer_guard", args.answer_guard)) if v is not None}
    for case in ("sachs-all", "sachs-obs"):
        for kind in ("edges", "causal"):
            record = pooled(case, kind, allocation=args.allocation, wrong=args.wrong,
                            calibration=settings)
            print(record_text(record), flush=True)
            with open(args.records, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
