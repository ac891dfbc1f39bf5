"""Discrete data: integer codes, variable names, arities, category labels (docs/design.md §3)."""

from __future__ import annotations

import os
import unicodedata
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcal._io import atomic_write, read_csv_file
from causalcal._validation import check_unique_names, warn_formula_names
from causalcal.data.binning import (
    BinSpec,
    Discretization,
    Keep,
    discretize_by,
    parse_discretize,
)
from causalcal.data.columns import (
    MissingReport,
    drop_missing,
    refuse_identifier,
    refuse_missing_markers,
    row_number,
    typed_column,
    without_columns,
)
from causalcal.errors import DataWarning, InputError

__all__ = ["DEFAULT_MAX_ARITY", "DiscreteData", "check_column_names", "smallest_int_dtype",
           "warn_constant"]

DEFAULT_MAX_ARITY = 20


def _check_kept(frame: pd.DataFrame, spec: Discretization, max_arity: int) -> None:
    """Refuse a column kept as its values (``NAME=keep``; the command line's context
    columns) with more values than ``max_arity``, saying that binning is not the way."""
    for name, rule in spec.columns.items():
        if isinstance(rule, Keep) and name in frame.columns:
            count = frame[name].nunique()
            if count > max_arity:
                raise InputError(f"column {name!r}: {count} distinct values > max_arity="
                                 f"{max_arity}; it is kept as its values, never binned (a "
                                 "context column, or NAME=keep): recode it into at most "
                                 f"{max_arity} values, or raise max_arity (--max-arity)")


def smallest_int_dtype(max_value: int) -> np.dtype:
    """The smallest unsigned integer dtype holding ``0 … max_value``.

    Examples
    --------
    >>> from causalcal.data import smallest_int_dtype
    >>> smallest_int_dtype(200), smallest_int_dtype(300)
    (dtype('uint8'), dtype('uint16'))
    """
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_value <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _categorical_codes(column: pd.Series, name: str, max_arity: int) -> tuple[np.ndarray, list]:
    """Codes and labels of a pandas Categorical column: its categories in their order."""
    labels = column.cat.categories.tolist()
    codes = column.cat.codes.to_numpy(np.int64)
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0]) + 1
        raise InputError(f"column {name!r}, row {row}: missing value")
    if len(labels) > max_arity:
        raise InputError(f"column {name!r}: {len(labels)} categories > max_arity={max_arity}; "
                         "has too many categories")
    return codes, labels


