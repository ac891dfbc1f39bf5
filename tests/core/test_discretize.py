"""Discretisation (issue 17 item 2): causalcal.data.discretize and --discretize."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import KBinsDiscretizer

from causalcal.data import DiscreteData, discretize
from causalcal.errors import InputError


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(size=n), "y": rng.exponential(size=n),
                         "group": rng.integers(0, 3, n), "label": rng.choice(["u", "v"], n)})


@pytest.mark.parametrize("method", ["quantile", "uniform", "kmeans"])
def test_matches_scikit_learn_and_keeps_discrete_columns(method):
    frame = _frame()
    out = discretize(frame, method=method, n_bins=4)
    for name in ("x", "y"):
        ref = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy=method, subsample=None)
        codes = ref.fit_transform(frame[[name]].to_numpy()).ravel().astype(int)
        assert out[name].cat.ordered and len(out[name].cat.categories) == 4
        np.testing.assert_array_equal(out[name].cat.codes.to_numpy(), codes)
        np.testing.assert_allclose(out.attrs["bin_edges"][name], ref.bin_edges_[0])
    pd.testing.assert_series_equal(out["group"], frame["group"])  # 3 values: discrete
    pd.testing.assert_series_equal(out["label"], frame["label"])
    data = DiscreteData.from_frame(out)
    assert list(data.arities) == [4, 4, 3, 2]


def test_quantile_bins_have_equal_counts_and_readable_labels():
    frame = pd.DataFrame({"x": np.arange(300.0)})
    out = discretize(frame, n_bins=3, columns=["x"])
    assert out["x"].value_counts().tolist() == [100, 100, 100]
    assert list(out["x"].cat.categories) == ["< 100", "[100, 200)", ">= 200"]
    assert out["x"].iloc[99] == "< 100" and out["x"].iloc[100] == "[100, 200)"


def test_bins_are_logged(caplog):
    with caplog.at_level(logging.INFO, logger="causalcal.data"):
        discretize(_frame(), n_bins=3)
    assert "column 'x': quantile bins" in caplog.text and "'group'" not in caplog.text


def test_errors():
    frame = _frame()
    with pytest.raises(InputError, match="unknown discretization method 'median'"):
        discretize(frame, method="median")
    with pytest.raises(InputError, match="n_bins"):
        discretize(frame, n_bins=1)
    with pytest.raises(InputError, match="no column 'z'"):
        discretize(frame, columns=["z"])
    with pytest.raises(InputError, match="column 'label', row 1"):
        discretize(frame, columns=["label"])


def test_continuous_columns_were_refused_and_now_load(tmp_path):
    _frame().to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(InputError, match="looks continuous"):
        DiscreteData.from_csv(tmp_path / "d.csv")
    data = DiscreteData.from_csv(tmp_path / "d.csv", discretize_bins=("uniform", 5))
    assert list(data.arities) == [5, 5, 3, 2]


@pytest.mark.slow
def test_cli_discretize(tmp_path, causalcal_main):
    _frame().to_csv(tmp_path / "d.csv", index=False)
    command = ["bootstrap", "d.csv", "--out", "p.csv", "--n-boot", "2", "--discretize",
               "kmeans:3"]
    run = causalcal_main(*command, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "column 'x': kmeans bins" in run.stderr
    run = causalcal_main(*command, "--quiet", cwd=tmp_path)
    assert run.returncode == 0 and "bins" not in run.stderr  # issue 41 item 8
    run = causalcal_main("bootstrap", "d.csv", "--out", "p.csv", "--discretize", "quantile",
                         cwd=tmp_path)
    assert run.returncode == 2 and "METHOD:K" in run.stderr
