"""Issue 28 point 2: tiers. ``--forbid-within-tiers``, Tetrad's knowledge file
(``addtemporal`` with ``1*`` tiers, ``forbiddirect``, ``requiredirect``) with errors naming
the file and line, untiered variables listed in discover's summary, and the README's
diabetes example tiering every variable (docs/design.md §5)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from test_cli_knowledge_checks import KNOWN, chain_data

from causalcal.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
DIABETES = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "target"]


def bootstrap(capsys, folder: Path, *extra) -> tuple[int, str]:
    code = main(["bootstrap", str(folder / "data.csv"), "--out", str(folder / "p.csv"),
                 "--n-boot", "4", "--quiet", *map(str, extra)])
    return code, capsys.readouterr().err


def p_adjacent(folder: Path, a: str, b: str) -> float:
    """P(adjacent) of ``a`` and ``b`` in the bootstrap's p.csv (pairs not listed: 0)."""
    frame = pd.read_csv(folder / "p.csv")
    hit = frame[((frame.a == a) & (frame.b == b)) | ((frame.a == b) & (frame.b == a))]
    return 0.0 if hit.empty else float(1 - hit.p_none.iloc[0])


def test_forbid_within_tiers(tmp_path, capsys):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "tiers.csv").write_text("variable,tier\nv0,0\nv1,0\nv2,1\n")
    assert bootstrap(capsys, tmp_path, "--tiers", tmp_path / "tiers.csv")[0] == 0
    assert p_adjacent(tmp_path, "v0", "v1") == 1.0  # strongly dependent: always an edge
    code, err = bootstrap(capsys, tmp_path, "--tiers", tmp_path / "tiers.csv",
                          "--forbid-within-tiers", "--force")
    assert code == 0, err
    assert p_adjacent(tmp_path, "v0", "v1") == 0.0
    assert p_adjacent(tmp_path, "v1", "v2") == 1.0  # across tiers: still found


def test_tetrad_knowledge_file(tmp_path, capsys):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "k.txt").write_text(
        "/knowledge\n// Tetrad's format\naddtemporal\n1* v0 v1\n2 v2  v3\n\n"
        "forbiddirect\nv4 v5\nrequiredirect\nv6\tv7\n")
    code, err = bootstrap(capsys, tmp_path, "--knowledge", tmp_path / "k.txt")
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "p.csv").set_index(["a", "b"])
    assert p_adjacent(tmp_path, "v0", "v1") == 0.0  # 1*: nothing within tier 1
    assert frame.loc[("v1", "v2"), "p_forward"] == 1.0  # tier 1 before tier 2
    assert frame.loc[("v4", "v5"), "p_forward"] == 0.0  # forbidden v4 -> v5
    assert frame.loc[("v6", "v7"), "p_forward"] == 1.0  # required v6 -> v7


@pytest.mark.parametrize("text, line, words", [
    ("/knowledge\naddtemporal\n1 v0\nx v1 v2\n", 4, "tier number"),
    ("/knowledge\nforbiddirect\nv0 v1 v2\n", 3, "two variable names"),
    ("/knowledge\nforbiddengroup\nv0 v1\n", 2, "'forbiddengroup' is not read"),
    ("/knowledge\nv0 v1\naddtemporal\n1 v0\n", 2, "outside a section"),
    ("addtemporal\n1 v0 v1\n2 v1\n", 3, "'v1' is already in tier 1"),
])
def test_tetrad_file_errors_name_the_file_and_line(tmp_path, capsys, text, line, words):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "k.txt").write_text(text)
    code, err = bootstrap(capsys, tmp_path, "--knowledge", tmp_path / "k.txt")
    assert code == 2 and f"k.txt: line {line}: " in err and words in err, err


@pytest.mark.slow
def test_discover_summary_lists_untiered_variables(tmp_path, capsys):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame(KNOWN, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                                index=False)
    (tmp_path / "tiers.csv").write_text("variable,tier\nv0,0\nv1,1\nv2,2\nv3,3\nv7,0\n")
    code = main(["discover", str(tmp_path / "data.csv"), "--known", str(tmp_path / "known.csv"),
                 "--out", str(tmp_path / "edges.csv"), "--n-boot", "4", "--quiet",
                 "--tiers", str(tmp_path / "tiers.csv")])
    out = capsys.readouterr().out
    assert code == 0
    assert "3 of 8 variables have no tier" in out and "v4, v5, v6" in out


def test_readme_diabetes_example_tiers_every_variable():
    text = README.read_text(encoding="utf-8")
    written = re.search(r"open\('diabetes/tiers\.csv', 'w'\)\.write\('([^']*)'\)", text)
    rows = written.group(1).split("\\n")
    assert rows[0] == "variable,tier"
    tiered = {row.split(",")[0] for row in rows[1:] if row}
    assert tiered == set(DIABETES)
