"""Issue 28 point 3: ``--discretize`` is independent of ``--max-arity``, takes per-column
specs and refuses identifier-like columns (docs/design.md §3)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from causalcal.cli import main


@pytest.fixture
def folder(tmp_path) -> Path:
    """A 7-level scale, a continuous x, a binary g and an id column (1001 … 1300)."""
    rng = np.random.default_rng(1)
    n = 300
    x = rng.normal(size=n)
    pd.DataFrame({"id": np.arange(1001, 1001 + n), "scale": np.clip(np.round(x * 2 + 4), 1, 7),
                  "x": x + rng.normal(size=n), "g": rng.integers(0, 2, n)}).to_csv(
        tmp_path / "data.csv", index=False)
    return tmp_path


def bootstrap(capsys, folder: Path, *extra) -> tuple[int, str]:
    """Without --quiet, which silences the lines of bins."""
    code = main(["bootstrap", str(folder / "data.csv"), "--out", str(folder / "p.csv"),
                 "--n-boot", "2", *map(str, extra)])
    return code, capsys.readouterr().err


def bins(err: str, column: str) -> int:
    """The number of bins stderr reports for ``column`` (labels ``< a``, ``[a, b)`` …,
    ``>= z``)."""
    found = re.search(rf"column '{column}': [\w-]+ bins (.*)", err)
    return 0 if found is None else found.group(1).count("[") + 2


def test_bins_do_not_depend_on_max_arity(folder, capsys):
    code, err = bootstrap(capsys, folder, "--discretize", "quantile:3", "--drop-columns", "id")
    assert code == 0, err
    assert bins(err, "scale") == 3 and bins(err, "x") == 3  # a 7-level scale is binned too
    assert bins(err, "g") == 0  # two values: nothing to bin
    code, err = bootstrap(capsys, folder, "--discretize", "quantile:3", "--max-arity", "2",
                          "--drop-columns", "id")
    assert code == 2 and "quantile:3: 3 bins > max_arity=2" in err


def test_per_column_specs_and_a_default(folder, capsys):
    code, err = bootstrap(capsys, folder, "--discretize", "x=uniform:4,quantile:2",
                          "--drop-columns", "id")
    assert code == 0, err
    assert bins(err, "x") == 4 and "column 'x': uniform bins" in err
    assert bins(err, "scale") == 2
    code, err = bootstrap(capsys, folder, "--discretize", "x=uniform:4", "--drop-columns", "id")
    assert code == 0, err
    assert bins(err, "x") == 4 and bins(err, "scale") == 0  # only the column named
    code, err = bootstrap(capsys, folder, "--discretize", "nope=uniform:4")
    assert code == 2 and "no column 'nope'" in err


def test_an_identifier_column_is_refused_by_name(folder, capsys):
    code, err = bootstrap(capsys, folder, "--discretize", "quantile:3")
    assert code == 2 and "column 'id'" in err and "identifier" in err
    assert "--drop-columns id" in err
    assert not (folder / "p.csv").exists()
    code, err = bootstrap(capsys, folder, "--discretize", "quantile:3", "--drop-columns", "id")
    assert code == 0, err
    assert "id" not in pd.read_csv(folder / "p.csv")[["a", "b"]].to_numpy()


@pytest.fixture
def nsw(tmp_path) -> Path:
    """NSW-like: re74 73 % zeros, marital a numeric code, site constant."""
    rng = np.random.default_rng(2)
    n = 300
    re74 = np.where(np.arange(n) < 219, 0.0, np.round(rng.exponential(5000, n), 2) + 1)
    pd.DataFrame({"re74": rng.permutation(re74), "marital": rng.integers(1, 6, n),
                  "x": rng.normal(size=n), "site": 7}).to_csv(tmp_path / "data.csv",
                                                               index=False)
    return tmp_path


def test_a_collapsing_column_is_warned_and_binned_as_asked(nsw, capsys):
    code, err = bootstrap(capsys, nsw, "--discretize", "quantile:3")
    assert code == 0, err
    assert ("causalcal: warning: column 're74': quantile:3 leaves 1 non-empty bin of 3 "
            "(73% of the rows are 0)") in err
    assert bins(err, "re74") == 3 and "column 're74': equal-count bins < " in err
    assert re.search(r"causalcal: warning: constant column \(one value in every row\): "
                     r"'site'", err)


def test_keep_and_cuts_from_the_command_line(nsw, capsys):
    code, err = bootstrap(capsys, nsw, "--discretize",
                          "marital=keep,re74=cuts:1,5000,quantile:3")
    assert code == 0, err
    assert "column 'marital'" not in err  # kept: 5 categories, not binned
    assert "column 're74': given bins < 1 (219 rows), [1, 5000) (" in err
    assert bins(err, "x") == 3
    code, err = bootstrap(capsys, nsw, "--discretize", "re74=cuts:5000,1")
    assert code == 2 and "discretize re74=cuts:5000,1: cut points must increase" in err
    code, err = bootstrap(capsys, nsw, "--discretize", "marital=kept,quantile:3")
    assert code == 2 and "discretize marital=kept" in err


def test_quiet_silences_the_bins_not_the_warnings(nsw, capsys):
    code, err = bootstrap(capsys, nsw, "--discretize", "quantile:3", "--quiet")
    assert code == 0, err
    assert "bins <" not in err and "warning: column 're74'" in err