class DiscreteData:
    """An n × V table of discrete observations stored as integer codes.

    ``codes[r, v]`` is in ``0 … arities[v] − 1``; ``categories[v][c]`` is the original
    label of code ``c`` of variable ``v``. Build it with :meth:`from_array`,
    :meth:`from_frame` or :meth:`from_csv`, which validate the input; the
    constructor trusts codes it is given (as the simulator's are) but checks ranges.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import DiscreteData
    >>> data = DiscreteData.from_frame(pd.DataFrame({"smoker": ["yes", "no", "yes"],
    ...                                              "stage": [1, 2, 3]}))
    >>> data
    DiscreteData(n_samples=3, n_vars=2)
    >>> data.arities.tolist(), data.categories
    ([2, 3], [['no', 'yes'], [1, 2, 3]])
    """

    def __init__(
        self,
        codes: np.ndarray,
        names: Sequence[str] | None = None,
        arities: Sequence[int] | None = None,
        categories: Sequence[Sequence[Any]] | None = None,
    ) -> None:
        codes = np.asarray(codes)
        if codes.ndim != 2:
            raise InputError(f"codes must be a 2-d array, got shape {codes.shape}")
        if not np.issubdtype(codes.dtype, np.integer):
            raise InputError(f"codes must be integers, got dtype {codes.dtype}")
        n, v = codes.shape
        names = [f"X{k}" for k in range(v)] if names is None else [str(x) for x in names]
        if len(names) != v:
            raise InputError(f"{len(names)} names for {v} columns")
        check_unique_names(names, "column name")
        if v and codes.size and codes.min() < 0:
            col = int(np.argwhere(codes < 0)[0, 1])
            raise InputError(f"column {names[col]!r}: negative code")
        observed = codes.max(axis=0).astype(np.int64) + 1 if n else np.ones(v, np.int64)
        if arities is None:
            arities = observed
        arities = np.asarray(arities, dtype=np.int64)
        if arities.shape != (v,):
            raise InputError(f"{len(arities)} arities for {v} columns")
        over = np.flatnonzero(observed > arities)
        if len(over):
            raise InputError(
                f"column {names[over[0]]!r}: code {observed[over[0]] - 1} "
                f"outside arity {arities[over[0]]}"
            )
        if categories is None:
            categories = [list(range(a)) for a in arities]
        categories = [list(c) for c in categories]
        if len(categories) != v or any(len(c) != a for c, a in zip(categories, arities)):
            raise InputError("categories must list one label per code of every column")
        self.codes = codes.astype(smallest_int_dtype(int(max(arities.max(initial=1), 1))))
        self.names = names
        self.arities = arities
        self.categories = categories
        #: rows dropped for missing values by ``missing="drop"`` (see :func:`drop_missing`)
        self.missing_report: MissingReport | None = None

    # ---------------------------------------------------------------- shape
    @property
    def n_samples(self) -> int:
        return self.codes.shape[0]

    @property
    def n_vars(self) -> int:
        return self.codes.shape[1]

    def __repr__(self) -> str:
        return f"DiscreteData(n_samples={self.n_samples}, n_vars={self.n_vars})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DiscreteData):
            return NotImplemented
        return (
            self.names == other.names
            and np.array_equal(self.arities, other.arities)
            and np.array_equal(self.codes, other.codes)
            and [list(map(str, c)) for c in self.categories]
            == [list(map(str, c)) for c in other.categories]
        )

    def in_order(self, names: Sequence[str]) -> DiscreteData:
        """The same data with the columns in the order of ``names`` (the same names)."""
        order = [self.index(str(n)) for n in names]
        if sorted(order) != list(range(self.n_vars)):
            raise InputError(f"{len(names)} names for the data's {self.n_vars} columns")
        out = DiscreteData(self.codes[:, order], [self.names[k] for k in order],
                           self.arities[order], [self.categories[k] for k in order])
        out.missing_report = self.missing_report
        return out

    def index(self, name: str) -> int:
        """Column position of variable ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no variable named {name!r}") from None

    # ------------------------------------------------------------ builders
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, max_arity: int = DEFAULT_MAX_ARITY,
                   missing: str = "error") -> DiscreteData:
        """Validate and encode a DataFrame; each column's sorted distinct values become codes.

        A pandas ``Categorical`` column keeps its categories in their declared order
        (an ordered one its order), unused ones included: they count in the arity. A
        constant column (one value in every row) is named in a ``DataWarning``.

        Errors (``InputError``, naming the column and, where it applies, the row):
        fewer than 2 rows; a missing value; a non-finite number; a numeric column
        with more than ``max_arity`` distinct values ("looks continuous"); a text
        column with more than ``max_arity`` categories; a column name holding a control
        character. Rows are counted from 1 in data order, as a spreadsheet numbers the
        data rows below a header (a CSV's row ``r`` is on line ``r + 1``). A name starting
        with ``=``, ``+``, ``-`` or ``@`` is warned about: spreadsheet programs read such a
        cell of an output CSV as a formula. ``missing="drop"`` drops every row holding a
        missing value first (listwise deletion; reported in ``missing_report``).
        """
        frame, report = drop_missing(frame, missing)
        if frame.shape[0] < 2:
            raise InputError(f"need at least 2 rows of data, got {frame.shape[0]}")
        if frame.shape[1] < 1:
            raise InputError("data has no columns")
        names = check_column_names([str(c) for c in frame.columns])
        codes = np.empty(frame.shape, dtype=np.int64)
        categories: list[list[Any]] = []
        for k, name in enumerate(names):
            column = frame.iloc[:, k]
            if isinstance(column.dtype, pd.CategoricalDtype):
                codes[:, k], labels = _categorical_codes(column, name, max_arity)
                categories.append(labels)
                continue
            if column.dtype == object:
                # numbers held as Python objects (e.g. from an object array) are numbers:
                # sort them numerically and check them for non-finite values
                column = column.infer_objects()
            absent = column.isna().to_numpy()
            if absent.any():
                row = row_number(frame, int(np.flatnonzero(absent)[0]))
                raise InputError(f"column {name!r}, row {row}: missing value; causalcal needs "
                                 "complete data (or drop such rows: --missing drop)")
            values = column.to_numpy()
            numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(
                column
            )
            if numeric:
                values = values.astype(np.float64)
                bad = ~np.isfinite(values)
                if bad.any():
                    row = int(np.flatnonzero(bad)[0])
                    raise InputError(f"column {name!r}, row {row_number(frame, row)}: "
                                     f"non-finite value {values[row]}")
            labels, inverse = np.unique(values if numeric else values.astype(str),
                                        return_inverse=True)
            if len(labels) > max_arity:
                refuse_identifier(column, name)
                what = (
                    "looks continuous, discretize it first (--discretize) or search it "
                    "unbinned (--score sem-bic, or dg-bic for mixed data)"
                    if numeric
                    else "has too many categories"
                )
                raise InputError(
                    f"column {name!r}: {len(labels)} distinct values > max_arity={max_arity}; "
                    f"{what}"
                )
            if numeric and np.all(labels == np.round(labels)):
                labels = labels.astype(np.int64)
            codes[:, k] = inverse.reshape(-1)
            categories.append(labels.tolist())
        arities = [max(len(c), 1) for c in categories]
        warn_constant(names, codes)
        data = cls(codes, names, arities, categories)
        data.missing_report = report
        return data

    @classmethod
    def from_array(
        cls,
        array: np.ndarray,
        names: Sequence[str] | None = None,
        max_arity: int = DEFAULT_MAX_ARITY,
    ) -> DiscreteData:
        """Validate and encode a 2-d numpy array (numbers or strings), as :meth:`from_frame`."""
        array = np.asarray(array)
        if array.ndim != 2:
            raise InputError(f"data must be a 2-d array, got shape {array.shape}")
        if names is None:
            names = [f"X{k}" for k in range(array.shape[1])]
        if len(names) != array.shape[1]:
            raise InputError(f"{len(names)} names for {array.shape[1]} columns")
        return cls.from_frame(pd.DataFrame(array, columns=list(names)), max_arity=max_arity)

    @classmethod
    def from_csv(
        cls, path: str | os.PathLike, max_arity: int = DEFAULT_MAX_ARITY,
        na_values: Sequence[str] | None = None,
        discretize_bins: Discretization | tuple[str, int] | Mapping[str | None, BinSpec | str]
        | str | None = None,
        missing: str = "error",
        drop_columns: Sequence[str] = (),
    ) -> DiscreteData:
        """Read a comma-separated UTF-8 file with a header row and encode it as
        :meth:`from_frame` (docs/design.md §3).

        Categories are the cells as written: ``01`` and ``1``, ``True`` and ``true`` are
        different categories. A column whose every cell reads as a number, no two
        spellings of the same number among them, is numeric: sorted by value, and with
        more than ``max_arity`` distinct values continuous (refused, or binned by
        ``discretize_bins``: ``(method, n_bins)`` for every numeric column with more than
        ``n_bins`` values, or per column ``METHOD:K``, ``keep`` or ``cuts:A,B``, see
        :func:`parse_discretize` and :func:`discretize`). A column of
        integers or text whose every value is distinct (an identifier) is refused unless
        binned by name; ``drop_columns`` leaves columns out.

        An empty cell is a missing value, an error naming the column and row (data rows
        counted from 1), or with ``missing="drop"`` its row is dropped (listwise deletion,
        reported in ``missing_report`` and logged). So is a cell that looks like a
        missing-value marker (``NA``, ``N/A``, ``?``, ``.``, ``nan``, ``NULL``) unless
        ``na_values`` is given: then the markers it lists are missing values and every
        other cell is a category (``na_values=[]`` keeps a category called ``NA``). Every
        problem is an ``InputError`` (a ``ValueError``) naming the file: empty, not UTF-8
        text, another delimiter (named), duplicate or empty column names, a first line of
        numbers (no header row), ragged rows, and :meth:`from_frame`'s."""
        if isinstance(na_values, str):
            na_values = [na_values]
        markers = ["", *map(str, na_values or ())]
        spec = parse_discretize(discretize_bins, max_arity)
        _, frame = read_csv_file(path, dtype=str, keep_default_na=False, na_values=markers)
        try:
            frame = without_columns(frame, drop_columns)
            if na_values is None:
                refuse_missing_markers(frame)
            frame, report = drop_missing(frame, missing)
            frame = discretize_by(frame.apply(typed_column), spec)
            _check_kept(frame, spec, max_arity)
            data = cls.from_frame(frame, max_arity=max_arity)
        except ValueError as err:
            raise InputError(f"{path}: {err}") from None
        data.missing_report = report
        return data

    # ------------------------------------------------------------- exports
    def to_frame(self, labels: bool = True) -> pd.DataFrame:
        """The data as a DataFrame of original labels (or of codes if ``labels=False``)."""
        if not labels:
            return pd.DataFrame(self.codes, columns=self.names)
        columns = {
            name: np.asarray(self.categories[k], dtype=object)[self.codes[:, k]]
            for k, name in enumerate(self.names)
        }
        return pd.DataFrame(columns)

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write the labels as CSV with a header row (atomically)."""
        with atomic_write(path, newline="", encoding="utf-8") as handle:
            self.to_frame().to_csv(handle, index=False)


def warn_constant(names: list[str], codes: np.ndarray) -> None:
    """A ``DataWarning`` naming the columns whose rows all hold one value: they carry no
    information, and no search finds an edge at them.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from causalcal.data import warn_constant
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_constant(["a", "b"], np.array([[0, 1], [0, 0]]))
    >>> str(caught[0].message)  # doctest: +ELLIPSIS
    "constant column (one value in every row): 'a'; ..."
    """
    same = [name for k, name in enumerate(names) if (codes[:, k] == codes[0, k]).all()]
    if same:
        warnings.warn(f"constant column{'s' * (len(same) > 1)} (one value in every row): "
                      f"{', '.join(map(repr, same))}; no edge can be found at "
                      f"{'them' if len(same) > 1 else 'it'}; leave "
                      f"{'them' if len(same) > 1 else 'it'} out (--drop-columns, "
                      "drop_columns=[...])", DataWarning, stacklevel=4)


def check_column_names(names: list[str]) -> list[str]:
    """Refuse names holding control characters (a carriage return, a tab, ...); warn about
    names a spreadsheet program would read as a formula.

    Examples
    --------
    >>> from causalcal.data import check_column_names
    >>> check_column_names(["age", "bmi"])
    ['age', 'bmi']
    >>> check_column_names(["age", "b\\tc"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    causalcal.errors.InputError: column 2 ('b\\tc'): the name holds the control character ...
    """
    for k, name in enumerate(names):
        bad = [c for c in name if unicodedata.category(c) == "Cc"]
        if bad:
            raise InputError(f"column {k + 1} ({name!r}): the name holds the control "
                             f"character {bad[0]!r}; rename the column")
    warn_formula_names(names)
    return names


