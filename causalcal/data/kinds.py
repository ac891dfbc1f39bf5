"""Which columns of a table are continuous and which discrete (docs/design.md §3.2).

A score declares the data it takes (:data:`DATA_KINDS`): ``"discrete"`` (BDeu, discrete
BIC: :class:`~causalcal.data.DiscreteData`), ``"continuous"`` (SEM-BIC: every column a
number) or ``"mixed"`` (the degenerate Gaussian: each column detected). A column's kind
is detected from its cells and overridden by name (:class:`ColumnKinds`, the command
line's ``--continuous`` and ``--discrete``). A continuous column is checked here, each
problem one :class:`~causalcal.errors.InputError` naming the column (and row): text in
it, a non-finite or overflowing number, one value in every row, an identifier.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causalcal.data.columns import ID_MIN_ROWS, row_number
from causalcal.errors import InputError

__all__ = ["CONTINUOUS", "DATA_KINDS", "DISCRETE", "MIXED", "DISCRETE_MAX_VALUES", "ColumnKinds",
           "continuous_values", "detect_continuous"]

CONTINUOUS = "continuous"
DISCRETE = "discrete"
MIXED = "mixed"
#: The kinds of data a score takes: all discrete, all continuous, or either per column.
DATA_KINDS = (DISCRETE, CONTINUOUS, MIXED)
#: In mixed data a numeric column with more distinct values than this is continuous, one
#: with at most this many a discrete code (declare either kind by name to override).
DISCRETE_MAX_VALUES = 10
#: A continuous column's values may not exceed this in magnitude: a weighted sum of
#: squares of n ≤ 10⁹ of them stays finite in float64 (10¹⁴⁴ squared is 10²⁸⁸).
LARGEST_VALUE = 1e144


@dataclass(frozen=True)
class ColumnKinds:
    """Columns declared ``continuous`` or ``discrete`` by name; every other column's kind
    is detected. A name given in both, or twice, is an ``InputError``.

    Examples
    --------
    >>> from causalcal.data import ColumnKinds
    >>> ColumnKinds.parse("dose,visits", "region")
    ColumnKinds(continuous=('dose', 'visits'), discrete=('region',))
    """

    continuous: tuple[str, ...] = ()
    discrete: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for field_name in ("continuous", "discrete"):
            names = getattr(self, field_name)
            names = (names,) if isinstance(names, str) else tuple(str(n) for n in names)
            seen = {n for n in names if names.count(n) > 1}
            if seen:
                raise InputError(f"--{field_name}: column {sorted(seen)[0]!r} is given twice")
            object.__setattr__(self, field_name, names)
        both = sorted(set(self.continuous) & set(self.discrete))
        if both:
            raise InputError(f"column {both[0]!r} is declared both continuous and discrete")

    @classmethod
    def parse(cls, continuous: str | Iterable[str] | None = None,
              discrete: str | Iterable[str] | None = None) -> ColumnKinds:
        """From comma-separated names (the command line's ``--continuous a,b``) or lists."""
        return cls(_names(continuous), _names(discrete))

    def check_names(self, columns: Sequence[str]) -> None:
        """An ``InputError`` for a declared name that is no column."""
        for option, names in (("continuous", self.continuous), ("discrete", self.discrete)):
            unknown = [n for n in names if n not in columns]
            if unknown:
                raise InputError(f"--{option}: no column {unknown[0]!r} (the data has "
                                 f"{', '.join(map(repr, list(columns)[:12]))}"
                                 f"{' …' if len(columns) > 12 else ''})")


def _names(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(n.strip() for n in value.split(",") if n.strip())
    return tuple(str(n) for n in value)


def detect_continuous(column: pd.Series, max_values: int = DISCRETE_MAX_VALUES) -> bool:
    """Whether a column of CSV text or values looks continuous: every cell a number and
    more than ``max_values`` distinct numbers (a column with fewer is a discrete code)."""
    if isinstance(column.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(column):
        return False
    numbers = pd.to_numeric(column, errors="coerce")
    if numbers.isna().any():
        return False
    return bool(numbers.nunique() > max_values)


def continuous_values(column: pd.Series, name: str, frame: pd.DataFrame,
                      declared: bool = False) -> np.ndarray:
    """A continuous column's values as float64, checked (docs/design.md §3.2): every cell
    a finite number within ±:data:`LARGEST_VALUE`, at least two distinct values, and —
    unless ``declared`` continuous by name — not integers all distinct (an identifier).
    ``frame`` gives the rows their numbers in messages."""
    absent = column.isna().to_numpy()
    if absent.all():
        raise InputError(f"column {name!r}: every value is missing")
    if absent.any():
        row = row_number(frame, int(np.flatnonzero(absent)[0]))
        raise InputError(f"column {name!r}, row {row}: missing value; causalcal needs "
                         "complete data (or drop such rows: --missing drop)")
    if pd.api.types.is_bool_dtype(column) or isinstance(column.dtype, pd.CategoricalDtype):
        raise InputError(f"column {name!r} is declared continuous but holds categories "
                         f"({column.iloc[0]!r}, row {row_number(frame, 0)})")
    numbers = pd.to_numeric(column, errors="coerce")
    text = numbers.isna().to_numpy()
    if text.any():
        row = int(np.flatnonzero(text)[0])
        how = "is declared continuous" if declared else "is read as continuous"
        raise InputError(f"column {name!r} {how} but row {row_number(frame, row)} holds "
                         f"{column.iloc[row]!r}, not a number; a text column is discrete "
                         "(--discrete, and a score for mixed data: --score dg-bic)")
    values = numbers.to_numpy(dtype=np.float64)
    _check_finite(values, column, name, frame)
    if np.all(values == values[0]):
        raise InputError(f"column {name!r} is constant (every row holds {values[0]:g}): a "
                         f"continuous variable needs variation; leave it out "
                         f"(--drop-columns {name}, drop_columns=[...])")
    if not declared:
        _refuse_identifier(values, name)
    return values


def _check_finite(values: np.ndarray, column: pd.Series, name: str,
                  frame: pd.DataFrame) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        row, cell = int(bad[0]), column.iloc[int(bad[0])]
        if not isinstance(cell, str):
            cell = str(float(cell))
        text = cell.strip().lower().lstrip("+-")
        what = ("a non-finite value" if text in ("inf", "infinity", "nan")
                else "a number beyond float64's range")
        raise InputError(f"column {name!r}, row {row_number(frame, row)}: {cell!r} is {what}")
    big = np.flatnonzero(np.abs(values) > LARGEST_VALUE)
    if len(big):
        row = int(big[0])
        raise InputError(f"column {name!r}, row {row_number(frame, row)}: {values[row]:g} "
                         f"overflows: sums of squares of values beyond ±{LARGEST_VALUE:g} "
                         "are not finite in float64; rescale the column (e.g. its logarithm "
                         "or other units)")


def _refuse_identifier(values: np.ndarray, name: str) -> None:
    """Integers all distinct over at least :data:`ID_MIN_ROWS` rows: a row or subject
    number, unless declared continuous."""
    if len(values) < ID_MIN_ROWS or not np.all(values == np.round(values)):
        return
    if len(np.unique(values)) == len(values):
        raise InputError(f"column {name!r}: all {len(values)} values are distinct integers, "
                         "like an identifier (a row or subject number), not a causal "
                         f"variable; leave it out (--drop-columns {name}) or, if it is a "
                         f"measurement, declare it (--continuous {name})")
