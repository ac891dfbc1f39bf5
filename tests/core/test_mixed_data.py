"""MixedData: continuous and discrete columns read, detected, checked (docs/design.md §3.2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.data import ColumnKinds, DiscreteData, MixedData
from causalcal.errors import InputError


def _write(tmp_path, frame: pd.DataFrame, name="d.csv", text: str | None = None):
    path = tmp_path / name
    if text is None:
        frame.to_csv(path, index=False)
    else:
        path.write_text(text)
    return path


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({
        "age": rng.normal(50, 10, n).round(3),
        "sex": rng.choice(["f", "m"], n),
        "stage": rng.integers(1, 4, n),
        "dose": rng.exponential(2.0, n),
        "grade": np.arange(n) % 15,
    })


def test_kinds_detected_and_overridden(tmp_path, table):
    path = _write(tmp_path, table)
    data = MixedData.from_csv(path)
    assert data.kind == "mixed"
    assert data.is_continuous.tolist() == [True, False, False, True, True]
    assert data.categories[1] == ["f", "m"] and data.categories[2] == [1, 2, 3]
    assert data.arities.tolist() == [0, 2, 3, 0, 0]
    np.testing.assert_array_equal(data.values[:, 0], table["age"].to_numpy())
    over = MixedData.from_csv(path, kinds=ColumnKinds.parse(continuous="stage",
                                                            discrete=["grade"]))
    assert over.is_continuous.tolist() == [True, False, True, True, False]
    assert over.arities[-1] == 15
    np.testing.assert_array_equal(over.values[:, 1], table["stage"].to_numpy(float))


def test_round_trip_and_discrete_part(tmp_path, table):
    data = MixedData.from_csv(_write(tmp_path, table))
    data.to_csv(tmp_path / "back.csv")
    again = MixedData.from_csv(tmp_path / "back.csv")
    assert again == data
    part = data.discrete_part()
    assert isinstance(part, DiscreteData) and part.names == ["sex", "stage"]


def test_continuous_kind_reads_every_column_as_numbers(tmp_path, table):
    numeric = table.drop(columns="sex")
    data = MixedData.from_csv(_write(tmp_path, numeric), data_kind="continuous")
    assert data.kind == "continuous" and data.values.shape == (60, 4)
    with pytest.raises(InputError, match=r"column 'sex' is read as continuous but row 1 "
                                         r"holds '[fm]', not a number.*dg-bic"):
        MixedData.from_csv(_write(tmp_path, table, "t.csv"), data_kind="continuous")
    with pytest.raises(InputError, match="'stage' is declared discrete.*dg-bic"):
        MixedData.from_csv(_write(tmp_path, numeric, "u.csv"), data_kind="continuous",
                           kinds=ColumnKinds(discrete=("stage",)))


@pytest.mark.parametrize("cell, message", [
    ("", r"column 'dose', row 3: missing value"),
    ("inf", r"column 'dose', row 3: 'inf' is a non-finite value"),
    ("1e400", r"column 'dose', row 3: '1e400' is a number beyond float64's range"),
    ("1e200", r"column 'dose', row 3: 1e\+200 overflows"),
])
def test_bad_continuous_cells_named(tmp_path, table, cell, message):
    text = table.to_csv(index=False).splitlines()
    fields = text[3].split(",")
    fields[3] = cell
    text[3] = ",".join(fields)
    path = _write(tmp_path, table, text="\n".join(text) + "\n")
    with pytest.raises(InputError, match=message):
        MixedData.from_csv(path)


def test_text_declared_continuous(tmp_path, table):
    with pytest.raises(InputError, match=r"column 'sex' is declared continuous but row 1 "
                                         r"holds '[fm]', not a number"):
        MixedData.from_csv(_write(tmp_path, table), kinds=ColumnKinds(continuous=("sex",)))


def test_constant_all_missing_identifier(tmp_path, table):
    const = table.assign(dose=2.5)
    with pytest.raises(InputError, match=r"column 'dose' is constant \(every row holds 2.5\)"):
        MixedData.from_frame(const, kinds=ColumnKinds(continuous=("dose",)))
    empty = table.assign(dose=np.nan)
    with pytest.raises(InputError, match="column 'dose': every value is missing"):
        MixedData.from_frame(empty, missing="drop")
    ids = table.assign(subject=np.arange(1000, 1060))
    with pytest.raises(InputError, match=r"column 'subject': all 60 values are distinct "
                                         r"integers.*--continuous subject"):
        MixedData.from_frame(ids)
    kept = MixedData.from_frame(ids, kinds=ColumnKinds(continuous=("subject",)))
    assert kept.is_continuous[-1]


def test_missing_drop_keeps_row_numbers(tmp_path, table):
    frame = table.copy()
    frame.loc[4, "age"] = np.nan
    data = MixedData.from_frame(frame, missing="drop")
    assert data.n_samples == 59 and data.missing_report.dropped_rows == (5,)


def test_context_columns_discrete_and_binning_opt_in(tmp_path, table):
    frame = table.assign(condition=np.repeat(np.arange(30), 2))  # 30 values: would be continuous
    path = _write(tmp_path, frame)
    data = MixedData.from_csv(path, keep_discrete=["condition"], max_arity=40)
    assert not data.is_continuous[-1] and data.arities[-1] == 30
    binned = MixedData.from_csv(path, discretize_bins="quantile:3", keep_discrete=["condition"],
                                kinds=ColumnKinds(continuous=("dose",)), max_arity=40)
    assert binned.is_continuous.tolist() == [False, False, False, True, False, False]
    assert binned.arities[0] == 3 and binned.arities[-1] == 30
    with pytest.raises(InputError, match="context column"):
        MixedData.from_csv(path, keep_discrete=["condition"],
                           kinds=ColumnKinds(continuous=("condition",)))


def test_unknown_and_contradicting_names(table):
    with pytest.raises(InputError, match="--continuous: no column 'weight'"):
        MixedData.from_frame(table, kinds=ColumnKinds(continuous=("weight",)))
    with pytest.raises(InputError, match="'age' is declared both continuous and discrete"):
        ColumnKinds(continuous=("age",), discrete=("age",))


def test_from_values():
    rng = np.random.default_rng(1)
    data = MixedData.from_values(rng.normal(size=(50, 3)), ["a", "b", "c"])
    assert data.kind == "continuous" and data.names == ["a", "b", "c"]
    assert data.n_samples == 50 and data.n_vars == 3
    np.testing.assert_array_equal(data.numeric(), data.values)
