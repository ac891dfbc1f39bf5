"""A table of continuous and discrete columns: float values and integer codes side by side
(docs/design.md §3.2).

:class:`MixedData` is what the Gaussian scores search (``sem-bic``: every column
continuous; ``dg-bic``: any mix). Its discrete columns are encoded as
:class:`~causalcal.data.DiscreteData` encodes them (codes, arities, category labels), its
continuous ones are float64 and checked by :func:`~causalcal.data.kinds.continuous_values`.
A bootstrap replicate is a weight vector over its rows, as for discrete data.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcal._io import atomic_write, read_csv_file
from causalcal._validation import check_unique_names
from causalcal.data.binning import Discretization, Keep, discretize_by, parse_discretize
from causalcal.data.columns import (
    MissingReport,
    drop_missing,
    refuse_missing_markers,
    typed_column,
    without_columns,
)
from causalcal.data.discrete import DEFAULT_MAX_ARITY, DiscreteData, check_column_names
from causalcal.data.kinds import (
    CONTINUOUS,
    DATA_KINDS,
    DISCRETE,
    DISCRETE_MAX_VALUES,
    MIXED,
    ColumnKinds,
    continuous_values,
    detect_continuous,
)
from causalcal.errors import InputError

__all__ = ["MixedData"]


class MixedData:
    """An n × V table whose columns are continuous (float64) or discrete (integer codes).

    Parameters
    ----------
    values : (n, V_c) float64, the continuous columns in table order.
    codes : (n, V_d) integer codes of the discrete columns in table order.
    continuous : (V,) booleans, which columns are continuous.
    names : the V column names (default ``X0 …``).
    arities, categories : of the discrete columns (V_d each; default: the observed codes).

    Build it with :meth:`from_frame`, :meth:`from_csv` or :meth:`from_values`, which
    validate; the constructor trusts its arrays (as the simulator's) but checks shapes.
    ``arities`` and ``categories`` as properties are per column (0 and ``None`` for a
    continuous one).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from causalcal.data import MixedData
    >>> frame = pd.DataFrame({"dose": np.linspace(0, 1, 12), "arm": list("ab" * 6)})
    >>> data = MixedData.from_frame(frame)  # dose: 12 numbers, continuous; arm: discrete
    >>> data, data.kind, data.arities.tolist()
    (MixedData(n_samples=12, n_vars=2, continuous=1), 'mixed', [0, 2])
    """

    def __init__(self, values: np.ndarray, codes: np.ndarray, continuous: Sequence[bool],
                 names: Sequence[str] | None = None, arities: Sequence[int] | None = None,
                 categories: Sequence[Sequence[Any]] | None = None) -> None:
        continuous = np.asarray(continuous, dtype=bool)
        v = len(continuous)
        n_c = int(continuous.sum())
        values = np.asarray(values, dtype=np.float64)
        codes = np.asarray(codes)
        if values.ndim != 2 or codes.ndim != 2:
            raise InputError("values and codes must be 2-d arrays")
        n = values.shape[0] if n_c else codes.shape[0]
        if values.shape != (n, n_c) or codes.shape != (n, v - n_c):
            raise InputError(f"values {values.shape} and codes {codes.shape} do not fit "
                             f"{n_c} continuous and {v - n_c} discrete columns of one length")
        if n_c and not np.all(np.isfinite(values)):
            raise InputError("continuous values must be finite")
        names = [f"X{k}" for k in range(v)] if names is None else [str(x) for x in names]
        if len(names) != v:
            raise InputError(f"{len(names)} names for {v} columns")
        check_unique_names(names, "column name")
        discrete_names = [nm for nm, c in zip(names, continuous) if not c]
        self._discrete = DiscreteData(codes.astype(np.int64), discrete_names, arities,
                                      categories)
        self.values = values
        self.codes = self._discrete.codes
        self.names = names
        self.is_continuous = continuous
        self.continuous_columns = np.flatnonzero(continuous)
        self.discrete_columns = np.flatnonzero(~continuous)
        #: rows dropped for missing values by ``missing="drop"``
        self.missing_report: MissingReport | None = None

    # ---------------------------------------------------------------- shape
    @property
    def n_samples(self) -> int:
        return self.values.shape[0] if len(self.continuous_columns) else self.codes.shape[0]

    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def kind(self) -> str:
        """``"continuous"``, ``"discrete"`` or ``"mixed"``: the kinds of its columns."""
        if not len(self.discrete_columns):
            return CONTINUOUS
        return DISCRETE if not len(self.continuous_columns) else MIXED

    @property
    def arities(self) -> np.ndarray:
        """Categories per column (0 for a continuous one)."""
        out = np.zeros(self.n_vars, dtype=np.int64)
        out[self.discrete_columns] = self._discrete.arities
        return out

    @property
    def categories(self) -> list[list[Any] | None]:
        out: list[list[Any] | None] = [None] * self.n_vars
        for k, labels in zip(self.discrete_columns, self._discrete.categories):
            out[int(k)] = labels
        return out

    def discrete_part(self) -> DiscreteData:
        """The discrete columns as :class:`DiscreteData`."""
        return self._discrete

    def __repr__(self) -> str:
        return (f"MixedData(n_samples={self.n_samples}, n_vars={self.n_vars}, "
                f"continuous={len(self.continuous_columns)})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MixedData):
            return NotImplemented
        return (self.names == other.names
                and np.array_equal(self.is_continuous, other.is_continuous)
                and np.array_equal(self.values, other.values)
                and self._discrete == other._discrete)

    def index(self, name: str) -> int:
        """Column position of variable ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no variable named {name!r}") from None

    def in_order(self, names: Sequence[str]) -> MixedData:
        """The same data with the columns in the order of ``names`` (the same names)."""
        order = [self.index(str(n)) for n in names]
        if sorted(order) != list(range(self.n_vars)):
            raise InputError(f"{len(names)} names for the data's {self.n_vars} columns")
        continuous = self.is_continuous[order]
        position = {int(k): p for p, k in enumerate(self.continuous_columns)}
        values = self.values[:, [position[k] for k in order if self.is_continuous[k]]]
        part = self._discrete.in_order([self.names[k] for k in order
                                        if not self.is_continuous[k]])
        out = MixedData(values, part.codes, continuous, [self.names[k] for k in order],
                        part.arities, part.categories)
        out.missing_report = self.missing_report
        return out

    def numeric(self) -> np.ndarray:
        """The table as an (n, V) float64 matrix: values, and the codes of discrete columns."""
        out = np.empty((self.n_samples, self.n_vars))
        out[:, self.continuous_columns] = self.values
        out[:, self.discrete_columns] = self.codes
        return out

    def fingerprint_parts(self) -> list[bytes]:
        """What identifies the table's content (for checkpoints): kinds, values, codes."""
        return [self.is_continuous.tobytes(), np.ascontiguousarray(self.values).tobytes(),
                np.ascontiguousarray(self.codes).tobytes(),
                np.asarray(self.arities, dtype="<i8").tobytes()]

    # ------------------------------------------------------------ builders
    @classmethod
    def from_values(cls, values: np.ndarray, names: Sequence[str] | None = None) -> MixedData:
        """All-continuous data from a 2-d numeric array, each column checked as
        :meth:`from_frame` checks it."""
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2:
            raise InputError(f"values must be a 2-d array, got shape {values.shape}")
        names = [f"X{k}" for k in range(values.shape[1])] if names is None else list(names)
        return cls.from_frame(pd.DataFrame(values, columns=names), data_kind=CONTINUOUS)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, data_kind: str = MIXED,
                   kinds: ColumnKinds | None = None, max_arity: int = DEFAULT_MAX_ARITY,
                   missing: str = "error", keep_discrete: Sequence[str] = ()) -> MixedData:
        """Validate and encode a DataFrame: each column continuous or discrete.

        ``data_kind`` ``"continuous"``: every column is continuous (a column declared
        discrete is an error); ``"mixed"``: a numeric column with more than
        :data:`~causalcal.data.kinds.DISCRETE_MAX_VALUES` (10) distinct values is
        continuous, any other column discrete (at most ``max_arity`` categories).
        ``kinds`` overrides by name; ``keep_discrete`` (context columns) are discrete
        whatever they hold.
        Continuous columns are checked by :func:`~causalcal.data.kinds.continuous_values`,
        discrete ones encoded by :meth:`DiscreteData.from_frame` (its checks and
        warnings). ``missing="drop"`` drops every row holding a missing value first."""
        if data_kind not in (CONTINUOUS, MIXED):
            raise InputError(f"data_kind must be {CONTINUOUS!r} or {MIXED!r} for MixedData "
                             f"(of {', '.join(DATA_KINDS)}), got {data_kind!r}")
        kinds = kinds or ColumnKinds()
        names = check_column_names([str(c) for c in frame.columns])
        kinds.check_names(names)
        for name in frame.columns[frame.isna().all().to_numpy()]:
            raise InputError(f"column {str(name)!r}: every value is missing")
        frame, report = drop_missing(frame, missing)
        if frame.shape[0] < 2:
            raise InputError(f"need at least 2 rows of data, got {frame.shape[0]}")
        if frame.shape[1] < 1:
            raise InputError("data has no columns")
        continuous = np.array([_is_continuous(frame.iloc[:, k], name, data_kind, kinds,
                                              keep_discrete, max_arity)
                               for k, name in enumerate(names)], dtype=bool)
        values = np.empty((frame.shape[0], int(continuous.sum())))
        for col, k in enumerate(np.flatnonzero(continuous)):
            values[:, col] = continuous_values(frame.iloc[:, k], names[k], frame,
                                               declared=names[k] in kinds.continuous)
        discrete = None
        if (~continuous).any():  # CSV text: numbers sorted by value, as DiscreteData reads it
            part = frame.iloc[:, np.flatnonzero(~continuous)]
            part = part.apply(lambda c: typed_column(c) if _text(c) else c)
            discrete = DiscreteData.from_frame(part, max_arity=max_arity)
        codes = np.zeros((frame.shape[0], 0), np.int64) if discrete is None else discrete.codes
        data = cls(values, codes, continuous, names,
                   None if discrete is None else discrete.arities,
                   None if discrete is None else discrete.categories)
        data.missing_report = report
        return data

    @classmethod
    def from_csv(cls, path: str | os.PathLike, data_kind: str = MIXED,
                 kinds: ColumnKinds | None = None, max_arity: int = DEFAULT_MAX_ARITY,
                 na_values: Sequence[str] | None = None,
                 discretize_bins: Discretization | str | None = None,
                 missing: str = "error", drop_columns: Sequence[str] = (),
                 keep_discrete: Sequence[str] = ()) -> MixedData:
        """Read a comma-separated UTF-8 file with a header row (as
        :meth:`DiscreteData.from_csv` reads it: the same missing-value markers,
        ``na_values``, ``missing`` and ``drop_columns``) and encode it as
        :meth:`from_frame`. ``discretize_bins`` (opt-in) bins columns first, as for
        discrete data: a binned column is discrete; a column declared continuous is never
        binned by the default spec. Every problem is an ``InputError`` naming the file."""
        if isinstance(na_values, str):
            na_values = [na_values]
        kinds = kinds or ColumnKinds()
        spec = parse_discretize(discretize_bins, max_arity)
        _, frame = read_csv_file(path, dtype=str, keep_default_na=False,
                                 na_values=["", *map(str, na_values or ())])
        try:
            frame = without_columns(frame, drop_columns)
            if na_values is None:
                refuse_missing_markers(frame)
            if discretize_bins is not None:
                frame = _binned(frame, spec, kinds, keep_discrete)
            data = cls.from_frame(frame, data_kind, kinds, max_arity, missing, keep_discrete)
        except ValueError as err:
            raise InputError(f"{path}: {err}") from None
        return data

    # ------------------------------------------------------------- exports
    def to_frame(self) -> pd.DataFrame:
        """The data as a DataFrame: continuous values and discrete labels, in table order."""
        labels = self._discrete.to_frame()
        columns = {}
        for k, name in enumerate(self.names):
            if self.is_continuous[k]:
                columns[name] = self.values[:, int(np.searchsorted(self.continuous_columns, k))]
            else:
                columns[name] = labels[name].to_numpy()
        return pd.DataFrame(columns)

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write the table as CSV with a header row (atomically; floats as shortest
        round-trip text, so a read gives the same numbers)."""
        with atomic_write(path, newline="", encoding="utf-8") as handle:
            self.to_frame().to_csv(handle, index=False, float_format=None)


def _is_continuous(column: pd.Series, name: str, data_kind: str, kinds: ColumnKinds,
                   keep_discrete: Sequence[str], max_arity: int) -> bool:
    if name in kinds.continuous:
        if name in keep_discrete:
            raise InputError(f"column {name!r} is a context column (categories) and cannot "
                             "be declared continuous")
        return True
    if data_kind == CONTINUOUS:
        if name in kinds.discrete or name in keep_discrete:
            what = "declared discrete" if name in kinds.discrete else "a context column"
            raise InputError(f"column {name!r} is {what}, but the score takes continuous "
                             "columns only; use --score dg-bic (mixed data) for it")
        return True
    if name in kinds.discrete or name in keep_discrete:
        return False
    return detect_continuous(column.dropna(), min(max_arity, DISCRETE_MAX_VALUES))


def _binned(frame: pd.DataFrame, spec: Discretization, kinds: ColumnKinds,
            keep_discrete: Sequence[str]) -> pd.DataFrame:
    """``frame`` binned by ``spec``, columns declared continuous (and context columns)
    kept as their values unless named by the spec."""
    keep = {name: Keep() for name in (*kinds.continuous, *keep_discrete)
            if name not in spec.columns and name in frame.columns}
    spec = Discretization({**spec.columns, **keep}, spec.default)
    binned = discretize_by(frame.apply(typed_column), spec)
    for name in kinds.continuous:  # their text is read as numbers again by from_frame
        if name in frame.columns and name not in spec.columns:
            binned[name] = frame[name]
    return binned



def _text(column: pd.Series) -> bool:
    """A column of text (as a CSV is read), not numbers, categories or booleans."""
    return column.dtype == object or pd.api.types.is_string_dtype(column.dtype)
