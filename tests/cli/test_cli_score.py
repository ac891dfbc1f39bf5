"""``--score bic`` and ``--penalty-discount`` (issue 41 item 6) in bootstrap, discover and
suggest; the options of the other score refused; BDeu's sidecar unchanged."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from test_cli_knowledge_checks import KNOWN, chain_data

from causalcal.cli import main


@pytest.fixture
def data_csv(tmp_path):
    chain_data().to_csv(tmp_path / "data.csv", index=False)
    return str(tmp_path / "data.csv")


def _options(path) -> dict:
    return json.loads(open(f"{path}.json").read())["provenance"]["search_options"]


def test_bootstrap_with_bic(tmp_path, data_csv):
    out = tmp_path / "p.csv"
    assert main(["bootstrap", data_csv, "--out", str(out), "--n-boot", "2", "--quiet",
                 "--score", "bic", "--penalty-discount", "2"]) == 0
    assert _options(out) == {"score": "bic", "penalty_discount": 2.0}
    bdeu = tmp_path / "b.csv"
    assert main(["bootstrap", data_csv, "--out", str(bdeu), "--n-boot", "2", "--quiet"]) == 0
    assert _options(bdeu) == {}


@pytest.mark.parametrize("extra, message", [
    (["--score", "bic", "--sample-prior", "3"], "--sample-prior is BDeu's"),
    (["--penalty-discount", "2"], "--penalty-discount is the BIC scores'"),
    (["--score", "bic", "--option", "score=bdeu"], "--score and --option score"),
    (["--score", "bic", "--search", "pc"], "no option 'score'"),
])
def test_refusals(tmp_path, capsys, data_csv, extra, message):
    assert main(["bootstrap", data_csv, "--out", str(tmp_path / "p.csv"), "--n-boot", "2",
                 "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_discover_and_suggest_with_bic(tmp_path, capsys, data_csv):
    pd.DataFrame(KNOWN, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                                index=False)
    assert main(["discover", data_csv, "--known", str(tmp_path / "known.csv"), "--out",
                 str(tmp_path / "edges.csv"), "--n-boot", "8", "--jobs", "1", "--quiet",
                 "--score", "bic"]) == 0
    edges = pd.read_csv(tmp_path / "edges.csv")
    assert len(edges) > 0
    assert main(["suggest", data_csv, "--out", str(tmp_path / "ask.csv"), "--n", "10",
                 "--n-boot", "8", "--jobs", "1", "--quiet", "--score", "bic"]) == 0
