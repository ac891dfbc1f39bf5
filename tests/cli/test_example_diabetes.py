"""The real-data example (issue 17 item 9) runs and obeys its background knowledge."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import networkx as nx
import pytest

from causalcal.graph_io import read_graph

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "diabetes_discovery.py"


@pytest.mark.slow
def test_diabetes_example(tmp_path):
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("diabetes_discovery", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(tmp_path, n_boot=8)
    for name in ("edges.csv", "network.gml", "network.dot", "network.json", "network.png",
                 "reliability.png"):
        assert (tmp_path / name).stat().st_size > 0
    graph = read_graph(tmp_path / "network.json")
    assert graph == result.averaged_network(0.5)
    assert graph == read_graph(tmp_path / "network.dot")
    assert set(nx.read_gml(tmp_path / "network.gml").nodes) == set(graph.names)
    tier = module.TIERS
    names = graph.names
    for i, j in graph.directed_edges().tolist():  # no arc into an earlier tier
        assert tier[names[i]] <= tier[names[j]], (names[i], names[j])
    for i, j in graph.undirected_edges().tolist():  # an edge across tiers is oriented
        assert tier[names[i]] == tier[names[j]]
    # the bootstrap itself never had an arc against the tiers, in any replicate
    index = {n: k for k, n in enumerate(names)}
    probs = result.probabilities
    for (a, b), row in zip(probs.pairs.tolist(), probs.probs.tolist()):
        ta, tb = tier[names[a]], tier[names[b]]
        if ta > tb:
            assert row[1] == 0 and row[3] == 0
        if tb > ta:
            assert row[2] == 0 and row[3] == 0
    assert not probs.lookup([index["age"]], [index["sex"]])[0, 1:].any()
