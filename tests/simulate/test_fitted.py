"""The network fitted to a data set and its bootstrap (docs/design.md §9.7)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from causalcal import Knowledge
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.simulate import dirichlet_cpts, fitted_network, network_parents


def _probabilities(v: int, rows: dict) -> EdgeProbabilities:
    """Probabilities of the pairs ``{(i, j): (none, forward, backward, undirected)}``."""
    pairs = np.array(sorted(rows), dtype=np.int64).reshape(-1, 2)
    probs = np.array([rows[tuple(p)] for p in pairs], dtype=np.float64).reshape(-1, 4)
    return EdgeProbabilities([f"X{k}" for k in range(v)], pairs, probs, n_boot=10)


def test_dirichlet_cpts_by_hand():
    # X0 -> X1, both binary; counts of (x0, x1): (0,0) 3, (0,1) 1, (1,0) 0, (1,1) 2
    codes = np.array([[0, 0]] * 3 + [[0, 1]] + [[1, 1]] * 2)
    data = DiscreteData(codes, ["X0", "X1"])
    root, child = dirichlet_cpts(data, [[], [0]], prior=2.0)
    a = 2.0 / 2  # root: q = 1, r = 2
    np.testing.assert_allclose(root, [[(4 + a) / (6 + 2 * a), (2 + a) / (6 + 2 * a)]])
    a = 2.0 / 4  # child: q = 2, r = 2
    np.testing.assert_allclose(child, [[(3 + a) / (4 + 2 * a), (1 + a) / (4 + 2 * a)],
                                       [(0 + a) / (2 + 2 * a), (2 + a) / (2 + 2 * a)]])
    with pytest.raises(InputError, match="prior"):
        dirichlet_cpts(data, [[], [0]], prior=0.0)


def test_parents_take_the_most_frequent_pairs_oriented_by_majority_without_cycles():
    probs = _probabilities(3, {
        (0, 1): (0.0, 0.7, 0.2, 0.1),   # 0 -> 1, strongest
        (1, 2): (0.1, 0.6, 0.3, 0.0),   # 1 -> 2
        (0, 2): (0.2, 0.1, 0.6, 0.1),   # 2 -> 0 would close 0 -> 1 -> 2 -> 0: reversed
    })
    assert network_parents(probs, n_edges=3) == [[], [0], [0, 1]]
    assert network_parents(probs, n_edges=1) == [[], [0], []]
    # default: round(sum of P(adjacent)) = round(1 + 0.9 + 0.8) = 3 edges
    assert network_parents(probs) == [[], [0], [0, 1]]
    with pytest.raises(InputError, match="n_edges"):
        network_parents(probs, n_edges=4)


def test_parents_respect_background_knowledge():
    probs = _probabilities(3, {(0, 1): (0.0, 1.0, 0.0, 0.0), (1, 2): (0.5, 0.5, 0.0, 0.0)})
    forbid = Knowledge(forbidden=[("X0", "X1")], required=[("X2", "X0")])
    # the required X2 -> X0 first; X0 -> X1 is forbidden, so reversed; then X1 -> X2
    parents = network_parents(probs, n_edges=2, knowledge=forbid)
    assert parents == [[1, 2], [], [1]]
    dag = nx.DiGraph((p, c) for c, ps in enumerate(parents) for p in ps)
    assert nx.is_directed_acyclic_graph(dag)


def test_fitted_network_on_data_has_its_shape_and_is_a_dag():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(200, 4))
    data = DiscreteData(codes, [f"X{k}" for k in range(4)], arities=[3, 3, 3, 4])
    v = 4
    rows = {(0, 1): (0.1, 0.8, 0.1, 0.0), (1, 2): (0.5, 0.0, 0.5, 0.0),
            (0, 3): (0.6, 0.2, 0.2, 0.0)}
    net = fitted_network(data, _probabilities(v, rows))
    assert net.names == data.names and list(net.arities) == [3, 3, 3, 4]
    assert net.n_edges == 2  # round(0.9 + 0.5 + 0.4) = 2
    assert all(np.allclose(t.sum(axis=1), 1) for t in net.cpts)
    other = _probabilities(v, rows)
    other.names = ["a", "b", "c", "d"]
    with pytest.raises(InputError, match="other variables"):
        fitted_network(data, other)
