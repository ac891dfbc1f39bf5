"""PAG files with Tetrad's marks and causal-learn's PAGs (causalcal.pag_io), against
causal-learn's own FCI output and its edge strings."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

from causalcal.errors import InputError
from causalcal.pag import PAG
from causalcal.pag_io import from_causallearn_pag, read_pag, to_causallearn_pag, write_pag
from causalcal.simulate import latent_confounders


@pytest.fixture(scope="module")
def causallearn_fci():
    from causallearn.search.ConstraintBased.FCI import fci

    data = latent_confounders(1500, seed=3, n_observed=8, n_edges=9, n_latent=2).data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph, _ = fci(np.asarray(data.codes), "gsq", 0.01, show_progress=False,
                       verbose=False)
    return graph


def test_causallearn_pag_reads_as_its_edge_strings(causallearn_fci):
    pag = from_causallearn_pag(causallearn_fci)
    index = {n: k for k, n in enumerate(pag.names)}
    strings = [str(e).split() for e in causallearn_fci.get_graph_edges()]
    assert len(strings) == pag.n_edges > 0
    assert {e for _, e, _ in strings} - {"o-o", "o->", "-->", "<->"} == set()
    for a, edge, b in strings:
        assert pag.edge(index[a], index[b]) == edge
    back = to_causallearn_pag(pag)
    np.testing.assert_array_equal(back.graph, causallearn_fci.graph)
    assert sorted(str(e) for e in back.get_graph_edges()) == sorted(
        str(e) for e in causallearn_fci.get_graph_edges())


def _example() -> PAG:
    return PAG.from_edges(4, [(0, "o-o", 1), (1, "o->", 2), (3, "<--", 2), (0, "<->", 3)],
                          ["a", "b", "c", "d"])


@pytest.mark.parametrize("suffix", [".txt", ".json"])
def test_files_round_trip(tmp_path, suffix):
    pag = _example()
    write_pag(pag, tmp_path / f"g{suffix}")
    assert read_pag(tmp_path / f"g{suffix}") == pag


def test_tetrad_text_by_hand(tmp_path):
    write_pag(_example(), tmp_path / "g.txt")
    assert (tmp_path / "g.txt").read_text() == (
        "Graph Nodes:\na;b;c;d\n\nGraph Edges:\n1. a o-o b\n2. a <-> d\n3. b o-> c\n"
        "4. c --> d\n")


def test_dot_and_gml_carry_the_marks(tmp_path):
    pag = _example()
    write_pag(pag, tmp_path / "g.dot", {("b", "c"): {"weight": 0.75}})
    text = (tmp_path / "g.dot").read_text()
    assert '"b" -> "c" [dir=both, arrowtail=odot, arrowhead=normal, edge="o->", weight=0.75]' \
        in text
    write_pag(pag, tmp_path / "g.gml")
    g = nx.read_gml(tmp_path / "g.gml")
    assert g.edges["c", "d"]["edge"] == "-->" and g.edges["a", "d"]["edge"] == "<->"


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="unknown PAG file format"):
        write_pag(_example(), tmp_path / "g.csv")
    bad = PAG.from_edges(2, [(0, "o-o", 1)], ["a b", "c"])
    with pytest.raises(InputError, match="cannot hold the name 'a b'"):
        write_pag(bad, tmp_path / "g.txt")
    (tmp_path / "h.txt").write_text("Graph Nodes:\na;b\n\nGraph Edges:\n1. a o-x b\n")
    with pytest.raises(InputError, match="unknown PAG edge"):
        read_pag(tmp_path / "h.txt")
    (tmp_path / "k.txt").write_text("Graph Nodes:\na;b\n\nGraph Edges:\n1. a o-o z\n")
    with pytest.raises(InputError, match="not listed: 'z'"):
        read_pag(tmp_path / "k.txt")
