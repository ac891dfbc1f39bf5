"""Binning never silently destroys a column (issue 41 item 4, docs/design.md §3 "Binning"):
a column that a method leaves with fewer non-empty bins is warned about and cut between
its distinct values for the most equal counts; per-column specs keep and cuts; constant
columns named; bad specs name the column."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd
import pytest

from causalcal import data as data_module
from causalcal.data import DiscreteData, discretize
from causalcal.data.binning import equal_count_cuts
from causalcal.errors import DataWarning, InputError


def _zero_inflated(n=300, seed=0) -> pd.DataFrame:
    """``re74``: 73 % zeros, the rest distinct positive amounts (as NSW's earnings);
    ``marital``: a 5-level numeric code; ``x``: continuous."""
    rng = np.random.default_rng(seed)
    zeros = int(0.73 * n)
    re74 = np.concatenate([np.zeros(zeros), np.round(rng.exponential(5000, n - zeros), 2) + 1])
    return pd.DataFrame({"re74": rng.permutation(re74), "marital": rng.integers(1, 6, n),
                         "x": rng.normal(size=n)})


def test_a_zero_inflated_column_is_warned_and_gets_the_bins_asked():
    frame = _zero_inflated()
    with pytest.warns(DataWarning, match=r"column 're74': quantile:3 leaves 1 non-empty bin "
                                         r"of 3 \(73% of the rows are 0\)"):
        out = discretize(frame, "quantile", 3)
    codes = out["re74"].cat.codes.to_numpy()
    assert out["re74"].cat.ordered and len(out["re74"].cat.categories) == 3
    counts = np.bincount(codes, minlength=3)
    assert (counts > 0).all()
    zero = frame["re74"].to_numpy() == 0
    assert set(codes[zero]) == {0} and set(codes[~zero]) == {1, 2}  # {0}, then two halves
    assert abs(counts[1] - counts[2]) <= 1
    positive = np.sort(frame["re74"].to_numpy()[~zero])
    assert out.attrs["bin_edges"]["re74"][1:3] == [positive[0], positive[len(positive) // 2]]


def test_a_column_with_fewer_values_than_bins_asked_gets_one_bin_per_value():
    frame = pd.DataFrame({"ptl": [0] * 40 + [1] * 5 + [2] * 5})
    with pytest.warns(DataWarning, match="only 3 distinct values"):
        out = discretize(frame, "quantile", 4, columns=["ptl"])
    assert list(out["ptl"].cat.categories) == ["< 1", "[1, 2)", ">= 2"]
    np.testing.assert_array_equal(out["ptl"].cat.codes.to_numpy(), frame["ptl"].to_numpy())


def _brute_force(counts, k):
    """The cut indices with the least sum of squared bin counts; ties: last cut lowest,
    then the one before it (docs/design.md)."""
    total = np.concatenate([[0], np.cumsum(counts)])
    best = None
    for cuts in itertools.combinations(range(1, len(counts)), k - 1):
        edges = [0, *cuts, len(counts)]
        cost = sum((total[b] - total[a]) ** 2 for a, b in zip(edges[:-1], edges[1:]))
        key = (cost, tuple(reversed(cuts)))
        if best is None or key < best:
            best = key
    return list(reversed(best[1]))


@pytest.mark.parametrize("seed", range(40))
def test_equal_count_cuts_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 10))
    counts = rng.integers(1, 6, d) ** rng.integers(1, 3, d)  # ties and heavy values
    if seed % 4 == 0:
        counts = np.ones(d, dtype=int)  # many ties among partitions
    for k in range(1, d + 1):
        got = equal_count_cuts(counts, k).tolist()
        assert got == _brute_force(counts, k), (counts.tolist(), k)


def _plain_dynamic_programming(counts, k):
    """The O(k · d²) recursion, every start tried, the lowest optimal one kept."""
    total = np.concatenate([[0], np.cumsum(counts)])
    d = len(counts)
    cost = {(0, 0): (0, None)}
    for layer in range(1, k + 1):
        for j in range(layer, d + 1):
            options = [(cost[(layer - 1, i)][0] + (total[j] - total[i]) ** 2, i)
                       for i in range(layer - 1, j) if (layer - 1, i) in cost]
            cost[(layer, j)] = min(options)
    cuts, end = [], d
    for layer in range(k, 1, -1):
        end = cost[(layer, end)][1]
        cuts.append(end)
    return cuts[::-1]


@pytest.mark.parametrize("seed", range(6))
def test_equal_count_cuts_match_the_plain_recursion_on_longer_columns(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 4, int(rng.integers(40, 90)))
    counts[rng.integers(0, len(counts), 3)] = rng.integers(20, 200, 3)  # heavy values
    for k in (2, 3, 5, 8):
        assert equal_count_cuts(counts, k).tolist() == _plain_dynamic_programming(counts, k)


def test_keep_and_cuts_per_column():
    frame = _zero_inflated()
    frame.loc[0, "re74"] = 5000.0  # exactly at a cut: in the upper bin (left-closed)
    out = discretize(frame, "quantile", 3,
                     per_column={"marital": "keep", "re74": data_module.Cuts((1, 5000))})
    pd.testing.assert_series_equal(out["marital"], frame["marital"])  # not binned
    assert list(out["re74"].cat.categories) == ["< 1", "[1, 5000)", ">= 5000"]
    expected = np.searchsorted([1, 5000], frame["re74"].to_numpy(), side="right")
    np.testing.assert_array_equal(out["re74"].cat.codes.to_numpy(), expected)
    assert out["re74"].iloc[0] == ">= 5000"
    assert len(out["x"].cat.categories) == 3  # the default still bins the rest
    data = DiscreteData.from_frame(out)
    assert data.categories[0] == ["< 1", "[1, 5000)", ">= 5000"]  # bin order, not sorted
    assert data.categories[1] == [1, 2, 3, 4, 5]


def test_text_and_typed_specs_are_one_type():
    spec = data_module.parse_discretize("age=quantile:4,re74=cuts:1,5000,marital=keep,"
                                        "quantile:3")
    assert spec == data_module.Discretization(
        {"age": data_module.Bins("quantile", 4), "re74": data_module.Cuts((1.0, 5000.0)),
         "marital": data_module.Keep()}, data_module.Bins("quantile", 3))
    assert data_module.parse_discretize({"re74": "cuts:1,5000", None: ("quantile", 3)}) == \
        data_module.Discretization({"re74": data_module.Cuts((1, 5000))},
                                   data_module.Bins("quantile", 3))
    assert str(spec.columns["re74"]) == "cuts:1,5000"


@pytest.mark.parametrize("text, message", [
    ("re74=cuts:5000,1", "discretize re74=cuts:5000,1: cut points must increase"),
    ("re74=cuts:", "discretize re74=cuts:: cut points must be one or more"),
    ("re74=cuts:a,b", "discretize re74=cuts:a: cut points must be numbers"),
    ("marital=median:3", "discretize marital=median:3: expected METHOD:K"),
    ("marital=quantile:1", "discretize marital=quantile:1: n_bins must be"),
    ("marital=kept", "discretize marital=kept: expected METHOD:K"),
    ("keep", "discretize keep: keep and cuts are for a named column"),
    ("re74=cuts:1,2,3,4,5,6", r"discretize re74=cuts:1,2,3,4,5,6: 7 bins > max_arity=5"),
    ("x=quantile:3,x=keep", "'x' is given twice"),
    ("quantile", "discretize quantile: expected METHOD:K"),
    ("quantile:3,uniform:4", "the default is given twice"),
])
def test_bad_specs_name_the_column(text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        data_module.parse_discretize(text, max_arity=5)


def test_bad_specs_in_discretize_and_from_csv(tmp_path):
    frame = _zero_inflated()
    with pytest.raises(InputError, match="no column 'nope'"):
        discretize(frame, per_column={"nope": "keep"})
    with pytest.raises(InputError, match="discretize re74=cuts:2,1"):
        discretize(frame, per_column={"re74": "cuts:2,1"})
    frame.assign(label="u").to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(InputError, match="column 'label', row 1"):
        DiscreteData.from_csv(tmp_path / "d.csv", discretize_bins="label=cuts:1")


def test_given_cuts_with_an_empty_bin_are_warned_about():
    frame = pd.DataFrame({"x": np.arange(50.0)})
    with pytest.warns(DataWarning, match=r"column 'x': cuts:10,100 leaves 1 of 3 bins empty "
                                         r"\(>= 100\)"):
        out = discretize(frame, columns=[], per_column={"x": "cuts:10,100"})
    assert len(out["x"].cat.categories) == 3


def test_constant_columns_are_named(tmp_path):
    frame = _zero_inflated().assign(site=7, arm="a")
    frame.to_csv(tmp_path / "d.csv", index=False)
    with pytest.warns(DataWarning, match=r"constant columns \(one value in every row\): "
                                         r"'site', 'arm'"):
        data = DiscreteData.from_csv(tmp_path / "d.csv", discretize_bins="quantile:3")
    assert data.arities[data.index("site")] == 1


def test_from_csv_takes_the_same_specs_and_logs_the_bins(tmp_path, caplog):
    _zero_inflated().to_csv(tmp_path / "d.csv", index=False)
    with caplog.at_level(logging.INFO, logger="causalcal.data"):
        data = DiscreteData.from_csv(tmp_path / "d.csv",
                                     discretize_bins="marital=keep,re74=cuts:1,quantile:3")
    assert data.categories[data.index("marital")] == [1, 2, 3, 4, 5]
    assert data.categories[data.index("re74")] == ["< 1", ">= 1"]
    assert "column 're74': given bins < 1 (219 rows), >= 1 (81 rows)" in caplog.text
    assert "'marital'" not in caplog.text
