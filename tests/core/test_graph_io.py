"""Graphs out and in (issue 17 item 3): causal-learn, pgmpy, GML, DOT, JSON."""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag
from causalcal.graph_io import (
    from_causallearn,
    from_networkx,
    read_graph,
    to_causallearn,
    to_pgmpy,
    write_graph,
)

NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=8)


@st.composite
def graphs(draw, max_nodes=7):
    """The CPDAG of a random DAG, or a random mixed graph, over random distinct names."""
    v = draw(st.integers(1, max_nodes))
    names = draw(st.lists(NAME, min_size=v, max_size=v, unique=True))
    order = draw(st.permutations(range(v)))
    pairs = [(order[a], order[b]) for a in range(v) for b in range(a + 1, v)]
    kinds = draw(st.lists(st.integers(0, 2), min_size=len(pairs), max_size=len(pairs)))
    directed = [p for p, k in zip(pairs, kinds) if k == 1]
    undirected = [p for p, k in zip(pairs, kinds) if k == 2]
    g = PDAG.from_edges(v, directed, undirected, names)
    if draw(st.booleans()):
        g = dag_to_cpdag(PDAG.from_edges(v, directed + undirected, names=names))
    return g


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_causallearn_round_trip_and_endpoints(g):
    cl = to_causallearn(g)
    assert [n.get_name() for n in cl.get_nodes()] == g.names
    assert from_causallearn(cl) == g
    assert from_causallearn(cl).names == g.names
    m, mine = cl.graph, g.to_matrix()
    for i in range(g.n_vars):  # causal-learn: graph[j, i] = 1, graph[i, j] = -1 is i -> j
        for j in range(g.n_vars):
            if mine[i, j] and not mine[j, i]:
                assert (m[j, i], m[i, j]) == (1, -1)
            elif mine[i, j]:
                assert m[i, j] == m[j, i] == -1
            elif not mine[j, i]:
                assert m[i, j] == 0


def test_from_causallearn_search_result():
    """A graph causal-learn's own PC returns converts with its node names."""
    from causallearn.search.ConstraintBased.PC import pc

    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 2000)
    b = rng.integers(0, 2, 2000)
    c = (a | b) ^ (rng.random(2000) < 0.05)
    cg = pc(np.column_stack([a, b, c]).astype(float), 0.01, "chisq", show_progress=False,
            node_names=["A", "B", "C"])
    g = from_causallearn(cg.G)
    assert g.names == ["A", "B", "C"]
    assert g == PDAG.from_edges(3, [(0, 2), (1, 2)])


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_pgmpy(g):
    p = to_pgmpy(g)
    names = g.names
    assert set(p.nodes) == set(names)
    assert set(p.directed_edges) == {(names[i], names[j]) for i, j in g.directed_edges()}
    assert {frozenset(e) for e in p.undirected_edges} == {
        frozenset((names[i], names[j])) for i, j in g.undirected_edges()}


def test_pgmpy_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pgmpy.base", None)
    with pytest.raises(ImportError, match=r"causalcal\[bif\]"):
        to_pgmpy(PDAG.from_edges(2, [(0, 1)]))


@settings(max_examples=60, deadline=None)
@given(graphs(), st.sampled_from([".gml", ".graphml", ".dot", ".json"]))
def test_files_round_trip(tmp_path_factory, g, suffix):
    path = tmp_path_factory.mktemp("g") / f"net{suffix}"
    write_graph(g, path)
    back = read_graph(path)
    assert back == g and back.names == g.names


def test_gml_loads_with_networkx(tmp_path):
    g = PDAG.from_edges(3, [(0, 1)], [(1, 2)], ["a", "b", "c d"])
    write_graph(g, tmp_path / "n.gml", edge_data={("a", "b"): {"weight": 0.9}})
    nxg = nx.read_gml(tmp_path / "n.gml")
    assert isinstance(nxg, nx.DiGraph)
    assert set(nxg.edges) == {("a", "b"), ("b", "c d")}  # an undirected edge is one edge
    assert nxg.edges["a", "b"]["weight"] == 0.9 and nxg.edges["b", "c d"]["undirected"] == 1
    assert from_networkx(nxg) == g


def test_dot_draws_undirected_edges_without_arrows(tmp_path):
    g = PDAG.from_edges(3, [(0, 1)], [(1, 2)], ["a", 'say "hi"', "c"])
    write_graph(g, tmp_path / "n.dot", edge_data={("c", 'say "hi"'): {"weight": 0.5}})
    lines = (tmp_path / "n.dot").read_text().splitlines()
    assert lines[0].startswith("// written by causalcal")  # its mark (causalcal._own)
    assert lines[1] == "digraph causalcal {" and lines[-1] == "}"
    assert '  "a" -> "say \\"hi\\"";' in lines
    undirected = [ln for ln in lines if '-> "c"' in ln]
    assert len(undirected) == 1 and "dir=none" in undirected[0] and "weight=0.5" in undirected[0]


def test_json_is_exact_with_isolated_nodes(tmp_path):
    g = PDAG.from_edges(4, [(3, 0)], [], ["z", "y", "x", "w"])
    write_graph(g, tmp_path / "n.json")
    back = read_graph(tmp_path / "n.json")
    assert back == g and back.names == ["z", "y", "x", "w"]


def test_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match=r"n\.txt.*\.gml, \.graphml, \.dot, \.json"):
        write_graph(PDAG(2), tmp_path / "n.txt")
    (tmp_path / "bad.dot").write_text("digraph x {\n  a -> ;\n}\n")
    with pytest.raises(InputError, match=r"bad\.dot.*line 2"):
        read_graph(tmp_path / "bad.dot")
    (tmp_path / "bad.json").write_text('{"nodes": []}')
    with pytest.raises(InputError, match=r"bad\.json"):
        read_graph(tmp_path / "bad.json")
    with pytest.raises(FileNotFoundError):
        read_graph(tmp_path / "none.gml")
