"""Tests for ``causalcal simulate`` (writes network.json, data.csv, truth.csv)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.data import DiscreteData
from causalcal.edges import EdgeType
from causalcal.simulate import BayesianNetwork, load_network


def read_truth(path) -> dict[tuple[str, str], str]:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(frame.columns) == ["a", "b", "relation"]
    return dict(zip(zip(frame["a"], frame["b"]), frame["relation"]))


def expected_truth(net: BayesianNetwork) -> dict[tuple[str, str], str]:
    pairs, labels = net.edge_labels()
    return {(net.names[i], net.names[j]): EdgeType(t).symbol for (i, j), t in zip(pairs, labels)}


def test_random_network_files(tmp_path, capsys):
    out = tmp_path / "sim"
    args = ["simulate", "--nodes", "60", "--edges", "90", "--samples", "200", "--seed", "3",
            "--out", str(out)]
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == ["data.csv", "network.json", "truth.csv"]
    net = BayesianNetwork.load(out / "network.json")
    assert (net.n_vars, net.n_edges) == (60, 90)
    data = DiscreteData.from_csv(out / "data.csv")
    assert data.names == net.names and data.n_samples == 200
    assert np.all(data.codes.max(axis=0) < net.arities)
    truth = read_truth(out / "truth.csv")
    adjacent = {pair: r for pair, r in truth.items() if r != "none"}
    assert adjacent == expected_truth(net)
    assert len(adjacent) == 90 and set(adjacent.values()) <= {"->", "<-", "--"}
    # every variable appears: one 'none' row per variable without any edge
    isolated = set(net.names) - {x for pair in adjacent for x in pair}
    nones = [pair for pair, r in truth.items() if r == "none"]
    assert isolated and len(nones) == len(isolated)
    assert all(len(isolated & set(pair)) >= 1 for pair in nones)
    assert {x for pair in nones for x in pair} >= isolated
    assert "60 variables, 90 edges" in capsys.readouterr().out
    # same seed → identical files
    out2 = tmp_path / "sim2"
    assert main(args[:-1] + [str(out2)]) == 0
    for name in ("network.json", "data.csv", "truth.csv"):
        assert (out / name).read_bytes() == (out2 / name).read_bytes()


def test_benchmark_network_files(tmp_path):
    out = tmp_path / "alarm"
    assert main(["simulate", "--network", "alarm", "--samples", "50", "--out", str(out)]) == 0
    alarm = load_network("alarm")
    assert BayesianNetwork.load(out / "network.json") == alarm
    truth = read_truth(out / "truth.csv")
    assert truth == expected_truth(alarm)
    assert sum(r == "--" for r in truth.values()) == 4
    frame = pd.read_csv(out / "data.csv", dtype=str)
    assert set(frame["HISTORY"]) <= {"TRUE", "FALSE"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--nodes", "10", "--edges", "50"], "more than a DAG on 10 nodes"),
        (["--nodes", "10"], "needs both --nodes and --edges"),
        (["--network", "alarm", "--nodes", "5", "--edges", "2"], "exactly one network"),
        (["--nodes", "5", "--edges", "2", "--samples", "0"], "--samples must be >= 1"),
        (["--nodes", "5", "--edges", "2", "--arities", "1"], "arity must be >= 2"),
        (["--network", "no_such_net_xyz"], "no_such_net_xyz"),
        (["--load", "missing.json"], "missing.json"),
    ],
)
def test_errors_exit_2(tmp_path, capsys, args, message):
    assert main(["simulate", *args, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_list_networks(capsys):
    assert main(["simulate", "--list-networks"]) == 0
    assert "alarm" in capsys.readouterr().out.split()


def test_network_is_a_shipped_name_or_an_explicit_file(tmp_path, capsys, monkeypatch):
    """Issue 42 item 5: ``--network`` reads a shipped network by name or a file given as
    a path, and says which; a name is never a path relative to the shipped folder."""
    import os

    from causalcal.errors import InputError
    from causalcal.simulate.bif import _network_dir

    asia = load_network("asia")
    asia.save(tmp_path / "mine.json")
    relative = os.path.relpath(tmp_path / "mine", _network_dir())  # ../../…/mine
    with pytest.raises(InputError, match="unknown network"):
        load_network(relative)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["simulate", "--network", "./mine.json", "--samples", "20", "--out", "a"]) == 0
    assert capsys.readouterr().out.startswith("network file ./mine.json: 8 variables")
    assert main(["simulate", "--network", "Asia", "--samples", "20", "--out", "b"]) == 0
    assert capsys.readouterr().out.startswith("shipped network asia: 8 variables")
    assert (tmp_path / "a" / "data.csv").read_bytes() == (tmp_path / "b" / "data.csv").read_bytes()
    assert main(["simulate", "--network", "./missing.json", "--samples", "20", "--out", "c"]) == 2
    assert "missing.json: no such file" in capsys.readouterr().err
