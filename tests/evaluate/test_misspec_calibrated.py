"""The calibrated draws of the misspecification benchmark: answers from the truth, by hand,
and the acceptance lines (studies.misspec.calibrated, .acceptance)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from studies.misspec.acceptance import lines_of
from studies.misspec.calibrated import answer


def _ask():
    return pd.DataFrame({"a": ["x", "z", "x"], "b": ["y", "y", "z"], "relation": "unknown",
                         "p_related": [0.9, 0.5, 0.1], "stratum": [4, 2, 0],
                         "stratum_pairs": [1, 1, 1], "stratum_drawn": [1, 1, 1]})


def test_answers_from_the_truth_by_hand():
    names = ["x", "y", "z"]  # pairs (x,y) key 0, (x,z) key 1, (y,z) key 2
    edge = np.array([1, 0, 3], dtype=np.int8)  # x -> y, x · z, y -- z
    causal = np.array([1, 0, 2], dtype=np.int8)  # x causes y, neither, z causes y
    rng = np.random.default_rng(0)
    edges = answer(_ask(), names, "edges", edge, causal, rng, 0.0, 0.0)
    assert edges["relation"].tolist() == ["->", "--", "none"]  # (z, y) read as (y, z)
    causes = answer(_ask(), names, "causal", edge, causal, rng, 0.0, 0.0)
    rows = list(zip(causes["a"], causes["b"], causes["relation"], strict=True))
    assert rows == [("x", "y", "causes"), ("z", "y", "causes"), ("x", "z", "not-causes"),
                    ("z", "x", "not-causes")]
    assert causes["stratum"].notna().sum() == 3  # the added row carries no design
    wrong = answer(_ask(), names, "edges", edge, causal, rng, 0.0, 1.0)
    assert wrong["relation"].tolist() == ["none", "none", "->"]
    gone = answer(_ask(), names, "edges", edge, causal, rng, 1.0, 0.0)
    assert (gone["relation"] == "unknown").all()


def test_acceptance_lines_by_hand():
    row = {"raw_brier": 0.10, "cal_brier": 0.08, "raw_ece": 0.10, "cal_ece": 0.04,
           "raw_oracle_ece": 0.0, "raw_auroc": 0.7, "cal_auroc": 0.7, "chosen": "designed"}
    ok = lines_of([row] * 5)
    assert all(ok["checks"].values()) and ok["better"] == 1.0 and ok["written"] == 1.0
    worse = lines_of([{**row, "cal_brier": 0.103, "cal_ece": 0.11, "cal_auroc": 0.69}])
    assert not any(worse["checks"].values())
    calibrated = lines_of([{**row, "raw_ece": 0.005, "cal_ece": 0.005}])
    assert set(calibrated["checks"]) == {"brier", "ece", "auroc"}  # no strong lines


def test_rounds_sizes_schemes_and_the_rounds_table(tmp_path):
    import json

    from studies.misspec.acceptance import rounds_text
    from studies.misspec.calibrated import _round_sizes, scheme_of

    assert _round_sizes(40, 2) == [20, 20] and _round_sizes(25, 3) == [9, 8, 8]
    assert scheme_of("edges", "clean", 40, 1) == "edges/clean"  # the records of before
    assert scheme_of("causal", "clean", 40, 2) == "causal/clean/r2"
    base = {"kind": "edges", "variant": "clean", "raw_brier": 0.1, "raw_ece": 0.05,
            "cal_ece": 0.03, "raw_auroc": 0.7, "cal_auroc": 0.72}
    records = [{**base, "case": "latent-n500-s0", "draw": d, "asked": 40, "cal_brier": 0.08}
               for d in range(2)]
    records += [{**base, "case": "latent-n500-s0", "draw": d, "asked": 40, "rounds": 2,
                 "cal_brier": 0.0815} for d in range(2)]
    records += [{**base, "case": "latent-n500-s0", "draw": 0, "asked": 20, "rounds": 2,
                 "cal_brier": 0.09}]  # no one-round draw to set it beside: left out
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    text = rounds_text(path)
    assert "| 40 | 1 | 2 | 0.1000 → 0.0800 |" in text
    assert ("| 40 | 2 | 2 | 0.1000 → 0.0815 | 0.0500 → 0.0300 | 0.700 → 0.720 | +0.0015 | "
            "-0.0015 | ok |") in text
    assert "| 20 | 2 |" not in text
