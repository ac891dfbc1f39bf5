"""Sachs with 20 suggested pairs answered from the consensus network, 10 splits: the ECE
of the held-out predictions of all splits pooled (10 equal-count bins), raw and
calibrated — issue 39's Sachs line, quoted in docs/results.md ("Suggested pairs"; the
figures there of sessions 13–14 are ``--allocation equal``). ``--wrong K``: K of the
answers of each split made wrong (half inventing a relation, half denying or reversing
one: :func:`studies.misspec.fallible.corrupt`; issue 48's Sachs line is 2 of 20);
``--answer-error`` and ``--answer-guard`` set the calibration's (default the library's).

    python -m experiments.sachs_pooled_ece [--allocation equal] [--wrong 2]
"""

from __future__ import annotations

import argparse

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


def pooled(case: str, kind: str, splits: int = 10, asked: int = 20,
           allocation: str = "proportional", wrong: int = 0,
           calibration: dict | None = None) -> str:
    """One line: pooled held-out Brier, ECE and AUROC, raw and calibrated (``wrong``
    answers of each split made wrong; ``calibration``: settings other than the
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
    out = [f"{case} {kind}, {asked} answers ({wrong} wrong) x {splits} splits ({refused} "
           f"refused), {len(y)} held-out predictions:"]
    for name, p in (("raw", p_raw), ("calibrated", p_cal)):
        out.append(f"  {name:10s} Brier {brier_score(y, p):.4f}  ECE "
                   f"{expected_calibration_error(y, p, n_bins=10):.4f}  AUROC "
                   f"{roc_auc(y, p):.3f}")
    return "\n".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--allocation", choices=("proportional", "equal"),
                        default="proportional")
    parser.add_argument("--wrong", type=int, default=0, help="wrong answers per split")
    parser.add_argument("--answer-error", type=float, default=None)
    parser.add_argument("--answer-guard", type=int, default=None)
    args = parser.parse_args()
    settings = {k: v for k, v in (("answer_error", args.answer_error),
                                  ("answer_guard", args.answer_guard)) if v is not None}
    for case in ("sachs-all", "sachs-obs"):
        for kind in ("edges", "causal"):
            print(pooled(case, kind, allocation=args.allocation, wrong=args.wrong,
                         calibration=settings), flush=True)
