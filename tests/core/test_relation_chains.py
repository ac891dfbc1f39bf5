"""Known relations that contradict each other through a chain (issue 41 item 3): refused
exactly when no DAG satisfies them, checked by brute force over every DAG on 4 variables."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal.errors import InputError
from causalcal.relations_io import read_known_causal_pairs, read_known_pairs

NAMES = ["A", "B", "C", "D"]


def _frame(*rows):
    return pd.DataFrame(list(rows), columns=["a", "b", "relation"])


def _ancestries() -> list[np.ndarray]:
    """The ancestor matrix of every DAG on the four variables."""
    pairs = list(itertools.combinations(range(4), 2))
    out = []
    for choice in itertools.product(range(3), repeat=len(pairs)):
        g = nx.DiGraph()
        g.add_nodes_from(range(4))
        g.add_edges_from((i, j) if c == 1 else (j, i)
                         for (i, j), c in zip(pairs, choice) if c)
        if nx.is_directed_acyclic_graph(g):
            anc = np.zeros((4, 4), dtype=bool)
            for u in range(4):
                anc[u, list(nx.descendants(g, u))] = True
            out.append(anc)
    return out


ANCESTRIES = _ancestries()


def test_causal_chain_refused_naming_it():
    rows = _frame(("A", "B", "causes"), ("B", "C", "causes"), ("A", "C", "not-causes"))
    with pytest.raises(InputError, match=r"A causes B, B causes C \(so A causes C\), but "
                                         r"A not-causes C"):
        read_known_causal_pairs(rows, NAMES)
    # without the denial, or with it the other way round, the chain is fine
    read_known_causal_pairs(rows.iloc[:2], NAMES)
    read_known_causal_pairs(_frame(("A", "B", "causes"), ("B", "C", "causes"),
                                   ("C", "A", "not-causes")), NAMES)


def test_cycle_of_arcs_refused_as_causal_relations_only():
    rows = _frame(("A", "B", "->"), ("B", "C", "->"), ("A", "C", "<-"), ("A", "D", "none"))
    with pytest.raises(InputError, match="A -> B, B -> C, A <- C form a cycle"):
        read_known_causal_pairs(rows, NAMES)
    read_known_pairs(rows, NAMES)  # feedback contradicts no pair's edge type


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(4)), st.sampled_from(range(4)),
                          st.booleans()), min_size=1, max_size=7))
def test_refused_exactly_when_no_dag_satisfies_the_statements(statements):
    statements = [(a, b, holds) for a, b, holds in statements if a != b]
    if not statements:
        return
    rows = _frame(*((NAMES[a], NAMES[b], "causes" if holds else "not-causes")
                    for a, b, holds in statements))
    satisfiable = any(all(anc[a, b] == holds for a, b, holds in statements)
                      for anc in ANCESTRIES)
    if satisfiable:
        read_known_causal_pairs(rows, NAMES)
    else:
        with pytest.raises(InputError, match="contradict"):
            read_known_causal_pairs(rows, NAMES)
