"""The Sachs condition labels and the change-point scan
(studies/discover_known/sachs_conditions.py; issue 40 item 4) on synthetic stacked files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.errors import InputError
from studies.discover_known.sachs_conditions import (
    SACHS_CONDITIONS,
    boundaries,
    change_points,
    label_conditions,
    main,
)


def stacked(sizes, seed=0) -> pd.DataFrame:
    """Positive measurements whose log-means shift by block."""
    rng = np.random.default_rng(seed)
    shifts = rng.normal(0, 1.0, (len(sizes), 3))
    logs = np.vstack([rng.normal(s, 1.0, (n, 3)) for n, s in zip(sizes, shifts)])
    return pd.DataFrame(np.exp(logs), columns=["a", "b", "c"])


def test_labels_number_the_blocks_in_order():
    frame = stacked((3, 5, 2))
    out = label_conditions(frame, (3, 5, 2))
    assert out["condition"].tolist() == [0] * 3 + [1] * 5 + [2] * 2
    pd.testing.assert_frame_equal(out.drop(columns="condition"), frame)
    assert "condition" not in frame  # the input is left alone


@pytest.mark.parametrize("sizes, message", [((3, 5), "add up to 8 rows, the data has 10"),
                                             ((3, 0, 7), "must be positive")])
def test_sizes_must_cover_the_rows(sizes, message):
    with pytest.raises(InputError, match=message):
        label_conditions(stacked((3, 5, 2)), sizes)


def test_an_existing_condition_column_is_refused():
    with pytest.raises(InputError, match="already has a column 'condition'"):
        label_conditions(stacked((3, 7)).assign(condition=1), (3, 7))


def test_change_points_find_the_blocks():
    sizes = (120, 90, 150, 80)
    assert change_points(stacked(sizes, seed=3), len(sizes)).tolist() == \
        boundaries(sizes).tolist() == [120, 210, 360]


def test_the_sachs_sizes_add_up_and_the_script_writes_a_new_file(tmp_path, capsys):
    assert sum(c.rows for c in SACHS_CONDITIONS) == 7466
    sizes = tuple(c.rows for c in SACHS_CONDITIONS)
    source = tmp_path / "stacked.csv"
    stacked(sizes).to_csv(source, index=False)
    assert main([str(tmp_path / "out.csv"), "--data", str(source)]) == 0
    out = pd.read_csv(tmp_path / "out.csv")
    assert np.bincount(out["condition"]).tolist() == list(sizes)
    assert "condition" not in pd.read_csv(source)
    with pytest.raises(SystemExit):
        main([str(source), "--data", str(source)])
    assert "must not be the input" in capsys.readouterr().err
