"""The data loader (issue 17 item 8): Categoricals, explicit missing-value markers,
delimiters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.data import DiscreteData
from causalcal.errors import InputError


def test_ordered_categorical_keeps_order_and_unused_categories():
    level = pd.Categorical(["mid", "low", "mid", "low"], categories=["low", "mid", "high"],
                           ordered=True)
    plain = pd.Categorical(["b", "a", "b", "a"], categories=["b", "a"])
    data = DiscreteData.from_frame(pd.DataFrame({"level": level, "plain": plain}))
    assert data.categories[0] == ["low", "mid", "high"]
    assert list(data.arities) == [3, 2]  # the unused "high" counts
    np.testing.assert_array_equal(data.codes[:, 0], [1, 0, 1, 0])
    assert data.categories[1] == ["b", "a"]  # declared order, not sorted
    np.testing.assert_array_equal(data.codes[:, 1], [0, 1, 0, 1])
    back = data.to_frame()
    assert back["level"].tolist() == ["mid", "low", "mid", "low"]


def test_categorical_missing_and_too_many():
    col = pd.Categorical(["a", None, "a"], categories=["a", "b"])
    with pytest.raises(ValueError, match="column 'x', row 2: missing value"):
        DiscreteData.from_frame(pd.DataFrame({"x": col, "y": [1, 2, 3]}))
    wide = pd.Categorical(["c0", "c1"], categories=[f"c{k}" for k in range(30)])
    with pytest.raises(ValueError, match="30 categories > max_arity=20"):
        DiscreteData.from_frame(pd.DataFrame({"x": wide}))


def test_missing_markers_are_refused_unless_na_values_says_what_they_are(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("smoker,region\nNA,north\nyes,NA\nno,south\nNA,north\n")
    with pytest.raises(InputError, match=r"column 'smoker', row 1: 'NA' looks like a "
                                         r"missing value.*--na-values"):
        DiscreteData.from_csv(path)
    data = DiscreteData.from_csv(path, na_values=[])  # nothing but an empty cell is missing
    assert data.categories[0] == ["NA", "no", "yes"]
    assert "NA" in data.categories[1]
    with pytest.raises(InputError, match=r"d\.csv: column 'smoker', row 1: missing value"):
        DiscreteData.from_csv(path, na_values=["NA"])
    path.write_text("a,b\n1,x\n,y\n")
    with pytest.raises(InputError, match="column 'a', row 2: missing value"):
        DiscreteData.from_csv(path)
    path.write_text("a,b\n1,x\n?,y\n2,y\n")
    with pytest.raises(InputError, match="column 'a', row 2: '\\?' looks like a missing"):
        DiscreteData.from_csv(path)
    assert DiscreteData.from_csv(path, na_values=[]).categories[0] == ["1", "2", "?"]
    with pytest.raises(InputError, match="column 'a', row 2: missing value"):
        DiscreteData.from_csv(path, na_values="?")


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("\t", "tab"), ("|", "vertical bar")])
def test_other_delimiters_are_named(tmp_path, sep, name):
    path = tmp_path / "d.csv"
    path.write_text(f"a{sep}b\n1{sep}2\n3{sep}4\n")
    with pytest.raises(InputError, match=f"{name}-separated"):
        DiscreteData.from_csv(path)


@pytest.mark.slow
def test_cli_na_values(tmp_path, causalcal_main):
    (tmp_path / "d.csv").write_text("a,b\nNA,x\n1,y\n2,x\n1,y\n")
    run = causalcal_main("bootstrap", "d.csv", "--out", "p.csv", "--n-boot", "2", "--quiet",
                         "--na-values", "NA,?", cwd=tmp_path)
    assert run.returncode == 2 and "column 'a', row 1: missing value" in run.stderr
    run = causalcal_main("bootstrap", "d.csv", "--out", "p.csv", "--n-boot", "2", "--quiet",
                         "--na-values", "", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
