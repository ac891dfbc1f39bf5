"""The misspecification benchmark harness `python -m studies.misspec` (issue 39)."""

import numpy as np
import pytest

from causalcal.pairs import n_pairs, pair_index
from studies.discover_known.records import read_records
from studies.misspec import cases as cases_mod
from studies.misspec import cli, load_case


def test_case_names_round_trip():
    assert cases_mod.parse_name("hidden-alarm-n500-s2") == ("hidden-alarm", 500, 2)
    assert cases_mod.parse_name("sachs-obs") == ("sachs-obs", None, None)
    with pytest.raises(ValueError):
        cases_mod.parse_name("nothing-n500-s0")
    names = cases_mod.all_cases(["latent"], (500,), (0, 1))
    assert names == ["latent-n500-s0", "latent-n500-s1", "sachs-all", "sachs-obs"]


def test_sachs_observational_rows_and_cycle():
    data, edge_truth, causal_truth, _ = cases_mod.sachs(observational=True)
    assert data.n_samples == 853 and data.n_vars == 11
    assert np.count_nonzero(edge_truth) == 18
    names = data.names
    k = pair_index(np.array([names.index("plcg")]), np.array([names.index("PIP2")]), 11)
    assert causal_truth[k[0]] == cases_mod.BOTH_WAYS
    assert np.count_nonzero(causal_truth == cases_mod.BOTH_WAYS) == 3
    everything, *_ = cases_mod.sachs(observational=False)
    assert everything.n_samples == 7466


@pytest.mark.slow
def test_run_records_once_and_loads(tmp_path, capsys):
    args = ["--cases", "hidden-child-n200-s0", "--n-boot", "3", "--jobs", "1",
            "--records", str(tmp_path / "raw.jsonl"), "--cache", str(tmp_path / "cache")]
    cli.main(args)
    cli.main(args)  # resumes: nothing new
    records = read_records(tmp_path / "raw.jsonl")
    assert len(records) == 1
    record = records[0]
    assert record["family"] == "hidden-child" and record["n"] == 200
    assert 0 <= record["adj_ece"] <= 1 and record["adj_oracle_brier"] <= record["adj_brier"]
    data, probs, edge_truth, causal_truth = load_case("hidden-child-n200-s0",
                                                      tmp_path / "cache", n_boot=3)
    assert probs.ancestral is not None and probs.names == data.names
    assert edge_truth.shape == causal_truth.shape == (n_pairs(data.n_vars),)
    cli.main(["--summary", "--records", str(tmp_path / "raw.jsonl")])
    assert "| hidden-child | 200 | 1 | 17 |" in capsys.readouterr().out


@pytest.mark.slow
def test_bic_bootstrap_is_cached_and_recorded_apart(tmp_path):
    args = ["--cases", "hidden-child-n200-s0", "--n-boot", "3", "--jobs", "1",
            "--records", str(tmp_path / "bic.jsonl"), "--cache", str(tmp_path / "cache"),
            "--score", "bic"]
    cli.main(args)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [
        "hidden-child-n200-s0.bic.npz", "hidden-child-n200-s0.truth.npz"]
    (record,) = read_records(tmp_path / "bic.jsonl")
    assert record["scheme"] == "raw-bic" and record["score"] == "bic"
    from causalcal.edges import EdgeProbabilities

    assert EdgeProbabilities.load(tmp_path / "cache" / "hidden-child-n200-s0.bic.npz").n_boot == 3


def test_literature_pairs_are_the_obvious_ones_not_asked():
    """The ``literature10`` variant's own pairs (issue 39: a suggested file combined with
    the scientist's literature pairs): the related pairs the bootstrap finds most often
    and the unrelated it finds least often, none asked, written with their truth."""
    from causalcal.edges import EdgeProbabilities
    from studies.misspec.calibrated import literature

    names = ["a", "b", "c", "d"]  # pairs ab ac ad bc bd cd
    p_adj = np.array([0.9, 1.0, 0.1, 0.0, 0.6, 0.3])
    truth = np.array([1, 1, 0, 0, 3, 0])
    n_boot = 10
    hits = np.round(p_adj * n_boot).astype(int)
    i, j = np.triu_indices(4, 1)
    probs = EdgeProbabilities.from_counts(names, np.column_stack([i, j]),
                                          np.column_stack([hits, 0 * hits, 0 * hits]), n_boot)
    rows, keys = literature(probs, np.array([1]), names, "edges", truth, None, 4)
    assert list(keys) == [0, 4, 3, 2]  # ac asked; ab, bd most often; bc, ad least often
    assert list(rows["relation"]) == ["->", "--", "none", "none"]
    assert list(rows["a"] + rows["b"]) == ["ab", "bd", "bc", "ad"]
