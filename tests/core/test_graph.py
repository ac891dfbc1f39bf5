"""Tests of causalcal.graph: PDAG, Meek's rules, DAG → CPDAG (vs causal-learn), DAG extension."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from causallearn.graph.Dag import Dag
from causallearn.graph.GraphNode import GraphNode
from causallearn.utils.DAG2CPDAG import dag2cpdag

from causalcal.edges import EdgeType, dense_labels, pair_index
from causalcal.graph import (
    PDAG,
    apply_meek_rules,
    dag_to_cpdag,
    pdag_to_dag,
    structural_hamming_distance,
)
from causalcal.graph_io import from_networkx, to_networkx

# -------------------------------------------------------------------- helpers


def random_dag_matrix(rng, n, p):
    """A random DAG as a 0/1 matrix: edges along a random order, each with probability p."""
    order = rng.permutation(n)
    upper = np.triu(rng.random((n, n)) < p, 1)
    m = np.zeros((n, n), dtype=np.int8)
    m[np.ix_(order, order)] = upper
    return m


def random_cases(seed, count, sizes=(5, 41)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(*sizes))
        avg_degree = float(rng.choice([0.5, 1, 2, 3, 4, 6]))
        p = min(0.9, avg_degree / (n - 1))
        yield random_dag_matrix(rng, n, p)


def causallearn_cpdag(m):
    """causal-learn's DAG → CPDAG (Chickering 1995), back in our matrix form."""
    n = m.shape[0]
    nodes = [GraphNode(f"X{i}") for i in range(n)]
    dag = Dag(nodes)
    for i, j in np.argwhere(m):
        dag.add_directed_edge(nodes[i], nodes[j])
    g = dag2cpdag(dag).graph  # i → j: g[j, i] = 1, g[i, j] = -1; i — j: both -1
    out = np.zeros((n, n), dtype=np.int8)
    out[(g.T == 1) & (g == -1)] = 1
    out[(g == -1) & (g.T == -1)] = 1
    return out


def brute_meek(m):
    """Fixed point of Meek's R1–R4 by exhaustive search over node tuples (matrix form)."""
    m = m.copy()
    n = m.shape[0]

    def directed(x, y):
        return m[x, y] == 1 and m[y, x] == 0

    def undirected(x, y):
        return m[x, y] == 1 and m[y, x] == 1

    def adjacent(x, y):
        return m[x, y] == 1 or m[y, x] == 1

    changed = True
    while changed:
        changed = False
        for a, b in itertools.permutations(range(n), 2):
            if not undirected(a, b):
                continue
            others = [c for c in range(n) if c not in (a, b)]
            r1 = any(directed(c, a) and not adjacent(c, b) for c in others)
            r2 = any(directed(a, c) and directed(c, b) for c in others)
            r3 = any(
                undirected(a, c) and undirected(a, d) and directed(c, b) and directed(d, b)
                and not adjacent(c, d)
                for c, d in itertools.combinations(others, 2)
            )
            r4 = any(
                undirected(a, d) and directed(d, c) and directed(c, b) and adjacent(a, c)
                and not adjacent(d, b)
                for c, d in itertools.permutations(others, 2)
            )
            if r1 or r2 or r3 or r4:
                m[b, a] = 0
                changed = True
    return m


def brute_pair_labels(m):
    n = m.shape[0]
    out = {}
    for i, j in itertools.combinations(range(n), 2):
        if m[i, j] and m[j, i]:
            out[(i, j)] = EdgeType.UNDIRECTED
        elif m[i, j]:
            out[(i, j)] = EdgeType.FORWARD
        elif m[j, i]:
            out[(i, j)] = EdgeType.BACKWARD
    return out


# --------------------------------------------------------- DAG → CPDAG reference


def test_dag_to_cpdag_agrees_with_causallearn_on_random_dags():
    checked = 0
    undirected_seen = directed_seen = 0
    for m in random_cases(seed=2024, count=220):
        expected = causallearn_cpdag(m)
        got = dag_to_cpdag(PDAG.from_matrix(m))
        np.testing.assert_array_equal(got.to_matrix(), expected)
        undirected_seen += got.n_undirected
        directed_seen += got.n_directed
        checked += 1
    assert checked >= 200
    assert undirected_seen > 100 and directed_seen > 100  # both kinds of edge were exercised


