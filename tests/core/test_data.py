"""Tests of causalcal.data.DiscreteData: encoding, the docs/design.md §3 errors, CSV input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.data import DiscreteData, smallest_int_dtype


def test_numeric_array_encoding():
    arr = np.array([[3, 10], [1, 10], [3, 7], [2, 10]])
    d = DiscreteData.from_array(arr, names=["a", "b"])
    assert d.names == ["a", "b"]
    assert d.n_samples == 4 and d.n_vars == 2
    assert d.categories == [[1, 2, 3], [7, 10]]
    np.testing.assert_array_equal(d.arities, [3, 2])
    np.testing.assert_array_equal(d.codes, [[2, 1], [0, 1], [2, 0], [1, 1]])
    assert d.codes.dtype == np.uint8
    # labels come back
    np.testing.assert_array_equal(d.to_frame().to_numpy().astype(int), arr)
    np.testing.assert_array_equal(d.to_frame(labels=False).to_numpy(), d.codes)
    assert d.index("b") == 1
    with pytest.raises(KeyError, match="no variable named 'c'"):
        d.index("c")


def test_default_names_and_non_integer_numeric_labels():
    d = DiscreteData.from_array(np.array([[0.5, 1.0], [1.5, 2.0], [0.5, 1.0]]))
    assert d.names == ["X0", "X1"]
    assert d.categories == [[0.5, 1.5], [1, 2]]


def test_string_bool_and_constant_columns():
    frame = pd.DataFrame(
        {"s": ["lo", "hi", "mid", "hi"], "b": [True, False, True, True], "c": [5, 5, 5, 5]}
    )
    d = DiscreteData.from_frame(frame)
    assert d.categories[0] == ["hi", "lo", "mid"]
    np.testing.assert_array_equal(d.codes[:, 0], [1, 0, 2, 0])
    assert d.categories[1] == ["False", "True"]
    np.testing.assert_array_equal(d.codes[:, 1], [1, 0, 1, 1])
    # a constant column is allowed: arity 1, all codes 0
    assert d.categories[2] == [5] and d.arities[2] == 1
    np.testing.assert_array_equal(d.codes[:, 2], 0)


def test_object_array_of_numbers_is_numeric():
    arr = np.array([[1, "a"], [10, "b"], [2, "a"]], dtype=object)
    d = DiscreteData.from_array(arr)
    assert d.categories[0] == [1, 2, 10]  # numeric order, not '1' < '10' < '2'
    np.testing.assert_array_equal(d.codes[:, 0], [0, 2, 1])
    with pytest.raises(ValueError, match="column 'X0', row 2: non-finite"):
        DiscreteData.from_array(np.array([[1.0, "a"], [np.inf, "b"]], dtype=object))


def test_smallest_int_dtype_for_many_categories():
    assert smallest_int_dtype(255) == np.uint8
    assert smallest_int_dtype(256) == np.uint16
    assert smallest_int_dtype(70_000) == np.uint32
    arr = np.arange(600).reshape(300, 2)
    d = DiscreteData.from_array(arr, max_arity=300)
    assert d.codes.dtype == np.uint16
    np.testing.assert_array_equal(d.arities, [300, 300])
    np.testing.assert_array_equal(d.codes[:, 1], np.arange(300))


# --------------------------------------------------------------- docs/design.md §3 errors


def test_missing_value_names_column_and_row():
    with pytest.raises(ValueError, match=r"column 'b', row 3: missing value"):
        DiscreteData.from_array(np.array([[0, 1], [1, 0], [1, np.nan]]), names=["a", "b"])
    with pytest.raises(ValueError, match=r"column 'txt', row 2: missing value"):
        DiscreteData.from_frame(pd.DataFrame({"txt": ["x", None, "y"]}))
    with pytest.raises(ValueError, match=r"column 'n', row 1: missing value"):
        DiscreteData.from_frame(pd.DataFrame({"n": pd.array([None, 1, 2], dtype="Int64")}))


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_non_finite_names_column_and_row(bad):
    arr = np.array([[0.0, 1], [1, 0], [2, 1], [bad, 0]])
    with pytest.raises(ValueError, match=r"column 'X0', row 4: non-finite value -?inf"):
        DiscreteData.from_array(arr)


@pytest.mark.parametrize("rows", [0, 1])
def test_fewer_than_two_rows(rows):
    with pytest.raises(ValueError, match=f"at least 2 rows of data, got {rows}"):
        DiscreteData.from_array(np.zeros((rows, 3)))


def test_numeric_column_with_too_many_values_looks_continuous():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"ok": rng.integers(0, 3, 50), "cont": rng.normal(size=50)})
    with pytest.raises(ValueError, match=r"column 'cont': 50 distinct values > max_arity=20; "
                                         r"looks continuous, discretize it first"):
        DiscreteData.from_frame(frame)
    # exactly max_arity values is fine; one more is not
    frame = pd.DataFrame({"k": np.arange(21) % 20})
    assert DiscreteData.from_frame(frame).arities[0] == 20
    with pytest.raises(ValueError, match="column 'k': 21 distinct values > max_arity=20"):
        DiscreteData.from_frame(pd.DataFrame({"k": np.arange(21)}))
    assert DiscreteData.from_frame(pd.DataFrame({"k": np.arange(21)}), max_arity=21).arities[0]


def test_text_column_with_too_many_categories():
    frame = pd.DataFrame({"t": [f"c{k}" for k in range(5)]})
    with pytest.raises(ValueError, match="column 't': 5 distinct values > max_arity=4; has too"):
        DiscreteData.from_frame(frame, max_arity=4)


def test_shape_and_name_errors():
    with pytest.raises(ValueError, match="2-d"):
        DiscreteData.from_array(np.zeros(5))
    with pytest.raises(ValueError, match="no columns"):
        DiscreteData.from_frame(pd.DataFrame(index=range(3)))
    with pytest.raises(ValueError, match="3 names for 2 columns"):
        DiscreteData.from_array(np.zeros((3, 2)), names=["a", "b", "c"])
    with pytest.raises(ValueError, match="duplicate column name 'a'"):
        DiscreteData.from_array(np.zeros((3, 2)), names=["a", "a"])


def test_constructor_checks_codes():
    codes = np.array([[0, 1], [1, 2]])
    d = DiscreteData(codes, names=["p", "q"])
    np.testing.assert_array_equal(d.arities, [2, 3])
    assert d.categories == [[0, 1], [0, 1, 2]]
    d = DiscreteData(codes, arities=[4, 3], categories=[list("abcd"), list("xyz")])
    assert d.to_frame().iloc[1].tolist() == ["b", "z"]
    with pytest.raises(ValueError, match="column 'X1': code 2 outside arity 2"):
        DiscreteData(codes, arities=[2, 2])
    with pytest.raises(ValueError, match="column 'X0': negative code"):
        DiscreteData(np.array([[-1, 0], [0, 0]]))
    with pytest.raises(ValueError, match="integers"):
        DiscreteData(np.array([[0.5, 1.0]]))
    with pytest.raises(ValueError, match="2-d"):
        DiscreteData(np.array([0, 1]))
    with pytest.raises(ValueError, match="categories"):
        DiscreteData(codes, categories=[["a", "b"], ["x"]])
    with pytest.raises(ValueError, match="3 arities for 2 columns"):
        DiscreteData(codes, arities=[2, 3, 4])


# ------------------------------------------------------------------------ CSV


def test_csv_round_trip_and_labels(tmp_path):
    frame = pd.DataFrame(
        {"smoker": ["yes", "no", "no", "yes"], "age band": [1, 2, 3, 1], "const": [0, 0, 0, 0]}
    )
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    d = DiscreteData.from_csv(path)
    assert d.names == ["smoker", "age band", "const"]
    assert d.categories == [["no", "yes"], [1, 2, 3], [0]]
    d.to_csv(tmp_path / "again.csv")
    assert DiscreteData.from_csv(tmp_path / "again.csv") == d
    assert d == DiscreteData.from_frame(frame)


def test_csv_errors_name_file_column_and_row(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("a,b\n0,1\n1,\n0,0\n")
    with pytest.raises(ValueError, match=r"m.csv: column 'b', row 2: missing value"):
        DiscreteData.from_csv(path)
    path.write_text("a,b\n0,1\nNA,1\n")  # NA is a category unless named a marker
    with pytest.raises(ValueError, match=r"column 'a', row 2: missing value"):
        DiscreteData.from_csv(path, na_values=["NA"])
    path.write_text("a,b\n0,1\n1,inf\n")
    with pytest.raises(ValueError, match=r"column 'b', row 2: non-finite value inf"):
        DiscreteData.from_csv(path)
    path.write_text("a,b\n0,1\n")
    with pytest.raises(ValueError, match="m.csv: need at least 2 rows"):
        DiscreteData.from_csv(path)
    path.write_text("x\n" + "\n".join(f"{k / 7:.4f}" for k in range(30)) + "\n")
    with pytest.raises(ValueError, match="column 'x': 30 distinct values.*looks continuous"):
        DiscreteData.from_csv(path)
    path.write_text("")
    with pytest.raises(ValueError, match="m.csv: file is empty"):
        DiscreteData.from_csv(path)
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        DiscreteData.from_csv(tmp_path / "nope.csv")


def test_equality_and_repr():
    a = DiscreteData.from_array(np.array([[0, 1], [1, 1]]))
    b = DiscreteData.from_array(np.array([[0, 1], [1, 1]]))
    c = DiscreteData.from_array(np.array([[0, 1], [1, 0]]))
    assert a == b and a != c
    assert repr(a) == "DiscreteData(n_samples=2, n_vars=2)"
