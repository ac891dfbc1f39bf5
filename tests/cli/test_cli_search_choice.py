"""The search and its options on the command line (issue 49 items 11–14): what the help
advertises works (MODULE:FUNCTION for suggest and discover, --alpha for bootstrap's gfci),
and each refusal says what the user can do."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main

PLUGIN = "causalcal.bootstrap.search.fges:fges"  # a MODULE:FUNCTION that exists


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    root = tmp_path_factory.mktemp("search")
    assert main(["simulate", "--nodes", "7", "--edges", "8", "--samples", "300", "--seed",
                 "8", "--out", str(root), "--quiet"]) == 0
    return root


def test_suggest_takes_a_search_function(sim, tmp_path, cli):
    """--search MODULE:FUNCTION was advertised, then refused."""
    code, _, err = cli("suggest", sim / "data.csv", "--search", PLUGIN, "--n-boot",
                       "2", "--jobs", "1", "--quiet", "--n", "6", "--out", tmp_path / "a.csv")
    assert code == 0, err
    assert len(pd.read_csv(tmp_path / "a.csv")) == 6


def test_discover_takes_a_search_function_and_its_help_says_so(sim, tmp_path, cli):
    assert "MODULE:FUNCTION" in cli("discover", "--help")[1]
    code, _, err = cli("discover", sim / "data.csv", "--search", "nowhere:search",
                       "--known", sim / "truth.csv", "--out", tmp_path / "e.csv")
    assert code == 2 and "--search 'nowhere:search': cannot import it" in err


def test_bootstrap_takes_alpha_for_gfci(sim, tmp_path, cli):
    """--alpha was refused by bootstrap; only --option alpha= worked."""
    assert "gfci" in cli("bootstrap", "--help")[1]
    argv = ["bootstrap", sim / "data.csv", "--search", "gfci", "--n-boot", "2", "--jobs", "1",
            "--quiet", "--out", tmp_path / "p.npz"]
    assert cli(*argv, "--alpha", "0.05")[0] == 0
    code, _, err = cli(*argv, "--alpha", "0.05", "--option", "alpha=0.1")
    assert code == 2 and "--alpha and --option alpha=… both given" in err
    code, _, err = cli(*argv, "--option", "alpha=nan")
    assert code == 2 and "option alpha must be a number, got 'nan'" in err


def test_no_edge_in_any_replicate_says_so(tmp_path, monkeypatch, cli):
    """The error spoke of an "expected number of adjacent pairs" the user never gave."""
    (tmp_path / "emptysearch.py").write_text(
        "from causalcal.graph import PDAG\n\n\ndef search(data, weights=None):\n"
        "    return PDAG(data.n_vars, data.names)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rng = np.random.default_rng(0)
    names = [f"V{k}" for k in range(6)]
    pd.DataFrame(rng.integers(0, 2, (40, 6)), columns=names).to_csv(tmp_path / "d.csv",
                                                                    index=False)
    known = [(names[k], names[k + 1], "->") for k in range(5)]
    known += [(names[0], names[k], "none") for k in range(2, 6)] + [("V1", "V3", "none")]
    pd.DataFrame(known, columns=["a", "b", "relation"]).to_csv(tmp_path / "k.csv", index=False)
    code, _, err = cli("discover", tmp_path / "d.csv", "--known", tmp_path / "k.csv",
                       "--search", "emptysearch:search", "--n-boot", "2", "--jobs", "1",
                       "--quiet", "--out", tmp_path / "e.csv")
    assert code == 2 and "no pair is adjacent in any bootstrap replicate" in err
    assert "expected number" not in err


def test_a_context_column_with_too_many_values_is_not_told_to_be_binned(tmp_path, cli):
    """"discretize it first": --discretize never bins context columns."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.integers(0, 2, 300), "cond": np.arange(300) * 1.5})
    frame.to_csv(tmp_path / "d.csv", index=False)
    for extra in ([], ["--discretize", "quantile:3"]):
        code, _, err = cli("bootstrap", tmp_path / "d.csv", "--context", "cond",
                           "--n-boot", "2", "--out", tmp_path / "p.npz", *extra)
        assert code == 2 and "'cond': 300 distinct values" in err
        assert "never binned" in err and "discretize it" not in err


def test_context_targets_and_scores_name_their_own_option(sim, tmp_path, cli):
    argv = ["bootstrap", sim / "data.csv", "--n-boot", "2", "--jobs", "1", "--quiet",
            "--out", tmp_path / "p.npz"]
    code, _, err = cli(*argv, "--context", "X0", "--context-targets", "X0:NOPE")
    assert code == 2 and "--context-targets 'NOPE': no such column" in err
    code, _, err = cli(*argv, "--context", "X0", "--search", "pc")
    assert code == 2 and "takes no background knowledge" in err
    code, _, err = cli(*argv, "--score", "bic", "--penalty-discount", "1e308")
    assert code == 2 and "penalty_discount must be a number in" in err
    assert "warning" not in err
