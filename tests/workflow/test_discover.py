"""The real-data workflow: `causalcal discover` and `causalcal.discover` (issue 9)."""

import re

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.edgecal import CalibrationSettings, EdgeTypes
from causalcal.edges import PROBABILITY_COLUMNS, EdgeType, pair_index
from causalcal.evaluate import edge_type_metrics
from causalcal.relations_io import read_known_pairs
from causalcal.simulate import random_network


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A simulated network written as CSV with string labels, its truth and a known.csv."""
    root = tmp_path_factory.mktemp("discover")
    net = random_network(30, 36, seed=3)
    data = net.sample(400, seed=6)
    frame = data.to_frame(labels=False).apply(lambda col: "s" + col.astype(str))
    frame.columns = [f"gene_{n}" for n in data.names]
    frame.to_csv(root / "data.csv", index=False)
    names = list(frame.columns)
    truth = net.truth_dense()
    # known pairs: half of the pairs of every relation, at random, so the known set has
    # the population's class frequencies (an unbiased sample, thesis §6.2.1)
    rng = np.random.default_rng(0)
    keys = np.sort(np.concatenate([
        rng.choice(members, size=len(members) // 2, replace=False)
        for members in (np.flatnonzero(truth == t) for t in range(4))]))
    i, j = causalcal.edges.pair_from_index(keys, len(names))
    known = pd.DataFrame({"a": np.asarray(names)[i], "b": np.asarray(names)[j],
                          "relation": [EdgeType(t).symbol for t in truth[keys]]})
    flip = rng.random(len(known)) < 0.5  # write half of them the other way round
    known.loc[flip, ["a", "b"]] = known.loc[flip, ["b", "a"]].to_numpy()
    known.loc[flip, "relation"] = known.loc[flip, "relation"].map(
        {"->": "<-", "<-": "->", "--": "--", "none": "none"})
    known.to_csv(root / "known.csv", index=False)
    return root, names, truth, keys


@pytest.fixture(scope="module")
def cli_run(study, causalcal_cli):
    root = study[0]
    out = causalcal_cli("discover", "data.csv", "--known", "known.csv", "--out", "edges.csv",
                        "--n-boot", 40, "--quiet", cwd=root)
    assert out.returncode == 0, out.stderr
    return out.stdout, pd.read_csv(root / "edges.csv")


@pytest.mark.slow
def test_discover_end_to_end(study, cli_run):
    root, names, truth, known_keys = study
    stdout, edges = cli_run
    assert "top 10 candidates by p_adjacent" in stdout and "P(adjacent) > 0.5" in stdout
    boot = [c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS]
    assert list(edges.columns) == ["a", "b", "p_adjacent", "p_directed",
                                   *PROBABILITY_COLUMNS, *boot]
    # every pair not known, once, ranked by p_adjacent
    index = {n: k for k, n in enumerate(names)}
    a = edges["a"].map(index).to_numpy()
    b = edges["b"].map(index).to_numpy()
    assert np.all(a < b)
    keys = pair_index(a, b, len(names))
    expected = np.setdiff1d(np.arange(len(truth)), known_keys)
    np.testing.assert_array_equal(np.sort(keys), expected)
    assert np.all(np.diff(edges["p_adjacent"].to_numpy()) <= 1e-12)
    np.testing.assert_allclose(edges["p_adjacent"], 1 - edges["p_none"], atol=2e-6)
    np.testing.assert_allclose(edges["p_directed"], edges["p_forward"] + edges["p_backward"],
                               atol=2e-6)
    np.testing.assert_allclose(edges[list(PROBABILITY_COLUMNS)].sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(edges[boot].sum(axis=1), 1, atol=1e-6)
    # calibration does no harm on the other pairs (219 test pairs of a 30-variable network
    # are too few to show a gain; the gains are measured by studies/discover_known and the
    # study tests)
    y = truth[keys].astype(np.int64)
    before = edge_type_metrics(edges[boot].to_numpy(), y, bin_size=50)
    after = edge_type_metrics(edges[list(PROBABILITY_COLUMNS)].to_numpy(), y, bin_size=50)
    assert after["overall_ece"] <= before["overall_ece"] + 0.005
    assert after["overall_brier"] <= before["overall_brier"] + 0.005


@pytest.mark.slow
def test_library_call_matches_cli(study, cli_run):
    root = study[0]
    result = causalcal.discover(root / "data.csv", root / "known.csv",
                                bootstrap=BootstrapSettings(n_boot=40, progress=False))
    cli = cli_run[1]
    np.testing.assert_allclose(result.table["p_adjacent"].to_numpy(),
                               cli["p_adjacent"].to_numpy(), atol=1e-5)
    choice = result.report.map
    assert choice.folds >= 2 and choice.chosen in ("calibrated", "identity")
    assert choice.candidates["calibrated"].brier.mean >= 0
    summary = result.summary(top=3)
    assert "top 3 candidates" in summary and "cross-validated" in summary
    if choice.chosen == "identity":
        assert "WARNING" in summary
        boot = [c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS]
        np.testing.assert_array_equal(result.table[list(PROBABILITY_COLUMNS)].to_numpy(),
                                      result.table[boot].to_numpy())
    report = (root / "edges.csv.json").read_text()
    assert '"format": "causalcal.discover-report"' in report and '"chosen"' in report
    sens = result.report.sensitivity
    # more assumed adjacent pairs -> every top candidate at least as likely adjacent
    assert np.all(np.asarray(sens.double) >= np.asarray(sens.half) - 1e-9)


@pytest.mark.slow
def test_discover_with_pair_features(study, tmp_path, causalcal_cli):
    """features=True: the calibrator sees the learned graphs' pair features (computed with
    the bootstrap); the same features read from a kept --checkpoint give the same table;
    precomputed probabilities without features or their checkpoint are refused."""
    root = study[0]
    # one SNN of 100 iterations, not 10 of 500: the test is of the features' path
    FAST = CalibrationSettings(map="calibrated", params={"n_models": 1, "max_iter": 100})
    plain = causalcal.discover(root / "data.csv", root / "known.csv",
                               bootstrap=BootstrapSettings(n_boot=10, progress=False),
                               calibration=FAST)
    rich = causalcal.discover(root / "data.csv", root / "known.csv",
                              relations=EdgeTypes(features=True),
                              bootstrap=BootstrapSettings(n_boot=10, progress=False),
                              calibration=FAST)
    assert list(rich.kind.features) == ["degree", "indegree", "common_neighbours",
                                            "v_structure", "pairwise_gain"]
    assert not np.allclose(rich.table.sort_values(["a", "b"])["p_adjacent"],
                           plain.table.sort_values(["a", "b"])["p_adjacent"])
    np.testing.assert_allclose(rich.table[list(PROBABILITY_COLUMNS)].sum(axis=1), 1)
    out = causalcal_cli("discover", "data.csv", "--known", "known.csv", "--out",
                        tmp_path / "e.csv", "--n-boot", 10, "--quiet", "--checkpoint",
                        tmp_path / "ck", "--features", "--map", "calibrated", "--param",
                        "n_models=1", "--param", "max_iter=100", cwd=root)
    assert out.returncode == 0, out.stderr
    cli = pd.read_csv(tmp_path / "e.csv")
    np.testing.assert_allclose(cli["p_adjacent"], rich.table["p_adjacent"], atol=1e-5)
    with pytest.raises(ValueError, match="features need the bootstrap's pair features"):
        causalcal.discover(root / "data.csv", root / "known.csv",
                           relations=EdgeTypes(features=["degree"]),
                           bootstrap=BootstrapSettings(progress=False),
                           probabilities=plain.probabilities)
    again = causalcal.discover(root / "data.csv", root / "known.csv",
                               relations=EdgeTypes(features=True),
                               bootstrap=BootstrapSettings(progress=False, n_boot=10,
                                                           checkpoint=tmp_path / "ck"),
                               calibration=FAST,
                               probabilities=plain.probabilities)
    np.testing.assert_allclose(again.table["p_adjacent"], rich.table["p_adjacent"])
    stored = causalcal.discover(root / "data.csv", root / "known.csv",
                                relations=EdgeTypes(features=True),
                                bootstrap=BootstrapSettings(progress=False),
                                calibration=FAST,
                                probabilities=rich.probabilities)
    np.testing.assert_allclose(stored.table["p_adjacent"], rich.table["p_adjacent"])


@pytest.mark.slow
def test_identity_map_writes_the_bootstrap_frequencies_and_says_so(study):
    root = study[0]
    result = causalcal.discover(root / "data.csv", root / "known.csv",
                                bootstrap=BootstrapSettings(n_boot=10, progress=False),
                                calibration=CalibrationSettings(map="identity"))
    boot = [c.replace("p_", "boot_") for c in PROBABILITY_COLUMNS]
    np.testing.assert_array_equal(result.table[list(PROBABILITY_COLUMNS)].to_numpy(),
                                  result.table[boot].to_numpy())
    assert result.report.map.chosen == "identity"
    assert "map written: identity" in result.summary()
    with pytest.raises(ValueError, match="map must be one of"):
        causalcal.discover(root / "data.csv", root / "known.csv",
                           calibration=CalibrationSettings(map="best"))


def test_known_pairs_oriented_to_data_order():
    names = ["A", "B", "C"]
    known = pd.DataFrame({"a": ["B", "A", "C", "B"], "b": ["A", "C", "B", "A"],
                          "relation": ["->", "--", "none", "->"]})
    out = read_known_pairs(known, names)
    assert list(zip(out["i"], out["j"], out["label"])) == [
        (0, 1, EdgeType.BACKWARD), (0, 2, EdgeType.UNDIRECTED), (1, 2, EdgeType.NONE)]


@pytest.mark.slow
@pytest.mark.parametrize(
    "rows, message",
    [
        ([("A", "Q", "->"), ("Z", "B", "--")], "variables not in the data: 'Q', 'Z'"),
        ([("A", "B", "->"), ("B", "A", "->")], r"pair \(A, B\) listed with conflicting"),
        ([("A", "B", "=>")], r"unknown relation at row 1 \('=>'\)"),
        ([("A", "A", "->")], "row 1 pairs 'A' with itself"),
    ],
)
def test_bad_known_pairs(tmp_path, rows, message, causalcal_main):
    data = pd.DataFrame({"A": [0, 1, 0, 1], "B": [1, 1, 0, 0], "C": [0, 0, 1, 1]})
    data.to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame(rows, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                              index=False)
    out = causalcal_main("discover", "data.csv", "--known", "known.csv", "--out", "e.csv",
                         cwd=tmp_path)
    assert out.returncode == 2
    assert re.search(message, out.stderr), out.stderr
    assert not (tmp_path / "e.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "column, max_arity, message",
    [
        (["x", "y", None, "x"] * 5, 20, "column 'C', row 3: missing value"),
        (list(np.linspace(0, 1, 20)), 19,
         "column 'C': 20 distinct values > max_arity=19; looks continuous"),
    ],
)
def test_bad_data(tmp_path, column, max_arity, message, causalcal_main):
    data = pd.DataFrame({"A": ["a", "b"] * 10, "B": ["u", "v", "v", "u"] * 5, "C": column})
    data.to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame([("A", "B", "->")], columns=["a", "b", "relation"]).to_csv(
        tmp_path / "known.csv", index=False)
    out = causalcal_main("discover", "data.csv", "--known", "known.csv", "--out", "e.csv",
                         "--max-arity", max_arity, cwd=tmp_path)
    assert out.returncode == 2
    assert message in out.stderr, out.stderr


@pytest.mark.slow
@pytest.mark.parametrize("rows, counts", [
    ([("A", "B", "->"), ("A", "C", "<-"), ("A", "D", "--"), ("B", "C", "none")],
     "you have 3 arcs and 1 none"),
    ([("A", "B", "none"), ("A", "C", "none"), ("A", "D", "none"), ("B", "C", "none"),
      ("B", "D", "none"), ("C", "D", "none"), ("A", "E", "->")], "you have 1 arcs and 6 none"),
])
def test_too_few_known_arcs_or_none(tmp_path, rows, counts, causalcal_main):
    data = pd.DataFrame({c: np.arange(20) % 2 for c in "ABCDE"})
    data.to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame(rows, columns=["a", "b", "relation"]).to_csv(tmp_path / "known.csv",
                                                              index=False)
    out = causalcal_main("discover", "data.csv", "--known", "known.csv", "--out", "e.csv",
                         cwd=tmp_path)
    assert out.returncode == 2
    assert "at least 5 known arcs (->, <- or --) and 5 known non-adjacent pairs" in out.stderr
    assert counts in out.stderr
