"""Discrete data: integer codes, variable names, arities, category labels (docs/design.md §3)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcal._io import atomic_write, read_csv_file
from causalcal.errors import InputError

__all__ = ["DiscreteData", "smallest_int_dtype"]

DEFAULT_MAX_ARITY = 20


def smallest_int_dtype(max_value: int) -> np.dtype:
    """The smallest unsigned integer dtype holding ``0 … max_value``."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_value <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


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
            raise ValueError(f"codes must be a 2-d array, got shape {codes.shape}")
        if not np.issubdtype(codes.dtype, np.integer):
            raise ValueError(f"codes must be integers, got dtype {codes.dtype}")
        n, v = codes.shape
        names = [f"X{k}" for k in range(v)] if names is None else [str(x) for x in names]
        if len(names) != v:
            raise ValueError(f"{len(names)} names for {v} columns")
        if len(set(names)) != v:
            dup = next(x for x in names if names.count(x) > 1)
            raise ValueError(f"duplicate column name {dup!r}")
        if v and codes.size and codes.min() < 0:
            col = int(np.argwhere(codes < 0)[0, 1])
            raise ValueError(f"column {names[col]!r}: negative code")
        observed = codes.max(axis=0).astype(np.int64) + 1 if n else np.ones(v, np.int64)
        if arities is None:
            arities = observed
        arities = np.asarray(arities, dtype=np.int64)
        if arities.shape != (v,):
            raise ValueError(f"{len(arities)} arities for {v} columns")
        over = np.flatnonzero(observed > arities)
        if len(over):
            raise ValueError(
                f"column {names[over[0]]!r}: code {observed[over[0]] - 1} "
                f"outside arity {arities[over[0]]}"
            )
        if categories is None:
            categories = [list(range(a)) for a in arities]
        categories = [list(c) for c in categories]
        if len(categories) != v or any(len(c) != a for c, a in zip(categories, arities)):
            raise ValueError("categories must list one label per code of every column")
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

        Errors (``ValueError``, naming the column and, where it applies, the row):
        fewer than 2 rows; a missing value; a non-finite number; a numeric column
        with more than ``max_arity`` distinct values ("looks continuous"); a text
        column with more than ``max_arity`` categories. Rows are counted from 0 in data
        order (a CSV's header line is not a row, so row ``r`` is on line ``r + 2``).
        """
        if frame.shape[0] < 2:
            raise ValueError(f"need at least 2 rows of data, got {frame.shape[0]}")
        if frame.shape[1] < 1:
            raise ValueError("data has no columns")
        names = [str(c) for c in frame.columns]
        codes = np.empty(frame.shape, dtype=np.int64)
        categories: list[list[Any]] = []
        for k, name in enumerate(names):
            column = frame.iloc[:, k]
            if column.dtype == object:
                # numbers held as Python objects (e.g. from an object array) are numbers:
                # sort them numerically and check them for non-finite values
                column = column.infer_objects()
            missing = column.isna().to_numpy()
            if missing.any():
                row = int(np.flatnonzero(missing)[0])
                raise ValueError(f"column {name!r}, row {row}: missing value")
            values = column.to_numpy()
            numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(
                column
            )
            if numeric:
                values = values.astype(np.float64)
                bad = ~np.isfinite(values)
                if bad.any():
                    row = int(np.flatnonzero(bad)[0])
                    raise ValueError(f"column {name!r}, row {row}: non-finite value {values[row]}")
            labels, inverse = np.unique(values if numeric else values.astype(str),
                                        return_inverse=True)
            if len(labels) > max_arity:
                what = (
                    "looks continuous, discretize it first"
                    if numeric
                    else "has too many categories"
                )
                raise ValueError(
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
            raise ValueError(f"data must be a 2-d array, got shape {array.shape}")
        if names is None:
            names = [f"X{k}" for k in range(array.shape[1])]
        if len(names) != array.shape[1]:
            raise ValueError(f"{len(names)} names for {array.shape[1]} columns")
        return cls.from_frame(pd.DataFrame(array, columns=list(names)), max_arity=max_arity)

    @classmethod
    def from_csv(
        cls, path: str | os.PathLike, max_arity: int = DEFAULT_MAX_ARITY
    ) -> DiscreteData:
        """Read a comma-separated UTF-8 file with a header row and encode it as
        :meth:`from_frame`. Every problem is an ``InputError`` (a ``ValueError``) naming the
        file: empty, not UTF-8 text, another delimiter, duplicate or empty column names, a
        first line of numbers (no header row), ragged rows, and :meth:`from_frame`'s."""
        _, frame = read_csv_file(path, keep_default_na=True)
        try:
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
