"""Discrete data: integer codes, variable names, arities, category labels (docs/design.md §3)."""

from __future__ import annotations

import logging
import os
import unicodedata
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcal._io import atomic_write, read_csv_file
from causalcal._validation import check_unique_names, warn_formula_names
from causalcal.errors import InputError

__all__ = ["DISCRETIZE_METHODS", "DiscreteData", "discretize", "smallest_int_dtype"]

DEFAULT_MAX_ARITY = 20
#: ``discretize`` methods: scikit-learn's ``KBinsDiscretizer`` strategies.
DISCRETIZE_METHODS = ("quantile", "uniform", "kmeans")
log = logging.getLogger(__name__)


def smallest_int_dtype(max_value: int) -> np.dtype:
    """The smallest unsigned integer dtype holding ``0 … max_value``."""
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

    def index(self, name: str) -> int:
        """Column position of variable ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no variable named {name!r}") from None

    # ------------------------------------------------------------ builders
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, max_arity: int = DEFAULT_MAX_ARITY) -> DiscreteData:
        """Validate and encode a DataFrame; each column's sorted distinct values become codes.

        A pandas ``Categorical`` column keeps its categories in their declared order
        (an ordered one its order), unused ones included: they count in the arity.

        Errors (``InputError``, naming the column and, where it applies, the row):
        fewer than 2 rows; a missing value; a non-finite number; a numeric column
        with more than ``max_arity`` distinct values ("looks continuous"); a text
        column with more than ``max_arity`` categories; a column name holding a control
        character. Rows are counted from 1 in data order, as a spreadsheet numbers the
        data rows below a header (a CSV's row ``r`` is on line ``r + 1``). A name starting
        with ``=``, ``+``, ``-`` or ``@`` is warned about: spreadsheet programs read such a
        cell of an output CSV as a formula.
        """
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
            missing = column.isna().to_numpy()
            if missing.any():
                row = int(np.flatnonzero(missing)[0]) + 1
                raise InputError(f"column {name!r}, row {row}: missing value")
            values = column.to_numpy()
            numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(
                column
            )
            if numeric:
                values = values.astype(np.float64)
                bad = ~np.isfinite(values)
                if bad.any():
                    row = int(np.flatnonzero(bad)[0])
                    raise InputError(f"column {name!r}, row {row + 1}: non-finite value "
                                     f"{values[row]}")
            labels, inverse = np.unique(values if numeric else values.astype(str),
                                        return_inverse=True)
            if len(labels) > max_arity:
                what = (
                    "looks continuous, discretize it first"
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
        return cls(codes, names, arities, categories)

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
        discretize_bins: tuple[str, int] | None = None,
    ) -> DiscreteData:
        """Read a comma-separated UTF-8 file with a header row and encode it as
        :meth:`from_frame`.

        Categories are the cells as written: ``01`` and ``1``, ``True`` and ``true`` are
        different categories. A column whose every cell reads as a number, no two
        spellings of the same number among them, is numeric: sorted by value, and with
        more than ``max_arity`` distinct values continuous (refused, or binned with
        ``discretize_bins=(method, n_bins)``, see :func:`discretize`).

        An empty cell is a missing value, an error naming the column and row (data rows
        counted from 1). So is a cell that looks like a missing-value marker (``NA``,
        ``N/A``, ``?``, ``.``, ``nan``, ``NULL``) unless ``na_values`` is given: then the
        markers it lists are missing values and every other cell is a category
        (``na_values=[]`` keeps a category called ``NA``). Every problem is an
        ``InputError`` (a ``ValueError``) naming the file: empty, not UTF-8 text, another
        delimiter (named), duplicate or empty column names, a first line of numbers (no
        header row), ragged rows, and :meth:`from_frame`'s."""
        if isinstance(na_values, str):
            na_values = [na_values]
        markers = ["", *map(str, na_values or ())]
        _, frame = read_csv_file(path, dtype=str, keep_default_na=False, na_values=markers)
        try:
            if na_values is None:
                _refuse_missing_markers(frame)
            frame = frame.apply(_typed_column)
            if discretize_bins is not None:
                frame = discretize(frame, *discretize_bins, max_arity=max_arity)
            return cls.from_frame(frame, max_arity=max_arity)
        except ValueError as err:
            raise InputError(f"{path}: {err}") from None

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


#: cells that look like a missing-value marker (compared without case and spaces)
MISSING_MARKERS = ("na", "n/a", "?", ".", "nan", "null")


def _refuse_missing_markers(frame: pd.DataFrame) -> None:
    """An error naming the first cell (column, 1-based row) that looks like a marker."""
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


def _typed_column(column: pd.Series) -> pd.Series:
    """A column of CSV text as numbers if every cell reads as one and no two different
    spellings denote the same number (``1`` and ``01``, ``1.0``, ``+1``, ``1e0``); else
    the text as written."""
    present = column.dropna()
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any() or present.nunique() != numbers.nunique():
        return column
    return pd.to_numeric(column)


def check_column_names(names: list[str]) -> list[str]:
    """Refuse names holding control characters (a carriage return, a tab, ...); warn about
    names a spreadsheet program would read as a formula."""
    for k, name in enumerate(names):
        bad = [c for c in name if unicodedata.category(c) == "Cc"]
        if bad:
            raise InputError(f"column {k + 1} ({name!r}): the name holds the control "
                             f"character {bad[0]!r}; rename the column")
    warn_formula_names(names)
    return names


def discretize(
    frame: pd.DataFrame,
    method: str = "quantile",
    n_bins: int = 3,
    *,
    columns: Sequence[str] | None = None,
    max_arity: int = DEFAULT_MAX_ARITY,
) -> pd.DataFrame:
    """Bin continuous columns into ``n_bins`` ordered categories (scikit-learn's
    ``KBinsDiscretizer``: ``method`` ``"quantile"`` = equal-frequency, ``"uniform"`` =
    equal-width, ``"kmeans"`` = 1-d k-means).

    ``columns`` defaults to the numeric columns with more than ``max_arity`` distinct
    values (those :meth:`DiscreteData.from_frame` refuses as continuous); the others are
    kept. A binned column becomes an ordered ``Categorical`` labelled by its bins
    (``< 0.25``, ``[0.25, 1.5)``, ``>= 1.5``); the edges chosen are logged (logger
    ``causalcal.data``) and kept in ``result.attrs["bin_edges"]``. Fewer bins come out
    where values repeat (scikit-learn drops bins of zero width). Missing values are
    an error naming the column.
    """
    from sklearn.preprocessing import KBinsDiscretizer

    if method not in DISCRETIZE_METHODS:
        raise InputError(f"unknown discretization method {method!r}; use one of "
                         f"{', '.join(DISCRETIZE_METHODS)}")
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise InputError(f"n_bins must be an integer of at least 2, got {n_bins!r}")
    if columns is None:
        columns = [c for c in frame.columns if _looks_continuous(frame[c], max_arity)]
    unknown = [c for c in columns if c not in frame.columns]
    if unknown:
        raise InputError(f"discretize: no column {unknown[0]!r}")
    out = frame.copy()
    edges_of: dict[str, list[float]] = {}
    for name in columns:
        values = pd.to_numeric(frame[name], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            cell = frame[name].iloc[row]
            what = "missing value" if pd.isna(cell) else f"{cell!r} is not a finite number"
            raise InputError(f"column {name!r}, row {row + 1}: {what}; cannot discretize it")
        binner = KBinsDiscretizer(n_bins=int(n_bins), encode="ordinal", strategy=method,
                                  subsample=None)
        with warnings.catch_warnings():  # "bins whose width are too small" are dropped
            warnings.simplefilter("ignore", UserWarning)
            codes = binner.fit_transform(values.reshape(-1, 1)).ravel().astype(np.int64)
        edges = binner.bin_edges_[0].tolist()
        labels = _bin_labels(edges)
        out[name] = pd.Categorical.from_codes(codes, categories=labels, ordered=True)
        edges_of[str(name)] = edges
        log.info("column %r: %s bins %s", str(name), method, ", ".join(labels))
    out.attrs["bin_edges"] = edges_of
    return out


def _looks_continuous(column: pd.Series, max_arity: int) -> bool:
    if isinstance(column.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(column):
        return False
    return pd.api.types.is_numeric_dtype(column) and column.nunique() > max_arity


def _bin_labels(edges: list[float]) -> list[str]:
    """``< e1``, ``[e1, e2)``, …, ``>= e_last`` with as many digits as keep them apart."""
    inner = edges[1:-1]
    if not inner:
        return ["all"]
    for digits in range(3, 18):
        shown = [f"{e:.{digits}g}" for e in inner]
        if len(set(shown)) == len(shown):
            break
    return ([f"< {shown[0]}"] + [f"[{a}, {b})" for a, b in zip(shown[:-1], shown[1:])]
            + [f">= {shown[-1]}"])