def test_dag_to_cpdag_known_graphs():
    # chain 0 → 1 → 2: all reversible
    cp = dag_to_cpdag(PDAG.from_edges(3, [(0, 1), (1, 2)]))
    assert cp.n_directed == 0 and cp.n_undirected == 2
    # collider 0 → 2 ← 1 plus 2 → 3: v-structure kept, 2 → 3 compelled by R1
    cp = dag_to_cpdag(PDAG.from_edges(4, [(0, 2), (1, 2), (2, 3)]))
    assert {tuple(e) for e in cp.directed_edges().tolist()} == {(0, 2), (1, 2), (2, 3)}
    # shielded collider (triangle) is not a v-structure
    cp = dag_to_cpdag(PDAG.from_edges(3, [(0, 2), (1, 2), (0, 1)]))
    assert cp.n_undirected == 3
    # empty graph and names kept
    cp = dag_to_cpdag(PDAG(4, names="abcd"))
    assert cp.n_edges == 0 and cp.names == ["a", "b", "c", "d"]


def test_dag_to_cpdag_rejects_non_dags():
    with pytest.raises(ValueError, match="needs a DAG"):
        dag_to_cpdag(PDAG.from_edges(3, [(0, 1), (1, 2), (2, 0)]))
    with pytest.raises(ValueError, match="needs a DAG"):
        dag_to_cpdag(PDAG.from_edges(3, [(0, 1)], [(1, 2)]))


