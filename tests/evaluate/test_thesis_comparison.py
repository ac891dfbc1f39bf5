"""The thesis's Tables 33/34 as transcribed, the comparison table and acceptance checks."""

import numpy as np
import pytest

from causalcal.evaluate.report import TABLE33_COLUMNS
from causalcal.evaluate.thesis_comparison import (
    THESIS_TABLES,
    acceptance_checks,
    comparison_table,
)

MEASURES = [key for key, _ in TABLE33_COLUMNS]


def test_thesis_tables_complete():
    for table, edges in ((33, (1000, 2000, 3000)), (34, (5000, 10000, 15000))):
        cells = THESIS_TABLES[table]
        assert sorted(cells) == [(n, e) for n in (40, 80, 120) for e in edges]
        for methods in cells.values():
            assert set(methods) == {"before", "after"}
            assert all(len(v) == len(MEASURES) for v in methods.values())
    # spot checks against the thesis text (Table 33 N=120 E=1K after; Table 34 N=40 E=5K)
    assert THESIS_TABLES[33][(120, 1000)]["after"][-1] == 0.12
    assert THESIS_TABLES[33][(40, 1000)]["before"][1] == 0.60
    assert THESIS_TABLES[34][(40, 5000)]["before"][7] == 0.68


def _runs(n_runs=6, mce_before=0.3, mce_after=0.1):
    rng = np.random.default_rng(0)
    out = []
    for r in range(n_runs):
        rec = {"V": 1000, "E": 1000, "N": 40, "repeat": r, "status": "ok"}
        for m in (*MEASURES, "overall_ece", "overall_brier", "accuracy"):
            rec[f"before_{m}"] = 0.5 + 0.01 * rng.random()
            rec[f"after_{m}"] = 0.5 + 0.01 * rng.random()
        rec["before_overall_mce"] = mce_before + 0.001 * r
        rec["after_overall_mce"] = mce_after + 0.001 * r
        rec["before_directed_recall"] = 0.62
        out.append(rec)
    return out


def test_acceptance_checks_hand_derived():
    (row,) = acceptance_checks(_runs(), 33)
    assert row["mce_before"] == pytest.approx(0.3025)
    assert row["mce_after"] == pytest.approx(0.1025)
    assert row["mce_improves"] and row["mce_at_most_thesis"]  # thesis after: 0.23
    assert row["directed_recall_vs_thesis"] == pytest.approx(0.62 - 0.60)
    (worse,) = acceptance_checks(_runs(mce_after=0.25), 33)
    assert worse["mce_improves"] and not worse["mce_at_most_thesis"]


def test_comparison_table_rows():
    text = comparison_table({"A": _runs(), "B": _runs(mce_after=0.4)}, 33)
    lines = text.splitlines()
    cell = [ln for ln in lines if ln.startswith("| 40 | 1K |")]
    labels = [ln.split(" | ")[2] for ln in cell]
    assert labels == ["ours before", "A after", "B after", "thesis before", "thesis after"]
    # A's overall MCE fell in all six paired runs: significant (p = 0.03), bold
    assert "**0.10**" in cell[1] and "0.40" in cell[2] and "**0.40**" not in cell[2]
    # cells we did not run still show the thesis rows
    assert sum(ln.startswith("| 120 | 3K | thesis") for ln in lines) == 2
