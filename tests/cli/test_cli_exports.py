"""Issue 28, points 4, 5 and 7, through the command line: the estimated threshold of the
averaged network, the graph exports and figures, output suffixes a command cannot
write."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.graph_io import read_graph


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A 14-variable simulation, 6 bootstrap replicates (probs.npz) and a known.csv of 6
    true adjacencies (as their CPDAG edge type) and 6 non-adjacent pairs."""
    root = tmp_path_factory.mktemp("exports")
    assert main(["simulate", "--nodes", "14", "--edges", "18", "--samples", "500", "--seed",
                 "5", "--out", str(root)]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "6", "--out",
                 str(root / "probs.npz"), "--quiet", "--jobs", "1"]) == 0
    truth = pd.read_csv(root / "truth.csv")
    names = list(pd.read_csv(root / "data.csv", nrows=0).columns)
    adjacent = set(zip(truth.a, truth.b)) | set(zip(truth.b, truth.a))
    i, j = pair_from_index(np.arange(len(names) * (len(names) - 1) // 2), len(names))
    none = [(names[a], names[b], "none") for a, b in zip(i, j)
            if (names[a], names[b]) not in adjacent][:6]
    known = pd.concat([truth.head(6), pd.DataFrame(none, columns=["a", "b", "relation"])])
    known.to_csv(root / "known.csv", index=False)
    return root


def _discover(sim, out, *extra) -> int:
    return main(["discover", str(sim / "data.csv"), "--known", str(sim / "known.csv"),
                 "--probabilities", str(sim / "probs.npz"), "--out", str(out), "--quiet",
                 *map(str, extra)])


# ------------------------------------------------------------------------- point 4
def test_graph_threshold_estimated(sim, tmp_path, capsys):
    """bnlearn's estimated threshold (Scutari & Nagarajan 2013) from the command line."""
    probs = EdgeProbabilities.load(sim / "probs.npz")
    assert main(["bootstrap", str(sim / "data.csv"), "--n-boot", "6", "--out",
                 str(tmp_path / "p.npz"), "--quiet", "--graph", str(tmp_path / "net.json"),
                 "--graph-threshold", "estimated"]) == 0
    t = probs.estimated_threshold()
    assert f"> {t:.3g} (estimated)" in capsys.readouterr().out
    net = read_graph(tmp_path / "net.json")
    assert net == probs.averaged_network("estimated")
    strength = 1 - probs.probs[:, 0]
    assert net.n_edges == int(((strength > t) | (strength == 1)).sum())
    assert _discover(sim, tmp_path / "e.csv", "--graph", tmp_path / "d.json",
                     "--graph-threshold", "estimated") == 0
    assert "(estimated)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["bootstrap", str(sim / "data.csv"), "--out", str(tmp_path / "q.npz"),
              "--graph-threshold", "estimate"])
    assert stop.value.code == 2 and "estimated" in capsys.readouterr().err


# ------------------------------------------------------------------------- point 5
def _known_edges(sim) -> set:
    known = pd.read_csv(sim / "known.csv")
    return {frozenset(p) for p in zip(known.a, known.b, strict=True)} - {
        frozenset(p) for p in zip(known.a[known.relation == "none"],
                                  known.b[known.relation == "none"], strict=True)}


def test_exports_mark_known_edges_and_count_undirected_ones_once(sim, tmp_path, capsys):
    for suffix in (".gml", ".graphml", ".dot", ".json"):
        net = tmp_path / f"net{suffix}"
        assert _discover(sim, tmp_path / f"e{suffix}.csv", "--graph", net) == 0
        report = capsys.readouterr().out.splitlines()[-1]
        graph = read_graph(net)
        assert f"{graph.n_directed} directed, {graph.n_undirected} undirected" in report
        if suffix in (".gml", ".graphml"):
            nxg = nx.read_gml(net) if suffix == ".gml" else nx.read_graphml(net)
            assert nxg.number_of_edges() == graph.n_edges  # one edge per undirected edge
            marked = {frozenset((a, b)) for a, b, k in nxg.edges(data="known") if k == 1}
            assert marked == _known_edges(sim)
    dot = (tmp_path / "net.dot").read_text()
    assert dot.count("known=1") == len(_known_edges(sim)) and "color=" in dot
    doc = json.loads((tmp_path / "net.json").read_text())
    assert {frozenset((a, b)) for a, b, d in doc["edge_data"] if d["known"] == 1} == (
        _known_edges(sim))


