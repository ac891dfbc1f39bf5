"""`causalcal suggest` and the answered file in `discover` (docs/design.md §9.12)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.edges import EdgeProbabilities


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A 20-variable simulation and its 10-replicate ancestral bootstrap."""
    root = tmp_path_factory.mktemp("suggest")
    assert main(["simulate", "--nodes", "20", "--edges", "30", "--samples", "800", "--seed",
                 "2", "--out", str(root), "--quiet"]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "10", "--ancestral",
                 "--out", str(root / "probs.npz"), "--quiet", "--jobs", "1"]) == 0
    return root


def _answered(sim, ask: pd.DataFrame) -> pd.DataFrame:
    truth = pd.read_csv(sim / "truth.csv")
    arcs = {(r.a, r.b): r.relation for r in truth.itertuples() if r.relation != "none"}
    back = {"->": "<-", "<-": "->", "--": "--"}
    relation = [arcs.get((a, b)) or back.get(arcs.get((b, a)), "none")
                for a, b in zip(ask["a"], ask["b"], strict=True)]
    return ask.assign(relation=relation)


def test_suggest_then_discover_uses_the_answers(sim, tmp_path, capsys):
    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(sim / "data.csv"), "--n", "30", "--probabilities",
                 str(sim / "probs.npz"), "--out", str(ask), "--seed", "1"]) == 0
    assert "fill in the relation column" in capsys.readouterr().out
    table = pd.read_csv(ask)
    assert list(table.columns) == ["a", "b", "relation", "p_related", "stratum",
                                   "stratum_pairs", "stratum_drawn"]
    assert (table["relation"] == "unknown").all() and len(table) == 30
    answered = _answered(sim, table)
    answered.loc[answered.index[:3], "relation"] = "unknown"
    answered.to_csv(tmp_path / "answered.csv", index=False)
    out = tmp_path / "edges.csv"
    assert main(["discover", str(sim / "data.csv"), "--known", str(tmp_path / "answered.csv"),
                 "--probabilities", str(sim / "probs.npz"), "--out", str(out), "--quiet"]) == 0
    summary = capsys.readouterr().out
    assert "answers: 30 pairs suggested, 27 answered (3 unknown)" in summary
    report = json.loads((tmp_path / "edges.csv.json").read_text())
    assert report["answers"]["unknown"] == 3 and sum(report["answers"]["answered"]) == 27
    assert "designed" in report["map"]["candidates"]
    assert len(pd.read_csv(out)) == EdgeProbabilities.load(sim / "probs.npz").n_pairs - 27


def test_suggest_leaves_known_pairs_out_and_refuses_bad_counts(sim, tmp_path):
    known = pd.read_csv(sim / "truth.csv").head(5)
    known.to_csv(tmp_path / "known.csv", index=False)
    ask = tmp_path / "ask.csv"
    assert main(["suggest", str(sim / "data.csv"), "--n", "150", "--probabilities",
                 str(sim / "probs.npz"), "--known", str(tmp_path / "known.csv"),
                 "--out", str(ask), "--relations", "causal"]) == 0
    asked = set(zip(*pd.read_csv(ask)[["a", "b"]].to_numpy().T, strict=True))
    stated = known[known["relation"] != "none"]  # 'none' says nothing of causation
    given = {tuple(sorted(p)) for p in zip(stated["a"], stated["b"], strict=True)}
    assert given and not {tuple(sorted(p)) for p in asked} & given
    assert main(["suggest", str(sim / "data.csv"), "--n", "0", "--probabilities",
                 str(sim / "probs.npz"), "--out", str(tmp_path / "x.csv")]) == 2
    assert main(["suggest", str(sim / "data.csv"), "--n", str(10 ** 6), "--probabilities",
                 str(sim / "probs.npz"), "--out", str(tmp_path / "y.csv")]) == 2
    assert np.isfinite(pd.read_csv(ask)["p_related"]).all()
