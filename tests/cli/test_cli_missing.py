"""Issue 28 point 8: ``--missing drop`` (listwise deletion), reported with the rows
dropped and the missing cells per column; the default still refuses a missing value
naming its column and row (docs/design.md §3)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from test_cli_knowledge_checks import KNOWN, chain_data

from causalcal.cli import main


@pytest.fixture
def folder(tmp_path) -> Path:
    frame = chain_data().astype(object)
    frame.loc[4, "v2"] = None  # data rows 5, 9 and 9: empty cells
    frame.loc[8, "v2"] = None
    frame.loc[8, "v5"] = None
    frame.to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame(KNOWN, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                                index=False)
    return tmp_path


def bootstrap(capsys, folder: Path, *extra) -> tuple[int, str]:
    code = main(["bootstrap", str(folder / "data.csv"), "--out", str(folder / "p.csv"),
                 "--n-boot", "2", "--quiet", *map(str, extra)])
    return code, capsys.readouterr().err


def test_default_refuses_naming_column_and_row(folder, capsys):
    code, err = bootstrap(capsys, folder)
    assert code == 2 and "column 'v2', row 5: missing value" in err
    assert "--missing drop" in err


def test_drop_reports_rows_and_columns(folder, capsys):
    code, err = bootstrap(capsys, folder, "--missing", "drop")
    assert code == 0, err
    assert "dropped 2 of 300 rows (listwise deletion): rows 5, 9;" in err
    assert "v2 2, v5 1" in err


def test_drop_lists_at_most_20_rows_then_a_count(folder, capsys):
    frame = pd.read_csv(folder / "data.csv", dtype=str, keep_default_na=False)
    frame.loc[100:124, "v1"] = ""  # data rows 101 to 125
    frame.to_csv(folder / "data.csv", index=False)
    code, err = bootstrap(capsys, folder, "--missing", "drop")
    assert code == 0, err
    listed = ", ".join(["5", "9", *map(str, range(101, 119))])
    assert f"dropped 27 of 300 rows (listwise deletion): rows {listed} and 7 more;" in err


def test_rows_keep_their_numbers_after_a_drop(folder, capsys):
    frame = pd.read_csv(folder / "data.csv", dtype=str, keep_default_na=False)
    frame.loc[19, "v3"] = "inf"
    frame.to_csv(folder / "data.csv", index=False)
    code, err = bootstrap(capsys, folder, "--missing", "drop")
    assert code == 2 and "column 'v3', row 20: non-finite value inf" in err


@pytest.mark.slow
def test_discover_summary_reports_the_drop(folder, capsys):
    code = main(["discover", str(folder / "data.csv"), "--known", str(folder / "known.csv"),
                 "--out", str(folder / "edges.csv"), "--n-boot", "4", "--quiet",
                 "--missing", "drop"])
    out = capsys.readouterr().out
    assert code == 0
    assert "missing values: dropped 2 of 300 rows" in out and "v2 2, v5 1" in out