def test_large_dag_to_cpdag_round_trip():
    """V = 5000, E = 15000: CPDAG → consistent extension → the same CPDAG."""
    rng = np.random.default_rng(9)
    v, e = 5000, 15000
    keys = rng.choice(v * (v - 1) // 2, size=e, replace=False)
    order = rng.permutation(v)
    from causalcal.edges import pair_from_index

    i, j = pair_from_index(keys, v)
    dag = PDAG.from_edges(v, np.column_stack([order[i], order[j]]))
    assert dag.is_dag() and dag.n_directed == e
    cp = dag_to_cpdag(dag)
    assert cp.n_edges == e
    ext = pdag_to_dag(cp)
    assert ext.is_dag()
    assert dag_to_cpdag(ext) == cp
    assert structural_hamming_distance(cp, dag) == cp.n_undirected


# -------------------------------------------------------------------- Meek rules


def test_meek_r1():
    g = PDAG.from_edges(3, [(0, 1)], [(1, 2)])
    apply_meek_rules(g)
    assert g.has_directed(1, 2)
    # no orientation when 0 and 2 are adjacent
    g = PDAG.from_edges(3, [(0, 1), (0, 2)], [(1, 2)])
    apply_meek_rules(g)
    assert g.has_undirected(1, 2)


def test_meek_r2():
    g = PDAG.from_edges(3, [(0, 1), (1, 2)], [(0, 2)])
    apply_meek_rules(g)
    assert g.has_directed(0, 2)
    g = PDAG.from_edges(3, [(1, 2), (1, 0)], [(0, 2)])  # no directed path 0 → · → 2
    apply_meek_rules(g)
    assert g.has_undirected(0, 2)


def test_meek_r3():
    # a=0, b=1, c=2, d=3: a — c → b, a — d → b, c and d non-adjacent, a — b
    g = PDAG.from_edges(4, [(2, 1), (3, 1)], [(0, 2), (0, 3), (0, 1)])
    apply_meek_rules(g)
    assert g.has_directed(0, 1)
    assert g.has_undirected(0, 2) and g.has_undirected(0, 3)
    # c and d adjacent: R3 does not apply
    g = PDAG.from_edges(4, [(2, 1), (3, 1)], [(0, 2), (0, 3), (0, 1), (2, 3)])
    apply_meek_rules(g)
    assert g.has_undirected(0, 1)


def test_meek_r4():
    # a=0, b=1, c=2, d=3: a — d → c → b, a — c, d and b non-adjacent, a — b
    g = PDAG.from_edges(4, [(3, 2), (2, 1)], [(0, 3), (0, 2), (0, 1)])
    apply_meek_rules(g)
    assert g.has_directed(0, 1)
    assert g.has_undirected(0, 2) and g.has_undirected(0, 3)
    # d adjacent to b: R4 does not apply
    g = PDAG.from_edges(4, [(3, 2), (2, 1), (3, 1)], [(0, 3), (0, 2), (0, 1)])
    assert brute_meek(g.to_matrix())[1, 0] == 1  # the reference agrees: stays undirected
    apply_meek_rules(g)
    assert g.has_undirected(0, 1)


def test_meek_chain_propagates_and_start_limits_first_sweep():
    # 0 → 1 — 2 — 3 — 4: R1 orients the whole chain
    g = PDAG.from_edges(5, [(0, 1)], [(1, 2), (2, 3), (3, 4)])
    assert apply_meek_rules(g) is g
    assert [tuple(e) for e in g.directed_edges().tolist()] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    # start=[1] checks the edges at node 1 first and the orientation propagates
    g = PDAG.from_edges(5, [(0, 1)], [(1, 2), (2, 3), (3, 4)])
    apply_meek_rules(g, start=[1])
    assert g.n_undirected == 0
    # start=[4]: the edge 3 — 4 has no reason to orient, and nothing is propagated
    g = PDAG.from_edges(5, [(0, 1)], [(1, 2), (2, 3), (3, 4)])
    apply_meek_rules(g, start=[4])
    assert g.n_undirected == 3


def test_meek_matches_brute_force_on_partially_oriented_cpdags():
    rng = np.random.default_rng(17)
    for m in random_cases(seed=5, count=200, sizes=(4, 13)):
        dag = PDAG.from_matrix(m)
        cp = dag_to_cpdag(dag)
        und = cp.undirected_edges()
        if len(und) == 0:
            continue
        # orient a random subset of the reversible edges the way the DAG has them
        pick = und[rng.random(len(und)) < 0.4]
        for a, b in pick:
            a, b = (a, b) if dag.has_directed(a, b) else (b, a)
            cp.orient(int(a), int(b))
        expected = brute_meek(cp.to_matrix())
        np.testing.assert_array_equal(apply_meek_rules(cp.copy()).to_matrix(), expected)


# ------------------------------------------------------------------ DAG extension


def test_pdag_to_dag_gives_a_member_of_the_class():
    for m in random_cases(seed=11, count=120, sizes=(3, 30)):
        cp = dag_to_cpdag(PDAG.from_matrix(m))
        dag = pdag_to_dag(cp)
        assert dag.is_dag()
        assert dag.n_directed == cp.n_edges
        for i, j in cp.directed_edges():
            assert dag.has_directed(i, j)
        for i, j in cp.undirected_edges():
            assert dag.has_directed(i, j) or dag.has_directed(j, i)
        assert dag_to_cpdag(dag) == cp


def test_pdag_to_dag_keeps_background_orientations():
    # chain 0 — 1 — 2 with 1 → 2 given: the extension must not create 0 → 1 ← 2 etc.
    g = PDAG.from_edges(3, [(1, 2)], [(0, 1)])
    dag = pdag_to_dag(g)
    assert dag.has_directed(1, 2) and dag.is_dag()
    assert dag.has_directed(0, 1) or dag.has_directed(1, 0)


def test_pdag_to_dag_without_extension():
    # a chordless undirected 4-cycle: every orientation makes a v-structure or a cycle
    g = PDAG.from_edges(4, [], [(0, 1), (1, 2), (2, 3), (0, 3)])
    with pytest.raises(ValueError, match="no consistent DAG extension"):
        pdag_to_dag(g)
    with pytest.raises(ValueError, match="no consistent DAG extension"):
        pdag_to_dag(PDAG.from_edges(3, [(0, 1), (1, 2), (2, 0)]))


# ------------------------------------------------------------------ conversions


def test_matrix_and_networkx_round_trips():
    for m in random_cases(seed=3, count=30, sizes=(2, 25)):
        cp = dag_to_cpdag(PDAG.from_matrix(m, names=[f"v{k}" for k in range(len(m))]))
        mat = cp.to_matrix()
        assert mat.dtype == np.int8
        assert PDAG.from_matrix(mat) == cp
        assert PDAG.from_matrix(mat.astype(bool)) == cp
        g = to_networkx(cp)
        assert set(g.nodes) == set(cp.names)
        assert g.number_of_edges() == cp.n_directed + 2 * cp.n_undirected
        back = from_networkx(g, nodes=cp.names)
        assert back == cp and back.names == cp.names
        np.testing.assert_array_equal(
            nx.to_numpy_array(g, nodelist=cp.names, dtype=np.int8), mat
        )


def test_from_networkx_undirected_graph_and_node_order():
    g = nx.Graph([("a", "b"), ("b", "c")])
    p = from_networkx(g)
    assert p.names == ["a", "b", "c"] and p.n_undirected == 2 and p.n_directed == 0
    d = nx.DiGraph([("x", "y"), ("y", "z"), ("z", "y")])
    p = from_networkx(d, nodes=["z", "y", "x"])
    assert p.has_directed(2, 1) and p.has_undirected(0, 1)


def test_from_matrix_errors():
    with pytest.raises(ValueError, match="square"):
        PDAG.from_matrix(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="self-loop"):
        PDAG.from_matrix(np.eye(2))
    with pytest.raises(ValueError, match="3 names for 2 nodes"):
        PDAG.from_matrix(np.zeros((2, 2)), names=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"entry \[0, 1\] = -1: entries must be 0 or 1"):
        PDAG.from_matrix(np.array([[0, -1], [1, 0]]))  # causal-learn's encoding of 0 → 1


# ------------------------------------------------------------ labels and SHD


def test_pair_labels_by_hand_and_random():
    g = PDAG.from_edges(4, [(0, 2), (3, 1)], [(1, 2)])
    pairs, labels = g.pair_labels()
    assert pairs.tolist() == [[0, 2], [1, 2], [1, 3]]
    assert labels.tolist() == [EdgeType.FORWARD, EdgeType.UNDIRECTED, EdgeType.BACKWARD]
    assert labels.dtype == np.int8
    assert g.edge_type(0, 2) is EdgeType.FORWARD and g.edge_type(2, 0) is EdgeType.BACKWARD
    assert g.edge_type(2, 1) is EdgeType.UNDIRECTED and g.edge_type(0, 3) is EdgeType.NONE
    for m in random_cases(seed=8, count=30, sizes=(2, 20)):
        cp = dag_to_cpdag(PDAG.from_matrix(m))
        pairs, labels = cp.pair_labels()
        ref = brute_pair_labels(cp.to_matrix())
        assert {tuple(p): int(t) for p, t in zip(pairs.tolist(), labels)} == ref
        dense = dense_labels(pairs, labels, cp.n_vars)
        n = cp.n_vars
        for (i, j), t in ref.items():
            assert dense[pair_index(i, j, n)] == t
        assert np.count_nonzero(dense) == len(ref)
    empty_pairs, empty_labels = PDAG(3).pair_labels()
    assert empty_pairs.shape == (0, 2) and empty_labels.shape == (0,)


def test_structural_hamming_distance():
    a = PDAG.from_edges(4, [(0, 1), (1, 2)], [(2, 3)])
    assert structural_hamming_distance(a, a.copy()) == 0
    b = PDAG.from_edges(4, [(1, 0), (1, 2)], [(2, 3)])  # reversed edge
    assert structural_hamming_distance(a, b) == 1
    c = PDAG.from_edges(4, [(0, 1)], [(2, 3)])  # missing edge
    assert structural_hamming_distance(a, c) == 1
    d = PDAG.from_edges(4, [(0, 1), (1, 2), (2, 3)])  # directed vs undirected
    assert structural_hamming_distance(a, d) == 1
    e = PDAG.from_edges(4, [(0, 3)], [(0, 2)])  # everything differs
    assert structural_hamming_distance(a, e) == 5
    assert structural_hamming_distance(e, a) == 5
    rng = np.random.default_rng(4)
    for _ in range(20):
        n = int(rng.integers(2, 15))
        x = dag_to_cpdag(PDAG.from_matrix(random_dag_matrix(rng, n, 0.3)))
        y = PDAG.from_matrix(random_dag_matrix(rng, n, 0.3))
        lx, ly = brute_pair_labels(x.to_matrix()), brute_pair_labels(y.to_matrix())
        ref = sum(lx.get(k, 0) != ly.get(k, 0) for k in itertools.combinations(range(n), 2))
        assert structural_hamming_distance(x, y) == ref
    with pytest.raises(ValueError, match="different numbers of nodes"):
        structural_hamming_distance(PDAG(2), PDAG(3))


# ---------------------------------------------------------------- editing


def test_editing_and_queries():
    g = PDAG(4)
    g.add_directed(0, 1)
    g.add_undirected(1, 2)
    assert g.parents(1) == {0} and g.children(0) == {1} and g.neighbors(2) == {1}
    assert g.adjacent(1) == {0, 2} and g.is_adjacent(1, 0) and not g.is_adjacent(0, 2)
    with pytest.raises(ValueError, match="already adjacent"):
        g.add_directed(1, 0)
    with pytest.raises(ValueError, match="already adjacent"):
        g.add_undirected(2, 1)
    with pytest.raises(ValueError, match="self-loop on node 3"):
        g.add_directed(3, 3)
    with pytest.raises(ValueError, match=r"edge \(0, 4\) outside 0..3"):
        g.add_undirected(0, 4)
    with pytest.raises(ValueError, match="no undirected edge"):
        g.orient(0, 1)
    with pytest.raises(ValueError, match="no directed edge"):
        g.undirect(1, 2)
    g.orient(2, 1)
    assert g.has_directed(2, 1) and g.n_undirected == 0 and g.n_directed == 2
    assert g.topological_order() is not None and g.is_dag()
    g.undirect(1, 0)
    assert g.has_undirected(0, 1) and not g.is_dag()
    g.remove_edge(1, 0)
    g.remove_edge(1, 3)  # no edge: no error
    assert g.n_edges == 1 and repr(g) == "PDAG(n_vars=4, directed=1, undirected=0)"
    cyc = PDAG.from_edges(3, [(0, 1), (1, 2), (2, 0)])
    assert cyc.topological_order() is None and not cyc.is_dag()
    h = cyc.copy()
    h.remove_edge(2, 0)
    assert cyc.n_edges == 3 and h.n_edges == 2  # copy is independent
    with pytest.raises(ValueError, match="non-negative"):
        PDAG(-1)
    with pytest.raises(ValueError, match="duplicate node name 'b'"):
        PDAG(3, names=["a", "b", "b"])
