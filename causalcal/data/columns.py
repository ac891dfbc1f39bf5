"""Preparing a real data set's columns before they are encoded (docs/design.md §3):
missing values (refused or dropped row-wise) and identifier-like columns (binning is
:mod:`causalcal._binning`). Re-exported by :mod:`causalcal.data`; log messages go to
logger ``causalcal.data``."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causalcal.errors import InputError

log = logging.getLogger("causalcal.data")

#: What to do with missing values: refuse them (naming column and row) or drop their rows.
MISSING_POLICIES = ("error", "drop")
#: A column of integers or text with this many rows or more, all values distinct, looks
#: like an identifier (a row number, a patient id), not a causal variable.
ID_MIN_ROWS = 30
#: The name of the index holding the data's own row numbers once rows are dropped.
ROW_INDEX = "causalcal_row"


def row_number(frame: pd.DataFrame, position: int) -> int:
    """The 1-based row number of the row at ``position``: its place in the data as given,
    also after rows with missing values were dropped.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import row_number
    >>> row_number(pd.DataFrame({"a": [1, 2]}, index=[0, 5]), 1)
    2
    """
    if frame.index.name == ROW_INDEX:
        return int(frame.index[position])
    return position + 1


#: cells that look like a missing-value marker (compared without case and spaces)
MISSING_MARKERS = ("na", "n/a", "?", ".", "nan", "null")


def refuse_missing_markers(frame: pd.DataFrame) -> None:
    """An error naming the first cell (column, 1-based row) that looks like a marker.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import refuse_missing_markers
    >>> refuse_missing_markers(pd.DataFrame({"a": ["1", "NA"]}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    causalcal.errors.InputError: column 'a', row 2: 'NA' looks like a missing value; ...
    """
    for name in frame.columns:
        column = frame[name]
        looks = column.str.strip().str.lower().isin(MISSING_MARKERS).to_numpy()
        if looks.any():
            row = int(np.flatnonzero(looks)[0])
            raise InputError(
                f"column {name!r}, row {row + 1}: {column.iloc[row]!r} looks like a missing "
                "value; causalcal needs complete data. Say which cells mean 'missing' with "
                "--na-values (na_values=[...]), e.g. --na-values NA, or --na-values '' to "
                f"read {column.iloc[row]!r} as a category")


def typed_column(column: pd.Series) -> pd.Series:
    """A column of CSV text as numbers if every cell reads as one and no two different
    spellings denote the same number (``1`` and ``01``, ``1.0``, ``+1``, ``1e0``); else
    the text as written.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import typed_column
    >>> typed_column(pd.Series(["1", "2", "10"])).tolist()
    [1, 2, 10]
    """
    present = column.dropna()
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any() or present.nunique() != numbers.nunique():
        return column
    return pd.to_numeric(column)


#: At most this many dropped rows are listed by number in :func:`missing_summary`.
LISTED_ROWS = 20


@dataclass(frozen=True)
class MissingReport:
    """What ``missing="drop"`` did: ``rows`` in the data, the ``dropped_rows`` (numbered
    from 1 as the data rows below the header) and the missing cells per column.

    Examples
    --------
    >>> from causalcal.data import MissingReport, missing_summary
    >>> report = MissingReport(rows=6, dropped_rows=(2,), columns={"a": 1})
    >>> report.dropped_rows
    (2,)
    """

    rows: int
    dropped_rows: tuple[int, ...]
    columns: dict[str, int]

    @property
    def dropped(self) -> int:
        return len(self.dropped_rows)


def drop_missing(frame: pd.DataFrame,
                 missing: str = "error") -> tuple[pd.DataFrame, MissingReport | None]:
    """``missing="drop"``: the rows of ``frame`` without a missing value (listwise deletion)
    and a :class:`MissingReport`, also logged; the rows keep their numbers in error
    messages. ``"error"``: ``frame`` unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import drop_missing
    >>> frame = pd.DataFrame({"a": [1.0, None, 3.0, 4.0, 5.0, 6.0], "b": list("xyxyxy")})
    >>> kept, report = drop_missing(frame, "drop")
    >>> kept.shape, report
    ((5, 2), MissingReport(rows=6, dropped_rows=(2,), columns={'a': 1}))
    """
    if missing not in MISSING_POLICIES:
        raise InputError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got "
                         f"{missing!r}")
    if missing == "error":
        return frame, None
    absent = frame.isna()
    keep = ~absent.any(axis=1).to_numpy()
    counts = {str(c): int(n) for c, n in absent.sum().items() if n}
    dropped = tuple(row_number(frame, int(k)) for k in np.flatnonzero(~keep))
    report = MissingReport(len(frame), dropped, counts)
    if report.dropped:
        log.info("%s", missing_summary(report))
    out = frame[keep].copy()
    out.index = pd.Index([row_number(frame, int(k)) for k in np.flatnonzero(keep)],
                         name=ROW_INDEX)
    if len(out) < 2:
        raise InputError(f"{len(out)} of {len(frame)} rows are complete; dropping the rows "
                         "with missing values leaves too few")
    return out, report


def missing_summary(report: MissingReport) -> str:
    """One line of :func:`drop_missing`'s report: counts, the rows dropped (the first
    :data:`LISTED_ROWS`, then how many more) and the missing cells per column.

    Examples
    --------
    >>> from causalcal.data import MissingReport, missing_summary
    >>> missing_summary(MissingReport(rows=6, dropped_rows=(2,), columns={"a": 1}))
    'missing values: dropped 1 of 6 rows (listwise deletion): row 2; missing cells per column: a 1'
    """
    per = ", ".join(f"{c} {n}" for c, n in report.columns.items()) or "none"
    rows = ""
    if report.dropped:
        listed = ", ".join(map(str, report.dropped_rows[:LISTED_ROWS]))
        more = report.dropped - LISTED_ROWS
        rows = f": row{'s' * (report.dropped > 1)} {listed}" + (
            f" and {more} more" if more > 0 else "")
    return (f"missing values: dropped {report.dropped} of {report.rows} rows "
            f"(listwise deletion){rows}; missing cells per column: {per}")


def without_columns(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """``frame`` without the columns ``names`` (``--drop-columns``); a name that is no
    column is an ``InputError``.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import without_columns
    >>> without_columns(pd.DataFrame({"id": [1, 2], "a": [0, 1]}), ["id"]).columns.tolist()
    ['a']
    """
    unknown = [n for n in names if n not in frame.columns]
    if unknown:
        raise InputError(f"drop columns: no column {unknown[0]!r}")
    return frame.drop(columns=list(names))


def refuse_identifier(column: pd.Series, name: str) -> None:
    """An error if ``column`` looks like an identifier: integers or text, every value
    distinct, at least :data:`ID_MIN_ROWS` rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import refuse_identifier
    >>> refuse_identifier(pd.Series([f"p{k}" for k in range(30)]), "id")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    causalcal.errors.InputError: column 'id': all 30 values are distinct, like an identifier ...
    """
    values = column.dropna()
    if len(values) < ID_MIN_ROWS or values.nunique() != len(values):
        return
    if pd.api.types.is_numeric_dtype(values) and not np.all(values == np.round(values)):
        return  # measurements: distinct by nature
    raise InputError(f"column {name!r}: all {len(values)} values are distinct, like an "
                     "identifier (a row or subject number), not a causal variable; leave "
                     f"it out (--drop-columns {name}, drop_columns=[...]) or, if it is a "
                     f"measurement, bin it by name (--discretize {name}=quantile:3)")