def test_exports_say_how_many_edges_are_known_and_how_many_discovered(sim, tmp_path, capsys):
    # issue 48 friction 1: a network of the user's own relations only must say so
    from causalcal.cli._real_data_options import network_note

    net = tmp_path / "net.json"
    assert _discover(sim, tmp_path / "e.csv", "--graph", net, "--graph-threshold", "0.9") == 0
    report = capsys.readouterr().out.splitlines()[-1]
    known, edges = len(_known_edges(sim)), read_graph(net).n_edges
    assert f"{known} of them your known relations, {edges - known} discovered" in report
    only_known = {("a", "b"): {"known": 1.0}, ("b", "c"): {"known": 1.0}}
    assert network_note(only_known, [("a", "b"), ("b", "c")], ">= 0.5") == (
        "; 2 of them your known relations, 0 discovered — warning: no discovered pair has "
        "P(adjacent) >= 0.5; every edge drawn is one you gave (--graph-known omit leaves "
        "them out)")
    assert _discover(sim, tmp_path / "e2.csv", "--graph", net, "--graph-known", "omit") == 0
    report = capsys.readouterr().out.splitlines()[-1]
    graph = read_graph(net)
    assert "known relations" not in report and not {
        frozenset((graph.names[a], graph.names[b])) for a, b in
        [*graph.directed_edges(), *graph.undirected_edges()]} & _known_edges(sim)


def test_dot_written_by_networkx_and_pydot_reads(tmp_path):
    g = nx.DiGraph()
    g.add_edge("popul", "income", weight=0.5)
    g.add_edge("age", "popul")
    g.add_edge("income", "age x", dir="none")
    nx.nx_pydot.write_dot(g, tmp_path / "nx.dot")
    back = read_graph(tmp_path / "nx.dot")
    assert sorted(back.names) == ["age", "age x", "income", "popul"]
    assert back.n_directed == 2 and back.n_undirected == 1


def test_help_says_graphviz_must_be_installed(capsys):
    with pytest.raises(SystemExit):
        main(["discover", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "if Graphviz is installed: dot -Tpdf" in text and "NET.graphml" in text


def test_discover_figures(sim, tmp_path):
    """The reliability figure has no empty panels (one: P(no edge) is the only exact
    label of known pairs); the network draws known edges in their own colour."""
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    assert _discover(sim, tmp_path / "e.csv", "--plot", tmp_path / "figs") == 0
    height, width = imread(tmp_path / "figs" / "reliability.png").shape[:2]
    assert width < height  # one panel (four used to be 14 inches wide, three empty)
    assert imread(tmp_path / "figs" / "network.png").shape[0] > 300


# ------------------------------------------------------------------------- point 7
@pytest.mark.parametrize("command", ["discover", "evaluate-json", "evaluate-plot"])
def test_an_output_suffix_the_command_cannot_write_is_refused(sim, tmp_path, capsys, command):
    if command == "discover":
        code, wrong = _discover(sim, tmp_path / "x.png"), tmp_path / "x.png"
    else:
        option, wrong = (("--json", tmp_path / "m.png") if command == "evaluate-json"
                         else ("--plot", tmp_path / "r.csv"))
        code = main(["evaluate", str(sim / "probs.npz"), "--truth", str(sim / "truth.csv"),
                     option, str(wrong)])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write '{wrong.suffix}' files" in err and str(wrong) in err
    assert not wrong.exists()
