"""Options beside an answered suggest file (issue 49 item 6): the calibrator and its
settings fit only the map of the scientist's own known pairs; without enough of them they
do not apply and are refused by name before any work (they were ignored, the output
byte-identical, while the summary named the calibrator)."""

from __future__ import annotations

import pandas as pd
import pytest

from causalcal.cli import main


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Data, their bootstrap, an answered suggest file, and the same with 6 + 6 own known
    pairs added."""
    root = tmp_path_factory.mktemp("answers")
    assert main(["simulate", "--nodes", "14", "--edges", "20", "--samples", "400", "--seed",
                 "6", "--out", str(root), "--quiet"]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "6", "--out",
                 str(root / "p.npz"), "--quiet", "--jobs", "1"]) == 0
    assert main(["suggest", str(root / "data.csv"), "--n", "16", "--probabilities",
                 str(root / "p.npz"), "--out", str(root / "ask.csv")]) == 0
    truth = pd.read_csv(root / "truth.csv")
    arcs = {(r.a, r.b): r.relation for r in truth.itertuples() if r.relation != "none"}
    back = {"->": "<-", "<-": "->", "--": "--"}
    ask = pd.read_csv(root / "ask.csv")
    ask["relation"] = [arcs.get((a, b)) or back.get(arcs.get((b, a)), "none")
                       for a, b in zip(ask["a"], ask["b"], strict=True)]
    ask.to_csv(root / "answered.csv", index=False)
    record = (root / "ask.csv.json").read_bytes()  # the design record travels with its file
    (root / "answered.csv.json").write_bytes(record)
    asked = {frozenset(p) for p in zip(ask["a"], ask["b"])}
    names = list(pd.read_csv(root / "data.csv", nrows=1).columns)
    own_arcs = [(a, b, r) for (a, b), r in arcs.items() if frozenset((a, b)) not in asked]
    nones = [(a, b, "none") for k, a in enumerate(names) for b in names[k + 1:]
             if frozenset((a, b)) not in asked and (a, b) not in arcs and (b, a) not in arcs]
    own = pd.DataFrame(own_arcs[:6] + nones[:6], columns=["a", "b", "relation"])
    assert len(own) == 12
    pd.concat([ask, own]).to_csv(root / "answered_own.csv", index=False)
    (root / "answered_own.csv.json").write_bytes(record)
    return root


@pytest.mark.parametrize("option, named", [
    (["--calibrator", "dirichlet"], "calibrator='dirichlet' (--calibrator)"),
    (["--expected-edges", "30"], "related_pairs=30.0 (--expected-edges)"),
    (["--evidence-strength", "1"], "evidence_strength=1.0 (--evidence-strength)"),
    (["--param", "n_models=3"], "(--param)"),
    (["--map", "calibrated"], "(--map calibrated)"),
])
def test_options_that_do_not_apply_are_refused_by_name_before_any_work(sim, tmp_path,
                                                                        option, named, cli):
    code, _, err = cli("discover", sim / "data.csv", "--known", sim / "answered.csv",
                       "--n-boot", "3", "--jobs", "1", "--checkpoint", tmp_path / "ck",
                       "--out", tmp_path / "edges.csv", "--quiet", *option)
    assert code == 2 and named in err and "not apply to this run" in err
    assert "your own known pairs" in err and str(sim / "answered.csv") in err
    assert not (tmp_path / "edges.csv").exists()
    assert not list((tmp_path / "ck").glob("rep-*.npz"))  # no replicate was searched


@pytest.mark.slow
def test_beside_enough_own_pairs_the_calibrator_is_used_and_named(sim, tmp_path, cli):
    written = {}
    for name in ("snn", "dirichlet"):
        out = tmp_path / f"{name}.csv"
        code, summary, err = cli("discover", sim / "data.csv", "--known",
                                 sim / "answered_own.csv", "--probabilities", sim / "p.npz",
                                 "--calibrator", name, "--map", "calibrated", "--quiet",
                                 "--out", out)
        assert code == 0, err
        assert f"the answers' logit-linear map; {name} on your own known pairs" in summary
        written[name] = out.read_bytes()
    assert written["snn"] != written["dirichlet"]


@pytest.mark.slow
def test_with_answers_alone_the_summary_does_not_name_a_calibrator(sim, tmp_path, cli):
    code, summary, err = cli("discover", sim / "data.csv", "--known",
                             sim / "answered.csv", "--probabilities", sim / "p.npz",
                             "--quiet", "--out", tmp_path / "edges.csv")
    assert code == 0, err
    assert "(the answers' logit-linear map:" in summary and "snn" not in summary
