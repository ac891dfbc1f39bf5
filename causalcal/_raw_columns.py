"""Preparing a real data set's columns before they are encoded (docs/design.md §3):
missing values (refused or dropped row-wise), identifier-like columns, discretisation
(scikit-learn's ``KBinsDiscretizer``, per column or by default). Re-exported by
:mod:`causalcal.data`; log messages go to logger ``causalcal.data``."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from causalcal.errors import InputError

log = logging.getLogger("causalcal.data")

#: ``discretize`` methods: scikit-learn's ``KBinsDiscretizer`` strategies.
DISCRETIZE_METHODS = ("quantile", "uniform", "kmeans")
#: What to do with missing values: refuse them (naming column and row) or drop their rows.
MISSING_POLICIES = ("error", "drop")
#: A column of integers or text with this many rows or more, all values distinct, looks
#: like an identifier (a row number, a patient id), not a causal variable.
ID_MIN_ROWS = 30
#: The name of the index holding the data's own row numbers once rows are dropped.
ROW_INDEX = "causalcal_row"


def row_number(frame: pd.DataFrame, position: int) -> int:
    """The 1-based row number of the row at ``position``: its place in the data as given,
    also after rows with missing values were dropped."""
    if frame.index.name == ROW_INDEX:
        return int(frame.index[position])
    return position + 1


#: cells that look like a missing-value marker (compared without case and spaces)
MISSING_MARKERS = ("na", "n/a", "?", ".", "nan", "null")


def refuse_missing_markers(frame: pd.DataFrame) -> None:
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


def typed_column(column: pd.Series) -> pd.Series:
    """A column of CSV text as numbers if every cell reads as one and no two different
    spellings denote the same number (``1`` and ``01``, ``1.0``, ``+1``, ``1e0``); else
    the text as written."""
    present = column.dropna()
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any() or present.nunique() != numbers.nunique():
        return column
    return pd.to_numeric(column)


def drop_missing(frame: pd.DataFrame, missing: str = "error") -> tuple[pd.DataFrame, dict | None]:
    """``missing="drop"``: the rows of ``frame`` without a missing value (listwise deletion)
    and a report ``{"rows", "dropped", "columns": {name: missing cells}}``, also logged;
    the rows keep their numbers in error messages. ``"error"``: ``frame`` unchanged."""
    if missing not in MISSING_POLICIES:
        raise InputError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got "
                         f"{missing!r}")
    if missing == "error":
        return frame, None
    absent = frame.isna()
    keep = ~absent.any(axis=1).to_numpy()
    counts = {str(c): int(n) for c, n in absent.sum().items() if n}
    report = {"rows": len(frame), "dropped": int((~keep).sum()), "columns": counts}
    if report["dropped"]:
        log.info("%s", missing_summary(report))
    out = frame[keep].copy()
    out.index = pd.Index(np.flatnonzero(keep) + 1, name=ROW_INDEX)
    if len(out) < 2:
        raise InputError(f"{len(out)} of {len(frame)} rows are complete; dropping the rows "
                         "with missing values leaves too few")
    return out, report


def missing_summary(report: dict) -> str:
    """One line of :func:`drop_missing`'s report."""
    per = ", ".join(f"{c} {n}" for c, n in report["columns"].items()) or "none"
    return (f"missing values: dropped {report['dropped']} of {report['rows']} rows "
            f"(listwise deletion); missing cells per column: {per}")


