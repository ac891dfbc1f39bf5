"""``--context`` and ``--context-targets`` (issue 40 item 4, docs/design.md §5.2): context
columns are exogenous in every replicate, kept as their values by --discretize, and
contradictions are one-line errors naming the column (exit 2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main


@pytest.fixture
def folder(tmp_path) -> Path:
    """cond (4 conditions) -> x -> y -> z, x, y, z continuous."""
    rng = np.random.default_rng(0)
    n = 600
    cond = rng.integers(0, 4, n)
    x = rng.normal(size=n) + 1.5 * (cond == 1) - 1.5 * (cond == 2)
    y = x + 0.5 * rng.normal(size=n)
    z = y + rng.normal(size=n)
    pd.DataFrame({"cond": cond, "x": x, "y": y, "z": z}).to_csv(tmp_path / "data.csv",
                                                                 index=False)
    return tmp_path


def bootstrap(capsys, folder: Path, *extra) -> tuple[int, str]:
    code = main(["bootstrap", str(folder / "data.csv"), "--out", str(folder / "p.csv"),
                 "--n-boot", "6", "--jobs", "1", "--discretize", "quantile:3", "--force",
                 *map(str, extra)])
    return code, capsys.readouterr().err


def pair(folder: Path, a: str, b: str) -> pd.Series:
    frame = pd.read_csv(folder / "p.csv")
    return frame[(frame.a == a) & (frame.b == b)].iloc[0]


def test_context_column_is_exogenous_and_kept(folder, capsys):
    code, err = bootstrap(capsys, folder)
    assert code == 0
    assert "column 'cond'" in err  # binned like any numeric column without --context
    assert pair(folder, "cond", "x").p_undirected > 0.5  # and the search cannot orient it
    code, err = bootstrap(capsys, folder, "--context", "cond")
    assert code == 0, err
    assert "column 'cond'" not in err and "column 'x'" in err  # kept: its 4 values
    for other in ("x", "y", "z"):
        assert pair(folder, "cond", other).p_backward == 0  # never other -> cond
    assert pair(folder, "cond", "x").p_forward > 0.5
    assert pair(folder, "x", "y").p_forward > 0.5  # oriented away from the condition


def test_known_targets(folder, capsys):
    code, err = bootstrap(capsys, folder, "--context", "cond", "--context-targets", "cond:y")
    assert code == 0, err
    assert 1 - pair(folder, "cond", "x").p_none == 0  # x is no target: never adjacent
    assert pair(folder, "cond", "y").p_backward == 0


@pytest.mark.parametrize("extra, message", [
    (["--context", "cnd"], "--context 'cnd': no such column in"),
    (["--context", "cond", "--context-targets", "x:y"], "'x' is not a --context column"),
    (["--context", "cond", "--context-targets", "cond"], "expected COLUMN:T1,T2"),
    (["--context", "cond", "--context-targets", "cond:w"],  # issue 49: it named --context
     "--context-targets 'w': no such column in the data"),
    (["--context", "cond", "--discretize", "cond=quantile:2,quantile:3"],
     "'cond' is a --context column, kept as its values"),
])
def test_errors_name_the_column(folder, capsys, extra, message):
    code, err = bootstrap(capsys, folder, *extra)
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2 and len(lines) == 1, err
    assert message in lines[0]


def test_contradiction_with_the_users_knowledge(folder, capsys):
    (folder / "arcs.csv").write_text("a,b,rule\nx,cond,required\n")
    code, err = bootstrap(capsys, folder, "--knowledge", folder / "arcs.csv", "--context",
                          "cond")
    assert code == 2
    assert "required arc 'x' -> 'cond' contradicts the context: cond is a context column" in err
    (folder / "tiers.csv").write_text("variable,tier\ncond,1\nx,0\n")
    code, err = bootstrap(capsys, folder, "--tiers", folder / "tiers.csv", "--context", "cond")
    assert code == 2 and "context column 'cond' is in tier 1, after the system variable 'x'" \
        in err


def test_suggest_and_discover_take_context(folder, capsys):
    code = main(["suggest", str(folder / "data.csv"), "--out", str(folder / "ask.csv"),
                 "--n", "4", "--n-boot", "3", "--jobs", "1", "--quiet", "--discretize",
                 "quantile:3", "--context", "cond"])
    assert code == 0, capsys.readouterr().err
    for command in ("discover", "suggest", "bootstrap"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--context COLUMN" in capsys.readouterr().out


def test_gfci_reads_the_context(folder, capsys):
    code, err = bootstrap(capsys, folder, "--context", "cond", "--search", "gfci")
    assert code == 0, err
    for other in ("x", "y", "z"):  # never an arrowhead at the context column
        row = pair(folder, "cond", other)
        assert row.p_arrow_circle == row.p_arrow_tail == row.p_arrow_arrow == 0
        assert row.p_circle_circle == row.p_circle_arrow == 0  # JCI2: a tail at cond
    assert pair(folder, "cond", "x").p_tail_arrow > 0.5
