"""Tests of causalcal.edges: EdgeType, pair indexing, EdgeProbabilities and its files."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal.edges import (
    PROBABILITY_COLUMNS,
    EdgeProbabilities,
    EdgeType,
    dense_labels,
    n_pairs,
    pair_from_index,
    pair_index,
)

# --------------------------------------------------------------------- EdgeType


def test_edge_type_values_and_symbols():
    assert [int(t) for t in EdgeType] == [0, 1, 2, 3]
    assert [t.name for t in EdgeType] == ["NONE", "FORWARD", "BACKWARD", "UNDIRECTED"]
    for t in EdgeType:
        assert EdgeType.from_symbol(f"  {t.symbol.upper()} ") is t
    with pytest.raises(ValueError, match="unknown relation '=>'"):
        EdgeType.from_symbol("=>")


# ---------------------------------------------------------------- pair indexing


@pytest.mark.parametrize("v", [2, 3, 4, 7, 20])
def test_pair_index_is_row_major_order_of_combinations(v):
    pairs = np.array(list(itertools.combinations(range(v), 2)))
    assert n_pairs(v) == len(pairs)
    np.testing.assert_array_equal(pair_index(pairs[:, 0], pairs[:, 1], v), np.arange(len(pairs)))
    i, j = pair_from_index(np.arange(len(pairs)), v)
    np.testing.assert_array_equal(np.column_stack([i, j]), pairs)


def test_pair_from_index_scalar_shape_and_range():
    i, j = pair_from_index(3, 5)
    assert (int(i), int(j)) == (0, 4)
    i, j = pair_from_index(np.array([[0, 9], [4, 5]]), 5)
    assert i.shape == (2, 2)
    np.testing.assert_array_equal(i, [[0, 3], [1, 1]])
    np.testing.assert_array_equal(j, [[1, 4], [2, 3]])
    assert n_pairs(0) == n_pairs(1) == 0
    with pytest.raises(ValueError, match="pair position 10 outside 0..9"):
        pair_from_index([0, 10], 5)
    with pytest.raises(ValueError, match="pair position -1"):
        pair_from_index(-1, 5)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 5000), st.data())
def test_pair_index_inverse_hypothesis(v, data):
    total = n_pairs(v)
    ks = data.draw(st.lists(st.integers(0, total - 1), min_size=1, max_size=20))
    ks += [0, total - 1]
    i, j = pair_from_index(np.array(ks), v)
    assert np.all((0 <= i) & (i < j) & (j < v))
    np.testing.assert_array_equal(pair_index(i, j, v), ks)
    a = data.draw(st.integers(0, v - 2))
    b = data.draw(st.integers(a + 1, v - 1))
    k = pair_index(a, b, v)
    assert 0 <= k < total
    assert tuple(map(int, pair_from_index(k, v))) == (a, b)


def test_pair_index_inverse_at_row_boundaries_v5000():
    v = 5000
    i = np.arange(v - 1)
    for jj in (i + 1, np.full(v - 1, v - 1)):  # first and last pair of each row
        k = pair_index(i, jj, v)
        ii, j2 = pair_from_index(k, v)
        np.testing.assert_array_equal(ii, i)
        np.testing.assert_array_equal(j2, jj)


# ------------------------------------------------------------ EdgeProbabilities


def make_table(seed=0, v=8, m=10, names=None):
    rng = np.random.default_rng(seed)
    keys = rng.choice(n_pairs(v), size=m, replace=False)
    i, j = pair_from_index(keys, v)
    probs = rng.dirichlet(np.ones(4), size=m)
    names = [f"V{k}" for k in range(v)] if names is None else names
    return EdgeProbabilities(names, np.column_stack([i, j]), probs, n_boot=50)


def brute_dense(ep):
    out = {}
    for a, b in itertools.combinations(range(ep.n_vars), 2):
        out[(a, b)] = np.array([1.0, 0, 0, 0])
    for (a, b), row in zip(ep.pairs, ep.probs):
        out[(int(a), int(b))] = row
    return np.array([out[p] for p in itertools.combinations(range(ep.n_vars), 2)])


def test_rows_are_sorted_by_pair_position_and_implicit_rows_are_none():
    ep = make_table(1)
    keys = pair_index(ep.pairs[:, 0], ep.pairs[:, 1], ep.n_vars)
    assert np.all(np.diff(keys) > 0)
    assert len(ep) == 10 and ep.n_pairs == 28 and ep.n_vars == 8
    dense = ep.dense()
    assert dense.dtype == np.float32 and dense.shape == (28, 4)
    np.testing.assert_allclose(dense, brute_dense(ep), rtol=1e-6)
    np.testing.assert_array_equal(ep.dense(np.float64), brute_dense(ep))
    stored = set(map(tuple, ep.pairs.tolist()))
    for k, (a, b) in enumerate(itertools.combinations(range(8), 2)):
        if (a, b) not in stored:
            np.testing.assert_array_equal(dense[k], [1, 0, 0, 0])


@pytest.mark.parametrize("chunk", [1, 5, 7, 28, 100])
def test_iter_dense_matches_dense(chunk):
    ep = make_table(2)
    pos, blocks = zip(*ep.iter_dense(chunk_size=chunk))
    np.testing.assert_array_equal(np.concatenate(pos), np.arange(28))
    assert all(len(p) <= chunk for p in pos)
    np.testing.assert_array_equal(np.concatenate(blocks), ep.dense())


def test_lookup_consistent_with_dense_in_both_orders():
    ep = make_table(3)
    dense = ep.dense(np.float64)
    a, b = np.triu_indices(8, 1)
    np.testing.assert_array_equal(ep.lookup(a, b), dense)
    swapped = ep.lookup(b, a)
    np.testing.assert_array_equal(swapped, dense[:, [0, 2, 1, 3]])
    assert ep.lookup(b[5], a[5]).shape == (4,)
    np.testing.assert_array_equal(ep.lookup(b[5], a[5]), swapped[5])
    assert ep.lookup(np.array([[0], [1]]), np.array([2, 3, 4])).shape == (2, 3, 4)
    empty = EdgeProbabilities(["a", "b", "c"], np.zeros((0, 2)), np.zeros((0, 4)))
    np.testing.assert_array_equal(empty.lookup([0, 2], [1, 1]), [[1, 0, 0, 0]] * 2)
    np.testing.assert_array_equal(empty.dense(), [[1, 0, 0, 0]] * 3)
    with pytest.raises(ValueError, match="two different"):
        ep.lookup([1], [1])
    with pytest.raises(ValueError, match="outside 0..7"):
        ep.lookup([1], [8])


def test_from_counts_three_and_four_columns():
    pairs = np.array([[0, 1], [1, 2]])
    ep3 = EdgeProbabilities.from_counts(["a", "b", "c"], pairs, [[2, 1, 0], [0, 0, 4]], 4)
    np.testing.assert_allclose(ep3.probs, [[0.25, 0.5, 0.25, 0], [0, 0, 0, 1]])
    ep4 = EdgeProbabilities.from_counts(["a", "b", "c"], pairs, [[1, 2, 1, 0], [0, 0, 0, 4]], 4)
    assert ep3 == ep4 and ep3.n_boot == 4
    empty = EdgeProbabilities.from_counts(["a", "b"], np.zeros((0, 2)), np.zeros((0, 3)), 5)
    assert len(empty) == 0
    with pytest.raises(ValueError, match="n_boot"):
        EdgeProbabilities.from_counts(["a", "b"], [[0, 1]], [[1, 0, 0]], 0)
    with pytest.raises(ValueError, match=r"\(a, b\).*non-negative"):
        EdgeProbabilities.from_counts(["a", "b"], [[0, 1]], [[3, 2, 0]], 4)
    with pytest.raises(ValueError, match=r"shape \(m, 3\) or \(m, 4\)"):
        EdgeProbabilities.from_counts(["a", "b"], [[0, 1]], [[3, 1]], 4)


@pytest.mark.parametrize(
    ("names", "pairs", "probs", "message"),
    [
        (["a", "a"], [[0, 1]], [[1, 0, 0, 0]], "unique"),
        (["a", "b"], [[0, 2]], [[1, 0, 0, 0]], "out of range"),
        (["a", "b"], [[-1, 1]], [[1, 0, 0, 0]], "out of range"),
        (["a", "b"], [[1, 0]], [[1, 0, 0, 0]], "not ordered"),
        (["a", "b"], [[1, 1]], [[1, 0, 0, 0]], "not ordered"),
        (["a", "b", "c"], [[0, 1], [1, 2]], [[1, 0, 0, 0]], "2 pairs but 1"),
        (["a", "b"], [[0, 1]], [[0.5, 0.2, 0.2, 0]], r"\(a, b\) sum to 0.9"),
        (["a", "b"], [[0, 1]], [[1.5, -0.5, 0, 0]], "non-negative"),
        (["a", "b"], [[0, 1]], [[np.nan, 1, 0, 0]], "finite"),
        (["a", "b", "c"], [[0, 1], [0, 1]], [[1, 0, 0, 0]] * 2, r"\(a, b\) listed twice"),
        (["a", "b"], [[0, 1]], [[0.5, 0.5, 0]], r"shape \(m, 4\)"),
        (["a", "b"], [[0, 1, 2]], [[1, 0, 0, 0]], r"shape \(m, 2\)"),
    ],
)
def test_validation_errors(names, pairs, probs, message):
    with pytest.raises(ValueError, match=message):
        EdgeProbabilities(names, np.array(pairs), np.array(probs, dtype=float))


def test_negative_n_boot():
    with pytest.raises(ValueError, match="n_boot must be non-negative"):
        EdgeProbabilities(["a", "b"], [[0, 1]], [[1, 0, 0, 0]], n_boot=-1)


WEIRD = ["a,b", 'q"x', "NA", "#h", "ü 1", "", "nan", "x\ty", "new\nline", "[x", " pad ", "1"]


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_exact_round_trip_with_awkward_names(tmp_path, suffix):
    ep = make_table(4, v=len(WEIRD), m=30, names=WEIRD)
    ep.probs[0] = [0.1, 0.2, 0.3, 0.4]  # decimal values that are not exact binaries
    path = tmp_path / f"sub dir/probs{suffix}"
    ep.save(path)
    back = EdgeProbabilities.load(path)
    _assert_round_trip(back, ep, suffix)
    assert back.names == WEIRD
    assert back.n_boot == 50
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp left


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"),
                max_size=6),
        min_size=2, max_size=6, unique=True,
    ),
    st.integers(0, 2**31 - 1),
    st.sampled_from([".npz", ".csv"]),
)
def test_round_trip_hypothesis(tmp_path_factory, names, seed, suffix):
    v = len(names)
    ep = make_table(seed, v=v, m=int(np.random.default_rng(seed).integers(0, n_pairs(v) + 1)),
                    names=names)
    path = tmp_path_factory.mktemp("rt") / f"p{suffix}"
    ep.save(path)
    _assert_round_trip(EdgeProbabilities.load(path), ep, suffix)
    frequencies = EdgeProbabilities.from_counts(
        ep.names, ep.pairs, np.random.default_rng(seed).multinomial(7, [0.25] * 4, len(ep)), 7)
    frequencies.save(path)
    assert EdgeProbabilities.load(path) == frequencies  # k / n_boot: exact in both forms


def _assert_round_trip(back, ep, suffix):
    """.npz is exact; .csv prints 8 significant digits (bootstrap frequencies: exact)."""
    if suffix == ".npz":
        assert back == ep
        return
    assert back.names == ep.names and back.n_boot == ep.n_boot
    np.testing.assert_array_equal(back.pairs, ep.pairs)
    np.testing.assert_allclose(back.probs, ep.probs, rtol=6e-8, atol=1e-15)


def test_csv_layout_and_reading_foreign_csv(tmp_path):
    ep = EdgeProbabilities(["A", "B", "C"], [[0, 2]], [[0.25, 0.5, 0.125, 0.125]], n_boot=8)
    ep.save(tmp_path / "p.csv")
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "a,b,p_none,p_forward,p_backward,p_undirected"
    # every pair, in pair order, as bnlearn's boot.strength (issue 41 item 8)
    assert lines[1:] == ["A,B,1,0,0,0", "A,C,0.25,0.5,0.125,0.125", "B,C,1,0,0,0"]
    plain = pd.read_csv(tmp_path / "p.csv")  # a plain read, no options
    assert list(plain.columns) == ["a", "b", *PROBABILITY_COLUMNS] and len(plain) == 3
    back = EdgeProbabilities.load(tmp_path / "p.csv")
    assert back == ep and len(back) == 1  # the pairs never adjacent are not stored
    meta = json.loads((tmp_path / "p.csv.json").read_text())
    assert meta["names"] == ["A", "B", "C"] and meta["n_boot"] == 8
    third = EdgeProbabilities(["A", "B"], [[0, 1]], [[1 / 3, 1 / 3, 0.26, 1 - 2 / 3 - 0.26]])
    third.save(tmp_path / "t.csv")
    row = (tmp_path / "t.csv").read_text().splitlines()[1].split(",")[2:]
    assert row == ["0.33333333", "0.33333333", "0.26", "0.073333333"]
    # a CSV of an earlier version, metadata in leading '#' lines, still reads
    (tmp_path / "old.csv").write_text(
        '# n_vars=3 n_boot=8\n# names=["A", "B", "C"]\n'
        "a,b,p_none,p_forward,p_backward,p_undirected\nA,C,0.25,0.5,0.125,0.125\n")
    assert EdgeProbabilities.load(tmp_path / "old.csv") == ep
    # a CSV without header comments, one row written the other way round (C, A)
    (tmp_path / "f.csv").write_text(
        "a,b,p_none,p_forward,p_backward,p_undirected\nC,A,0.25,0.125,0.5,0.125\nB,C,0,1,0,0\n"
    )
    f = EdgeProbabilities.load(tmp_path / "f.csv")
    assert f.names == ["C", "A", "B"] and f.n_boot == 0
    np.testing.assert_array_equal(f.lookup([1], [0])[0], [0.25, 0.5, 0.125, 0.125])
    np.testing.assert_array_equal(f.lookup([2], [0])[0], [0, 1, 0, 0])


def test_io_errors(tmp_path):
    ep = make_table(5)
    with pytest.raises(ValueError, match="unknown format"):
        ep.save(tmp_path / "p.txt")
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        EdgeProbabilities.load(tmp_path / "nope.csv")
    (tmp_path / "m.csv").write_text("a,b,p_none\nx,y,1\n")
    with pytest.raises(ValueError, match="m.csv: missing columns p_forward"):
        EdgeProbabilities.load(tmp_path / "m.csv")
    (tmp_path / "u.csv").write_text(
        "# names=[\"x\", \"y\"]\na,b,p_none,p_forward,p_backward,p_undirected\nx,z,1,0,0,0\n"
    )
    with pytest.raises(ValueError, match="unknown variables 'z'"):
        EdgeProbabilities.load(tmp_path / "u.csv")
    (tmp_path / "s.csv").write_text(
        "a,b,p_none,p_forward,p_backward,p_undirected\nx,y,0.5,0,0,0\n"
    )
    with pytest.raises(ValueError, match=r"s.csv: .*\(x, y\) sum to 0.5"):
        EdgeProbabilities.load(tmp_path / "s.csv")
    (tmp_path / "t.csv").write_text(
        "a,b,p_none,p_forward,p_backward,p_undirected\nx,y,one,0,0,0\n"
    )
    with pytest.raises(ValueError, match="t.csv: probability columns must be numbers"):
        EdgeProbabilities.load(tmp_path / "t.csv")


def test_dense_labels():
    pairs = np.array([[0, 1], [1, 3], [2, 3]])
    labels = np.array([EdgeType.FORWARD, EdgeType.UNDIRECTED, EdgeType.BACKWARD])
    out = dense_labels(pairs, labels, 4)
    assert out.dtype == np.int8
    expected = {(0, 1): 1, (1, 3): 3, (2, 3): 2}
    for k, (a, b) in enumerate(itertools.combinations(range(4), 2)):
        assert out[k] == expected.get((a, b), 0)
    np.testing.assert_array_equal(dense_labels(np.zeros((0, 2)), [], 3), [0, 0, 0])