def without_columns(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    unknown = [n for n in names if n not in frame.columns]
    if unknown:
        raise InputError(f"drop columns: no column {unknown[0]!r}")
    return frame.drop(columns=list(names))


def refuse_identifier(column: pd.Series, name: str) -> None:
    """An error if ``column`` looks like an identifier: integers or text, every value
    distinct, at least :data:`ID_MIN_ROWS` rows."""
    values = column.dropna()
    if len(values) < ID_MIN_ROWS or values.nunique() != len(values):
        return
    if pd.api.types.is_numeric_dtype(values) and not np.all(values == np.round(values)):
        return  # measurements: distinct by nature
    raise InputError(f"column {name!r}: all {len(values)} values are distinct, like an "
                     "identifier (a row or subject number), not a causal variable; leave "
                     f"it out (--drop-columns {name}, drop_columns=[...]) or, if it is a "
                     f"measurement, bin it by name (--discretize {name}=quantile:3)")


def discretize(
    frame: pd.DataFrame,
    method: str = "quantile",
    n_bins: int = 3,
    *,
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Bin continuous columns into ``n_bins`` ordered categories (scikit-learn's
    ``KBinsDiscretizer``: ``method`` ``"quantile"`` = equal-frequency, ``"uniform"`` =
    equal-width, ``"kmeans"`` = 1-d k-means).

    ``columns`` defaults to the numeric columns with more than ``n_bins`` distinct values
    (a column with fewer is left as it is), an identifier among them (integers, all
    distinct) being an error; the others are kept. A binned column becomes an ordered
    ``Categorical`` labelled by its bins (``< 0.25``, ``[0.25, 1.5)``, ``>= 1.5``); the
    edges chosen are logged (logger ``causalcal.data``) and kept in
    ``result.attrs["bin_edges"]``. Fewer bins come out where values repeat
    (scikit-learn drops bins of zero width). Missing values are an error naming the
    column.
    """
    from sklearn.preprocessing import KBinsDiscretizer

    if method not in DISCRETIZE_METHODS:
        raise InputError(f"unknown discretization method {method!r}; use one of "
                         f"{', '.join(DISCRETIZE_METHODS)}")
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise InputError(f"n_bins must be an integer of at least 2, got {n_bins!r}")
    if columns is None:
        columns = [c for c in frame.columns if _looks_continuous(frame[c], n_bins)]
        for name in columns:
            refuse_identifier(frame[name], str(name))
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
            raise InputError(f"column {name!r}, row {row_number(frame, row)}: {what}; cannot "
                             "discretize it")
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


def _looks_continuous(column: pd.Series, n_values: int) -> bool:
    """Whether ``column`` is numeric with more than ``n_values`` distinct values."""
    if isinstance(column.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(column):
        return False
    return pd.api.types.is_numeric_dtype(column) and column.nunique() > n_values


def parse_discretize(spec, max_arity: int | None = None) -> dict[str | None, tuple[str, int]]:
    """A discretisation spec as ``{column: (method, n_bins)}``, key ``None`` for every
    other numeric column with more than ``n_bins`` values (docs/design.md §3). ``spec``:
    ``None`` (nothing), ``(method, n_bins)``, such a dict, or text as ``--discretize``
    takes it: comma-separated ``METHOD:K`` (the default) and ``NAME=METHOD:K`` items, e.g.
    ``"age=quantile:4,income=uniform:3,quantile:3"``. More bins than ``max_arity`` (when
    given) are an error."""
    if spec is None:
        return {}
    if isinstance(spec, tuple):
        spec = {None: spec}
    if isinstance(spec, str):
        items = [item.strip() for item in spec.split(",") if item.strip()]
        spec = {}
        for item in items or [spec]:
            name, _, rule = item.rpartition("=")
            method, _, bins = rule.strip().partition(":")
            key = name.strip() or None
            if key in spec or method not in DISCRETIZE_METHODS or not bins.strip().isdigit():
                raise InputError(
                    f"discretize {item!r}: expected METHOD:K or NAME=METHOD:K (each column "
                    f"and the default once) with METHOD one of {', '.join(DISCRETIZE_METHODS)}"
                    " and K >= 2, e.g. age=quantile:4,income=uniform:3,quantile:3")
            spec[key] = (method, int(bins))
    for key, (method, bins) in spec.items():
        if method not in DISCRETIZE_METHODS or int(bins) < 2:
            where = "default" if key is None else repr(key)
            raise InputError(f"discretize {where}: {method}:{bins}: use one of "
                             f"{', '.join(DISCRETIZE_METHODS)} and at least 2 bins")
        if max_arity is not None and bins > max_arity:
            where = f"{key}=" if key is not None else ""
            raise InputError(f"discretize {where}{method}:{bins}: {bins} bins > "
                             f"max_arity={max_arity} (--max-arity)")
    return dict(spec)


def discretize_spec(frame: pd.DataFrame,
                    spec: Mapping[str | None, tuple[str, int]]) -> pd.DataFrame:
    """``frame`` binned by a :func:`parse_discretize` spec: the named columns, then the
    default for every other numeric column with more distinct values than bins."""
    edges: dict[str, list[float]] = {}
    for name, (method, bins) in spec.items():
        if name is not None:
            frame = discretize(frame, method, bins, columns=[name])
            edges.update(frame.attrs["bin_edges"])
    if None in spec:
        method, bins = spec[None]
        rest = [c for c in frame.columns if c not in spec and _looks_continuous(frame[c], bins)]
        for name in rest:
            refuse_identifier(frame[name], str(name))
        frame = discretize(frame, method, bins, columns=rest)
        edges.update(frame.attrs["bin_edges"])
    frame.attrs["bin_edges"] = edges
    return frame


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
