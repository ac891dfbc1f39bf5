"""Continuous and mixed data on the command line (issue 50): simulate --kind, bootstrap /
suggest / discover with --score sem-bic|dg-bic, --continuous/--discrete, and refusals
naming the column or the option."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.edges import EdgeProbabilities


@pytest.fixture(scope="module")
def mixed_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("mixed")
    assert main(["simulate", "--kind", "mixed", "--nodes", "9", "--edges", "11", "--samples",
                 "400", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    return out


def _answers(ask: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    flip = {"->": "<-", "<-": "->", "--": "--", "none": "none"}
    known = {(r.a, r.b): r.relation for r in truth.itertuples()}
    known.update({(b, a): flip[r] for (a, b), r in list(known.items())})
    return ask.assign(relation=[known.get((a, b), "none") for a, b in zip(ask.a, ask.b)])


def test_simulate_kinds_write_their_model_and_truth(tmp_path):
    assert main(["simulate", "--kind", "linear-gaussian", "--nodes", "6", "--edges", "7",
                 "--samples", "50", "--out", str(tmp_path), "--quiet"]) == 0
    data = pd.read_csv(tmp_path / "data.csv")
    assert data.shape == (50, 6) and all(t.kind == "f" for t in data.dtypes)
    model = json.loads((tmp_path / "network.json").read_text())
    assert model["format"] == "causalcal.structural_model"
    assert set(pd.read_csv(tmp_path / "truth.csv")["relation"]) <= {"->", "<-", "--", "none"}
    assert main(["simulate", "--kind", "mixed", "--network", "alarm", "--out",
                 str(tmp_path / "x"), "--quiet"]) == 2


def test_bootstrap_sem_and_dg(tmp_path, mixed_dir):
    data = str(mixed_dir / "data.csv")
    out = tmp_path / "p.npz"
    assert main(["bootstrap", data, "--score", "dg-bic", "--penalty-discount", "1.5",
                 "--n-boot", "3", "--jobs", "1", "--out", str(out), "--quiet",
                 "--ancestral"]) == 0
    probs = EdgeProbabilities.load(out)
    assert probs.n_boot == 3 and probs.ancestral is not None
    assert probs.provenance["search_options"] == {"score": "dg-bic", "penalty_discount": 1.5}
    assert main(["bootstrap", data, "--score", "sem-bic", "--n-boot", "2", "--jobs", "1",
                 "--out", str(tmp_path / "s.csv"), "--quiet", "--max-degree", "2"]) == 0


@pytest.mark.parametrize("extra, message", [
    ([], "looks continuous, discretize it first (--discretize) or search it unbinned "
         "(--score sem-bic"),
    (["--score", "sem-bic", "--discrete", "X0"], "'X0' is declared discrete, but the score "
                                                 "takes continuous columns only"),
    (["--continuous", "X1"], "--continuous declares column kinds for the Gaussian scores"),
    (["--score", "dg-bic", "--continuous", "nope"], "--continuous: no column 'nope'"),
    (["--score", "sem-bic", "--context", "X0"], "'X0' is a context column, but the score "
                                                "takes continuous columns only; use "
                                                "--score dg-bic"),
    (["--score", "dg-bic", "--sample-prior", "2"], "--sample-prior is BDeu's; --score dg-bic"),
    (["--score", "dg-bic", "--device", "cuda"], "score 'dg-bic' runs on the CPU"),
])
def test_refusals_name_the_column_or_option(tmp_path, capsys, mixed_dir, extra, message):
    assert main(["bootstrap", str(mixed_dir / "data.csv"), "--out", str(tmp_path / "p.csv"),
                 "--n-boot", "2", "--jobs", "1", "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err


def test_collinear_columns_named_before_any_replicate(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    frame["d"] = frame["a"] - 2 * frame["c"]
    frame.to_csv(tmp_path / "d.csv", index=False)
    assert main(["bootstrap", str(tmp_path / "d.csv"), "--score", "sem-bic", "--out",
                 str(tmp_path / "p.csv"), "--n-boot", "2", "--jobs", "1", "--quiet"]) == 2
    assert "columns 'a', 'c', 'd' are collinear" in capsys.readouterr().err


@pytest.mark.slow
def test_suggest_then_discover_on_mixed_data(tmp_path, capsys, mixed_dir):
    data = str(mixed_dir / "data.csv")
    common = ["--score", "dg-bic", "--n-boot", "10", "--jobs", "1", "--quiet",
              "--checkpoint", str(tmp_path / "ck")]
    assert main(["suggest", data, "--n", "16", "--out", str(tmp_path / "ask.csv"),
                 *common]) == 0
    ask = _answers(pd.read_csv(tmp_path / "ask.csv"), pd.read_csv(mixed_dir / "truth.csv"))
    ask.to_csv(tmp_path / "known.csv", index=False)
    shutil.copy(tmp_path / "ask.csv.json", tmp_path / "known.csv.json")  # its design record
    capsys.readouterr()
    assert main(["discover", data, "--known", str(tmp_path / "known.csv"), "--out",
                 str(tmp_path / "res.csv"), "--graph", str(tmp_path / "net.dot"),
                 *common]) == 0
    out = capsys.readouterr().out
    assert "known pairs used for calibration" in out
    table = pd.read_csv(tmp_path / "res.csv")
    assert len(table) == 36 - 16 and table["p_adjacent"].between(0, 1).all()


@pytest.mark.slow
def test_gfci_on_mixed_data(tmp_path, mixed_dir):
    assert main(["bootstrap", str(mixed_dir / "data.csv"), "--score", "dg-bic", "--search",
                 "gfci", "--n-boot", "2", "--jobs", "1", "--out", str(tmp_path / "pag.csv"),
                 "--quiet", "--graph", str(tmp_path / "pag.txt")]) == 0
    assert (tmp_path / "pag.txt").exists()
