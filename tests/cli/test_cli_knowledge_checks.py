"""Issue 28 point 1: known relations are checked against the background knowledge.

A known arc that the tiers or ``--knowledge`` exclude, or a known ``none`` where the
knowledge requires an arc, is refused before any search: one line naming the pair and
the rule, exit 2 (docs/design.md §9.3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main

NAMES = [f"v{k}" for k in range(8)]
KNOWN = [("v0", "v1", "->"), ("v1", "v2", "->"), ("v2", "v3", "->"), ("v4", "v5", "->"),
         ("v5", "v6", "->"), ("v0", "v7", "none"), ("v1", "v7", "none"), ("v2", "v7", "none"),
         ("v3", "v7", "none"), ("v0", "v6", "none")]


def chain_data(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """Binary chains v0 -> v1 -> v2 -> v3 and v4 -> v5 -> v6, v7 independent."""
    rng = np.random.default_rng(seed)
    cols = {}
    for k, name in enumerate(NAMES):
        parent = cols.get(f"v{k - 1}") if k not in (0, 4, 7) else None
        noise = rng.random(n) < 0.15
        cols[name] = rng.integers(0, 2, n) if parent is None else np.where(noise, 1 - parent,
                                                                             parent)
    return pd.DataFrame(cols)


@pytest.fixture
def files(tmp_path) -> Path:
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame(KNOWN, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                                index=False)
    return tmp_path


def refused(capsys, folder: Path, *extra) -> str:
    """Run discover with ``extra`` options; the one error line (exit 2)."""
    code = main(["discover", str(folder / "data.csv"), "--known", str(folder / "known.csv"),
                 "--out", str(folder / "edges.csv"), "--n-boot", "2", "--quiet",
                 *map(str, extra)])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2 and len(lines) == 1, err
    assert not (folder / "edges.csv").exists()
    return lines[0]


def test_known_arc_against_the_tiers_is_refused(files, capsys):
    (files / "tiers.csv").write_text("variable,tier\nv0,1\nv1,0\n")
    line = refused(capsys, files, "--tiers", files / "tiers.csv")
    assert "v0 -> v1" in line and "tier" in line and "known.csv" in line


def test_known_none_where_an_arc_is_required_is_refused(files, capsys):
    (files / "arcs.csv").write_text("a,b,rule\nv2,v7,required\n")
    line = refused(capsys, files, "--knowledge", files / "arcs.csv")
    assert "v2 none v7" in line and "v2 -> v7 is required" in line


def test_known_arc_forbidden_or_against_a_required_arc_is_refused(files, capsys):
    (files / "arcs.csv").write_text("a,b,rule\nv4,v5,forbidden\n")
    assert "v4 -> v5 is forbidden" in refused(capsys, files, "--knowledge", files / "arcs.csv")
    (files / "arcs.csv").write_text("a,b,rule\nv2,v1,required\n")
    assert "v2 -> v1 is required" in refused(capsys, files, "--knowledge", files / "arcs.csv")


def test_known_arc_within_a_forbidden_tier_is_refused(files, capsys):
    (files / "k.txt").write_text("/knowledge\naddtemporal\n1* v0 v1\n")
    line = refused(capsys, files, "--knowledge", files / "k.txt")
    assert "v0 -> v1" in line and "within which edges are forbidden" in line
