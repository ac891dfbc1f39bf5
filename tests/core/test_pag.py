"""The PAG type (causalcal/pag.py): Tetrad's edge notation, marks, changes."""

from __future__ import annotations

import pytest

from causalcal.errors import InputError
from causalcal.pag import PAG, Mark


def test_edges_in_tetrads_notation_round_trip():
    edges = [(0, "o-o", 1), (1, "o->", 2), (2, "<->", 3), (3, "-->", 4), (0, "<--", 4),
             (1, "<-o", 3)]
    g = PAG.from_edges(5, edges, names=list("ABCDE"))
    for i, text, j in edges:
        assert g.edge(i, j) == text
        assert g.edge(j, i) == text[::-1].replace("<", "#").replace(">", "<").replace("#", ">")
    assert g.mark(1, 2) == Mark.ARROW and g.mark(2, 1) == Mark.CIRCLE
    assert g.is_parent(3, 4) and not g.is_parent(4, 3)
    assert g.n_edges == 6 and g.adjacencies(1) == [0, 2, 3]
    # the same edges read from their other end give the same PAG
    assert PAG.from_edges(5, [(j, g.edge(j, i), i) for i, _, j in edges], list("ABCDE")) == g
    assert g.edges()[0] == ("A", "o-o", "B")


@pytest.mark.parametrize("text", ["o-x", "->", "<>-", "---x"])
def test_bad_edge_text(text):
    with pytest.raises(InputError, match="unknown PAG edge"):
        PAG.from_edges(2, [(0, text, 1)])


def test_complete_and_removal():
    g = PAG.complete(3)
    assert g.n_edges == 3 and g.edge(0, 2) == "o-o"
    g.remove_edge(0, 2)
    assert not g.adjacent(2, 0) and g.edge(0, 2) == ""
    with pytest.raises(InputError, match="not adjacent"):
        g.set_mark(0, 2, Mark.ARROW)
    with pytest.raises(InputError, match="self-loop"):
        g.add_edge(1, 1)
